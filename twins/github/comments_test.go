package github

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/pomehq/pome/twins"
)

// A stored comment holds no pointer: that is the point of CommentList, and
// a field added with one would quietly bring the collector's work back.
func TestStoredCommentPointerFree(t *testing.T) {
	var hasPointers func(reflect.Type) bool
	hasPointers = func(t reflect.Type) bool {
		switch t.Kind() {
		case reflect.Struct:
			for i := range t.NumField() {
				if hasPointers(t.Field(i).Type) {
					return true
				}
			}
			return false
		case reflect.Array:
			return hasPointers(t.Elem())
		case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
			reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128:
			return false
		}
		return true
	}
	if hasPointers(reflect.TypeFor[storedComment]()) {
		t.Fatal("storedComment holds a pointer")
	}
}

func sampleComments() []Comment {
	at := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	return []Comment{
		{ID: 1, User: "octocat", Body: "First!", CreatedAt: at, UpdatedAt: at},
		{ID: 2, User: "hubot", Body: strings.Repeat("long body ", 1500), CreatedAt: at.Add(time.Hour), UpdatedAt: at.Add(2 * time.Hour),
			Reactions: []*Reaction{{ID: 9, User: "octocat", Content: "+1", CreatedAt: at}}},
		{ID: 3}, // no user, no body, zero times
		{ID: 4, Body: "a body without a user", CreatedAt: time.Date(2026, 3, 4, 7, 6, 7, 5, time.FixedZone("CEST", 2*3600))},
		{ID: 5, User: "mona", Body: "<script>&\u2028 \"quoted\" é", CreatedAt: at, UpdatedAt: at},
	}
}

// The list's JSON is the []Comment's it replaced, byte for byte, times
// written in UTC; it decodes back to the same comments, and JSONSize
// counts it.
func TestCommentListJSON(t *testing.T) {
	cs := sampleComments()
	var l CommentList
	for _, c := range cs {
		l.Append(c)
	}
	for i := range cs {
		cs[i].CreatedAt, cs[i].UpdatedAt = cs[i].CreatedAt.UTC(), cs[i].UpdatedAt.UTC()
	}
	want, _ := json.Marshal(cs)
	got, err := json.Marshal(l)
	if err != nil || string(got) != string(want) {
		t.Fatalf("list encodes as\n%s (%v), want\n%s", got, err, want)
	}
	if n, err := l.JSONSize(); err != nil || n != int64(len(want)) {
		t.Fatalf("JSONSize %d (%v), want %d", n, err, len(want))
	}
	is, _ := json.Marshal(&Issue{Comments: l})
	if n, err := twins.EncodedSize(&Issue{Comments: l}); err != nil || n != int64(len(is)) {
		t.Fatalf("an issue's EncodedSize %d (%v) is not its encoding's length, %d", n, err, len(is))
	}
	var back CommentList
	if err := json.Unmarshal(got, &back); err != nil {
		t.Fatal(err)
	}
	if again, _ := json.Marshal(back); string(again) != string(want) {
		t.Fatalf("decoded list encodes as %s", again)
	}
	if !reflect.DeepEqual(back.Slice(), cs) {
		t.Fatalf("decoded comments %+v, want %+v", back.Slice(), cs)
	}
	for _, in := range []string{`[]`, `null`} {
		var e CommentList
		e.Append(Comment{ID: 7, Body: "replaced"})
		if err := json.Unmarshal([]byte(in), &e); err != nil || e.Len() != 0 {
			t.Fatalf("%s decodes to %d comments (%v)", in, e.Len(), err)
		}
		if b, _ := json.Marshal(e); string(b) != "[]" {
			t.Fatalf("an empty list encodes as %s", b)
		}
		if n, _ := e.JSONSize(); n != 2 {
			t.Fatalf("an empty list's JSONSize is %d", n)
		}
	}
	var bad CommentList
	if err := json.Unmarshal([]byte(`[{"id":"one"}]`), &bad); err == nil {
		t.Fatal("a comment with a string id decoded")
	}
}

