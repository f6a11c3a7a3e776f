package slack

import (
	"cmp"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/pomehq/pome/internal/strchunk"
	"github.com/pomehq/pome/twins"
)

// World is the whole state of one Slack workspace in one sandbox. It is also
// the state document (GET …/_pome/state), so field names follow Slack's own
// spelling wherever Slack has one.
type World struct {
	Team Team `json:"team"`
	// AuthUser is the id of the user the sandbox's xoxb- token acts as.
	AuthUser string     `json:"auth_user"`
	Users    []*User    `json:"users"`
	Bots     []*Bot     `json:"bots"`
	Channels []*Channel `json:"channels"`
	// Emoji maps custom emoji names to their image URL or "alias:name".
	Emoji     map[string]string   `json:"emoji"`
	Files     []*File             `json:"files"`
	Scheduled []*ScheduledMessage `json:"scheduled_messages"`
	// Ephemeral holds chat.postEphemeral messages: never in history, but
	// what the agent showed someone.
	Ephemeral []*EphemeralMessage `json:"ephemeral_messages"`
	// Canvases are the workspace's canvases (canvas.go); a seed holds none.
	Canvases []*Canvas `json:"canvases,omitempty"`
	// Drafts are unsent messages the token's user left in a conversation
	// (slack_send_message_draft); a seed holds none.
	Drafts []*Draft `json:"drafts,omitempty"`
	// Counters hold the next number per id prefix, so ids are
	// deterministic per sandbox and survive the JSON round trip.
	Counters map[string]int `json:"counters"`
	// LastTS is the last message timestamp issued, in microseconds; new
	// timestamps are strictly greater, so ts values are unique and
	// increasing even when the sandbox clock stands still.
	LastTS int64 `json:"last_ts"`

	// reserved holds the ids a seed spells out while the world is built.
	reserved map[string]bool
	// profiles are the bot profiles the messages posted since the world
	// was decoded share, by bot id (signAsBotShared); write paths only.
	profiles map[string]*BotProfile
}

// Team is the workspace.
type Team struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Domain      string `json:"domain"`
	EmailDomain string `json:"email_domain"`
}

// URL is the workspace's web address, as auth.test reports it.
func (t Team) URL() string { return "https://" + t.Domain + ".slack.com/" }

// User is a workspace member in the shape users.info returns.
type User struct {
	ID                string      `json:"id"`
	TeamID            string      `json:"team_id"`
	Name              string      `json:"name"`
	Deleted           bool        `json:"deleted"`
	Color             string      `json:"color"`
	RealName          string      `json:"real_name"`
	TZ                string      `json:"tz"`
	TZLabel           string      `json:"tz_label"`
	TZOffset          int         `json:"tz_offset"`
	Profile           UserProfile `json:"profile"`
	IsAdmin           bool        `json:"is_admin"`
	IsOwner           bool        `json:"is_owner"`
	IsPrimaryOwner    bool        `json:"is_primary_owner"`
	IsRestricted      bool        `json:"is_restricted"`
	IsUltraRestricted bool        `json:"is_ultra_restricted"`
	IsBot             bool        `json:"is_bot"`
	IsAppUser         bool        `json:"is_app_user"`
	IsEmailConfirmed  bool        `json:"is_email_confirmed"`
	Has2FA            bool        `json:"has_2fa"`
	Updated           int64       `json:"updated"`
}

// UserProfile is a user's profile as users.profile.get returns it.
type UserProfile struct {
	Title                 string `json:"title"`
	Phone                 string `json:"phone"`
	RealName              string `json:"real_name"`
	RealNameNormalized    string `json:"real_name_normalized"`
	DisplayName           string `json:"display_name"`
	DisplayNameNormalized string `json:"display_name_normalized"`
	FirstName             string `json:"first_name"`
	LastName              string `json:"last_name"`
	StatusText            string `json:"status_text"`
	StatusEmoji           string `json:"status_emoji"`
	StatusExpiration      int64  `json:"status_expiration"`
	AvatarHash            string `json:"avatar_hash"`
	Email                 string `json:"email,omitempty"`
	Image24               string `json:"image_24"`
	Image32               string `json:"image_32"`
	Image48               string `json:"image_48"`
	Image72               string `json:"image_72"`
	Image192              string `json:"image_192"`
	Image512              string `json:"image_512"`
	BotID                 string `json:"bot_id,omitempty"`
	APIAppID              string `json:"api_app_id,omitempty"`
	AlwaysActive          bool   `json:"always_active,omitempty"`
	Team                  string `json:"team"`
}

