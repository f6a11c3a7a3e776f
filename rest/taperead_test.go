package rest_test

import (
	"bytes"
	"fmt"
	"net/http"
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
