package slack

import (
	"context"
	"encoding/json"
	"sort"
	"strings"
	"time"
	"unicode"

	"github.com/pomehq/pome/twins"
)

func searchActions() []twins.Action {
	return []twins.Action{
		twins.New(twins.Spec{
			Name:  "slack_search_public_and_private",
			Title: "Search messages",
			Description: "Searches messages in every conversation the token's user belongs to, public or private " +
				"(search.messages). Query syntax: words (all must match), \"exact phrases\", -word, in:#channel, " +
				"in:@user (DM), from:@user, has:link, has:pin, has:reaction, before:/after:/on:YYYY-MM-DD.",
			Effect:   twins.Read,
			Bindings: method("search.messages", nil),
		}, searchAll),
		twins.New(twins.Spec{
			Name:  "slack_search_public",
			Title: "Search public channels",
			Description: "Searches messages in public channels only, with the same query syntax as " +
				"slack_search_public_and_private.",
			Effect: twins.Read,
		}, searchPublic),
		twins.New(twins.Spec{
			Name:        "slack_search_channels",
			Title:       "Search channels",
			Description: "Finds channels whose name, topic or purpose contains the query (case-insensitive).",
			Effect:      twins.Read,
		}, searchChannels),
		twins.New(twins.Spec{
			Name:        "slack_search_users",
			Title:       "Search users",
			Description: "Finds workspace members whose handle, name, display name, title or email contains the query.",
			Effect:      twins.Read,
		}, searchUsers),
		twins.New(twins.Spec{
			Name:        "slack_search_emojis",
			Title:       "Search custom emoji",
			Description: "Finds the workspace's custom emoji whose name contains the query.",
			Effect:      twins.Read,
		}, searchEmojis),
	}
}

// SearchIn is search.messages' input.
type SearchIn struct {
	Query     string `json:"query" jsonschema:"Search query, e.g. deploy in:#eng from:@alice after:2026-01-01"`
	Count     int    `json:"count,omitempty" jsonschema:"Results per page (default 20, at most 100)"`
	Page      int    `json:"page,omitempty" jsonschema:"Page number, from 1"`
	Sort      string `json:"sort,omitempty" jsonschema:"score (default) or timestamp"`
	SortDir   string `json:"sort_dir,omitempty" jsonschema:"desc (default) or asc"`
	Highlight bool   `json:"highlight,omitempty" jsonschema:"Accepted; the twin does not add highlight markers"`
	TeamID    string `json:"team_id,omitempty" jsonschema:"Workspace id (accepted; the twin has one workspace)"`
}

// SearchChannel is the channel of a search match.
type SearchChannel struct {
	ID                 string   `json:"id"`
	Name               string   `json:"name"`
	IsChannel          bool     `json:"is_channel"`
	IsGroup            bool     `json:"is_group"`
	IsIM               bool     `json:"is_im"`
	IsMpIM             bool     `json:"is_mpim"`
	IsPrivate          bool     `json:"is_private"`
	IsShared           bool     `json:"is_shared"`
	IsOrgShared        bool     `json:"is_org_shared"`
	IsExtShared        bool     `json:"is_ext_shared"`
	IsPendingExtShared bool     `json:"is_pending_ext_shared"`
	PendingShared      []string `json:"pending_shared"`
}

// SearchMatch is one matching message.
type SearchMatch struct {
	IID         string          `json:"iid"`
	Team        string          `json:"team"`
	Type        string          `json:"type"`
	Channel     SearchChannel   `json:"channel"`
	User        string          `json:"user"`
	Username    string          `json:"username"`
	TS          string          `json:"ts"`
	Text        string          `json:"text"`
	Blocks      json.RawMessage `json:"blocks,omitempty"`
	Attachments json.RawMessage `json:"attachments,omitempty"`
	Permalink   string          `json:"permalink"`
}

// Paging is Slack's page-number pagination.
type Paging struct {
	Count int `json:"count"`
	Total int `json:"total"`
	Page  int `json:"page"`
	Pages int `json:"pages"`
}