// Bot is an app's bot identity (B… ids), the author of bot messages.
type Bot struct {
	ID      string `json:"id"`
	Name    string `json:"name"`
	UserID  string `json:"user_id"`
	AppID   string `json:"app_id"`
	Deleted bool   `json:"deleted"`
	Updated int64  `json:"updated"`
}

// Conversation types, in Slack's own vocabulary (conversations.list types=).
const (
	TypePublic  = "public_channel"
	TypePrivate = "private_channel"
	TypeIM      = "im"
	TypeMPIM    = "mpim"
)

// Channel is any conversation: public or private channel, DM or group DM.
type Channel struct {
	ID            string   `json:"id"`
	Name          string   `json:"name"`
	Type          string   `json:"type"`
	Created       int64    `json:"created"`
	Creator       string   `json:"creator"`
	IsArchived    bool     `json:"is_archived"`
	IsGeneral     bool     `json:"is_general"`
	Members       []string `json:"members"`
	Topic         Topic    `json:"topic"`
	Purpose       Topic    `json:"purpose"`
	PreviousNames []string `json:"previous_names"`
	// User is the other member of a DM.
	User string `json:"user,omitempty"`
	// Messages hold the channel's messages and thread replies, oldest
	// first (ascending ts).
	Messages  []*Message  `json:"messages"`
	Bookmarks []*Bookmark `json:"bookmarks"`
	Pins      []*Pin      `json:"pins"`

	// ordered is true when Messages are known to be in the order
	// sortMessages leaves them (ascending ts, equal ts in insertion order),
	// so a lookup by ts can binary search, the newest ts is the last one and
	// an insert finds its place without re-sorting. It is not part of the
	// state document: the twin's decoder and the seed set it, and insert
	// sets it (in write paths only: reads run concurrently on one world).
	// Reads only look at it; false means "scan", which is always correct.
	ordered bool
	// repliesFollow is true when every reply in Messages has a later ts
	// than its parent, so that in an ordered channel a thread's replies all
	// lie after its parent. It is set where ordered is, and insert clears
	// it for a reply that breaks it (the sandbox clock was set back).
	repliesFollow bool
	// text keeps the text and ts of the messages posted since the world
	// was decoded, many to a chunk, so that a collection marks a few
	// chunks rather than two strings per message (strchunk); write paths
	// only. A message's ts is never given up (it names the message for
	// good; a deleted message's few bytes stay until the next compaction).
	text strchunk.Store
}

// setText gives m, a message of c, a new text. Write paths only.
func (c *Channel) setText(m *Message, text string) {
	m.Text = c.text.Replace(m.Text, text)
	c.rekeepText()
}

// rekeepText keeps c's message texts and ts in new chunks once the texts
// it gave up are more than half of what its chunks hold (strchunk). A
// reply's thread_ts and a parent's latest_reply, the ts of other messages
// of c, are kept again with them, so that they hold no chunk of before.
// Write paths only.
func (c *Channel) rekeepText() {
	c.text.Compact(func() {
		for _, m := range c.Messages {
			m.Text = c.text.Keep(m.Text)
			m.TS = c.text.Keep(m.TS)
			m.ThreadTS = c.text.Keep(m.ThreadTS)
			m.LatestReply = c.text.Keep(m.LatestReply)
		}
	})
}

// Topic is a channel topic or purpose.
type Topic struct {
	Value   string `json:"value"`
	Creator string `json:"creator"`
	LastSet int64  `json:"last_set"`
}

// Message is one message or thread reply. The thread fields of a parent
// (reply_count, reply_users, latest_reply) are kept current on every change,
// so the state document reads like Slack's own responses.
type Message struct {
	Type        string          `json:"type"`
	Subtype     string          `json:"subtype,omitempty"`
	TS          string          `json:"ts"`
	User        string          `json:"user,omitempty"`
	BotID       string          `json:"bot_id,omitempty"`
	AppID       string          `json:"app_id,omitempty"`
	BotProfile  *BotProfile     `json:"bot_profile,omitempty"`
	Username    string          `json:"username,omitempty"`
	Icons       *Icons          `json:"icons,omitempty"`
	Text        string          `json:"text"`
	Team        string          `json:"team,omitempty"`
	Blocks      json.RawMessage `json:"blocks,omitempty"`
	Attachments json.RawMessage `json:"attachments,omitempty"`
	Edited      *Edited         `json:"edited,omitempty"`

	ThreadTS        string   `json:"thread_ts,omitempty"`
	ParentUserID    string   `json:"parent_user_id,omitempty"`
	ReplyCount      int      `json:"reply_count,omitempty"`
	ReplyUsersCount int      `json:"reply_users_count,omitempty"`
	ReplyUsers      []string `json:"reply_users,omitempty"`
	LatestReply     string   `json:"latest_reply,omitempty"`

	Reactions []*Reaction `json:"reactions,omitempty"`
	PinnedTo  []string    `json:"pinned_to,omitempty"`
	// FileIDs are the files shared in the message; views expand them into
	// Files.
	FileIDs []string `json:"file_ids,omitempty"`
	Files   []*File  `json:"files,omitempty"`
	// Permalink is filled in by the methods whose responses carry it.
	Permalink string `json:"permalink,omitempty"`
}

