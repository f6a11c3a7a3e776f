package github

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/pomehq/pome/twins"
)

// evalCheck binds text to its check, as a task's criterion line does, and
// evaluates it on seed and final worlds.
func evalCheck(t *testing.T, seed, final *World, text string) twins.Result {
	t.Helper()
	tw := New()
	for _, c := range tw.Checks {
		if args, ok := c.Match(text); ok {
			res, err := c.Evaluate(&twins.Input{Twin: tw, Seed: seed, Final: final}, args)
			if err != nil {
				t.Fatalf("%s: %v", text, err)
			}
			return res
		}
	}
	t.Fatalf("no check matches %q", text)
	return twins.Result{}
}

func TestChecks(t *testing.T) {
	seed := world(t, SeedExample)
	final := world(t, SeedExample)
	mustCall(t, final, "issue_write", `{"method":"update","owner":"acme","repo":"api","issue_number":1,"state":"closed","labels":["bug","regression"],"assignees":["alice"]}`)
	mustCall(t, final, "add_issue_comment", `{"owner":"acme","repo":"api","issue_number":1,"body":"Fixed by acme/api#3"}`)
	mustCall(t, final, "issue_write", `{"method":"create","owner":"acme","repo":"api","title":"Follow-up: add order validation tests"}`)
	blank := world(t, "")

	cases := []struct {
		text            string
		final, excluded bool // result on final; result when final == seed (the grader's exclusion test)
	}{
		{"Issue #1 in `acme/api` has the `bug` label applied", true, true},
		{"Issue #1 in `acme/api` has the `regression` label applied", true, false},
		{"Issue #1 in `acme/api` has the `feature` label applied", false, false},
		{"Issue #2 in `acme/api` has exactly one label", true, true},
		{"Issue #1 in `acme/api` has exactly one label", false, true},
		{"Issue #1 in `acme/api` is closed", true, false},
		{"Issue #1 in `acme/api` is open", false, true},
		{"Issue #42 in `acme/api` is open", false, false},
		{"Issue #1 in `acme/api` is assigned to @alice", true, false},
		{"Issue #1 in `acme/api` is assigned to @bob", false, true},
		{`A comment on issue #1 in ` + "`acme/api`" + ` contains "acme/api#3"`, true, false},
		{`A comment on issue #1 in ` + "`acme/api`" + ` contains "looking into"`, true, true},
		{`An issue whose title contains "validation tests" exists in ` + "`acme/api`", true, false},
		{`An issue whose title contains "Fix order creation" exists in ` + "`acme/api`", false, false},
		{"No new label was created in `acme/api`", false, true},
		{"No new issue was opened in `acme/api`", false, true},
		{"No new issue was opened in `alice/dotfiles`", true, true},
		{"Pull request #4 in `acme/api` is merged", true, true},
		{"Pull request #3 in `acme/api` is open", true, true},
		{"Pull request #1 in `acme/api` is open", false, false},
		{"Pull request #3 in `acme/api` has a review in state COMMENTED", true, true},
		{"Pull request #3 in `acme/api` has a review in state APPROVED", false, false},
		{`A comment on pull request #3 in ` + "`acme/api`" + ` contains "add a test"`, true, true},
		{`A comment on pull request #3 in ` + "`acme/api`" + ` contains "looks close"`, true, true},
		{`A comment on pull request #3 in ` + "`acme/api`" + ` contains "ship it"`, false, false},
		{"The file `docs/usage.md` exists on the `main` branch of `acme/api`", true, true},
		{"The file `orders.go` exists on the `nope` branch of `acme/api`", false, false},
		{"The file `missing.txt` exists on the `main` branch of `acme/api`", false, false},
		{`The "ci/build" status of the ` + "`fix-orders`" + ` branch of ` + "`acme/api`" + ` is success`, true, true},
		{`The "ci/build" status of the ` + "`fix-orders`" + ` branch of ` + "`acme/api`" + ` is failure`, false, false},
		{`The "ci/build" status of the ` + "`main`" + ` branch of ` + "`acme/api`" + ` is success`, false, false},
		{"Issue #1 in `acme/nothing` is open", false, false},
	}
	for _, c := range cases {
		t.Run(c.text, func(t *testing.T) {
			res := evalCheck(t, seed, final, c.text)
			if res.Passed != c.final {
				t.Errorf("final: passed=%v want %v (%s)", res.Passed, c.final, res.Reason)
			}
			if len(res.Evidence.StatePaths) == 0 {
				t.Errorf("no evidence paths")
			}
			for _, p := range res.Evidence.StatePaths {
				if !strings.HasPrefix(p, "/repos") {
					t.Errorf("evidence path %q does not point into the state", p)
				}
			}
			if got := evalCheck(t, seed, seed, c.text); got.Passed != c.excluded {
				t.Errorf("seed as final: passed=%v want %v (%s)", got.Passed, c.excluded, got.Reason)
			}
		})
	}
	// The evidence points at the label list that changed.
	res := evalCheck(t, seed, final, "No new label was created in `acme/api`")
	if len(res.Evidence.StatePaths) != 1 || res.Evidence.StatePaths[0] != "/repos/0/labels/3" || !strings.Contains(res.Reason, "regression") {
		t.Errorf("no-new-labels evidence: %+v %s", res.Evidence, res.Reason)
	}
	if res := evalCheck(t, blank, blank, "Issue #1 in `acme/api` has the `bug` label applied"); res.Passed {
		t.Error("default world: #1 has no labels")
	}
}

