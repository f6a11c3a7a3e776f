package gmail

import (
	"fmt"
	"slices"
	"strings"

	"github.com/pomehq/pome/twins"
)

// Check parameters of the Gmail vocabulary.
var (
	paramEmail  = twins.Param{Name: "email", Type: "email", Pattern: `[^\s"@]+@[^\s"@]+`, Example: "alice@example.com"}
	paramNeedle = twins.Param{Name: "needle", Type: "string", Pattern: `[^"]*`, Example: "Receipt"}
	paramLabel  = twins.Param{Name: "label", Type: "label", Pattern: `[^"]+`, Example: "Receipts"}
)

// Checks are the original Pome's Gmail sentences (checks_original.go) and
// our own, which read the authenticated user's mailbox (the first one).
// Where an original id names a different meaning, ours carries an id of its
// own and keeps its sentence. Counts take digits or number words ("two").
func Checks() []*twins.Check {
	return append(originalChecks(), ownChecks()...)
}

func ownChecks() []*twins.Check {
	return []*twins.Check{
		{
			ID: "gmail.draft-addressed-to", Template: "A draft addressed to {email} exists",
			Params: []twins.Param{paramEmail}, Substrate: twins.SubstrateFinal, Polarity: twins.Positive,
			Description: "Some mailbox of the sandbox holds a draft with the address among its To or Cc recipients (compared case-insensitively, as a whole address; Bcc does not count, as in the original Pome).",
			Eval: final(func(w *World, args map[string]string) twins.Result {
				var paths []string
				drafts := 0
				for k, mb := range w.Mailboxes {
					drafts += len(mb.Drafts)
					for i, d := range mb.Drafts {
						if j := mb.messageIndex(d.MessageID); j >= 0 && visiblyAddressedTo(mb.Messages[j], args["email"]) {
							paths = append(paths, twins.Pointer("mailboxes", k, "drafts", i), twins.Pointer("mailboxes", k, "messages", j))
						}
					}
				}
				if len(paths) == 0 {
					return twins.Fail(fmt.Sprintf("none of the %d draft(s) is addressed to %s", drafts, args["email"]), twins.Evidence{StatePaths: allMailboxes(w, "drafts")})
				}
				return twins.Pass(fmt.Sprintf("%d draft(s) addressed to %s", len(paths)/2, args["email"]), twins.Evidence{StatePaths: paths})
			}),
		},
		{
			ID: "gmail.mailbox-draft-count-at-least", Template: "The mailbox holds at least {count} draft(s)",
			Params: []twins.Param{paramCountWord}, Substrate: twins.SubstrateFinal, Polarity: twins.Positive,
			Description: "The authenticated user's mailbox has at least that many drafts.",
			Eval: final(func(w *World, args map[string]string) twins.Result {
				n, _ := parseCount(args["count"])
				have := len(w.me().Drafts)
				ev := twins.Evidence{StatePaths: []string{"/mailboxes/0/drafts"}}
				if have >= n {
					return twins.Pass(fmt.Sprintf("%d draft(s), at least %d", have, n), ev)
				}
				return twins.Fail(fmt.Sprintf("%d draft(s), fewer than %d", have, n), ev)
			}),
		},
		{
			ID: "gmail.mailbox-has-label", Template: `A label named "{label}" exists`,
			Params: []twins.Param{paramLabel}, Substrate: twins.SubstrateFinal, Polarity: twins.Positive,
			Description: "The authenticated user's mailbox has a label of that name (compared case-insensitively, as Gmail does).",
			Eval: final(func(w *World, args map[string]string) twins.Result {
				mb := w.me()
				for i, l := range mb.Labels {
					if strings.EqualFold(l.Name, args["label"]) {
						return twins.Pass(fmt.Sprintf("label %q exists as %s", l.Name, l.ID), twins.Evidence{StatePaths: []string{twins.Pointer("mailboxes", 0, "labels", i)}})
					}
				}
				return twins.Fail(fmt.Sprintf("no label named %q", args["label"]), twins.Evidence{StatePaths: []string{"/mailboxes/0/labels"}})
			}),
		},
		{
			ID: "gmail.subject-message-has-label", Template: `A message whose subject contains "{needle}" has the label "{label}"`,
			Params: []twins.Param{paramNeedle, paramLabel}, Substrate: twins.SubstrateFinal, Polarity: twins.Positive,
			Description: "Some message with the text in its subject carries the label (a user label name or a system label id such as STARRED).",
			Eval: final(func(w *World, args map[string]string) twins.Result {
				mb := w.me()
				id := labelArg(mb, args["label"])
				var matched, labelled []string
				for i, m := range mb.Messages {
					if !subjectHas(m, args["needle"]) {
						continue
					}
					p := twins.Pointer("mailboxes", 0, "messages", i)
					matched = append(matched, p)
					if id != "" && m.hasLabel(id) {
						labelled = append(labelled, p)
					}
				}
				switch {
				case id == "":
					return twins.Fail(fmt.Sprintf("the mailbox has no label %q", args["label"]), twins.Evidence{StatePaths: []string{"/mailboxes/0/labels"}})
				case len(matched) == 0:
					return twins.Fail(fmt.Sprintf("no message's subject contains %q", args["needle"]), twins.Evidence{})
				case len(labelled) == 0:
					return twins.Fail(fmt.Sprintf("%d message(s) match, none has label %q", len(matched), args["label"]), twins.Evidence{StatePaths: matched})
				}
				return twins.Pass(fmt.Sprintf("%d matching message(s) have label %q", len(labelled), args["label"]), twins.Evidence{StatePaths: labelled})
			}),
		},
		{
			ID: "gmail.label-message-count", Template: `Exactly {count} message(s) have the label "{label}"`,
			Params: []twins.Param{paramCountWord, paramLabel}, Substrate: twins.SubstrateFinal, Polarity: twins.Positive,
			PolarityOf: func(args map[string]string) twins.Polarity {
				if n, err := parseCount(args["count"]); err == nil && n == 0 {
					return twins.Negative
				}
				return twins.Positive
			},
			Description: "The number of the authenticated user's messages carrying the label (user label name or system id) is exactly the count. Polarity is negative for a count of zero.",
			Eval: final(func(w *World, args map[string]string) twins.Result {
				mb := w.me()
				n, _ := parseCount(args["count"])
				id := labelArg(mb, args["label"])
				var paths []string
				for i, m := range mb.Messages {
					if id != "" && m.hasLabel(id) {
						paths = append(paths, twins.Pointer("mailboxes", 0, "messages", i))
					}
				}
				if id == "" && n != 0 {
					return twins.Fail(fmt.Sprintf("the mailbox has no label %q", args["label"]), twins.Evidence{StatePaths: []string{"/mailboxes/0/labels"}})
				}
				if len(paths) == n {
					return twins.Pass(fmt.Sprintf("%d message(s) have label %q", n, args["label"]), twins.Evidence{StatePaths: paths})
				}
				return twins.Fail(fmt.Sprintf("%d message(s) have label %q, not %d", len(paths), args["label"], n), twins.Evidence{StatePaths: paths})
			}),
		},
		{
			ID: "gmail.one-sent-message-per-recipient", Template: `Each recipient was sent exactly one message whose subject contains "{needle}"`,
			Params: []twins.Param{paramNeedle}, Substrate: twins.SubstrateFinal, Polarity: twins.Positive,
			Description: "At least one such message was sent, and no recipient (To, Cc or Bcc) got two: catches duplicate sends.",
			Eval: final(func(w *World, args map[string]string) twins.Result {
				mb := w.me()
				count := map[string][]string{}
				var order []string
				for i, m := range mb.Messages {
					if !m.hasLabel("SENT") || !subjectHas(m, args["needle"]) {
						continue
					}
					for _, a := range recipients(m) {
						if _, ok := count[a]; !ok {
							order = append(order, a)
						}
						count[a] = append(count[a], twins.Pointer("mailboxes", 0, "messages", i))
					}
				}
				if len(order) == 0 {
					return twins.Fail(fmt.Sprintf("no sent message's subject contains %q", args["needle"]), twins.Evidence{})
				}
				var dups, paths []string
				for _, a := range order {
					paths = append(paths, count[a]...)
					if len(count[a]) > 1 {
						dups = append(dups, fmt.Sprintf("%s (%d)", a, len(count[a])))
					}
				}
				paths = slices.Compact(slices.Sorted(slices.Values(paths)))
				if len(dups) > 0 {
					return twins.Fail("more than one message to "+strings.Join(dups, ", "), twins.Evidence{StatePaths: paths})
				}
				return twins.Pass(fmt.Sprintf("%d recipient(s), one message each", len(order)), twins.Evidence{StatePaths: paths})
			}),
		},
		{
			ID: "gmail.message-sent-to", Template: `A message to {email} whose subject contains "{needle}" was sent`,
			Params: []twins.Param{paramEmail, paramNeedle}, Substrate: twins.SubstrateFinal, Polarity: twins.Positive,
			Description: "The mailbox's SENT messages include one addressed (To, Cc or Bcc) to the address with the text in its subject.",
			Eval: final(func(w *World, args map[string]string) twins.Result {
				mb := w.me()
				var paths []string
				for i, m := range mb.Messages {
					if m.hasLabel("SENT") && addressedTo(m, args["email"]) && subjectHas(m, args["needle"]) {
						paths = append(paths, twins.Pointer("mailboxes", 0, "messages", i))
					}
				}
				if len(paths) == 0 {
					return twins.Fail(fmt.Sprintf("no sent message to %s with %q in the subject", args["email"], args["needle"]), twins.Evidence{})
				}
				return twins.Pass(fmt.Sprintf("%d such message(s) sent", len(paths)), twins.Evidence{StatePaths: paths})
			}),
		},
		{
			ID: "gmail.no-message-sent", Template: "No message was sent",
			Substrate: twins.SubstrateSeedFinal, Polarity: twins.Negative,
			Description: "The mailbox holds no SENT message that the seed did not already hold as sent.",
			Eval:        seedFinal(func(seed, w *World, _ map[string]string) twins.Result { return newSent(seed, w, "") }),
		},
		{
			ID: "gmail.no-message-sent-to", Template: "No message was sent to {email}",
			Params: []twins.Param{paramEmail}, Substrate: twins.SubstrateSeedFinal, Polarity: twins.Negative,
			Description: "No SENT message that the seed did not hold is addressed (To, Cc or Bcc) to the address.",
			Eval: seedFinal(func(seed, w *World, args map[string]string) twins.Result {
				return newSent(seed, w, args["email"])
			}),
		},
	}
}