// Icons override a message's avatar (chat.postMessage icon_emoji/icon_url).
type Icons struct {
	Emoji string `json:"emoji,omitempty"`
	Image string `json:"image_48,omitempty"`
}

// Edited marks a message changed by chat.update.
type Edited struct {
	User string `json:"user"`
	TS   string `json:"ts"`
}

// Reaction is one emoji on a message with the users who added it.
type Reaction struct {
	Name  string   `json:"name"`
	Users []string `json:"users"`
	Count int      `json:"count"`
}

// isReply reports whether m is a thread reply rather than a channel message.
func (m *Message) isReply() bool { return m.ThreadTS != "" && m.ThreadTS != m.TS }

// inHistory reports whether conversations.history lists m: channel messages
// and replies broadcast to the channel.
func (m *Message) inHistory() bool { return !m.isReply() || m.Subtype == "thread_broadcast" }

// Bookmark is a channel bookmark (bookmarks.add).
type Bookmark struct {
	ID          string `json:"id"`
	ChannelID   string `json:"channel_id"`
	Title       string `json:"title"`
	Link        string `json:"link"`
	Emoji       string `json:"emoji"`
	IconURL     string `json:"icon_url"`
	Type        string `json:"type"`
	DateCreated int64  `json:"date_created"`
	DateUpdated int64  `json:"date_updated"`
	Rank        string `json:"rank"`
	LastUpdated string `json:"last_updated_by_user_id"`
	AppID       string `json:"app_id"`
	EntityID    string `json:"entity_id"`
	CreatedBy   string `json:"created_by"`
}

// File is an uploaded file; its content is kept so checks and files.info
// can read it.
type File struct {
	ID         string   `json:"id"`
	Created    int64    `json:"created"`
	Timestamp  int64    `json:"timestamp"`
	Name       string   `json:"name"`
	Title      string   `json:"title"`
	Mimetype   string   `json:"mimetype"`
	Filetype   string   `json:"filetype"`
	PrettyType string   `json:"pretty_type"`
	User       string   `json:"user"`
	Size       int      `json:"size"`
	Mode       string   `json:"mode"`
	IsExternal bool     `json:"is_external"`
	IsPublic   bool     `json:"is_public"`
	URLPrivate string   `json:"url_private"`
	Permalink  string   `json:"permalink"`
	Channels   []string `json:"channels"`
	Groups     []string `json:"groups"`
	IMs        []string `json:"ims"`
	Content    string   `json:"content,omitempty"`
	// UploadState is "pending" or "uploaded" while an external upload is
	// in progress, empty once the file exists.
	UploadState string `json:"upload_state,omitempty"`
}

// ScheduledMessage is a message waiting for its post_at time.
type ScheduledMessage struct {
	ID          string `json:"id"`
	ChannelID   string `json:"channel_id"`
	PostAt      int64  `json:"post_at"`
	DateCreated int64  `json:"date_created"`
	Text        string `json:"text"`
	User        string `json:"user"`
	// TS is the ts the message will carry once delivered: post_at with a
	// suffix unique among scheduled messages.
	TS             string          `json:"ts,omitempty"`
	ThreadTS       string          `json:"thread_ts,omitempty"`
	ReplyBroadcast bool            `json:"reply_broadcast,omitempty"`
	Blocks         json.RawMessage `json:"blocks,omitempty"`
	Attachments    json.RawMessage `json:"attachments,omitempty"`
}