// Pagination is Slack's detailed page-number pagination.
type Pagination struct {
	TotalCount int `json:"total_count"`
	Page       int `json:"page"`
	PerPage    int `json:"per_page"`
	PageCount  int `json:"page_count"`
	First      int `json:"first"`
	Last       int `json:"last"`
}

// SearchMessages is the messages block of search.messages.
type SearchMessages struct {
	Total      int           `json:"total"`
	Pagination Pagination    `json:"pagination"`
	Paging     Paging        `json:"paging"`
	Matches    []SearchMatch `json:"matches"`
}

// SearchOut is search.messages' response.
type SearchOut struct {
	OK       bool           `json:"ok"`
	Query    string         `json:"query"`
	Messages SearchMessages `json:"messages"`
}

func searchAll(ctx context.Context, w *World, in SearchIn) (SearchOut, error) {
	// search.messages needs a user token (search:read is a user scope):
	// over REST the sandbox's xoxp- user token searches and its xoxb- bot
	// token (or a Pome token) is refused, as Slack refuses a bot token.
	// Slack's MCP server acts as the signed-in user and searches.
	if twins.TransportFrom(ctx) == twins.TransportREST && twins.CredentialFrom(ctx) != twins.CredentialUser {
		return SearchOut{}, twins.Errorf(twins.Forbidden, "not_allowed_token_type",
			"search.messages takes a user token (xoxp-, POME_SLACK_USER_TOKEN); the xoxb- bot token cannot search. Search with the user token, or over MCP (slack_search_public_and_private).")
	}
	return w.search(in, false)
}

func searchPublic(ctx context.Context, w *World, in SearchIn) (SearchOut, error) {
	return w.search(in, true)
}

// query is a parsed search query.
type query struct {
	words, phrases, not []string
	in, from            []string
	has                 []string
	before, after, on   *time.Time
}

func parseQuery(s string) (query, error) {
	var q query
	for _, tok := range tokenize(s) {
		lower := strings.ToLower(tok)
		key, val, hasColon := strings.Cut(lower, ":")
		switch {
		case strings.HasPrefix(tok, "\"") && strings.HasSuffix(tok, "\"") && len(tok) >= 2:
			if p := strings.TrimSpace(strings.ToLower(tok[1 : len(tok)-1])); p != "" {
				q.phrases = append(q.phrases, p)
			}
		case hasColon && val != "" && (key == "in" || key == "from" || key == "has"):
			switch key {
			case "in":
				q.in = append(q.in, val)
			case "from":
				q.from = append(q.from, val)
			case "has":
				q.has = append(q.has, strings.Trim(val, ":"))
			}
		case hasColon && val != "" && (key == "before" || key == "after" || key == "on" || key == "during"):
			t, err := parseDay(val)
			if err != nil {
				return q, twins.Errorf(twins.Invalid, "invalid_search_query", "%s: expects a date like 2026-12-01, got %q", key, val).WithField("query")
			}
			switch key {
			case "before":
				q.before = &t
			case "after":
				q.after = &t
			default:
				q.on = &t
			}
		case strings.HasPrefix(tok, "-") && len(tok) > 1:
			q.not = append(q.not, lower[1:])
		default:
			q.words = append(q.words, lower)
		}
	}
	return q, nil
}

// tokenize splits on spaces, keeping "quoted phrases" whole.
func tokenize(s string) []string {
	var out []string
	var b strings.Builder
	quoted := false
	flush := func() {
		if b.Len() > 0 {
			out = append(out, b.String())
			b.Reset()
		}
	}
	for _, r := range s {
		switch {
		case r == '"':
			b.WriteRune(r)
			if quoted {
				flush()
			}
			quoted = !quoted
		case unicode.IsSpace(r) && !quoted:
			flush()
		default:
			b.WriteRune(r)
		}
	}
	flush()
	return out
}

func parseDay(s string) (time.Time, error) { return time.Parse("2006-01-02", s) }

