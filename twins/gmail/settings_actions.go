package gmail

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/pomehq/pome/twins"
)

// Gmail's users.settings methods for filters, forwarding addresses and
// send-as aliases. Google's MCP server has no tools for them; the names
// are ours.

// ListFiltersResponse is Gmail's filters.list answer.
type ListFiltersResponse struct {
	Filter []*Filter `json:"filter,omitempty"`
}

// ListForwardingAddressesResponse is Gmail's forwardingAddresses.list answer.
type ListForwardingAddressesResponse struct {
	ForwardingAddresses []*ForwardingAddress `json:"forwardingAddresses,omitempty"`
}

// ListSendAsResponse is Gmail's sendAs.list answer.
type ListSendAsResponse struct {
	SendAs []SendAsOut `json:"sendAs"`
}

// SendAsOut is a send-as alias as Gmail answers it.
type SendAsOut struct {
	SendAs
	TreatAsAlias bool   `json:"treatAsAlias"`
	Signature    string `json:"signature"`
}

type settingsIn struct {
	UserArg
}

type filterIDIn struct {
	UserArg
	ID string `json:"id" jsonschema:"The filter id"`
}

type createFilterIn struct {
	UserArg
	Criteria FilterCriteria `json:"criteria,omitempty"`
	Action   FilterAction   `json:"action,omitempty"`
}

type forwardingIn struct {
	UserArg
	ForwardingEmail string `json:"forwardingEmail" jsonschema:"The forwarding address"`
}

type sendAsIn struct {
	UserArg
	SendAsEmail string `json:"sendAsEmail" jsonschema:"The send-as address"`
}

var listFilters = twins.New(twins.Spec{
	Name: "list_filters", Title: "List filters",
	Description: "Lists the mailbox's filters (criteria and the labels they add or remove).",
	Effect:      twins.Read,
	Bindings:    []twins.Binding{{Method: "GET", Path: base + "/settings/filters"}},
}, func(ctx context.Context, w *World, in settingsIn) (ListFiltersResponse, error) {
	mb, err := w.mailbox(in.UserID)
	if err != nil {
		return ListFiltersResponse{}, err
	}
	return ListFiltersResponse{Filter: slices.Clone(mb.Filters)}, nil
})

var getFilter = twins.New(twins.Spec{
	Name: "get_filter", Title: "Get filter",
	Description: "Gets one filter.",
	Effect:      twins.Read,
	Bindings:    []twins.Binding{{Method: "GET", Path: base + "/settings/filters/{id}"}},
}, func(ctx context.Context, w *World, in filterIDIn) (*Filter, error) {
	mb, err := w.mailbox(in.UserID)
	if err != nil {
		return nil, err
	}
	return mb.lookupFilter(in.ID)
})

var createFilter = twins.New(twins.Spec{
	Name: "create_filter", Title: "Create filter",
	Description: "Creates a filter that acts on mail delivered to the mailbox from now on: criteria (from, to, subject, query, negatedQuery, hasAttachment, size) and action (addLabelIds, removeLabelIds; forwarding is not supported).",
	Effect:      twins.Write,
	Bindings:    []twins.Binding{{Method: "POST", Path: base + "/settings/filters"}},
}, func(ctx context.Context, w *World, in createFilterIn) (*Filter, error) {
	mb, err := w.mailbox(in.UserID)
	if err != nil {
		return nil, err
	}
	if len(mb.Filters) >= 1000 {
		return nil, gerr(twins.Invalid, "invalidArgument", "Filter limit exceeded")
	}
	f := &Filter{Criteria: in.Criteria, Action: FilterAction{
		AddLabelIDs: slices.Clone(in.Action.AddLabelIDs), RemoveLabelIDs: slices.Clone(in.Action.RemoveLabelIDs), Forward: in.Action.Forward,
	}}
	if err := mb.validFilter(f); err != nil {
		return nil, err
	}
	if f.Criteria == (FilterCriteria{}) {
		return nil, gerr(twins.Invalid, "invalidArgument", "Filter doesn't have any criteria")
	}
	if len(f.Action.AddLabelIDs)+len(f.Action.RemoveLabelIDs) == 0 {
		return nil, gerr(twins.Invalid, "invalidArgument", "Filter doesn't have any actions")
	}
	f.ID = mb.newFilterID()
	mb.Filters = append(mb.Filters, f)
	return f, nil
})

var deleteFilter = twins.New(twins.Spec{
	Name: "delete_filter", Title: "Delete filter",
	Description: "Deletes a filter; mail it already labelled keeps its labels.",
	Effect:      twins.Destructive,
	Bindings:    []twins.Binding{{Method: "DELETE", Path: base + "/settings/filters/{id}", Status: 204}},
}, func(ctx context.Context, w *World, in filterIDIn) (Empty, error) {
	mb, err := w.mailbox(in.UserID)
	if err != nil {
		return Empty{}, err
	}
	f, err := mb.lookupFilter(in.ID)
	if err != nil {
		return Empty{}, err
	}
	mb.Filters = slices.DeleteFunc(mb.Filters, func(x *Filter) bool { return x == f })
	return Empty{}, nil
})