func TestCheckEvidenceResolves(t *testing.T) {
	w := world(t, SeedExample)
	doc, _ := json.Marshal(w)
	var state any
	_ = json.Unmarshal(doc, &state)
	res := evalCheck(t, w, w, "Issue #1 in `acme/api` has the `bug` label applied")
	for _, p := range res.Evidence.StatePaths {
		if resolvePointer(state, p) == nil {
			t.Errorf("%s does not resolve in the state document", p)
		}
	}
}

func resolvePointer(doc any, p string) any {
	cur := doc
	for _, seg := range strings.Split(strings.TrimPrefix(p, "/"), "/") {
		seg = strings.ReplaceAll(strings.ReplaceAll(seg, "~1", "/"), "~0", "~")
		switch c := cur.(type) {
		case map[string]any:
			cur = c[seg]
		case []any:
			i := 0
			for _, ch := range seg {
				i = i*10 + int(ch-'0')
			}
			if i >= len(c) {
				return nil
			}
			cur = c[i]
		default:
			return nil
		}
	}
	return cur
}

func TestRESTError(t *testing.T) {
	cases := []struct {
		err    *twins.Error
		status int
		want   string
	}{
		{notFound("x"), 404, `{"message":"Not Found","documentation_url":"https://docs.github.com/rest","status":"404"}`},
		{invalid("Issue", "assignees", "invalid", "no").With("value", "mallory"), 422, `{"message":"Validation Failed","errors":[{"resource":"Issue","field":"assignees","code":"invalid","value":"mallory"}],"documentation_url":"https://docs.github.com/rest","status":"422"}`},
		{invalid("Label", "name", "already_exists", "dup"), 422, `{"message":"Validation Failed","errors":[{"resource":"Label","field":"name","code":"already_exists"}],"documentation_url":"https://docs.github.com/rest","status":"422"}`},
		{twins.Errorf(twins.Unauthorized, "", "no token"), 401, `{"message":"Bad credentials","documentation_url":"https://docs.github.com/rest","status":"401"}`},
		{twins.Errorf(twins.Conflict, "", "is at 123 but expected 456"), 409, `{"message":"is at 123 but expected 456","documentation_url":"https://docs.github.com/rest","status":"409"}`},
		{twins.Errorf(twins.NotAllowed, "", "Pull Request is not mergeable"), 405, `{"message":"Pull Request is not mergeable","documentation_url":"https://docs.github.com/rest","status":"405"}`},
		{twins.Errorf(twins.Invalid, "invalid_json", "bad"), 400, `{"message":"Problems parsing JSON","documentation_url":"https://docs.github.com/rest","status":"400"}`},
	}
	for _, c := range cases {
		status, body := RESTError(c.err)
		b, _ := json.Marshal(body)
		if status != c.status || string(b) != c.want {
			t.Errorf("%v:\n got %d %s\nwant %d %s", c.err, status, b, c.status, c.want)
		}
	}
	if s, _ := RESTError(twins.Errorf(twins.Internal, "", "boom")); s != http.StatusInternalServerError {
		t.Errorf("internal → %d", s)
	}
}
