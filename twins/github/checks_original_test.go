package github

import (
	"reflect"
	"testing"

	"github.com/pomehq/pome/tape"
	"github.com/pomehq/pome/twins"
)

// originalCheckSeed is a world in the original's seed format for the
// original's sentences: issue #1, pull requests #2 (head fix, a pending
// ci/test status) and #3 (head other).
const originalCheckSeed = `{
  "users": [{"login": "lumen", "type": "Organization"}],
  "repositories": [{
    "owner": "lumen", "name": "ledger", "collaborators": ["priya", "tomas"],
    "labels": [{"name": "bug"}, {"name": "needs-triage"}],
    "files": [
      {"path": "README.md", "content": "# ledger\n"},
      {"path": "src/fix.ts", "content": "export const fix = 1;\n", "branch": "fix"},
      {"path": "src/other.ts", "content": "export const other = 1;\n", "branch": "other"}
    ],
    "issues": [{"number": 1, "title": "Zero postings are accepted", "labels": ["needs-triage"],
                "comments": [{"body": "Seen on Staging.", "author": "tomas"}]}],
    "pull_requests": [
      {"number": 2, "title": "Reject zero postings", "head": "fix", "author": "priya", "statuses": [{"context": "ci/test", "state": "pending"}]},
      {"number": 3, "title": "Other change", "head": "other", "author": "tomas"}
    ]
  }]
}`

const lr = `"owner":"lumen","repo":"ledger"`

func bindOne(t *testing.T, tw *twins.Twin, text string) (*twins.Check, map[string]string) {
	t.Helper()
	var hit *twins.Check
	var args map[string]string
	for _, c := range tw.Checks {
		if a, ok := c.Match(text); ok {
			if hit != nil {
				t.Fatalf("%q binds to both %s and %s", text, hit.ID, c.ID)
			}
			hit, args = c, a
		}
	}
	if hit == nil {
		t.Fatalf("%q binds to no check", text)
	}
	return hit, args
}

func rows(tools ...string) []tape.Row {
	out := []tape.Row{}
	for i, name := range tools {
		r := tape.Row{Seq: int64(i + 1), Twin: "github", Method: "GET", Path: "/repos/lumen/ledger", Status: 200}
		switch name {
		case "":
		case "501":
			r.Method, r.Path, r.Status = "POST", "/repos/lumen/ledger/hooks", 501
		default:
			n := name
			r.Tool = &n
		}
		out = append(out, r)
	}
	return out
}

