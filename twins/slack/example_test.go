package slack

import (
	"encoding/json"
	"reflect"
	"sort"
	"strings"
	"testing"
)

func TestSeedExampleLoads(t *testing.T) {
	w := world(t, SeedExample)
	if w.Team.ID != "T0HARBOR1" || w.Team.EmailDomain != "harbor.test" || w.me().Name != "pome-agent" {
		t.Errorf("team %+v, me %+v", w.Team, w.me())
	}
	d := ch(t, w, "dispatch")
	if len(d.Messages) != 4 || len(d.Pins) != 1 || len(d.Bookmarks) != 1 || !d.IsGeneral {
		t.Errorf("dispatch = %+v", d)
	}
	if w.file("F0MANIFEST") == nil || w.Emoji["lift"] != "alias:forklift" || len(w.Channels) != 5 {
		t.Errorf("files %+v, emoji %v", w.Files, w.Emoji)
	}
	if tw.SeedExample != SeedExample {
		t.Error("the twin does not carry the example")
	}
}

// seedKeys lists the key paths a seed type defines ("users[].profile.title");
// an object of names is "{}". A type nested in itself (a message's
// replies) is listed once, at its first place.
func seedKeys(t reflect.Type, prefix string, out map[string]bool) {
	seedKeysIn(t, prefix, out, map[reflect.Type]bool{})
}

func seedKeysIn(t reflect.Type, prefix string, out map[string]bool, open map[reflect.Type]bool) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if open[t] {
		return
	}
	switch {
	case t == reflect.TypeFor[SeedEmoji]():
		out[prefix+"{}"] = true
		seedKeysIn(reflect.TypeFor[[]SeedEmojiEntry](), prefix, out, open)
		return
	case t == rawMessageType:
		return
	}
	switch t.Kind() {
	case reflect.Slice:
		seedKeysIn(t.Elem(), prefix+"[]", out, open)
	case reflect.Map:
		out[prefix+"{}"] = true
	case reflect.Struct:
		open[t] = true
		defer delete(open, t)
		for i := 0; i < t.NumField(); i++ {
			name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
			if name == "" || name == "-" {
				continue
			}
			p := strings.TrimPrefix(prefix+"."+name, ".")
			out[p] = true
			seedKeysIn(t.Field(i).Type, p, out, open)
		}
	}
}

// exampleKeys lists the key paths a seed document uses, in seedKeys' terms.
func exampleKeys(v any, prefix string, out map[string]bool) {
	switch x := v.(type) {
	case []any:
		for _, e := range x {
			exampleKeys(e, prefix+"[]", out)
		}
	case map[string]any:
		if prefix == "emoji" {
			out["emoji{}"] = true
			return
		}
		for k, e := range x {
			p := strings.TrimPrefix(prefix+"."+k, ".")
			out[p] = true
			switch k {
			case "blocks", "attachments":
				// Block Kit's own keys, not the seed's.
			case "replies":
				// Replies are messages; their keys count as messages' keys.
				for _, r := range e.([]any) {
					exampleKeys(r, prefix, out)
				}
			default:
				exampleKeys(e, p, out)
			}
		}
	}
}

func keysOf(t *testing.T, doc string) map[string]bool {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(doc), &v); err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	exampleKeys(v, "", out)
	return out
}

// originalKeys are the keys of the original Pome's Slack seed format.
var originalKeys = strings.Fields(`_meta _meta.version _meta.source_hash _meta.model _meta.compiled_at
	team team.id team.name team.domain
	users users[].id users[].name users[].real_name users[].email users[].is_bot users[].is_admin users[].tz users[].profile
	channels channels[].id channels[].name channels[].is_private channels[].topic channels[].purpose channels[].creator
	channels[].members channels[].messages channels[].messages[].ts channels[].messages[].user channels[].messages[].text
	channels[].messages[].thread_ts channels[].messages[].reactions channels[].messages[].reactions[].name
	channels[].messages[].reactions[].user
	files files[].id files[].name files[].title files[].filetype files[].user files[].channels files[].content
	emoji emoji[].name emoji[].url emoji[].alias`)

// TestSeedExamplesAreComplete: between them the two examples use every key
// the seed format defines, and the original-format one uses exactly the
// original's keys, every one of them.
func TestSeedExamplesAreComplete(t *testing.T) {
	defined := map[string]bool{}
	seedKeys(reflect.TypeFor[Seed](), "", defined)
	ours, orig := keysOf(t, SeedExample), keysOf(t, SeedExampleOriginal)
	var missing []string
	for k := range defined {
		if !ours[k] && !orig[k] {
			missing = append(missing, k)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("no example uses %v", missing)
	}
	want := map[string]bool{}
	for _, k := range originalKeys {
		want[k] = true
		if !orig[k] {
			t.Errorf("SeedExampleOriginal lacks %s", k)
		}
	}
	for k := range orig {
		if !want[k] && !strings.HasPrefix(k, "users[].profile.") {
			t.Errorf("SeedExampleOriginal uses %s, which the original's format does not have", k)
		}
	}
}
