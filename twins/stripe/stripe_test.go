package stripe

import (
	"encoding/json"
	"testing"

	"github.com/pomehq/pome/twins"
	"github.com/pomehq/pome/twins/twinstest"
)

func TestRules(t *testing.T) { twinstest.Rules(t, New()) }

func TestSchemas(t *testing.T) { twinstest.SnapshotSchemas(t, New()) }

// world builds a world from a seed ("" for the default world).
func world(t *testing.T, seed string) *World {
	t.Helper()
	return twinstest.World(t, New(), seed).(*World)
}

// call runs an action and returns the result.
func call(t *testing.T, w *World, name, args string) twinstest.Result {
	t.Helper()
	return twinstest.Call(t, New(), w, name, args)
}

// must runs an action that must succeed and returns its output as JSON.
func must(t *testing.T, w *World, name, args string) map[string]any {
	t.Helper()
	r := twinstest.MustCall(t, New(), w, name, args)
	return r.JSON(t)
}

// wantErr runs an action that must fail with the given class and vendor code.
func wantErr(t *testing.T, w *World, name, args string, code twins.Code, vendor string) *twins.Error {
	t.Helper()
	r := call(t, w, name, args)
	if r.Err == nil {
		t.Fatalf("%s(%s): want error %s/%s, got success %v", name, args, code, vendor, r.JSON(t))
	}
	if r.Err.Code != code || (vendor != "" && r.Err.Vendor != vendor) {
		t.Fatalf("%s(%s): want %s/%s, got %s/%s: %s", name, args, code, vendor, r.Err.Code, r.Err.Vendor, r.Err.Message)
	}
	if r.Mutated {
		t.Errorf("%s(%s): a refused call reported a mutation", name, args)
	}
	return r.Err
}

// snapshot returns the world's JSON document, to assert a refused call left
// it as it was.
func snapshot(t *testing.T, w *World) string {
	t.Helper()
	b, err := json.Marshal(w)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func eventTypes(w *World) []string {
	var out []string
	for _, e := range w.Events {
		out = append(out, e.Type)
	}
	return out
}
