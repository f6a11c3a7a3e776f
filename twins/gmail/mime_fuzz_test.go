package gmail_test

import (
	"encoding/base64"
	"encoding/json"
	"testing"

	"github.com/pomehq/pome/twins"
	"github.com/pomehq/pome/twins/gmail"
	"github.com/pomehq/pome/twins/twinstest"
)

// FuzzSendRaw drives Gmail's MIME parser through the send_message action
// with arbitrary raw bytes, both as messages.send's base64url "raw" and as
// the upload endpoint's RFC 822 body. Whatever arrives, the action never
// panics, refuses with an Invalid error (a 400 INVALID_ARGUMENT, never a
// 500), and a refused message leaves the mailbox exactly as it was. An
// accepted message reads back in every format.
func FuzzSendRaw(f *testing.F) {
	for _, s := range []string{
		"To: alice@acme.test\r\nSubject: Receipt\r\n\r\nThanks for your order.",
		"From: pome-agent@acme.test\r\nTo: bob@acme.test\r\nCc: alice@acme.test\r\nBcc: ceo@acme.test\r\nSubject: =?UTF-8?B?w6l0w6k=?=\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\nsoci=C3=A9t=C3=A9\r\n",
		"To: alice@acme.test\r\nSubject: files\r\nMIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=\"b1\"\r\n\r\n--b1\r\nContent-Type: text/plain\r\n\r\nsee attached\r\n--b1\r\nContent-Type: application/pdf; name=\"r.pdf\"\r\nContent-Disposition: attachment; filename=\"r.pdf\"\r\nContent-Transfer-Encoding: base64\r\n\r\nJVBERi0xLjQK\r\n--b1--\r\n",
		"To: alice@acme.test\r\nSubject: nested\r\nContent-Type: multipart/alternative; boundary=a\r\n\r\n--a\r\nContent-Type: multipart/related; boundary=b\r\n\r\n--b\r\nContent-Type: text/html\r\n\r\n<p>hi</p>\r\n--b--\r\n--a--\r\n",
		"To: alice@acme.test\r\nSubject: hi\r\nBcc: x@evil.test\r\n\r\n",
		"To: alice@acme.test\nSubject: bare LF\n\nbody",
		"Subject: no recipient\r\n\r\nbody",
		"To: \"Mallory\r\nBcc: victim@acme.test\" <alice@acme.test>\r\nSubject: injected\r\n\r\nx",
		"To: alice@acme.test\r\nSubject: =?UTF-8?Q?a=0D=0ABcc:_x@evil.test?=\r\n\r\nx",
		"\xff\xfe\x00",
		"",
	} {
		f.Add([]byte(s), false)
		f.Add([]byte(s), true)
	}
	tw := gmail.New()
	base := twinstest.World(f, tw, "")
	seedDoc, _ := json.Marshal(base)
	f.Fuzz(func(t *testing.T, raw []byte, upload bool) {
		world, err := tw.DecodeWorld(seedDoc)
		if err != nil {
			t.Fatal(err)
		}
		field := map[string]any{"raw": base64.URLEncoding.EncodeToString(raw)}
		if upload {
			field = map[string]any{"rfc822": string(raw)}
		}
		args, _ := json.Marshal(field)
		r := twinstest.Call(t, tw, world, "send_message", string(args))
		after, _ := json.Marshal(world)
		if r.Err != nil {
			if r.Err.Code == twins.Internal {
				t.Fatalf("send_message(%q): internal error: %v", raw, r.Err)
			}
			if !r.Mutated && string(after) != string(seedDoc) {
				t.Fatalf("send_message(%q) refused (%v) but changed the mailbox", raw, r.Err)
			}
			return
		}
		// What was accepted must read back in every format.
		id, _ := r.JSON(t)["id"].(string)
		for _, format := range []string{"full", "metadata", "raw", "minimal"} {
			twinstest.MustCall(t, tw, world, "get_message", `{"messageId":"`+id+`","format":"`+format+`"}`)
		}
	})
}