// TestOriginalChecks binds every sentence of the original's vocabulary,
// checks the check, arguments and polarity it binds to, and evaluates it on
// a world where it holds and one where it does not.
func TestOriginalChecks(t *testing.T) {
	head := func(w *World, branch string) string {
		r, _ := w.repo("lumen", "ledger")
		return r.branch(branch).SHA
	}
	do := func(calls ...string) func(*testing.T, *World) {
		return func(t *testing.T, w *World) {
			for i := 0; i+1 < len(calls); i += 2 {
				mustCall(t, w, calls[i], calls[i+1])
			}
		}
	}
	cases := []struct {
		text       string
		id         string
		args       map[string]string
		polarity   twins.Polarity
		pass, fail func(*testing.T, *World) // nil: the seed unchanged
		passTape   []tape.Row
		failTape   []tape.Row
	}{
		{text: "Issue #4 exists in `lumen/ledger`", id: "github.issue-exists", args: map[string]string{"issue": "4", "repo": "lumen/ledger"}, polarity: twins.Positive,
			pass: do("issue_write", `{"method":"create",`+lr+`,"title":"Negative postings too"}`)},
		{text: "Issue #1 in `lumen/ledger` is in state closed", id: "github.issue-state", args: map[string]string{"issue": "1", "repo": "lumen/ledger", "state": "closed"}, polarity: twins.Positive,
			pass: do("issue_write", `{"method":"update",`+lr+`,"issue_number":1,"state":"closed"}`)},
		{text: "Issue #1 in `lumen/ledger` is in state open", id: "github.issue-state", args: map[string]string{"issue": "1", "repo": "lumen/ledger", "state": "open"}, polarity: twins.Negative,
			fail: do("issue_write", `{"method":"update",`+lr+`,"issue_number":1,"state":"closed"}`)},
		{text: "Issue #1 in `lumen/ledger` has the `bug` label applied", id: "github.issue-has-label", args: map[string]string{"issue": "1", "repo": "lumen/ledger", "label": "bug"}, polarity: twins.Positive,
			pass: do("add_issue_labels", `{`+lr+`,"issue_number":1,"labels":["bug"]}`)},
		{text: "Issue #1 in `lumen/ledger` has exactly one classification label, and it is `bug`", id: "github.issue-exactly-one-label", args: map[string]string{"issue": "1", "repo": "lumen/ledger", "label": "bug"}, polarity: twins.Positive,
			pass: do("issue_write", `{"method":"update",`+lr+`,"issue_number":1,"labels":["bug"]}`),
			fail: do("add_issue_labels", `{`+lr+`,"issue_number":1,"labels":["bug"]}`)},
		{text: "Issue #1 in `lumen/ledger` is assigned to `priya`", id: "github.issue-assignee", args: map[string]string{"issue": "1", "repo": "lumen/ledger", "login": "priya"}, polarity: twins.Positive,
			pass: do("issue_write", `{"method":"update",`+lr+`,"issue_number":1,"assignees":["priya"]}`),
			fail: do("issue_write", `{"method":"update",`+lr+`,"issue_number":1,"assignees":["tomas"]}`)},
		{text: `A comment containing "Fixed in #2" exists on issue #1 in ` + "`lumen/ledger`", id: "github.issue-comment-contains", args: map[string]string{"needle": "Fixed in #2", "issue": "1", "repo": "lumen/ledger"}, polarity: twins.Positive,
			pass: do("add_issue_comment", `{`+lr+`,"issue_number":1,"body":"Fixed in #2, thanks."}`),
			fail: do("add_issue_comment", `{`+lr+`,"issue_number":1,"body":"fixed in #2, thanks."}`)}, // case-sensitive
		{text: "No new issues were created in `lumen/ledger`", id: "github.no-new-issues", args: map[string]string{"repo": "lumen/ledger"}, polarity: twins.Negative,
			pass: do("create_branch", `{`+lr+`,"branch":"more","from_branch":"fix"}`, "create_or_update_file", `{`+lr+`,"path":"m.txt","content":"m","message":"m","branch":"more"}`,
				"create_pull_request", `{`+lr+`,"title":"More","head":"more","base":"main"}`), // a pull request is not an issue
			fail: do("issue_write", `{"method":"create",`+lr+`,"title":"Duplicate: zero postings"}`)},
		{text: "No new labels were created in `lumen/ledger`", id: "github.no-new-labels", args: map[string]string{"repo": "lumen/ledger"}, polarity: twins.Negative,
			pass: do("add_issue_labels", `{`+lr+`,"issue_number":1,"labels":["bug"]}`),
			fail: do("label_write", `{"method":"create",`+lr+`,"name":"p0"}`)},
		{text: "Pull request #2 in `lumen/ledger` is merged", id: "github.pr-state", args: map[string]string{"pr": "2", "repo": "lumen/ledger", "state": "merged"}, polarity: twins.Positive,
			pass: do("merge_pull_request", `{`+lr+`,"pullNumber":2}`),
			fail: do("update_pull_request", `{`+lr+`,"pullNumber":2,"state":"closed"}`)},
		{text: "Pull request #2 in `lumen/ledger` is not merged", id: "github.pr-state", args: map[string]string{"pr": "2", "repo": "lumen/ledger", "state": "not merged"}, polarity: twins.Negative,
			pass: do("update_pull_request", `{`+lr+`,"pullNumber":2,"state":"closed"}`),
			fail: do("merge_pull_request", `{`+lr+`,"pullNumber":2}`)},
		{text: "Pull request #2 in `lumen/ledger` is open", id: "github.pr-state", args: map[string]string{"pr": "2", "repo": "lumen/ledger", "state": "open"}, polarity: twins.Negative,
			fail: do("merge_pull_request", `{`+lr+`,"pullNumber":2}`)},
		{text: "Pull request #2 in `lumen/ledger` is closed", id: "github.pr-state", args: map[string]string{"pr": "2", "repo": "lumen/ledger", "state": "closed"}, polarity: twins.Positive,
			pass: do("merge_pull_request", `{`+lr+`,"pullNumber":2}`)}, // merged is closed too
		{text: "Pull request #2 in `lumen/ledger` has at least one comment", id: "github.pr-comment-exists", args: map[string]string{"pr": "2", "repo": "lumen/ledger"}, polarity: twins.Positive,
			pass: do("add_issue_comment", `{`+lr+`,"issue_number":2,"body":"Summary: rejects zero postings."}`),
			fail: do("pull_request_review_write", `{"method":"create",`+lr+`,"pullNumber":2,"event":"COMMENT","body":"A review body is not a comment."}`)},
		{text: "A CHANGES_REQUESTED review exists on pull request #2 in `lumen/ledger`", id: "github.pr-review-exists", args: map[string]string{"review": "CHANGES_REQUESTED", "pr": "2", "repo": "lumen/ledger"}, polarity: twins.Positive,
			pass: do("pull_request_review_write", `{"method":"create",`+lr+`,"pullNumber":2,"event":"REQUEST_CHANGES","body":"Needs a test."}`),
			fail: do("pull_request_review_write", `{"method":"create",`+lr+`,"pullNumber":2,"event":"APPROVE"}`)},
		{text: "File `docs/ops.md` exists in `lumen/ledger`", id: "github.file-exists", args: map[string]string{"path": "docs/ops.md", "repo": "lumen/ledger"}, polarity: twins.Positive,
			pass: do("create_or_update_file", `{`+lr+`,"path":"docs/ops.md","content":"ops\n","message":"ops","branch":"other"}`), // a side branch counts
			fail: do("create_or_update_file", `{`+lr+`,"path":"docs/ops.txt","content":"ops\n","message":"ops","branch":"main"}`)},
		{text: `Commit status "ci/test" in ` + "`lumen/ledger`" + ` is success`, id: "github.commit-status", args: map[string]string{"context": "ci/test", "repo": "lumen/ledger", "state": "success"}, polarity: twins.Positive,
			pass: func(t *testing.T, w *World) {
				mustCall(t, w, "create_commit_status", `{`+lr+`,"sha":"`+head(w, "fix")+`","state":"success","context":"ci/test"}`)
			},
			fail: func(t *testing.T, w *World) {
				mustCall(t, w, "create_commit_status", `{`+lr+`,"sha":"`+head(w, "fix")+`","state":"success","context":"ci/lint"}`)
			}},
		{text: "No unsupported endpoint was called", id: "github.no-unsupported-endpoint", args: map[string]string{}, polarity: twins.Negative,
			passTape: rows("", "issue_read"), failTape: rows("", "501")},
		{text: "`create_commit_status` was never called", id: "github.tool-never-called", args: map[string]string{"tool": "create_commit_status"}, polarity: twins.Negative,
			passTape: rows("", "pull_request_read"), failTape: rows("", "create_commit_status")},
		{text: "`add_issue_comment` was called", id: "github.tool-was-called", args: map[string]string{"tool": "add_issue_comment"}, polarity: twins.Positive,
			passTape: rows("", "add_issue_comment"), failTape: rows("", "issue_read")},
	}
	tw := New()
	seed := world(t, originalCheckSeed)
	for _, c := range cases {
		t.Run(c.text, func(t *testing.T) {
			chk, args := bindOne(t, tw, c.text)
			if chk.ID != c.id || !reflect.DeepEqual(args, c.args) {
				t.Fatalf("binds to %s %v, want %s %v", chk.ID, args, c.id, c.args)
			}
			if p := chk.PolarityFor(args); p != c.polarity {
				t.Errorf("polarity %s, want %s", p, c.polarity)
			}
			if got := chk.Render(args); got != c.text {
				t.Errorf("renders as %q", got)
			}
			eval := func(mut func(*testing.T, *World), tp []tape.Row) twins.Result {
				final := world(t, originalCheckSeed)
				if mut != nil {
					mut(t, final)
				}
				res, err := chk.Evaluate(&twins.Input{Twin: tw, Seed: seed, Final: final, Tape: tp}, args)
				if err != nil {
					t.Fatal(err)
				}
				return res
			}
			if res := eval(c.pass, c.passTape); !res.Passed {
				t.Errorf("passing world failed: %s", res.Reason)
			}
			if res := eval(c.fail, c.failTape); res.Passed {
				t.Errorf("failing world passed: %s", res.Reason)
			}
		})
	}
}

