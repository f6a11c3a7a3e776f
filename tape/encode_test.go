package tape

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"net/url"
	"testing"
	"time"
	"unicode/utf8"
)

var tricky = []string{"", "plain", `q"uo\te`, "line\nbreak\r\ttab\b\f", "<html>&amp;</html>", "\u2028\u2029", "ünïcødé 日本", "\x00\x1f\x7f", "bad\xffutf8\xc3", "emoji 🎉"}

func randomRow(rng *rand.Rand) Row {
	pick := func() string { return tricky[rng.IntN(len(tricky))] }
	tool := pick()
	r := Row{
		Seq: rng.Int64N(1 << 40), At: time.Unix(rng.Int64N(1<<33), rng.Int64N(1e9)).UTC(),
		SessionID: pick(), Twin: pick(), Transport: pick(), Method: pick(), Path: pick(),
		Status: rng.IntN(600), StateMutation: rng.IntN(2) == 0, LatencyUS: rng.Int64N(1 << 30),
		Request: Request{Query: map[string]string{}, Headers: map[string]string{pick(): pick(), pick(): pick()}},
	}
	if rng.IntN(2) == 0 {
		r.Tool = &tool
	}
	if rng.IntN(2) == 0 {
		r.MCPMethod = pick()
	}
	if rng.IntN(3) > 0 {
		r.Request.Query[pick()] = pick()
	}
	if rng.IntN(4) == 0 {
		r.Request.Query = nil
	}
	bodies := []string{``, `{"a":1,"b":[true,null,"x"]}`, `"just a string"`, "{\"pretty\": {\n  \"x\": 1\n}}", `[1,2,3]`}
	if body := bodies[rng.IntN(len(bodies))]; body != "" {
		r.Request.Body = json.RawMessage(body)
	}
	if body := bodies[rng.IntN(len(bodies))]; body != "" {
		r.Response.Body = json.RawMessage(body)
	}
	if rng.IntN(2) == 0 {
		r.StateDelta = json.RawMessage(`[{"op":"added","path":"/repos/0/issues/1","after":{"n":2}}]`)
	}
	return r
}

// TestAppendJSONMatchesMarshal: the hand-written encoder must be
// indistinguishable from encoding/json for every row.
func TestAppendJSONMatchesMarshal(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 5000; i++ {
		r := randomRow(rng)
		want, err := json.Marshal(&r)
		if err != nil {
			t.Fatal(err)
		}
		got := r.AppendJSON(nil)
		if string(got) != string(want) {
			t.Fatalf("row %d:\n got %s\nwant %s", i, got, want)
		}
	}
}

// TestAppendJSONSplit: the parts joined are AppendJSON's encoding; a body
// written as it is is left out and handed back as the row's own slice, any
// other is written into the encoding.
func TestAppendJSONSplit(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	bodies := []string{"", `{"id":1}`, "{\n \"id\": 1\n}", "{\"a\":\"\xff\"}", "[1,\r2]", `"x"`}
	for i := 0; i < 2000; i++ {
		r := randomRow(rng)
		if b := bodies[rng.IntN(len(bodies))]; b != "" {
			r.Response.Body = json.RawMessage(b)
		} else {
			r.Response.Body = nil
		}
		want := r.AppendJSON(nil)
		prefix := []byte("scratch:")
		enc, body, cut := r.AppendJSONSplit(prefix)
		got := append(append(append([]byte(nil), enc[:cut]...), body...), enc[cut:]...)
		if body == nil {
			got = enc
		}
		if string(got) != "scratch:"+string(want) {
			t.Fatalf("row %d (body %q):\n got %s\nwant scratch:%s", i, r.Response.Body, got, want)
		}
		shared := len(r.Response.Body) > 0 && !bytes.ContainsAny(r.Response.Body, "\r\n") && utf8.Valid(r.Response.Body)
		if shared != (body != nil) {
			t.Fatalf("row %d: body %q left out: %v, want %v", i, r.Response.Body, body != nil, shared)
		}
		if shared && &body[0] != &r.Response.Body[0] {
			t.Fatalf("row %d: the body left out is a copy", i)
		}
	}
}

func FuzzAppendString(f *testing.F) {
	for _, s := range tricky {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, _ := json.Marshal(s)
		if got := appendString(nil, s); string(got) != string(want) {
			t.Fatalf("%q: got %s want %s", s, got, want)
		}
	})
}

func BenchmarkRowAppendJSON(b *testing.B) {
	r := randomRow(rand.New(rand.NewPCG(3, 4)))
	r.Response.Body = json.RawMessage(`{"id":9,"number":1,"title":"500 error on POST /orders after deploy","body":"` + string(make([]byte, 0)) + `x","labels":[],"assignees":[],"comments":0}`)
	buf := make([]byte, 0, 4096)
	for b.Loop() {
		buf = r.AppendJSON(buf[:0])
	}
}

func BenchmarkRowMarshal(b *testing.B) {
	r := randomRow(rand.New(rand.NewPCG(3, 4)))
	r.Response.Body = json.RawMessage(`{"id":9,"number":1,"title":"500 error on POST /orders after deploy","body":"x","labels":[],"assignees":[],"comments":0}`)
	for b.Loop() {
		json.Marshal(&r)
	}
}

// formJSONByMap is how forms were written for the tape before FormJSON:
// a map of generic values through encoding/json.
func formJSONByMap(form map[string][]string) []byte {
	m := make(map[string]any, len(form))
	for k, vs := range form {
		if IsSecretField(k) {
			m[k] = Redacted
		} else if len(vs) == 1 {
			m[k] = vs[0]
		} else {
			m[k] = vs
		}
	}
	out, _ := json.Marshal(m)
	return out
}

// FuzzFormJSON: FormJSON writes what encoding/json wrote for the same
// form, for any keys and values (HTML, invalid UTF-8, secrets, repeats).
func FuzzFormJSON(f *testing.F) {
	f.Add("email=a%40b.c&name=A+%3Cb%3E&metadata%5Bk%5D=v&expand%5B%5D=x&expand%5B%5D=y&card%5Bcvc%5D=123&password=p")
	f.Add("a=&b&=c&%FF=%FE&token=t&token=u")
	f.Fuzz(func(t *testing.T, body string) {
		form, err := url.ParseQuery(body)
		if err != nil {
			return
		}
		if got, want := FormJSON(form), formJSONByMap(form); !bytes.Equal(got, want) {
			t.Fatalf("%q: got %s want %s", body, got, want)
		}
	})
}

// TestFormJSONEdges: an empty form, a key with no values, a secret with
// several values.
func TestFormJSONEdges(t *testing.T) {
	for _, form := range []map[string][]string{{}, {"a": nil}, {"a": {}}, {"password": {"x", "y"}}, {"<k>": {"\u2028", "&"}}} {
		if got, want := FormJSON(form), formJSONByMap(form); !bytes.Equal(got, want) {
			t.Fatalf("%v: got %s want %s", form, got, want)
		}
	}
}
