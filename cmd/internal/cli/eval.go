package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/pomehq/pome/task"
)

func (a *App) newEvalCmd() *cobra.Command {
	var (
		taskFile      string
		judge         judgeFlags
		saved, asJSON bool
	)
	cmd := &cobra.Command{
		Use:   "eval RUN_DIR",
		Short: "Grade a captured run directory again, offline",
		Long: "Grades the run in RUN_DIR (runs/<task>/<run-id>) again from what the run saved:\n" +
			"state_initial.<twin>.json as the seed, state_final.<twin>.json as the final\n" +
			"state and events.jsonl as the tape. No server and no agent are involved, so a\n" +
			"criterion edited after the run is re-scored without running the agent again.\n\n" +
			"The criteria come from --task FILE, else from the task file the run names\n" +
			"(meta.json's task_file) as it is now, else from the copy the run saved\n" +
			"(task.md); --saved always takes the copy. The verdict has the shape of\n" +
			"`pome run`'s; verdict.json is left as the run wrote it.\n\n" +
			"Exit codes: 0 pass, 1 fail, 5 not a run directory or an invalid task,\n" +
			"6 incomplete (could not grade).",
		Args: cobra.ExactArgs(1),
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			if saved && taskFile != "" {
				return usageErrorf("--saved and --task both choose the criteria: give one")
			}
			reg, err := registry()
			if err != nil {
				return err
			}
			d, err := readRunDir(args[0])
			if err != nil {
				return err
			}
			name, src, err := evalSource(d, taskFile, saved)
			if err != nil {
				return err
			}
			t, err := d.ParseSource(reg, name, src)
			if err != nil {
				return taskErrors(err)
			}
			llm, err := judge.settings(t)
			if err != nil {
				return err
			}
			var j task.Judge
			if judge.cmd != "" || llm != nil {
				in, err := d.JudgeInput(t)
				if err != nil {
					return err
				}
				j = &task.CommandJudge{Cmd: judge.cmd, Input: in, Env: task.JudgeEnv(os.Environ())}
				if llm != nil {
					if j, err = llm.Judge(t, in); err != nil {
						return usageErrorf("%v", err)
					}
				}
			}
			v := d.Grade(cmd.Context(), reg, t, j)
			if asJSON {
				data, _ := json.Marshal(v)
				if err := printJSON(a.Stdout, data); err != nil {
					return err
				}
			} else {
				a.printVerdict(v, t.Title)
				fmt.Fprintf(a.Stdout, "graded offline: %s, criteria from %s\n", d.Path, name)
			}
			return outcome(stateCode(v.State), nil)
		}),
	}
	f := cmd.Flags()
	f.StringVar(&taskFile, "task", "", "task file whose criteria grade the run (default: the run's task file, else its saved copy)")
	f.BoolVar(&saved, "saved", false, "grade with the task as it was when the run ran (the run's task.md)")
	judge.add(f, ", as for `pome run`")
	f.BoolVar(&asJSON, "json", false, "print the verdict as JSON")
	return cmd
}

// readRunDir reads a run directory, an unreadable one being bad input.
func readRunDir(path string) (*task.RunDir, error) {
	d, err := task.ReadRunDir(path)
	var re *task.RunDirError
	if errors.As(err, &re) {
		return nil, &ExitError{Code: ExitUsage, Err: err, Fix: "give a run directory, runs/<task>/<run-id>, as `pome run` writes it"}
	}
	return d, err
}

// evalSource picks the task text that grades the run and names it.
func evalSource(d *task.RunDir, taskFile string, saved bool) (string, []byte, error) {
	if taskFile != "" {
		src, err := os.ReadFile(taskFile)
		if err != nil {
			return "", nil, usageErrorf("%v", err)
		}
		return taskFile, src, nil
	}
	if f := d.Meta.TaskFile; f != "" && !saved {
		if src, err := os.ReadFile(f); err == nil {
			return f, src, nil
		}
	}
	if d.TaskSource == nil {
		return "", nil, &ExitError{Code: ExitUsage, Err: fmt.Errorf("%s has no %s and its task file %q cannot be read", d.Path, task.TaskSourceFile, d.Meta.TaskFile),
			Fix: "give the task with --task FILE"}
	}
	return filepath.Join(d.Path, task.TaskSourceFile), d.TaskSource, nil
}
