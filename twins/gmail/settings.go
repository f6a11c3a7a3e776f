package gmail

import (
	"fmt"
	"net/mail"
	"strings"
	"time"

	"github.com/pomehq/pome/twins"
)

// Filter is Gmail's users.settings.filters resource. A seed may give
// filters (the original Pome's format); they act on mail delivered to the
// mailbox from another mailbox of the sandbox.
type Filter struct {
	ID       string         `json:"id,omitempty"`
	Criteria FilterCriteria `json:"criteria"`
	Action   FilterAction   `json:"action"`
}

// FilterCriteria is what a filter matches.
type FilterCriteria struct {
	From           string `json:"from,omitempty"`
	To             string `json:"to,omitempty"`
	Subject        string `json:"subject,omitempty"`
	Query          string `json:"query,omitempty"`
	NegatedQuery   string `json:"negatedQuery,omitempty"`
	HasAttachment  bool   `json:"hasAttachment,omitempty"`
	ExcludeChats   bool   `json:"excludeChats,omitempty"`
	Size           int64  `json:"size,omitempty"`
	SizeComparison string `json:"sizeComparison,omitempty"`
}

// FilterAction is what a filter does to a matching message.
type FilterAction struct {
	AddLabelIDs    []string `json:"addLabelIds,omitempty"`
	RemoveLabelIDs []string `json:"removeLabelIds,omitempty"`
	Forward        string   `json:"forward,omitempty"`
}

// ForwardingAddress is Gmail's users.settings.forwardingAddresses resource.
type ForwardingAddress struct {
	ForwardingEmail    string `json:"forwardingEmail"`
	VerificationStatus string `json:"verificationStatus,omitempty"`
}

// SendAs is Gmail's users.settings.sendAs resource.
type SendAs struct {
	SendAsEmail        string `json:"sendAsEmail"`
	DisplayName        string `json:"displayName,omitempty"`
	ReplyToAddress     string `json:"replyToAddress,omitempty"`
	IsPrimary          bool   `json:"isPrimary,omitempty"`
	IsDefault          bool   `json:"isDefault,omitempty"`
	VerificationStatus string `json:"verificationStatus,omitempty"`
}

// plainAddress reports whether s is a bare address (no display name).
func plainAddress(s string) bool {
	a, err := mail.ParseAddress(s)
	return err == nil && strings.EqualFold(a.Address, s)
}

// seedFilters validates a mailbox's seeded filters (labels must exist,
// queries must parse; forwarding is not modelled, as in the original) and
// stores them with their label names resolved to ids.
func seedFilters(mb *Mailbox, in []*Filter, path func(segs ...any) string) error {
	for i, f := range in {
		p := func(segs ...any) string { return path(append([]any{"filters", i}, segs...)...) }
		if f.ID != "" {
			if !seedIDPattern.MatchString(f.ID) {
				return twins.SeedErrorf(p("id"), "filter id %q must be 1 to 128 letters, digits, _ or -", f.ID)
			}
			if _, err := mb.lookupFilter(f.ID); err == nil {
				return twins.SeedErrorf(p("id"), "filter id %q is used twice", f.ID)
			}
		}
		if err := mb.validFilter(f); err != nil {
			var segs []any
			for _, s := range strings.Split(err.Field, ".") {
				segs = append(segs, s)
			}
			return twins.SeedErrorf(p(segs...), "%s", err.Message)
		}
		mb.Filters = append(mb.Filters, f)
	}
	// Minted ids come after the pinned ones are known, so none collides.
	for _, f := range mb.Filters {
		if f.ID == "" {
			f.ID = mb.newFilterID()
		}
	}
	return nil
}

// validFilter checks a filter as Gmail does and resolves its label names
// to ids; the error's Field is the offending key's dotted path.
func (mb *Mailbox) validFilter(f *Filter) *twins.Error {
	for _, q := range []struct{ name, v string }{{"query", f.Criteria.Query}, {"negatedQuery", f.Criteria.NegatedQuery}} {
		if q.v == "" {
			continue
		}
		if _, err := parseQuery(q.v); err != nil {
			return gerr(twins.Invalid, "invalidArgument", "%s", twins.AsError(err).Message).WithField("criteria." + q.name)
		}
	}
	switch f.Criteria.SizeComparison {
	case "", "larger", "smaller":
	default:
		return gerr(twins.Invalid, "invalidArgument", "sizeComparison must be larger or smaller, got %q", f.Criteria.SizeComparison).WithField("criteria.sizeComparison")
	}
	if f.Criteria.Size < 0 {
		return gerr(twins.Invalid, "invalidArgument", "size must not be negative").WithField("criteria.size")
	}
	if f.Action.Forward != "" {
		return gerr(twins.NotImplemented, "notImplemented", "Filter forwarding is not supported by the Gmail twin").WithField("action.forward")
	}
	for _, list := range []struct {
		name string
		ids  []string
	}{{"addLabelIds", f.Action.AddLabelIDs}, {"removeLabelIds", f.Action.RemoveLabelIDs}} {
		for k, id := range list.ids {
			l := mb.label(id)
			if l == nil {
				l = mb.labelByName(id)
			}
			if l == nil {
				return gerr(twins.Invalid, "invalidArgument", "label %q is neither a system label nor one of this mailbox's labels", id).WithField(fmt.Sprintf("action.%s.%d", list.name, k))
			}
			list.ids[k] = l.ID
		}
	}
	return nil
}

