package cli

import (
	"strings"

	"github.com/spf13/cobra"
)

func (a *App) newStateCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "state TWIN",
		Short: "Print a twin's current state document as JSON",
		Args:  cobra.ExactArgs(1),
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			sid, err := a.session()
			if err != nil {
				return err
			}
			c, err := a.client()
			if err != nil {
				return err
			}
			raw, err := c.State(cmd.Context(), sid, strings.ToLower(strings.TrimSpace(args[0])))
			if err != nil {
				return err
			}
			return printJSON(a.Stdout, raw)
		}),
	}
	addSessionFlag(cmd)
	return cmd
}
