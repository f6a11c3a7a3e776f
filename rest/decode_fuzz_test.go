package rest

import (
	"context"
	"encoding/json"
	"hash/fnv"
	"net/url"
	"reflect"
	"testing"

	"github.com/pomehq/pome/twins"
	"github.com/pomehq/pome/twins/all"
	"github.com/pomehq/pome/twins/twinstest"
)

// fuzzRegistry is built once: the twins are package-level data and
// read-only once finished.
var fuzzRegistry = all.Registry()

// pick returns the named twin and action, or, for names the fuzzer made up,
// a deterministic choice, so that mutated names still reach every action.
func pick(twinName, actionName string, bindingIdx uint8) (*twins.Twin, twins.Action, twins.Binding, bool) {
	list := fuzzRegistry.All()
	tw, ok := fuzzRegistry.Get(twinName)
	if !ok {
		tw = list[len(twinName)%len(list)]
	}
	a, ok := tw.Action(actionName)
	if !ok {
		h := fnv.New32a()
		h.Write([]byte(actionName))
		a = tw.Actions[int(h.Sum32()%uint32(len(tw.Actions)))]
	}
	bs := a.Spec().Bindings
	if len(bs) == 0 {
		return nil, nil, twins.Binding{}, false
	}
	return tw, a, bs[int(bindingIdx)%len(bs)], true
}

// pathDefaults are path parameter values that reach the handlers' real work
// in the default worlds (acme/api, issue #1, the "me" mailbox).
var pathDefaults = map[string]string{"owner": "acme", "repo": "api", "userId": "me", "path": "README.md"}