// newID returns the next deterministic id with Slack's prefix for its kind
// (T team, U user, B bot, C channel, G private channel, D DM, F file, …).
func (w *World) newID(prefix string) string {
	if w.Counters == nil {
		w.Counters = map[string]int{}
	}
	for {
		w.Counters[prefix]++
		id := fmt.Sprintf("%s%08X", prefix, w.Counters[prefix])
		if !w.idTaken(id) {
			return id
		}
	}
}

// idTaken reports whether a seed already used id, so generated ids never
// collide with ids a seed spelled out.
func (w *World) idTaken(id string) bool {
	if w.Team.ID == id || w.reserved[id] {
		return true
	}
	for _, u := range w.Users {
		if u.ID == id {
			return true
		}
	}
	for _, b := range w.Bots {
		if b.ID == id {
			return true
		}
	}
	for _, c := range w.Channels {
		if c.ID == id {
			return true
		}
	}
	for _, f := range w.Files {
		if f.ID == id {
			return true
		}
	}
	return false
}

// formatTS renders microseconds since the epoch as a Slack ts.
func formatTS(us int64) string { return fmt.Sprintf("%d.%06d", us/1e6, us%1e6) }

// parseTS reads a Slack ts ("1512085950.000216", or whole seconds) as
// microseconds since the epoch.
func parseTS(s string) (int64, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, false
	}
	sec, frac, _ := strings.Cut(s, ".")
	n, err := strconv.ParseInt(sec, 10, 64)
	if err != nil || n < 0 {
		return 0, false
	}
	us := n * 1e6
	if frac != "" {
		if len(frac) > 6 {
			frac = frac[:6]
		}
		for len(frac) < 6 {
			frac += "0"
		}
		f, err := strconv.ParseInt(frac, 10, 64)
		if err != nil || f < 0 {
			return 0, false
		}
		us += f
	}
	return us, true
}

// nextTS issues a message timestamp from the sandbox clock, strictly after
// every ts issued before and every message already in ch.
func (w *World) nextTS(ctx context.Context, ch *Channel) string {
	now := twins.EnvFrom(ctx).Now().UnixMicro()
	floor := w.LastTS
	if ch != nil {
		if us, ok := ch.latestTS(); ok && us > floor {
			floor = us
		}
	}
	if now <= floor {
		now = floor + 1
	}
	w.LastTS = now
	return formatTS(now)
}

// now returns the sandbox clock in Unix seconds.
func now(ctx context.Context) int64 { return twins.EnvFrom(ctx).Now().Unix() }

// user finds a user by id, by name (with or without "@"), or by email.
func (w *World) user(ref string) *User {
	ref = strings.TrimPrefix(strings.TrimSpace(ref), "@")
	for _, u := range w.Users {
		if u.ID == ref {
			return u
		}
	}
	for _, u := range w.Users {
		if strings.EqualFold(u.Name, ref) {
			return u
		}
	}
	return nil
}

// userByID finds a user by id only.
func (w *World) userByID(id string) *User {
	for _, u := range w.Users {
		if u.ID == id {
			return u
		}
	}
	return nil
}

// me is the token's user.
func (w *World) me() *User { return w.userByID(w.AuthUser) }

// channelByID finds a conversation by id.
func (w *World) channelByID(id string) *Channel {
	for _, c := range w.Channels {
		if c.ID == id {
			return c
		}
	}
	return nil
}

// channelRef finds a conversation by id or by name, with or without '#'
// (Slack accepts names where a channel argument is documented as such).
func (w *World) channelRef(ref string) *Channel {
	ref = strings.TrimSpace(ref)
	if c := w.channelByID(ref); c != nil {
		return c
	}
	name := strings.ToLower(strings.TrimPrefix(ref, "#"))
	if name == "" {
		return nil
	}
	for _, c := range w.Channels {
		if c.Name == name && (c.Type == TypePublic || c.Type == TypePrivate) {
			return c
		}
	}
	return nil
}

// isMember reports whether user is a member of ch.
func (c *Channel) isMember(user string) bool {
	for _, m := range c.Members {
		if m == user {
			return true
		}
	}
	return false
}

// visibleTo reports whether user can see ch at all: public channels are
// visible to everyone, the rest only to members.
func (c *Channel) visibleTo(user string) bool {
	return c.Type == TypePublic || c.isMember(user)
}

// tsKey is the ts a message is ordered by, in microseconds; a ts that does
// not parse orders as 0.
func tsKey(ts string) int64 {
	us, _ := parseTS(ts)
	return us
}

