// Package gmail is the Gmail twin: a sandbox of mailboxes that the Gmail
// API client (google.golang.org/api/gmail/v1, REST under
// /gmail/v1/users/{userId}/…) and Google's Gmail MCP tools (search_threads,
// get_thread, create_draft, label_message, …, plus send_message) both drive.
//
// # World
//
// One or more mailboxes; the first is the authenticated user ("me", or its
// address, as userId). Messages are stored as their raw RFC 2822 bytes (the
// base64url Gmail returns for format=raw) with the parsed headers beside
// them; drafts are messages with the DRAFT label, as in Gmail. Message ids
// are 16 hex digits from a sandbox counter, a thread's id is its first
// message's id, user labels are Label_1, Label_2, …, and every change takes
// the mailbox's next history id and is logged for history.list.
// internalDate comes from the sandbox clock. Mail sent to the address of
// another mailbox of the sandbox is delivered there (INBOX, UNREAD), where
// that mailbox's filters act on it. A seed in the original Pome's format
// may pin ids of its own (msg_support, thread_support, Label_follow_up,
// draft_ack): methods find them, minted ids never take them, and unknown
// ids keep Gmail's answers (400 when malformed, 404 when not there).
//
// The token reads only its own mailbox: every method takes userId "me" or
// the authenticated user's address, and any other address — another
// mailbox of the sandbox or none — is Gmail's 403 "Delegation denied for
// <me>", the same for both, changing nothing. TestNothingHiddenIsVisible in
// twins/all walks every method against another mailbox.
//
// # Seed
//
// The seed document is decoded strictly (unknown keys, wrong types and
// broken references are errors naming the JSON path):
//
//	{
//	  "mailboxes": [
//	    {
//	      "address": "pome-agent@acme.test",      // required; the first mailbox is "me"
//	      "name": "Pome Agent",                    // display name, used in From
//	      "labels": [                               // user labels → Label_1, Label_2, …
//	        {"name": "Receipts", "color": {"textColor": "#000000", "backgroundColor": "#ffffff"},
//	         "messageListVisibility": "show", "labelListVisibility": "labelShow"}
//	      ],
//	      "messages": [
//	        {"id": "18f0a1b200001000",             // optional, 16 hex digits
//	         "thread": "receipt",                   // optional seed-local key: same key, same thread
//	         "from": "Alice Example <alice@example.com>",
//	         "to": ["pome-agent@acme.test"], "cc": [], "bcc": [],
//	         "subject": "Receipt for order #1042",
//	         "text": "Could you send me the receipt?", "html": "<p>…</p>",
//	         "date": "2026-12-01T09:30:00Z",         // default: hours before the sandbox clock
//	         "labels": ["INBOX", "UNREAD", "Receipts"], // system ids or user label names;
//	                                                 // default INBOX+UNREAD
//	         "attachments": [{"filename": "order.txt", "mimeType": "text/plain", "text": "…"},
//	                         {"filename": "logo.png", "mimeType": "image/png", "data": "<base64>"}]},
//	        {"raw": "From: bob@acme.test\nTo: pome-agent@acme.test\nSubject: Hi\n\nHello",
//	         "labels": ["INBOX"]}                   // raw RFC 2822 text instead of the fields
//	      ],
//	      "drafts": [
//	        {"to": ["alice@example.com"], "subject": "Re: Receipt", "text": "…", "thread": "receipt"}
//	      ],
//	      "filters": [                              // Gmail's Filter resource; act on delivered mail
//	        {"id": "filter_receipts", "criteria": {"from": "alice@example.com", "subject": "receipt"},
//	         "action": {"addLabelIds": ["Receipts"], "removeLabelIds": ["INBOX"]}}
//	      ],
//	      "forwardingAddresses": [{"forwardingEmail": "archive@acme.test", "verificationStatus": "accepted"}],
//	      "sendAs": [{"sendAsEmail": "billing@acme.test", "displayName": "Acme Billing"}]
//	    },
//	    {"address": "alice@example.com", "name": "Alice Example"}  // receives mail sent to her
//	  ]
//	}
//
// A message without "from" must carry the SENT label (it is then from the
// mailbox's owner); a message without "to" is addressed to the mailbox.
// Messages of one thread after the first get In-Reply-To and References to
// their predecessor. Without a seed the world is DefaultSeed (SPEC §9).
//
// The original Pome's Gmail seed format (primaryMailbox, email/displayName,
// threadId, messageId/inReplyTo/references, clock, deliveryMode, faults,
// _meta) is read too; seed_original.go documents it. A seed is in that
// format when it has any of its top-level keys.
//
// # Surfaces
//
// REST answers with Google's error envelope
// {"error":{"code","message","errors":[{"message","domain","reason"}],"status"}}.
// Actions that Google's MCP server has (search_threads, get_thread,
// get_message, create_draft, list_drafts, list_labels, create_label,
// label_message, unlabel_message, label_thread, unlabel_thread) keep its
// argument names and add its readable fields (subject, sender,
// toRecipients, plaintextBody, …) to Gmail's resources; over REST those
// extras are stripped so the SDK sees Gmail's exact shapes.
//
// A seeded "rate-limited" fault (fault.go) answers its target's calls in a
// window with Gmail's 429 RESOURCE_EXHAUSTED and Retry-After, over REST and
// MCP alike; the throttled calls are taped with state_mutation false.
package gmail

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/pomehq/pome/twins"
)

// gerr builds a twin error whose Vendor is Google's reason.
func gerr(code twins.Code, reason, format string, args ...any) *twins.Error {
	return twins.Errorf(code, reason, format, args...)
}

