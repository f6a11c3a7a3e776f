package gmail_test

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"testing"

	"github.com/pomehq/pome/rest/resttest"
	"github.com/pomehq/pome/task"
	"github.com/pomehq/pome/twins"
	twin "github.com/pomehq/pome/twins/gmail"
)

// TestSupportTriageTask runs an original-style task (its sentences, its
// seed format in a sidecar) against the twin: a scripted agent that does
// the triage over REST passes it, one that does nothing fails it.
func TestSupportTriageTask(t *testing.T) {
	reg := twins.NewRegistry(twin.New())
	tk, err := task.ParseFile("testdata/tasks/support-triage.md", reg)
	if err != nil {
		t.Fatalf("the task does not lint: %v", err)
	}
	for _, c := range []struct {
		name  string
		agent func(t *testing.T, env *resttest.Env)
		state string
	}{
		{"triages", triageAgent, "pass"},
		{"does nothing", func(*testing.T, *resttest.Env) {}, "fail"},
	} {
		t.Run(c.name, func(t *testing.T) {
			env := resttest.Start(t, reg.All()[0], string(tk.Seed["gmail"]))
			env.Server.Grader = task.GradeHandler(reg)
			c.agent(t, env)
			var v task.Verdict
			if st := env.Control(t, http.MethodPost, "/v1/sandboxes/"+env.SessionID+"/grade", map[string]string{"task_source": string(tk.Source)}, &v); st != http.StatusOK {
				t.Fatalf("grade: status %d", st)
			}
			if v.State != c.state {
				b, _ := json.MarshalIndent(v, "", "  ")
				t.Fatalf("verdict %s, want %s:\n%s", v.State, c.state, b)
			}
			// Five [code] criteria, none already true in the seed; the
			// restraint one (no mail sent) holds either way.
			if v.Evaluated != 5 || v.Excluded != 0 || v.Abstained != 1 {
				t.Errorf("evaluated %d, excluded %d, abstained %d", v.Evaluated, v.Excluded, v.Abstained)
			}
			var checks []string
			for _, cr := range v.Criteria {
				checks = append(checks, cr.Check)
			}
			want := []string{"gmail.message-has-label", "gmail.message-has-label", "gmail.draft-addressed-to", "gmail.draft-count-at-least", "gmail.mailbox-label-count", ""}
			if !slices.Equal(checks, want) {
				t.Errorf("criteria bound to %v, want %v", checks, want)
			}
			if c.state == "fail" && v.Passed != 1 {
				t.Errorf("doing nothing passed %d criteria, want only the restraint one", v.Passed)
			}
		})
	}
}

// triageAgent does what the prompt asks, as an agent with curl would.
func triageAgent(t *testing.T, env *resttest.Env) {
	get := func(path string, out any) {
		t.Helper()
		st, body := env.Do(t, http.MethodGet, path, "", nil)
		if st != http.StatusOK || json.Unmarshal(body, out) != nil {
			t.Fatalf("GET %s: %d %s", path, st, body)
		}
	}
	post := func(path string, in, out any) {
		t.Helper()
		b, _ := json.Marshal(in)
		st, body := env.Do(t, http.MethodPost, path, "application/json", b)
		if st != http.StatusOK || json.Unmarshal(body, out) != nil {
			t.Fatalf("POST %s: %d %s", path, st, body)
		}
	}
	var list struct {
		Messages []struct{ ID, ThreadID string } `json:"messages"`
	}
	get("/gmail/v1/users/me/messages?q="+url.QueryEscape("from:nadia@orchard.test is:unread"), &list)
	if len(list.Messages) != 1 {
		t.Fatalf("search found %+v", list.Messages)
	}
	msg := list.Messages[0]
	var labels struct {
		Labels []struct{ ID, Name string } `json:"labels"`
	}
	get("/gmail/v1/users/me/labels", &labels)
	labelID := ""
	for _, l := range labels.Labels {
		if l.Name == "Needs Reply" {
			labelID = l.ID
		}
	}
	var modified struct{ LabelIDs []string }
	post("/gmail/v1/users/me/messages/"+msg.ID+"/modify", map[string]any{"addLabelIds": []string{labelID, "STARRED"}, "removeLabelIds": []string{"UNREAD"}}, &modified)
	raw := "To: nadia@orchard.test\r\nSubject: Re: Dashboard shows stale numbers\r\n\r\nThanks Nadia, we are looking into the stale numbers now."
	var draft struct{ ID string }
	post("/gmail/v1/users/me/drafts", map[string]any{"message": map[string]any{
		"threadId": msg.ThreadID, "raw": base64.RawURLEncoding.EncodeToString([]byte(raw)),
	}}, &draft)
	if draft.ID == "" {
		t.Fatal("no draft id")
	}
}
