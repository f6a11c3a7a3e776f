package session

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pomehq/pome/internal/lz"
	"github.com/pomehq/pome/tape"
)

// tapeTestRow is one of many kinds of row: redacted headers and query
// fields, bodies that are not UTF-8, scrubbed credentials, state deltas,
// tool null, pretty-printed, large and empty bodies.
func tapeTestRow(rng *rand.Rand, i int) *tape.Row {
	const secret = "ghp_0123456789abcdefSECRETSECRET"
	bodies := []string{
		``,
		`{"id":` + fmt.Sprint(i) + `,"title":"500 error on POST /orders after deploy","labels":[],"comments":0}`,
		"{\"pretty\": {\n  \"x\": 1\n}}",
		`{"bad":"` + "\xff\xfe utf8 \xc3" + `","ok":"ünïcødé 日本 🎉"}`,
		`{"html":"<b>&amp;</b>","sep":"` + "\u2028\u2029" + `"}`,
		`{"token":"` + secret + `","n":` + fmt.Sprint(i) + `}`,
		`"` + strings.Repeat("x", rng.IntN(tape.MaxBodyBytes/4)+rng.IntN(2)*tape.MaxBodyBytes) + `"`,
		`[1,2,3]`,
	}
	pick := func() json.RawMessage {
		if b := bodies[rng.IntN(len(bodies))]; b != "" {
			return json.RawMessage(b)
		}
		return nil
	}
	tools := []string{"", "issue_read", "add_issue_comment", "bad\xfftool"}
	c := tape.Call{
		At:   time.Unix(1_790_000_000+int64(i), rng.Int64N(1e9)).UTC(),
		Twin: "alpha", Transport: []string{tape.TransportREST, tape.TransportMCP}[rng.IntN(2)],
		Method: []string{"GET", "POST", "PATCH"}[rng.IntN(3)],
		Path:   fmt.Sprintf("/alpha/s/ses_0123456789abcdef/repos/acme/api/issues/%d", rng.IntN(50)),
		Tool:   tools[rng.IntN(len(tools))], Status: []int{200, 201, 404, 422, 500}[rng.IntN(5)],
		Mutated: rng.IntN(2) == 0,
		Query:   map[string][]string{"page": {fmt.Sprint(rng.IntN(9))}, "access_token": {secret}},
		Headers: map[string][]string{
			"Authorization": {"Bearer " + secret}, "Content-Type": {"application/json"},
			"User-Agent": {"go-github/v84"}, "X-Odd": {"\xffodd"},
		},
		RequestBody: pick(), ResponseBody: pick(),
		Latency: time.Duration(rng.Int64N(1e7)) * time.Nanosecond,
		Secret:  secret,
	}
	if rng.IntN(3) == 0 {
		c.Delta = json.RawMessage(`[{"op":"added","path":"/repos/0/issues/` + fmt.Sprint(i) + `","after":{"title":"` + "t\xff" + `"}}]`)
	}
	if rng.IntN(4) == 0 {
		c.Query = nil
	}
	if rng.IntN(5) == 0 {
		c.MCPMethod = "tools/call"
	}
	row := tape.NewRow(c)
	row.SessionID = "ses_0123456789abcdef"
	return row
}

