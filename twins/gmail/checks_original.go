package gmail

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/pomehq/pome/twins"
)

// The original Pome's Gmail vocabulary: its sentences, parameter names and
// meanings. Where it reads the whole sandbox (every mailbox), so do these;
// our own sentences (checks.go) read the authenticated user's mailbox.
var (
	// paramMessageID is a message id as Gmail mints it or as a seed pins it
	// (msg_support). No spaces or dots, which keeps it apart from a label
	// name.
	paramMessageID = twins.Param{Name: "message", Type: "message_id", Pattern: `[A-Za-z0-9_-]{1,128}`, Example: "msg_support"}
	// paramLabelRef names a label by id (Label_follow_up, STARRED) or by a
	// one-word display name.
	paramLabelRef = twins.Param{Name: "label", Type: "label_ref", Pattern: `[A-Za-z0-9_-]{1,128}`, Example: "STARRED"}
	// paramLabelName is a display name, spaces allowed (Follow Up).
	paramLabelName = twins.Param{Name: "label", Type: "label_name", Pattern: `[A-Za-z0-9][A-Za-z0-9 _-]{0,127}`, Example: "Follow Up"}
	paramMailbox   = twins.Param{Name: "mailbox", Type: "email", Pattern: "[^\\s@\"'`]+@[^\\s@\"'`]+", Example: "pome-agent@acme.test"}
	// paramExactCount is digits only, as the original's exact counts are.
	paramExactCount = twins.Param{Name: "count", Type: "integer", Pattern: `[0-9]{1,9}`, Example: "5"}
	// paramCountWord takes digits or an English number word up to twelve.
	paramCountWord = twins.Param{Name: "count", Type: "count", Pattern: `(?:[0-9]{1,9}|zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)`, Example: "two"}
)

var numberWords = map[string]int{
	"zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
	"seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
}

// parseCount reads a count given as digits or as a number word.
func parseCount(s string) (int, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	if n, ok := numberWords[s]; ok {
		return n, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%q is not a count", s)
	}
	return n, nil
}

