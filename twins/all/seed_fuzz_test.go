package all_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"regexp"
	"testing"

	"github.com/pomehq/pome/examples"
	"github.com/pomehq/pome/twins"
	"github.com/pomehq/pome/twins/all"
	"github.com/pomehq/pome/twins/twinstest"
)

var jsonFence = regexp.MustCompile("(?s)```json\n(.*?)\n```")

// exampleSeeds returns every twin seed found in the bundled example tasks:
// real seeds, the best starting points for the fuzzer.
func exampleSeeds(t testing.TB) map[string][]json.RawMessage {
	out := map[string][]json.RawMessage{}
	err := fs.WalkDir(examples.FS, "tasks", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		src, err := examples.FS.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range jsonFence.FindAllSubmatch(src, -1) {
			var bySection map[string]json.RawMessage
			if json.Unmarshal(m[1], &bySection) != nil {
				continue
			}
			for twin, seed := range bySection {
				out[twin] = append(out[twin], seed)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// FuzzNewWorld feeds arbitrary seed documents to every twin's world
// constructor, the parser behind POST /v1/sandboxes. It must never panic,
// must refuse only with a *twins.SeedError (which the control plane turns
// into a 422 naming the path), and a world it accepts must survive the JSON
// round trip the Redis store puts it through, and twins.EncodedSize must
// count its encoding exactly.
func FuzzNewWorld(f *testing.F) {
	reg := all.Registry()
	names := reg.Names()
	for twin, seeds := range exampleSeeds(f) {
		for _, s := range seeds {
			f.Add(twin, []byte(s))
		}
	}
	for _, s := range []struct{ twin, doc string }{
		{"github", `{"repos":[{"owner":"acme","name":"api","labels":[{"name":"bug"}],"issues":[{"number":1,"title":"t","labels":["bug"]}]}]}`},
		{"github", `{"repos":[{"owner":"acme","name":"api","issues":[{"number":1,"title":"t","labels":["nope"]}]}]}`},
		{"slack", `{"channels":[{"name":"general","messages":[{"user":"alice","text":"hi"}]}]}`},
		{"stripe", `{"customers":[{"id":"cus_1","email":"a@b.c"}]}`},
		{"gmail", `{"messages":[{"from":"alice@acme.test","subject":"hi","body":"x"}]}`},
		{"gmail", `{}`},
		{"slack", `null`},
		{"stripe", `[]`},
		{"github", `{"repos":[{"owner":"acme","name":"api"}]}{}`},
		{"linear", `{"teams":[{"key":"ENG","name":"E","labels":[{"name":"Bug"}]}],"issues":[{"team":"ENG","title":"t","labels":["Bug"],"comments":[{"body":"c","replies":[{"body":"r"}]}]}]}`},
		{"linear", `{"organization":{},"teams":[{"key":"ENG","name":"E"}],"issues":[{"team":"ENG","title":"t"}],"comments":[{"issue":"ENG-1","body":"b","parent":"x"}]}`},
	} {
		f.Add(s.twin, []byte(s.doc))
	}
	f.Fuzz(func(t *testing.T, twin string, seed []byte) {
		tw, ok := reg.Get(twin)
		if !ok {
			tw, _ = reg.Get(names[len(twin)%len(names)])
		}
		ctx := twins.WithEnv(context.Background(), twinstest.Env(tw.Name))
		w, err := tw.NewWorld(ctx, json.RawMessage(seed))
		if err != nil {
			var se *twins.SeedError
			if !errors.As(err, &se) {
				t.Fatalf("%s: seed %q refused with %T (%v), want *twins.SeedError", tw.Name, seed, err, err)
			}
			return
		}
		doc, err := json.Marshal(w)
		if err != nil {
			t.Fatalf("%s: accepted world does not marshal: %v", tw.Name, err)
		}
		if n, err := twins.EncodedSize(w); err != nil || n != int64(len(doc)) {
			t.Fatalf("%s: EncodedSize = %d, %v; the encoding has %d bytes", tw.Name, n, err, len(doc))
		}
		back, err := tw.DecodeWorld(doc)
		if err != nil {
			t.Fatalf("%s: accepted world does not decode back: %v", tw.Name, err)
		}
		again, _ := json.Marshal(back)
		if !bytes.Equal(doc, again) {
			t.Fatalf("%s: world changes in a JSON round trip:\n%s\n%s", tw.Name, doc, again)
		}
	})
}
