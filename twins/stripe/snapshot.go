package stripe

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"reflect"
	"sync"

	"github.com/pomehq/pome/internal/lz"
	"github.com/pomehq/pome/twins"
)

// Snapshot is an event's data.object: the object's JSON as it was when the
// event was emitted, kept compressed. A world keeps every event for good,
// and most of a snapshot is the keys, nulls and empty lists that every
// object of its type repeats, so it is compressed against a dictionary of
// those shapes (snapshotDict): a customer's 529 bytes are kept in 112
// (BenchmarkCustomerHeap). It encodes as the JSON it was made of.
//
// Its bytes are the JSON's length (a uvarint), then the JSON compressed;
// nil encodes as null. A Snapshot is never changed in place, so copies of a
// world share it.
type Snapshot []byte

// snapshotDict is what snapshots are compressed against: the JSON of an
// empty object of each type events carry, its nested objects present and
// empty (shaped), and a customer as created; the commonest last (nearest
// a snapshot, so its copies' offsets are shortest). It is made of the
// twin's own types, so it follows them as they change; a snapshot never
// outlives the process (the state document holds its JSON). It is built
// on first use, not at every start of the binary.
var snapshotDict = sync.OnceValue(func() *lz.Dict { return lz.NewDict(snapshotShapes()) })

func snapshotShapes() []byte {
	var d []byte
	cus := blankCustomer("cus_", 0, "")
	for _, v := range []any{
		shaped[Dispute](), shaped[Coupon](), shaped[PaymentLink](), shaped[Refund](), shaped[InvoiceItem](),
		shaped[Subscription](), shaped[Invoice](), shaped[Product](), shaped[Price](), shaped[PaymentMethod](),
		shaped[Charge](), shaped[PaymentIntent](), &cus,
	} {
		b, err := json.Marshal(v)
		if err != nil {
			panic(err)
		}
		d = append(d, b...)
	}
	return d
}

// shaped is an empty T whose fields that point to structs point to empty
// ones, shaped alike, down to a few levels: its JSON holds the keys of
// T's nested objects, as T's objects mostly do, where an empty T's has
// null.
func shaped[T any]() *T {
	v := new(T)
	fill(reflect.ValueOf(v).Elem(), 3)
	return v
}

func fill(v reflect.Value, depth int) {
	if depth == 0 || v.Kind() != reflect.Struct {
		return
	}
	for i := range v.NumField() {
		f := v.Field(i)
		if !v.Type().Field(i).IsExported() {
			continue
		}
		switch {
		case f.Kind() == reflect.Pointer && f.Type().Elem().Kind() == reflect.Struct:
			f.Set(reflect.New(f.Type().Elem()))
			fill(f.Elem(), depth-1)
		case f.Kind() == reflect.Struct:
			fill(f, depth-1)
		}
	}
}

func init() { twins.AnyJSON(reflect.TypeFor[Snapshot]()) }

// appendSnapshot appends js, compact JSON, to dst as a Snapshot's bytes.
func appendSnapshot(dst, js []byte) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(js)))
	return snapshotDict().Compress(dst, js)
}

var errSnapshot = errors.New("stripe: corrupt event snapshot")

// appendJSON appends the snapshot's JSON to dst.
func (s Snapshot) appendJSON(dst []byte) ([]byte, error) {
	if s == nil {
		return append(dst, "null"...), nil
	}
	raw, k := binary.Uvarint(s)
	if k <= 0 || raw > 1<<30 {
		return nil, errSnapshot
	}
	return snapshotDict().Decompress(dst, s[k:], int(raw))
}

// MarshalJSON is the JSON the snapshot was made of.
func (s Snapshot) MarshalJSON() ([]byte, error) { return s.appendJSON(nil) }

// UnmarshalJSON keeps data, compacted, as a snapshot (null too, as a
// json.RawMessage would).
func (s *Snapshot) UnmarshalJSON(data []byte) error {
	if !compact(data) {
		var c bytes.Buffer
		if err := json.Compact(&c, data); err != nil {
			return err
		}
		data = c.Bytes()
	}
	buf := snapshotBufs.Get().(*[]byte)
	z := appendSnapshot((*buf)[:0], data)
	*s = bytes.Clone(z)
	putSnapshotBuf(buf, z)
	return nil
}

// compact reports whether data, JSON that encoding/json has checked, has
// no space outside its strings (a state document's snapshots, which
// encoding/json wrote): such data needs no compacting.
func compact(data []byte) bool {
	in := false
	for i := 0; i < len(data); i++ {
		switch c := data[i]; {
		case in && c == '\\':
			i++ // the escaped byte
		case c == '"':
			in = !in
		case !in && (c == ' ' || c == '\t' || c == '\n' || c == '\r'):
			return false
		}
	}
	return true
}

// JSONSize is the length of the snapshot's JSON (twins.Sizer).
func (s Snapshot) JSONSize() (int64, error) {
	if s == nil {
		return 4, nil
	}
	raw, k := binary.Uvarint(s)
	if k <= 0 {
		return 0, errSnapshot
	}
	return int64(raw), nil
}

// CopyValue is the snapshot itself: it is never changed in place
// (twins.Copier).
func (s Snapshot) CopyValue() any { return s }

// ByteEncoded: equal bytes are equal JSON (twins.ByteEncoded).
func (Snapshot) ByteEncoded() {}
