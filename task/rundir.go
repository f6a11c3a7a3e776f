package task

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/pomehq/pome/tape"
	"github.com/pomehq/pome/twins"
)

// TaskSourceFile is the copy of the task file a run directory keeps, so
// that the run can be graded again, offline, after the file has moved.
const TaskSourceFile = "task.md"

// RunDir is a run directory as Runner.Run writes it, read back: what
// `pome eval`, `pome inspect` and `pome fix-prompt` work from.
type RunDir struct {
	Path string
	Meta Meta
	// Verdict is verdict.json (nil when the run ended before grading).
	Verdict *Verdict
	// Events is events.jsonl, the merged tapes, as written and as rows.
	Events    []json.RawMessage
	Rows      []tape.Row
	HasEvents bool
	// StateInitial and StateFinal are state_initial.<twin>.json and
	// state_final.<twin>.json by twin (absent when not written).
	StateInitial map[string]json.RawMessage
	StateFinal   map[string]json.RawMessage
	// TaskSource is the saved task file (nil for runs that predate it).
	TaskSource []byte
}

// RunDirError is a directory that is not a readable run directory.
type RunDirError struct{ Msg string }

func (e *RunDirError) Error() string { return e.Msg }

// ReadRunDir reads a run directory. meta.json must be there; the other
// files are read when present, since a run that failed early lacks them.
func ReadRunDir(dir string) (*RunDir, error) {
	d := &RunDir{Path: dir, StateInitial: map[string]json.RawMessage{}, StateFinal: map[string]json.RawMessage{}}
	if err := readJSON(dir, "meta.json", &d.Meta, true); err != nil {
		return nil, err
	}
	var v Verdict
	if err := readJSON(dir, "verdict.json", &v, false); err != nil {
		return nil, err
	} else if v.State != "" {
		d.Verdict = &v
	}
	data, err := os.ReadFile(filepath.Join(dir, "events.jsonl"))
	switch {
	case err == nil:
		d.HasEvents = true
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(make([]byte, 0, 64<<10), 64<<20)
		for n := 1; sc.Scan(); n++ {
			line := bytes.TrimSpace(sc.Bytes())
			if len(line) == 0 {
				continue
			}
			var row tape.Row
			if err := json.Unmarshal(line, &row); err != nil {
				return nil, &RunDirError{fmt.Sprintf("%s:%d: not a tape row: %v", filepath.Join(dir, "events.jsonl"), n, err)}
			}
			d.Events = append(d.Events, json.RawMessage(bytes.Clone(line)))
			d.Rows = append(d.Rows, row)
		}
		if err := sc.Err(); err != nil {
			return nil, &RunDirError{fmt.Sprintf("read %s: %v", filepath.Join(dir, "events.jsonl"), err)}
		}
	case !errors.Is(err, os.ErrNotExist):
		return nil, &RunDirError{err.Error()}
	}
	for _, name := range d.Meta.Twins {
		for base, m := range map[string]map[string]json.RawMessage{"state_initial": d.StateInitial, "state_final": d.StateFinal} {
			doc, err := os.ReadFile(filepath.Join(dir, base+"."+name+".json"))
			if errors.Is(err, os.ErrNotExist) {
				continue
			}
			if err != nil || !json.Valid(doc) {
				return nil, &RunDirError{fmt.Sprintf("%s is not a JSON document", filepath.Join(dir, base+"."+name+".json"))}
			}
			m[name] = doc
		}
	}
	if src, err := os.ReadFile(filepath.Join(dir, TaskSourceFile)); err == nil {
		d.TaskSource = src
	}
	return d, nil
}

func readJSON(dir, name string, v any, required bool) error {
	path := filepath.Join(dir, name)
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		if required {
			return &RunDirError{fmt.Sprintf("%s has no %s: it is not a run directory (runs/<task>/<run-id>)", dir, name)}
		}
		return nil
	}
	if err != nil {
		return &RunDirError{err.Error()}
	}
	if err := json.Unmarshal(data, v); err != nil {
		return &RunDirError{fmt.Sprintf("%s is not valid JSON: %v", path, err)}
	}
	return nil
}

// TwinRows returns the run's tape rows of one twin, in tape order.
func (d *RunDir) TwinRows(twin string) []tape.Row {
	var out []tape.Row
	for _, r := range d.Rows {
		if r.Twin == twin {
			out = append(out, r)
		}
	}
	return out
}

// ParseSource reads a task source for grading this run: criteria bound to
// reg's checks, the seed left unread (the run's initial state is the
// seed), and every [code] criterion on a twin the run had.
func (d *RunDir) ParseSource(reg *twins.Registry, name string, src []byte) (*Task, error) {
	t, err := Parse(name, src, Options{Registry: reg, SkipSeed: true})
	if err != nil {
		return nil, err
	}
	if errs := foreignTwins(t, name, "this run", d.Meta.Twins); len(errs) > 0 {
		return nil, errs
	}
	return t, nil
}

// Grade grades t again on the run's saved states and tapes, offline: the
// seed world is state_initial.<twin>.json, the final world
// state_final.<twin>.json, the tape events.jsonl. What the run lacks (a run
// that ended before its final state was read) makes criteria error, and
// the verdict incomplete, as on a server. judge may be nil.
func (d *RunDir) Grade(ctx context.Context, reg *twins.Registry, t *Task, judge Judge) *Verdict {
	p := ProviderFunc(func(ctx context.Context, name string) (*twins.Input, error) {
		tw, ok := reg.Get(name)
		if !ok {
			return nil, fmt.Errorf("unknown twin %q", name)
		}
		in := &twins.Input{Twin: tw, Tape: d.TwinRows(name), TapeDropped: d.Meta.TapeDropped[name]}
		for _, f := range []struct {
			base string
			docs map[string]json.RawMessage
			dst  *any
		}{{"state_initial", d.StateInitial, &in.Seed}, {"state_final", d.StateFinal, &in.Final}} {
			doc, ok := f.docs[name]
			if !ok {
				return nil, fmt.Errorf("the run directory has no %s.%s.json (the run ended before it was written)", f.base, name)
			}
			w, err := tw.DecodeWorld(doc)
			if err != nil {
				return nil, fmt.Errorf("%s.%s.json: %w", f.base, name, err)
			}
			*f.dst = w
		}
		if !d.HasEvents {
			return nil, errors.New("the run directory has no events.jsonl (the run ended before the tapes were read)")
		}
		return in, nil
	})
	v := Grade(ctx, t, p, judge)
	v.Task = t.Title
	v.SessionID = d.Meta.SessionID
	v.AgentIdentity = d.Meta.AgentIdentity
	// The project's threshold the run applied still applies, unless the
	// task now sets its own.
	if d.Meta.PassThreshold != nil && !t.Config.PassThresholdSet {
		v.PassThreshold = *d.Meta.PassThreshold
		Summarize(v)
	}
	return v
}

// JudgeInput is what a judge of this run's [model] criteria reads.
func (d *RunDir) JudgeInput(t *Task) (*JudgeInput, error) {
	abs, err := filepath.Abs(d.Path)
	if err != nil {
		return nil, err
	}
	return &JudgeInput{SessionID: d.Meta.SessionID, RunDir: abs,
		Task:        JudgeTask{Title: t.Title, File: d.Meta.TaskFile, Prompt: t.Prompt, Expected: t.Expected},
		AgentStdout: readTail(filepath.Join(d.Path, "stdout.txt"), 256<<10), AgentStderr: readTail(filepath.Join(d.Path, "stderr.log"), 64<<10),
		Events: d.Events, StateInitial: d.StateInitial, StateFinal: d.StateFinal}, nil
}
