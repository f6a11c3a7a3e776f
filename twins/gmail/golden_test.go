package gmail

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/pomehq/pome/twins"
	"github.com/pomehq/pome/twins/twinstest"
)

// sameShape reports the documented fields (want) that got lacks or types
// differently, recursing into objects and the first element of arrays.
func sameShape(path string, want, got any) []string {
	var out []string
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return []string{fmt.Sprintf("%s: want object, got %T", path, got)}
		}
		for k, wv := range w {
			gv, ok := g[k]
			if !ok {
				out = append(out, path+"/"+k+": missing")
				continue
			}
			out = append(out, sameShape(path+"/"+k, wv, gv)...)
		}
	case []any:
		g, ok := got.([]any)
		if !ok {
			return []string{fmt.Sprintf("%s: want array, got %T", path, got)}
		}
		if len(w) > 0 && len(g) > 0 {
			out = append(out, sameShape(path+"/0", w[0], g[0])...)
		}
	default:
		if fmt.Sprintf("%T", want) != fmt.Sprintf("%T", got) {
			out = append(out, fmt.Sprintf("%s: want %T, got %T", path, want, got))
		}
	}
	return out
}

// restBody is what the REST binding of an action writes.
func restBody(t *testing.T, tw *twins.Twin, w *World, action, args string) any {
	t.Helper()
	r := twinstest.MustCall(t, tw, w, action, args)
	a, _ := tw.Action(action)
	out := r.Out
	if b := a.Spec().Bindings; len(b) > 0 && b[0].Shape != nil {
		out = b[0].Shape(nil, out)
	}
	raw, _ := json.Marshal(out)
	var v any
	json.Unmarshal(raw, &v)
	return v
}

// TestGoldenShapes compares REST bodies with Gmail's documented resource
// examples (testdata/golden): every documented field present, same JSON
// type — including int64 and uint64 fields as strings.
func TestGoldenShapes(t *testing.T) {
	tw, w := fixture(t, richSeed)
	id := w.me().Messages[2].ID // the invoice with attachments
	cases := map[string]func() any{
		"message_full.json":  func() any { return restBody(t, tw, w, "get_message", `{"messageId":"`+id+`"}`) },
		"message_raw.json":   func() any { return restBody(t, tw, w, "get_message", `{"messageId":"`+id+`","format":"raw"}`) },
		"messages_list.json": func() any { return restBody(t, tw, w, "list_messages", `{"maxResults":1}`) },
		"label_get.json":     func() any { return restBody(t, tw, w, "get_label", `{"id":"Label_1"}`) },
		"draft_create.json": func() any {
			return restBody(t, tw, w, "create_draft", `{"message":{"raw":"`+b64("To: a@b.c\r\n\r\nx")+`"}}`)
		},
		"threads_list.json": func() any { return restBody(t, tw, w, "search_threads", `{"q":"receipt"}`) },
		"profile.json":      func() any { return restBody(t, tw, w, "get_profile", `{}`) },
		"history_list.json": func() any {
			start := fmtHistory(w.me().HistoryID)
			twinstest.MustCall(t, tw, w, "label_message", `{"messageId":"`+id+`","labelIds":["STARRED"]}`)
			return restBody(t, tw, w, "list_history", `{"startHistoryId":"`+start+`"}`)
		},
	}
	for name, get := range cases {
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", "golden", name))
			if err != nil {
				t.Fatal(err)
			}
			var want any
			if err := json.Unmarshal(data, &want); err != nil {
				t.Fatal(err)
			}
			got := get()
			for _, d := range sameShape("", want, got) {
				t.Error(d)
			}
			// REST bodies never carry the MCP-only fields.
			for _, k := range []string{"subject", "sender", "plaintextBody", "toRecipients", "labelId"} {
				if m, ok := got.(map[string]any); ok && m[k] != nil {
					t.Errorf("REST body has MCP field %s", k)
				}
			}
		})
	}
}