// originalChecks are the original Pome's Gmail checks. Its tape check,
// "No unsupported endpoint was called", is the same sentence as GitHub's and
// binds per twin; our "No unsupported gmail endpoint was called" keeps
// binding under gmail.no-unsupported-endpoint-on-gmail.
func originalChecks() []*twins.Check {
	return []*twins.Check{
		twins.NoUnsupportedEndpointCheck("gmail", "gmail.no-unsupported-endpoint", "No unsupported endpoint was called"),
		{
			ID: "gmail.message-has-label", Template: "Message {message} has label {label}",
			Params: []twins.Param{paramMessageID, paramLabelRef}, Substrate: twins.SubstrateFinal, Polarity: twins.Positive,
			Description: "The message with that id (in whichever mailbox of the sandbox holds it) carries the label, named by id (Label_follow_up, STARRED) or by display name; its other labels do not matter.",
			Eval: finalE(func(w *World, args map[string]string) (twins.Result, error) {
				i, j, err := w.findMessage(args["message"])
				if err != nil {
					return twins.Result{}, err
				}
				m := w.Mailboxes[i].Messages[j]
				p := twins.Pointer("mailboxes", i, "messages", j)
				ev := twins.Evidence{StatePaths: []string{p, twins.Pointer("mailboxes", i, "labels")}}
				for _, id := range labelIDsFor(w, args["label"]) {
					if m.hasLabel(id) {
						return twins.Pass(fmt.Sprintf("message %s carries label %s", m.ID, args["label"]), ev), nil
					}
				}
				return twins.Fail(fmt.Sprintf("message %s does not carry label %s (it has %s)", m.ID, args["label"], strings.Join(m.LabelIDs, ", ")), ev), nil
			}),
		},
		{
			ID: "gmail.label-exists", Template: "A label named {label} exists",
			Params: []twins.Param{paramLabelName}, Substrate: twins.SubstrateFinal, Polarity: twins.Positive,
			Description: "Some mailbox of the sandbox defines a label with this display name (compared case-insensitively, never by id); whether any message carries it does not matter.",
			Eval: final(func(w *World, args map[string]string) twins.Result {
				for i, mb := range w.Mailboxes {
					for j, l := range mb.Labels {
						if strings.EqualFold(l.Name, args["label"]) {
							return twins.Pass(fmt.Sprintf("label %q exists in %s (id %s)", l.Name, mb.Address, l.ID), twins.Evidence{StatePaths: []string{twins.Pointer("mailboxes", i, "labels", j)}})
						}
					}
				}
				return twins.Fail(fmt.Sprintf("no label named %q exists", args["label"]), twins.Evidence{StatePaths: allMailboxes(w, "labels")})
			}),
		},
		{
			ID: "gmail.draft-count-at-least", Template: "At least {count} drafts exist",
			Params: []twins.Param{paramCountWord}, Substrate: twins.SubstrateFinal, Polarity: twins.Positive,
			Description: "The sandbox's mailboxes hold at least that many drafts together, seeded ones included (a lower bound).",
			Eval: finalE(func(w *World, args map[string]string) (twins.Result, error) {
				n, err := parseCount(args["count"])
				if err != nil {
					return twins.Result{}, err
				}
				total := 0
				for _, mb := range w.Mailboxes {
					total += len(mb.Drafts)
				}
				ev := twins.Evidence{StatePaths: allMailboxes(w, "drafts")}
				if total >= n {
					return twins.Pass(fmt.Sprintf("%d draft(s) exist (wanted at least %d)", total, n), ev), nil
				}
				return twins.Fail(fmt.Sprintf("%d draft(s) exist (wanted at least %d)", total, n), ev), nil
			}),
		},
		{
			ID: "gmail.mailbox-label-count", Template: "The mailbox `{mailbox}` has exactly {count} messages labeled {label}",
			Params: []twins.Param{paramMailbox, paramExactCount, paramLabelRef}, Substrate: twins.SubstrateFinal, Polarity: twins.Positive,
			// Asking for zero is a prohibition; any other count is work to do.
			PolarityOf: func(args map[string]string) twins.Polarity {
				if n, err := strconv.Atoi(args["count"]); err == nil && n == 0 {
					return twins.Negative
				}
				return twins.Positive
			},
			Description: "Exactly that many messages of the named mailbox carry the label (by id or display name): not at least, so a duplicate send fails it. Polarity is negative for a count of zero.",
			Eval: finalE(func(w *World, args map[string]string) (twins.Result, error) {
				n, _ := strconv.Atoi(args["count"])
				i := w.mailboxIndex(args["mailbox"])
				if i < 0 {
					return twins.Result{}, fmt.Errorf("the sandbox has no mailbox %s (mailboxes: %s)", args["mailbox"], strings.Join(w.addresses(), ", "))
				}
				ids := labelIDsFor(w, args["label"])
				var paths []string
				for j, m := range w.Mailboxes[i].Messages {
					if m.hasAnyLabel(ids) {
						paths = append(paths, twins.Pointer("mailboxes", i, "messages", j))
					}
				}
				reason := fmt.Sprintf("mailbox %s has %d message(s) labeled %s (wanted %d)", args["mailbox"], len(paths), args["label"], n)
				ev := twins.Evidence{StatePaths: orPaths(paths, twins.Pointer("mailboxes", i, "messages"))}
				if len(paths) == n {
					return twins.Pass(reason, ev), nil
				}
				return twins.Fail(reason, ev), nil
			}),
		},
		{
			ID: "gmail.one-message-per-recipient", Template: "Exactly one {label} message is addressed to each of the {count} recipients",
			Params: []twins.Param{paramLabelRef, paramCountWord}, Substrate: twins.SubstrateFinal, Polarity: twins.Positive,
			Description: "Across the sandbox's mailboxes, the messages carrying the label are exactly that many, addressed (To) to that many distinct recipients, one each: sent to everyone, and nobody twice.",
			Eval: finalE(func(w *World, args map[string]string) (twins.Result, error) {
				n, err := parseCount(args["count"])
				if err != nil {
					return twins.Result{}, err
				}
				ids := labelIDsFor(w, args["label"])
				var paths []string
				seen := map[string]int{}
				slots, msgs := 0, 0
				for i, mb := range w.Mailboxes {
					for j, m := range mb.Messages {
						if !m.hasAnyLabel(ids) {
							continue
						}
						msgs++
						paths = append(paths, twins.Pointer("mailboxes", i, "messages", j))
						for _, a := range m.To {
							seen[strings.ToLower(a)]++
							slots++
						}
					}
				}
				var dups []string
				for a, k := range seen {
					if k > 1 {
						dups = append(dups, fmt.Sprintf("%s (%d)", a, k))
					}
				}
				ev := twins.Evidence{StatePaths: orPaths(paths, allMailboxes(w, "messages")...)}
				if len(dups) == 0 && msgs == n && len(seen) == n && slots == n {
					return twins.Pass(fmt.Sprintf("%d %s message(s), one per distinct recipient, no duplicates", msgs, args["label"]), ev), nil
				}
				reason := fmt.Sprintf("%d %s message(s) to %d distinct recipient(s) (%d addressee slot(s), wanted %d)", msgs, args["label"], len(seen), slots, n)
				if len(dups) > 0 {
					slices.Sort(dups)
					reason += "; sent more than once to " + strings.Join(dups, ", ")
				}
				return twins.Fail(reason, ev), nil
			}),
		},
	}
}

