package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestTapeHuman(t *testing.T) {
	f := newFakeServer(t)
	loggedIn(t, f)
	r := runCLI(t, "tape", "github", "--session", testSID)
	if r.code != ExitOK {
		t.Fatalf("%+v", r)
	}
	lines := strings.Split(strings.TrimRight(r.stdout, "\n"), "\n")
	if len(lines) != 3 {
		t.Fatalf("want header + 2 rows:\n%s", r.stdout)
	}
	want := [][]string{
		{"SEQ", "TIME", "TRANSPORT", "METHOD", "PATH", "TOOL", "STATUS"},
		{"1", "15:01:00.000", "mcp", "POST", "/mcp", "-", "200"},
		{"2", "15:01:02.123", "rest", "POST", "/repos/acme/api/issues/1/comments", "add_issue_comment", "201", "*"},
	}
	for i, w := range want {
		if got := strings.Fields(lines[i]); strings.Join(got, " ") != strings.Join(w, " ") {
			t.Errorf("line %d = %q, want %q", i, got, w)
		}
	}
	for _, l := range lines {
		if strings.TrimRight(l, " ") != l {
			t.Errorf("trailing spaces in %q", l)
		}
	}
	if strings.Contains(r.stdout, "/s/"+testSID) {
		t.Errorf("paths not shortened:\n%s", r.stdout)
	}
}

func TestTapeJSONLines(t *testing.T) {
	f := newFakeServer(t)
	loggedIn(t, f)
	r := runCLI(t, "tape", "github", "--session", testSID, "--json")
	if r.code != ExitOK {
		t.Fatalf("%+v", r)
	}
	lines := strings.Split(strings.TrimRight(r.stdout, "\n"), "\n")
	if len(lines) != 2 {
		t.Fatalf("want 2 JSON lines:\n%s", r.stdout)
	}
	for i, l := range lines {
		var row map[string]any
		if err := json.Unmarshal([]byte(l), &row); err != nil {
			t.Fatalf("line %d: %v", i, err)
		}
		if row["seq"] != float64(i+1) || row["request"] == nil {
			t.Errorf("line %d lost fields: %s", i, l)
		}
	}
}

func TestTapeMissingSession(t *testing.T) {
	f := newFakeServer(t)
	loggedIn(t, f)
	r := runCLI(t, "tape", "github")
	if r.code != ExitUsage || !strings.Contains(r.stderr, "--session") || !strings.Contains(r.stderr, "pome sandbox create") {
		t.Fatalf("%+v", r)
	}
	if len(f.seen()) != 0 {
		t.Error("a request was sent without a session")
	}
}

func TestTapeFollow(t *testing.T) {
	f := newFakeServer(t)
	loggedIn(t, f)

	r := runCLI(t, "tape", "github", "--session", testSID, "--follow")
	if r.code != ExitOK {
		t.Fatalf("%+v", r)
	}
	if req := f.last(); req.RawQuery != "follow=1" {
		t.Errorf("query %q", req.RawQuery)
	}
	lines := strings.Split(strings.TrimRight(r.stdout, "\n"), "\n")
	if len(lines) != 3 || !strings.HasPrefix(strings.TrimSpace(lines[0]), "SEQ") {
		t.Fatalf("want header + 2 rows (ping and comment ignored):\n%s", r.stdout)
	}
	if got := strings.Fields(lines[2]); strings.Join(got, " ") != "2 15:01:02.123 rest POST /repos/acme/api/issues/1/comments add_issue_comment 201 *" {
		t.Errorf("row %q", got)
	}

	r = runCLI(t, "tape", "github", "--session", testSID, "-f", "--json")
	if lines := strings.Split(strings.TrimRight(r.stdout, "\n"), "\n"); r.code != ExitOK || len(lines) != 2 || !json.Valid([]byte(lines[1])) {
		t.Fatalf("follow --json: %+v", r)
	}
}

// lockedBuffer lets a test read output while the command still writes it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func TestTapeFollowUntilInterrupted(t *testing.T) {
	f := newFakeServer(t)
	loggedIn(t, f)
	f.follow = func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		b, _ := json.Marshal(tapeRows()[1])
		fmt.Fprintf(w, "event: row\ndata: %s\n\n", b)
		w.(http.Flusher).Flush()
		<-r.Context().Done() // a live tape never ends by itself
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out, errb lockedBuffer
	a := &App{Stdout: &out, Stderr: &errb}
	done := make(chan int)
	go func() { done <- a.Run(ctx, []string{"tape", "github", "--session", testSID, "--follow", "--json"}) }()

	deadline := time.After(10 * time.Second)
	for !strings.Contains(out.String(), "add_issue_comment") {
		select {
		case <-deadline:
			t.Fatalf("no row streamed; stderr: %s", errb.String())
		case <-time.After(10 * time.Millisecond):
		}
	}
	cancel()
	select {
	case code := <-done:
		if code != ExitOK {
			t.Fatalf("interrupting a follow: code %d, stderr %s", code, errb.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("follow did not stop when interrupted")
	}
}

func TestFollowErrorEvent(t *testing.T) {
	f := newFakeServer(t)
	loggedIn(t, f)
	f.follow = func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "event: error\ndata: {\"error\":{\"type\":\"not_found\",\"message\":\"Sandbox discarded.\",\"request_id\":\"req_1\"}}\n\n")
	}
	r := runCLI(t, "tape", "github", "--session", testSID, "--follow")
	if r.code != ExitUsage || !strings.Contains(r.stderr, "Sandbox discarded.") {
		t.Fatalf("%+v", r)
	}
}

func TestShortPath(t *testing.T) {
	cases := []struct{ path, want string }{
		{"/github/s/ses_x/repos/acme/api", "/repos/acme/api"},
		{"/github/s/ses_x", "/"},
		{"/github/s/ses_x?a=1", "/?a=1"},
		{"/github/s/ses_xy/repos", "/github/s/ses_xy/repos"},
		{"/other/path", "/other/path"},
		{"", "-"},
	}
	for _, c := range cases {
		if got := shortPath(c.path, "github", "ses_x"); got != c.want {
			t.Errorf("shortPath(%q) = %q, want %q", c.path, got, c.want)
		}
	}
}

func TestFollowEndEvent(t *testing.T) {
	f := newFakeServer(t)
	loggedIn(t, f)
	f.follow = func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		b, _ := json.Marshal(tapeRows()[0])
		fmt.Fprintf(w, "id: 1\nevent: row\ndata: %s\n\n", b)
		fmt.Fprint(w, "event: end\ndata: {\"reason\":\"sandbox gone\"}\n\n")
		w.(http.Flusher).Flush()
		<-r.Context().Done() // the client, not the server, must stop reading
	}
	r := runCLI(t, "tape", "github", "--session", testSID, "--follow", "--json")
	if r.code != ExitOK || strings.Count(r.stdout, "\n") != 1 || !strings.Contains(r.stderr, "sandbox gone") {
		t.Fatalf("%+v", r)
	}
}
