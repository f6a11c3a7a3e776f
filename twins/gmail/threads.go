package gmail

import (
	"context"
	"strings"

	"github.com/pomehq/pome/twins"
)

func restThread(_, out any) any { return out.(ThreadOut).rest() }

// ---- search_threads / threads.list ----

type searchThreadsIn struct {
	UserArg
	Query        string `json:"query,omitempty" jsonschema:"Gmail search query (from: to: subject: label: is:unread has:attachment after: newer_than: …)"`
	PageSize     int    `json:"pageSize,omitempty" jsonschema:"Threads per page (default 20, at most 50)"`
	PageToken    string `json:"pageToken,omitempty" jsonschema:"nextPageToken of the previous page"`
	IncludeTrash bool   `json:"includeTrash,omitempty" jsonschema:"Include threads in TRASH"`

	Q                string   `json:"q,omitempty" jsonschema:"REST spelling of query"`
	LabelIDs         []string `json:"labelIds,omitempty" jsonschema:"Only threads with a message carrying all these label ids"`
	MaxResults       int      `json:"maxResults,omitempty" jsonschema:"REST page size (default 100, at most 500)"`
	IncludeSpamTrash bool     `json:"includeSpamTrash,omitempty" jsonschema:"Include SPAM and TRASH"`
}

// ListThreadsResponse is Gmail's threads.list answer; MCP results also
// carry each thread's message summaries.
type ListThreadsResponse struct {
	Threads            []ThreadOut `json:"threads,omitempty"`
	NextPageToken      string      `json:"nextPageToken,omitempty"`
	ResultSizeEstimate int         `json:"resultSizeEstimate"`
}

// summary is a message as search_threads shows it: headers and snippet,
// no body.
func summary(m *Message) MessageOut { return view(m, "minimal", nil) }

var searchThreads = twins.New(twins.Spec{
	Name: "search_threads", Title: "Search threads",
	Description: "Lists threads matching a Gmail search query, newest first, each with its messages' subject, sender, recipients, date and snippet (use get_thread for bodies). Paginates with pageToken.",
	Effect:      twins.Read,
	Bindings: []twins.Binding{{Method: "GET", Path: base + "/threads", Shape: func(_, out any) any {
		o := out.(ListThreadsResponse)
		r := ListThreadsResponse{NextPageToken: o.NextPageToken, ResultSizeEstimate: o.ResultSizeEstimate}
		for _, t := range o.Threads {
			r.Threads = append(r.Threads, ThreadOut{ID: t.ID, Snippet: t.Snippet, HistoryID: t.HistoryID})
		}
		return r
	}}},
}, func(ctx context.Context, w *World, in searchThreadsIn) (ListThreadsResponse, error) {
	mb, err := w.mailbox(in.UserID)
	if err != nil {
		return ListThreadsResponse{}, err
	}
	q := in.Query
	if in.Q != "" {
		q = strings.TrimSpace(q + " " + in.Q)
	}
	// REST's maxResults pages by 100 (at most 500); Google's MCP tool pages
	// by 20 (at most 50), and a call in its spelling gets its defaults.
	size, def, limit := in.MaxResults, 100, 500
	if in.MaxResults == 0 && (in.PageSize != 0 || in.Query != "" || in.IncludeTrash) {
		size, def, limit = in.PageSize, 20, 50
	}
	if size < 0 {
		return ListThreadsResponse{}, gerr(twins.Invalid, "invalidArgument", "Invalid maxResults").WithField("maxResults")
	}
	found, err := mb.search(q, in.LabelIDs, in.IncludeSpamTrash || in.IncludeTrash, w.now(ctx))
	if err != nil {
		return ListThreadsResponse{}, err
	}
	var ids []string
	seen := map[string]bool{}
	for _, m := range found {
		if !seen[m.ThreadID] {
			seen[m.ThreadID] = true
			ids = append(ids, m.ThreadID)
		}
	}
	pg, next, err := page(ids, in.PageToken, size, def, limit)
	if err != nil {
		return ListThreadsResponse{}, err
	}
	out := ListThreadsResponse{NextPageToken: next, ResultSizeEstimate: len(ids)}
	for _, id := range pg {
		ms := mb.thread(id)
		t := ThreadOut{ID: id, Snippet: ms[len(ms)-1].Snippet, HistoryID: fmtHistory(threadHistory(ms))}
		for _, m := range ms {
			t.Messages = append(t.Messages, summary(m))
		}
		out.Threads = append(out.Threads, t)
	}
	return out, nil
})

