package rest

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/pomehq/pome/session"
)

func TestAnswerCacheVersions(t *testing.T) {
	c := newAnswerCache(1 << 20)
	a := &answer{status: 200, body: []byte(`{"v":1}`)}
	c.put("s", 5, "k", a)
	if c.get("s", 5, "k", nil) != a {
		t.Fatal("kept answer not found")
	}
	if c.get("s", 6, "k", nil) != nil || c.get("s", 4, "k", nil) != nil || c.get("t", 5, "k", nil) != nil || c.get("s", 5, "j", nil) != nil {
		t.Fatal("an answer served for another version, slot or key")
	}
	// A slower read of an older world keeps nothing.
	c.put("s", 4, "j", &answer{status: 200})
	if c.get("s", 4, "j", nil) != nil || c.get("s", 5, "k", nil) != a {
		t.Fatal("an older version's answer replaced the newer")
	}
	// A newer version drops the slot's older answers.
	b := &answer{status: 200, body: []byte(`{"v":2}`)}
	c.put("s", 7, "j", b)
	if c.get("s", 5, "k", nil) != nil || c.get("s", 7, "j", nil) != b {
		t.Fatal("the older version's answers outlived a newer one")
	}
}

func TestAnswerCacheHeaderDeps(t *testing.T) {
	c := newAnswerCache(1 << 20)
	c.put("s", 1, "k", &answer{status: 200, deps: [][2]string{{"Accept", "application/json"}, {"X-Payment", ""}}})
	h := http.Header{"Accept": {"application/json"}}
	if c.get("s", 1, "k", h) == nil {
		t.Fatal("same headers: no answer")
	}
	if c.get("s", 1, "k", http.Header{"Accept": {"text/plain"}}) != nil {
		t.Fatal("another Accept was served the kept answer")
	}
	if c.get("s", 1, "k", http.Header{"Accept": {"application/json"}, "X-Payment": {"tok"}}) != nil {
		t.Fatal("a header the read found absent was present, and the answer served")
	}
}

func TestAnswerCacheBounds(t *testing.T) {
	c := newAnswerCache(answerShards * 64 << 10)
	// One slot keeps at most answersPerSlot answers.
	for i := range answersPerSlot + 10 {
		c.put("s", 1, fmt.Sprint(i), &answer{status: 200, body: []byte("x")})
	}
	n := 0
	for i := range answersPerSlot + 10 {
		if c.get("s", 1, fmt.Sprint(i), nil) != nil {
			n++
		}
	}
	if n != answersPerSlot {
		t.Fatalf("%d answers kept in one slot, want %d", n, answersPerSlot)
	}
	// Too large an answer is not kept.
	c.put("big", 1, "k", &answer{status: 200, body: make([]byte, maxCachedBody+1)})
	if c.get("big", 1, "k", nil) != nil {
		t.Fatal("an answer over maxCachedBody was kept")
	}
	// Many slots stay within the bound.
	body := []byte(strings.Repeat("y", 8<<10))
	for i := range 2000 {
		c.put(fmt.Sprint("slot", i), 1, "k", &answer{status: 200, body: body})
	}
	var total int64
	for i := range c.shards {
		sh := &c.shards[i]
		var sum int64
		for k, s := range sh.slots {
			var slot int64
			for key, a := range s.answers {
				slot += a.size(key)
			}
			if slot != s.bytes {
				t.Fatalf("slot %s counts %d bytes, holds %d", k, s.bytes, slot)
			}
			sum += s.bytes
		}
		if sum != sh.bytes || sh.bytes > c.shardMax {
			t.Fatalf("shard %d: counts %d, holds %d, bound %d", i, sh.bytes, sum, c.shardMax)
		}
		total += sh.bytes
	}
	if total == 0 {
		t.Fatal("nothing kept at all")
	}
}

// A sandbox created again under the same id gets slots of its own: a
// store may number its worlds from where the one before began (Redis).
func TestAnswerSlotPerIncarnation(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)
	a := &session.Sandbox{ID: "ses_0123456789abcdef", CreatedAt: at}
	b := &session.Sandbox{ID: a.ID, CreatedAt: at.Add(time.Nanosecond)}
	if answerSlotKey(a, "github") == answerSlotKey(b, "github") {
		t.Fatal("two incarnations of one sandbox share a slot")
	}
	if answerSlotKey(a, "github") != answerSlotKey(&session.Sandbox{ID: a.ID, CreatedAt: at}, "github") || answerSlotKey(a, "github") == answerSlotKey(a, "slack") {
		t.Fatal("slots are not one per sandbox incarnation and twin")
	}
}
