package gmail

import (
	"encoding/json"
	"testing"

	"github.com/pomehq/pome/twins"
	"github.com/pomehq/pome/twins/twinstest"
)

func TestRules(t *testing.T) { twinstest.Rules(t, New()) }

func TestSchemas(t *testing.T) { twinstest.SnapshotSchemas(t, New()) }

// fixture returns the twin and a world from seed ("" for the default).
func fixture(t *testing.T, seed string) (*twins.Twin, *World) {
	t.Helper()
	tw := New()
	return tw, twinstest.World(t, tw, seed).(*World)
}

// call runs an action and returns its output as JSON.
func call(t *testing.T, tw *twins.Twin, w *World, name, args string) map[string]any {
	t.Helper()
	r := twinstest.MustCall(t, tw, w, name, args)
	return r.JSON(t)
}

// mustJSON marshals v.
func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
