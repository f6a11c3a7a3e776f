package session

import (
	"strings"
	"testing"
)

func TestRandomStringAlphabets(t *testing.T) {
	// 64 divides 256: a byte-limit bug once rejected every byte here.
	for _, alpha := range []string{base62, base62 + "-_", "0123456789", "ab"} {
		s := randomString(200, alpha)
		if len(s) != 200 {
			t.Fatalf("len %d", len(s))
		}
		seen := map[rune]bool{}
		for _, c := range s {
			if !strings.ContainsRune(alpha, c) {
				t.Fatalf("%q outside alphabet", c)
			}
			seen[c] = true
		}
		if len(alpha) <= 10 && len(seen) != len(alpha) {
			t.Fatalf("alphabet %q not covered: %v", alpha, seen)
		}
	}
}

func TestProviderTokens(t *testing.T) {
	sid := NewSandboxID()
	for _, prefix := range []string{"ghp_", "xoxb-", "sk_test_", "ya29."} {
		tok := NewProviderToken(prefix, sid, false)
		if !strings.HasPrefix(tok, prefix) || len(tok) < len(prefix)+30 {
			t.Fatalf("%s: %s", prefix, tok)
		}
		if NewProviderToken(prefix, sid, false) == tok {
			t.Fatalf("%s tokens repeat", prefix)
		}
	}
	tok := NewProviderToken("sk_test_", sid, true)
	if got, ok := SandboxIDInToken("sk_test_", tok); !ok || got != sid {
		t.Fatalf("embedded id: %s %v", got, ok)
	}
	if _, ok := SandboxIDInToken("sk_test_", "sk_test_short"); ok {
		t.Fatal("short token accepted")
	}
	if _, ok := SandboxIDInToken("sk_test_", "ghp_"+strings.Repeat("a", 40)); ok {
		t.Fatal("wrong prefix accepted")
	}
}

func TestTokenMatches(t *testing.T) {
	tok := newAuthToken()
	h := HashToken(tok)
	if !tokenMatches(tok, h) || tokenMatches(tok+"x", h) || tokenMatches(tok, "") || tokenMatches("", h) {
		t.Fatal("tokenMatches")
	}
	if strings.Contains(h, tok) {
		t.Fatal("hash contains the token")
	}
}

// TestNewRequestID: 20 base62 characters, every one of the 62 drawn, and
// no id twice in many.
func TestNewRequestID(t *testing.T) {
	seen, chars := map[string]bool{}, map[rune]bool{}
	for range 5000 {
		id := NewRequestID()
		if len(id) != 20 {
			t.Fatalf("%q: %d characters, want 20", id, len(id))
		}
		for _, c := range id {
			if !strings.ContainsRune(base62, c) {
				t.Fatalf("%q: %q is not base62", id, c)
			}
			chars[c] = true
		}
		if seen[id] {
			t.Fatalf("%q drawn twice", id)
		}
		seen[id] = true
	}
	if len(chars) != len(base62) {
		t.Fatalf("drew %d of the %d base62 characters", len(chars), len(base62))
	}
}