// cleanRef normalises a search reference (#name, <#C…|name>, @user,
// <@U…>) to a lower-case id or name.
func cleanRef(v string) string {
	v = strings.TrimPrefix(strings.TrimSuffix(v, ">"), "<")
	v = strings.TrimLeft(v, "#@")
	if i := strings.IndexByte(v, '|'); i >= 0 {
		v = v[:i]
	}
	return strings.ToLower(v)
}

func (w *World) matches(q query, ch *Channel, m *Message) bool {
	text := strings.ToLower(searchText(m))
	for _, word := range q.words {
		if !strings.Contains(text, word) {
			return false
		}
	}
	for _, p := range q.phrases {
		if !strings.Contains(text, p) {
			return false
		}
	}
	for _, n := range q.not {
		if strings.Contains(text, n) {
			return false
		}
	}
	for _, ref := range q.in {
		r := cleanRef(ref)
		ok := strings.ToLower(ch.ID) == r || ch.Name == r
		if ch.Type == TypeIM {
			if u := w.userByID(ch.User); u != nil && (strings.ToLower(u.ID) == r || u.Name == r) {
				ok = true
			}
		}
		if !ok {
			return false
		}
	}
	for _, ref := range q.from {
		r := cleanRef(ref)
		u := w.userByID(m.User)
		if r == "me" {
			if m.User != w.AuthUser {
				return false
			}
			continue
		}
		if u == nil || (strings.ToLower(u.ID) != r && u.Name != r && strings.ToLower(u.Profile.DisplayName) != r) {
			return false
		}
	}
	for _, h := range q.has {
		switch h {
		case "link":
			if !strings.Contains(text, "http://") && !strings.Contains(text, "https://") {
				return false
			}
		case "pin":
			if len(m.PinnedTo) == 0 {
				return false
			}
		case "reaction":
			if len(m.Reactions) == 0 {
				return false
			}
		default:
			// has::emoji: — a specific reaction
			found := false
			for _, r := range m.Reactions {
				if r.Name == h {
					found = true
				}
			}
			if !found {
				return false
			}
		}
	}
	us, _ := parseTS(m.TS)
	at := time.UnixMicro(us).UTC()
	day := time.Date(at.Year(), at.Month(), at.Day(), 0, 0, 0, 0, time.UTC)
	if q.before != nil && !day.Before(*q.before) {
		return false
	}
	if q.after != nil && !day.After(*q.after) {
		return false
	}
	if q.on != nil && !day.Equal(*q.on) {
		return false
	}
	return true
}

func (w *World) search(in SearchIn, publicOnly bool) (SearchOut, error) {
	if strings.TrimSpace(in.Query) == "" {
		return SearchOut{}, twins.Errorf(twins.Invalid, "no_query", "Pass a search query.").WithField("query")
	}
	q, err := parseQuery(in.Query)
	if err != nil {
		return SearchOut{}, err
	}
	type hit struct {
		ch *Channel
		m  *Message
	}
	var hits []hit
	for _, ch := range w.Channels {
		if !ch.visibleTo(w.AuthUser) || (publicOnly && ch.Type != TypePublic) {
			continue
		}
		for _, m := range ch.Messages {
			if systemSubtypes[m.Subtype] || m.Subtype == "tombstone" {
				continue
			}
			if w.matches(q, ch, m) {
				hits = append(hits, hit{ch, m})
			}
		}
	}
	asc := strings.EqualFold(in.SortDir, "asc")
	sort.SliceStable(hits, func(i, j int) bool {
		a, _ := parseTS(hits[i].m.TS)
		b, _ := parseTS(hits[j].m.TS)
		if asc {
			return a < b
		}
		return a > b
	})
	count := pageLimit(in.Count, 20, 100)
	page := in.Page
	if page <= 0 {
		page = 1
	}
	pages := (len(hits) + count - 1) / count
	if pages == 0 {
		pages = 1
	}
	start := (page - 1) * count
	end := start + count
	if start > len(hits) {
		start = len(hits)
	}
	if end > len(hits) {
		end = len(hits)
	}
	out := SearchOut{OK: true, Query: in.Query, Messages: SearchMessages{
		Total:      len(hits),
		Paging:     Paging{Count: count, Total: len(hits), Page: page, Pages: pages},
		Pagination: Pagination{TotalCount: len(hits), Page: page, PerPage: count, PageCount: pages, First: start + 1, Last: end},
		Matches:    []SearchMatch{},
	}}
	for _, h := range hits[start:end] {
		c := w.conversation(h.ch)
		username := ""
		if u := w.userByID(h.m.User); u != nil {
			username = u.Name
		}
		if h.m.Username != "" {
			username = h.m.Username
		}
		name := h.ch.Name
		out.Messages.Matches = append(out.Messages.Matches, SearchMatch{
			IID: h.ch.ID + "-" + h.m.TS, Team: w.Team.ID, Type: "message",
			Channel: SearchChannel{ID: h.ch.ID, Name: name, IsChannel: c.IsChannel, IsGroup: c.IsGroup, IsIM: c.IsIM, IsMpIM: c.IsMpIM, IsPrivate: c.IsPrivate, PendingShared: []string{}},
			User:    h.m.User, Username: username, TS: h.m.TS, Text: h.m.Text, Blocks: h.m.Blocks, Attachments: h.m.Attachments,
			Permalink: w.permalink(h.ch, h.m.TS, h.m.ThreadTS),
		})
	}
	return out, nil
}

