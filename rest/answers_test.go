package rest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pomehq/pome/rest"
	"github.com/pomehq/pome/rest/resttest"
	"github.com/pomehq/pome/session"
	"github.com/pomehq/pome/twins"
	"github.com/pomehq/pome/twins/github"
	"github.com/pomehq/pome/twins/slack"
)

// get sends a GET to the twin with the provider token and extra headers,
// returning status, the headers and the body.
func get(t *testing.T, e *resttest.Env, path string, hdr ...string) (int, http.Header, []byte) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, e.APIURL+path, nil)
	req.Header.Set("Authorization", "Bearer "+e.Token)
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, b
}

// A read sent again on the same world is answered from the cache, with
// the same status, headers, ETag and body, and taped like the first.
func TestAnswerCacheServesTheSameAnswer(t *testing.T) {
	e := resttest.Start(t, github.New(), "")
	st1, h1, b1 := get(t, e, "/repos/acme/api/issues/1")
	h0, m0 := rest.AnswerCacheCounts(e.Server)
	st2, h2, b2 := get(t, e, "/repos/acme/api/issues/1")
	h, m := rest.AnswerCacheCounts(e.Server)
	if st1 != 200 || st2 != 200 || !bytes.Equal(b1, b2) {
		t.Fatalf("answers differ: %d %s / %d %s", st1, b1, st2, b2)
	}
	if h-h0 != 1 || m != m0 {
		t.Fatalf("second read: %d hits, %d misses; want one hit", h-h0, m-m0)
	}
	for _, k := range []string{"ETag", "Content-Type", "Content-Length", "Link"} {
		if h1.Get(k) != h2.Get(k) {
			t.Errorf("%s: %q then %q", k, h1.Get(k), h2.Get(k))
		}
	}
	if h2.Get("ETag") == "" {
		t.Fatal("no ETag on the cached answer")
	}
	// A conditional GET with the ETag is a 304 from the cache too.
	if st, _, _ := get(t, e, "/repos/acme/api/issues/1", "If-None-Match", h2.Get("ETag")); st != http.StatusNotModified {
		t.Fatalf("If-None-Match: status %d, want 304", st)
	}
	rows := e.Tape(t)
	if len(rows) != 3 {
		t.Fatalf("%d tape rows, want 3", len(rows))
	}
	a, b := rows[0], rows[1]
	if a.ToolName() != b.ToolName() || a.Status != b.Status || !bytes.Equal(a.Response.Body, b.Response.Body) || b.StateMutation {
		t.Fatalf("cached call taped differently:\n%+v\n%+v", a, b)
	}
	if rows[2].Status != http.StatusNotModified || rows[2].ToolName() != a.ToolName() {
		t.Fatalf("304 row: %+v", rows[2])
	}
}

// A write makes every kept answer of the twin's world stale: the next read
// runs again and sees the write.
func TestAnswerCacheSeesEveryWrite(t *testing.T) {
	e := resttest.Start(t, github.New(), "")
	count := func() int {
		_, _, b := get(t, e, "/repos/acme/api/issues/1")
		var is struct {
			Comments int `json:"comments"`
		}
		if err := json.Unmarshal(b, &is); err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		return is.Comments
	}
	before := count()
	count() // kept
	for i := 1; i <= 3; i++ {
		if st, b := e.Do(t, http.MethodPost, "/repos/acme/api/issues/1/comments", "application/json", []byte(`{"body":"note"}`)); st != 201 {
			t.Fatalf("comment: %d %s", st, b)
		}
		if got := count(); got != before+i {
			t.Fatalf("after %d comments the issue says %d, want %d", i, got, before+i)
		}
	}
	// A write that fails changes nothing, and may leave the answer stale
	// only in the cache's favour: the read still runs and is right.
	if st, _ := e.Do(t, http.MethodPost, "/repos/acme/api/issues/1/comments", "application/json", []byte(`{"body":""}`)); st != 422 {
		t.Fatalf("empty comment: %d", st)
	}
	if got := count(); got != before+3 {
		t.Fatalf("after a refused comment the issue says %d, want %d", got, before+3)
	}
}

