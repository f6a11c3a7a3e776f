package gmail

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/pomehq/pome/twins"
	"github.com/pomehq/pome/twins/twinstest"
)

func b64(s string) string { return base64.URLEncoding.EncodeToString([]byte(s)) }

const multipartRaw = "From: someone@else.test\r\nTo: Alice <alice@example.com>, bob@acme.test\r\nBcc: carol@example.org\r\nSubject: Your receipt\r\nMIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=\"XYZ\"\r\n\r\n--XYZ\r\nContent-Type: text/plain; charset=UTF-8\r\n\r\nHere is the receipt for order #1042.\r\n--XYZ\r\nContent-Type: application/pdf; name=\"receipt.pdf\"\r\nContent-Disposition: attachment; filename=\"receipt.pdf\"\r\nContent-Transfer-Encoding: base64\r\n\r\nJVBERi0xLjQK\r\n--XYZ--\r\n"

func TestSendMultipartDelivers(t *testing.T) {
	tw, w := fixture(t, `{"mailboxes":[{"address":"pome-agent@acme.test","name":"Pome Agent"},{"address":"alice@example.com"},{"address":"carol@example.org"}]}`)
	r := twinstest.MustCall(t, tw, w, "send_message", `{"raw":"`+b64(multipartRaw)+`"}`)
	if !r.Mutated {
		t.Error("send must mutate")
	}
	out := r.Out.(MessageOut)
	if out.LabelIDs[0] != "SENT" || out.ThreadID != out.ID {
		t.Errorf("send: %+v", out)
	}
	rest := out.rest()
	if rest.Subject != "" || rest.PlaintextBody != "" {
		t.Error("REST shape keeps MCP fields")
	}
	m := w.me().message(out.ID)
	if fromAddress(m.From) != "pome-agent@acme.test" {
		t.Errorf("From not rewritten to the sender: %q", m.From)
	}
	if !m.HasAttachment || len(m.Bcc) != 1 || m.MessageIDHdr == "" {
		t.Errorf("sent copy: %+v", m)
	}
	// Delivered to alice and carol (Bcc), without the Bcc header; bob has
	// no mailbox in the sandbox.
	for _, addr := range []string{"alice@example.com", "carol@example.org"} {
		mb := w.byAddress(addr)
		if len(mb.Messages) != 1 {
			t.Fatalf("%s got %d messages", addr, len(mb.Messages))
		}
		got := mb.Messages[0]
		if got.ID == m.ID || !got.hasLabel("INBOX") || !got.hasLabel("UNREAD") || len(got.Bcc) != 0 {
			t.Errorf("%s copy: %+v", addr, got)
		}
		raw, _ := decodeRaw(got.Raw)
		if strings.Contains(string(raw), "Bcc:") {
			t.Errorf("%s copy keeps Bcc header", addr)
		}
	}
	full := call(t, tw, w, "get_message", `{"messageId":"`+m.ID+`"}`)
	payload := full["payload"].(map[string]any)
	parts := payload["parts"].([]any)
	att := parts[1].(map[string]any)
	if att["filename"] != "receipt.pdf" || att["partId"] != "1" {
		t.Fatalf("attachment part: %v", att)
	}
	attID := att["body"].(map[string]any)["attachmentId"].(string)
	body := call(t, tw, w, "get_attachment", `{"messageId":"`+m.ID+`","attachmentId":"`+attID+`"}`)
	data, _ := decodeRaw(body["data"].(string))
	if string(data) != "%PDF-1.4\n" || body["size"] != float64(9) {
		t.Errorf("attachment: %v", body)
	}
	text := parts[0].(map[string]any)["body"].(map[string]any)["data"].(string)
	if dec, _ := decodeRaw(text); string(dec) != "Here is the receipt for order #1042." {
		t.Errorf("text part: %q", dec)
	}
}

func TestSendErrors(t *testing.T) {
	tw, w := fixture(t, "")
	before := mustJSON(t, w)
	cases := []struct {
		name, args string
		code       twins.Code
		msg        string
	}{
		{"nothing", `{}`, twins.Invalid, "'raw' RFC822 payload"},
		{"bad base64", `{"raw":"***"}`, twins.Invalid, "Invalid value for ByteString"},
		{"no recipients", `{"raw":"` + b64("Subject: hi\r\n\r\nbody") + `"}`, twins.Invalid, "Recipient address required"},
		{"bad to", `{"raw":"` + b64("To: <<<\r\nSubject: hi\r\n\r\nbody") + `"}`, twins.Invalid, "Invalid To header"},
		{"unknown thread", `{"threadId":"00000000000000aa","raw":"` + b64("To: a@b.c\r\nSubject: hi\r\n\r\nbody") + `"}`, twins.NotFound, "Requested entity was not found."},
		{"other user", `{"userId":"bob@acme.test","to":["a@b.c"]}`, twins.Forbidden, "Delegation denied"},
		{"injected address", `{"to":["a@b.c\r\nBcc: evil@x.y"],"subject":"hi"}`, twins.Invalid, "Invalid to address"},
		{"bad attachment", `{"to":["a@b.c"],"attachments":[{"filename":"x","data":"***"}]}`, twins.Invalid, "data must be base64"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := twinstest.Call(t, tw, w, "send_message", c.args)
			if r.Err == nil || r.Err.Code != c.code || !strings.Contains(r.Err.Message, c.msg) {
				t.Fatalf("got %v, want %s %q", r.Err, c.code, c.msg)
			}
			if r.Mutated {
				t.Error("refused call mutated")
			}
		})
	}
	if mustJSON(t, w) != before {
		t.Error("refused sends changed the world")
	}
}

