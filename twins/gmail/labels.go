package gmail

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/pomehq/pome/twins"
)

// validLabelName applies Gmail's rules for user label names: not empty,
// not a system name, no leading or trailing slash or space, at most 225
// characters.
func validLabelName(name string) error {
	if strings.TrimSpace(name) == "" {
		return gerr(twins.Invalid, "invalidArgument", "Invalid label name").WithField("name")
	}
	if name != strings.TrimSpace(name) || strings.HasPrefix(name, "/") || strings.HasSuffix(name, "/") ||
		strings.Contains(name, "//") || strings.ContainsAny(name, "\r\n") || utf8.RuneCountInString(name) > 225 {
		return gerr(twins.Invalid, "invalidArgument", "Invalid label name").WithField("name")
	}
	for _, r := range reservedNames {
		if strings.EqualFold(r, name) {
			return gerr(twins.Invalid, "invalidArgument", "Invalid label name").WithField("name")
		}
	}
	return nil
}

func validVisibility(msg, lbl string) error {
	switch msg {
	case "", "show", "hide":
	default:
		return gerr(twins.Invalid, "invalidArgument", "Invalid value at 'label.message_list_visibility', %q", msg).WithField("messageListVisibility")
	}
	switch lbl {
	case "", "labelShow", "labelShowIfUnread", "labelHide":
	default:
		return gerr(twins.Invalid, "invalidArgument", "Invalid value at 'label.label_list_visibility', %q", lbl).WithField("labelListVisibility")
	}
	return nil
}

var hexColor = regexp.MustCompile(`^#[0-9a-fA-F]{6}$`)

func validColor(c *LabelColor) error {
	if c == nil {
		return nil
	}
	if !hexColor.MatchString(c.TextColor) || !hexColor.MatchString(c.BackgroundColor) {
		return gerr(twins.Invalid, "invalidArgument", "Label color must set textColor and backgroundColor as #rrggbb").WithField("color")
	}
	return nil
}

// labelOut renders a label; counts only when asked (labels.get has them,
// labels.list does not).
func (mb *Mailbox) labelOut(l *Label, counts bool) LabelOut {
	out := LabelOut{
		ID: l.ID, Name: l.Name, Type: l.Type, MessageListVisibility: l.MessageListVisibility,
		LabelListVisibility: l.LabelListVisibility, Color: l.Color, LabelID: l.ID,
	}
	if counts {
		var mt, mu int
		threads, unread := map[string]bool{}, map[string]bool{}
		for _, m := range mb.Messages {
			if !m.hasLabel(l.ID) {
				continue
			}
			mt++
			threads[m.ThreadID] = true
			if m.hasLabel("UNREAD") {
				mu++
				unread[m.ThreadID] = true
			}
		}
		tt, tu := len(threads), len(unread)
		out.MessagesTotal, out.MessagesUnread, out.ThreadsTotal, out.ThreadsUnread = &mt, &mu, &tt, &tu
	}
	return out
}

func restLabel(_, out any) any { return out.(LabelOut).rest() }

// ---- list ----

type listLabelsIn struct {
	UserArg
}

// ListLabelsResponse is Gmail's labels.list answer.
type ListLabelsResponse struct {
	Labels []LabelOut `json:"labels"`
}

var listLabels = twins.New(twins.Spec{
	Name: "list_labels", Title: "List labels",
	Description: "Lists the mailbox's labels, system (INBOX, SENT, DRAFT, TRASH, SPAM, STARRED, UNREAD, IMPORTANT, CATEGORY_*) and user labels (Label_N ids).",
	Effect:      twins.Read,
	Bindings: []twins.Binding{{Method: "GET", Path: base + "/labels", Shape: func(_, out any) any {
		o := out.(ListLabelsResponse)
		ls := make([]LabelOut, len(o.Labels))
		for i, l := range o.Labels {
			ls[i] = l.rest()
		}
		return ListLabelsResponse{Labels: ls}
	}}},
}, func(ctx context.Context, w *World, in listLabelsIn) (ListLabelsResponse, error) {
	mb, err := w.mailbox(in.UserID)
	if err != nil {
		return ListLabelsResponse{}, err
	}
	out := ListLabelsResponse{Labels: []LabelOut{}}
	for _, l := range mb.Labels {
		out.Labels = append(out.Labels, mb.labelOut(l, false))
	}
	return out, nil
})

// ---- get ----

