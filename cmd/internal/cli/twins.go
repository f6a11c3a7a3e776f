package cli

import (
	"encoding/json"
	"strings"

	"github.com/spf13/cobra"
)

func (a *App) newTwinsCmd() *cobra.Command {
	var asJSON, seedExample bool
	var format string
	cmd := &cobra.Command{
		Use:   "twins [TWIN]",
		Short: "List the twins the server offers, with their tools and REST bindings",
		Long: "List the twins the server offers. With TWIN --seed-example, print a complete\n" +
			"example seed for that twin, to start a seed file from; with --format original,\n" +
			"an example in the original Pome's seed format, which the twin loads as well.",
		Args: cobra.MaximumNArgs(1),
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			if seedExample && len(args) == 0 {
				return usageErrorf("--seed-example needs a twin: pome twins github --seed-example")
			}
			switch {
			case format != "pome" && format != "original":
				return usageErrorf("--format is pome or original, got %q", format)
			case cmd.Flags().Changed("format") && !seedExample:
				return usageErrorf("--format goes with --seed-example: pome twins github --seed-example --format original")
			}
			c, err := a.client()
			if err != nil {
				return err
			}
			list, err := c.Twins(cmd.Context())
			if err != nil {
				return err
			}
			if len(args) == 1 {
				var names []string
				for _, tw := range list.Twins {
					names = append(names, tw.Name)
					if tw.Name != args[0] {
						continue
					}
					if seedExample && format == "original" {
						if len(tw.SeedExampleOriginal) == 0 {
							return usageErrorf("the %s twin has no example in the original Pome's seed format (this server does not load that format for %s); --seed-example alone prints ours", tw.Name, tw.Name)
						}
						return printJSON(a.Stdout, tw.SeedExampleOriginal)
					}
					if seedExample {
						if len(tw.SeedExample) == 0 {
							return usageErrorf("the %s twin has no seed example", tw.Name)
						}
						return printJSON(a.Stdout, tw.SeedExample)
					}
					b, err := json.Marshal(tw)
					if err != nil {
						return err
					}
					return printJSON(a.Stdout, b)
				}
				return usageErrorf("unknown twin %q (the server offers %s)", args[0], strings.Join(names, ", "))
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
	cmd.Flags().BoolVar(&seedExample, "seed-example", false, "print a complete example seed for TWIN")
	cmd.Flags().StringVar(&format, "format", "pome", "seed format of --seed-example: pome or original (the original Pome's)")
	return cmd
}
