package session_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/pomehq/pome/session"
	"github.com/pomehq/pome/session/storetest"
	"github.com/pomehq/pome/tape"
)

// readRow is a tape row of a read (it changed nothing) whose answer is an
// object of about size bytes, the same for the same path and size.
func readRow(sb *session.Sandbox, twin, path string, size int) *tape.Row {
	row := storetest.NewRow(sb, twin, path)
	row.Method, row.Status, row.StateMutation = "GET", 200, false
	row.Request.Body = nil
	pad := strings.Repeat("p", max(size-len(path)-24, 0))
	row.Response.Body = json.RawMessage(fmt.Sprintf(`{"path":%q,"pad":%q}`, path, pad))
	return row
}

// encoded is the row as a tape read must give it back: its whole
// encoding, with the seq it was given.
func encoded(row *tape.Row) string { return string(row.AppendJSON(nil)) }

// TestRedisTapeBodiesByReference: a read's large answer is held whole by
// its first row, then stored once per twin, in the twin's bodies hash, and
// every later row that carried it refers to it; a tape read gives back
// every row byte for byte as encoded, whatever form it was stored in, and
// whichever replica stored it.
func TestRedisTapeBodiesByReference(t *testing.T) {
	ctx := context.Background()
	a, b := newRedis(t, time.Now), newRedis(t, time.Now)
	raw := newRedisClient(t)
	defer raw.Close()
	sb := createSandbox(t, a, storetest.NewTeam(), time.Hour, "alpha")
	var want []string
	add := func(s *session.RedisStore, row *tape.Row) {
		t.Helper()
		if _, err := s.Append(ctx, sb, row); err != nil {
			t.Fatal(err)
		}
		want = append(want, encoded(row))
	}
	for range 4 {
		add(a, readRow(sb, "alpha", "/issue", 2400))
	}
	write := storetest.NewRow(sb, "alpha", "/comment")
	write.Response.Body = json.RawMessage(`{"body":"` + strings.Repeat("w", 1000) + `"}`)
	add(a, write)                               // a write keeps its answer
	add(a, readRow(sb, "alpha", "/small", 900)) // too small to refer to
	for range 2 {
		add(b, readRow(sb, "alpha", "/issue", 2400)) // another replica, the same answer
		add(b, readRow(sb, "alpha", "/other", 3000)) // another answer
	}
	spaced := readRow(sb, "alpha", "/spaced", 2000) // an answer the row compacts
	spaced.Response.Body = json.RawMessage("{\n  \"a\": \"" + strings.Repeat("s", 1000) + "\"\n}")
	add(a, spaced)
	add(a, spaced)
	add(a, readRow(sb, "alpha", "/unique", 2000)) // an answer no other call got

	stored := raw.LRange(ctx, session.TapeKey(sb.ID, "alpha"), 0, -1).Val()
	forms := ""
	for _, r := range stored {
		forms += r[:1]
	}
	if want := `"###""""##"""`; forms != want {
		t.Errorf("stored forms %q, want %q (# by reference, \" whole)", forms, want)
	}
	if n := raw.HLen(ctx, session.TapeBodiesKey(sb.ID, "alpha")).Val(); n != 2 {
		t.Errorf("%d bodies stored, want 2", n)
	}
	for _, r := range stored {
		if r[0] == '#' && len(r) > 700 {
			t.Errorf("a row referring to its body is %d bytes", len(r))
		}
	}
	for _, s := range []*session.RedisStore{a, b} {
		got, err := s.TapeRaw(ctx, sb, "alpha", 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) {
			t.Fatalf("%d rows, want %d", len(got), len(want))
		}
		for i := range got {
			if string(got[i]) != want[i] {
				t.Errorf("row %d:\n got %.200s\nwant %.200s", i+1, got[i], want[i])
			}
		}
		// A page in the middle puts its bodies back too.
		page, err := s.TapeRaw(ctx, sb, "alpha", 2, 3)
		if err != nil || len(page) != 3 || string(page[0]) != want[2] || string(page[2]) != want[4] {
			t.Errorf("rows 3-5: %v %d rows", err, len(page))
		}
	}
	rows, err := a.Tape(ctx, sb, "alpha", 0, 0)
	if err != nil || len(rows) != len(want) || rows[3].Seq != 4 || string(rows[3].Response.Body) != string(readRow(sb, "alpha", "/issue", 2400).Response.Body) {
		t.Errorf("decoded tape: %v, %d rows", err, len(rows))
	}
}