// TestMemoryTapeRoundTrip: whatever the store does to keep rows small, a
// row is read back byte for byte as tape.Row.AppendJSON encodes it (what
// the store kept before it compressed anything), by every page of
// TapeRaw and by Tape, while rows are appended, reserved and written out
// of order, from many goroutines.
func TestMemoryTapeRoundTrip(t *testing.T) {
	ctx := context.Background()
	s := NewMemoryStore(time.Now, time.Hour)
	defer s.Close()
	now := time.Now()
	sb := &Sandbox{ID: "ses_0123456789abcdef", Team: "t", Twins: []string{"alpha"}, State: StateReady,
		CreatedAt: now, ExpiresAt: now.Add(time.Hour), RetainUntil: now.Add(time.Hour)}
	if err := s.Create(ctx, sb, map[string]SeedWorld{"alpha": {World: map[string]any{}, Doc: []byte(`{}`)}}, 0); err != nil {
		t.Fatal(err)
	}
	const workers, each = 4, 250
	want := make([][]byte, workers*each)
	var mu sync.Mutex
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(w), 7))
			for i := range each {
				row := tapeTestRow(rng, w*each+i)
				if rng.IntN(2) == 0 {
					if _, err := s.Append(ctx, sb, row); err != nil {
						t.Error(err)
						return
					}
				} else {
					fill, err := s.reserveTape(sb, "alpha")
					if err != nil {
						t.Error(err)
						return
					}
					if rng.IntN(8) == 0 {
						// Written late: rows after it wait to be sealed.
						time.Sleep(time.Duration(rng.IntN(200)) * time.Microsecond)
					}
					fill(row)
				}
				enc := row.AppendJSON(nil)
				mu.Lock()
				want[row.Seq-1] = enc
				mu.Unlock()
			}
		}()
	}
	// Reads while the tape is written.
	wg.Add(1)
	go func() {
		defer wg.Done()
		for range 10 {
			if _, err := s.TapeRaw(ctx, sb, "alpha", 0, 0); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	wg.Wait()
	if t.Failed() {
		return
	}
	v, _ := s.sandboxes.Load(sb.ID)
	mt := v.(*memSandbox).twins["alpha"]
	mt.tapeMu.Lock()
	blocks, sealed := len(mt.rows.blocks), mt.rows.sealed
	mt.tapeMu.Unlock()
	if blocks < 10 {
		t.Fatalf("%d blocks sealed (%d rows): the test does not exercise them", blocks, sealed)
	}
	for _, page := range [][2]int{{0, 0}, {0, 1}, {1, 7}, {sealed - 3, 10}, {sealed, 0}, {len(want) - 5, 0}, {len(want), 0}, {len(want) + 3, 2}, {17, 1000}} {
		got, err := s.TapeRaw(ctx, sb, "alpha", int64(page[0]), page[1])
		if err != nil {
			t.Fatal(err)
		}
		from := min(page[0], len(want))
		to := len(want)
		if page[1] > 0 {
			to = min(from+page[1], len(want))
		}
		if len(got) != to-from {
			t.Fatalf("TapeRaw(%d, %d): %d rows, want %d", page[0], page[1], len(got), to-from)
		}
		for i, g := range got {
			if !bytes.Equal(g, want[from+i]) {
				t.Fatalf("TapeRaw(%d, %d) row seq %d:\n got %s\nwant %s", page[0], page[1], from+i+1, g, want[from+i])
			}
		}
	}
	// Tape decodes the same bytes.
	rows, err := s.Tape(ctx, sb, "alpha", 0, 0)
	if err != nil || len(rows) != len(want) {
		t.Fatalf("Tape: %d rows, %v", len(rows), err)
	}
	for i := range rows {
		var w tape.Row
		if err := json.Unmarshal(want[i], &w); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(rows[i], w) {
			t.Fatalf("Tape row %d:\n got %+v\nwant %+v", i+1, rows[i], w)
		}
	}
	// The budget counts rows at their encoded size, compressed or not.
	var total int64
	for _, w := range want {
		total += int64(len(w))
	}
	if got := s.tapeBytes.Load(); got != total {
		t.Errorf("tape bytes counted %d, want %d (the rows' encodings)", got, total)
	}
	if n, all, _ := s.TapeLen(ctx, sb, "alpha"); n != int64(len(want)) || all != n {
		t.Errorf("TapeLen = %d, %d; want %d", n, all, len(want))
	}
}

// BenchmarkMemoryTapeAppend appends get-issue-like rows to one tape,
// sealing blocks as it goes; it reports the bytes the tape holds per row.
func BenchmarkMemoryTapeAppend(b *testing.B) {
	ctx := context.Background()
	s := NewMemoryStore(time.Now, time.Hour)
	defer s.Close()
	s.SetMaxTapeRows(1 << 40)
	now := time.Now()
	sb := &Sandbox{ID: "ses_0123456789abcdef", Team: "t", Twins: []string{"alpha"}, State: StateReady,
		CreatedAt: now, ExpiresAt: now.Add(time.Hour), RetainUntil: now.Add(time.Hour)}
	if err := s.Create(ctx, sb, map[string]SeedWorld{"alpha": {World: map[string]any{}, Doc: []byte(`{}`)}}, 0); err != nil {
		b.Fatal(err)
	}
	body := json.RawMessage(`{"id":9,"node_id":"I_kwDOSTo5","url":"http://127.0.0.1:7070/github/s/ses_0123456789abcdef/repos/acme/api/issues/1","title":"500 error on POST /orders after deploy","body":"Since this morning's deploy, POST /orders answers 500 for every request.","user":{"login":"alice","id":1,"avatar_url":"https://avatars.githubusercontent.com/u/1?v=4","url":"http://127.0.0.1:7070/github/s/ses_0123456789abcdef/users/alice"},"labels":[],"state":"open","comments":0}`)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		row := tape.NewRow(tape.Call{At: now.Add(time.Duration(i) * time.Millisecond), Twin: "alpha", Transport: tape.TransportREST, Method: "GET",
			Path: "/alpha/s/ses_0123456789abcdef/repos/acme/api/issues/1", Tool: "issue_read", Status: 200,
			Headers: map[string][]string{"Authorization": {"Bearer x"}, "User-Agent": {"bench"}}, ResponseBody: body, Latency: time.Duration(i%500) * time.Microsecond})
		if _, err := s.Append(ctx, sb, row); err != nil {
			b.Fatal(err)
		}
	}
	v, _ := s.sandboxes.Load(sb.ID)
	mt := v.(*memSandbox).twins["alpha"]
	mt.tapeMu.Lock()
	held := 0
	for _, bl := range mt.rows.blocks {
		held += len(bl.data)
	}
	for _, r := range mt.rows.open {
		held += r.size()
	}
	n := mt.rows.len()
	mt.tapeMu.Unlock()
	b.ReportMetric(float64(held)/float64(n), "tape-B/row")
}