type labelIDIn struct {
	UserArg
	ID string `json:"id" jsonschema:"The label id (INBOX, Label_3, …)"`
}

func (mb *Mailbox) lookupLabel(id string) (*Label, error) {
	l := mb.label(id)
	if l == nil {
		return nil, notFound()
	}
	return l, nil
}

var getLabel = twins.New(twins.Spec{
	Name: "get_label", Title: "Get label",
	Description: "Gets a label with its message and thread counts.",
	Effect:      twins.Read,
	Bindings:    []twins.Binding{{Method: "GET", Path: base + "/labels/{id}", Shape: restLabel}},
}, func(ctx context.Context, w *World, in labelIDIn) (LabelOut, error) {
	mb, err := w.mailbox(in.UserID)
	if err != nil {
		return LabelOut{}, err
	}
	l, err := mb.lookupLabel(in.ID)
	if err != nil {
		return LabelOut{}, err
	}
	return mb.labelOut(l, true), nil
})

// ---- create ----

type createLabelIn struct {
	UserArg
	Name                  string      `json:"name,omitempty" jsonschema:"The label name (REST)"`
	DisplayName           string      `json:"displayName,omitempty" jsonschema:"The label name (Google's MCP spelling of name)"`
	MessageListVisibility string      `json:"messageListVisibility,omitempty" jsonschema:"show or hide" enum:"show,hide"`
	LabelListVisibility   string      `json:"labelListVisibility,omitempty" jsonschema:"labelShow, labelShowIfUnread or labelHide" enum:"labelShow,labelShowIfUnread,labelHide"`
	Color                 *LabelColor `json:"color,omitempty"`
	// AutoCreateParentLabels is Google's MCP argument: with displayName
	// "A/B", create "A" too unless it is false.
	AutoCreateParentLabels *bool `json:"autoCreateParentLabels,omitempty" jsonschema:"With displayName, create missing parent labels of a nested name (A/B creates A); default true"`
}

var createLabel = twins.New(twins.Spec{
	Name: "create_label", Title: "Create label",
	Description: "Creates a user label. Names are unique case-insensitively (a duplicate is refused with 409) and may not be a system label's.",
	Effect:      twins.Write,
	Bindings:    []twins.Binding{{Method: "POST", Path: base + "/labels", Shape: restLabel}},
}, func(ctx context.Context, w *World, in createLabelIn) (LabelOut, error) {
	mb, err := w.mailbox(in.UserID)
	if err != nil {
		return LabelOut{}, err
	}
	name := orDefault(in.Name, in.DisplayName)
	if err := validLabelName(name); err != nil {
		return LabelOut{}, err
	}
	if mb.labelByName(name) != nil {
		return LabelOut{}, gerr(twins.Conflict, "duplicate", "Label name exists or conflicts")
	}
	if err := validVisibility(in.MessageListVisibility, in.LabelListVisibility); err != nil {
		return LabelOut{}, err
	}
	if err := validColor(in.Color); err != nil {
		return LabelOut{}, err
	}
	// Parents first, as Google's MCP tool creates them; REST's labels.create
	// (name) creates only the label asked for.
	if in.Name == "" && (in.AutoCreateParentLabels == nil || *in.AutoCreateParentLabels) {
		parts := strings.Split(name, "/")
		for i := 1; i < len(parts); i++ {
			parent := strings.Join(parts[:i], "/")
			if mb.labelByName(parent) == nil && validLabelName(parent) == nil {
				mb.Labels = append(mb.Labels, &Label{ID: mb.newLabelID(), Name: parent, Type: "user", MessageListVisibility: "show", LabelListVisibility: "labelShow"})
			}
		}
	}
	l := &Label{
		ID: mb.newLabelID(), Name: name, Type: "user",
		MessageListVisibility: orDefault(in.MessageListVisibility, "show"),
		LabelListVisibility:   orDefault(in.LabelListVisibility, "labelShow"), Color: in.Color,
	}
	mb.Labels = append(mb.Labels, l)
	mb.bump()
	return mb.labelOut(l, false), nil
})

// ---- update / patch ----

type updateLabelIn struct {
	UserArg
	ID                    string      `json:"id" jsonschema:"The label id"`
	Name                  *string     `json:"name,omitempty"`
	MessageListVisibility *string     `json:"messageListVisibility,omitempty" enum:"show,hide"`
	LabelListVisibility   *string     `json:"labelListVisibility,omitempty" enum:"labelShow,labelShowIfUnread,labelHide"`
	Color                 *LabelColor `json:"color,omitempty"`
}

