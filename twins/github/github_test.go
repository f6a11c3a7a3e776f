package github

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/pomehq/pome/twins"
	"github.com/pomehq/pome/twins/twinstest"
)

func TestRules(t *testing.T) { twinstest.Rules(t, New()) }

func TestSchemas(t *testing.T) { twinstest.SnapshotSchemas(t, New()) }

// world builds a typed world from a seed ("" = default).
func world(t *testing.T, seed string) *World {
	t.Helper()
	return twinstest.World(t, New(), seed).(*World)
}

func call(t *testing.T, w *World, name, args string) twinstest.Result {
	t.Helper()
	return twinstest.Call(t, New(), w, name, args)
}

func mustCall(t *testing.T, w *World, name, args string) twinstest.Result {
	t.Helper()
	return twinstest.MustCall(t, New(), w, name, args)
}

// wantErr asserts a refused call: its code, vendor code and that the world
// did not change.
func wantErr(t *testing.T, w *World, name, args string, code twins.Code, vendor string) *twins.Error {
	t.Helper()
	before, _ := json.Marshal(w)
	r := call(t, w, name, args)
	if r.Err == nil {
		t.Fatalf("%s(%s): want %s error, got %v", name, args, code, r.Out)
	}
	if r.Err.Code != code || (vendor != "" && r.Err.Vendor != vendor) {
		t.Fatalf("%s(%s): got %s/%s %q, want %s/%s", name, args, r.Err.Code, r.Err.Vendor, r.Err.Message, code, vendor)
	}
	after, _ := json.Marshal(w)
	if string(before) != string(after) {
		t.Fatalf("%s(%s): refused call changed the world", name, args)
	}
	if r.Mutated {
		t.Fatalf("%s: refused call marked as mutation", name)
	}
	return r.Err
}

func TestDefaultWorld(t *testing.T) {
	w := world(t, "")
	if w.Me != "pome-agent" {
		t.Errorf("me = %q", w.Me)
	}
	var logins []string
	for _, u := range w.Users {
		logins = append(logins, u.Login)
	}
	if strings.Join(logins, ",") != "alice,bob,pome-agent" {
		t.Errorf("users = %v", logins)
	}
	if len(w.Orgs) != 1 || w.Orgs[0].Login != "acme" {
		t.Fatalf("orgs = %+v", w.Orgs)
	}
	r, err := w.repo("acme", "api")
	if err != nil {
		t.Fatal(err)
	}
	if r.DefaultBranch != "main" || r.branch("main") == nil {
		t.Errorf("default branch %q", r.DefaultBranch)
	}
	if _, ok := r.resolve("main").Tree["README.md"]; !ok {
		t.Errorf("README.md missing on main")
	}
	var labels []string
	for _, l := range r.Labels {
		labels = append(labels, l.Name)
	}
	if strings.Join(labels, ",") != "bug,feature,question" {
		t.Errorf("labels = %v", labels)
	}
	if strings.Join(r.Collaborators, ",") != "alice,bob,pome-agent" {
		t.Errorf("collaborators = %v", r.Collaborators)
	}
	if len(r.Issues) != 1 {
		t.Fatalf("issues = %d", len(r.Issues))
	}
	is := r.Issues[0]
	if is.Number != 1 || is.Title != "500 error on POST /orders after deploy" || is.State != "open" ||
		len(is.Assignees) != 0 || len(is.Labels) != 0 || is.Comments.Len() != 0 || is.Pull != nil {
		t.Errorf("issue #1 = %+v", is)
	}
	if r.NextNumber != 2 {
		t.Errorf("next number %d", r.NextNumber)
	}
	// Deterministic: two builds are identical.
	a, _ := json.Marshal(world(t, ""))
	b, _ := json.Marshal(world(t, ""))
	if string(a) != string(b) {
		t.Error("default world is not deterministic")
	}
}

func TestSeedExample(t *testing.T) {
	w := world(t, SeedExample)
	r, err := w.repo("acme", "api")
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Issues) != 4 {
		t.Fatalf("issues+pulls = %d", len(r.Issues))
	}
	pr, _ := r.issue(4)
	if pr.Pull == nil || !pr.Pull.Merged || pr.State != "closed" {
		t.Fatalf("pull #4 = %+v", pr)
	}
	if _, ok := r.resolve("main").Tree["docs/usage.md"]; !ok {
		t.Error("merged seed pull did not bring docs/usage.md to main")
	}
	if r.NextNumber != 5 {
		t.Errorf("next number = %d", r.NextNumber)
	}
	if _, err := w.repo("alice", "dotfiles"); err != nil {
		t.Error(err)
	}
	// The world survives the JSON round trip the Redis store applies.
	doc, _ := json.Marshal(w)
	back, err := New().DecodeWorld(doc)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := json.Marshal(back)
	if string(doc) != string(again) {
		t.Error("world does not round-trip through JSON")
	}
}