// ---- get_thread / threads.get ----

type getThreadIn struct {
	UserArg
	ThreadID        string   `json:"threadId" jsonschema:"The thread id"`
	MessageFormat   string   `json:"messageFormat,omitempty" jsonschema:"MINIMAL or FULL_CONTENT (default), as Google's MCP tool takes it" enum:"MESSAGE_FORMAT_UNSPECIFIED,MINIMAL,FULL_CONTENT"`
	Format          string   `json:"format,omitempty" jsonschema:"REST format: full (default), metadata or minimal" enum:"full,metadata,minimal"`
	MetadataHeaders []string `json:"metadataHeaders,omitempty" jsonschema:"With format=metadata, only these headers"`
}

func (mb *Mailbox) lookupThread(id string) ([]*Message, error) {
	ms := mb.thread(id)
	if len(ms) > 0 {
		return ms, nil
	}
	if !hexID.MatchString(id) {
		return nil, gerr(twins.Invalid, "invalidArgument", "Invalid id value")
	}
	return nil, notFound()
}

func threadOut(ms []*Message, format string, headers []string) ThreadOut {
	t := ThreadOut{ID: ms[0].ThreadID, HistoryID: fmtHistory(threadHistory(ms))}
	for _, m := range ms {
		t.Messages = append(t.Messages, view(m, format, headers))
	}
	return t
}

var getThread = twins.New(twins.Spec{
	Name: "get_thread", Title: "Get thread",
	Description: "Gets a thread with all its messages, oldest first, including decoded subject, sender, recipients and plain-text bodies.",
	Effect:      twins.Read,
	Bindings: []twins.Binding{{Method: "GET", Path: base + "/threads/{id}", Rename: map[string]string{"id": "threadId"},
		Shape: restThread}},
}, func(ctx context.Context, w *World, in getThreadIn) (ThreadOut, error) {
	mb, err := w.mailbox(in.UserID)
	if err != nil {
		return ThreadOut{}, err
	}
	format, err := mcpFormat(in.Format, in.MessageFormat)
	if err != nil {
		return ThreadOut{}, err
	}
	if format == "raw" {
		return ThreadOut{}, gerr(twins.Invalid, "invalidArgument", "Invalid value at 'format': raw is not supported for threads").WithField("format")
	}
	ms, err := mb.lookupThread(in.ThreadID)
	if err != nil {
		return ThreadOut{}, err
	}
	return threadOut(ms, format, in.MetadataHeaders), nil
})

// ---- modify / label / trash ----

type modifyThreadIn struct {
	UserArg
	ThreadID       string   `json:"threadId" jsonschema:"The thread id"`
	AddLabelIDs    []string `json:"addLabelIds,omitempty"`
	RemoveLabelIDs []string `json:"removeLabelIds,omitempty"`
}

func modifyThreadLabels(ctx context.Context, w *World, userID, id string, add, remove []string) (ThreadOut, error) {
	mb, err := w.mailbox(userID)
	if err != nil {
		return ThreadOut{}, err
	}
	ms, err := mb.lookupThread(id)
	if err != nil {
		return ThreadOut{}, err
	}
	if add, err = mb.checkLabels(add); err != nil {
		return ThreadOut{}, err
	}
	if remove, err = mb.checkLabels(remove); err != nil {
		return ThreadOut{}, err
	}
	changed := false
	for _, m := range ms {
		changed = mb.relabel(m, add, remove) || changed
	}
	if !changed {
		twins.Unchanged(ctx)
	}
	return threadOut(ms, "minimal", nil), nil
}

