package slack

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/pomehq/pome/twins"
	"github.com/pomehq/pome/twins/twinstest"
)

var tw = New()

// world builds a world from a seed ("" for the default world).
func world(t *testing.T, seed string) *World {
	t.Helper()
	return twinstest.World(t, tw, seed).(*World)
}

// call runs an action and, when it fails, checks that the world is
// untouched and the call is not a mutation.
func call(t *testing.T, w *World, name, args string) twinstest.Result {
	t.Helper()
	before, _ := json.Marshal(w)
	r := twinstest.Call(t, tw, w, name, args)
	if r.Err != nil {
		after, _ := json.Marshal(w)
		if string(before) != string(after) {
			t.Errorf("%s(%s) failed with %v but changed the world", name, args, r.Err)
		}
		if r.Mutated {
			t.Errorf("%s(%s) failed but reads as a mutation", name, args)
		}
	}
	return r
}

func mustCall(t *testing.T, w *World, name, args string) twinstest.Result {
	t.Helper()
	r := call(t, w, name, args)
	if r.Err != nil {
		t.Fatalf("%s(%s): %v", name, args, r.Err)
	}
	return r
}

// wantErr asserts a Slack error string.
func wantErr(t *testing.T, r twinstest.Result, vendor string) {
	t.Helper()
	if r.Err == nil {
		t.Fatalf("want error %s, got success %+v", vendor, r.Out)
	}
	if r.Err.Vendor != vendor {
		t.Fatalf("want error %s, got %s (%v)", vendor, r.Err.Vendor, r.Err)
	}
}

// decode turns an output into a generic JSON value.
func decode(t *testing.T, v any) map[string]any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// clone deep-copies a world through JSON, as the Redis store does.
func clone(t *testing.T, w *World) *World {
	t.Helper()
	b, err := json.Marshal(w)
	if err != nil {
		t.Fatal(err)
	}
	out, err := tw.DecodeWorld(b)
	if err != nil {
		t.Fatal(err)
	}
	return out.(*World)
}

func eval(t *testing.T, id string, seed, final *World, args map[string]string) twins.Result {
	t.Helper()
	c, ok := tw.Check(id)
	if !ok {
		t.Fatalf("no check %s", id)
	}
	var s any
	if seed != nil {
		s = seed
	}
	r, err := c.Evaluate(&twins.Input{Twin: tw, Seed: s, Final: final}, args)
	if err != nil {
		t.Fatalf("%s: %v", id, err)
	}
	return r
}

func ch(t *testing.T, w *World, name string) *Channel {
	t.Helper()
	c := w.channelRef(name)
	if c == nil {
		t.Fatalf("no channel %s", name)
	}
	return c
}

var _ = context.Background
var _ = reflect.DeepEqual
var _ = strings.Contains
