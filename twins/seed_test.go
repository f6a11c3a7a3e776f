package twins

import (
	"encoding/json"
	"testing"
)

type seedItem struct {
	Name  string   `json:"name"`
	Count int      `json:"count,omitempty"`
	Tags  []string `json:"tags,omitempty"`
}

type seedDoc struct {
	Items []seedItem          `json:"items"`
	ByKey map[string]seedItem `json:"by_key,omitempty"`
	Flag  bool                `json:"flag,omitempty"`
	Raw   json.RawMessage     `json:"raw,omitempty"`
}

func TestDecodeSeedPaths(t *testing.T) {
	cases := []struct{ doc, path string }{
		{`{"items":[{"name":"a"},{"name":"b","bogus":1}]}`, "/items/1/bogus"},
		{`{"items":[{"name":"a","count":"x"}]}`, "/items/0/count"},
		{`{"items":[{"name":"a","count":1.5}]}`, "/items/0/count"},
		{`{"items":[{"name":"a","tags":[1]}]}`, "/items/0/tags/0"},
		{`{"items":{}}`, "/items"},
		{`{"by_key":{"k/1":{"nom":"x"}}}`, "/by_key/k~11/nom"},
		{`{"flag":"yes"}`, "/flag"},
		{`{"top":1}`, "/top"},
	}
	for _, c := range cases {
		var d seedDoc
		err := DecodeSeed(json.RawMessage(c.doc), &d)
		se, ok := err.(*SeedError)
		if !ok || se.Path != c.path {
			t.Errorf("%s: got %v, want path %s", c.doc, err, c.path)
		}
	}
	var d seedDoc
	if err := DecodeSeed(json.RawMessage(`{"items":[{"name":"a","count":2}],"raw":{"anything":[1,"x"]}}`), &d); err != nil || d.Items[0].Count != 2 {
		t.Fatalf("valid seed: %v %+v", err, d)
	}
	if err := DecodeSeed(json.RawMessage(`{"items":[]} {}`), &d); err == nil {
		t.Fatal("trailing data accepted")
	}
	if err := DecodeSeed(json.RawMessage(`{"items":[`), &d); err == nil {
		t.Fatal("broken JSON accepted")
	}
}