// TestOriginalChecksMissing: a repository or number the world lacks fails
// the check with a reason, not an error.
func TestOriginalChecksMissing(t *testing.T) {
	tw := New()
	w := world(t, originalCheckSeed)
	other := world(t, `{"repositories":[{"owner":"lumen","name":"other"}]}`)
	for _, c := range []struct {
		text       string
		seed, fina *World
	}{
		{"Issue #1 in `lumen/nothing` is in state open", w, w},
		{"Issue #2 exists in `lumen/ledger`", w, w}, // #2 is a pull request
		{"Issue #9 in `lumen/ledger` has the `bug` label applied", w, w},
		{"Pull request #1 in `lumen/ledger` is open", w, w}, // #1 is an issue
		{"Pull request #9 in `lumen/ledger` has at least one comment", w, w},
		{"File `README.md` exists in `lumen/nothing`", w, w},
		{"File `nope.md` exists in `lumen/ledger`", w, w},
		{`Commit status "ci/test" in ` + "`lumen/nothing`" + ` is pending`, w, w},
		{"No new labels were created in `lumen/ledger`", other, w}, // not in the seed
		{"No new issues were created in `lumen/ledger`", w, other}, // gone from the final state
	} {
		chk, args := bindOne(t, tw, c.text)
		res, err := chk.Evaluate(&twins.Input{Twin: tw, Seed: c.seed, Final: c.fina}, args)
		if err != nil || res.Passed || res.Reason == "" {
			t.Errorf("%s: %+v %v", c.text, res, err)
		}
	}
	// A tool the twin does not have cannot be decided.
	chk, args := bindOne(t, tw, "`send_fax` was called")
	if _, err := chk.Evaluate(&twins.Input{Twin: tw, Seed: w, Final: w}, args); err == nil {
		t.Error("unknown tool: no error")
	}
}

