package gmail

import (
	"context"

	"github.com/pomehq/pome/twins"
)

// Google's Gmail MCP server moves mail to Trash or Spam with its own two
// tools (the original Pome serves them too); over REST the same is
// messages.trash, threads.trash or a modify with SPAM.

type sensitiveMessageIn struct {
	UserArg
	MessageID   string `json:"messageId" jsonschema:"Required. The ID of the message to add the label to."`
	LabelOption string `json:"labelOption" jsonschema:"Required. The sensitive label option to add: TRASH or SPAM." enum:"TRASH,SPAM"`
}

type sensitiveThreadIn struct {
	UserArg
	ThreadID    string `json:"threadId" jsonschema:"Required. The ID of the thread to add the label to."`
	LabelOption string `json:"labelOption" jsonschema:"Required. The sensitive label option to add: TRASH or SPAM." enum:"TRASH,SPAM"`
}

// sensitiveLabel reads a labelOption: the label to add and those it takes
// off (the other of the two, and INBOX).
func sensitiveLabel(opt string) (add, remove []string, err error) {
	switch opt {
	case "TRASH":
		return []string{"TRASH"}, []string{"INBOX", "SPAM"}, nil
	case "SPAM":
		return []string{"SPAM"}, []string{"INBOX", "TRASH"}, nil
	}
	return nil, nil, gerr(twins.Invalid, "invalidArgument", "Invalid value at 'label_option', %q: must be TRASH or SPAM", opt).WithField("labelOption")
}

var applySensitiveMessageLabel = twins.New(twins.Spec{
	Name: "apply_sensitive_message_label", Title: "Apply sensitive label (Trash or Spam) to message",
	Description: "Adds a sensitive label (TRASH or SPAM) to a message, taking it out of the inbox.",
	Effect:      twins.Destructive,
}, func(ctx context.Context, w *World, in sensitiveMessageIn) (Empty, error) {
	add, remove, err := sensitiveLabel(in.LabelOption)
	if err != nil {
		return Empty{}, err
	}
	_, err = modify(ctx, w, in.UserID, in.MessageID, add, remove)
	return Empty{}, err
})

var applySensitiveThreadLabel = twins.New(twins.Spec{
	Name: "apply_sensitive_thread_label", Title: "Apply sensitive label (Trash or Spam) to thread",
	Description: "Adds a sensitive label (TRASH or SPAM) to every message of a thread, taking them out of the inbox.",
	Effect:      twins.Destructive,
}, func(ctx context.Context, w *World, in sensitiveThreadIn) (Empty, error) {
	add, remove, err := sensitiveLabel(in.LabelOption)
	if err != nil {
		return Empty{}, err
	}
	_, err = modifyThreadLabels(ctx, w, in.UserID, in.ThreadID, add, remove)
	return Empty{}, err
})