// Edits, deletions and reactions change the comment they name and no
// other; strings read before a change still read the same after it,
// compaction included.
func TestCommentListChanges(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var l CommentList
	var want []Comment
	var readEarlier []string // bodies read from the list before later changes
	var readWant []string
	body := func() string { return strings.Repeat(fmt.Sprint(rng.IntN(10)), 1+rng.IntN(3000)) }
	for step := range 5000 {
		switch op := rng.IntN(6); {
		case op < 2 || len(want) == 0:
			c := Comment{ID: int64(step), User: fmt.Sprintf("user%d", step%7), Body: body(),
				CreatedAt: time.Unix(int64(step), int64(step)).UTC(), UpdatedAt: time.Unix(int64(step), 0).UTC()}
			l.Append(c)
			want = append(want, c)
		case op < 3:
			i := rng.IntN(len(want))
			l.Delete(i)
			want = append(want[:i], want[i+1:]...)
		case op < 5:
			i := rng.IntN(len(want))
			b, at := body(), time.Unix(int64(step), 1).UTC()
			l.SetBody(i, b, at)
			want[i].Body, want[i].UpdatedAt = b, at
		default:
			i := rng.IntN(len(want))
			rs := l.Reactions(i)
			*rs = append(*rs, &Reaction{ID: int64(step), User: "mona", Content: "heart"})
			want[i].Reactions = *rs
		}
		if len(want) > 0 {
			i := rng.IntN(len(want))
			readEarlier = append(readEarlier, l.At(i).Body)
			readWant = append(readWant, want[i].Body)
		}
		if l.Len() != len(want) {
			t.Fatalf("step %d: %d comments, want %d", step, l.Len(), len(want))
		}
	}
	for i, c := range l.All() {
		if w := want[i]; c.ID != w.ID || c.User != w.User || c.Body != w.Body || !c.CreatedAt.Equal(w.CreatedAt) ||
			!c.UpdatedAt.Equal(w.UpdatedAt) || !reflect.DeepEqual(c.Reactions, w.Reactions) {
			t.Fatalf("comment %d reads %+v, want %+v", i, c, w)
		}
		if got := l.Index(c.ID); got != i {
			t.Fatalf("Index(%d) = %d, want %d", c.ID, got, i)
		}
	}
	if l.Index(-1) != -1 {
		t.Fatal("Index found an id never added")
	}
	for k := range readEarlier {
		if readEarlier[k] != readWant[k] {
			t.Fatalf("a body read at step %d changed to %.20q…", k, readEarlier[k])
		}
	}
}

// A list whose comments have no text at all (nothing kept in chunks yet)
// edits and deletes them like any other.
func TestCommentListWithoutText(t *testing.T) {
	var l CommentList
	l.Append(Comment{ID: 1})
	l.Append(Comment{ID: 2})
	l.SetBody(0, "now with a body", time.Unix(5, 0))
	l.Delete(1)
	if l.Len() != 1 || l.At(0).Body != "now with a body" || l.At(0).User != "" || !l.At(0).UpdatedAt.Equal(time.Unix(5, 0)) {
		t.Fatalf("list reads %+v", l.Slice())
	}
	var m CommentList
	m.Append(Comment{ID: 3})
	m.Delete(0)
	if m.Len() != 0 {
		t.Fatalf("%d comments left", m.Len())
	}
}

// A value copy shares the list as a slice copy would; CopyValue shares
// nothing, reactions included.
func TestCommentListCopies(t *testing.T) {
	var l CommentList
	for _, c := range sampleComments() {
		l.Append(c)
	}
	cp := l.CopyValue().(CommentList)
	cp.SetBody(0, "changed in the copy", time.Unix(1, 0))
	rs := cp.Reactions(1)
	(*rs)[0].Content = "-1"
	*rs = append(*rs, &Reaction{ID: 10})
	cp.Append(Comment{ID: 99, Body: "only in the copy"})
	if c := l.At(0); c.Body != "First!" {
		t.Fatalf("the original's body became %q", c.Body)
	}
	if c := l.At(1); len(c.Reactions) != 1 || c.Reactions[0].Content != "+1" {
		t.Fatalf("the original's reactions became %+v", c.Reactions)
	}
	if l.Len() != 5 || cp.Len() != 6 {
		t.Fatalf("lengths %d and %d", l.Len(), cp.Len())
	}
	// Appends to value copies of a list share its records as appends to
	// copies of a slice do, but never write over each other's text: a
	// body read from one still reads the same.
	a, b := l, l
	a.Append(Comment{ID: 100, Body: "appended to a"})
	s := a.At(5).Body
	b.Append(Comment{ID: 101, Body: "appended to b"})
	if s != "appended to a" {
		t.Fatalf("a's comment, read before b's append, reads %q", s)
	}
	if got := b.At(5).Body; got != "appended to b" {
		t.Fatalf("b's comment reads %q", got)
	}
}