// FuzzBuildInput drives the one REST decoder with arbitrary content types,
// query strings and bodies for every binding of every twin: JSON, forms,
// Stripe's bracket-nested forms, multipart, and Slack's query+form+JSON mix.
// It must never panic; it refuses only with Invalid; what it accepts is a
// JSON object that the action's own decoder either accepts or refuses with
// Invalid; and the handler run on the result never panics, never fails with
// Internal, and changes nothing when it refuses.
func FuzzBuildInput(f *testing.F) {
	seeds := []struct {
		twin, action string
		binding      uint8
		ct, query    string
		body         string
	}{
		{"github", "issue_write", 0, "application/json", "", `{"title":"Crash on save","body":"steps","labels":["bug"],"assignees":["alice"]}`},
		{"github", "issue_write", 1, "application/json", "", `{"state":"closed","state_reason":"completed","issue_number":1}`},
		{"github", "list_issues", 0, "", "state=all&labels=bug,feature&per_page=5&page=2", ``},
		{"github", "get_file_contents", 0, "", "ref=main", ``},
		{"github", "create_or_update_file", 0, "application/json", "", `{"message":"m","content":"aGVsbG8=","branch":"main"}`},
		{"github", "add_issue_comment", 0, "", "", `{"body":"` + "\xff\xfe" + `"}`},
		{"slack", "slack_send_message", 0, "application/x-www-form-urlencoded", "", `token=xoxb-1&channel=C0GENERAL&text=hello&unfurl_links=true`},
		{"slack", "slack_send_message", 0, "application/json; charset=utf-8", "token=xoxb-1", `{"channel":"general","text":"hi","blocks":[{"type":"section"}]}`},
		{"slack", "slack_send_message", 1, "", "channel=general&text=via+query", ``},
		{"slack", "slack_upload_file", 0, "multipart/form-data; boundary=XyZ", "", "--XyZ\r\nContent-Disposition: form-data; name=\"channels\"\r\n\r\ngeneral\r\n--XyZ\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.txt\"\r\nContent-Type: text/plain\r\n\r\nhello\r\n--XyZ--\r\n"},
		{"slack", "slack_add_reaction", 0, "application/x-www-form-urlencoded", "", `channel=general&name=thumbsup&timestamp=1.000`},
		{"stripe", "create_payment_intent", 0, "application/x-www-form-urlencoded", "", `amount=2000&currency=usd&metadata[order_id]=6735&payment_method_types[]=card&payment_method_types[]=link`},
		{"stripe", "create_customer", 0, "application/x-www-form-urlencoded", "", `email=bob%40example.com&name=Bob&address[line1]=1+Main&metadata[0][k]=v&expand[0]=x`},
		{"stripe", "create_customer", 0, "application/x-www-form-urlencoded", "", `a[b][c][d][e]=1&a[b]=2&a[]=3`},
		{"stripe", "create_refund", 0, "application/x-www-form-urlencoded", "", `payment_intent=pi_123&amount=-5`},
		{"gmail", "send_message", 0, "application/json", "", `{"raw":"VG86IGFsaWNlQGFjbWUudGVzdA0KU3ViamVjdDogaGkNCg0KYm9keQ=="}`},
		{"gmail", "send_message", 1, "message/rfc822", "uploadType=media", "To: alice@acme.test\r\nSubject: hi\r\n\r\nbody"},
		{"gmail", "list_messages", 0, "", "q=from:alice&maxResults=abc&labelIds=INBOX&labelIds=UNREAD", ``},
		{"gmail", "get_message", 0, "", "format=raw", ``},
	}
	for _, s := range seeds {
		f.Add(s.twin, s.action, s.binding, s.ct, s.query, []byte(s.body))
	}
	worlds := map[string][]byte{}
	for _, tw := range fuzzRegistry.All() {
		w, err := tw.NewWorld(twins.WithEnv(context.Background(), twinstest.Env(tw.Name)), nil)
		if err != nil {
			f.Fatal(err)
		}
		doc, _ := json.Marshal(w)
		worlds[tw.Name] = doc
	}
	f.Fuzz(func(t *testing.T, twinName, actionName string, bindingIdx uint8, ct, rawQuery string, body []byte) {
		tw, a, b, ok := pick(twinName, actionName, bindingIdx)
		if !ok {
			return
		}
		query, err := url.ParseQuery(rawQuery)
		if err != nil {
			return // net/http would have parsed what it could; not the decoder's input
		}
		var vars pathVars
		for _, p := range b.PathParams() {
			v, ok := pathDefaults[p]
			if !ok {
				v = "1"
			}
			if q := query.Get(p); q != "" {
				v = q
			}
			vars = append(vars, pathVar{p, v})
		}
		args, err := buildInput(tw, a, b, request{vars: vars, query: query, contentType: ct, body: body})
		if err != nil {
			if e := twins.AsError(err); e.Code != twins.Invalid {
				t.Fatalf("%s/%s: refused with %s, want invalid: %v", tw.Name, a.Name(), e.Code, err)
			}
			return
		}
		text, err := json.Marshal(args)
		if err != nil {
			t.Fatalf("%s/%s: arguments do not encode: %v", tw.Name, a.Name(), err)
		}
		var obj map[string]any
		if err := json.Unmarshal(text, &obj); err != nil {
			t.Fatalf("%s/%s: arguments are not a JSON object: %s", tw.Name, a.Name(), text)
		}
		// The map and its JSON must decode alike: DecodeMap is Decode
		// without the round trip.
		want, wantErr := a.Decode(text)
		in, err := a.DecodeMap(args)
		if !sameDecode(in, err, want, wantErr) {
			t.Fatalf("%s/%s(%s): DecodeMap gives (%#v, %v), Decode (%#v, %v)", tw.Name, a.Name(), text, in, err, want, wantErr)
		}
		if err != nil {
			if e := twins.AsError(err); e.Code != twins.Invalid {
				t.Fatalf("%s/%s: decode refused with %s, want invalid: %v", tw.Name, a.Name(), e.Code, err)
			}
			return
		}
		world, err := tw.DecodeWorld(worlds[tw.Name])
		if err != nil {
			t.Fatal(err)
		}
		ctx, call := twins.WithCall(twins.WithEnv(context.Background(), twinstest.Env(tw.Name)))
		ctx = twins.WithTransport(ctx, twins.TransportREST)
		_, err = a.Run(ctx, world, in)
		after, merr := json.Marshal(world)
		if merr != nil {
			t.Fatalf("%s/%s: world no longer marshals: %v", tw.Name, a.Name(), merr)
		}
		if err == nil {
			return
		}
		if e := twins.AsError(err); e.Code == twins.Internal {
			t.Fatalf("%s/%s(%s): internal error on client input: %v", tw.Name, a.Name(), text, err)
		}
		if !call.Mutated() && string(after) != string(worlds[tw.Name]) {
			t.Fatalf("%s/%s(%s): refused (%v) but changed the world", tw.Name, a.Name(), text, err)
		}
	})
}

// sameDecode reports whether two decodes agree: the same typed input, or
// the same refusal (code, vendor code, message, field).
func sameDecode(in any, err error, want any, wantErr error) bool {
	if (err == nil) != (wantErr == nil) {
		return false
	}
	if err != nil {
		e, w := twins.AsError(err), twins.AsError(wantErr)
		return e.Code == w.Code && e.Vendor == w.Vendor && e.Message == w.Message && e.Field == w.Field
	}
	return reflect.DeepEqual(in, want)
}
