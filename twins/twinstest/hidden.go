package twinstest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/pomehq/pome/twins"
)

// Hidden is one thing a seed holds that the caller may not see (a private
// repository, a channel the token's user is not in, another user's
// mailbox), for WalkHidden.
type Hidden struct {
	// Name says what is hidden, for test names.
	Name string
	// HiddenSeed and ShownSeed build the same world except that the thing
	// is hidden from the caller in the first and visible in the second,
	// with the same ids, so one set of arguments is aimed at it in both.
	HiddenSeed, ShownSeed string
	// Aimed reports, from an action's input schema, whether the action
	// names the thing directly (a required owner and repo, channel, userId):
	// such a call must be refused exactly as for a thing that does not exist.
	// Every other action must not reveal it in what it answers.
	Aimed func(a twins.Action) bool
	// Refused reports whether an error is the vendor's answer for a thing
	// that does not exist or may not be read (GitHub's 404, Slack's
	// channel_not_found, Gmail's delegation denied).
	Refused func(e *twins.Error) bool
	// Aim are argument values set on every action whose input has the
	// property: the names of the thing and the words that would find it.
	// Fill are values for required properties Aim does not set; a required
	// property neither gives a value for fails the test, so that a new
	// action is never walked with arguments that miss. Both take the shown
	// world's state document, for ids and shas.
	Aim, Fill func(state map[string]any) map[string]any
	// Extra overrides arguments of one action by name (a nil value
	// removes one), where the generic values would not make the call
	// succeed on the shown world; it takes the shown world's state.
	Extra func(state map[string]any) map[string]map[string]any
	// ControlError names the aimed actions that cannot succeed on the
	// shown world whatever their arguments (joining a private channel, say),
	// with the vendor error code they answer there instead. Any other
	// aimed action must succeed there.
	ControlError map[string]string
	// Patch, when set, edits both worlds' state documents after the seed
	// built them, for what a seed cannot hold (an issue event, a scheduled
	// message).
	Patch func(state map[string]any)
	// Canaries are strings only the hidden thing holds (its name, ids,
	// content). No answer to the caller may contain one that its
	// arguments did not.
	Canaries []string
	// Part extracts the hidden thing from a state document, to check that
	// no call changes it.
	Part func(state map[string]any) any
}

// HiddenReport says how a walk classified the twin's actions.
type HiddenReport struct {
	Aimed, Others []string
	// Revealing are the Others whose answer on the shown world held a
	// canary: lists and searches that were aimed well enough to find the
	// thing when it is visible.
	Revealing []string
}