// latestTS returns the greatest ts of ch's messages that parses, and false
// when none does.
func (c *Channel) latestTS() (int64, bool) {
	if n := len(c.Messages); c.ordered && n > 0 {
		// The last message has the greatest key; when it parses, no
		// message that parses is later.
		if us, ok := parseTS(c.Messages[n-1].TS); ok {
			return us, true
		}
	}
	var max int64
	found := false
	for _, m := range c.Messages {
		if us, ok := parseTS(m.TS); ok && (!found || us > max) {
			max, found = us, true
		}
	}
	return max, found
}

// message finds a message or reply of ch by ts: the first one in Messages
// with exactly that ts.
func (c *Channel) message(ts string) *Message {
	if c.ordered {
		// Messages with the same ts have the same key, so they all lie in
		// the run of that key, in their order in Messages.
		k := tsKey(ts)
		ms := c.Messages
		i := sort.Search(len(ms), func(i int) bool { return tsKey(ms[i].TS) >= k })
		for ; i < len(ms) && tsKey(ms[i].TS) == k; i++ {
			if ms[i].TS == ts {
				return ms[i]
			}
		}
		return nil
	}
	for _, m := range c.Messages {
		if m.TS == ts {
			return m
		}
	}
	return nil
}

// insert adds m keeping messages ordered by ts, after every message with
// the same ts: exactly where appending and stable-sorting puts it. It runs
// in write paths only (it may set ordered).
func (c *Channel) insert(m *Message) {
	if !c.ordered {
		c.repliesFollow = repliesFollowParents(c.Messages)
	}
	if m.isReply() && tsKey(m.TS) <= tsKey(m.ThreadTS) {
		c.repliesFollow = false
	}
	if !c.ordered {
		if !messagesOrdered(c.Messages) {
			c.Messages = append(c.Messages, m)
			sortMessages(c.Messages)
			c.ordered = true
			return
		}
		c.ordered = true
	}
	k := tsKey(m.TS)
	ms := c.Messages
	n := len(ms)
	if n == 0 || tsKey(ms[n-1].TS) <= k {
		// A new message is later than every other: the usual case.
		c.Messages = append(ms, m)
		return
	}
	i := sort.Search(n, func(i int) bool { return tsKey(ms[i].TS) > k })
	ms = append(ms, nil)
	copy(ms[i+1:], ms[i:n])
	ms[i] = m
	c.Messages = ms
}

// messagesOrdered reports whether ms are in ts order.
func messagesOrdered(ms []*Message) bool {
	var prev int64
	for i, m := range ms {
		k := tsKey(m.TS)
		if i > 0 && k < prev {
			return false
		}
		prev = k
	}
	return true
}

// sortMessages orders ms by ts, keeping messages with the same ts in their
// order. Each ts is parsed once.
func sortMessages(ms []*Message) {
	type keyed struct {
		key int64
		m   *Message
	}
	ks := make([]keyed, len(ms))
	for i, m := range ms {
		ks[i] = keyed{tsKey(m.TS), m}
	}
	slices.SortStableFunc(ks, func(a, b keyed) int { return cmp.Compare(a.key, b.key) })
	for i, k := range ks {
		ms[i] = k.m
	}
}

// indexMessages records which channels' messages are in ts order. The
// twin's decoder calls it on every world it decodes, before any action
// sees the world.
func (w *World) indexMessages() {
	for _, c := range w.Channels {
		c.ordered = messagesOrdered(c.Messages)
		c.repliesFollow = repliesFollowParents(c.Messages)
	}
}

// repliesFollowParents reports whether every reply in ms is later than
// its parent.
func repliesFollowParents(ms []*Message) bool {
	for _, m := range ms {
		if m.isReply() && tsKey(m.TS) <= tsKey(m.ThreadTS) {
			return false
		}
	}
	return true
}

// replies returns the replies of the thread rooted at parent, oldest first.
// In an ordered channel whose replies follow their parents it looks only
// past the parent, so a reply to a recent message costs little however
// long the channel is.
func (c *Channel) replies(parent string) []*Message {
	ms := c.Messages
	if c.ordered && c.repliesFollow && parent != "" {
		k := tsKey(parent)
		ms = ms[sort.Search(len(ms), func(i int) bool { return tsKey(ms[i].TS) > k }):]
	}
	var out []*Message
	for _, m := range ms {
		if m.ThreadTS == parent && m.TS != parent {
			out = append(out, m)
		}
	}
	return out
}

