package cli

import (
	"bytes"
	"strings"

	"github.com/spf13/cobra"
)

func (a *App) newChecksCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "checks [TWIN]",
		Short: "List the checks a twin declares (all twins without TWIN)",
		Args:  cobra.MaximumNArgs(1),
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			c, err := a.client()
			if err != nil {
				return err
			}
			var twins []string
			if len(args) == 1 {
				twins = []string{strings.ToLower(strings.TrimSpace(args[0]))}
			} else {
				list, err := c.Twins(cmd.Context())
				if err != nil {
					return err
				}
				for _, t := range list.Twins {
					twins = append(twins, t.Name)
				}
			}
			lists := make([]*CheckList, 0, len(twins))
			for _, t := range twins {
				l, err := c.Checks(cmd.Context(), t)
				if err != nil {
					return err
				}
				lists = append(lists, l)
			}
			if asJSON {
				if len(args) == 1 {
					return printJSON(a.Stdout, lists[0].Raw)
				}
				// One document for all twins: an array of the server's
				// per-twin answers, in the server's twin order.
				var buf bytes.Buffer
				buf.WriteByte('[')
				for i, l := range lists {
					if i > 0 {
						buf.WriteByte(',')
					}
					buf.Write(bytes.TrimSpace(l.Raw))
				}
				buf.WriteByte(']')
				return printJSON(a.Stdout, buf.Bytes())
			}
			// Every check the twin declares: ours and the original Pome's
			// sentences alike, with the parameter names `checks add --arg`
			// takes.
			t := newTable(a.Stdout)
			row(t, "ID", "POLARITY", "SUBSTRATE", "PARAMS", "TEMPLATE")
			for _, l := range lists {
				for _, ch := range l.Checks {
					var params []string
					for _, p := range ch.Params {
						params = append(params, p.Name)
					}
					row(t, ch.ID, orDash(ch.Polarity), orDash(ch.Substrate), orDash(strings.Join(params, ",")), ch.Template)
				}
			}
			return t.Flush()
		}),
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the server's JSON")
	cmd.AddCommand(a.checksSubcommands()...)
	return cmd
}

// checksSubcommands lists the commands under `pome checks` (such as a
// future `checks lint`); each lives in its own file.
func (a *App) checksSubcommands() []*cobra.Command {
	return []*cobra.Command{a.newChecksLintCmd(), a.newChecksAddCmd()}
}
