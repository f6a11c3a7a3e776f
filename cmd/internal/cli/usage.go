package cli

import (
	"fmt"

	"github.com/spf13/cobra"
)

func (a *App) newUsageCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "usage",
		Short: "Show the team's sandbox and eval usage for this period",
		Args:  cobra.NoArgs,
		RunE: runE(func(cmd *cobra.Command, _ []string) error {
			c, err := a.client()
			if err != nil {
				return err
			}
			u, err := c.Usage(cmd.Context())
			if err != nil {
				return err
			}
			if asJSON {
				return printJSON(a.Stdout, u.Raw)
			}
			t := newTable(a.Stdout)
			row(t, "team:", orDash(u.Team))
			row(t, "period start:", orDash(u.PeriodStart))
			row(t, "sandboxes open:", fmt.Sprintf("%d of %d", u.SandboxesOpen, u.SandboxesQuota))
			row(t, "sandboxes created:", u.SandboxesCreated)
			row(t, "twins started:", u.TwinsStarted)
			row(t, "evals:", u.Evals)
			return t.Flush()
		}),
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the server's JSON")
	return cmd
}
