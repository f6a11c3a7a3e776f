package mcpserver

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestEncodeToolResultIsMarshal: the hand-built encoding is byte for byte
// what json.Marshal gives, for results and for their tape form.
func TestEncodeToolResultIsMarshal(t *testing.T) {
	outputs := []string{
		`{}`, `{"a":1}`, `[1,2,3]`, `"plain"`, `null`,
		`{"html":"\u003cb\u003e \u0026 \u003c/b\u003e","line":"\u2028\u2029","emoji":"😀","esc":"\"\\\n\t"}`,
		`{"nested":{"deep":[{"x":"y"}]},"n":1.5e3}`,
	}
	texts := []string{"", "not found", "<script>&amp;</script>", "bad \xff utf-8", "tab\tnewline\n", "\u2028"}
	var cases []toolOutput
	for _, o := range outputs {
		var out any
		if err := json.Unmarshal([]byte(o), &out); err != nil {
			t.Fatal(err)
		}
		text, err := json.Marshal(out)
		if err != nil {
			t.Fatal(err)
		}
		cases = append(cases, toolOutput{text: text, marshalled: true}, toolOutput{text: text, marshalled: true, isError: true})
		if text[0] == '{' {
			cases = append(cases, toolOutput{text: text, marshalled: true, structured: true})
		}
	}
	for _, s := range texts {
		cases = append(cases, toolOutput{text: []byte(s), isError: true})
	}
	prefix := []byte(`{"jsonrpc":"2.0","id":1,"result":`)
	for _, o := range cases {
		res := o.result()
		want, err := json.Marshal(res)
		if err != nil {
			t.Fatal(err)
		}
		cp := *res
		cp.StructuredContent = nil
		wantTaped, _ := json.Marshal(map[string]any{"result": &cp})

		// From the output, after a prefix, as the fast path builds it.
		got, content := appendToolResult(bytes.Clone(prefix), o, nil, false)
		if !bytes.HasPrefix(got, prefix) || !bytes.Equal(got[len(prefix):], want) {
			t.Fatalf("appended:\n got %s\nwant %s%s", got, prefix, want)
		}
		if taped := tapedResult(content, o.isError); !bytes.Equal(taped, wantTaped) {
			t.Fatalf("taped:\n got %s\nwant %s", taped, wantTaped)
		}

		// From the SDK's result, as the SDK's path tapes it.
		got, gotTaped, ok := encodeToolResult(res)
		if !ok {
			t.Fatalf("%+v: not encoded", res)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("result:\n got %s\nwant %s", got, want)
		}
		if !bytes.Equal(gotTaped, wantTaped) {
			t.Fatalf("taped:\n got %s\nwant %s", gotTaped, wantTaped)
		}
	}
	// Anything else is left to json.Marshal.
	for _, res := range []*mcp.CallToolResult{
		nil,
		{Content: nil},
		{Content: []mcp.Content{&mcp.TextContent{Text: "a"}, &mcp.TextContent{Text: "b"}}},
		{Content: []mcp.Content{&mcp.ImageContent{Data: []byte("x"), MIMEType: "image/png"}}},
		{Content: []mcp.Content{&mcp.TextContent{Text: "a", Meta: mcp.Meta{"k": "v"}}}},
		{Content: []mcp.Content{&mcp.TextContent{Text: "a"}}, Meta: mcp.Meta{"k": "v"}},
		{Content: []mcp.Content{&mcp.TextContent{Text: `{"a":1}`}}, StructuredContent: map[string]any{"a": 1}},
		{Content: []mcp.Content{&mcp.TextContent{Text: `{"a":1}`}}, StructuredContent: json.RawMessage(`{"a":2}`)},
	} {
		if _, _, ok := encodeToolResult(res); ok {
			t.Fatalf("%+v: encoded by hand, want json.Marshal", res)
		}
	}
}

