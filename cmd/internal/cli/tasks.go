package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/pomehq/pome/examples"
	"github.com/pomehq/pome/task"
)

// bundledTask is one example task of the binary's library.
type bundledTask struct {
	Name  string   `json:"name"`
	Title string   `json:"title"`
	Twins []string `json:"twins"`
	Task  string   `json:"task"`
	Agent string   `json:"agent"`
}

// bundledTasks lists the embedded examples, read with the binary's twins
// so that the list shows each task's twins and title.
func bundledTasks() ([]bundledTask, error) {
	reg, err := registry()
	if err != nil {
		return nil, err
	}
	entries, err := fs.ReadDir(examples.FS, "tasks")
	if err != nil {
		return nil, err
	}
	var out []bundledTask
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".md") {
			continue
		}
		name := strings.TrimSuffix(e.Name(), ".md")
		src, err := fs.ReadFile(examples.FS, "tasks/"+e.Name())
		if err != nil {
			return nil, err
		}
		t, err := task.Parse(e.Name(), src, task.Options{Registry: reg, SkipSeed: true})
		if err != nil {
			return nil, fmt.Errorf("bundled task %s: %w", e.Name(), err)
		}
		out = append(out, bundledTask{Name: name, Title: t.Title, Twins: t.Config.Twins, Task: "tasks/" + e.Name(), Agent: "agents/" + name + ".sh"})
	}
	return out, nil
}

func (a *App) newTasksCmd() *cobra.Command {
	var copyTo string
	var force, asJSON bool
	cmd := &cobra.Command{
		Use:   "tasks [TWIN] [--copy DIR]",
		Short: "List the bundled example tasks (with TWIN: those that use it), or copy them out",
		Long: "Every bundled task comes with a scripted reference agent that passes it, so\n" +
			"`pome run` can be tried without a model. --copy writes DIR/tasks/*.md and\n" +
			"DIR/agents/*.sh.",
		Args: cobra.MaximumNArgs(1),
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			list, err := bundledTasks()
			if err != nil {
				return err
			}
			if len(args) == 1 {
				want := strings.ToLower(args[0])
				var kept []bundledTask
				for _, t := range list {
					for _, tw := range t.Twins {
						if tw == want {
							kept = append(kept, t)
							break
						}
					}
				}
				if len(kept) == 0 {
					return usageErrorf("no bundled task uses the twin %q", args[0])
				}
				list = kept
			}
			if copyTo != "" {
				return a.copyTasks(list, copyTo, force)
			}
			if asJSON {
				data, _ := json.Marshal(map[string]any{"tasks": list})
				return printJSON(a.Stdout, data)
			}
			tw := newTable(a.Stdout)
			row(tw, "NAME", "TWINS", "TITLE")
			for _, t := range list {
				row(tw, t.Name, strings.Join(t.Twins, ","), t.Title)
			}
			return tw.Flush()
		}),
	}
	cmd.Flags().StringVar(&copyTo, "copy", "", "write the tasks and their reference agents into DIR")
	cmd.Flags().BoolVar(&force, "force", false, "with --copy, overwrite files that exist")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the list as JSON")
	return cmd
}

// copyTasks writes the tasks, their agents and the agents' shared helpers.
// Nothing is overwritten without --force, and nothing is written when any
// file is in the way.
func (a *App) copyTasks(list []bundledTask, dir string, force bool) error {
	files := []string{"README.md", "agents/lib.sh"}
	for _, t := range list {
		files = append(files, t.Task, t.Agent)
		seed := strings.TrimSuffix(t.Task, ".md") + ".seed.json"
		if _, err := fs.Stat(examples.FS, seed); err == nil {
			files = append(files, seed)
		}
	}
	if !force {
		for _, f := range files {
			if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
				return usageErrorf("%s exists; pass --force to overwrite", filepath.Join(dir, f))
			} else if !errors.Is(err, os.ErrNotExist) {
				return err
			}
		}
	}
	for _, f := range files {
		data, err := fs.ReadFile(examples.FS, f)
		if err != nil {
			return err
		}
		dst := filepath.Join(dir, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		mode := os.FileMode(0o644)
		if path.Ext(f) == ".sh" {
			mode = 0o755
		}
		if err := os.WriteFile(dst, data, mode); err != nil {
			return err
		}
		// WriteFile keeps the mode of a file that existed; agents must run.
		if err := os.Chmod(dst, mode); err != nil {
			return err
		}
	}
	fmt.Fprintf(a.Stdout, "copied %d task(s) and their reference agents to %s\n", len(list), dir)
	if len(list) > 0 {
		t := list[0]
		fmt.Fprintf(a.Stdout, "try: pome run %s --agent %s\n", filepath.Join(dir, t.Task), filepath.Join(dir, t.Agent))
	}
	return nil
}