// Each block draws the size it is sealed at, so that tapes filled at the
// same pace do not all seal at the same moment.
func TestSealLimitSpread(t *testing.T) {
	seen := map[int]bool{}
	for range 1000 {
		n := sealLimit()
		if n < sealBytes/2 || n >= sealBytes*3/2 {
			t.Fatalf("sealLimit() = %d, want within [%d, %d)", n, sealBytes/2, sealBytes*3/2)
		}
		seen[n/(sealBytes/8)] = true
	}
	if len(seen) < 6 {
		t.Fatalf("sealLimit() drew from %d of 8 eighths of its range in 1000 draws", len(seen))
	}

	// toSeal seals at the limit drawn for the block, not at sealBytes, and
	// draws a new one for the next block.
	var r memRows
	r.limit = sealBytes / 2
	row := make([]byte, 1024)
	for range sealBytes/2/len(row) - 1 {
		r.add(openRow{enc: row})
		if got := r.toSeal(); got != nil {
			t.Fatalf("sealed %d rows before the limit", len(got))
		}
	}
	r.add(openRow{enc: row})
	got := r.toSeal()
	if len(got) != sealBytes/2/len(row) {
		t.Fatalf("sealed %d rows at the limit, want %d", len(got), sealBytes/2/len(row))
	}
	r.sealDone(len(got), len(got)*len(row), []byte{1})
	if r.limit != 0 {
		t.Fatalf("after a seal the limit is %d, want a new draw", r.limit)
	}
	// Tiny rows: the row cap scales with the drawn limit.
	r = memRows{limit: sealBytes / 2}
	for range sealRows/2 - 1 {
		r.add(openRow{enc: []byte("x")})
	}
	if r.toSeal() != nil {
		t.Fatal("sealed tiny rows before the scaled row cap")
	}
	r.add(openRow{enc: []byte("x")})
	if got := r.toSeal(); len(got) != sealRows/2 {
		t.Fatalf("sealed %d tiny rows, want %d", len(got), sealRows/2)
	}
}