// TestRedisTapeBodyNotThere: a process that believes a body stored when it
// is not (here: taken out behind its back) has the append refused before
// anything changes, and sends it again with the body: the row is kept, its
// seq the next, and it reads back whole.
func TestRedisTapeBodyNotThere(t *testing.T) {
	ctx := context.Background()
	s := newRedis(t, time.Now)
	raw := newRedisClient(t)
	defer raw.Close()
	sb := createSandbox(t, s, storetest.NewTeam(), time.Hour, "alpha")
	row := readRow(sb, "alpha", "/issue", 2400)
	for range 2 { // whole, then stored
		if _, err := s.Append(ctx, sb, row); err != nil {
			t.Fatal(err)
		}
	}
	if n := raw.HLen(ctx, session.TapeBodiesKey(sb.ID, "alpha")).Val(); n != 1 {
		t.Fatalf("%d bodies stored after the second read", n)
	}
	raw.Del(ctx, session.TapeBodiesKey(sb.ID, "alpha"))
	again := readRow(sb, "alpha", "/issue", 2400)
	seq, err := s.Append(ctx, sb, again)
	if err != nil || seq != 3 {
		t.Fatalf("append: seq %d, %v", seq, err)
	}
	if n := raw.Get(ctx, session.TapeSeqKey(sb.ID, "alpha")).Val(); n != "3" {
		t.Errorf("tape seq %s after the refused try and the second, want 3", n)
	}
	got, err := s.TapeRaw(ctx, sb, "alpha", 2, 0)
	if err != nil || len(got) != 1 || string(got[0]) != encoded(again) {
		t.Fatalf("row 3: %v %q", err, got)
	}
	// The third append stored the body again, so row 2 reads whole too.
	if got, err := s.TapeRaw(ctx, sb, "alpha", 1, 1); err != nil || len(got) != 1 || !strings.HasPrefix(string(got[0]), `{"seq":2,`) || string(got[0][9:]) != encoded(row)[9:] {
		t.Errorf("row 2: %v %q", err, got)
	}
	// A body gone (nothing Pome does takes one out while the sandbox
	// lives) fails the read rather than give a row without its answer.
	raw.Del(ctx, session.TapeBodiesKey(sb.ID, "alpha"))
	if _, err := s.TapeRaw(ctx, sb, "alpha", 0, 0); err == nil || errors.Is(err, session.ErrNotFound) {
		t.Errorf("a row whose body is gone read as %v", err)
	}
	// A row whose reference cannot be read is an error, not a row.
	raw.RPush(ctx, session.TapeKey(sb.ID, "alpha"), "#not-a-reference")
	if _, err := s.TapeRaw(ctx, sb, "alpha", 3, 0); err == nil {
		t.Errorf("a malformed reference read without error")
	}
	// Discarded, the sandbox's rows and bodies go together.
	if err := s.Discard(ctx, sb.ID); err != nil {
		t.Fatal(err)
	}
	if n := raw.Exists(ctx, session.TapeBodiesKey(sb.ID, "alpha")).Val(); n != 0 {
		t.Errorf("bodies left after discard")
	}
}

// TestRedisTapeBodyPastCap: a row past the tape's cap is not kept, and
// neither is the body it would have referred to; such a body is sent
// again with the next row that refers to it.
func TestRedisTapeBodyPastCap(t *testing.T) {
	ctx := context.Background()
	s := newRedis(t, time.Now)
	s.SetMaxTapeRows(3)
	raw := newRedisClient(t)
	defer raw.Close()
	sb := createSandbox(t, s, storetest.NewTeam(), time.Hour, "alpha")
	for i, path := range []string{"/a", "/a", "/b", "/b", "/b"} {
		seq, err := s.Append(ctx, sb, readRow(sb, "alpha", path, 1500))
		if err != nil || seq != int64(i+1) {
			t.Fatalf("append %d: seq %d, %v", i+1, seq, err)
		}
	}
	if n := raw.HLen(ctx, session.TapeBodiesKey(sb.ID, "alpha")).Val(); n != 1 {
		t.Errorf("%d bodies stored, want 1 (/b's rows past the cap store none)", n)
	}
	if n := raw.LLen(ctx, session.TapeKey(sb.ID, "alpha")).Val(); n != 3 {
		t.Errorf("%d rows kept, want 3", n)
	}
}

// TestRedisTapeBodyResent: an append sent again after its reply was lost
// (the same call id) answers its first seq and stores nothing more, its
// body sent with it or not.
func TestRedisTapeBodyResent(t *testing.T) {
	s := newRedis(t, time.Now)
	raw := newRedisClient(t)
	defer raw.Close()
	sb := createSandbox(t, s, storetest.NewTeam(), time.Hour, "alpha")
	for i, id := range []string{"call_resent_0001", "call_resent_0002", "call_resent_0002", "call_resent_0003", "call_resent_0003"} {
		ctx := session.WithCallID(context.Background(), id)
		seq, err := s.Append(ctx, sb, readRow(sb, "alpha", "/a", 1500))
		if want := int64((i+1)/2 + 1); err != nil || seq != want {
			t.Fatalf("append %d (%s): seq %d, want %d; %v", i+1, id, seq, want, err)
		}
	}
	if n := raw.LLen(context.Background(), session.TapeKey(sb.ID, "alpha")).Val(); n != 3 {
		t.Errorf("%d rows for three calls, two of them sent twice", n)
	}
}
