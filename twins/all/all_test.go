package all

import (
	"testing"

	"github.com/pomehq/pome/twins/twinstest"
)

// TestEveryTwinFollowsTheRules walks all actions of all twins.
func TestEveryTwinFollowsTheRules(t *testing.T) {
	reg := Registry()
	if got := reg.Names(); len(got) != 5 {
		t.Fatalf("twins: %v", got)
	}
	for _, tw := range reg.All() {
		t.Run(tw.Name, func(t *testing.T) {
			twinstest.Rules(t, tw)
			if tw.RESTError == nil || tw.TokenPrefix == "" || tw.NewWorld == nil || tw.DecodeWorld == nil {
				t.Fatalf("%s lacks a vendor convention", tw.Name)
			}
			// The default world must build and survive a JSON round trip.
			w := twinstest.World(t, tw, "")
			if w == nil {
				t.Fatal("nil default world")
			}
		})
	}
}

// TestSeedExamples builds every twin's published seed example, so that
// `pome twins TWIN --seed-example` never prints a seed the twin refuses.
func TestSeedExamples(t *testing.T) {
	for _, tw := range Registry().All() {
		if tw.SeedExample == "" {
			continue
		}
		t.Run(tw.Name, func(t *testing.T) {
			twinstest.World(t, tw, tw.SeedExample)
		})
	}
}
