package cli

import (
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/spf13/cobra"
)

// starterFS is the project `pome init` lays out: tasks with sidecar seeds
// and a scripted agent that passes them.
//
//go:embed starter
var starterFS embed.FS

// starterCommand runs the starter's scripted agent.
const starterCommand = "sh agents/example-agent.sh"

func (a *App) newInitCmd() *cobra.Command {
	var bare, starter bool
	cmd := &cobra.Command{
		Use:   "init [--bare | --starter]",
		Short: "Start a Pome project here: pome.json, starter tasks and an example agent",
		Long: "In an empty folder, writes pome.json (the original Pome's manifest: agent,\n" +
			"command, tasks, artifacts_dir, pass_threshold), tasks/ with starter tasks and\n" +
			"their sidecar seeds, agents/example-agent.sh (a curl script that passes them)\n" +
			"and runs/. In a folder that already holds files, only pome.json (--bare);\n" +
			"--starter writes the starter files there too. Existing files, a manifest\n" +
			"included, are never overwritten.\n\n" +
			"Exit codes: 0 done, 5 usage, 2 a file could not be written.",
		Args: cobra.NoArgs,
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			if bare && starter {
				return usageErrorf("give at most one of --bare and --starter")
			}
			cwd, err := os.Getwd()
			if err != nil {
				return err
			}
			if !starter && !bare {
				bare = holdsFiles(cwd)
			}
			if !bare {
				if err := a.writeStarter(cwd); err != nil {
					return err
				}
			}
			existing, err := findProject(cwd)
			if err != nil {
				return err
			}
			if existing != nil {
				fmt.Fprintf(a.Stdout, "kept     %s (a manifest is there already)\n", existing.Path)
			} else {
				if err := a.writeManifest(cwd, bare); err != nil {
					return err
				}
			}
			if bare {
				fmt.Fprint(a.Stdout, "\nNext steps:\n"+
					"  1. set \"command\" in pome.json to the command that starts your agent\n"+
					"  2. pome serve                 # in another terminal; prints a team key once\n"+
					"  3. pome login --server "+defaultServer+"\n"+
					"  4. pome run TASK.md           # or set \"tasks\" in pome.json and run `pome run`\n")
				return nil
			}
			fmt.Fprint(a.Stdout, "\nNext steps:\n"+
				"  1. pome serve                 # in another terminal; prints a team key once\n"+
				"  2. pome login --server "+defaultServer+"\n"+
				"  3. pome run                   # the tasks in tasks/ with agents/example-agent.sh\n"+
				"  4. pome inspect latest        # what the agent did\n")
			return nil
		}),
	}
	cmd.Flags().BoolVar(&bare, "bare", false, "write only pome.json")
	cmd.Flags().BoolVar(&starter, "starter", false, "write the starter tasks and agent even in a folder that holds files")
	return cmd
}

// holdsFiles reports whether dir holds anything but dot-files: an existing
// project, which gets only a manifest.
func holdsFiles(dir string) bool {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), ".") {
			return true
		}
	}
	return false
}

func (a *App) writeStarter(dir string) error {
	err := fs.WalkDir(starterFS, "starter", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel := strings.TrimPrefix(p, "starter/")
		dst := filepath.Join(dir, filepath.FromSlash(rel))
		if _, err := os.Stat(dst); err == nil {
			fmt.Fprintf(a.Stdout, "kept     %s\n", rel)
			return nil
		}
		data, err := starterFS.ReadFile(p)
		if err != nil {
			return err
		}
		mode := os.FileMode(0o644)
		if path.Ext(p) == ".sh" {
			mode = 0o755
		}
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(dst, data, mode); err != nil {
			return err
		}
		fmt.Fprintf(a.Stdout, "wrote    %s\n", rel)
		return nil
	})
	if err == nil {
		err = os.MkdirAll(filepath.Join(dir, "runs"), 0o755)
	}
	if err != nil {
		return &ExitError{Code: ExitOrchestration, Err: fmt.Errorf("write the starter project: %w", err)}
	}
	return nil
}

func (a *App) writeManifest(dir string, bare bool) error {
	m := map[string]any{
		"$schema":        manifestSchemaURL,
		"agent":          map[string]any{"slug": agentSlug(filepath.Base(dir))},
		"artifacts_dir":  "runs",
		"pass_threshold": 100,
	}
	if !bare {
		m["command"] = starterCommand
	}
	if !bare || holdsTasks(filepath.Join(dir, "tasks")) {
		m["tasks"] = "tasks"
	}
	data, _ := json.MarshalIndent(m, "", "  ")
	p := filepath.Join(dir, "pome.json")
	if err := os.WriteFile(p, append(data, '\n'), 0o644); err != nil {
		return &ExitError{Code: ExitOrchestration, Err: fmt.Errorf("write pome.json: %w", err)}
	}
	fmt.Fprintln(a.Stdout, "wrote    pome.json")
	return nil
}

func holdsTasks(dir string) bool {
	names, err := filepath.Glob(filepath.Join(dir, "*.md"))
	return err == nil && len(names) > 0
}

// agentSlug makes a folder name a manifest slug ("my-agent" when nothing
// of it is left).
func agentSlug(name string) string {
	s := strings.Trim(regexp.MustCompile(`[^a-z0-9]+`).ReplaceAllString(strings.ToLower(name), "-"), "-")
	if len(s) > 64 {
		s = strings.TrimRight(s[:64], "-")
	}
	if s == "" {
		return "my-agent"
	}
	return s
}
