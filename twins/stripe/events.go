package stripe

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"sync"

	"github.com/pomehq/pome/internal/strchunk"
	"github.com/pomehq/pome/twins"
)

// snapshotBufs are the buffers a snapshot is compressed in before it is
// kept; one longer than maxSnapshotBuf is not kept for the next.
var snapshotBufs = sync.Pool{New: func() any { return new([]byte) }}

const maxSnapshotBuf = 64 << 10

// putSnapshotBuf returns buf, which now holds z, to snapshotBufs.
func putSnapshotBuf(buf *[]byte, z []byte) {
	if cap(z) <= maxSnapshotBuf {
		*buf = z
		snapshotBufs.Put(buf)
	}
}

// emit records an event whose data.object is a snapshot of obj as it is
// now; later changes to obj do not alter it, as with Stripe.
func (w *World) emit(ctx context.Context, typ string, obj any, prev map[string]any) *Event {
	snap, err := json.Marshal(obj)
	if err != nil {
		panic(err)
	}
	// The event and its snapshot, compressed, are kept with the world's
	// others (see World.text and World.eventSlab): a world's events only
	// grow.
	buf := snapshotBufs.Get().(*[]byte)
	z := appendSnapshot((*buf)[:0], snap)
	kept := Snapshot(w.text.KeepBytes(z))
	if len(z) > strchunk.MaxLen {
		// Too long for a chunk: KeepBytes kept z itself.
		kept = Snapshot(bytes.Clone(z))
	}
	putSnapshotBuf(buf, z)
	ev := w.eventSlab.New()
	*ev = Event{
		ID: w.newID("evt"), Object: "event", APIVersion: APIVersion, Created: now(ctx),
		Data: EventData{Object: kept, PreviousAttributes: prev}, Type: typ,
	}
	w.Events = append(w.Events, ev)
	return ev
}

// ListEventsInput filters the event list.
type ListEventsInput struct {
	listParams
	Type    string   `json:"type,omitempty" jsonschema:"an event type, or a prefix with a * wildcard such as payment_intent.*"`
	Types   []string `json:"types,omitempty" jsonschema:"up to 20 event types; mutually exclusive with type"`
	Created any      `json:"created,omitempty" jsonschema:"a unix timestamp or a range object with gt, gte, lt, lte"`

	DeliverySuccess *bool `json:"delivery_success,omitempty"`
}

// RetrieveEventInput names an event.
type RetrieveEventInput struct {
	Event  string   `json:"event" jsonschema:"the event id (evt_…)"`
	Expand []string `json:"expand,omitempty"`
}

func eventTypeMatches(pattern, typ string) bool {
	if strings.HasSuffix(pattern, "*") {
		return strings.HasPrefix(typ, strings.TrimSuffix(pattern, "*"))
	}
	return pattern == typ
}

func listEvents(ctx context.Context, w *World, in ListEventsInput) (List[*Event], error) {
	if in.Type != "" && len(in.Types) > 0 {
		return List[*Event]{}, invalidParam("types", "", "You may only specify one of these parameters: type, types.")
	}
	created, err := parseRange("created", in.Created)
	if err != nil {
		return List[*Event]{}, err
	}
	var items []*Event
	for _, e := range w.Events {
		if in.Type != "" && !eventTypeMatches(in.Type, e.Type) {
			continue
		}
		if len(in.Types) > 0 {
			ok := false
			for _, t := range in.Types {
				ok = ok || eventTypeMatches(t, e.Type)
			}
			if !ok {
				continue
			}
		}
		if !created.contains(e.Created) {
			continue
		}
		items = append(items, e)
	}
	items = newestFirst(items, func(e *Event) int64 { return e.Created })
	return paginate(w, items, func(e *Event) string { return e.ID }, in.listParams, "/v1/events", "event", nil)
}

func retrieveEvent(ctx context.Context, w *World, in RetrieveEventInput) (*Event, error) {
	e := w.event(in.Event)
	if e == nil {
		return nil, noSuch("event", in.Event, "id")
	}
	if len(in.Expand) > 0 {
		return nil, invalidParam("expand", "", "This property cannot be expanded (%s).", in.Expand[0])
	}
	return e, nil
}

func eventActions() []twins.Action {
	return []twins.Action{
		twins.New(twins.Spec{
			Name: "list_events", Title: "List events",
			Description: "List events (newest first), optionally filtered by type (payment_intent.succeeded, charge.refunded, customer.created, …; a trailing * matches a prefix) and creation time.",
			Effect:      twins.Read,
			Bindings:    []twins.Binding{{Method: "GET", Path: "/v1/events"}},
		}, listEvents),
		twins.New(twins.Spec{
			Name: "retrieve_event", Title: "Retrieve an event",
			Description: "Retrieve one event by id; data.object is the object as it was when the event happened.",
			Effect:      twins.Read,
			Bindings:    []twins.Binding{{Method: "GET", Path: "/v1/events/{event}"}},
		}, retrieveEvent),
	}
}
