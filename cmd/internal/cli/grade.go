package cli

import (
	"encoding/json"
	"os"

	"github.com/spf13/cobra"

	"github.com/pomehq/pome/task"
)

func (a *App) newGradeCmd() *cobra.Command {
	var judge judgeFlags
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "grade TASK.md --session SID",
		Short: "Grade a sandbox that an agent drove by itself against a task's criteria",
		Long: "Grades the sandbox's seed, final state and tapes against the task's Success\n" +
			"Criteria on the server. Exit codes: 0 pass, 1 fail, 5 invalid task, 6 incomplete.",
		Args: cobra.ExactArgs(1),
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			reg, err := registry()
			if err != nil {
				return err
			}
			src, err := os.ReadFile(args[0])
			if err != nil {
				return usageErrorf("%v", err)
			}
			// The seed is the sandbox's own; the file's is not read.
			t, err := task.Parse(args[0], src, task.Options{Registry: reg, SkipSeed: true})
			if err != nil {
				return taskErrors(err)
			}
			llm, err := judge.settings(t)
			if err != nil {
				return err
			}
			sid, err := a.session()
			if err != nil {
				return err
			}
			c, err := a.client()
			if err != nil {
				return err
			}
			ctx := cmd.Context()
			v, err := c.Grade(ctx, sid, task.GradeRequest{TaskSource: string(src)})
			if err != nil {
				return err
			}
			if judge.cmd != "" || llm != nil {
				in := &task.JudgeInput{SessionID: sid,
					Task:       task.JudgeTask{Title: t.Title, File: t.File, Prompt: t.Prompt, Expected: t.Expected},
					StateFinal: map[string]json.RawMessage{}}
				tapes := map[string][]json.RawMessage{}
				for _, name := range t.Config.Twins {
					doc, err := c.State(ctx, sid, name)
					if err != nil {
						return err
					}
					in.StateFinal[name] = doc
					tp, err := c.Tape(ctx, sid, name)
					if err != nil {
						return err
					}
					tapes[name] = tp.Rows
				}
				in.Events = task.MergeTapes(t.Config.Twins, tapes)
				var j task.Judge = &task.CommandJudge{Cmd: judge.cmd, Input: in, Env: task.JudgeEnv(os.Environ())}
				if llm != nil {
					if j, err = llm.Judge(t, in); err != nil {
						return usageErrorf("%v", err)
					}
				}
				task.ApplyJudge(ctx, v, j)
			}
			v.Task = t.Title
			if asJSON {
				data, _ := json.Marshal(v)
				if err := printJSON(a.Stdout, data); err != nil {
					return err
				}
			} else {
				a.printVerdict(v, t.Title)
			}
			return outcome(trialCode(&task.Trial{Verdict: v}), nil)
		}),
	}
	addSessionFlag(cmd)
	judge.add(cmd.Flags(), "")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the verdict as JSON")
	return cmd
}