// TestOwnChecksKeepBinding: every sentence of our own vocabulary still
// binds, to its check, and nothing in it to one of the original's.
func TestOwnChecksKeepBinding(t *testing.T) {
	tw := New()
	cases := []struct {
		text, id string
		args     map[string]string
	}{
		{`An issue whose title contains "zero" exists in ` + "`acme/api`", "github.issue-title-exists", map[string]string{"text": "zero", "repo": "acme/api"}},
		{"Issue #1 in `acme/api` is closed", "github.issue-is", map[string]string{"number": "1", "repo": "acme/api", "state": "closed"}},
		{"Issue #1 in `acme/api` has the `bug` label applied", "github.issue-has-label", map[string]string{"issue": "1", "repo": "acme/api", "label": "bug"}},
		{"Issue #1 in `acme/api` has exactly one label", "github.issue-one-label", map[string]string{"number": "1", "repo": "acme/api"}},
		{"Issue #1 in `acme/api` is assigned to @alice", "github.issue-assigned", map[string]string{"number": "1", "repo": "acme/api", "user": "alice"}},
		{`A comment on issue #1 in ` + "`acme/api`" + ` contains "acme/api#3"`, "github.comment-on-issue-contains", map[string]string{"number": "1", "repo": "acme/api", "text": "acme/api#3"}},
		{"No new label was created in `acme/api`", "github.no-label-created", map[string]string{"repo": "acme/api"}},
		{"No new issue was opened in `acme/api`", "github.no-issue-opened", map[string]string{"repo": "acme/api"}},
		{"Pull request #3 in `acme/api` is merged", "github.pr-state", map[string]string{"pr": "3", "repo": "acme/api", "state": "merged"}},
		{`A comment on pull request #3 in ` + "`acme/api`" + ` contains "ship it"`, "github.comment-on-pr-contains", map[string]string{"number": "3", "repo": "acme/api", "text": "ship it"}},
		{"Pull request #3 in `acme/api` has a review in state APPROVED", "github.pr-has-review", map[string]string{"number": "3", "repo": "acme/api", "review_state": "APPROVED"}},
		{"The file `README.md` exists on the `main` branch of `acme/api`", "github.file-on-branch", map[string]string{"path": "README.md", "branch": "main", "repo": "acme/api"}},
		{`The "ci/build" status of the ` + "`main`" + ` branch of ` + "`acme/api`" + ` is success`, "github.branch-status", map[string]string{"context": "ci/build", "branch": "main", "repo": "acme/api", "state": "success"}},
		{"The `issue_write` tool was called on github", "github.tool-was-called-on-github", map[string]string{"tool": "issue_write"}},
		{"The `issue_write` tool was never called on github", "github.tool-never-called-on-github", map[string]string{"tool": "issue_write"}},
		{"No unsupported github endpoint was called", "github.no-unsupported-endpoint-on-github", map[string]string{}},
		{"Nothing was changed on github", "github.no-mutations", map[string]string{}},
	}
	for _, c := range cases {
		chk, args := bindOne(t, tw, c.text)
		if chk.ID != c.id || !reflect.DeepEqual(args, c.args) {
			t.Errorf("%q binds to %s %v, want %s %v", c.text, chk.ID, args, c.id, c.args)
		}
	}
	// Our "is open" says what the original's "is in state open" says, so
	// it is negative too.
	chk, args := bindOne(t, tw, "Issue #1 in `acme/api` is open")
	if chk.PolarityFor(args) != twins.Negative {
		t.Error("our issue open form is not negative")
	}
}

