package gmail_test

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/pomehq/pome/rest/resttest"
	"github.com/pomehq/pome/session"
	twin "github.com/pomehq/pome/twins/gmail"
	gm "google.golang.org/api/gmail/v1"
	"google.golang.org/api/googleapi"
	"google.golang.org/api/option"
)

// TestSDKAtServerRoot: googleapis resolves every path against its rootUrl
// with new URL(path, rootUrl), so its users give it the server's root, and
// the ya29. token names the sandbox. The Go client pointed at the root the
// same way reads, writes and uploads in the sandbox, and the calls are on
// its tape; another sandbox's token at the root reaches only its own
// mailbox.
func TestSDKAtServerRoot(t *testing.T) {
	env := resttest.Start(t, twin.New(), "")
	root := func(token string) *gm.Service {
		svc, err := gm.NewService(context.Background(),
			option.WithEndpoint(env.HTTP.URL+"/"),
			option.WithHTTPClient(&http.Client{Transport: bearer{token: token}}))
		if err != nil {
			t.Fatal(err)
		}
		return svc
	}
	svc := root(env.Token)
	labels, err := svc.Users.Labels.List("me").Do()
	if err != nil {
		t.Fatalf("labels at the root: %v", err)
	}
	if len(labels.Labels) == 0 {
		t.Fatal("no labels")
	}
	raw := "To: bob@acme.test\r\nSubject: from the root\r\n\r\nhello"
	sent, err := svc.Users.Messages.Send("me", &gm.Message{Raw: b64url([]byte(raw))}).Do()
	if err != nil {
		t.Fatalf("send at the root: %v", err)
	}
	up, err := svc.Users.Messages.Send("me", &gm.Message{}).
		Media(bytes.NewReader([]byte("To: bob@acme.test\r\nSubject: uploaded at the root\r\n\r\nhi")), googleapi.ContentType("message/rfc822")).Do()
	if err != nil {
		t.Fatalf("media upload at the root: %v", err)
	}
	got, err := svc.Users.Messages.Get("me", sent.Id).Format("metadata").Do()
	if err != nil || got.ThreadId != sent.ThreadId {
		t.Fatalf("get at the root: %+v %v", got, err)
	}
	rows := env.Tape(t)
	var tools []string
	for _, r := range rows {
		tools = append(tools, r.ToolName())
	}
	if strings.Join(tools, ",") != "list_labels,send_message,send_message,get_message" {
		t.Errorf("tape at the root: %v", tools)
	}
	// A second sandbox's token at the same root sees its own mailbox only.
	var other session.Created
	if st := env.Control(t, http.MethodPost, "/v1/sandboxes", map[string]any{"twins": []string{"gmail"}}, &other); st != http.StatusCreated {
		t.Fatalf("second sandbox: %d", st)
	}
	osvc := root(other.ProviderCredentials["gmail"].Token)
	if _, err := osvc.Users.Labels.List("me").Do(); err != nil {
		t.Fatalf("the second sandbox at the root: %v", err)
	}
	_, err = osvc.Users.Messages.Get("me", up.Id).Do()
	googleErr(t, err, 404, "notFound")
}
