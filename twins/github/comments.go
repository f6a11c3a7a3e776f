package github

import (
	"encoding/json"
	"iter"
	"slices"
	"time"
	"unsafe"

	"github.com/pomehq/pome/twins"
)

// CommentList is an issue's conversation comments, kept so that the
// collector has nothing to read in them.
//
// Why: a world under a stream of comments is mostly comments, and the
// collector reads every pointer the live heap holds on every collection.
// Stored as Comment values, each comment was five pointer words (its two
// strings, its two times' locations, its reactions), two of them reaching
// other heap objects. A full collection of a heap holding 300,000
// comments took 13.2-13.5 ms on two cores; kept as here, with the comment
// index holding positions, 4.5-5.4 ms, of which 2.3 ms is the same heap
// without the comments (BenchmarkCollectComments, BenchmarkCollectSeed).
// Here a comment is a fixed record of integers (its id, its times as
// seconds and nanoseconds, where its login and body lie in the list's
// text chunks), and a collection reads the chunks' and the records'
// headers, not the comments.
//
// The zero CommentList is empty and ready to use. Its JSON is the list of
// Comment values it holds, as []Comment's was (an empty list is []).
// Comments read from it (At, All, Slice) are copies: change one through
// Append, SetBody, Reactions or Delete. Its strings are never overwritten
// once returned (chunks are only appended to, and a compaction moves the
// live texts to new chunks), so a Comment read from it stays valid after
// the list changes. Value copies of a list (an Issue copied by value)
// share its records and chunks like copies of a slice did; CopyValue makes
// a list that shares nothing. Times are kept as instants: they come back
// in UTC, which is how GitHub renders them.
//
// Like the world it belongs to, a list is read concurrently and written
// under the world's write lock.
type CommentList struct {
	items []storedComment
	t     *commentText
}

// storedComment is a comment as the list keeps it: no pointer.
type storedComment struct {
	id                       int64
	createdSec, updatedSec   int64
	createdNsec, updatedNsec int32
	// chunk and off place the comment's text in the list's chunks: its
	// login (userLen bytes), then its body (bodyLen bytes).
	chunk, off, userLen, bodyLen uint32
	// react is the index + 1 of the comment's reactions in the list's
	// reaction lists, or 0 for none.
	react uint32
}

// commentText is what a list's records refer to: its text chunks and its
// comments' reactions. Value copies of a list share it.
type commentText struct {
	chunks [][]byte
	// held and freed count the text bytes the chunks hold and those no
	// comment refers to any longer, for compaction.
	held, freed int
	reacts      [][]*Reaction
	// freeReacts counts the reaction lists no comment refers to.
	freeReacts int
}

const (
	// commentChunkMin and commentChunkMax bound a chunk's size: a list's
	// first chunk is small (most issues have a few comments), each next
	// one twice as large as the one before, up to the largest; a text
	// longer than that has a chunk of its own size.
	commentChunkMin = 256
	commentChunkMax = 8 << 10
	// compactAfter is the fewest freed text bytes that can start a
	// compaction (which also needs them to be half of what is held).
	compactAfter = 4 << 10
)

// Len is the number of comments.
func (l *CommentList) Len() int { return len(l.items) }

// ID is the id of the i-th comment.
func (l *CommentList) ID(i int) int64 { return l.items[i].id }

// Index is the position of the comment with id, or -1.
func (l *CommentList) Index(id int64) int {
	for i := range l.items {
		if l.items[i].id == id {
			return i
		}
	}
	return -1
}

// At is a copy of the i-th comment.
func (l *CommentList) At(i int) Comment {
	s := &l.items[i]
	c := Comment{
		ID:        s.id,
		CreatedAt: instant(s.createdSec, s.createdNsec),
		UpdatedAt: instant(s.updatedSec, s.updatedNsec),
	}
	if n := s.userLen + s.bodyLen; n > 0 {
		b := l.t.chunks[s.chunk][s.off : s.off+n]
		if s.userLen > 0 {
			c.User = unsafe.String(&b[0], s.userLen)
		}
		if s.bodyLen > 0 {
			c.Body = unsafe.String(&b[s.userLen], s.bodyLen)
		}
	}
	if s.react > 0 {
		c.Reactions = l.t.reacts[s.react-1]
	}
	return c
}

// All yields each comment's position and a copy of it, in order.
func (l *CommentList) All() iter.Seq2[int, Comment] {
	return func(yield func(int, Comment) bool) {
		for i := range l.items {
			if !yield(i, l.At(i)) {
				return
			}
		}
	}
}

// Slice is a copy of every comment, in order (never nil).
func (l *CommentList) Slice() []Comment {
	out := make([]Comment, len(l.items))
	for i := range l.items {
		out[i] = l.At(i)
	}
	return out
}

