// Package twinstest helps twin packages test their actions without a
// transport: call an action on a world as both transports would, snapshot
// every tool schema to a golden file, and check the rules every action must
// follow.
package twinstest

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pomehq/pome/twins"
)

var update = flag.Bool("update", false, "rewrite golden files")

// Env returns a call environment with a fixed clock, for deterministic tests.
func Env(twin string) *twins.Env {
	t0 := time.Date(2026, 12, 2, 15, 0, 0, 0, time.UTC)
	return &twins.Env{SandboxID: "ses_TEST000000000000", Twin: twin, APIURL: "http://127.0.0.1:7070/" + twin + "/s/ses_TEST000000000000", Now: func() time.Time { return t0 }}
}

// Result is what one Call observed.
type Result struct {
	Out     any
	Err     *twins.Error
	Mutated bool
}

// JSON returns the output marshalled, for assertions on wire shape.
func (r Result) JSON(t testing.TB) map[string]any {
	t.Helper()
	b, err := json.Marshal(r.Out)
	if err != nil {
		t.Fatalf("marshal output: %v", err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("output is not a JSON object: %s", b)
	}
	return m
}

// World builds the twin's world from a seed (nil: the default world).
func World(t testing.TB, tw *twins.Twin, seed string) any {
	t.Helper()
	var raw json.RawMessage
	if seed != "" {
		raw = json.RawMessage(seed)
	}
	w, err := tw.NewWorld(twins.WithEnv(context.Background(), Env(tw.Name)), raw)
	if err != nil {
		t.Fatalf("NewWorld: %v", err)
	}
	return w
}

// Call decodes args (a JSON object) and runs the named action on world, the
// way both transports do.
func Call(t testing.TB, tw *twins.Twin, world any, name, args string) Result {
	t.Helper()
	a, ok := tw.Action(name)
	if !ok {
		t.Fatalf("%s has no action %q", tw.Name, name)
	}
	ctx, call := twins.WithCall(twins.WithEnv(context.Background(), Env(tw.Name)))
	in, err := a.Decode(json.RawMessage(args))
	if err != nil {
		return Result{Err: twins.AsError(err)}
	}
	// A write is recorded as the Redis store records it, to be replayed
	// below on the world as it was.
	var op *twins.Op
	var before []byte
	if a.Spec().Effect != twins.Read {
		if op = twins.NewOp(a, in); op != nil {
			ctx = op.Recording(ctx)
			if before, err = json.Marshal(world); err != nil {
				t.Fatalf("world does not marshal: %v", err)
			}
		}
	}
	out, err := a.Run(ctx, world, in)
	// A world must survive the JSON round trip the Redis store puts it
	// through, and the copy it makes for a write must be that round trip.
	doc, merr := json.Marshal(world)
	if merr != nil {
		t.Fatalf("world does not marshal: %v", merr)
	}
	if call.Mutated() {
		CheckCopy(t, tw, world, doc)
	}
	if op != nil {
		CheckReplay(t, tw, before, op, doc)
		// A write that reports no change is not saved (the Redis store
		// then keeps the world it ran on as it is): it must have changed
		// nothing.
		if !call.Mutated() && !call.Bookkeeping() && !bytes.Equal(doc, before) {
			t.Fatalf("%s: %s(%s) reports no change but changed the world\nbefore: %.1500s\nafter:  %.1500s", tw.Name, name, args, before, doc)
		}
	}
	return Result{Out: out, Err: twins.AsError(err), Mutated: call.Mutated()}
}

// CheckReplay fails the test unless op, a write recorded on the world whose
// document is before, replays (twins.Replay) on that world decoded, as
// another replica of the Redis store runs it, to the world whose document
// is after: the writer's.
func CheckReplay(t testing.TB, tw *twins.Twin, before []byte, op *twins.Op, after []byte) {
	t.Helper()
	data, err := op.Encode()
	if err != nil {
		t.Fatalf("%s: operation %s does not encode: %v", tw.Name, op.Action, err)
	}
	replica, err := tw.DecodeWorld(before)
	if err != nil {
		t.Fatalf("%s: DecodeWorld: %v", tw.Name, err)
	}
	if err := twins.Replay(tw, Env(tw.Name).SandboxID, replica, data); err != nil {
		t.Fatalf("%s: operation %s: %v", tw.Name, op.Action, err)
	}
	got, err := json.Marshal(replica)
	if err != nil {
		t.Fatalf("%s: replayed world does not marshal: %v", tw.Name, err)
	}
	if !bytes.Equal(got, after) {
		t.Fatalf("%s: operation %s replays to a world other than the writer's\nreplica: %.2000s\nwriter:  %.2000s", tw.Name, data, got, after)
	}
}

// CheckCopy fails the test unless the twin's CopyWorld (when it has one)
// copies world, whose document is doc, as decoding doc would: the copy
// encodes as doc, and the copy of the decoded world is deeply equal to it,
// indexes included.
func CheckCopy(t testing.TB, tw *twins.Twin, world any, doc []byte) {
	t.Helper()
	if tw.CopyWorld == nil {
		return
	}
	if got, err := json.Marshal(tw.CopyWorld(world)); err != nil || !bytes.Equal(got, doc) {
		t.Fatalf("%s: CopyWorld encodes as\n%s\nwant\n%s (%v)", tw.Name, got, doc, err)
	}
	decoded, err := tw.DecodeWorld(doc)
	if err != nil {
		t.Fatalf("%s: DecodeWorld: %v", tw.Name, err)
	}
	if cp := tw.CopyWorld(decoded); !reflect.DeepEqual(cp, decoded) {
		t.Fatalf("%s: the copy of a decoded world is not what decoding gives (an index not rebuilt?)", tw.Name)
	}
}

// MustCall is Call that fails the test on an error.
func MustCall(t testing.TB, tw *twins.Twin, world any, name, args string) Result {
	t.Helper()
	r := Call(t, tw, world, name, args)
	if r.Err != nil {
		t.Fatalf("%s(%s): %v", name, args, r.Err)
	}
	return r
}

// Updating reports whether the test run rewrites its golden files
// (-update), for tests that compare goldens their own way.
func Updating() bool { return *update }

// Golden compares got with testdata/<name>, rewriting it under -update.
func Golden(t testing.TB, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("golden %s missing (run go test -update): %v", path, err)
	}
	if !bytes.Equal(bytes.TrimSpace(want), bytes.TrimSpace(got)) {
		t.Errorf("%s differs from golden (run go test -update to accept):\n got: %s\nwant: %s", path, got, want)
	}
}

