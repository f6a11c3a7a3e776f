package rest_test

import (
	"context"
	"encoding/json"
	"net/http"
	"sync"
	"sync/atomic"

	"github.com/pomehq/pome/twins"
)

// noteGates lets a test stop create_note of a given text mid-write: each
// run signals entered, then waits for release (closed: runs pass).
var noteGates sync.Map // text -> *noteGate

type noteGate struct {
	entered chan struct{}
	release chan struct{}
	runs    atomic.Int32
}

func (g *noteGate) enter() {
	if g.runs.Add(1) == 1 {
		close(g.entered)
	}
	<-g.release
}

// notes is a minimal twin for transport tests: independent of any vendor
// twin, so the transports are tested on their own.
type notesWorld struct {
	Next  int            `json:"next"`
	Notes map[int]string `json:"notes"`
	Tags  []string       `json:"tags"`
}

type noteIn struct {
	Text  string            `json:"text"`
	Count int               `json:"count,omitempty"`
	Flag  bool              `json:"flag,omitempty"`
	Tags  []string          `json:"tags,omitempty"`
	Meta  map[string]string `json:"metadata,omitempty"`
}

type noteOut struct {
	ID    int               `json:"id"`
	Text  string            `json:"text"`
	Count int               `json:"count"`
	Flag  bool              `json:"flag"`
	Tags  []string          `json:"tags"`
	Meta  map[string]string `json:"metadata,omitempty"`
}

type getIn struct {
	ID int `json:"id"`
}

type tagIn struct {
	Tag string `json:"tag"`
}

type rawIn struct {
	Raw string `json:"raw"`
}

func notesTwin(strict bool) *twins.Twin {
	newWorld, decode := twins.WorldCodec(func(ctx context.Context, seed json.RawMessage) (*notesWorld, error) {
		w := &notesWorld{Next: 1, Notes: map[int]string{}}
		if seed != nil {
			if err := twins.DecodeSeed(seed, w); err != nil {
				return nil, err
			}
		}
		return w, nil
	})
	t := &twins.Twin{
		Name: "notes", Title: "Notes", TokenPrefix: "nt_", TokenInBody: true, StrictParams: strict,
		NewWorld: newWorld, DecodeWorld: decode,
		AliasPrefixes:   map[string]string{"/api/": "/"},
		RootPaths:       []string{"/v1/"},
		RequestIDHeader: "Request-Id",
		ETags:           true,
		RESTError: func(e *twins.Error) (int, any) {
			status := http.StatusBadRequest
			switch e.Code {
			case twins.NotFound:
				status = http.StatusNotFound
			case twins.TooLarge:
				status = http.StatusRequestEntityTooLarge
			case twins.RateLimited:
				status = http.StatusTooManyRequests
			case twins.NotImplemented:
				u, _ := twins.UnsupportedOf(e)
				return http.StatusNotImplemented, map[string]any{"error": "not_implemented", "message": e.Message, "twin": u.Twin, "supported": u.Supported, "pome": u}
			}
			return status, map[string]any{"message": e.Message, "code": e.Vendor, "field": e.Field}
		},
		Actions: []twins.Action{
			twins.New(twins.Spec{Name: "create_note", Title: "Create note", Description: "Creates a note.", Effect: twins.Write,
				Bindings: []twins.Binding{
					{Method: "POST", Path: "/notes", Status: 201},
					{Method: "POST", Path: "/api/notes.create", Rename: map[string]string{"body": "text"}},
				}},
				func(ctx context.Context, w *notesWorld, in noteIn) (noteOut, error) {
					if in.Text == "" {
						return noteOut{}, twins.Errorf(twins.Invalid, "no_text", "text is required").WithField("text")
					}
					if gate, ok := noteGates.Load(in.Text); ok {
						// A test holds this write here (see noteGates).
						gate.(*noteGate).enter()
					}
					id := w.Next
					w.Next++
					w.Notes[id] = in.Text
					return noteOut{ID: id, Text: in.Text, Count: in.Count, Flag: in.Flag, Tags: in.Tags, Meta: in.Meta}, nil
				}),
			twins.New(twins.Spec{Name: "get_note", Title: "Get note", Description: "Reads a note.", Effect: twins.Read,
				Bindings: []twins.Binding{{Method: "GET", Path: "/notes/{id}"}, {Method: "GET", Path: "/v1/notes/{id}"}}},
				func(ctx context.Context, w *notesWorld, in getIn) (noteOut, error) {
					text, ok := w.Notes[in.ID]
					if !ok {
						return noteOut{}, twins.Errorf(twins.NotFound, "not_found", "Not Found")
					}
					return noteOut{ID: in.ID, Text: text}, nil
				}),
			twins.New(twins.Spec{Name: "add_tag", Title: "Add tag", Description: "Adds a tag once.", Effect: twins.Write,
				Bindings: []twins.Binding{{Method: "POST", Path: "/tags"}}},
				func(ctx context.Context, w *notesWorld, in tagIn) (map[string]any, error) {
					for _, t := range w.Tags {
						if t == in.Tag {
							twins.Unchanged(ctx)
							return map[string]any{"tags": w.Tags}, nil
						}
					}
					w.Tags = append(w.Tags, in.Tag)
					return map[string]any{"tags": w.Tags}, nil
				}),
			twins.New(twins.Spec{Name: "send_raw", Title: "Send raw", Description: "Takes a raw body.", Effect: twins.Write,
				Bindings: []twins.Binding{{Method: "POST", Path: "/upload/raw", Body: "raw"}}},
				func(ctx context.Context, w *notesWorld, in rawIn) (map[string]any, error) {
					twins.Unchanged(ctx)
					return map[string]any{"len": len(in.Raw), "raw": in.Raw}, nil
				}),
		},
	}
	return t.Finish()
}
