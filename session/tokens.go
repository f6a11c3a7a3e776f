package session

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	mrand "math/rand/v2"
	"strings"
)

const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// randomString returns n characters drawn uniformly from alphabet using
// crypto/rand (rejection sampling, so no modulo bias).
func randomString(n int, alphabet string) string {
	out := make([]byte, n)
	buf := make([]byte, n*2)
	// Bytes at or above limit are rejected so every symbol is equally
	// likely; for an alphabet that divides 256 every byte is kept.
	limit := 256 - 256%len(alphabet)
	i := 0
	for i < n {
		if _, err := rand.Read(buf); err != nil {
			panic("crypto/rand: " + err.Error())
		}
		for _, b := range buf {
			if int(b) >= limit {
				continue
			}
			out[i] = alphabet[int(b)%len(alphabet)]
			i++
			if i == n {
				break
			}
		}
	}
	return string(out)
}

// NewSandboxID returns "ses_" + 16 base62 characters.
func NewSandboxID() string { return "ses_" + randomString(16, base62) }

// NewAPIKey returns a team API key, "pme_" + 32 base62 characters.
func NewAPIKey() string { return "pme_" + randomString(32, base62) }

func newAuthToken() string  { return "pst_" + randomString(40, base62) }
func newAgentToken() string { return "pat_" + randomString(40, base62) }

// NewProviderToken returns a vendor-shaped credential for a twin whose
// tokens start with prefix. With embed, the sandbox id follows the prefix
// (as Stripe keys carry their account), so that SDKs which cannot take a
// base URL with a path can reach the sandbox from the server root; the id
// is not a secret, the random rest is.
func NewProviderToken(prefix, sandboxID string, embed bool) string {
	id := ""
	if embed {
		id = strings.TrimPrefix(sandboxID, "ses_")
	}
	switch prefix {
	case "xoxb-":
		return "xoxb-" + randomString(12, "0123456789") + "-" + randomString(13, "0123456789") + "-" + id + randomString(24, base62)
	case "xoxp-":
		// Slack's user tokens: team, user and app numbers, then 32 hex.
		return "xoxp-" + randomString(12, "0123456789") + "-" + randomString(13, "0123456789") + "-" + randomString(13, "0123456789") + "-" + id + randomString(32, "0123456789abcdef")
	case "ya29.":
		return "ya29." + id + randomString(120, base62+"-_")
	case "sk_test_":
		return "sk_test_" + id + randomString(99, base62)
	default:
		return prefix + id + randomString(36, base62)
	}
}

// SandboxIDInToken returns the sandbox id embedded in a provider token of
// the given prefix (see NewProviderToken), or false. It proves nothing: the
// caller still authorizes the token against that sandbox.
func SandboxIDInToken(prefix, tok string) (string, bool) {
	if prefix == "" || !strings.HasPrefix(tok, prefix) || len(tok) < len(prefix)+16 {
		return "", false
	}
	id := "ses_" + tok[len(prefix):len(prefix)+16]
	return id, ValidSandboxID(id)
}

// NewRequestID returns 20 random base62 characters for request ids. An id
// names a request in headers and logs and guards nothing, so it is drawn
// from math/rand/v2 (ChaCha8, seeded by the runtime from the system's
// entropy) rather than crypto/rand: every answer of the GitHub, Stripe and
// Slack twins carries one, and a read from crypto/rand and its buffers
// were 2% of a read's cost (a third of that now).
func NewRequestID() string {
	// Ten base62 digits of each of two 64-bit draws (62^10 < 2^64). They
	// are not exactly uniform, 2^64 not being a multiple of 62^10: no id
	// minds.
	var out [20]byte
	var x uint64
	for i := range out {
		if i%10 == 0 {
			x = mrand.Uint64()
		}
		out[i] = base62[x%62]
		x /= 62
	}
	return string(out[:])
}

// HashToken is how every token and key is stored: never in the clear.
func HashToken(tok string) string {
	sum := sha256.Sum256([]byte(tok))
	return hex.EncodeToString(sum[:])
}

// tokenMatches compares a presented token to a stored hash in constant time.
func tokenMatches(presented, storedHash string) bool {
	return hashMatches(HashToken(presented), storedHash)
}

// hashMatches compares a presented token's hash to a stored one in
// constant time.
func hashMatches(presentedHash, storedHash string) bool {
	if storedHash == "" {
		return false
	}
	return subtle.ConstantTimeCompare([]byte(presentedHash), []byte(storedHash)) == 1
}

// ValidSandboxID reports whether s has the shape of a sandbox id, so that
// malformed ids never reach a store.
func ValidSandboxID(s string) bool {
	if len(s) != 20 || !strings.HasPrefix(s, "ses_") {
		return false
	}
	for _, c := range s[4:] {
		if !strings.ContainsRune(base62, c) {
			return false
		}
	}
	return true
}