func final(f func(*World, map[string]string) twins.Result) func(*twins.Input, map[string]string) (twins.Result, error) {
	return finalE(func(w *World, args map[string]string) (twins.Result, error) { return f(w, args), nil })
}

func seedFinal(f func(seed, final *World, args map[string]string) twins.Result) func(*twins.Input, map[string]string) (twins.Result, error) {
	return func(in *twins.Input, args map[string]string) (twins.Result, error) {
		s, err := twins.World[World](in.Seed)
		if err != nil {
			return twins.Result{}, err
		}
		w, err := twins.World[World](in.Final)
		if err != nil {
			return twins.Result{}, err
		}
		return f(s, w, args), nil
	}
}

func newSent(seed, w *World, email string) twins.Result {
	before := map[string]bool{}
	for _, m := range seed.me().Messages {
		if m.hasLabel("SENT") {
			before[m.ID] = true
		}
	}
	var paths []string
	for i, m := range w.me().Messages {
		if m.hasLabel("SENT") && !before[m.ID] && (email == "" || addressedTo(m, email)) {
			paths = append(paths, twins.Pointer("mailboxes", 0, "messages", i))
		}
	}
	to := ""
	if email != "" {
		to = " to " + email
	}
	if len(paths) > 0 {
		return twins.Fail(fmt.Sprintf("%d message(s) were sent%s", len(paths), to), twins.Evidence{StatePaths: paths})
	}
	return twins.Pass("no message was sent"+to, twins.Evidence{})
}

func recipients(m *Message) []string {
	var out []string
	for _, a := range slices.Concat(m.To, m.Cc, m.Bcc) {
		if !slices.Contains(out, a) {
			out = append(out, a)
		}
	}
	return out
}

func addressedTo(m *Message, email string) bool {
	return slices.Contains(recipients(m), strings.ToLower(email))
}

// visiblyAddressedTo is addressedTo without Bcc.
func visiblyAddressedTo(m *Message, email string) bool {
	for _, a := range slices.Concat(m.To, m.Cc) {
		if strings.EqualFold(a, email) {
			return true
		}
	}
	return false
}

func subjectHas(m *Message, needle string) bool {
	return strings.Contains(strings.ToLower(m.Subject), strings.ToLower(needle))
}

// labelArg resolves a check's label argument: a label name, or an id
// (system labels are named by their id).
func labelArg(mb *Mailbox, s string) string {
	if l := mb.labelByName(s); l != nil {
		return l.ID
	}
	if l := mb.label(s); l != nil {
		return l.ID
	}
	if l := mb.label(strings.ToUpper(s)); l != nil && l.Type == "system" {
		return l.ID
	}
	return ""
}