// WalkHidden calls every action of tw against h. An aimed action must
// succeed on the shown world (so the arguments reach the thing) and, on the
// hidden world, be refused with the vendor's error, echo nothing it was not
// sent and change no state. Every other action is called with the same
// values on the hidden world and must neither reveal a canary nor change
// the hidden thing.
func WalkHidden(t *testing.T, tw *twins.Twin, h Hidden) HiddenReport {
	t.Helper()
	var rep HiddenReport
	for name := range h.ControlError {
		if _, ok := tw.Action(name); !ok {
			t.Errorf("%s: ControlError names %q, which is no action", h.Name, name)
		}
	}
	for _, a := range tw.Actions {
		name := a.Name()
		aimed := h.Aimed(a)
		if aimed {
			rep.Aimed = append(rep.Aimed, name)
		} else {
			rep.Others = append(rep.Others, name)
		}
		t.Run(h.Name+"/"+name, func(t *testing.T) {
			shown := h.world(t, tw, h.ShownSeed)
			hidden := h.world(t, tw, h.HiddenSeed)
			args, err := hiddenArgs(a, h, stateOf(t, shown), aimed)
			if err != nil {
				t.Fatal(err)
			}
			before := marshal(t, hidden)
			if aimed {
				r := Call(t, tw, shown, name, args)
				if want, ok := h.ControlError[name]; ok {
					if r.Err == nil || r.Err.Vendor != want || h.Refused(r.Err) {
						t.Fatalf("%s(%s) where the %s is visible: got %v, want the error %q", name, args, h.Name, r.Err, want)
					}
				} else if r.Err != nil {
					t.Fatalf("%s(%s) fails where the %s is visible, so it does not test visibility (set arguments in Extra): %v", name, args, h.Name, r.Err)
				}
				r = Call(t, tw, hidden, name, args)
				if r.Err == nil || !h.Refused(r.Err) {
					t.Fatalf("%s(%s) on a hidden %s: got %v, %v; want the vendor's not-found refusal", name, args, h.Name, jsonOf(r.Out), r.Err)
				}
				if leak := h.leak(args, r.Err.Message, jsonOf(r.Err.Details)); leak != "" {
					t.Errorf("%s: the refusal %q names %q", name, r.Err.Message, leak)
				}
				if after := marshal(t, hidden); r.Mutated || !bytes.Equal(before, after) {
					t.Errorf("%s: a refused call changed the world (mutated=%v)", name, r.Mutated)
				}
				return
			}
			if r := Call(t, tw, shown, name, args); r.Err == nil && h.leak(args, jsonOf(r.Out)) != "" {
				rep.Revealing = append(rep.Revealing, name)
			}
			r := Call(t, tw, hidden, name, args)
			msg := ""
			if r.Err != nil {
				msg = r.Err.Message + jsonOf(r.Err.Details)
			}
			if leak := h.leak(args, jsonOf(r.Out), msg); leak != "" {
				t.Errorf("%s(%s) reveals %q of a hidden %s: %s %s", name, args, leak, h.Name, jsonOf(r.Out), msg)
			}
			if h.Part != nil {
				var b, a map[string]any
				_ = json.Unmarshal(before, &b)
				_ = json.Unmarshal(marshal(t, hidden), &a)
				if jsonOf(h.Part(b)) != jsonOf(h.Part(a)) {
					t.Errorf("%s(%s) changed the hidden %s", name, args, h.Name)
				}
			}
		})
	}
	return rep
}

// world builds a world from seed and applies Patch to it.
func (h Hidden) world(t *testing.T, tw *twins.Twin, seed string) any {
	t.Helper()
	w := World(t, tw, seed)
	if h.Patch == nil {
		return w
	}
	st := stateOf(t, w)
	h.Patch(st)
	w, err := tw.DecodeWorld(marshal(t, st))
	if err != nil {
		t.Fatalf("%s: the patched state does not decode: %v", h.Name, err)
	}
	return w
}

// leak returns the first canary in texts that args do not hold.
func (h Hidden) leak(args string, texts ...string) string {
	all := strings.Join(texts, "\n")
	for _, c := range h.Canaries {
		if strings.Contains(all, c) && !strings.Contains(args, c) {
			return c
		}
	}
	return ""
}

// hiddenArgs builds an action's arguments: Aim's values for every property
// the input has, Fill's for the other required ones, then Extra.
func hiddenArgs(a twins.Action, h Hidden, state map[string]any, aimed bool) (string, error) {
	s := a.InputSchema()
	aim, fill := h.Aim(state), h.Fill(state)
	var extra map[string]any
	if h.Extra != nil {
		extra = h.Extra(state)[a.Name()]
	}
	args := map[string]any{}
	for p := range s.Properties {
		if v, ok := aim[p]; ok {
			args[p] = v
		}
	}
	for _, p := range s.Required {
		if _, ok := args[p]; ok {
			continue
		}
		if _, ok := extra[p]; ok {
			continue
		}
		v, ok := fill[p]
		if !ok {
			return "", fmt.Errorf("%s: no value for its required %q (add one to Fill or Extra)", a.Name(), p)
		}
		args[p] = v
	}
	for k, v := range extra {
		if v == nil {
			delete(args, k)
			continue
		}
		args[k] = v
	}
	b, err := json.Marshal(args)
	return string(b), err
}

func stateOf(t *testing.T, world any) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(marshal(t, world), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func marshal(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func jsonOf(v any) string {
	if v == nil {
		return ""
	}
	b, _ := json.Marshal(v)
	return string(b)
}
