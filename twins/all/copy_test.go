package all

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/pomehq/pome/twins"
	"github.com/pomehq/pome/twins/twinstest"
)

// TestEveryTwinCopiesWorlds: every twin has a CopyWorld (the Redis store
// copies a world for each write), and it copies the default world as
// decoding its document would.
func TestEveryTwinCopiesWorlds(t *testing.T) {
	for _, tw := range Registry().All() {
		if tw.CopyWorld == nil {
			t.Errorf("%s: no CopyWorld; a write on Redis would decode the whole world", tw.Name)
			continue
		}
		w := twinstest.World(t, tw, "")
		doc, err := json.Marshal(w)
		if err != nil {
			t.Fatal(err)
		}
		twinstest.CheckCopy(t, tw, w, doc)
	}
}

// BenchmarkCopyWorld: what a write on Redis pays for its private copy of a
// twin's world, copied (CopyWorld) against decoded from its document
// (DecodeWorld): the default world, and GitHub's with 100 and 1,000
// comments on its first issue.
//
//	go test -run '^$' -bench CopyWorld -benchmem ./twins/all/
func BenchmarkCopyWorld(b *testing.B) {
	reg := Registry()
	type world struct {
		name string
		tw   *twins.Twin
		w    any
	}
	var worlds []world
	for _, tw := range reg.All() {
		worlds = append(worlds, world{tw.Name, tw, twinstest.World(b, tw, "")})
	}
	gh, _ := reg.Get("github")
	for _, n := range []int{100, 1000} {
		w := twinstest.World(b, gh, "")
		for i := range n {
			twinstest.MustCall(b, gh, w, "add_issue_comment", fmt.Sprintf(`{"owner":"acme","repo":"api","issue_number":1,"body":"comment %d"}`, i))
		}
		worlds = append(worlds, world{fmt.Sprintf("github+%d", n), gh, w})
	}
	for _, w := range worlds {
		doc, err := json.Marshal(w.w)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(w.name+"/decode", func(b *testing.B) {
			b.SetBytes(int64(len(doc)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := w.tw.DecodeWorld(doc); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(w.name+"/copy", func(b *testing.B) {
			b.SetBytes(int64(len(doc)))
			b.ReportAllocs()
			for b.Loop() {
				w.tw.CopyWorld(w.w)
			}
		})
	}
}
