package cli

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/pomehq/pome/task"
)

func (a *App) newChecksLintCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "lint FILE…",
		Short: "Check task files without running anything: every criterion must bind to a check",
		Long: "Reports, with file and line, every criterion that binds to no check, twin tags\n" +
			"outside the task's twins, legacy [D]/[P] tags, bad config, seeds their twin\n" +
			"rejects, and criteria the seed already satisfies. Exit 5 when any file has errors.",
		Args: cobra.MinimumNArgs(1),
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			reg, err := registry()
			if err != nil {
				return err
			}
			bad := 0
			for _, path := range args {
				t, err := task.ParseFile(path, reg)
				if es := task.AsErrors(err); es != nil {
					bad++
					for _, e := range es {
						fmt.Fprintln(a.Stdout, e.Error())
					}
					continue
				}
				if err != nil {
					bad++
					fmt.Fprintf(a.Stdout, "%s: %v\n", path, err)
					continue
				}
				errs := 0
				for _, f := range task.Lint(t, reg) {
					kind := "error"
					if f.Warning {
						kind = "warning"
					} else {
						errs++
					}
					fmt.Fprintf(a.Stdout, "%s:%d: %s: %s\n", path, f.Line, kind, f.Msg)
				}
				if errs > 0 {
					bad++
					continue
				}
				code := 0
				for _, c := range t.Criteria {
					if c.Kind == task.Code {
						code++
					}
				}
				fmt.Fprintf(a.Stdout, "%s: ok (%d [code] and %d [model] criteria; twins %s)\n", path, code, len(t.Criteria)-code, strings.Join(t.Config.Twins, ", "))
			}
			if bad > 0 {
				return &ExitError{Code: ExitUsage, Err: fmt.Errorf("%d of %d task file(s) have errors", bad, len(args)),
					Fix: "`pome checks TWIN` lists the sentences criteria can use; `pome checks add FILE --check ID --arg k=v` writes one"}
			}
			return nil
		}),
	}
}

func (a *App) newChecksAddCmd() *cobra.Command {
	var id string
	var kvs []string
	var always bool
	cmd := &cobra.Command{
		Use:   "add FILE --check ID [--arg NAME=VALUE…]",
		Short: "Append a correctly rendered criterion for a check to a task file",
		Args:  cobra.ExactArgs(1),
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			reg, err := registry()
			if err != nil {
				return err
			}
			path := args[0]
			src, err := os.ReadFile(path)
			if err != nil {
				return usageErrorf("%v", err)
			}
			if id == "" {
				return usageErrorf("--check is required (e.g. --check github.issue-has-label; `pome checks` lists them)")
			}
			// The file may be unfinished (no criteria yet); only its twins
			// matter here.
			t, _ := task.Parse(path, src, task.Options{Registry: reg, SkipSeed: true})
			if t == nil || len(t.Config.Twins) == 0 {
				return usageErrorf("%s: the task's ## Config does not name valid twins", path)
			}
			vals := map[string]string{}
			for _, kv := range kvs {
				k, v, ok := strings.Cut(kv, "=")
				if !ok || k == "" {
					return usageErrorf("--arg %q: want NAME=VALUE", kv)
				}
				if _, dup := vals[k]; dup {
					return usageErrorf("--arg %s is given twice", k)
				}
				vals[k] = v
			}
			line, err := task.RenderCriterion(reg, t.Config.Twins, id, vals, always)
			if err != nil {
				return &ExitError{Code: ExitUsage, Err: err}
			}
			// As in the original Pome: the same check with the same
			// arguments, however tagged, would be scored twice.
			if c, ok := t.FindCriterion(id, vals); ok {
				return &ExitError{Code: ExitUsage, Err: fmt.Errorf("%s:%d already has this criterion: %s", path, c.Line, c.Text),
					Fix: "adding it again would score the same check twice; always-scored or a twin tag does not make it another"}
			}
			out := task.AppendCriterion(src, line)
			st, err := os.Stat(path)
			if err != nil {
				return err
			}
			tmp := path + ".tmp"
			if err := os.WriteFile(tmp, out, st.Mode().Perm()); err != nil {
				return err
			}
			if err := os.Rename(tmp, path); err != nil {
				return errors.Join(err, os.Remove(tmp))
			}
			fmt.Fprintln(a.Stdout, line)
			return nil
		}),
	}
	cmd.Flags().StringVar(&id, "check", "", "check id, e.g. github.issue-has-label")
	cmd.Flags().StringArrayVar(&kvs, "arg", nil, "a parameter of the check, NAME=VALUE (repeatable)")
	cmd.Flags().BoolVar(&always, "always-scored", false, "score the criterion even when the seed already satisfies it")
	return cmd
}
