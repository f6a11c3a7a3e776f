// GitHub Enterprise clients configured with a host (github-mcp-server's
// GITHUB_HOST) send every call from the server root; these tests drive the
// root mounts the way such a client does.

package github_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	gh "github.com/google/go-github/v84/github"

	"github.com/pomehq/pome/rest/resttest"
	"github.com/pomehq/pome/tape"
	"github.com/pomehq/pome/twins/github"
)

// rootClient is go-github configured for a GitHub Enterprise host at the
// Pome server's root: it sends /api/v3/… with the sandbox's ghp_ token.
func rootClient(t *testing.T, env *resttest.Env, token string) *gh.Client {
	t.Helper()
	c, err := gh.NewClient(nil).WithAuthToken(token).WithEnterpriseURLs(env.HTTP.URL+"/", env.HTTP.URL+"/")
	if err != nil {
		t.Fatal(err)
	}
	if got := c.BaseURL.String(); got != env.HTTP.URL+"/api/v3/" {
		t.Fatalf("base URL %s", got)
	}
	return c
}

func TestRootEnterpriseHost(t *testing.T) {
	env := resttest.Start(t, github.New(), "")
	other := resttest.Start(t, github.New(), "")
	ctx := context.Background()
	c := rootClient(t, env, env.Token)

	is, _, err := c.Issues.Get(ctx, "acme", "api", 1)
	if err != nil || is.GetNumber() != 1 {
		t.Fatalf("get issue at the root: %v %+v", err, is)
	}
	cm, resp, err := c.Issues.CreateComment(ctx, "acme", "api", 1, &gh.IssueComment{Body: gh.Ptr("from the root")})
	if err != nil || resp.StatusCode != http.StatusCreated || cm.GetBody() != "from the root" {
		t.Fatalf("comment at the root: %v %+v", err, cm)
	}
	// The comment landed in this sandbox, and its rows carry the tools.
	rows := waitRows(t, env, 2)
	if len(rows) != 2 || rows[0].Tool == nil || *rows[0].Tool != "issue_read" || rows[1].Tool == nil || *rows[1].Tool != "add_issue_comment" {
		t.Fatalf("tape: %+v", rows)
	}
	if !strings.HasPrefix(rows[1].Path, "/github/s/"+env.SessionID+"/api/v3/") {
		t.Errorf("taped path %s", rows[1].Path)
	}
	if n := len(other.Tape(t)); n != 0 {
		t.Errorf("the other sandbox has %d rows", n)
	}

	// Tokens that name no sandbox, or open no twin here, get the opaque 404.
	for name, tok := range map[string]string{
		"auth token":         env.AuthToken,
		"agent token":        env.AgentToken,
		"wrong ghp_":         "ghp_" + strings.Repeat("A", 52),
		"other sandbox's id": "ghp_" + other.Token[4:20] + env.Token[20:],
	} {
		_, _, err := rootClient(t, env, tok).Issues.Get(ctx, "acme", "api", 1)
		if apiStatus(err) != http.StatusNotFound {
			t.Errorf("%s: %v", name, err)
		}
	}
	if n := len(env.Tape(t)); n != 2 {
		t.Errorf("refused calls were taped: %d rows", n)
	}

	// Uploads are mounted too; the twin has no upload routes, so the
	// answer is the loud unsupported one (GitHub's 404 envelope, which
	// octokit does not retry, carrying Pome's explanation) with tool null
	// on the tape.
	req, _ := http.NewRequest(http.MethodPost, env.HTTP.URL+"/api/uploads/repos/acme/api/releases/1/assets?name=a.txt", strings.NewReader("x"))
	req.Header.Set("Authorization", "token "+env.Token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	rows = waitRows(t, env, 3)
	if res.StatusCode != http.StatusNotFound || !strings.Contains(string(body), `"unsupported":true`) || len(rows) != 3 || rows[2].Tool != nil {
		t.Errorf("uploads: %d, %+v", res.StatusCode, rows[len(rows)-1])
	}

	// github-mcp-server reads the token's scopes with HEAD /api/v3/.
	req, _ = http.NewRequest(http.MethodHead, env.HTTP.URL+"/api/v3/", nil)
	req.Header.Set("Authorization", "Bearer "+env.Token)
	res, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	rows = waitRows(t, env, 4)
	if res.StatusCode != http.StatusOK || !strings.Contains(res.Header.Get("X-OAuth-Scopes"), "repo") || len(rows) != 4 || *rows[3].Tool != "get_api_root" {
		t.Errorf("HEAD /api/v3/: %d %q %+v", res.StatusCode, res.Header.Get("X-OAuth-Scopes"), rows[len(rows)-1])
	}
}

// waitRows reads the tape until it has n rows (an answer may leave before
// its row is written) or a deadline passes.
func waitRows(t *testing.T, env *resttest.Env, n int) []tape.Row {
	t.Helper()
	rows := env.Tape(t)
	for deadline := time.Now().Add(2 * time.Second); len(rows) < n && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		rows = env.Tape(t)
	}
	return rows
}
