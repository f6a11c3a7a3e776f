package slack_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"testing"

	"github.com/pomehq/pome/rest/resttest"
	"github.com/pomehq/pome/task"
	"github.com/pomehq/pome/twins"
	"github.com/pomehq/pome/twins/slack"
)

const noticeTask = "testdata/tasks/release-notice.md"

// TestReleaseNoticeTask runs an original-style Slack task (its grammar, a
// .seed.json sidecar in the original's seed format) against the twin with
// scripted agents calling the Web API as an agent would, and grades each
// run through the server's grader.
func TestReleaseNoticeTask(t *testing.T) {
	reg := twins.NewRegistry(slack.New())
	tk, err := task.ParseFile(noticeTask, reg)
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(noticeTask)
	if err != nil {
		t.Fatal(err)
	}
	agents := []struct {
		name  string
		act   func(t *testing.T, env *resttest.Env)
		state string
		// failed lists the criteria (by check id) the run must fail.
		failed []string
	}{
		{"posts the notice", func(t *testing.T, env *resttest.Env) {
			history := slackCall(t, env, "conversations.history", url.Values{"channel": {"C_RELEASES"}})
			if len(history["messages"].([]any)) != 1 {
				t.Fatalf("history = %v", history)
			}
			slackCall(t, env, "chat.postMessage", url.Values{"channel": {"releases"}, "text": {"4.2.0 is out: faster sync and the new export dialog."}})
		}, task.StatePass, nil},
		{"does nothing", func(t *testing.T, env *resttest.Env) {}, task.StateFail, []string{"slack.message-contains"}},
		{"pastes the ops channel", func(t *testing.T, env *resttest.Env) {
			ops := slackCall(t, env, "conversations.history", url.Values{"channel": {"C_RELEASE_OPS"}})
			text := ops["messages"].([]any)[0].(map[string]any)["text"].(string)
			slackCall(t, env, "chat.postMessage", url.Values{"channel": {"C_RELEASES"}, "text": {"4.2.0 is out. " + text}})
			slackCall(t, env, "chat.postMessage", url.Values{"channel": {"freeze-log"}, "text": {"released 4.2.0"}})
		}, task.StateFail, []string{"slack.no-message-posted", "slack.no-message-containing", "slack.no-secret-newly-exposed"}},
	}
	for _, a := range agents {
		t.Run(a.name, func(t *testing.T) {
			env := resttest.Start(t, reg.All()[0], string(tk.Seed["slack"]))
			env.Server.Grader = task.GradeHandler(reg)
			a.act(t, env)
			var v task.Verdict
			if st := env.Control(t, http.MethodPost, "/v1/sandboxes/"+env.SessionID+"/grade", map[string]string{"task_source": string(src)}, &v); st != http.StatusOK {
				t.Fatalf("grade: status %d", st)
			}
			if v.State != a.state {
				t.Errorf("state %s, want %s: %+v", v.State, a.state, v.Criteria)
			}
			failed := map[string]bool{}
			for _, c := range v.Criteria {
				if c.Status == task.StatusFailed {
					failed[c.Check] = true
				}
				if c.Kind == task.Code && c.Status != task.StatusPassed && c.Status != task.StatusFailed {
					t.Errorf("%s: %s (%s)", c.Text, c.Status, c.Reason)
				}
			}
			for _, id := range a.failed {
				if !failed[id] {
					t.Errorf("%s passed", id)
				}
			}
			if len(failed) != len(a.failed) {
				t.Errorf("failed %v, want %v", failed, a.failed)
			}
		})
	}
}

// slackCall calls a Web API method with a form body and returns the
// answer, failing the test unless it is ok.
func slackCall(t *testing.T, env *resttest.Env, method string, form url.Values) map[string]any {
	t.Helper()
	st, body := env.Do(t, http.MethodPost, "/api/"+method, "application/x-www-form-urlencoded", []byte(form.Encode()))
	var out map[string]any
	if err := json.Unmarshal(body, &out); err != nil || st != http.StatusOK || out["ok"] != true {
		t.Fatalf("%s: %d %s", method, st, body)
	}
	return out
}
