package github_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/pomehq/pome/rest/resttest"
	"github.com/pomehq/pome/twins/github"
)

// goldenSeed fills every object the documented examples show: a pull
// request with labels, assignees, a milestone and a requested reviewer; an
// issue with a comment.
const goldenSeed = `{
  "clock": "2026-01-05T09:00:00Z",
  "users": [{"login": "alice", "name": "Alice"}, {"login": "bob"}],
  "orgs": [{"login": "acme", "members": ["alice", "bob", "pome-agent"]}],
  "repos": [{
    "owner": "acme", "name": "api", "description": "Orders API", "topics": ["orders"],
    "files": {"README.md": "# api\n"},
    "branches": [{"name": "fix", "files": {"orders.go": "package api\n"}}],
    "labels": [{"name": "bug", "color": "f29513", "description": "Something isn't working"}],
    "collaborators": ["alice", "bob", "pome-agent"],
    "milestones": [{"number": 1, "title": "v1.0", "description": "First release", "due_on": "2026-02-01T00:00:00Z"}],
    "issues": [{"number": 1, "title": "Found a bug", "body": "It breaks.", "user": "alice", "labels": ["bug"],
                "assignees": ["bob"], "milestone": 1, "comments": [{"user": "bob", "body": "Me too"}]}],
    "pulls": [{"number": 2, "title": "Amazing new feature", "body": "Please pull.", "user": "bob", "head": "fix",
               "labels": ["bug"], "assignees": ["alice", "bob"], "milestone": 1, "requested_reviewers": ["alice"]}]
  }]
}`

// nullable are the fields GitHub's schema declares nullable: the twin may
// send null where the example shows a value.
var nullable = map[string]bool{
	"body": true, "closed_at": true, "closed_by": true, "assignee": true, "milestone": true,
	"active_lock_reason": true, "state_reason": true, "merged_at": true, "merge_commit_sha": true,
	"merged_by": true, "mergeable": true, "rebaseable": true, "auto_merge": true, "description": true,
	"homepage": true, "language": true, "mirror_url": true, "license": true, "due_on": true,
	"download_url": true, "pinned_comment": true, "pin": true, "minimized": true,
}

// knowinglyAbsent are documented fields the twin does not send, each with
// its reason (FIDELITY.md lists them too). A leading */ matches any prefix.
var knowinglyAbsent = map[string]string{
	"/pinned_comment":         "comment pinning is not modelled",
	"/pin":                    "comment pinning is not modelled",
	"/minimized":              "comment minimizing is not modelled",
	"/requested_teams[]":      "the twin has no teams: requested_teams is always empty",
	"*/repo/temp_clone_token": "clone tokens are not issued: the twin serves no git protocol",
}

// usedAbsent records which allow-list entries a run needed, so a stale
// entry fails the test.
var usedAbsent = map[string]bool{}

func TestGoldenResponses(t *testing.T) {
	env := resttest.Start(t, github.New(), goldenSeed)
	st, body := env.Do(t, "POST", "/repos/acme/api/issues/1/comments", "application/json", []byte(`{"body":"Me too"}`))
	if st != 201 {
		t.Fatalf("comment: %d %s", st, body)
	}
	cases := []struct {
		golden, path string
		got          []byte
	}{
		{"issue", "/repos/acme/api/issues/2", nil},
		{"issue_comment", "", body},
		{"label", "/repos/acme/api/labels/bug", nil},
		{"pull_request", "/repos/acme/api/pulls/2", nil},
		{"content_file", "/repos/acme/api/contents/README.md", nil},
		{"search_issues", "/search/issues?q=repo:acme/api+is:pr+label:bug", nil},
	}
	for _, c := range cases {
		t.Run(c.golden, func(t *testing.T) {
			want, err := os.ReadFile(filepath.Join("testdata", "golden", c.golden+".json"))
			if err != nil {
				t.Fatal(err)
			}
			got := c.got
			if c.path != "" {
				var st int
				if st, got = env.Do(t, "GET", c.path, "", nil); st != 200 {
					t.Fatalf("GET %s: %d %s", c.path, st, got)
				}
			}
			var w, g any
			if err := json.Unmarshal(want, &w); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(got, &g); err != nil {
				t.Fatal(err)
			}
			var problems []string
			compareShape("", w, g, &problems)
			sort.Strings(problems)
			for _, p := range problems {
				t.Error(p)
			}
		})
	}
	for k, why := range knowinglyAbsent {
		if !usedAbsent[k] {
			t.Errorf("allow-list entry %s (%s) is no longer needed", k, why)
		}
	}
}

func TestCompareShapeCatchesDifferences(t *testing.T) {
	var problems []string
	want := map[string]any{"a": "x", "b": map[string]any{"c": 1.0}, "d": []any{map[string]any{"e": true}}, "f": "y"}
	got := map[string]any{"a": 5.0, "b": map[string]any{}, "d": []any{map[string]any{"e": "no"}}, "f": nil}
	compareShape("", want, got, &problems)
	sort.Strings(problems)
	if fmt.Sprint(problems) != "[/a: got number, documented string /b/c: missing (documented number) /d[]/e: got string, documented boolean /f: null, documented string]" {
		t.Errorf("problems: %q", problems)
	}
}

func absentAllowed(path string) bool {
	if _, ok := knowinglyAbsent[path]; ok {
		usedAbsent[path] = true
		return true
	}
	for k := range knowinglyAbsent {
		if rest, ok := strings.CutPrefix(k, "*"); ok && strings.HasSuffix(path, rest) {
			usedAbsent[k] = true
			return true
		}
	}
	return false
}

func jsonType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case float64:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

// compareShape checks that got has every field of the documented want
// with the same JSON type, recursing into objects and array elements.
func compareShape(path string, want, got any, problems *[]string) {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			*problems = append(*problems, fmt.Sprintf("%s: got %s, documented object", path, jsonType(got)))
			return
		}
		for k, wv := range w {
			p := path + "/" + k
			gv, present := g[k]
			if !present {
				if !absentAllowed(p) {
					*problems = append(*problems, fmt.Sprintf("%s: missing (documented %s)", p, jsonType(wv)))
				}
				continue
			}
			if wv == nil || gv == nil {
				// A documented null says the field may be null; a null the
				// example does not show must be one GitHub's schema allows.
				if gv == nil && wv != nil && !nullable[k] && !absentAllowed(p) {
					*problems = append(*problems, fmt.Sprintf("%s: null, documented %s", p, jsonType(wv)))
				}
				continue
			}
			compareShape(p, wv, gv, problems)
		}
	case []any:
		g, ok := got.([]any)
		if !ok {
			*problems = append(*problems, fmt.Sprintf("%s: got %s, documented array", path, jsonType(got)))
			return
		}
		if len(w) == 0 {
			return
		}
		if len(g) == 0 {
			if !absentAllowed(path + "[]") {
				*problems = append(*problems, fmt.Sprintf("%s: empty, so its elements cannot be compared", path))
			}
			return
		}
		for _, gv := range g {
			compareShape(path+"[]", w[0], gv, problems)
		}
	default:
		if jsonType(want) != jsonType(got) {
			*problems = append(*problems, fmt.Sprintf("%s: got %s, documented %s", path, jsonType(got), jsonType(want)))
		}
	}
}