var listForwardingAddresses = twins.New(twins.Spec{
	Name: "list_forwarding_addresses", Title: "List forwarding addresses",
	Description: "Lists the addresses the mailbox may forward to, with their verification status.",
	Effect:      twins.Read,
	Bindings:    []twins.Binding{{Method: "GET", Path: base + "/settings/forwardingAddresses"}},
}, func(ctx context.Context, w *World, in settingsIn) (ListForwardingAddressesResponse, error) {
	mb, err := w.mailbox(in.UserID)
	if err != nil {
		return ListForwardingAddressesResponse{}, err
	}
	return ListForwardingAddressesResponse{ForwardingAddresses: slices.Clone(mb.ForwardingAddresses)}, nil
})

var getForwardingAddress = twins.New(twins.Spec{
	Name: "get_forwarding_address", Title: "Get forwarding address",
	Description: "Gets one forwarding address.",
	Effect:      twins.Read,
	Bindings:    []twins.Binding{{Method: "GET", Path: base + "/settings/forwardingAddresses/{forwardingEmail}"}},
}, func(ctx context.Context, w *World, in forwardingIn) (*ForwardingAddress, error) {
	mb, err := w.mailbox(in.UserID)
	if err != nil {
		return nil, err
	}
	for _, f := range mb.ForwardingAddresses {
		if strings.EqualFold(f.ForwardingEmail, in.ForwardingEmail) {
			return f, nil
		}
	}
	return nil, notFound()
})

var listSendAs = twins.New(twins.Spec{
	Name: "list_send_as", Title: "List send-as aliases",
	Description: "Lists the addresses the mailbox may send as; the account's own address is always among them, as the primary one.",
	Effect:      twins.Read,
	Bindings:    []twins.Binding{{Method: "GET", Path: base + "/settings/sendAs"}},
}, func(ctx context.Context, w *World, in settingsIn) (ListSendAsResponse, error) {
	mb, err := w.mailbox(in.UserID)
	if err != nil {
		return ListSendAsResponse{}, err
	}
	return ListSendAsResponse{SendAs: mb.sendAsList()}, nil
})

var getSendAs = twins.New(twins.Spec{
	Name: "get_send_as", Title: "Get send-as alias",
	Description: "Gets one send-as alias.",
	Effect:      twins.Read,
	Bindings:    []twins.Binding{{Method: "GET", Path: base + "/settings/sendAs/{sendAsEmail}"}},
}, func(ctx context.Context, w *World, in sendAsIn) (SendAsOut, error) {
	mb, err := w.mailbox(in.UserID)
	if err != nil {
		return SendAsOut{}, err
	}
	for _, s := range mb.sendAsList() {
		if strings.EqualFold(s.SendAsEmail, in.SendAsEmail) {
			return s, nil
		}
	}
	return SendAsOut{}, notFound()
})

func (mb *Mailbox) lookupFilter(id string) (*Filter, error) {
	for _, f := range mb.Filters {
		if f.ID == id {
			return f, nil
		}
	}
	return nil, notFound()
}

// newFilterID mints filter_N, skipping ids a seed pinned; ids are never
// reused.
func (mb *Mailbox) newFilterID() string {
	for {
		mb.NextFilter++
		id := fmt.Sprintf("filter_%d", mb.NextFilter)
		if _, err := mb.lookupFilter(id); err != nil {
			return id
		}
	}
}

// sendAsList is the mailbox's aliases, primary first; the account's own
// address is there even when no seed names it, as in Gmail.
func (mb *Mailbox) sendAsList() []SendAsOut {
	var out []SendAsOut
	own := false
	for _, s := range mb.SendAs {
		own = own || strings.EqualFold(s.SendAsEmail, mb.Address)
		out = append(out, SendAsOut{SendAs: *s, TreatAsAlias: !s.IsPrimary})
	}
	if !own {
		out = append(out, SendAsOut{SendAs: SendAs{SendAsEmail: mb.Address, DisplayName: mb.DisplayName, IsPrimary: true, IsDefault: !slices.ContainsFunc(mb.SendAs, func(s *SendAs) bool { return s.IsDefault })}})
	}
	slices.SortStableFunc(out, func(a, b SendAsOut) int {
		if a.IsPrimary != b.IsPrimary {
			if a.IsPrimary {
				return -1
			}
			return 1
		}
		return strings.Compare(strings.ToLower(a.SendAsEmail), strings.ToLower(b.SendAsEmail))
	})
	return out
}

// sendsAs reports whether addr is an accepted send-as alias of the mailbox:
// mail the user sends from it keeps it as From, where any other From is
// replaced by the user's own address, as Gmail does.
func (mb *Mailbox) sendsAs(addr string) bool {
	for _, s := range mb.SendAs {
		if strings.EqualFold(s.SendAsEmail, addr) && s.VerificationStatus == "accepted" {
			return true
		}
	}
	return false
}