// seedSettings validates and stores forwarding addresses and send-as
// aliases.
func seedSettings(mb *Mailbox, fwd []*ForwardingAddress, sendAs []*SendAs, path func(segs ...any) string) error {
	for i, f := range fwd {
		p := func(k string) string { return path("forwardingAddresses", i, k) }
		if err := seedAlias(&f.ForwardingEmail, &f.VerificationStatus, "pending", p("forwardingEmail"), p("verificationStatus")); err != nil {
			return err
		}
		for _, o := range mb.ForwardingAddresses {
			if o.ForwardingEmail == f.ForwardingEmail {
				return twins.SeedErrorf(p("forwardingEmail"), "%s is listed twice", f.ForwardingEmail)
			}
		}
		mb.ForwardingAddresses = append(mb.ForwardingAddresses, f)
	}
	for i, s := range sendAs {
		p := func(k string) string { return path("sendAs", i, k) }
		if err := seedAlias(&s.SendAsEmail, &s.VerificationStatus, "accepted", p("sendAsEmail"), p("verificationStatus")); err != nil {
			return err
		}
		if s.ReplyToAddress != "" && !plainAddress(s.ReplyToAddress) {
			return twins.SeedErrorf(p("replyToAddress"), "%q is not a plain email address", s.ReplyToAddress)
		}
		for _, o := range mb.SendAs {
			if o.SendAsEmail == s.SendAsEmail {
				return twins.SeedErrorf(p("sendAsEmail"), "%s is listed twice", s.SendAsEmail)
			}
		}
		mb.SendAs = append(mb.SendAs, s)
	}
	return nil
}

// seedAlias checks an address and its verification status (defaulting it),
// lower-casing the address.
func seedAlias(addr, status *string, def, addrPath, statusPath string) error {
	if !plainAddress(*addr) {
		return twins.SeedErrorf(addrPath, "%q is not a plain email address", *addr)
	}
	*addr = strings.ToLower(*addr)
	if *status == "" {
		*status = def
	}
	if *status != "accepted" && *status != "pending" {
		return twins.SeedErrorf(statusPath, "verificationStatus must be accepted or pending, got %q", *status)
	}
	return nil
}

// applyFilters runs the mailbox's filters on a message delivered to it.
func (mb *Mailbox) applyFilters(m *Message, now time.Time) {
	for _, f := range mb.Filters {
		if f.matches(mb, m, now) {
			mb.relabel(m, f.Action.AddLabelIDs, f.Action.RemoveLabelIDs)
		}
	}
}

// matches reads a filter's criteria as Gmail does: every criterion given
// must hold (from, to and subject as the search operators of that name).
func (f *Filter) matches(mb *Mailbox, m *Message, now time.Time) bool {
	c := f.Criteria
	var want []string
	for _, t := range []struct{ op, v string }{{"from:", c.From}, {"to:", c.To}, {"subject:", c.Subject}, {"", c.Query}} {
		if t.v != "" {
			want = append(want, t.op+t.v)
		}
	}
	if len(want) == 0 && c.NegatedQuery == "" && !c.HasAttachment && c.Size == 0 {
		return false
	}
	for _, q := range want {
		if !mb.matchesQuery(m, q, now) {
			return false
		}
	}
	if c.NegatedQuery != "" && mb.matchesQuery(m, c.NegatedQuery, now) {
		return false
	}
	if c.HasAttachment && !m.HasAttachment {
		return false
	}
	switch {
	case c.Size > 0 && c.SizeComparison == "larger" && int64(m.SizeEstimate) <= c.Size:
		return false
	case c.Size > 0 && c.SizeComparison == "smaller" && int64(m.SizeEstimate) >= c.Size:
		return false
	}
	return true
}

// matchesQuery reports whether m matches a search query; a query that
// does not parse matches nothing.
func (mb *Mailbox) matchesQuery(m *Message, q string, now time.Time) bool {
	pq, err := parseQuery(q)
	if err != nil {
		return false
	}
	x := &matcher{mb: mb, m: m, now: now}
	for _, t := range pq.terms {
		if !x.match(t) {
			return false
		}
	}
	return true
}