// What an answer depends on in the request's headers is part of its key:
// GitHub answers a pull request as JSON, or as a diff when Accept asks.
func TestAnswerCacheKeysOnTheHeadersRead(t *testing.T) {
	e := resttest.Start(t, github.New(), "")
	if st, b := e.Do(t, http.MethodPost, "/repos/acme/api/pulls", "application/json", []byte(`{"title":"t","head":"feature","base":"main"}`)); st != 201 {
		if st, b = e.Do(t, http.MethodPost, "/repos/acme/api/git/refs", "application/json", []byte(`{"ref":"refs/heads/feature","sha":"`+mainSHA(t, e)+`"}`)); st != 201 {
			t.Fatalf("branch: %d %s", st, b)
		}
		put := []byte(`{"message":"m","content":"aGVsbG8K","branch":"feature"}`)
		if st, b = e.Do(t, http.MethodPut, "/repos/acme/api/contents/hello.txt", "application/json", put); st != 201 {
			t.Fatalf("file: %d %s", st, b)
		}
		if st, b = e.Do(t, http.MethodPost, "/repos/acme/api/pulls", "application/json", []byte(`{"title":"t","head":"feature","base":"main"}`)); st != 201 {
			t.Fatalf("pull: %d %s", st, b)
		}
	}
	var pulls []struct {
		Number int `json:"number"`
	}
	_, _, lb := get(t, e, "/repos/acme/api/pulls")
	if err := json.Unmarshal(lb, &pulls); err != nil || len(pulls) == 0 {
		t.Fatalf("pulls: %s %v", lb, err)
	}
	path := fmt.Sprintf("/repos/acme/api/pulls/%d", pulls[0].Number)
	const diff = "application/vnd.github.diff"
	_, h1, j1 := get(t, e, path)
	_, h2, j2 := get(t, e, path)
	_, hd, d1 := get(t, e, path, "Accept", diff)
	_, _, j3 := get(t, e, path, "Accept", "application/vnd.github+json")
	if !strings.HasPrefix(h1.Get("Content-Type"), "application/json") || !bytes.Equal(j1, j2) || h1.Get("ETag") != h2.Get("ETag") {
		t.Fatalf("JSON answers differ: %s / %s", j1, j2)
	}
	if !strings.Contains(hd.Get("Content-Type"), "diff") || bytes.Equal(d1, j1) || !bytes.HasPrefix(d1, []byte("diff --git")) {
		t.Fatalf("Accept diff answered %q %.200s", hd.Get("Content-Type"), d1)
	}
	if !bytes.Equal(j1, j3) {
		t.Fatalf("another Accept for JSON answered %.200s", j3)
	}
}

func mainSHA(t *testing.T, e *resttest.Env) string {
	_, _, b := get(t, e, "/repos/acme/api/git/ref/heads/main")
	var ref struct {
		Object struct {
			SHA string `json:"sha"`
		} `json:"object"`
	}
	if err := json.Unmarshal(b, &ref); err != nil || ref.Object.SHA == "" {
		t.Fatalf("main: %s %v", b, err)
	}
	return ref.Object.SHA
}

// The credential's role is part of the key: Slack's auth.test answers a
// bot token with its bot and a user token without, and neither is served
// the other's kept answer.
func TestAnswerCacheKeysOnTheRole(t *testing.T) {
	e := resttest.Start(t, slack.New(), "")
	call := func(token string) string {
		req, _ := http.NewRequest(http.MethodPost, e.APIURL+"/api/auth.test", nil)
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}
	user := e.Created.ProviderCredentials["slack"].UserToken
	if user == "" {
		t.Fatal("the Slack twin gave no user token")
	}
	bot1, bot2 := call(e.Token), call(e.Token)
	u := call(user)
	if bot1 != bot2 || !strings.Contains(bot1, `"bot_id"`) {
		t.Fatalf("bot token: %s then %s", bot1, bot2)
	}
	if strings.Contains(u, `"bot_id"`) || u == bot1 {
		t.Fatalf("the user token was answered %s", u)
	}
	if h, _ := rest.AnswerCacheCounts(e.Server); h != 1 {
		t.Fatalf("%d hits, want 1 (the bot's second call)", h)
	}
}

// clockTwin has a read that answers the sandbox clock, and a counter.
type clockWorld struct {
	N int `json:"n"`
}

