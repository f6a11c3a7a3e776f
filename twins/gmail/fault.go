package gmail

import (
	"context"
	"sort"
	"strconv"
	"strings"

	"github.com/pomehq/pome/twins"
)

// Fault is a seeded fault injection, as the original Pome names them. The
// one kind, "rate-limited", answers the target's calls after the first
// SucceedFirst with Gmail's 429 RESOURCE_EXHAUSTED (and Retry-After) for
// ThrottleFor calls, then lets them through again. Every call to the target
// counts, throttled ones included, so an agent that retries walks out of the
// window; the count lives in the world (Calls), so it holds across replicas.
type Fault struct {
	Name              string `json:"name"`
	Target            string `json:"target"`
	SucceedFirst      int    `json:"succeedFirst"`
	ThrottleFor       int    `json:"throttleFor"`
	RetryAfterSeconds int    `json:"retryAfterSeconds"`
	Calls             int    `json:"calls"`
}

// SeedFault is a fault as a seed gives it; absent numbers take the
// original's defaults (2, 3 and 1).
type SeedFault struct {
	Name              string `json:"name"`
	Target            string `json:"target,omitempty"`
	SucceedFirst      *int   `json:"succeedFirst,omitempty"`
	ThrottleFor       *int   `json:"throttleFor,omitempty"`
	RetryAfterSeconds *int   `json:"retryAfterSeconds,omitempty"`
}

// faultTargets maps a fault target (a Gmail API method) to the actions it
// throttles. "messages.send" is every send, drafts.send included, as in the
// original Pome, where sending a draft goes through messages.send. Only
// writes can be targets: a read's call count could not be kept.
var faultTargets = map[string][]string{
	"messages.send":   {"send_message", "reply_to_message", "send_draft"},
	"drafts.send":     {"send_draft"},
	"drafts.create":   {"create_draft"},
	"drafts.update":   {"update_draft"},
	"messages.modify": {"modify_message", "label_message", "unlabel_message"},
	"threads.modify":  {"modify_thread", "label_thread", "unlabel_thread"},
	"labels.create":   {"create_label"},
}

func faultTargetNames() string {
	names := make([]string, 0, len(faultTargets))
	for k := range faultTargets {
		names = append(names, k)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// seedFaults validates a seed's faults (bounds as the original's).
func seedFaults(in []SeedFault) ([]*Fault, error) {
	var out []*Fault
	if len(in) > 50 {
		return nil, twins.SeedErrorf("/faults", "at most 50 faults, got %d", len(in))
	}
	for i, f := range in {
		p := func(k string) string { return twins.Pointer("faults", i, k) }
		if f.Name != "rate-limited" {
			return nil, twins.SeedErrorf(p("name"), "unknown fault %q (known: rate-limited)", f.Name)
		}
		ft := &Fault{Name: f.Name, Target: orDefault(f.Target, "messages.send"), SucceedFirst: 2, ThrottleFor: 3, RetryAfterSeconds: 1}
		if _, ok := faultTargets[ft.Target]; !ok {
			return nil, twins.SeedErrorf(p("target"), "fault target %q is not a method the twin can throttle (%s)", ft.Target, faultTargetNames())
		}
		for _, n := range []struct {
			key      string
			v        *int
			min, max int
			dst      *int
		}{
			{"succeedFirst", f.SucceedFirst, 0, 1000, &ft.SucceedFirst},
			{"throttleFor", f.ThrottleFor, 1, 1000, &ft.ThrottleFor},
			{"retryAfterSeconds", f.RetryAfterSeconds, 1, 3600, &ft.RetryAfterSeconds},
		} {
			if n.v == nil {
				continue
			}
			if *n.v < n.min || *n.v > n.max {
				return nil, twins.SeedErrorf(p(n.key), "%s must be between %d and %d, got %d", n.key, n.min, n.max, *n.v)
			}
			*n.dst = *n.v
		}
		out = append(out, ft)
	}
	return out, nil
}

// throttle counts a call of the action against every fault targeting it
// and answers 429 while one's window is open. The count is kept even when
// the call fails, as bookkeeping: a throttled call changed no mail.
func (w *World) throttle(ctx context.Context, action string) error {
	var hit *Fault
	for _, f := range w.Faults {
		targets := faultTargets[f.Target]
		found := false
		for _, a := range targets {
			if a == action {
				found = true
				break
			}
		}
		if !found {
			continue
		}
		f.Calls++
		twins.KeepBookkeeping(ctx)
		if hit == nil && f.Calls > f.SucceedFirst && f.Calls <= f.SucceedFirst+f.ThrottleFor {
			hit = f
		}
	}
	if hit == nil {
		return nil
	}
	twins.SetResponseHeader(ctx, "Retry-After", strconv.Itoa(hit.RetryAfterSeconds))
	return gerr(twins.RateLimited, "rateLimitExceeded", "Rate limit exceeded for %s. Retry after %ds.", hit.Target, hit.RetryAfterSeconds)
}

// gated is an action that seeded faults may throttle.
type gated struct{ twins.Action }

// Unwrap exposes the wrapped action (twins.HasQuickValidation).
func (g gated) Unwrap() twins.Action { return g.Action }

func (g gated) Run(ctx context.Context, world any, in any) (any, error) {
	if w, ok := world.(*World); ok && len(w.Faults) > 0 {
		if err := w.throttle(ctx, g.Name()); err != nil {
			return nil, err
		}
	}
	return g.Action.Run(ctx, world, in)
}

// withFaults wraps every action a fault target names.
func withFaults(actions []twins.Action) []twins.Action {
	gate := map[string]bool{}
	for _, names := range faultTargets {
		for _, n := range names {
			gate[n] = true
		}
	}
	out := make([]twins.Action, len(actions))
	for i, a := range actions {
		if gate[a.Name()] {
			a = gated{a}
		}
		out[i] = a
	}
	return out
}
