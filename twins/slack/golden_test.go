package slack

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"
)

// jsonType names a decoded JSON value's type.
func jsonType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case float64:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

// sameShape reports every documented field of want that got lacks or holds
// with another JSON type.
func sameShape(path string, want, got any) []string {
	if jsonType(want) != jsonType(got) {
		return []string{fmt.Sprintf("%s: documented %s, twin %s", path, jsonType(want), jsonType(got))}
	}
	var out []string
	switch w := want.(type) {
	case map[string]any:
		g := got.(map[string]any)
		keys := make([]string, 0, len(w))
		for k := range w {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			gv, ok := g[k]
			if !ok {
				out = append(out, fmt.Sprintf("%s/%s: documented, missing from the twin", path, k))
				continue
			}
			out = append(out, sameShape(path+"/"+k, w[k], gv)...)
		}
	case []any:
		g := got.([]any)
		if len(w) > 0 {
			if len(g) == 0 {
				return []string{fmt.Sprintf("%s: documented items, twin's array is empty", path)}
			}
			out = append(out, sameShape(path+"/0", w[0], g[0])...)
		}
	}
	return out
}

// TestGoldenResponses compares the twin's responses with the examples in
// Slack's method documentation, field by field.
func TestGoldenResponses(t *testing.T) {
	w := world(t, `{"users": [{"name": "pome-agent", "is_admin": true}, {"name": "alice", "status_text": "Print is dead", "status_emoji": ":books:", "display_name": "al"}],
	  "channels": [{"name": "general", "is_general": true, "topic": "t", "purpose": "p",
	    "messages": [{"user": "alice", "text": "island", "reactions": [{"name": "grinning", "users": ["alice"]}],
	                  "replies": [{"user": "alice", "text": "one island"}, {"user": "alice", "text": "two island"}]},
	                 {"user": "alice", "text": "The meaning of life is 42.", "pinned": true},
	                 {"user": "alice", "text": "more"}]}]}`)
	gen := ch(t, w, "general")
	parent := gen.Messages[0].TS
	alice := w.user("alice").ID
	mustCall(t, w, "slack_rename_channel", `{"channel_id": "general", "name": "general-chat"}`)
	mustCall(t, w, "slack_rename_channel", `{"channel_id": "general-chat", "name": "general"}`)
	cases := map[string]struct{ action, args string }{
		"auth.test":             {"slack_auth_test", `{}`},
		"chat.postMessage":      {"slack_send_message", `{"channel_id": "general", "message": "Here's a message for you", "attachments": [{"text": "This is an attachment"}]}`},
		"chat.getPermalink":     {"slack_get_permalink", `{"channel_id": "general", "message_ts": "` + parent + `"}`},
		"conversations.history": {"slack_read_channel", `{"channel_id": "general", "limit": 1}`},
		"conversations.replies": {"slack_read_thread", `{"channel_id": "general", "message_ts": "` + parent + `", "limit": 2}`},
		"conversations.list":    {"slack_list_channels", `{"limit": 1}`},
		"conversations.info":    {"slack_get_channel_info", `{"channel_id": "general"}`},
		"users.info":            {"slack_read_user_profile", `{"user_id": "` + alice + `"}`},
		"users.list":            {"slack_list_users", `{"limit": 1}`},
		"reactions.get":         {"slack_get_reactions", `{"channel_id": "general", "message_ts": "` + parent + `"}`},
		"team.info":             {"slack_get_team_info", `{}`},
		"search.messages":       {"slack_search_public_and_private", `{"query": "meaning"}`},
		"pins.list":             {"slack_list_pins", `{"channel_id": "general"}`},
	}
	names := make([]string, 0, len(cases))
	for k := range cases {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, name := range names {
		c := cases[name]
		t.Run(name, func(t *testing.T) {
			raw, err := os.ReadFile(filepath.Join("testdata", "golden", name+".json"))
			if err != nil {
				t.Fatal(err)
			}
			var want any
			if err := json.Unmarshal(raw, &want); err != nil {
				t.Fatalf("golden %s: %v", name, err)
			}
			out := mustCall(t, w, c.action, c.args).Out
			b, _ := json.Marshal(out)
			var got any
			json.Unmarshal(b, &got)
			for _, d := range sameShape("", want, got) {
				t.Error(d)
			}
		})
	}
}