func clockTwin() *twins.Twin {
	newWorld, decode := twins.WorldCodec(func(ctx context.Context, seed json.RawMessage) (*clockWorld, error) {
		return &clockWorld{}, nil
	})
	type none struct{}
	return (&twins.Twin{
		Name: "clock", Title: "Clock", TokenPrefix: "ck_",
		NewWorld: newWorld, DecodeWorld: decode,
		RESTError: func(e *twins.Error) (int, any) { return http.StatusBadRequest, map[string]any{"message": e.Message} },
		Actions: []twins.Action{
			twins.New(twins.Spec{Name: "now", Title: "Now", Description: "The sandbox clock.", Effect: twins.Read,
				Bindings: []twins.Binding{{Method: "GET", Path: "/now"}}},
				func(ctx context.Context, w *clockWorld, in none) (map[string]any, error) {
					return map[string]any{"now": twins.EnvFrom(ctx).Now().UnixNano()}, nil
				}),
			twins.New(twins.Spec{Name: "count", Title: "Count", Description: "The counter.", Effect: twins.Read,
				Bindings: []twins.Binding{{Method: "GET", Path: "/count"}}},
				func(ctx context.Context, w *clockWorld, in none) (map[string]any, error) {
					return map[string]any{"n": w.N}, nil
				}),
		},
	}).Finish()
}

// An answer that read the clock is never kept.
func TestAnswerCacheNeverKeepsTheClock(t *testing.T) {
	e := resttest.Start(t, clockTwin(), "")
	_, _, a := get(t, e, "/now")
	time.Sleep(2 * time.Millisecond)
	_, _, b := get(t, e, "/now")
	if bytes.Equal(a, b) {
		t.Fatalf("the clock read twice answered %s both times", a)
	}
	if h, _ := rest.AnswerCacheCounts(e.Server); h != 0 {
		t.Fatalf("%d hits on a clock read", h)
	}
	get(t, e, "/count")
	get(t, e, "/count")
	if h, _ := rest.AnswerCacheCounts(e.Server); h != 1 {
		t.Fatalf("%d hits on a pure read sent twice, want 1", h)
	}
}

// With the cache off, nothing is kept.
func TestAnswerCacheOff(t *testing.T) {
	key := session.NewAPIKey()
	teams, err := session.NewTeams(map[string][]string{"test": {key}})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(nil)
	defer hs.Close()
	srv := rest.NewServer(rest.Config{PublicURL: hs.URL, AnswerCacheBytes: -1}, twins.NewRegistry(github.New()), session.NewMemoryStore(nil, 0), teams)
	hs.Config.Handler = srv
	req, _ := http.NewRequest(http.MethodPost, hs.URL+"/v1/sandboxes", strings.NewReader(`{"twins":["github"]}`))
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var c session.Created
	json.NewDecoder(resp.Body).Decode(&c)
	resp.Body.Close()
	for range 3 {
		r, _ := http.NewRequest(http.MethodGet, c.PerTwin["github"].APIURL+"/repos/acme/api/issues/1", nil)
		r.Header.Set("Authorization", "Bearer "+c.ProviderCredentials["github"].Token)
		resp, err := http.DefaultClient.Do(r)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("status %d", resp.StatusCode)
		}
	}
	if h, m := rest.AnswerCacheCounts(srv); h != 0 || m != 0 {
		t.Fatalf("cache off: %d hits, %d misses", h, m)
	}
}

// Readers and writers at once: a read sent after a write was acknowledged
// always sees it, kept answers or not.
func TestAnswerCacheReadsAfterAcknowledgedWrites(t *testing.T) {
	e := resttest.Start(t, github.New(), "")
	comments := func() int {
		_, _, b := get(t, e, "/repos/acme/api/issues/1")
		var is struct {
			Comments int `json:"comments"`
		}
		json.Unmarshal(b, &is)
		return is.Comments
	}
	base := comments()
	var mu sync.Mutex
	acked := 0
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 10 {
				st, _ := e.Do(t, http.MethodPost, "/repos/acme/api/issues/1/comments", "application/json", []byte(fmt.Sprintf(`{"body":"w%d-%d"}`, w, i)))
				if st != 201 {
					t.Errorf("comment: %d", st)
					return
				}
				mu.Lock()
				acked++
				floor := acked
				mu.Unlock()
				if got := comments(); got < base+floor {
					t.Errorf("a read after %d acknowledged comments saw %d", floor, got-base)
					return
				}
			}
		}()
	}
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 30 {
				comments()
			}
		}()
	}
	wg.Wait()
	if got := comments(); got != base+40 {
		t.Fatalf("%d comments at the end, want %d", got-base, 40)
	}
}
