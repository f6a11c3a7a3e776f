package all

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/pomehq/pome/twins"
	"github.com/pomehq/pome/twins/scaleseed"
	"github.com/pomehq/pome/twins/twinstest"
)

// TestEncodedSizeOfEveryWorld: twins.EncodedSize counts every twin's world
// exactly as json.Marshal encodes it: the default world, the benchmarks'
// sized worlds, and each world after every write of deltaCalls (the
// worlds of the bundled example seeds and of the fuzzer's are checked in
// FuzzNewWorld). The budgets measure worlds with it.
func TestEncodedSizeOfEveryWorld(t *testing.T) {
	reg := Registry()
	check := func(t *testing.T, what string, w any) {
		t.Helper()
		doc, err := json.Marshal(w)
		if err != nil {
			t.Fatal(err)
		}
		n, err := twins.EncodedSize(w)
		if err != nil || n != int64(len(doc)) {
			t.Fatalf("%s: EncodedSize = %d, %v; json.Marshal gives %d bytes", what, n, err, len(doc))
		}
	}
	sized := map[string]func(int) (json.RawMessage, error){
		"github": scaleseed.GitHub, "slack": scaleseed.Slack, "stripe": scaleseed.Stripe, "gmail": scaleseed.Gmail,
	}
	for _, tw := range reg.All() {
		t.Run(tw.Name, func(t *testing.T) {
			world := twinstest.World(t, tw, "")
			check(t, "default world", world)
			for _, c := range deltaCalls[tw.Name] {
				name, args, _ := bytes.Cut([]byte(c), []byte(" "))
				twinstest.Call(t, tw, world, string(name), string(args))
				check(t, "after "+c, world)
			}
			if build := sized[tw.Name]; build != nil {
				seed, err := build(200)
				if err != nil {
					t.Fatal(err)
				}
				check(t, "sized world", twinstest.World(t, tw, string(seed)))
			}
		})
	}
}

// BenchmarkWorldSize: what measuring a world against its budgets costs,
// counted (EncodedSize) against encoded (json.Encoder into a counter, the
// way it was measured before), on the Stripe world of 4,000 customers
// (half seeded, half created, so with their events) and the GitHub world
// of 2,000 issues.
//
//	go test -run '^$' -bench WorldSize -benchmem ./twins/all/
func BenchmarkWorldSize(b *testing.B) {
	reg := Registry()
	stripe, _ := reg.Get("stripe")
	seed, err := scaleseed.Stripe(2000)
	if err != nil {
		b.Fatal(err)
	}
	stripeWorld := twinstest.World(b, stripe, string(seed))
	for range 2000 {
		twinstest.Call(b, stripe, stripeWorld, "create_customer", `{"email":"x@example.com","name":"X","metadata":{"k":"v"}}`)
	}
	github, _ := reg.Get("github")
	if seed, err = scaleseed.GitHub(2000); err != nil {
		b.Fatal(err)
	}
	githubWorld := twinstest.World(b, github, string(seed))
	for _, w := range []struct {
		name  string
		world any
	}{{"stripe", stripeWorld}, {"github", githubWorld}} {
		doc, _ := json.Marshal(w.world)
		b.Run(w.name+"/counted", func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(doc)))
			for b.Loop() {
				if _, err := twins.EncodedSize(w.world); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(w.name+"/encoded", func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(doc)))
			for b.Loop() {
				var c counter
				if err := json.NewEncoder(&c).Encode(w.world); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

type counter int64

func (c *counter) Write(p []byte) (int, error) { *c += counter(len(p)); return len(p), nil }

// BenchmarkCommentedWorldSize: measuring a GitHub world that grew by its
// writes, 10 seeded issues and 1,000 comments added through the twin, as a
// server taking comments measures it (most of it comments, their times and
// their authors).
//
//	go test -run '^$' -bench CommentedWorldSize ./twins/all/
func BenchmarkCommentedWorldSize(b *testing.B) {
	github, _ := Registry().Get("github")
	seed, err := scaleseed.GitHub(10)
	if err != nil {
		b.Fatal(err)
	}
	world := twinstest.World(b, github, string(seed))
	for range 1000 {
		r := twinstest.Call(b, github, world, "add_issue_comment", `{"owner":"acme","repo":"api","issue_number":1,"body":"Looks good to me, thanks for the fix."}`)
		if r.Err != nil {
			b.Fatal(r.Err)
		}
	}
	doc, _ := json.Marshal(world)
	b.ReportAllocs()
	b.SetBytes(int64(len(doc)))
	for b.Loop() {
		if _, err := twins.EncodedSize(world); err != nil {
			b.Fatal(err)
		}
	}
}