// TestOriginalNearMisses: sentences a step away from a template bind to
// nothing rather than to a neighbour.
func TestOriginalNearMisses(t *testing.T) {
	tw := New()
	for _, text := range []string{
		"Issue #1 in `lumen/ledger` is in state Open",
		"Issue #0 exists in `lumen/ledger`",
		"Issue #01 in `lumen/ledger` is in state open",
		"Issue #1 exists in lumen/ledger",
		"Pull request #1 in `lumen/ledger` is Merged",
		"Pull request #1 in `lumen/ledger` is in state merged",
		"A approved review exists on pull request #1 in `lumen/ledger`",
		"A REQUEST_CHANGES review exists on pull request #1 in `lumen/ledger`",
		"Issue #1 in `lumen/ledger` is assigned to `Priya Raman`",
		"Issue #1 in `lumen/ledger` is assigned to `priya-`",
		"Issue #1 in `lumen/ledger` has exactly one classification label",
		"No unsupported GitHub endpoint was called",
		"No new label were created in `lumen/ledger`",
		"`Create_Commit_Status` was never called",
		`Commit status "ci/test" in ` + "`lumen/ledger`" + ` is green`,
		`A comment containing "" exists on issue #1 in ` + "`lumen/ledger`",
		"File `` exists in `lumen/ledger`",
	} {
		for _, c := range tw.Checks {
			if args, ok := c.Match(text); ok {
				t.Errorf("%q binds to %s %v", text, c.ID, args)
			}
		}
	}
}

// TestOriginalCheckIDs: the original's ids name the original's checks, and
// ours that it would have shadowed live under ids of their own.
func TestOriginalCheckIDs(t *testing.T) {
	tw := New()
	want := map[string]string{
		"github.issue-exists":            "Issue #{issue} exists in `{repo}`",
		"github.issue-state":             "Issue #{issue} in `{repo}` is in state {state}",
		"github.issue-has-label":         "Issue #{issue} in `{repo}` has the `{label}` label applied",
		"github.issue-exactly-one-label": "Issue #{issue} in `{repo}` has exactly one classification label, and it is `{label}`",
		"github.issue-assignee":          "Issue #{issue} in `{repo}` is assigned to `{login}`",
		"github.issue-comment-contains":  `A comment containing "{needle}" exists on issue #{issue} in ` + "`{repo}`",
		"github.no-new-issues":           "No new issues were created in `{repo}`",
		"github.no-new-labels":           "No new labels were created in `{repo}`",
		"github.pr-state":                "Pull request #{pr} in `{repo}` is {state}",
		"github.pr-comment-exists":       "Pull request #{pr} in `{repo}` has at least one comment",
		"github.pr-review-exists":        "A {review} review exists on pull request #{pr} in `{repo}`",
		"github.file-exists":             "File `{path}` exists in `{repo}`",
		"github.commit-status":           `Commit status "{context}" in ` + "`{repo}`" + ` is {state}`,
		"github.no-unsupported-endpoint": "No unsupported endpoint was called",
		"github.tool-never-called":       "`{tool}` was never called",
		"github.tool-was-called":         "`{tool}` was called",
	}
	for id, tmpl := range want {
		c, ok := tw.Check(id)
		if !ok || c.Template != tmpl {
			t.Errorf("%s: %v", id, c)
		}
	}
}
