package rest

import (
	"encoding/json"
	"math"
	"testing"
)

// TestArgValueKeepsTheJSON holds argValue to its promise: the value it
// hands the action encodes to the JSON the value it was given encodes to,
// and is generic wherever a generic value does.
func TestArgValueKeepsTheJSON(t *testing.T) {
	for _, v := range []any{
		"plain", "bad \xff utf-8 \xfe", int64(7), int64(1 << 53), int64(1<<53 + 1), int64(-1 << 62),
		[]string{"a", "b"}, []string{"ok", "\xff"}, []any(nil), map[string]any(nil), 1.5, true, nil,
		map[string]any{"n": int64(3), "list": []string{"x"}, "deep": map[string]any{"\xffkey": "v"}},
		[]any{int64(1), []string{"y"}, map[string]any{"k": int64(1 << 60)}},
		json.RawMessage(`{ "b" : 1, "a" : "1.0" }`), 3, []int{1, 2},
	} {
		want, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		g, err := argValue(copyArg(v))
		if err != nil {
			t.Fatalf("%#v: %v", v, err)
		}
		got, err := json.Marshal(g)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Errorf("%#v: encodes as %s, was %s", v, got, want)
		}
	}
	for _, v := range []any{math.NaN(), math.Inf(1), map[string]any{"a": math.Inf(-1)}} {
		_, want := json.Marshal(v)
		if _, err := argValue(v); err == nil || err.Error() != want.Error() {
			t.Errorf("%v: refused with %v, want %v", v, err, want)
		}
	}
}

func copyArg(v any) any {
	switch t := v.(type) {
	case map[string]any:
		if t == nil {
			return t
		}
		out := map[string]any{}
		for k, e := range t {
			out[k] = copyArg(e)
		}
		return out
	case []any:
		if t == nil {
			return t
		}
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = copyArg(e)
		}
		return out
	}
	return v
}
