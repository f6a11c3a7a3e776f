package twins

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

type enumWorld struct{}

type enumInner struct {
	Kind string `json:"kind" enum:"a,b"`
}

type enumEmbedded struct {
	Order string `json:"order,omitempty" enum:"asc,desc"`
}

type enumIn struct {
	enumEmbedded
	State  string      `json:"state,omitempty" enum:"open, closed ,all"`
	Reason *string     `json:"reason,omitempty" enum:"completed,not_planned"`
	Labels []string    `json:"labels,omitempty" enum:"bug,docs"`
	Inner  *enumInner  `json:"inner,omitempty"`
	Items  []enumInner `json:"items,omitempty"`
	Free   string      `json:"free,omitempty"`
}

func enumAction() Action {
	return New(Spec{Name: "enum_probe", Effect: Read}, func(_ context.Context, _ *enumWorld, in enumIn) (enumIn, error) {
		return in, nil
	})
}

func TestEnumTagInSchema(t *testing.T) {
	a := enumAction()
	doc, err := json.Marshal(a.InputSchema())
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Properties map[string]struct {
			Enum  []any `json:"enum"`
			Items *struct {
				Enum       []any `json:"enum"`
				Properties map[string]struct {
					Enum []any `json:"enum"`
				} `json:"properties"`
			} `json:"items"`
			Properties map[string]struct {
				Enum []any `json:"enum"`
			} `json:"properties"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(doc, &s); err != nil {
		t.Fatal(err)
	}
	check := func(where string, got []any, want ...any) {
		t.Helper()
		g, _ := json.Marshal(got)
		w, _ := json.Marshal(want)
		if string(g) != string(w) {
			t.Errorf("%s enum = %s, want %s", where, g, w)
		}
	}
	p := s.Properties
	check("state", p["state"].Enum, "open", "closed", "all")
	check("reason", p["reason"].Enum, "completed", "not_planned", nil)
	check("order (embedded)", p["order"].Enum, "asc", "desc")
	check("labels items", p["labels"].Items.Enum, "bug", "docs")
	check("inner.kind", p["inner"].Properties["kind"].Enum, "a", "b")
	check("items[].kind", p["items"].Items.Properties["kind"].Enum, "a", "b")
	if p["free"].Enum != nil {
		t.Errorf("untagged free has enum %v", p["free"].Enum)
	}
	if !HasQuickValidation(a) {
		t.Error("an enum must not push the schema past the quick check")
	}
}

func TestEnumTagEnforcedOnDecode(t *testing.T) {
	a := enumAction()
	defer func() { QuickValidation = true }()
	for _, quick := range []bool{true, false} {
		QuickValidation = quick
		for _, ok := range []string{
			`{}`, `{"state":"all"}`, `{"reason":null}`, `{"reason":"not_planned"}`, `{"order":"asc"}`,
			`{"labels":["bug","docs"]}`, `{"inner":{"kind":"b"}}`, `{"items":[{"kind":"a"}]}`, `{"free":"anything"}`,
		} {
			if _, err := a.Decode(json.RawMessage(ok)); err != nil {
				t.Errorf("quick=%v %s: %v", quick, ok, err)
			}
		}
		for args, field := range map[string]string{
			`{"state":"OPEN"}`:               "state",
			`{"state":""}`:                   "state",
			`{"reason":"done"}`:              "reason",
			`{"order":"up"}`:                 "order",
			`{"labels":["bug","feature"]}`:   "labels",
			`{"inner":{"kind":"c"}}`:         "inner",
			`{"items":[{"kind":"z"}]}`:       "items",
			`{"free":"x","state":"closed "}`: "state",
		} {
			_, err := a.Decode(json.RawMessage(args))
			var e *Error
			if !errors.As(err, &e) || e.Code != Invalid || e.Field != field || !strings.Contains(e.Message, "enum") {
				t.Errorf("quick=%v %s: got %v (%+v), want an Invalid enum error on %s", quick, args, err, e, field)
			}
		}
	}
}

func TestEnumTagDefinitionErrors(t *testing.T) {
	for name, def := range map[string]func(){
		"enum on an integer": func() {
			type in struct {
				N int `json:"n" enum:"1,2"`
			}
			New(Spec{Name: "bad", Effect: Read}, func(context.Context, *enumWorld, in) (in, error) { return in{}, nil })
		},
		"empty value": func() {
			type in struct {
				S string `json:"s" enum:"a,,b"`
			}
			New(Spec{Name: "bad", Effect: Read}, func(context.Context, *enumWorld, in) (in, error) { return in{}, nil })
		},
	} {
		func() {
			defer func() {
				if r := recover(); r == nil {
					t.Errorf("%s: defined without a panic", name)
				}
			}()
			def()
		}()
	}
}
