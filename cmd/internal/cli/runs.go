package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/pomehq/pome/task"
)

// isRunDir reports whether dir holds a run (its meta.json).
func isRunDir(dir string) bool {
	st, err := os.Stat(filepath.Join(dir, "meta.json"))
	return err == nil && !st.IsDir()
}

// resolveRun finds the run arg names: "latest" (the run latest.json in
// artifacts points at), a run directory, or a run id under artifacts.
func resolveRun(arg, artifacts string) (*task.RunDir, error) {
	switch {
	case arg == "latest":
		var sum task.Summary
		if err := readFileJSON(filepath.Join(artifacts, "latest.json"), &sum); err != nil {
			return nil, &ExitError{Code: ExitUsage, Err: fmt.Errorf("no latest run in %s: %w", artifacts, err),
				Fix: "run a task first (`pome run`), or point --artifacts-dir at the folder its runs went to"}
		}
		if sum.RunDir == "" {
			return nil, usageErrorf("%s names no run directory: the last `pome run` wrote none", filepath.Join(artifacts, "latest.json"))
		}
		return readRunDir(sum.RunDir)
	case isRunDir(arg):
		return readRunDir(arg)
	}
	runs, err := findRuns(artifacts, "")
	if err == nil {
		for _, d := range runs {
			if d.Meta.RunID == arg {
				return d, nil
			}
		}
	}
	return nil, &ExitError{Code: ExitUsage, Err: fmt.Errorf("%s is neither a run directory nor the id of a run in %s", arg, artifacts),
		Fix: "give `latest`, a run directory (runs/<task>/<run-id>) or a run id"}
}

// findRuns reads every run under root (root/<task>/<run-id>, or root
// itself when it is a run), of the task slug when slug is not empty,
// newest first. Directories that are not runs are passed over.
func findRuns(root, slug string) ([]*task.RunDir, error) {
	st, err := os.Stat(root)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("%s is not a directory", root)
	}
	var dirs []string
	if isRunDir(root) {
		dirs = []string{root}
	} else {
		tasks, err := os.ReadDir(root)
		if err != nil {
			return nil, err
		}
		for _, td := range tasks {
			if !td.IsDir() || (slug != "" && td.Name() != slug) {
				continue
			}
			entries, err := os.ReadDir(filepath.Join(root, td.Name()))
			if err != nil {
				continue
			}
			for _, e := range entries {
				if d := filepath.Join(root, td.Name(), e.Name()); e.IsDir() && isRunDir(d) {
					dirs = append(dirs, d)
				}
			}
		}
	}
	var out []*task.RunDir
	for _, d := range dirs {
		rd, err := task.ReadRunDir(d)
		var re *task.RunDirError
		if errors.As(err, &re) {
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, rd)
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i].Meta, out[j].Meta
		if !a.StartedAt.Equal(b.StartedAt) {
			return a.StartedAt.After(b.StartedAt)
		}
		return a.RunID > b.RunID
	})
	return out, nil
}

func readFileJSON(path string, v any) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("%s is not valid JSON: %w", path, err)
	}
	return nil
}
