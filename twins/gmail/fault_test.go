package gmail_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/pomehq/pome/rest/resttest"
	twin "github.com/pomehq/pome/twins/gmail"
)

const throttledSeed = `{"primaryMailbox":{"email":"pome-agent@lumen.test","displayName":"Agent"},
  "deliveryMode":"sender-only",
  "faults":[{"name":"rate-limited","target":"messages.send","succeedFirst":1,"throttleFor":2,"retryAfterSeconds":4}]}`

func rawTo(to string) []byte {
	mime := "From: pome-agent@lumen.test\r\nTo: " + to + "\r\nSubject: Launch\r\n\r\nWe shipped."
	b, _ := json.Marshal(map[string]string{"raw": base64.RawURLEncoding.EncodeToString([]byte(mime))})
	return b
}

// TestRateLimitedREST: a send passes, the next two answer 429
// RESOURCE_EXHAUSTED in Google's envelope with Retry-After, the next passes;
// the tape holds each as it happened, the throttled ones changing nothing.
func TestRateLimitedREST(t *testing.T) {
	env := resttest.Start(t, twin.New(), throttledSeed)
	send := func(to string) (int, http.Header, []byte) {
		req, _ := http.NewRequest("POST", env.APIURL+"/gmail/v1/users/me/messages/send", bytes.NewReader(rawTo(to)))
		req.Header.Set("Authorization", "Bearer "+env.Token)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, resp.Header, body
	}
	var statuses []int
	for i, to := range []string{"a@lumen.test", "b@lumen.test", "b@lumen.test", "b@lumen.test", "c@lumen.test"} {
		st, h, body := send(to)
		statuses = append(statuses, st)
		if st != http.StatusTooManyRequests {
			if h.Get("Retry-After") != "" {
				t.Errorf("send %d: Retry-After on %d", i+1, st)
			}
			continue
		}
		if h.Get("Retry-After") != "4" {
			t.Errorf("send %d: Retry-After %q", i+1, h.Get("Retry-After"))
		}
		var e struct {
			Error struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
				Status  string `json:"status"`
				Errors  []struct {
					Reason, Domain string
				} `json:"errors"`
			} `json:"error"`
		}
		if err := json.Unmarshal(body, &e); err != nil || e.Error.Code != 429 || e.Error.Status != "RESOURCE_EXHAUSTED" ||
			len(e.Error.Errors) != 1 || e.Error.Errors[0].Reason != "rateLimitExceeded" || e.Error.Errors[0].Domain != "global" ||
			!strings.Contains(e.Error.Message, "Retry after 4s") {
			t.Errorf("send %d: envelope %s", i+1, body)
		}
	}
	if want := []int{200, 429, 429, 200, 200}; !equalInts(statuses, want) {
		t.Fatalf("statuses %v, want %v", statuses, want)
	}
	var sent []string
	for _, row := range env.Tape(t) {
		if row.Tool == nil || *row.Tool != "send_message" {
			continue
		}
		if (row.Status == 429) == row.StateMutation {
			t.Errorf("row %d: status %d, state_mutation %v", row.Seq, row.Status, row.StateMutation)
		}
		if row.Status == 429 && !strings.Contains(string(row.Response.Body), "RESOURCE_EXHAUSTED") {
			t.Errorf("row %d body %s", row.Seq, row.Response.Body)
		}
		sent = append(sent, http.StatusText(row.Status))
	}
	if len(sent) != 5 {
		t.Errorf("tape has %d send rows: %v", len(sent), sent)
	}
	// Exactly three messages went out, and the fault's count shows five
	// calls.
	var state struct {
		Mailboxes []struct {
			Messages []struct{ LabelIDs []string } `json:"messages"`
		} `json:"mailboxes"`
		Faults []struct{ Calls int } `json:"faults"`
	}
	json.Unmarshal(env.State(t), &state)
	if len(state.Mailboxes[0].Messages) != 3 || len(state.Faults) != 1 || state.Faults[0].Calls != 5 {
		t.Errorf("state: %+v", state)
	}
}

// TestRateLimitedMCP: the same window over MCP, where sends and draft sends
// both count (the original routes drafts.send through messages.send).
func TestRateLimitedMCP(t *testing.T) {
	env := resttest.Start(t, twin.New(), throttledSeed)
	cs := env.MCP(t)
	text, isErr := resttest.CallTool(t, cs, "send_message", map[string]any{"to": []string{"a@lumen.test"}, "subject": "Launch", "body": "x"})
	if isErr {
		t.Fatalf("first send: %s", text)
	}
	text, isErr = resttest.CallTool(t, cs, "create_draft", map[string]any{"to": []string{"b@lumen.test"}, "subject": "Launch", "body": "x"})
	if isErr {
		t.Fatalf("create_draft is not throttled: %s", text)
	}
	var d struct{ ID string }
	json.Unmarshal([]byte(text), &d)
	for i := 0; i < 2; i++ {
		text, isErr = resttest.CallTool(t, cs, "send_draft", map[string]any{"id": d.ID})
		if !isErr || !strings.Contains(text, "Rate limit exceeded for messages.send") {
			t.Fatalf("send_draft %d: %v %s", i+1, isErr, text)
		}
	}
	if text, isErr = resttest.CallTool(t, cs, "send_draft", map[string]any{"id": d.ID}); isErr {
		t.Fatalf("send_draft after the window: %s", text)
	}
	var rows []string
	for _, row := range env.Tape(t) {
		if row.Tool != nil && (*row.Tool == "send_draft" || *row.Tool == "send_message") {
			rows = append(rows, *row.Tool+"/"+map[bool]string{true: "mutated", false: "unchanged"}[row.StateMutation])
		}
	}
	want := "send_message/mutated send_draft/unchanged send_draft/unchanged send_draft/mutated"
	if strings.Join(rows, " ") != want {
		t.Errorf("tape: %v, want %s", rows, want)
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