// SnapshotSchemas writes every action's name, effect, input and output
// schema and bindings to testdata/schemas/<action>.json and compares.
func SnapshotSchemas(t *testing.T, tw *twins.Twin) {
	t.Helper()
	for _, a := range tw.Actions {
		doc := map[string]any{
			"name":        a.Name(),
			"title":       a.Spec().Title,
			"description": a.Spec().Description,
			"effect":      a.Spec().Effect.String(),
			"input":       a.InputSchema(),
			"output":      a.OutputSchema(),
		}
		if a.Spec().MCP != nil {
			// The tool answers its own MCP form and declares no output
			// schema over MCP.
			doc["mcp_form"] = true
		}
		var binds []map[string]any
		for _, b := range a.Spec().Bindings {
			binds = append(binds, map[string]any{"method": b.Method, "path": b.Path, "status": b.SuccessStatus(), "fixed": b.Fixed})
		}
		doc["bindings"] = binds
		got, err := json.MarshalIndent(doc, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		Golden(t, filepath.Join("schemas", a.Name()+".json"), got)
	}
}

var toolName = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

// Rules checks what every action of every twin must satisfy: unique
// snake_case names, an effect, a title and description, every path
// parameter bound to an input field, parseable paths, known methods, no
// route bound twice, and checks with well-formed templates.
func Rules(t *testing.T, tw *twins.Twin) {
	t.Helper()
	names := map[string]bool{}
	routes := map[string]string{}
	for _, a := range tw.Actions {
		s := a.Spec()
		if !toolName.MatchString(s.Name) {
			t.Errorf("%s: action name %q is not snake_case", tw.Name, s.Name)
		}
		if names[s.Name] {
			t.Errorf("%s: duplicate action %q", tw.Name, s.Name)
		}
		names[s.Name] = true
		if !s.Effect.Valid() {
			t.Errorf("%s: effect unset", s.Name)
		}
		if s.Title == "" || s.Description == "" {
			t.Errorf("%s: title and description are required", s.Name)
		}
		props := a.InputSchema().Properties
		for _, b := range s.Bindings {
			switch b.Method {
			case "GET", "POST", "PUT", "PATCH", "DELETE":
			default:
				t.Errorf("%s: binding method %q", s.Name, b.Method)
			}
			if !strings.HasPrefix(b.Path, "/") || strings.Contains(b.Path, "//") {
				t.Errorf("%s: binding path %q must start with one slash", s.Name, b.Path)
			}
			for _, p := range b.PathParams() {
				field := p
				if r, ok := b.Rename[p]; ok {
					field = r
				}
				if _, ok := props[field]; !ok {
					t.Errorf("%s: path parameter {%s} of %s %s binds no input field", s.Name, p, b.Method, b.Path)
				}
			}
			for k := range b.Fixed {
				if _, ok := props[k]; !ok {
					t.Errorf("%s: fixed argument %q is not an input field", s.Name, k)
				}
			}
			key := b.Method + " " + regexp.MustCompile(`\{[^}]+\}`).ReplaceAllString(b.Path, "{}")
			if prev, dup := routes[key]; dup && len(b.Fixed) == 0 {
				t.Errorf("%s: route %s already bound by %s", s.Name, key, prev)
			}
			routes[key] = s.Name
		}
	}
	ids := map[string]bool{}
	for _, c := range tw.Checks {
		if !strings.HasPrefix(c.ID, tw.Name+".") {
			t.Errorf("check %s must be prefixed %s.", c.ID, tw.Name)
		}
		if ids[c.ID] {
			t.Errorf("duplicate check %s", c.ID)
		}
		ids[c.ID] = true
		if c.Eval == nil || c.Template == "" || c.Description == "" {
			t.Errorf("check %s: template, description and Eval are required", c.ID)
		}
		switch c.Substrate {
		case twins.SubstrateFinal, twins.SubstrateSeedFinal, twins.SubstrateTape:
		default:
			t.Errorf("check %s: substrate %q", c.ID, c.Substrate)
		}
		if c.Polarity != twins.Positive && c.Polarity != twins.Negative {
			t.Errorf("check %s: polarity %q", c.ID, c.Polarity)
		}
		ex := map[string]string{}
		for _, p := range c.Params {
			ex[p.Name] = p.Example
			if !strings.Contains(c.Template, "{"+p.Name+"}") {
				t.Errorf("check %s: param %s not in template", c.ID, p.Name)
			}
		}
		// The rendered example must bind back to the same check and args.
		args, ok := c.Match(c.Render(ex))
		if !ok {
			t.Errorf("check %s: rendered example %q does not match its template", c.ID, c.Render(ex))
			continue
		}
		for k, v := range ex {
			if args[k] != v {
				t.Errorf("check %s: round trip of %s: got %q want %q", c.ID, k, args[k], v)
			}
		}
	}
}

// Read is one read action call for ConcurrentReads.
type Read struct{ Name, Args string }

// ConcurrentReads runs the reads from 8 goroutines at once on one live
// world, as the memory store does under its read lock, and fails if any
// read errs or the world's JSON changed. Run it with -race: a read that
// writes anything (an index built lazily, say) is a data race there.
func ConcurrentReads(t *testing.T, tw *twins.Twin, world any, env *twins.Env, reads []Read) {
	t.Helper()
	before, _ := json.Marshal(world)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 20 {
				rd := reads[(g+i)%len(reads)]
				a, ok := tw.Action(rd.Name)
				if !ok {
					t.Errorf("no action %s", rd.Name)
					return
				}
				in, err := a.Decode(json.RawMessage(rd.Args))
				if err != nil {
					t.Error(err)
					return
				}
				if _, err := a.Run(twins.WithEnv(context.Background(), env), world, in); err != nil {
					t.Error(rd.Name, err)
				}
			}
		}()
	}
	wg.Wait()
	if after, _ := json.Marshal(world); string(before) != string(after) {
		t.Error("concurrent reads changed the world")
	}
}

// Collections times full collections of the heap while keep (a world a
// benchmark grew) is live: what the collector marks for it.
func Collections(b *testing.B, keep any) {
	b.Helper()
	runtime.GC()
	b.ResetTimer()
	for b.Loop() {
		runtime.GC()
	}
	b.StopTimer()
	runtime.KeepAlive(keep)
}