// Append adds c at the end.
func (l *CommentList) Append(c Comment) {
	var s storedComment
	s.id = c.ID
	s.createdSec, s.createdNsec = stampOf(c.CreatedAt)
	s.updatedSec, s.updatedNsec = stampOf(c.UpdatedAt)
	l.keepText(&s, c.User, c.Body)
	if c.Reactions != nil {
		l.text().reacts = append(l.t.reacts, c.Reactions)
		s.react = uint32(len(l.t.reacts))
	}
	l.items = append(l.items, s)
}

// SetBody gives the i-th comment a new body and updated time.
func (l *CommentList) SetBody(i int, body string, updated time.Time) {
	c := l.At(i)
	s := &l.items[i]
	l.text().freed += int(s.userLen + s.bodyLen)
	l.keepText(s, c.User, body)
	s.updatedSec, s.updatedNsec = stampOf(updated)
	l.compact()
}

// Reactions is the i-th comment's list of reactions, to change in place.
func (l *CommentList) Reactions(i int) *[]*Reaction {
	s := &l.items[i]
	if s.react == 0 {
		l.text().reacts = append(l.t.reacts, nil)
		s.react = uint32(len(l.t.reacts))
	}
	return &l.t.reacts[s.react-1]
}

// Delete removes the i-th comment.
func (l *CommentList) Delete(i int) {
	s := l.items[i]
	l.text().freed += int(s.userLen + s.bodyLen)
	if s.react > 0 {
		l.t.reacts[s.react-1] = nil
		l.t.freeReacts++
	}
	l.items = slices.Delete(l.items, i, i+1)
	l.compact()
}

func (l *CommentList) text() *commentText {
	if l.t == nil {
		l.t = &commentText{}
	}
	return l.t
}

// keepText appends user and body to the list's last chunk (or a new one)
// and points s at them.
func (l *CommentList) keepText(s *storedComment, user, body string) {
	n := len(user) + len(body)
	s.userLen, s.bodyLen = uint32(len(user)), uint32(len(body))
	if n == 0 {
		s.chunk, s.off = 0, 0
		return
	}
	t := l.text()
	last := len(t.chunks) - 1
	if last < 0 || len(t.chunks[last])+n > cap(t.chunks[last]) {
		size := commentChunkMin
		if last >= 0 {
			size = min(2*cap(t.chunks[last]), commentChunkMax)
		}
		t.chunks = append(t.chunks, make([]byte, 0, max(size, n)))
		last++
	}
	c := t.chunks[last]
	s.chunk, s.off = uint32(last), uint32(len(c))
	c = append(c, user...)
	t.chunks[last] = append(c, body...)
	t.held += n
}

// compact moves the live texts and reactions to a new commentText once
// more than half of what the chunks hold is text no comment refers to.
// Value copies of the list that still hold the old one keep it unchanged.
func (l *CommentList) compact() {
	t := l.t
	if t.freed < compactAfter || 2*t.freed < t.held {
		if t.freeReacts < 64 || 2*t.freeReacts < len(t.reacts) {
			return
		}
	}
	old := l.items
	l.items = make([]storedComment, 0, len(old))
	l.t = nil
	from := CommentList{items: old, t: t}
	for i := range old {
		l.Append(from.At(i))
	}
}

// stampOf and instant keep a time as an instant: seconds since the Unix
// epoch and nanoseconds (the zero time included).
func stampOf(t time.Time) (int64, int32) { return t.Unix(), int32(t.Nanosecond()) }

func instant(sec int64, nsec int32) time.Time { return time.Unix(sec, int64(nsec)).UTC() }

// MarshalJSON encodes the comments as a list of Comment values.
func (l CommentList) MarshalJSON() ([]byte, error) { return json.Marshal(l.Slice()) }

// UnmarshalJSON replaces the list with the comments of a JSON list of
// Comment values (null: none).
func (l *CommentList) UnmarshalJSON(b []byte) error {
	var cs []Comment
	if err := json.Unmarshal(b, &cs); err != nil {
		return err
	}
	*l = CommentList{}
	for _, c := range cs {
		l.Append(c)
	}
	return nil
}

// JSONSize is the length of MarshalJSON's encoding, counted (twins.Sizer).
func (l CommentList) JSONSize() (int64, error) {
	n := int64(2 + max(len(l.items)-1, 0))
	c := new(Comment)
	for i := range l.items {
		*c = l.At(i)
		k, err := twins.EncodedSize(c)
		if err != nil {
			return 0, err
		}
		n += k
	}
	return n, nil
}

// CopyValue is a copy of the list sharing nothing with it (twins.Copier).
func (l CommentList) CopyValue() any {
	var out CommentList
	for i := range l.items {
		c := l.At(i)
		if c.Reactions != nil {
			rs := make([]*Reaction, len(c.Reactions))
			for k, r := range c.Reactions {
				cp := *r
				rs[k] = &cp
			}
			c.Reactions = rs
		}
		out.Append(c)
	}
	return out
}

// held is the text bytes the list's chunks hold, live or not.
func (l *CommentList) held() int {
	if l.t == nil {
		return 0
	}
	return l.t.held
}
