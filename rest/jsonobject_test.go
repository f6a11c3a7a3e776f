package rest

import (
	"bytes"
	"encoding/json"
	"maps"
	"testing"
	"unicode/utf8"
)

// objectCases are bodies objectMembers must read as encoding/json does, or
// leave to it: objects of every kind of value, spacing, repeated keys,
// escapes in keys and values, nesting with brackets inside strings, and
// text that is not an object.
var objectCases = []string{
	`{}`, ` { } `, "\t{\n}\r\n",
	`{"body":"Load test comment: looking into the 500 on POST /orders."}`,
	`{"channel":"general","text":"hi","limit":20,"unfurl":false,"x":null,"f":-1.5e+3}`,
	`{ "a" : 1 , "b" :"two",  "c":[1, {"d":"}]"}, "\"]"] ,"e":{"f":{"g":[]}} }`,
	`{"a":1,"a":2}`, `{"a":{"b":1},"a":"last"}`,
	`{"k\u00e9y":1}`, `{"k\"ey":1}`, `{"k\\":1}`,
	`{"v":"a\\\"b\"c\\\\","w":"\u2028\ud83d\ude00"}`,
	`{"emoji":"😀","ü":"é"}`,
	`{"n":0,"m":123456789012345678901234567890,"t":true}`,
	`null`, `[]`, `[{"a":1}]`, `"str"`, `1`, `true`, ``, ` `,
	`{"a":1`, `{"a":1}}`, `{"a":1} {"b":2}`, `{"a":}`, `{a:1}`, `{"a":1,}`, `{'a':1}`,
}

func TestObjectMembers(t *testing.T) {
	for _, c := range objectCases {
		checkObjectMembers(t, []byte(c))
	}
}

func FuzzObjectMembers(f *testing.F) {
	for _, c := range objectCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, body []byte) { checkObjectMembers(t, body) })
}

// checkObjectMembers: where objectMembers answers, it answers what
// json.Unmarshal does; it steps aside only for text Unmarshal refuses, or
// does not make a map of, or keys written with escapes.
func checkObjectMembers(t *testing.T, body []byte) {
	t.Helper()
	// Read from a copy, cleared after: the values must be copies, since
	// the body goes on to other uses.
	own := bytes.Clone(body)
	got, ok := objectMembers(own)
	clear(own)
	var want map[string]json.RawMessage
	err := json.Unmarshal(body, &want)
	if !ok {
		if err == nil && want != nil && !keyEscaped(body) {
			t.Errorf("%q: objectMembers stepped aside from an object encoding/json reads as %v", body, want)
		}
		return
	}
	if err != nil || want == nil {
		t.Fatalf("%q: objectMembers read %v where encoding/json says %v, %v", body, got, want, err)
	}
	if !maps.EqualFunc(got, want, func(a, b json.RawMessage) bool { return string(a) == string(b) }) {
		t.Fatalf("%q: objectMembers read %q, encoding/json %q", body, got, want)
	}
}

// keyEscaped reports whether body has a key with a backslash or not valid
// UTF-8; a rough test (anywhere before the last colon) is enough for the
// cases it excuses.
func keyEscaped(body []byte) bool {
	head := body[:max(bytes.LastIndexByte(body, ':'), 0)]
	return bytes.IndexByte(head, '\\') >= 0 || !utf8.Valid(head)
}