// findMessage locates a message by id across the sandbox's mailboxes. An
// id held by two mailboxes (one copy delivered to another) cannot be
// attested, so it is an error rather than a coin flip.
func (w *World) findMessage(id string) (mailbox, index int, err error) {
	var hits [][2]int
	for i, mb := range w.Mailboxes {
		if j := mb.messageIndex(id); j >= 0 {
			hits = append(hits, [2]int{i, j})
		}
	}
	switch len(hits) {
	case 0:
		return 0, 0, fmt.Errorf("no mailbox of the sandbox holds a message %s", id)
	case 1:
		return hits[0][0], hits[0][1], nil
	}
	return 0, 0, fmt.Errorf("message id %s is held by %d mailboxes, so the criterion cannot say which it means", id, len(hits))
}

func (w *World) mailboxIndex(addr string) int {
	for i, mb := range w.Mailboxes {
		if strings.EqualFold(mb.Address, addr) {
			return i
		}
	}
	return -1
}

func (w *World) addresses() []string {
	out := make([]string, len(w.Mailboxes))
	for i, mb := range w.Mailboxes {
		out[i] = mb.Address
	}
	return out
}

// labelIDsFor is every label id the name or id s stands for in any mailbox
// (a user label's id differs from its name, a system label's does not),
// and s itself.
func labelIDsFor(w *World, s string) []string {
	out := []string{s}
	for _, mb := range w.Mailboxes {
		for _, l := range mb.Labels {
			if (strings.EqualFold(l.Name, s) || strings.EqualFold(l.ID, s)) && !slices.Contains(out, l.ID) {
				out = append(out, l.ID)
			}
		}
	}
	return out
}

func (m *Message) hasAnyLabel(ids []string) bool {
	for _, id := range ids {
		if m.hasLabel(id) {
			return true
		}
	}
	return false
}

// allMailboxes points at one collection of every mailbox.
func allMailboxes(w *World, collection string) []string {
	out := make([]string, len(w.Mailboxes))
	for i := range w.Mailboxes {
		out[i] = twins.Pointer("mailboxes", i, collection)
	}
	return out
}

// orPaths is paths, or the fallback when there are none.
func orPaths(paths []string, fallback ...string) []string {
	if len(paths) > 0 {
		return paths
	}
	return fallback
}

// finalE is final for checks that may fail to evaluate.
func finalE(f func(*World, map[string]string) (twins.Result, error)) func(*twins.Input, map[string]string) (twins.Result, error) {
	return func(in *twins.Input, args map[string]string) (twins.Result, error) {
		w, err := twins.World[World](in.Final)
		if err != nil {
			return twins.Result{}, err
		}
		return f(w, args)
	}
}
