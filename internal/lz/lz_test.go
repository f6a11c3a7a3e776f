package lz

import (
	"bytes"
	"compress/flate"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/pomehq/pome/tape"
)

// commentRows lays out n rows of comments posted to one issue, as a
// comment's tape row is: the request, the comment answered (its user's
// dozen URLs), headers; each row differs from the one before in its
// comment's id, text and time.
func commentRows(n int) []byte {
	const sid = "ses_Qm4kZ81xRw0pLc2T"
	base := "http://127.0.0.1:7611/github/s/" + sid
	user := `{"login":"pome-agent","id":3,"node_id":"U_kwDOVToz","avatar_url":"https://avatars.githubusercontent.com/u/3?v=4","gravatar_id":"","url":"` + base + `/users/pome-agent","html_url":"https://github.com/pome-agent","followers_url":"` + base + `/users/pome-agent/followers","following_url":"` + base + `/users/pome-agent/following{/other_user}","gists_url":"` + base + `/users/pome-agent/gists{/gist_id}","starred_url":"` + base + `/users/pome-agent/starred{/owner}{/repo}","repos_url":"` + base + `/users/pome-agent/repos","type":"User","site_admin":false}`
	var out []byte
	at := time.Date(2026, 12, 7, 9, 37, 47, 0, time.UTC)
	for i := range n {
		text := fmt.Sprintf("Comment %d: the deploy at %02d:%02d broke POST /orders for tenant %d; rolling back.", i, i%24, i%60, i*7919%1000)
		id := 100 + i
		resp := fmt.Sprintf(`{"id":%d,"node_id":"IC_kwDOSUM6%06d","url":"%s/repos/acme/api/issues/comments/%d","html_url":"https://github.com/acme/api/issues/1#issuecomment-%d","issue_url":"%s/repos/acme/api/issues/1","body":%q,"user":%s,"created_at":"%s","updated_at":"%s","author_association":"MEMBER","reactions":{"url":"%s/repos/acme/api/issues/comments/%d/reactions","total_count":0,"+1":0,"-1":0}}`,
			id, id, base, id, id, base, text, user, at.Format(time.RFC3339), at.Format(time.RFC3339), base, id)
		row := tape.NewRow(tape.Call{
			At: at.Add(time.Duration(i) * 137 * time.Microsecond), Twin: "github", Transport: tape.TransportREST, Method: "POST",
			Path: "/github/s/" + sid + "/repos/acme/api/issues/1/comments", Tool: "add_issue_comment", Status: 201, Mutated: true,
			Headers:     map[string][]string{"Authorization": {"Bearer x"}, "Content-Type": {"application/json"}, "User-Agent": {"go-github/v84"}},
			RequestBody: []byte(fmt.Sprintf(`{"body":%q}`, text)), ResponseBody: []byte(resp),
			Latency: time.Duration(90+i%40) * time.Microsecond,
		})
		row.SessionID = sid
		out = row.AppendJSON(out)
	}
	return out
}

func roundTrip(t *testing.T, src []byte) []byte {
	t.Helper()
	var tab Table
	z := Compress(nil, src, &tab)
	got, err := Decompress(z, len(src))
	if err != nil || !bytes.Equal(got, src) {
		t.Fatalf("round trip of %d bytes (%q…): err %v, %d bytes back, equal %v", len(src), src[:min(len(src), 40)], err, len(got), bytes.Equal(got, src))
	}
	return z
}

// TestLZRoundTrip: every kind of input comes back byte for byte: empty
// and tiny ones, runs (copies that overlap themselves), random bytes (no
// match at all), literal runs and copies of every length class, and tape
// rows, which compress well.
func TestLZRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	random := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		return b
	}
	inputs := [][]byte{nil, {}, []byte("a"), []byte("abcd"), []byte("abcdabcdabcd"), []byte(strings.Repeat("a", 10_000)),
		[]byte(strings.Repeat("ab", 7)), random(1), random(13), random(100_000)}
	for n := range 40 {
		// Literals and copies around every length the token holds.
		inputs = append(inputs, append(append(random(n), random(n)...), bytes.Repeat([]byte("xyz0123456789"), n)...))
	}
	// Random mixes of repeats near and far and fresh bytes.
	for range 200 {
		var b []byte
		for len(b) < 20_000 {
			if len(b) > 0 && rng.IntN(2) == 0 {
				from := rng.IntN(len(b))
				b = append(b, b[from:from+rng.IntN(min(len(b)-from, 300))+1]...)
			} else {
				b = append(b, random(rng.IntN(40)+1)...)
			}
		}
		inputs = append(inputs, b)
	}
	for _, in := range inputs {
		roundTrip(t, in)
	}
	src := commentRows(25)
	if z := roundTrip(t, src); len(z)*6 > len(src) {
		t.Errorf("25 comment rows, %d bytes, compressed to %d: want at least six times smaller", len(src), len(z))
	}
}

