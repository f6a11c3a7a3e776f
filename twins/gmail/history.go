package gmail

import (
	"context"
	"slices"
	"strconv"

	"github.com/pomehq/pome/twins"
)

type listHistoryIn struct {
	UserArg
	StartHistoryID string   `json:"startHistoryId" jsonschema:"Return changes after this history id (from a message, thread or the profile)"`
	HistoryTypes   []string `json:"historyTypes,omitempty" jsonschema:"messageAdded, messageDeleted, labelAdded, labelRemoved"`
	LabelID        string   `json:"labelId,omitempty" jsonschema:"Only changes to messages with this label"`
	MaxResults     int      `json:"maxResults,omitempty" jsonschema:"Page size (default 100, at most 500)"`
	PageToken      string   `json:"pageToken,omitempty"`
}

// HistoryMessageChange is one message of a history record.
type HistoryMessageChange struct {
	Message MessageOut `json:"message"`
}

// HistoryLabelChange is a label change of a history record.
type HistoryLabelChange struct {
	Message  MessageOut `json:"message"`
	LabelIDs []string   `json:"labelIds"`
}

// History is Gmail's History resource.
type History struct {
	ID              string                 `json:"id"`
	Messages        []MessageOut           `json:"messages,omitempty"`
	MessagesAdded   []HistoryMessageChange `json:"messagesAdded,omitempty"`
	MessagesDeleted []HistoryMessageChange `json:"messagesDeleted,omitempty"`
	LabelsAdded     []HistoryLabelChange   `json:"labelsAdded,omitempty"`
	LabelsRemoved   []HistoryLabelChange   `json:"labelsRemoved,omitempty"`
}

// ListHistoryResponse is Gmail's history.list answer.
type ListHistoryResponse struct {
	History       []History `json:"history,omitempty"`
	NextPageToken string    `json:"nextPageToken,omitempty"`
	HistoryID     string    `json:"historyId"`
}

func refOut(r MessageRef) MessageOut {
	return MessageOut{ID: r.ID, ThreadID: r.ThreadID, LabelIDs: slices.Clone(r.LabelIDs)}
}

var listHistory = twins.New(twins.Spec{
	Name: "list_history", Title: "List history",
	Description: "Lists the mailbox's changes (messages added and deleted, labels added and removed) after startHistoryId, oldest first.",
	Effect:      twins.Read,
	Bindings:    []twins.Binding{{Method: "GET", Path: base + "/history"}},
}, func(ctx context.Context, w *World, in listHistoryIn) (ListHistoryResponse, error) {
	mb, err := w.mailbox(in.UserID)
	if err != nil {
		return ListHistoryResponse{}, err
	}
	start, err := strconv.ParseUint(in.StartHistoryID, 10, 64)
	if err != nil {
		return ListHistoryResponse{}, gerr(twins.Invalid, "invalidArgument", "Invalid startHistoryId").WithField("startHistoryId")
	}
	for _, t := range in.HistoryTypes {
		switch t {
		case "messageAdded", "messageDeleted", "labelAdded", "labelRemoved":
		default:
			return ListHistoryResponse{}, gerr(twins.Invalid, "invalidArgument", "Invalid value at 'history_types', %q", t).WithField("historyTypes")
		}
	}
	if in.MaxResults < 0 {
		return ListHistoryResponse{}, gerr(twins.Invalid, "invalidArgument", "Invalid maxResults").WithField("maxResults")
	}
	want := func(t string) bool { return len(in.HistoryTypes) == 0 || slices.Contains(in.HistoryTypes, t) }
	hasLabel := func(r MessageRef) bool { return in.LabelID == "" || slices.Contains(r.LabelIDs, in.LabelID) }
	// Records sharing an id (a modify that added and removed) are one
	// History entry, as Gmail reports them.
	var out []History
	for _, rec := range mb.History {
		if rec.ID <= start {
			continue
		}
		var h History
		var ref *MessageRef
		switch {
		case rec.MessageAdded != nil && want("messageAdded") && hasLabel(*rec.MessageAdded):
			ref = rec.MessageAdded
			h.MessagesAdded = []HistoryMessageChange{{Message: refOut(*ref)}}
		case rec.MessageDelete != nil && want("messageDeleted") && hasLabel(*rec.MessageDelete):
			ref = rec.MessageDelete
			h.MessagesDeleted = []HistoryMessageChange{{Message: refOut(*ref)}}
		case rec.LabelsAdded != nil && want("labelAdded") && hasLabel(rec.LabelsAdded.Message):
			ref = &rec.LabelsAdded.Message
			h.LabelsAdded = []HistoryLabelChange{{Message: refOut(*ref), LabelIDs: slices.Clone(rec.LabelsAdded.LabelIDs)}}
		case rec.LabelsRemoved != nil && want("labelRemoved") && (in.LabelID == "" || hasLabel(rec.LabelsRemoved.Message) || slices.Contains(rec.LabelsRemoved.LabelIDs, in.LabelID)):
			ref = &rec.LabelsRemoved.Message
			h.LabelsRemoved = []HistoryLabelChange{{Message: refOut(*ref), LabelIDs: slices.Clone(rec.LabelsRemoved.LabelIDs)}}
		default:
			continue
		}
		h.ID = fmtHistory(rec.ID)
		h.Messages = []MessageOut{{ID: ref.ID, ThreadID: ref.ThreadID}}
		if n := len(out); n > 0 && out[n-1].ID == h.ID {
			prev := &out[n-1]
			prev.MessagesAdded = append(prev.MessagesAdded, h.MessagesAdded...)
			prev.MessagesDeleted = append(prev.MessagesDeleted, h.MessagesDeleted...)
			prev.LabelsAdded = append(prev.LabelsAdded, h.LabelsAdded...)
			prev.LabelsRemoved = append(prev.LabelsRemoved, h.LabelsRemoved...)
			continue
		}
		out = append(out, h)
	}
	pg, next, err := page(out, in.PageToken, in.MaxResults, 100, 500)
	if err != nil {
		return ListHistoryResponse{}, err
	}
	return ListHistoryResponse{History: pg, NextPageToken: next, HistoryID: fmtHistory(mb.HistoryID)}, nil
})