func TestSeedErrors(t *testing.T) {
	cases := []struct {
		name, seed, path string
	}{
		{"unknown key", `{"repos":[],"colour":1}`, "/colour"},
		{"wrong type", `{"users":[{"login":5}]}`, "/users/0/login"},
		{"bad login", `{"users":[{"login":"-x"}]}`, "/users/0/login"},
		{"duplicate user", `{"users":[{"login":"a"},{"login":"A"}]}`, "/users/1/login"},
		{"org member unknown", `{"orgs":[{"login":"acme","members":["zed"]}]}`, "/orgs/0/members/0"},
		{"repo owner unknown", `{"repos":[{"owner":"zed","name":"x"}]}`, "/repos/0/owner"},
		{"duplicate repo", `{"users":[{"login":"a"}],"repos":[{"owner":"a","name":"x"},{"owner":"a","name":"x"}]}`, "/repos/1/name"},
		{"label undefined", `{"users":[{"login":"a"}],"repos":[{"owner":"a","name":"x","labels":[{"name":"bug"}],"issues":[{"title":"t","labels":["bug","nope"]}]}]}`, "/repos/0/issues/0/labels/1"},
		{"assignee not collaborator", `{"users":[{"login":"a"},{"login":"b"}],"repos":[{"owner":"a","name":"x","issues":[{"title":"t","assignees":["b"]}]}]}`, "/repos/0/issues/0/assignees/0"},
		{"assignee unknown", `{"users":[{"login":"a"}],"repos":[{"owner":"a","name":"x","issues":[{"title":"t","assignees":["zed"]}]}]}`, "/repos/0/issues/0/assignees/0"},
		{"collaborator unknown", `{"users":[{"login":"a"}],"repos":[{"owner":"a","name":"x","collaborators":["zed"]}]}`, "/repos/0/collaborators/0"},
		{"bad color", `{"users":[{"login":"a"}],"repos":[{"owner":"a","name":"x","labels":[{"name":"bug","color":"red"}]}]}`, "/repos/0/labels/0/color"},
		{"missing title", `{"users":[{"login":"a"}],"repos":[{"owner":"a","name":"x","issues":[{"body":"b"}]}]}`, "/repos/0/issues/0/title"},
		{"bad state", `{"users":[{"login":"a"}],"repos":[{"owner":"a","name":"x","issues":[{"title":"t","state":"merged"}]}]}`, "/repos/0/issues/0/state"},
		{"milestone undefined", `{"users":[{"login":"a"}],"repos":[{"owner":"a","name":"x","issues":[{"title":"t","milestone":3}]}]}`, "/repos/0/issues/0/milestone"},
		{"comment author unknown", `{"users":[{"login":"a"}],"repos":[{"owner":"a","name":"x","issues":[{"title":"t","comments":[{"user":"zed","body":"b"}]}]}]}`, "/repos/0/issues/0/comments/0/user"},
		{"duplicate number", `{"users":[{"login":"a"}],"repos":[{"owner":"a","name":"x","branches":[{"name":"f"}],"issues":[{"number":1,"title":"t"}],"pulls":[{"number":1,"title":"p","head":"f"}]}]}`, "/repos/0/pulls/0/number"},
		{"pull head unknown", `{"users":[{"login":"a"}],"repos":[{"owner":"a","name":"x","pulls":[{"title":"p","head":"nope"}]}]}`, "/repos/0/pulls/0/head"},
		{"branch from unknown", `{"users":[{"login":"a"}],"repos":[{"owner":"a","name":"x","branches":[{"name":"f","from":"g"}]}]}`, "/repos/0/branches/0/from"},
		{"review state", `{"users":[{"login":"a"}],"repos":[{"owner":"a","name":"x","branches":[{"name":"f"}],"pulls":[{"title":"p","head":"f","reviews":[{"user":"a","state":"LGTM"}]}]}]}`, "/repos/0/pulls/0/reviews/0/state"},
		{"status ref", `{"users":[{"login":"a"}],"repos":[{"owner":"a","name":"x","statuses":[{"ref":"nope","state":"success"}]}]}`, "/repos/0/statuses/0/ref"},
		{"status state", `{"users":[{"login":"a"}],"repos":[{"owner":"a","name":"x","statuses":[{"ref":"main","state":"green"}]}]}`, "/repos/0/statuses/0/state"},
		{"bad clock", `{"clock":"yesterday"}`, "/clock"},
		{"bad file path", `{"users":[{"login":"a"}],"repos":[{"owner":"a","name":"x","files":{"../etc":"x"}}]}`, "/repos/0/files/..~1etc"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := New().NewWorld(twins.WithEnv(context.Background(), twinstest.Env("github")), json.RawMessage(c.seed))
			var se *twins.SeedError
			if !errors.As(err, &se) {
				t.Fatalf("want SeedError, got %v", err)
			}
			if se.Path != c.path {
				t.Errorf("path = %q (%s), want %q", se.Path, se.Message, c.path)
			}
		})
	}
}

