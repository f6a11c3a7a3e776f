package slack

import (
	"context"
	"net/url"
	"strings"

	"github.com/pomehq/pome/twins"
)

func pinAndBookmarkActions() []twins.Action {
	pin := map[string]string{"channel": "channel_id"}
	return []twins.Action{
		twins.New(twins.Spec{
			Name: "slack_pin_message", Title: "Pin a message",
			Description: "Pins a message to its channel (pins.add).",
			Effect:      twins.Write, Bindings: method("pins.add", pin),
		}, pinMessage),
		twins.New(twins.Spec{
			Name: "slack_unpin_message", Title: "Unpin a message",
			Description: "Unpins a message from its channel (pins.remove).",
			Effect:      twins.Write, Bindings: method("pins.remove", pin),
		}, unpinMessage),
		twins.New(twins.Spec{
			Name: "slack_list_pins", Title: "List pinned messages",
			Description: "Lists the messages pinned in a channel (pins.list).",
			Effect:      twins.Read, Bindings: method("pins.list", pin),
		}, listPins),
		twins.New(twins.Spec{
			Name: "slack_add_bookmark", Title: "Add a channel bookmark",
			Description: "Adds a link bookmark to a channel's header (bookmarks.add).",
			Effect:      twins.Write, Bindings: method("bookmarks.add", nil),
		}, addBookmark),
		twins.New(twins.Spec{
			Name: "slack_list_bookmarks", Title: "List channel bookmarks",
			Description: "Lists a channel's bookmarks (bookmarks.list).",
			Effect:      twins.Read, Bindings: method("bookmarks.list", nil),
		}, listBookmarks),
		twins.New(twins.Spec{
			Name: "slack_remove_bookmark", Title: "Remove a channel bookmark",
			Description: "Removes a bookmark from a channel (bookmarks.remove).",
			Effect:      twins.Destructive, Bindings: method("bookmarks.remove", nil),
		}, removeBookmark),
	}
}

// Pin records who pinned a message and when.
type Pin struct {
	TS        string `json:"ts"`
	Created   int64  `json:"created"`
	CreatedBy string `json:"created_by"`
}

// PinIn names a message to pin or unpin.
type PinIn struct {
	ChannelID string `json:"channel_id" jsonschema:"Channel id of the message"`
	Timestamp string `json:"timestamp" jsonschema:"ts of the message"`
}

func (c *Channel) isPinned(ts string) bool {
	for _, p := range c.Pins {
		if p.TS == ts {
			return true
		}
	}
	return false
}

func pinMessage(ctx context.Context, w *World, in PinIn) (OKOut, error) {
	ch, m, err := w.reactionTarget(in.ChannelID, in.Timestamp)
	if err != nil {
		return OKOut{}, err
	}
	if ch.IsArchived {
		return OKOut{}, errIsArchived(ch)
	}
	if ch.isPinned(m.TS) {
		return OKOut{}, twins.Errorf(twins.Conflict, "already_pinned", "Message %s is already pinned.", m.TS)
	}
	ch.Pins = append(ch.Pins, &Pin{TS: m.TS, Created: now(ctx), CreatedBy: w.AuthUser})
	m.PinnedTo = append(m.PinnedTo, ch.ID)
	return OKOut{OK: true}, nil
}

func unpinMessage(ctx context.Context, w *World, in PinIn) (OKOut, error) {
	ch, m, err := w.reactionTarget(in.ChannelID, in.Timestamp)
	if err != nil {
		return OKOut{}, err
	}
	if !ch.isPinned(m.TS) {
		return OKOut{}, twins.Errorf(twins.NotFound, "no_pin", "Message %s is not pinned.", m.TS)
	}
	if ch.IsArchived {
		return OKOut{}, errIsArchived(ch)
	}
	for i, p := range ch.Pins {
		if p.TS == m.TS {
			ch.Pins = append(ch.Pins[:i], ch.Pins[i+1:]...)
			break
		}
	}
	m.PinnedTo = without(m.PinnedTo, ch.ID)
	if len(m.PinnedTo) == 0 {
		m.PinnedTo = nil
	}
	return OKOut{OK: true}, nil
}

// ListPinsIn is pins.list's input.
type ListPinsIn struct {
	ChannelID string `json:"channel_id" jsonschema:"Channel id (C…), or channel name"`
}

// PinnedItem is one pins.list entry.
type PinnedItem struct {
	Type      string  `json:"type"`
	Created   int64   `json:"created"`
	CreatedBy string  `json:"created_by"`
	Channel   string  `json:"channel"`
	Message   Message `json:"message"`
}

// ListPinsOut is pins.list's response.
type ListPinsOut struct {
	OK    bool         `json:"ok"`
	Items []PinnedItem `json:"items"`
}