func notFound() *twins.Error {
	return gerr(twins.NotFound, "notFound", "Requested entity was not found.")
}

// New returns the Gmail twin.
func New() *twins.Twin {
	// Every world the twin makes gets the message indexes the state
	// document leaves out (Mailbox.byID).
	newWorld, decodeJSON := twins.WorldCodec(func(ctx context.Context, seed json.RawMessage) (*World, error) {
		w, err := build(ctx, seed)
		if err != nil {
			return nil, err
		}
		w.indexMessages()
		return w, nil
	})
	decode := func(data []byte) (any, error) {
		w, err := decodeJSON(data)
		if err != nil {
			return nil, err
		}
		w.(*World).indexMessages()
		return w, nil
	}
	t := &twins.Twin{
		Name:                "gmail",
		Title:               "Gmail",
		Actions:             Actions(),
		Checks:              Checks(),
		NewWorld:            newWorld,
		DecodeWorld:         decode,
		CopyWorld:           twins.WorldCopier((*World).indexMessages),
		RESTError:           RESTError,
		TokenPrefix:         "ya29.",
		SeedExample:         SeedExample,
		SeedExampleOriginal: SeedExampleOriginal,
		Refusal:             refusal,
		// googleapis resolves every path against its rootUrl with
		// new URL(path, rootUrl), dropping any path of its own, and
		// media uploads ("/upload/gmail/v1/…") the same way: both are
		// served at the server root, where the credential names the
		// sandbox.
		RootPaths: []string{"/gmail/v1/", "/upload/gmail/v1/"},
	}
	return t.Finish()
}

// Actions is the twin's one list of actions.
func Actions() []twins.Action {
	return withFaults([]twins.Action{
		getProfile,
		// Messages.
		listMessages, getMessage, sendMessage, replyToMessage, insertMessage, importMessage,
		modifyMessage, labelMessage, unlabelMessage, applySensitiveMessageLabel, batchModifyMessages,
		trashMessage, untrashMessage, deleteMessage, batchDeleteMessages, getAttachment,
		// Threads.
		searchThreads, getThread, modifyThread, labelThread, unlabelThread, applySensitiveThreadLabel,
		trashThread, untrashThread, deleteThread,
		// Labels.
		listLabels, getLabel, createLabel, updateLabel, patchLabel, deleteLabel,
		// Drafts.
		listDrafts, getDraft, createDraft, updateDraft, deleteDraft, sendDraft,
		// History.
		listHistory,
		// Settings.
		listFilters, getFilter, createFilter, deleteFilter,
		listForwardingAddresses, getForwardingAddress, listSendAs, getSendAs,
	})
}

// refusal is Google's answer to a credential it does not accept, for every
// data-plane refusal on the REST surface: 401 UNAUTHENTICATED, which
// neither googleapis nor the Go client retries (an access token without a
// refresh token is not refreshed).
func refusal(string) *twins.Error {
	return twins.Errorf(twins.Unauthorized, "authError", "")
}

// RESTError renders an error as Google does: status, google.rpc status name
// and a reason in errors[].
func RESTError(e *twins.Error) (int, any) {
	status, name, reason := http.StatusInternalServerError, "INTERNAL", "backendError"
	msg := e.Message
	switch e.Code {
	case twins.NotFound:
		status, name, reason = http.StatusNotFound, "NOT_FOUND", "notFound"
	case twins.Invalid:
		status, name, reason = http.StatusBadRequest, "INVALID_ARGUMENT", "invalidArgument"
	case twins.Unprocessable, twins.NotAllowed, twins.PaymentFailed:
		status, name, reason = http.StatusBadRequest, "FAILED_PRECONDITION", "failedPrecondition"
	case twins.Conflict:
		status, name, reason = http.StatusConflict, "ALREADY_EXISTS", "duplicate"
	case twins.Forbidden:
		status, name, reason = http.StatusForbidden, "PERMISSION_DENIED", "forbidden"
	case twins.Unauthorized:
		status, name, reason = http.StatusUnauthorized, "UNAUTHENTICATED", "authError"
		msg = "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project."
	case twins.RateLimited:
		status, name, reason = http.StatusTooManyRequests, "RESOURCE_EXHAUSTED", "rateLimitExceeded"
	case twins.TooLarge:
		status, name, reason = http.StatusRequestEntityTooLarge, "OUT_OF_RANGE", "uploadTooLarge"
	case twins.NotImplemented:
		// Google answers a method it does not know with 404 NOT_FOUND,
		// which its clients do not retry (gaxios retries a 501).
		status, name, reason = http.StatusNotFound, "NOT_FOUND", "notFound"
	}
	// Our own errors carry Google's reason; the transport's carry snake_case
	// codes of their own, which Google spells differently.
	switch v := e.Vendor; {
	case v == "invalid_json" || v == "invalid_form_data":
		reason = "parseError"
		msg = "Invalid JSON payload received. " + msg
	case v == "invalid_arguments" && strings.Contains(msg, "missing properties") && e.Field != "":
		reason = "required"
		msg = "Required parameter: " + e.Field
	case v == "invalid_arguments":
		reason = "invalid"
		if e.Field != "" {
			msg = "Invalid value at '" + e.Field + "': " + msg
		}
	case v != "" && !strings.Contains(v, "_"):
		reason = v
	}
	if msg == "" {
		msg = http.StatusText(status)
	}
	body := map[string]any{"error": map[string]any{
		"code":    status,
		"message": msg,
		"errors":  []map[string]any{{"message": msg, "domain": "global", "reason": reason}},
		"status":  name,
	}}
	if u, ok := twins.UnsupportedOf(e); ok {
		body[twins.UnsupportedKey] = u
	}
	return status, body
}