// TestLZCorrupt: a block cut short, padded, with a copy from before its
// start or longer than the block, or said to hold another length, is
// refused, never read or written out of bounds.
func TestLZCorrupt(t *testing.T) {
	src := commentRows(4)
	var tab Table
	z := Compress(nil, src, &tab)
	bad := map[string]struct {
		data []byte
		raw  int
	}{
		"empty":          {nil, 0},
		"cut":            {z[:len(z)-1], len(src)},
		"padded":         {append(bytes.Clone(z), 0), len(src)},
		"raw larger":     {z, len(src) + 1},
		"raw smaller":    {z, len(src) - 1},
		"copy too far":   {[]byte{0x10, 'a', 2, 0x00}, 5},
		"copy at start":  {[]byte{0x00, 1, 0x00}, 4},
		"offset zero":    {[]byte{0x10, 'a', 0, 0x00}, 5},
		"copy too long":  {[]byte{0x1f, 'a', 1, 100, 0x00}, 20},
		"literals short": {[]byte{0xf0, 50, 'a'}, 65},
		"last with copy": {[]byte{0x11, 'a'}, 1},
		"bad uvarint":    {[]byte{0xf0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}, 10},
	}
	for name, c := range bad {
		if out, err := Decompress(c.data, c.raw); err == nil {
			t.Errorf("%s: decoded to %d bytes, want an error", name, len(out))
		}
	}
	// Every truncation of a valid block is refused.
	for i := range len(z) {
		if _, err := Decompress(z[:i], len(src)); err == nil {
			t.Errorf("block cut to %d of %d bytes: decoded", i, len(z))
		}
	}
}

// FuzzLZ: any bytes compress and come back; any bytes fed to the decoder
// as a block either decode to exactly the length asked or are refused.
func FuzzLZ(f *testing.F) {
	f.Add([]byte("abcabcabcabcabc"), 10)
	f.Add(commentRows(2), 100)
	f.Fuzz(func(t *testing.T, b []byte, raw int) {
		roundTrip(t, b)
		raw = max(raw, 0) % (1 << 20)
		if out, err := Decompress(b, raw); err == nil && len(out) != raw {
			t.Fatalf("decoded %d bytes, asked %d", len(out), raw)
		}
	})
}

// BenchmarkTapeBlock: compressing and decompressing a block of 25 comment
// rows (about what sealBytes holds), matching only against DEFLATE at
// its fastest level, and the bytes each leaves.
//
//	go test -run '^$' -bench TapeBlock ./session/
func BenchmarkTapeBlock(b *testing.B) {
	src := commentRows(25)
	b.Run("lz/compress", func(b *testing.B) {
		var tab Table
		var z []byte
		b.SetBytes(int64(len(src)))
		for b.Loop() {
			z = Compress(z[:0], src, &tab)
		}
		b.ReportMetric(float64(len(z)), "out-B")
		b.ReportMetric(float64(len(src)), "in-B")
	})
	b.Run("lz/decompress", func(b *testing.B) {
		var tab Table
		z := Compress(nil, src, &tab)
		b.SetBytes(int64(len(src)))
		for b.Loop() {
			if _, err := Decompress(z, len(src)); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("deflate/compress", func(b *testing.B) {
		w, _ := flate.NewWriter(nil, flate.BestSpeed)
		var out bytes.Buffer
		b.SetBytes(int64(len(src)))
		for b.Loop() {
			out.Reset()
			w.Reset(&out)
			w.Write(src)
			w.Close()
		}
		b.ReportMetric(float64(out.Len()), "out-B")
	})
	b.Run("deflate/decompress", func(b *testing.B) {
		var z bytes.Buffer
		w, _ := flate.NewWriter(&z, flate.BestSpeed)
		w.Write(src)
		w.Close()
		r := flate.NewReader(nil)
		dst := make([]byte, len(src))
		b.SetBytes(int64(len(src)))
		for b.Loop() {
			r.(flate.Resetter).Reset(bytes.NewReader(z.Bytes()), nil)
			if _, err := io.ReadFull(r, dst); err != nil {
				b.Fatal(err)
			}
		}
	})
}