func listPins(ctx context.Context, w *World, in ListPinsIn) (ListPinsOut, error) {
	ch, err := w.readable(in.ChannelID)
	if err != nil {
		return ListPinsOut{}, err
	}
	out := ListPinsOut{OK: true, Items: []PinnedItem{}}
	for i := len(ch.Pins) - 1; i >= 0; i-- {
		p := ch.Pins[i]
		if m := ch.message(p.TS); m != nil {
			out.Items = append(out.Items, PinnedItem{Type: "message", Created: p.Created, CreatedBy: p.CreatedBy, Channel: ch.ID, Message: w.view(m)})
		}
	}
	return out, nil
}

// AddBookmarkIn is bookmarks.add's input; Slack's own parameter is
// channel_id here.
type AddBookmarkIn struct {
	ChannelID string `json:"channel_id" jsonschema:"Channel id (C…)"`
	Title     string `json:"title" jsonschema:"Bookmark title"`
	Type      string `json:"type,omitempty" jsonschema:"Bookmark type; only link is supported"`
	Link      string `json:"link,omitempty" jsonschema:"URL the bookmark opens"`
	Emoji     string `json:"emoji,omitempty" jsonschema:"Emoji shown with the bookmark, e.g. :link:"`
	EntityID  string `json:"entity_id,omitempty" jsonschema:"Accepted; not used by the twin"`
	ParentID  string `json:"parent_id,omitempty" jsonschema:"Accepted; not used by the twin"`
}

// BookmarkOut is bookmarks.add's response.
type BookmarkOut struct {
	OK       bool     `json:"ok"`
	Bookmark Bookmark `json:"bookmark"`
}

func addBookmark(ctx context.Context, w *World, in AddBookmarkIn) (BookmarkOut, error) {
	ch, err := w.member(in.ChannelID)
	if err != nil {
		return BookmarkOut{}, err
	}
	if strings.TrimSpace(in.Title) == "" {
		return BookmarkOut{}, twins.Errorf(twins.Invalid, "invalid_arguments", "title is required").WithField("title")
	}
	if in.Type != "" && in.Type != "link" {
		return BookmarkOut{}, twins.Errorf(twins.Invalid, "invalid_bookmark_type", "Only link bookmarks are supported, got %q.", in.Type).WithField("type")
	}
	if u, err := url.Parse(in.Link); in.Link == "" || err != nil || u.Scheme == "" || u.Host == "" {
		return BookmarkOut{}, twins.Errorf(twins.Invalid, "invalid_link", "link %q is not an absolute URL.", in.Link).WithField("link")
	}
	t := now(ctx)
	b := &Bookmark{
		ID: w.newID("Bk"), ChannelID: ch.ID, Title: in.Title, Link: in.Link, Emoji: in.Emoji, Type: "link",
		DateCreated: t, DateUpdated: t, Rank: rank(len(ch.Bookmarks)), LastUpdated: w.AuthUser, CreatedBy: w.AuthUser,
	}
	ch.Bookmarks = append(ch.Bookmarks, b)
	return BookmarkOut{OK: true, Bookmark: *b}, nil
}

// ListBookmarksIn is bookmarks.list's input.
type ListBookmarksIn struct {
	ChannelID string `json:"channel_id" jsonschema:"Channel id (C…)"`
}

// ListBookmarksOut is bookmarks.list's response.
type ListBookmarksOut struct {
	OK        bool       `json:"ok"`
	Bookmarks []Bookmark `json:"bookmarks"`
}

func listBookmarks(ctx context.Context, w *World, in ListBookmarksIn) (ListBookmarksOut, error) {
	ch, err := w.readable(in.ChannelID)
	if err != nil {
		return ListBookmarksOut{}, err
	}
	out := ListBookmarksOut{OK: true, Bookmarks: []Bookmark{}}
	for _, b := range ch.Bookmarks {
		out.Bookmarks = append(out.Bookmarks, *b)
	}
	return out, nil
}

// RemoveBookmarkIn is bookmarks.remove's input.
type RemoveBookmarkIn struct {
	ChannelID  string `json:"channel_id" jsonschema:"Channel id (C…)"`
	BookmarkID string `json:"bookmark_id" jsonschema:"Bookmark id"`
}

func removeBookmark(ctx context.Context, w *World, in RemoveBookmarkIn) (OKOut, error) {
	ch, err := w.member(in.ChannelID)
	if err != nil {
		return OKOut{}, err
	}
	for i, b := range ch.Bookmarks {
		if b.ID == in.BookmarkID {
			ch.Bookmarks = append(ch.Bookmarks[:i], ch.Bookmarks[i+1:]...)
			return OKOut{OK: true}, nil
		}
	}
	return OKOut{}, twins.Errorf(twins.NotFound, "not_found", "No bookmark %q in %s.", in.BookmarkID, ch.ID)
}
