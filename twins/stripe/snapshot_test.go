package stripe

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/pomehq/pome/twins"
)

// TestSnapshotJSON: a snapshot encodes as the JSON it was made of, and
// counts that JSON's length: made from compact JSON, from JSON with
// spaces (compacted, as a json.RawMessage encodes), from null, and the
// nil snapshot (null). Damaged bytes are an encoding error, not wrong
// JSON or a panic.
func TestSnapshotJSON(t *testing.T) {
	_, w := worldWithCustomers(t, 3)
	cus, _ := json.Marshal(w.Customers[0])
	for name, c := range map[string]struct{ in, want string }{
		"a customer":  {string(cus), string(cus)},
		"with spaces": {"{ \"id\" : \"cus_1\",\n \"object\": \"customer\" }", `{"id":"cus_1","object":"customer"}`},
		"null":        {"null", "null"},
		// Spaces inside strings, escaped quotes and backslashes: compact
		// as it is, or compacted only outside the strings.
		"spaces in strings":       {`{"name":"Load \"Test\" x","d":"a\\"}`, `{"name":"Load \"Test\" x","d":"a\\"}`},
		"space after a backslash": {`{"a":"x\\" , "b":"y z"}`, `{"a":"x\\","b":"y z"}`},
		"empty list":              {"[]", "[]"},
	} {
		t.Run(name, func(t *testing.T) {
			var s Snapshot
			if err := json.Unmarshal([]byte(c.in), &s); err != nil {
				t.Fatal(err)
			}
			got, err := json.Marshal(s)
			if err != nil || string(got) != c.want {
				t.Fatalf("encodes as %s, %v; want %s", got, err, c.want)
			}
			if n, err := s.JSONSize(); err != nil || n != int64(len(c.want)) {
				t.Fatalf("JSONSize %d, %v; want %d", n, err, len(c.want))
			}
		})
	}
	var none Snapshot
	if got, _ := json.Marshal(none); string(got) != "null" {
		t.Errorf("nil snapshot encodes as %s", got)
	}
	if n, _ := none.JSONSize(); n != 4 {
		t.Errorf("nil snapshot's size %d", n)
	}
	good := Snapshot(appendSnapshot(nil, cus))
	for name, bad := range map[string]Snapshot{
		"cut":          good[:len(good)-1],
		"no length":    {0xff},
		"longer":       append(Snapshot{byte(len(cus) + 1)}, good[2:]...),
		"not a length": append(Snapshot{0x80, 0x80, 0x80, 0x80, 0x80, 0x80}, good...),
	} {
		if got, err := json.Marshal(Event{Data: EventData{Object: bad}}); err == nil {
			t.Errorf("%s: encoded as %s", name, got)
		}
	}
	if _, err := (Snapshot{0xff}).JSONSize(); err == nil {
		t.Error("JSONSize of damaged bytes: no error")
	}
}

// TestSnapshotCompressed: a customer's snapshot is kept in well under
// half its JSON, and every event's snapshot of a world of customers reads
// back as its object did.
func TestSnapshotCompressed(t *testing.T) {
	_, w := worldWithCustomers(t, 100)
	byID := map[string]*Customer{}
	for _, c := range w.Customers {
		byID[c.ID] = c
	}
	var raw, kept int
	for i, e := range w.Events {
		js, err := e.Data.Object.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		var id struct{ ID string }
		json.Unmarshal(js, &id)
		want, _ := json.Marshal(byID[id.ID])
		if !bytes.Equal(js, want) {
			t.Fatalf("event %d holds %s, want %s", i, js, want)
		}
		raw += len(js)
		kept += len(e.Data.Object)
	}
	if kept*3 > raw {
		t.Errorf("%d customers' snapshots: %d bytes of JSON kept in %d", len(w.Events), raw, kept)
	}
}

// TestSnapshotWorldCopies: a world's copy shares its snapshots and, like
// the world decoded from its document, compares equal to it with no delta;
// an emitted event is the delta's one change.
func TestSnapshotWorldCopies(t *testing.T) {
	ctx, w := worldWithCustomers(t, 50)
	tw := New()
	doc, _ := json.Marshal(w)
	decoded, err := tw.DecodeWorld(doc)
	if err != nil {
		t.Fatal(err)
	}
	for _, other := range []any{tw.CopyWorld(w), decoded} {
		if d, ok, err := twins.WorldDelta(w, other); err != nil || !ok || string(d) != "[]" {
			t.Fatalf("copy: delta %s, %v, %v", d, ok, err)
		}
		again, _ := json.Marshal(other)
		if !bytes.Equal(again, doc) {
			t.Fatal("copy encodes apart from its world")
		}
	}
	before := tw.CopyWorld(w)
	a, _ := tw.Action("create_customer")
	in, _ := a.Decode(json.RawMessage(`{"email":"late@example.com"}`))
	if _, err := a.Run(ctx, w, in); err != nil {
		t.Fatal(err)
	}
	d, ok, err := twins.WorldDelta(before, w)
	if err != nil || !ok {
		t.Fatalf("delta: %v, %v", ok, err)
	}
	rebuilt, err := twins.ApplyDelta(before, d)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(rebuilt)
	want, _ := json.Marshal(w)
	if !bytes.Equal(got, want) {
		t.Fatal("world rebuilt from the delta encodes apart from the world")
	}
	if bytes.Count(d, []byte(`"customer.created"`)) != 1 {
		t.Fatalf("delta %s: want the one new event", d)
	}
}

// TestSnapshotSchema: an event's data.object is any JSON value in the
// schemas of the actions that answer events, as it was when it was a
// json.RawMessage.
func TestSnapshotSchema(t *testing.T) {
	a, _ := New().Action("retrieve_event")
	var s struct {
		Properties struct {
			Data struct {
				Properties map[string]struct {
					Type  any `json:"type"`
					Items any `json:"items"`
				} `json:"properties"`
			} `json:"data"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(a.OutputSchema(), &s); err != nil {
		t.Fatal(err)
	}
	obj, ok := s.Properties.Data.Properties["object"]
	types, _ := json.Marshal(obj.Type)
	if !ok || string(types) != `["null","boolean","number","string","array","object"]` || obj.Items != nil {
		t.Fatalf("data.object's schema: %+v (%s)", obj, types)
	}
}
