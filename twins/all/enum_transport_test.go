package all_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/pomehq/pome/rest/resttest"
	"github.com/pomehq/pome/twins/all"
)

// TestEnumRefusedOverEveryTransport: a value outside a parameter's enum is
// refused over REST with the vendor's validation error and over MCP with an
// error result, and the refused write changes nothing.
func TestEnumRefusedOverEveryTransport(t *testing.T) {
	env := resttest.StartMulti(t, all.Registry(), []string{"github"}, nil)
	before := env.State(t)

	st, body := env.Do(t, http.MethodPatch, "/repos/acme/api/issues/1", "application/json", []byte(`{"state":"done"}`))
	var ghErr struct {
		Message string `json:"message"`
		Errors  []struct {
			Field string `json:"field"`
			Code  string `json:"code"`
		} `json:"errors"`
	}
	if err := json.Unmarshal(body, &ghErr); err != nil || st != http.StatusUnprocessableEntity || ghErr.Message != "Validation Failed" ||
		len(ghErr.Errors) != 1 || ghErr.Errors[0].Field != "state" || ghErr.Errors[0].Code != "invalid" {
		t.Errorf("REST PATCH state=done: %d %s", st, body)
	}
	st, body = env.Do(t, http.MethodGet, "/repos/acme/api/issues?state=merged", "", nil)
	if st != http.StatusUnprocessableEntity || !strings.Contains(string(body), `"field":"state"`) {
		t.Errorf("REST list state=merged: %d %s", st, body)
	}

	cs := env.MCP(t)
	text, isErr := resttest.CallTool(t, cs, "issue_write", map[string]any{"method": "update", "owner": "acme", "repo": "api", "issue_number": 1, "state": "done"})
	if !isErr || !strings.Contains(text, "state") || !strings.Contains(text, "enum") {
		t.Errorf("MCP issue_write state=done: error=%v %s", isErr, text)
	}
	text, isErr = resttest.CallTool(t, cs, "issue_read", map[string]any{"method": "get_everything", "owner": "acme", "repo": "api", "issue_number": 1})
	if !isErr || !strings.Contains(text, "method") {
		t.Errorf("MCP issue_read method=get_everything: error=%v %s", isErr, text)
	}
	// Inside the set, the same calls go through.
	if _, isErr := resttest.CallTool(t, cs, "list_issues", map[string]any{"owner": "acme", "repo": "api", "state": "OPEN"}); isErr {
		t.Error("MCP list_issues state=OPEN refused")
	}
	if st, body := env.Do(t, http.MethodGet, "/repos/acme/api/issues?state=all", "", nil); st != http.StatusOK {
		t.Errorf("REST list state=all: %d %s", st, body)
	}
	if after := env.State(t); string(before) != string(after) {
		t.Error("refused calls changed the world")
	}
}
