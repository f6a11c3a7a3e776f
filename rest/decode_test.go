package rest_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/pomehq/pome/rest/resttest"
	"github.com/pomehq/pome/twins/github"
	"github.com/pomehq/pome/twins/gmail"
)

// TestGitHubBodyMustBeJSON: GitHub reads a body as JSON whatever its content
// type. A body that is not JSON, or JSON that is not UTF-8, is answered
// 400 "Problems parsing JSON" and changes nothing; it is never taken as
// text (a text/plain "bug" once became the label "bug").
func TestGitHubBodyMustBeJSON(t *testing.T) {
	env := resttest.Start(t, github.New(), "")
	before := env.State(t)
	for _, c := range []struct{ name, method, path, ct, body string }{
		{"text as labels", "PUT", "/repos/acme/api/issues/1/labels", "text/plain", "bug"},
		{"text as labels, no type", "PUT", "/repos/acme/api/issues/1/labels", "", "bug"},
		{"text as added labels", "POST", "/repos/acme/api/issues/1/labels", "text/plain; charset=utf-8", "bug, feature"},
		{"invalid UTF-8 labels", "PUT", "/repos/acme/api/issues/1/labels", "application/json", "[\"b\xffg\"]"},
		{"invalid UTF-8 comment", "POST", "/repos/acme/api/issues/1/comments", "application/json", "{\"body\":\"bad \xff\xc3\"}"},
		{"invalid UTF-8 issue, no type", "POST", "/repos/acme/api/issues", "", "{\"title\":\"t\xe2\x82\"}"},
		{"text as comment", "POST", "/repos/acme/api/issues/1/comments", "text/plain", "hello"},
	} {
		t.Run(c.name, func(t *testing.T) {
			st, body := env.Do(t, c.method, c.path, c.ct, []byte(c.body))
			var e struct {
				Message string `json:"message"`
			}
			json.Unmarshal(body, &e)
			if st != http.StatusBadRequest || e.Message != "Problems parsing JSON" {
				t.Fatalf("%d %s", st, body)
			}
		})
	}
	if after := env.State(t); !bytes.Equal(before, after) {
		t.Errorf("a refused body changed the state:\n%s\n%s", before, after)
	}
	// JSON sent as text/plain is still JSON to GitHub.
	if st, body := env.Do(t, "PUT", "/repos/acme/api/issues/1/labels", "text/plain", []byte(`["bug"]`)); st != http.StatusOK || !bytes.Contains(body, []byte(`"name":"bug"`)) {
		t.Errorf("JSON labels as text/plain: %d %s", st, body)
	}
}

// TestGmailMediaUploadStaysRaw: Gmail's media upload takes the message as
// the body, as sent; only JSON bodies must be UTF-8 JSON.
func TestGmailMediaUploadStaysRaw(t *testing.T) {
	env := resttest.Start(t, gmail.New(), "")
	st, body := env.Do(t, "POST", "/upload/gmail/v1/users/me/messages/send?uploadType=media", "message/rfc822",
		[]byte("To: alice@acme.test\r\nSubject: raw upload\r\n\r\nhello"))
	if st != http.StatusOK {
		t.Fatalf("media upload: %d %s", st, body)
	}
	st, body = env.Do(t, "POST", "/gmail/v1/users/me/labels", "application/json", []byte("{\"name\":\"b\xffd\"}"))
	if st != http.StatusBadRequest {
		t.Errorf("invalid UTF-8 JSON to Gmail: %d %s", st, body)
	}
}