// TestEncodeCallRequestIsMarshal: the tape's request body of a call, built
// by hand, is byte for byte what marshalling the request gives, _meta
// included.
func TestEncodeCallRequestIsMarshal(t *testing.T) {
	for _, c := range []struct {
		name, args, meta string
		handBuilt        bool
	}{
		{"issue_read", `{"owner":"acme"}`, `{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"roots":{"listChanged":true}},"io.modelcontextprotocol/clientInfo":{"version":"1","name":"a<b>"}}`, true},
		{"issue_read", `{"owner":"acme"}`, `{"progressToken":12345678901,"z":[1,"\u2028"],"a":{"y":null,"b":1.50}}`, true},
		{"issue_read", `{"owner":"acme"}`, `{}`, true},
		{"issue_read", `{"owner":"<acme>"}`, `{"progressToken":1}`, false},
		{"issue_read", `{"method":"get","owner":"acme","repo":"api","issue_number":1}`, "", true},
		{"issue_read", "{ \"owner\" : \"acme\",\n\t\"n\": [1, 2.5e3, null, true] }", "", true},
		{"slack_post_message", `{"text":"😀 caf\u00e9 \"quoted\" \\ back"}`, "", true},
		{"weird \"name\"", `{}`, "", true},
		{"x", `null`, "", true},
		{"x", ``, "", true},
		{"x", `{"html":"<b>"}`, "", false},
		{"x", `{"amp":"a & b"}`, "", false},
		{"x", "{\"sep\":\"\u2028\"}", "", false},
		{"x", `{"broken":`, "", false},
	} {
		var meta json.RawMessage
		params := &mcp.CallToolParamsRaw{Name: c.name, Arguments: json.RawMessage(c.args)}
		if c.meta != "" {
			// As the fast path reads a _meta, and as the SDK decodes it.
			meta = readMeta(json.RawMessage(c.meta)).encoded
			if err := json.Unmarshal([]byte(c.meta), &params.Meta); err != nil {
				t.Fatal(err)
			}
		}
		got, ok := encodeCallRequest(meta, c.name, json.RawMessage(c.args))
		if ok != c.handBuilt {
			t.Fatalf("%s %s: built by hand %v, want %v", c.name, c.args, ok, c.handBuilt)
		}
		if !ok {
			continue
		}
		want, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "tools/call", "params": params})
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("%s %s:\n got %s\nwant %s", c.name, c.args, got, want)
		}
	}
}

func TestValidID(t *testing.T) {
	for id, want := range map[string]bool{
		`"abc"`: true, `""`: true, `1`: true, `0`: true, `-7`: true, `123456789012345`: true,
		`1234567890123456789`: true, `1.0`: true, `1e3`: true, `-0`: true,
		`1.5`: false, `123456789012345678901234`: false, `null`: false, `true`: false,
		`{}`: false, `[]`: false, ``: false,
	} {
		if got := validID(json.RawMessage(id)); got != want {
			t.Errorf("validID(%s) = %v, want %v", id, got, want)
		}
	}
}

// TestEncodeToolResultQuotesLikeMarshal: the quoting of a marshalled
// result's text matches json.Marshal for outputs holding every kind of
// character, including raw JSON a twin keeps (json.RawMessage, whose
// invalid UTF-8 json.Marshal passes through).
func TestEncodeToolResultQuotesLikeMarshal(t *testing.T) {
	type out struct {
		S   string          `json:"s"`
		Raw json.RawMessage `json:"raw,omitempty"`
		N   []float64       `json:"n"`
	}
	rng := rand.New(rand.NewPCG(3, 4))
	alphabet := []string{"a", "\"", "\\", "/", "<", ">", "&", "\n", "\t", "\x00", "\x1f", "\x7f", "é", "😀", "\u2028", "\u2029", "\xff", "\xc3"}
	randString := func() string {
		var b strings.Builder
		for range rng.IntN(12) {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		return b.String()
	}
	raws := []string{``, `{"k":"\u003c"}`, "{\"k\":\"\xff\"}", "[\"\u2028\", \"<&>\"]", `{"deep":{"q":"\"\\"}}`}
	for i := range 2000 {
		o := out{S: randString(), Raw: json.RawMessage(raws[i%len(raws)]), N: []float64{float64(i), 1.5}}
		text, err := json.Marshal(o)
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range []toolOutput{{text: text, marshalled: true, structured: true}, {text: text, marshalled: true}} {
			res := o.result()
			want, err := json.Marshal(res)
			if err != nil {
				t.Fatal(err)
			}
			if got, _ := appendToolResult(nil, o, nil, false); !bytes.Equal(got, want) {
				t.Fatalf("%q:\n got %s\nwant %s", text, got, want)
			}
			if got, _, ok := encodeToolResult(res); !ok || !bytes.Equal(got, want) {
				t.Fatalf("%q: from the result:\n got %s\nwant %s", text, got, want)
			}
		}
	}
}

// TestAppendToolResultWithResource: a text and an embedded resource (a
// file's contents) are encoded by the fast path as json.Marshal encodes
// the SDK's result, and taped the same way.
func TestAppendToolResultWithResource(t *testing.T) {
	for _, rc := range []*mcp.ResourceContents{
		{URI: "repo://acme/api/sha/abc/contents/README.md", MIMEType: "text/plain; charset=utf-8", Text: "# api\n<&>\u2028"},
		{URI: "repo://acme/api/sha/abc/contents/logo.png", MIMEType: "image/png", Blob: []byte{0x89, 'P', 'N', 'G', 0}},
	} {
		o := toolOutput{text: []byte("successfully downloaded text file (SHA: abc)"), resource: rc}
		res := o.result()
		want, err := json.Marshal(res)
		if err != nil {
			t.Fatal(err)
		}
		wantTaped, _ := json.Marshal(map[string]any{"result": res})
		got, content := appendToolResult(nil, o, nil, false)
		if !bytes.Equal(got, want) {
			t.Fatalf("appended:\n got %s\nwant %s", got, want)
		}
		if taped := tapedResult(content, false); !bytes.Equal(taped, wantTaped) {
			t.Fatalf("taped:\n got %s\nwant %s", taped, wantTaped)
		}
	}
}
