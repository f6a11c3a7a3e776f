package rest_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/pomehq/pome/rest/resttest"
	"github.com/pomehq/pome/session"
	"github.com/pomehq/pome/tape"
)

// GET …/_pome/events is the tape as the original Pome's twins serve it: a
// JSON array of recorder events.
func TestPomeEventsIsTheOriginalsRecorderArray(t *testing.T) {
	env := resttest.Start(t, notesTwin(false), "")
	if st, _, _ := do(t, "POST", env.APIURL+"/notes", jsonBody(env.Token), `{"text":"hello"}`); st != http.StatusCreated {
		t.Fatalf("create: %d", st)
	}
	if st, _, _ := do(t, "POST", env.APIURL+"/notes", jsonBody(env.Token), `{"text":""}`); st != http.StatusBadRequest {
		t.Fatalf("bad create: %d", st)
	}
	do(t, "GET", env.APIURL+"/no/such/endpoint", bearer(env.Token), "")

	st, hdr, body := do(t, "GET", env.APIURL+"/_pome/events", bearer(env.AuthToken), "")
	if st != http.StatusOK || hdr.Get("Content-Type") == "" {
		t.Fatalf("%d %s", st, body)
	}
	var events []map[string]any
	if err := json.Unmarshal(body, &events); err != nil {
		t.Fatalf("not an array: %v\n%s", err, body)
	}
	if len(events) != 3 {
		t.Fatalf("%d events: %s", len(events), body)
	}
	// Every key of the original's RecorderEvent, with its type.
	ts := regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$`)
	ids := map[any]bool{}
	for i, e := range events {
		if s, _ := e["ts"].(string); !ts.MatchString(s) {
			t.Errorf("%d: ts %v", i, e["ts"])
		}
		if e["run_id"] != env.SessionID || e["twin"] != "notes" || e["step_id"] != nil || e["tool_call_id"] != nil || e["state_delta"] != nil {
			t.Errorf("%d: %v", i, e)
		}
		for _, k := range []string{"request_id", "method", "path", "request_body", "request_headers", "tool", "status", "response_body", "latency_ms", "fidelity", "state_mutation", "error"} {
			if _, ok := e[k]; !ok {
				t.Errorf("%d lacks %s: %v", i, k, e)
			}
		}
		if ids[e["request_id"]] {
			t.Errorf("request_id %v twice", e["request_id"])
		}
		ids[e["request_id"]] = true
		if _, ok := e["latency_ms"].(float64); !ok {
			t.Errorf("latency_ms %v", e["latency_ms"])
		}
	}
	ok, bad, unsupported := events[0], events[1], events[2]
	if ok["tool"] != "create_note" || ok["status"] != float64(201) || ok["state_mutation"] != true || ok["error"] != nil || ok["fidelity"] != "semantic" ||
		ok["method"] != "POST" || ok["request_body"].(map[string]any)["text"] != "hello" {
		t.Errorf("create: %v", ok)
	}
	if h, _ := ok["request_headers"].(map[string]any); h["authorization"] != "[REDACTED]" {
		t.Errorf("headers %v", ok["request_headers"])
	}
	if bad["error"] != "text is required" || bad["state_mutation"] != false {
		t.Errorf("refused: %v", bad)
	}
	if unsupported["tool"] != nil || unsupported["fidelity"] != "unsupported" || unsupported["error"] == nil {
		t.Errorf("unsupported: %v", unsupported)
	}

	// Like the tape, the events are for the auth token only.
	if st, _, _ := do(t, "GET", env.APIURL+"/_pome/events", bearer(env.AgentToken), ""); st != http.StatusNotFound {
		t.Errorf("agent token read the events: %d", st)
	}
	// An empty tape is an empty array, not null.
	other := resttest.Start(t, notesTwin(false), "")
	if _, _, body := do(t, "GET", other.APIURL+"/_pome/events", bearer(other.AuthToken), ""); string(body) != "[]\n" && string(body) != "[]" {
		t.Errorf("empty tape: %q", body)
	}
}

// tapeDown is a store whose tapes cannot be read.
type tapeDown struct {
	session.Store
	err error
}

func (s tapeDown) Tape(ctx context.Context, sb *session.Sandbox, twin string, after int64, limit int) ([]tape.Row, error) {
	return nil, s.err
}

// A store that cannot read the tape is retryable, not the sandbox's fault.
func TestPomeEventsStoreDown(t *testing.T) {
	env := resttest.Start(t, notesTwin(false), "")
	store := env.Server.Manager.Store
	env.Server.Manager.Store = tapeDown{store, errors.New("connection refused")}
	st, hdr, body := do(t, "GET", env.APIURL+"/_pome/events", bearer(env.AuthToken), "")
	if st != http.StatusServiceUnavailable || hdr.Get("Retry-After") != "1" || !strings.Contains(string(body), "tape unavailable") {
		t.Errorf("%d %v %s", st, hdr, body)
	}
	// A tape gone under the read (the sandbox discarded) is the opaque 404.
	env.Server.Manager.Store = tapeDown{store, session.ErrNotFound}
	if st, _, body := do(t, "GET", env.APIURL+"/_pome/events", bearer(env.AuthToken), ""); st != http.StatusNotFound || !strings.Contains(string(body), "No twin pod") {
		t.Errorf("%d %s", st, body)
	}
}