// TestToSealCounts: toSeal goes on from the rows it counted before; a
// reserved row not yet written holds the block back until it is, and a
// seal given up hands the same rows out again.
func TestToSealCounts(t *testing.T) {
	r := memRows{limit: sealBytes / 2}
	row := make([]byte, 1024)
	n := sealBytes / 2 / len(row)
	for range n - 2 {
		r.add(openRow{enc: row})
	}
	reserved := r.add(openRow{})
	r.add(openRow{enc: row})
	if got := r.toSeal(); got != nil {
		t.Fatalf("sealed %d rows past a reserved one", len(got))
	}
	if r.counted != n-2 {
		t.Fatalf("counted %d rows, want the %d before the reserved one", r.counted, n-2)
	}
	r.set(reserved, openRow{enc: row})
	got := r.toSeal()
	if len(got) != n {
		t.Fatalf("sealed %d rows once the reserved one was written, want %d", len(got), n)
	}
	if r.toSeal() != nil {
		t.Fatal("handed the rows out again while they are being sealed")
	}
	r.sealDone(len(got), 0, nil)
	if again := r.toSeal(); len(again) != n || &again[0] != &got[0] {
		t.Fatalf("after a seal given up, toSeal gave %d rows, want the same %d", len(again), n)
	}
	r.sealDone(n, n*len(row), []byte{1})
	r.add(openRow{enc: row})
	if r.toSeal() != nil || r.counted != 1 || r.countedSize != len(row) {
		t.Fatalf("after a seal: counted %d rows of %d bytes, want 1 of %d", r.counted, r.countedSize, len(row))
	}
}

// TestSealSharedBodies: rows whose response bodies are alike (one slice,
// or equal bytes) lay each body out once in a block, and every row reads
// back whole; a block whose layout is damaged is an error, not rows.
func TestSealSharedBodies(t *testing.T) {
	body := []byte(`{"id":1,"title":"` + strings.Repeat("t", 2000) + `"}`)
	other := []byte(`{"id":2}`)
	mk := func(seq int, b []byte) openRow {
		enc := []byte(fmt.Sprintf(`{"seq":%d,"response":{"body":},"latency_us":%d}`, seq, seq*7))
		if b == nil {
			return openRow{enc: enc}
		}
		return openRow{enc: enc, body: b, cut: bytes.Index(enc, []byte(`":}`)) + 2}
	}
	rows := []openRow{
		mk(1, body), mk(2, body), mk(3, bytes.Clone(body)), mk(4, other), mk(5, nil), mk(6, body), mk(7, body),
	}
	data, raw := sealBlock(rows)
	// Bodies laid out: the first, other, body again after other: three.
	if max := 3*len(body) + 200*len(rows); raw > max || raw < 2*len(body) {
		t.Fatalf("block of %d bytes laid out, want at most %d (each run of one body once)", raw, max)
	}
	got, err := tapeBlock{n: len(rows), raw: raw, data: data}.rows()
	if err != nil {
		t.Fatal(err)
	}
	for i, row := range rows {
		if string(got[i]) != string(row.bytes()) {
			t.Fatalf("row %d read back as %s, want %s", i+1, got[i], row.bytes())
		}
	}
	if cap(got[0]) != len(got[0]) {
		t.Fatal("a row read back may be appended into the next")
	}

	// A row marked as sharing the body before it, with none before it.
	var src []byte
	src = binary.AppendUvarint(src, 2)
	src = append(src, "{}"...)
	src = binary.AppendUvarint(src, 1)
	src = append(src, bodyAsBefore)
	var tab lz.Table
	z := lz.Compress(nil, src, &tab)
	if rows, err := (tapeBlock{first: 10, n: 1, raw: len(src), data: z}).rows(); err == nil || !strings.Contains(err.Error(), "row 11: corrupt") {
		t.Fatalf("damaged block read as %q, %v", rows, err)
	}
	// A block whose compressed bytes are damaged.
	if rows, err := (tapeBlock{first: 10, n: len(rows), raw: raw, data: data[:len(data)-1]}).rows(); err == nil || !strings.Contains(err.Error(), "row 11: corrupt compressed block") {
		t.Fatalf("truncated block read as %q, %v", rows, err)
	}
	// A row count that does not match.
	if _, err := (tapeBlock{n: len(rows) + 1, raw: raw, data: data}).rows(); err == nil {
		t.Fatal("a block with fewer rows than counted read without error")
	}
}
