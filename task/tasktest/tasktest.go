// Package tasktest is a small twin for testing task parsing, grading and
// runs without depending on any vendor twin: a notebook of notes with one
// check of every substrate and polarity.
package tasktest

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/pomehq/pome/twins"
)

// World is the notebook: notes in creation order.
type World struct {
	Next  int    `json:"next"`
	Notes []Note `json:"entries"`
}

// Note is one note.
type Note struct {
	ID   int    `json:"id"`
	Text string `json:"text"`
}

type createIn struct {
	Text string `json:"text"`
}

type listIn struct{}

// Twin returns a notebook twin with the given name ("notes", "board", …),
// so that tests can build multi-twin registries.
func Twin(name string) *twins.Twin {
	newWorld, decode := twins.WorldCodec(func(ctx context.Context, seed json.RawMessage) (*World, error) {
		w := &World{Next: 1, Notes: []Note{}}
		if seed != nil {
			if err := twins.DecodeSeed(seed, w); err != nil {
				return nil, err
			}
			for i, n := range w.Notes {
				if n.Text == "" {
					return nil, twins.SeedErrorf(twins.Pointer("entries", i, "text"), "a note needs text")
				}
			}
			if w.Next == 0 {
				w.Next = len(w.Notes) + 1
			}
		}
		return w, nil
	})
	textParam := twins.Param{Name: "text", Type: "string", Pattern: `[^"]*`, Example: "hello"}
	t := &twins.Twin{
		Name: name, Title: "Notebook " + name, TokenPrefix: name + "_",
		NewWorld: newWorld, DecodeWorld: decode,
		RESTError: func(e *twins.Error) (int, any) {
			return 400, map[string]any{"message": e.Message}
		},
		Actions: []twins.Action{
			twins.New(twins.Spec{Name: "create_note", Title: "Create note", Description: "Writes a note.", Effect: twins.Write,
				Bindings: []twins.Binding{{Method: "POST", Path: "/notes", Status: 201}}},
				func(ctx context.Context, w *World, in createIn) (Note, error) {
					if in.Text == "" {
						return Note{}, twins.Errorf(twins.Invalid, "no_text", "text is required")
					}
					n := Note{ID: w.Next, Text: in.Text}
					w.Next++
					w.Notes = append(w.Notes, n)
					return n, nil
				}),
			twins.New(twins.Spec{Name: "list_notes", Title: "List notes", Description: "Lists notes.", Effect: twins.Read,
				Bindings: []twins.Binding{{Method: "GET", Path: "/notes"}}},
				func(ctx context.Context, w *World, in listIn) ([]Note, error) { return w.Notes, nil }),
		},
		Checks: []*twins.Check{
			{
				ID: name + ".note-contains", Template: `A note contains "{text}"`, Params: []twins.Param{textParam},
				Substrate: twins.SubstrateFinal, Polarity: twins.Positive, Description: "Some note contains the text.",
				Eval: func(in *twins.Input, args map[string]string) (twins.Result, error) {
					w, err := twins.World[World](in.Final)
					if err != nil {
						return twins.Result{}, err
					}
					for i, n := range w.Notes {
						if strings.Contains(n.Text, args["text"]) {
							return twins.Pass(fmt.Sprintf("note %d contains %q", n.ID, args["text"]), twins.Evidence{StatePaths: []string{twins.Pointer("entries", i, "text")}}), nil
						}
					}
					return twins.Fail(fmt.Sprintf("none of %d notes contains %q", len(w.Notes), args["text"]), twins.Evidence{StatePaths: []string{"/entries"}}), nil
				},
			},
			{
				ID: name + ".no-note-contains", Template: `No note contains "{text}"`, Params: []twins.Param{textParam},
				Substrate: twins.SubstrateFinal, Polarity: twins.Negative, Description: "No note contains the text.",
				Eval: func(in *twins.Input, args map[string]string) (twins.Result, error) {
					w, err := twins.World[World](in.Final)
					if err != nil {
						return twins.Result{}, err
					}
					for i, n := range w.Notes {
						if strings.Contains(n.Text, args["text"]) {
							return twins.Fail(fmt.Sprintf("note %d contains %q", n.ID, args["text"]), twins.Evidence{StatePaths: []string{twins.Pointer("entries", i, "text")}}), nil
						}
					}
					return twins.Pass("no note contains it", twins.Evidence{StatePaths: []string{"/entries"}}), nil
				},
			},
			{
				ID: name + ".no-new-notes", Template: "No new note was written",
				Substrate: twins.SubstrateSeedFinal, Polarity: twins.Negative, Description: "Every note was in the seed.",
				Eval: func(in *twins.Input, args map[string]string) (twins.Result, error) {
					s, err := twins.World[World](in.Seed)
					if err != nil {
						return twins.Result{}, err
					}
					f, err := twins.World[World](in.Final)
					if err != nil {
						return twins.Result{}, err
					}
					if len(f.Notes) > len(s.Notes) {
						return twins.Fail(fmt.Sprintf("%d new note(s)", len(f.Notes)-len(s.Notes)), twins.Evidence{StatePaths: []string{twins.Pointer("entries", len(s.Notes))}}), nil
					}
					return twins.Pass("no new note", twins.Evidence{}), nil
				},
			},
			{
				// Its polarity follows its argument, as the original Pome's
				// issue-state does: "kept" guards a note (negative), "gone"
				// asks that it be removed (positive).
				ID: name + ".note-state", Template: "Note #{id} is {state}",
				Params: []twins.Param{
					{Name: "id", Type: "integer", Pattern: `[0-9]+`, Example: "1"},
					{Name: "state", Type: "enum", Pattern: `kept|gone`, Example: "kept"},
				},
				Substrate: twins.SubstrateFinal, Polarity: twins.Positive, Description: "The note still exists (kept) or does not (gone).",
				PolarityOf: func(args map[string]string) twins.Polarity {
					if args["state"] == "kept" {
						return twins.Negative
					}
					return twins.Positive
				},
				Eval: func(in *twins.Input, args map[string]string) (twins.Result, error) {
					w, err := twins.World[World](in.Final)
					if err != nil {
						return twins.Result{}, err
					}
					exists := false
					for _, n := range w.Notes {
						if fmt.Sprint(n.ID) == args["id"] {
							exists = true
						}
					}
					if exists == (args["state"] == "kept") {
						return twins.Pass("note "+args["id"]+" is "+args["state"], twins.Evidence{StatePaths: []string{"/entries"}}), nil
					}
					return twins.Fail("note "+args["id"]+" is not "+args["state"], twins.Evidence{StatePaths: []string{"/entries"}}), nil
				},
			},
			{
				ID: name + ".broken", Template: "The notebook is broken",
				Substrate: twins.SubstrateFinal, Polarity: twins.Positive, Description: "Always fails to evaluate.",
				Eval: func(in *twins.Input, args map[string]string) (twins.Result, error) {
					return twins.Result{}, fmt.Errorf("this check cannot be evaluated")
				},
			},
		},
	}
	return t.Finish()
}

// Registry is a registry of two notebooks, "notes" and "board".
func Registry() *twins.Registry { return twins.NewRegistry(Twin("notes"), Twin("board")) }