func TestSubjectInjection(t *testing.T) {
	tw, w := fixture(t, "")
	out := call(t, tw, w, "send_message", `{"to":["alice@example.com"],"subject":"Hi\r\nBcc: evil@x.y","body":"x"}`)
	m := w.me().message(out["id"].(string))
	raw, _ := decodeRaw(m.Raw)
	if strings.Contains(string(raw), "\r\nBcc:") || len(m.Bcc) != 0 {
		t.Errorf("subject smuggled a header:\n%s", raw)
	}
	// An encoded word that decodes to a line break stays one header value.
	enc := "To: a@b.c\r\nSubject: =?UTF-8?B?" + base64.StdEncoding.EncodeToString([]byte("x\r\nBcc: evil@x.y")) + "?=\r\n\r\nbody"
	out = call(t, tw, w, "send_message", `{"raw":"`+b64(enc)+`"}`)
	m = w.me().message(out["id"].(string))
	if strings.ContainsAny(m.Subject, "\r\n") || len(m.Bcc) != 0 {
		t.Errorf("decoded subject %q bcc %v", m.Subject, m.Bcc)
	}
	// A reply built from that subject stays clean too.
	rep := call(t, tw, w, "reply_to_message", `{"messageId":"`+m.ID+`","body":"ok"}`)
	r := w.me().message(rep["id"].(string))
	raw, _ = decodeRaw(r.Raw)
	if strings.Contains(string(raw), "\r\nBcc:") {
		t.Errorf("reply smuggled a header:\n%s", raw)
	}
}

func TestReplyThreads(t *testing.T) {
	tw, w := fixture(t, `{"mailboxes":[{"address":"pome-agent@acme.test"},{"address":"alice@example.com"}]}`)
	// Alice writes to the agent, from her own mailbox.
	alice := w.byAddress("alice@example.com")
	w.Mailboxes[0], w.Mailboxes[1] = alice, w.Mailboxes[0]
	call(t, tw, w, "send_message", `{"to":["pome-agent@acme.test"],"subject":"Receipt please","body":"Order #1042"}`)
	w.Mailboxes[0], w.Mailboxes[1] = w.Mailboxes[1], alice
	mb := w.me()
	if len(mb.Messages) != 1 {
		t.Fatalf("agent got %d messages", len(mb.Messages))
	}
	in := mb.Messages[0]
	// A reply with threadId and a matching subject joins the thread.
	reply := "To: alice@example.com\r\nSubject: Re: Receipt please\r\nIn-Reply-To: " + in.MessageIDHdr + "\r\nReferences: " + in.MessageIDHdr + "\r\n\r\nAttached."
	out := call(t, tw, w, "send_message", `{"threadId":"`+in.ThreadID+`","raw":"`+b64(reply)+`"}`)
	if out["threadId"] != in.ThreadID {
		t.Errorf("reply left the thread: %v", out)
	}
	// Alice's copy threads with her original by References and subject.
	if len(alice.Messages) != 2 || alice.Messages[1].ThreadID != alice.Messages[0].ThreadID {
		t.Errorf("alice's thread: %+v", alice.Messages)
	}
	// A different subject starts a new thread even with threadId.
	other := "To: alice@example.com\r\nSubject: Something else\r\n\r\nx"
	out = call(t, tw, w, "send_message", `{"threadId":"`+in.ThreadID+`","raw":"`+b64(other)+`"}`)
	if out["threadId"] == in.ThreadID {
		t.Error("mismatched subject joined the thread")
	}
	// reply_to_message threads and addresses the sender.
	out = call(t, tw, w, "reply_to_message", `{"messageId":"`+in.ID+`","body":"Here you go"}`)
	r := mb.message(out["id"].(string))
	if r.ThreadID != in.ThreadID || r.Subject != "Re: Receipt please" || r.To[0] != "alice@example.com" || r.InReplyTo != in.MessageIDHdr {
		t.Errorf("reply_to_message: %+v", r)
	}
	th := call(t, tw, w, "get_thread", `{"threadId":"`+in.ThreadID+`"}`)
	if n := len(th["messages"].([]any)); n != 3 {
		t.Errorf("thread has %d messages", n)
	}
	checkMessageIndex(t, w)
}