// changeLabel validates and applies an update; replace (PUT) resets what
// the request leaves out, patch (PATCH) keeps it.
func changeLabel(ctx context.Context, w *World, in updateLabelIn, replace bool) (LabelOut, error) {
	mb, err := w.mailbox(in.UserID)
	if err != nil {
		return LabelOut{}, err
	}
	l, err := mb.lookupLabel(in.ID)
	if err != nil {
		return LabelOut{}, err
	}
	if l.Type == "system" {
		return LabelOut{}, gerr(twins.Invalid, "invalidArgument", "Invalid label: %s", l.ID)
	}
	next := *l
	if replace {
		next.MessageListVisibility, next.LabelListVisibility, next.Color = "show", "labelShow", nil
		if in.Name == nil {
			return LabelOut{}, gerr(twins.Invalid, "invalidArgument", "Invalid label name").WithField("name")
		}
	}
	if in.Name != nil {
		if err := validLabelName(*in.Name); err != nil {
			return LabelOut{}, err
		}
		if o := mb.labelByName(*in.Name); o != nil && o != l {
			return LabelOut{}, gerr(twins.Conflict, "duplicate", "Label name exists or conflicts")
		}
		next.Name = *in.Name
	}
	var mv, lv string
	if in.MessageListVisibility != nil {
		mv = *in.MessageListVisibility
	}
	if in.LabelListVisibility != nil {
		lv = *in.LabelListVisibility
	}
	if err := validVisibility(mv, lv); err != nil {
		return LabelOut{}, err
	}
	if mv != "" {
		next.MessageListVisibility = mv
	}
	if lv != "" {
		next.LabelListVisibility = lv
	}
	if in.Color != nil {
		if err := validColor(in.Color); err != nil {
			return LabelOut{}, err
		}
		next.Color = in.Color
	}
	if next.Name == l.Name && next.MessageListVisibility == l.MessageListVisibility &&
		next.LabelListVisibility == l.LabelListVisibility && sameColor(next.Color, l.Color) {
		twins.Unchanged(ctx)
		return mb.labelOut(l, false), nil
	}
	*l = next
	mb.bump()
	return mb.labelOut(l, false), nil
}

func sameColor(a, b *LabelColor) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

var updateLabel = twins.New(twins.Spec{
	Name: "update_label", Title: "Update label",
	Description: "Replaces a user label's name, visibility and colour (PUT: omitted fields reset to defaults).",
	Effect:      twins.Write,
	Bindings:    []twins.Binding{{Method: "PUT", Path: base + "/labels/{id}", Shape: restLabel}},
}, func(ctx context.Context, w *World, in updateLabelIn) (LabelOut, error) {
	return changeLabel(ctx, w, in, true)
})

var patchLabel = twins.New(twins.Spec{
	Name: "patch_label", Title: "Patch label",
	Description: "Changes the given fields of a user label (PATCH).",
	Effect:      twins.Write,
	Bindings:    []twins.Binding{{Method: "PATCH", Path: base + "/labels/{id}", Shape: restLabel}},
}, func(ctx context.Context, w *World, in updateLabelIn) (LabelOut, error) {
	return changeLabel(ctx, w, in, false)
})

// ---- delete ----

var deleteLabel = twins.New(twins.Spec{
	Name: "delete_label", Title: "Delete label",
	Description: "Deletes a user label and removes it from every message.",
	Effect:      twins.Destructive,
	Bindings:    []twins.Binding{{Method: "DELETE", Path: base + "/labels/{id}", Status: 204}},
}, func(ctx context.Context, w *World, in labelIDIn) (Empty, error) {
	mb, err := w.mailbox(in.UserID)
	if err != nil {
		return Empty{}, err
	}
	l, err := mb.lookupLabel(in.ID)
	if err != nil {
		return Empty{}, err
	}
	if l.Type == "system" {
		return Empty{}, gerr(twins.Invalid, "invalidArgument", "Invalid delete request")
	}
	for _, m := range mb.Messages {
		if m.hasLabel(l.ID) {
			mb.relabel(m, nil, []string{l.ID})
		}
	}
	mb.Labels = slices.DeleteFunc(mb.Labels, func(x *Label) bool { return x == l })
	mb.bump()
	return Empty{}, nil
})