// SearchNamesIn is the input of the channel, user and emoji searches.
type SearchNamesIn struct {
	Query           string `json:"query" jsonschema:"Text to look for (case-insensitive)"`
	Limit           int    `json:"limit,omitempty" jsonschema:"Results per page (default 20, at most 100)"`
	Cursor          string `json:"cursor,omitempty" jsonschema:"response_metadata.next_cursor of the previous page"`
	IncludeArchived bool   `json:"include_archived,omitempty" jsonschema:"Channels: include archived ones"`
}

func searchChannels(ctx context.Context, w *World, in SearchNamesIn) (ListChannelsOut, error) {
	needle := strings.ToLower(strings.TrimPrefix(strings.TrimSpace(in.Query), "#"))
	var list []*Channel
	for _, ch := range w.Channels {
		if ch.Type == TypeIM || ch.Type == TypeMPIM || !ch.visibleTo(w.AuthUser) || (ch.IsArchived && !in.IncludeArchived) {
			continue
		}
		hay := strings.ToLower(ch.Name + "\n" + ch.Topic.Value + "\n" + ch.Purpose.Value)
		if strings.Contains(hay, needle) {
			list = append(list, ch)
		}
	}
	return w.channelPage(list, in.Cursor, pageLimit(in.Limit, 20, 100))
}

func searchUsers(ctx context.Context, w *World, in SearchNamesIn) (ListUsersOut, error) {
	needle := strings.ToLower(strings.TrimPrefix(strings.TrimSpace(in.Query), "@"))
	var list []*User
	for _, u := range w.Users {
		if u.Deleted {
			continue
		}
		hay := strings.ToLower(strings.Join([]string{u.Name, u.RealName, u.Profile.DisplayName, u.Profile.Title, u.Profile.Email}, "\n"))
		if strings.Contains(hay, needle) {
			list = append(list, u)
		}
	}
	page, next, err := paginate(list, func(u *User) string { return u.ID }, "user", in.Cursor, pageLimit(in.Limit, 20, 100))
	if err != nil {
		return ListUsersOut{}, err
	}
	out := ListUsersOut{OK: true, Members: []User{}, CacheTS: now(ctx), ResponseMetadata: ResponseMetadata{NextCursor: next}}
	for _, u := range page {
		out.Members = append(out.Members, *u)
	}
	return out, nil
}

func searchEmojis(ctx context.Context, w *World, in SearchNamesIn) (EmojiOut, error) {
	needle := strings.ToLower(strings.Trim(strings.TrimSpace(in.Query), ":"))
	out := EmojiOut{OK: true, Emoji: map[string]string{}, CacheTS: formatTS(twins.EnvFrom(ctx).Now().UnixMicro())}
	for k, v := range w.Emoji {
		if strings.Contains(k, needle) {
			out.Emoji[k] = v
		}
	}
	return out, nil
}
