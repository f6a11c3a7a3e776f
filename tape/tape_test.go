package tape

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestRedactHeaders(t *testing.T) {
	got := RedactHeaders(map[string][]string{
		"Authorization": {"Bearer pst_secret"}, "Cookie": {"a=b"}, "X-Api-Key": {"pme_x"},
		"Proxy-Authorization": {"Basic x"}, "Content-Type": {"application/json"}, "Accept": {"a", "b"},
	})
	for _, k := range []string{"authorization", "cookie", "x-api-key", "proxy-authorization"} {
		if got[k] != Redacted {
			t.Errorf("%s = %q", k, got[k])
		}
	}
	if got["content-type"] != "application/json" || got["accept"] != "a, b" {
		t.Errorf("%v", got)
	}
}

func TestRedactQuery(t *testing.T) {
	got := RedactQuery(map[string][]string{"token": {"xoxb-1"}, "channel": {"C1"}, "labels": {"a", "b"}})
	if got["token"] != Redacted || got["channel"] != "C1" || got["labels"] != "a,b" {
		t.Fatalf("%v", got)
	}
}

func TestRedactJSON(t *testing.T) {
	cases := map[string]struct{ in, want string }{
		"no secret kept as sent": {`{"title":"x","n":1}`, `{"title":"x","n":1}`},
		"nested secret":          {`{"a":{"Token":"s1","b":[{"password":"p"}]},"x":1}`, `{"a":{"Token":"[REDACTED]","b":[{"password":"[REDACTED]"}]},"x":1}`},
		"secret-like value only": {`{"text":"my token is here"}`, `{"text":"my token is here"}`},
		"not JSON":               {`a=b&token=x`, `"a=b\u0026token=x"`},
		"empty":                  {`  `, ``},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			got := string(RedactJSON([]byte(c.in)))
			if got != c.want {
				t.Fatalf("got %s want %s", got, c.want)
			}
		})
	}
}

func TestScrub(t *testing.T) {
	raw := json.RawMessage(`{"echo":"pst_abcdefghijk","short":"abc"}`)
	got := string(Scrub(raw, "pst_abcdefghijk", "abc"))
	if strings.Contains(got, "pst_abcdefghijk") || !strings.Contains(got, `"abc"`) {
		t.Fatalf("%s", got)
	}
}

func TestTruncate(t *testing.T) {
	small := json.RawMessage(`{"a":1}`)
	if !bytes.Equal(Truncate(small), small) {
		t.Fatal("small body changed")
	}
	// A multi-byte rune straddling the cut must not be split.
	big := []byte(`"` + strings.Repeat("é", MaxBodyBytes) + `"`)
	out := Truncate(big)
	var m struct {
		Truncated     bool   `json:"pome_truncated"`
		OriginalBytes int    `json:"original_bytes"`
		Prefix        string `json:"prefix"`
	}
	if err := json.Unmarshal(out, &m); err != nil {
		t.Fatal(err)
	}
	if !m.Truncated || m.OriginalBytes != len(big) || !utf8.ValidString(m.Prefix) || len(out) > MaxBodyBytes {
		t.Fatalf("marker: truncated=%v size=%d valid=%v len=%d", m.Truncated, m.OriginalBytes, utf8.ValidString(m.Prefix), len(out))
	}
}

func BenchmarkRedactJSONNoSecret(b *testing.B) {
	body := []byte(`{"body":"Triaged: the deploy broke POST /orders; alice is on it.","labels":["bug"]}`)
	for b.Loop() {
		RedactJSON(body)
	}
}

// TestContainsString holds containsString to strings.Contains, with the
// secret at each offset, cut at each end, and halves found apart.
func TestContainsString(t *testing.T) {
	secret := "ghp_nATs5SvvOktdlW2PIfPaBoWBBYzrTgUGHHJyE0s5xIj8eFlYPBJt"
	k := len(secret) / 2
	hays := []string{"", "g", secret, secret[1:], secret[:len(secret)-1],
		secret[k:], secret[k:] + secret[:k], secret[:k] + "x" + secret[k:],
		strings.Repeat(secret[k:], 3) + secret, "gh" + secret + "hp",
		strings.Repeat("ghp_", 100) + secret[:k] + secret[:k] + secret[k:],
		`{"login":"octocat","url":"https://api.github.com/` + secret + `"}`}
	for _, s := range []string{secret, "sk_test_12345678", "abcdefgh", "aaaaaaaaa"} {
		for _, h := range append(hays, strings.Repeat("a", 20), strings.Repeat("a", 8)+"b") {
			if got, want := containsString([]byte(h), s), strings.Contains(h, s); got != want {
				t.Errorf("containsString(%q, %q) = %v, want %v", h, s, got, want)
			}
		}
	}
}

func FuzzContainsString(f *testing.F) {
	f.Add([]byte("xxghp_abcdefghxx"), "ghp_abcdefgh")
	f.Add([]byte("abababab"), "abab")
	f.Fuzz(func(t *testing.T, h []byte, s string) {
		if got, want := containsString(h, s), strings.Contains(string(h), s); got != want {
			t.Fatalf("containsString(%q, %q) = %v, want %v", h, s, got, want)
		}
	})
}
