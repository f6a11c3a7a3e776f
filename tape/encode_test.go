package tape

import (
	"encoding/json"
	"math/rand/v2"
	"testing"
	"time"
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