// refreshThread recomputes a thread parent's reply fields from its replies,
// as Slack shows them on the parent, and points the replies at it.
func (c *Channel) refreshThread(parentTS string) {
	p := c.refreshParent(parentTS)
	if p == nil {
		return
	}
	for _, r := range c.replies(parentTS) {
		r.ParentUserID = p.User
	}
}

// refreshParent recomputes the parent's reply fields and touches nothing
// else, so it is safe on a copied parent whose replies are shared.
func (c *Channel) refreshParent(parentTS string) *Message {
	p := c.message(parentTS)
	if p == nil {
		return nil
	}
	setThread(p, c.replies(parentTS))
	return p
}

// setThread sets a thread parent's reply fields from its replies rs,
// oldest first.
func setThread(p *Message, rs []*Message) {
	p.ReplyCount, p.ReplyUsersCount, p.ReplyUsers, p.LatestReply = 0, 0, nil, ""
	if len(rs) == 0 {
		p.ThreadTS = ""
		return
	}
	p.ThreadTS = p.TS
	p.ReplyCount = len(rs)
	seen := map[string]bool{}
	for _, r := range rs {
		who := r.User
		if who == "" {
			who = r.BotID
		}
		if who != "" && !seen[who] {
			seen[who] = true
			p.ReplyUsers = append(p.ReplyUsers, who)
		}
	}
	p.ReplyUsersCount = len(p.ReplyUsers)
	p.LatestReply = rs[len(rs)-1].TS
}

// file finds a file by id.
func (w *World) file(id string) *File {
	for _, f := range w.Files {
		if f.ID == id {
			return f
		}
	}
	return nil
}

// view returns a copy of m as the API shows it: files expanded.
func (w *World) view(m *Message) Message {
	v := *m
	v.FileIDs = nil
	v.Files = nil
	for _, id := range m.FileIDs {
		if f := w.file(id); f != nil {
			fc := *f
			v.Files = append(v.Files, &fc)
		}
	}
	return v
}

// views returns API copies of ms.
func (w *World) views(ms []*Message) []Message {
	out := make([]Message, 0, len(ms))
	for _, m := range ms {
		out = append(out, w.view(m))
	}
	return out
}

// permalink is the web link of a message.
func (w *World) permalink(ch *Channel, ts string, threadTS string) string {
	link := fmt.Sprintf("%sarchives/%s/p%s", w.Team.URL(), ch.ID, strings.ReplaceAll(ts, ".", ""))
	if threadTS != "" && threadTS != ts {
		link += fmt.Sprintf("?thread_ts=%s&cid=%s", threadTS, ch.ID)
	}
	return link
}

// encodeCursor and decodeCursor make Slack-looking opaque cursors
// ("dXNlcjpVMDYxTkZUVDI=" is base64 of "user:U061NFTT2").
func encodeCursor(kind, key string) string {
	return base64.StdEncoding.EncodeToString([]byte(kind + ":" + key))
}

func decodeCursor(kind, cursor string) (string, error) {
	if cursor == "" {
		return "", nil
	}
	raw, err := base64.StdEncoding.DecodeString(cursor)
	if err != nil {
		return "", errInvalidCursor()
	}
	k, key, ok := strings.Cut(string(raw), ":")
	if !ok || k != kind || key == "" {
		return "", errInvalidCursor()
	}
	return key, nil
}

func errInvalidCursor() *twins.Error {
	return twins.Errorf(twins.Invalid, "invalid_cursor", "The cursor is not valid for this method; pass the response_metadata.next_cursor of the previous page.")
}

// pageLimit applies Slack's default and maximum page size.
func pageLimit(limit, def, max int) int {
	if limit <= 0 {
		return def
	}
	if limit > max {
		return max
	}
	return limit
}

// paginate slices items after the cursor's key, returning the page and the
// next cursor ("" on the last page).
func paginate[T any](items []T, key func(T) string, kind, cursor string, limit int) ([]T, string, error) {
	after, err := decodeCursor(kind, cursor)
	if err != nil {
		return nil, "", err
	}
	start := 0
	if after != "" {
		start = -1
		for i, it := range items {
			if key(it) == after {
				start = i
				break
			}
		}
		if start < 0 {
			return nil, "", errInvalidCursor()
		}
	}
	end := start + limit
	if end >= len(items) {
		return items[start:], "", nil
	}
	return items[start:end], encodeCursor(kind, key(items[end])), nil
}

// ResponseMetadata carries Slack's cursor pagination.
type ResponseMetadata struct {
	NextCursor string `json:"next_cursor"`
}
