package stripe

import (
	"crypto/sha256"
	"fmt"
	"math/big"
	"testing"
)

// tokenBig is token as first written, on math/big: the reference.
func tokenBig(seed string, n int) string {
	sum := sha256.Sum256([]byte(seed))
	v := new(big.Int).SetBytes(sum[:])
	b62 := big.NewInt(62)
	out := make([]byte, 0, n)
	mod := new(big.Int)
	for len(out) < n {
		if v.Sign() == 0 {
			sum = sha256.Sum256(sum[:])
			v.SetBytes(sum[:])
		}
		v.DivMod(v, b62, mod)
		out = append(out, base62[mod.Int64()])
	}
	return string(out)
}

// Ids must not change: seeds, tapes and tests name them.
func TestTokenMatchesReference(t *testing.T) {
	for i := range 5000 {
		for _, n := range []int{8, 14, 24, 58, 99} {
			seed := fmt.Sprintf("cus/%d", i)
			if got, want := token(seed, n), tokenBig(seed, n); got != want {
				t.Fatalf("token(%q, %d) = %s, want %s", seed, n, got, want)
			}
		}
	}
}

func BenchmarkToken(b *testing.B) {
	for b.Loop() {
		token("cus/12345", 24)
	}
}