func TestSeedMinimal(t *testing.T) {
	w := world(t, `{"users":[{"login":"a"}],"repos":[{"owner":"a","name":"x","issues":[{"title":"one"},{"number":1,"title":"explicit"},{"title":"two"}]}]}`)
	r, _ := w.repo("a", "x")
	var got []string
	for _, is := range r.Issues {
		got = append(got, is.Title)
	}
	if strings.Join(got, "|") != "explicit|one|two" {
		t.Errorf("numbering: %v", got)
	}
	if w.user("pome-agent") == nil {
		t.Error("the authenticated user is added when the seed does not list it")
	}
	if r.Issues[0].User != "pome-agent" {
		t.Errorf("author defaults to me, got %q", r.Issues[0].User)
	}
}

// callOver is call with the transport a REST or MCP request would carry,
// for the few behaviours where GitHub's REST API and its MCP server differ.
func callOver(t *testing.T, w *World, transport, name, args string) twinstest.Result {
	t.Helper()
	a, ok := New().Action(name)
	if !ok {
		t.Fatalf("no action %q", name)
	}
	ctx, c := twins.WithCall(twins.WithEnv(context.Background(), twinstest.Env("github")))
	ctx = twins.WithTransport(ctx, transport)
	in, err := a.Decode(json.RawMessage(args))
	if err != nil {
		return twinstest.Result{Err: twins.AsError(err)}
	}
	out, err := a.Run(ctx, w, in)
	return twinstest.Result{Out: out, Err: twins.AsError(err), Mutated: c.Mutated()}
}

func TestCreateRepositoryPrivateDefault(t *testing.T) {
	w := world(t, "")
	for _, c := range []struct {
		transport, name string
		private         bool
	}{{twins.TransportMCP, "a", true}, {twins.TransportREST, "b", false}} {
		r := callOver(t, w, c.transport, "create_repository", `{"name":"`+c.name+`"}`)
		if r.Err != nil {
			t.Fatal(r.Err)
		}
		// Over MCP the answer is github-mcp-server's id and URL only: read
		// the repository itself.
		repo, err := w.repo(w.Me, c.name)
		if err != nil {
			t.Fatal(err)
		}
		if got := repo.Private; got != c.private {
			t.Errorf("%s: private = %v, want %v", c.transport, got, c.private)
		}
	}
}

func TestLabelWriteRESTPathName(t *testing.T) {
	w := world(t, SeedExample)
	wantErr(t, w, "label_write", `{"method":"update","owner":"acme","repo":"api","color":"000000"}`, twins.Unprocessable, "missing_field")
	// REST: the path's label_name names the label; a body name renames it.
	out := mustCall(t, w, "label_write", `{"method":"update","owner":"acme","repo":"api","label_name":"feature","name":"enhancement"}`).Out.(*APILabel)
	if out.Name != "enhancement" {
		t.Errorf("rename via body name: %+v", out)
	}
	out = mustCall(t, w, "label_write", `{"method":"update","owner":"acme","repo":"api","label_name":"enhancement","color":"00ff00"}`).Out.(*APILabel)
	if out.Name != "enhancement" || out.Color != "00ff00" {
		t.Errorf("recolor via path name: %+v", out)
	}
	mustCall(t, w, "label_write", `{"method":"delete","owner":"acme","repo":"api","label_name":"enhancement"}`)
	r, _ := w.repo("acme", "api")
	if r.label("enhancement") != nil {
		t.Error("label not deleted")
	}
}