var modifyThread = twins.New(twins.Spec{
	Name: "modify_thread", Title: "Modify thread labels",
	Description: "Adds and removes labels on every message of a thread (Gmail's threads.modify).",
	Effect:      twins.Write,
	Bindings: []twins.Binding{{Method: "POST", Path: base + "/threads/{id}/modify", Rename: map[string]string{"id": "threadId"},
		Shape: restThread}},
}, func(ctx context.Context, w *World, in modifyThreadIn) (ThreadOut, error) {
	return modifyThreadLabels(ctx, w, in.UserID, in.ThreadID, in.AddLabelIDs, in.RemoveLabelIDs)
})

type labelThreadIn struct {
	UserArg
	ThreadID string   `json:"threadId" jsonschema:"The thread id"`
	LabelIDs []string `json:"labelIds" jsonschema:"Label ids: system ids or user label ids from list_labels"`
}

var labelThread = twins.New(twins.Spec{
	Name: "label_thread", Title: "Label thread",
	Description: "Adds labels to every message of a thread.",
	Effect:      twins.Write,
}, func(ctx context.Context, w *World, in labelThreadIn) (ThreadOut, error) {
	return modifyThreadLabels(ctx, w, in.UserID, in.ThreadID, in.LabelIDs, nil)
})

var unlabelThread = twins.New(twins.Spec{
	Name: "unlabel_thread", Title: "Unlabel thread",
	Description: "Removes labels from every message of a thread.",
	Effect:      twins.Write,
}, func(ctx context.Context, w *World, in labelThreadIn) (ThreadOut, error) {
	return modifyThreadLabels(ctx, w, in.UserID, in.ThreadID, nil, in.LabelIDs)
})

type threadIDIn struct {
	UserArg
	ThreadID string `json:"threadId" jsonschema:"The thread id"`
}

var trashThread = twins.New(twins.Spec{
	Name: "trash_thread", Title: "Trash thread",
	Description: "Moves every message of a thread to the trash.",
	Effect:      twins.Write,
	Bindings: []twins.Binding{{Method: "POST", Path: base + "/threads/{id}/trash", Rename: map[string]string{"id": "threadId"},
		Shape: restThread}},
}, func(ctx context.Context, w *World, in threadIDIn) (ThreadOut, error) {
	return modifyThreadLabels(ctx, w, in.UserID, in.ThreadID, []string{"TRASH"}, []string{"SPAM"})
})

var untrashThread = twins.New(twins.Spec{
	Name: "untrash_thread", Title: "Untrash thread",
	Description: "Takes every message of a thread out of the trash.",
	Effect:      twins.Write,
	Bindings: []twins.Binding{{Method: "POST", Path: base + "/threads/{id}/untrash", Rename: map[string]string{"id": "threadId"},
		Shape: restThread}},
}, func(ctx context.Context, w *World, in threadIDIn) (ThreadOut, error) {
	return modifyThreadLabels(ctx, w, in.UserID, in.ThreadID, nil, []string{"TRASH"})
})

var deleteThread = twins.New(twins.Spec{
	Name: "delete_thread", Title: "Delete thread",
	Description: "Deletes every message of a thread for good.",
	Effect:      twins.Destructive,
	Bindings: []twins.Binding{{Method: "DELETE", Path: base + "/threads/{id}", Rename: map[string]string{"id": "threadId"},
		Status: 204}},
}, func(ctx context.Context, w *World, in threadIDIn) (Empty, error) {
	mb, err := w.mailbox(in.UserID)
	if err != nil {
		return Empty{}, err
	}
	ms, err := mb.lookupThread(in.ThreadID)
	if err != nil {
		return Empty{}, err
	}
	for _, m := range ms {
		mb.removeMessage(m.ID)
	}
	return Empty{}, nil
})

// mcpFormat reads Google's MCP messageFormat (MINIMAL or FULL_CONTENT)
// beside the REST format.
func mcpFormat(format, messageFormat string) (string, error) {
	switch strings.ToUpper(messageFormat) {
	case "", "MESSAGE_FORMAT_UNSPECIFIED", "FULL_CONTENT":
	case "MINIMAL":
		format = orDefault(format, "metadata")
	default:
		return "", gerr(twins.Invalid, "invalidArgument", "Invalid value at 'message_format', %q", messageFormat).WithField("messageFormat")
	}
	return checkFormat(format)
}
