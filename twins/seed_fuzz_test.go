package twins

import (
	"encoding/json"
	"errors"
	"testing"
	"time"
)

type fuzzSeedDoc struct {
	seedDoc
	When   time.Time            `json:"when,omitempty"`
	Nested map[string][]seedDoc `json:"nested,omitempty"`
	Ptr    *seedItem            `json:"ptr,omitempty"`
	Ratio  float64              `json:"ratio,omitempty"`
	Small  int8                 `json:"small,omitempty"`
	Blob   []byte               `json:"blob,omitempty"`
}

// FuzzDecodeSeed: the strict seed decoder never panics, refuses only with a
// *SeedError whose path is a JSON pointer, and accepts exactly what the
// standard decoder (with unknown fields disallowed) accepts.
func FuzzDecodeSeed(f *testing.F) {
	for _, s := range []string{
		`{"items":[{"name":"a","count":2,"tags":["x"]}],"by_key":{"k":{"name":"b"}},"flag":true,"raw":{"any":[1]}}`,
		`{"items":[{"name":"a"},{"name":"b","bogus":1}]}`,
		`{"when":"2026-12-02T15:00:00Z","nested":{"a":[{"items":[]}]},"ptr":{"name":"p"},"ratio":1.5,"small":300}`,
		`{"blob":"aGVsbG8=","items":null}`,
		`{"by_key":{"k/1":{"nom":"x"}}}`,
		`{"items":[]} trailing`,
		`[`,
		`{"small":1e400}`,
		"{\"items\":[{\"name\":\"\xff\"}]}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		var v fuzzSeedDoc
		err := DecodeSeed(json.RawMessage(raw), &v)
		if err == nil {
			return
		}
		var se *SeedError
		if !errors.As(err, &se) {
			t.Fatalf("DecodeSeed(%q) = %T %v, want *SeedError", raw, err, err)
		}
		if se.Path != "" && se.Path[0] != '/' {
			t.Fatalf("DecodeSeed(%q): path %q is not a JSON pointer", raw, se.Path)
		}
	})
}

// TestDecodeSeedTrailing: a stray closing bracket after the document is
// trailing data, not a valid seed.
func TestDecodeSeedTrailing(t *testing.T) {
	for _, doc := range []string{`{"items":[]}}`, `{"items":[]}]`, `{"items":[]} {}`, `{"items":[]} x`} {
		var v seedDoc
		var se *SeedError
		if err := DecodeSeed(json.RawMessage(doc), &v); !errors.As(err, &se) {
			t.Errorf("DecodeSeed(%s) = %v, want a SeedError", doc, err)
		}
	}
	var v seedDoc
	if err := DecodeSeed(json.RawMessage("{\"items\":[]}\n  "), &v); err != nil {
		t.Errorf("trailing whitespace refused: %v", err)
	}
}
