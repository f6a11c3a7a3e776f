package rest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/pomehq/pome/rest/resttest"
	"github.com/pomehq/pome/twins/github"
)

// TestTapeReadSeesEveryAnsweredCall: a response may leave before its tape
// row is appended, but a tape read that starts after a client got its
// answer must include that call's row. Each writer posts a comment on its
// own connection and at once reads the tape on another.
func TestTapeReadSeesEveryAnsweredCall(t *testing.T) {
	env := resttest.Start(t, github.New(), "")
	rest := func(w, i int) *http.Request {
		body := fmt.Sprintf(`{"body":"writer %d round %d"}`, w, i)
		req, _ := http.NewRequest(http.MethodPost, env.APIURL+"/repos/acme/api/issues/1/comments", bytes.NewBufferString(body))
		req.Header.Set("Authorization", "Bearer "+env.Token)
		return req
	}
	mcp := func(w, i int) *http.Request {
		body := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add_issue_comment",`+
			`"arguments":{"owner":"acme","repo":"api","issue_number":1,"body":"writer %d round %d"}}}`, w, i)
		req, _ := http.NewRequest(http.MethodPost, env.MCPURL, bytes.NewBufferString(body))
		req.Header.Set("Authorization", "Bearer "+env.AgentToken)
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("MCP-Protocol-Version", "2025-11-25")
		return req
	}
	t.Run("rest", func(t *testing.T) { checkTapeReads(t, env, rest, http.StatusCreated) })
	t.Run("mcp", func(t *testing.T) { checkTapeReads(t, env, mcp, http.StatusOK) })
}

func checkTapeReads(t *testing.T, env *resttest.Env, call func(w, i int) *http.Request, want int) {
	const writers, rounds = 16, 10
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			client := &http.Client{Transport: &http.Transport{}}
			reader := &http.Client{Transport: &http.Transport{}}
			for i := 0; i < rounds; i++ {
				resp, err := client.Do(call(w, i))
				if err != nil {
					errs <- err
					return
				}
				resp.Body.Close()
				if resp.StatusCode != want {
					errs <- fmt.Errorf("comment: status %d", resp.StatusCode)
					return
				}
				treq, _ := http.NewRequest(http.MethodGet, env.APIURL+"/_pome/tape", nil)
				treq.Header.Set("Authorization", "Bearer "+env.AuthToken)
				tresp, err := reader.Do(treq)
				if err != nil {
					errs <- err
					return
				}
				var buf bytes.Buffer
				buf.ReadFrom(tresp.Body)
				tresp.Body.Close()
				if !bytes.Contains(buf.Bytes(), []byte(fmt.Sprintf(`writer %d round %d`, w, i))) {
					errs <- fmt.Errorf("writer %d round %d: answered, but the tape read after it lacks its row", w, i)
					return
				}
			}
		}(w)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestTapeAnswerIsMarshalOfRows: the tape is streamed from the rows as
// stored, and must decode exactly as encoding the decoded rows would (JSON
// and JSON Lines), with an exact Content-Length. (Bytes may differ: bodies
// kept as sent are not HTML-escaped as json.Marshal would.)
func TestTapeAnswerIsMarshalOfRows(t *testing.T) {
	env := resttest.Start(t, github.New(), "")
	for _, body := range []string{`{"body":"<b>a & b</b> \u2028 ü"}`, `{"body":"plain"}`, `not json`} {
		env.Do(t, http.MethodPost, "/repos/acme/api/issues/1/comments", "application/json", []byte(body))
	}
	env.Do(t, http.MethodGet, "/no/such/route", "", nil)
	sb, err := env.Server.Manager.Store.Get(context.Background(), env.SessionID)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := env.Server.Manager.Store.Tape(context.Background(), sb, "github", 0, 0)
	if err != nil || len(rows) != 4 {
		t.Fatalf("tape: %d rows, %v", len(rows), err)
	}
	get := func(query string) (*http.Response, []byte) {
		req, _ := http.NewRequest(http.MethodGet, env.APIURL+"/_pome/tape"+query, nil)
		req.Header.Set("Authorization", "Bearer "+env.AuthToken)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, b
	}
	resp, got := get("")
	want, _ := json.Marshal(map[string]any{"session_id": env.SessionID, "twin": "github", "rows": rows, "count": len(rows)})
	sameJSON(t, "tape answer", got, want)
	if resp.ContentLength != int64(len(got)) {
		t.Fatalf("Content-Length %d for %d bytes", resp.ContentLength, len(got))
	}
	_, got = get("?after=2&format=jsonl")
	var lines bytes.Buffer
	enc := json.NewEncoder(&lines)
	for i := range rows[2:] {
		enc.Encode(&rows[2+i])
	}
	gotLines, wantLines := bytes.Split(bytes.TrimSpace(got), []byte("\n")), bytes.Split(bytes.TrimSpace(lines.Bytes()), []byte("\n"))
	if len(gotLines) != len(wantLines) || len(gotLines) != 2 {
		t.Fatalf("JSON Lines after 2: %d lines, want %d (2)", len(gotLines), len(wantLines))
	}
	for i := range gotLines {
		sameJSON(t, fmt.Sprintf("JSON Lines row %d", i+3), gotLines[i], wantLines[i])
	}
}

func sameJSON(t *testing.T, what string, got, want []byte) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("%s is not JSON: %v\n%s", what, err, got)
	}
	if err := json.Unmarshal(want, &w); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(g, w) {
		t.Fatalf("%s:\n got %s\nwant %s", what, got, want)
	}
}

// TestTapeOrderFollowsAnswers: a call made after another call's answer
// arrived is later on the tape, even though answers leave before their
// rows are written. Sequential writers alternate two connections, so each
// next call may reach the server while the last one's row is pending.
func TestTapeOrderFollowsAnswers(t *testing.T) {
	env := resttest.Start(t, github.New(), "")
	const writers, rounds = 8, 25
	var wg sync.WaitGroup
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			conns := []*http.Client{{Transport: &http.Transport{}}, {Transport: &http.Transport{}}}
			for i := 0; i < rounds; i++ {
				body := fmt.Sprintf(`{"body":"w%d-%03d"}`, w, i)
				req, _ := http.NewRequest(http.MethodPost, env.APIURL+"/repos/acme/api/issues/1/comments", bytes.NewBufferString(body))
				req.Header.Set("Authorization", "Bearer "+env.Token)
				resp, err := conns[i%2].Do(req)
				if err != nil {
					t.Error(err)
					return
				}
				resp.Body.Close()
			}
		}(w)
	}
	wg.Wait()
	rows := env.Tape(t)
	last := map[string]string{}
	for i, row := range rows {
		if row.Seq != int64(i+1) {
			t.Fatalf("row %d has seq %d", i+1, row.Seq)
		}
		var b struct {
			Body string `json:"body"`
		}
		json.Unmarshal(row.Request.Body, &b)
		writer, _, _ := strings.Cut(b.Body, "-")
		if prev := last[writer]; prev != "" && b.Body < prev {
			t.Fatalf("seq %d holds %s after %s: the tape is out of the order the answers came in", row.Seq, b.Body, prev)
		}
		last[writer] = b.Body
	}
	if len(rows) != writers*rounds {
		t.Fatalf("%d rows, want %d", len(rows), writers*rounds)
	}
}
