package cli

import (
	"github.com/spf13/cobra"
)

func (a *App) newTwinsCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "twins",
		Short: "List the twins the server offers, with their tools and REST bindings",
		Args:  cobra.NoArgs,
		RunE: runE(func(cmd *cobra.Command, _ []string) error {
			c, err := a.client()
			if err != nil {
				return err
			}
			list, err := c.Twins(cmd.Context())
			if err != nil {
				return err
			}
			if asJSON {
				return printJSON(a.Stdout, list.Raw)
			}
			t := newTable(a.Stdout)
			row(t, "TWIN", "TITLE", "TOOLS", "REST BINDINGS")
			for _, tw := range list.Twins {
				row(t, tw.Name, orDash(tw.Title), len(tw.Tools), len(tw.Bindings))
			}
			return t.Flush()
		}),
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the server's JSON")
	return cmd
}
