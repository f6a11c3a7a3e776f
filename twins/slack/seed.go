package slack

import (
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/pomehq/pome/twins"
)

// Seed is the Slack seed document (see the package documentation for the
// format and an example). Every field is optional; unknown keys are errors.
type Seed struct {
	// Meta is the original Pome's compiler stamp (seed_original.go).
	Meta *SeedMeta `json:"_meta,omitempty"`
	Team *SeedTeam `json:"team,omitempty"`
	// AuthUser names the user the sandbox token acts as (default
	// "pome-agent", added as an admin when the seed does not list it).
	AuthUser string        `json:"auth_user,omitempty"`
	Users    []SeedUser    `json:"users,omitempty"`
	Bots     []SeedBot     `json:"bots,omitempty"`
	Channels []SeedChannel `json:"channels,omitempty"`
	Emoji    SeedEmoji     `json:"emoji"`
	Files    []SeedFile    `json:"files,omitempty"`
}

// SeedTeam is the workspace.
type SeedTeam struct {
	ID          string `json:"id,omitempty"`
	Name        string `json:"name,omitempty"`
	Domain      string `json:"domain,omitempty"`
	EmailDomain string `json:"email_domain,omitempty"`
}

// SeedUser is a workspace member.
type SeedUser struct {
	ID          string `json:"id,omitempty"`
	Name        string `json:"name"`
	RealName    string `json:"real_name,omitempty"`
	DisplayName string `json:"display_name,omitempty"`
	Email       string `json:"email,omitempty"`
	Title       string `json:"title,omitempty"`
	Phone       string `json:"phone,omitempty"`
	TZ          string `json:"tz,omitempty"`
	StatusText  string `json:"status_text,omitempty"`
	StatusEmoji string `json:"status_emoji,omitempty"`
	IsAdmin     bool   `json:"is_admin,omitempty"`
	IsOwner     bool   `json:"is_owner,omitempty"`
	IsBot       bool   `json:"is_bot,omitempty"`
	Deleted     bool   `json:"deleted,omitempty"`
	// Profile is the original's profile object (SeedProfile).
	Profile *SeedProfile `json:"profile,omitempty"`
}

// SeedBot is an app bot that can author messages.
type SeedBot struct {
	ID   string `json:"id,omitempty"`
	Name string `json:"name"`
	// User names the bot's user (a seeded user with is_bot), if any.
	User string `json:"user,omitempty"`
}

// SeedChannel is a conversation.
type SeedChannel struct {
	ID string `json:"id,omitempty"`
	// Name is required for channels; DMs (type "im") have none.
	Name string `json:"name,omitempty"`
	// Type is public_channel (default), private_channel, im or mpim.
	Type string `json:"type,omitempty"`
	// IsPrivate is the original's way to say private_channel.
	IsPrivate *bool `json:"is_private,omitempty"`
	// Members default to every user who is not deleted; a DM lists exactly
	// two.
	Members    []string       `json:"members,omitempty"`
	Creator    string         `json:"creator,omitempty"`
	Topic      string         `json:"topic,omitempty"`
	Purpose    string         `json:"purpose,omitempty"`
	IsArchived bool           `json:"is_archived,omitempty"`
	IsGeneral  bool           `json:"is_general,omitempty"`
	Messages   []SeedMessage  `json:"messages,omitempty"`
	Bookmarks  []SeedBookmark `json:"bookmarks,omitempty"`
}

// SeedMessage is a message; Replies makes it a thread parent.
type SeedMessage struct {
	// TS defaults to a time before the sandbox starts, in document order.
	// A ts that is not a Slack timestamp ("evan-report") labels the
	// message for thread_ts, which then gets a timestamp of its own.
	TS string `json:"ts,omitempty"`
	// ThreadTS makes the message a reply to an earlier message of its
	// channel, named by ts or label: the original's flat threads.
	ThreadTS string `json:"thread_ts,omitempty"`
	User     string `json:"user,omitempty"`
	// Bot names a seeded bot as the author instead of a user.
	Bot         string          `json:"bot,omitempty"`
	Username    string          `json:"username,omitempty"`
	Text        string          `json:"text"`
	Blocks      json.RawMessage `json:"blocks,omitempty"`
	Attachments json.RawMessage `json:"attachments,omitempty"`
	Replies     []SeedMessage   `json:"replies,omitempty"`
	// ReplyBroadcast (on a reply) also shows the reply in the channel.
	ReplyBroadcast bool           `json:"reply_broadcast,omitempty"`
	Reactions      []SeedReaction `json:"reactions,omitempty"`
	Pinned         bool           `json:"pinned,omitempty"`
	Files          []string       `json:"files,omitempty"`
}

// SeedReaction is an emoji and who added it.
type SeedReaction struct {
	Name  string   `json:"name"`
	Users []string `json:"users,omitempty"`
	// User is the original's one user per reaction.
	User string `json:"user,omitempty"`
}

// SeedBookmark is a channel bookmark.
type SeedBookmark struct {
	Title string `json:"title"`
	Link  string `json:"link"`
	Emoji string `json:"emoji,omitempty"`
}

// SeedFile is an uploaded file with its content.
type SeedFile struct {
	ID       string   `json:"id,omitempty"`
	Name     string   `json:"name"`
	Title    string   `json:"title,omitempty"`
	Filetype string   `json:"filetype,omitempty"`
	Content  string   `json:"content,omitempty"`
	User     string   `json:"user,omitempty"`
	Channels []string `json:"channels,omitempty"`
}

// DefaultSeed is the default world of SPEC §9: team Acme; pome-agent (the
// token's user, admin), alice and bob; #general with alice's morning
// greeting; #random empty.
func DefaultSeed() Seed {
	return Seed{
		Team:     &SeedTeam{Name: "Acme", Domain: "acme", EmailDomain: "acme.test"},
		AuthUser: "pome-agent",
		Users: []SeedUser{
			{Name: "pome-agent", RealName: "Pome Agent", Email: "pome-agent@acme.test", Title: "Automation", IsAdmin: true},
			{Name: "alice", RealName: "Alice Park", Email: "alice@acme.test", Title: "Engineering Manager"},
			{Name: "bob", RealName: "Bob Rivera", Email: "bob@acme.test", Title: "Backend Engineer"},
		},
		Channels: []SeedChannel{
			{
				Name: "general", IsGeneral: true, Creator: "alice",
				Topic:    "Company-wide announcements and work-based matters",
				Purpose:  "This is the one channel that will always include everyone.",
				Messages: []SeedMessage{{User: "alice", Text: "Good morning, team! :sunny: Hope everyone has a great day."}},
			},
			{
				Name: "random", Creator: "alice",
				Purpose: "A place for non-work banter, links, articles of interest, humor or anything else.",
			},
		},
	}
}

// seedHistory is how far before the sandbox start seeded messages without
// a ts are placed; they follow one second apart in document order.
const seedHistory = time.Hour

var (
	channelNameRE = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,79}$`)
	userNameRE    = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,79}$`)
	emojiNameRE   = regexp.MustCompile(`^[a-z0-9_+'-]+$`)
	// idRE is Slack's id shape, with the underscore the original Pome's
	// seeds use (U_DANA, C_GENERAL).
	idRE = regexp.MustCompile(`^[A-Z][A-Z0-9_]+$`)
	tsRE = regexp.MustCompile(`^[0-9]{1,12}\.[0-9]{6}$`)
)

// build turns the seed into a world: ids, timestamps and references are
// resolved and checked; failures are SeedErrors naming the JSON path.
func build(ctx context.Context, raw json.RawMessage) (*World, error) {
	w, prefix, err := buildUnwrapped(ctx, raw)
	return w, underPrefix(err, prefix)
}

func buildUnwrapped(ctx context.Context, raw json.RawMessage) (*World, string, error) {
	var s Seed
	prefix := ""
	if raw == nil {
		s = DefaultSeed()
	} else {
		var err error
		if raw, prefix, err = unwrapSeed(raw); err != nil {
			return nil, "", err
		}
		if err := checkShape(raw); err != nil {
			return nil, prefix, err
		}
		if err := twins.DecodeSeed(raw, &s); err != nil {
			return nil, prefix, err
		}
	}
	b := &builder{ctx: ctx, w: &World{
		Users: []*User{}, Bots: []*Bot{}, Channels: []*Channel{}, Emoji: map[string]string{},
		Files: []*File{}, Scheduled: []*ScheduledMessage{}, Ephemeral: []*EphemeralMessage{}, Counters: map[string]int{},
	}}
	// The second of the start, as GitHub's seed takes it: a world built
	// from the same seed within one second is the same world, so creates
	// in that second share its document (session/defaultworld.go).
	start := twins.EnvFrom(ctx).Now().Truncate(time.Second)
	b.nextAuto = start.Add(-seedHistory).UnixMicro()
	b.start = start.Unix()
	if err := b.run(&s); err != nil {
		return nil, prefix, err
	}
	b.w.reserved = nil
	return b.w, prefix, nil
}

type builder struct {
	ctx      context.Context
	w        *World
	nextAuto int64
	start    int64
}

func (b *builder) run(s *Seed) error {
	w := b.w
	t := SeedTeam{Name: "Acme", Domain: "acme", EmailDomain: "acme.test"}
	if s.Team != nil {
		if s.Team.ID != "" {
			t.ID = s.Team.ID
		}
		if s.Team.Name != "" {
			t.Name = s.Team.Name
		}
		if s.Team.Domain != "" {
			t.Domain = s.Team.Domain
		}
		if s.Team.EmailDomain != "" {
			t.EmailDomain = s.Team.EmailDomain
		}
	}
	if t.ID != "" && (!strings.HasPrefix(t.ID, "T") || !idRE.MatchString(t.ID)) {
		return twins.SeedErrorf("/team/id", "team id %q must look like T0123ABCD", t.ID)
	}
	if !channelNameRE.MatchString(t.Domain) {
		return twins.SeedErrorf("/team/domain", "domain %q must be lower-case letters, digits and hyphens", t.Domain)
	}
	w.Team = Team{ID: t.ID, Name: t.Name, Domain: t.Domain, EmailDomain: t.EmailDomain}

	// Explicit ids first, so generated ones never collide with them.
	if err := b.reserveIDs(s); err != nil {
		return err
	}
	if w.Team.ID == "" {
		w.Team.ID = w.newID("T")
	}

	auth := s.AuthUser
	seen := map[string]bool{}
	for i, su := range s.Users {
		p := twins.Pointer("users", i)
		if err := mergeProfile(p, &su); err != nil {
			return err
		}
		if !userNameRE.MatchString(su.Name) {
			return twins.SeedErrorf(p+"/name", "user name %q must be lower-case letters, digits, '.', '_' or '-'", su.Name)
		}
		if seen[su.Name] {
			return twins.SeedErrorf(p+"/name", "duplicate user name %q", su.Name)
		}
		if su.Name == "slackbot" || su.ID == SlackbotID {
			return twins.SeedErrorf(p, "slackbot (%s) is Slack's own user, in every workspace; name another", SlackbotID)
		}
		seen[su.Name] = true
		if su.ID != "" && (!strings.ContainsRune("UWB", rune(su.ID[0])) || !idRE.MatchString(su.ID)) {
			return twins.SeedErrorf(p+"/id", "user id %q must look like U0123ABCD", su.ID)
		}
		b.addUser(su)
		applyProfileExtras(w.Users[len(w.Users)-1], su.Profile)
	}
	if auth == "" {
		// The original Pome's rule: the user named pome-agent, else the
		// user its seeds give the id U_PRIMARY.
		auth = "pome-agent"
		if w.user(auth) == nil && w.userByID("U_PRIMARY") != nil {
			auth = "U_PRIMARY"
		}
	}
	if w.user(auth) == nil {
		if s.AuthUser != "" {
			return twins.SeedErrorf("/auth_user", "no user named %q", s.AuthUser)
		}
		b.addUser(SeedUser{Name: "pome-agent", RealName: "Pome Agent", Email: "pome-agent@" + w.Team.EmailDomain, IsAdmin: true})
	}
	w.AuthUser = w.user(auth).ID

	for i, sb := range s.Bots {
		p := twins.Pointer("bots", i)
		if sb.Name == "" {
			return twins.SeedErrorf(p+"/name", "a bot needs a name")
		}
		if sb.ID != "" && (!strings.HasPrefix(sb.ID, "B") || !idRE.MatchString(sb.ID)) {
			return twins.SeedErrorf(p+"/id", "bot id %q must look like B0123ABCD", sb.ID)
		}
		bot := &Bot{ID: sb.ID, Name: sb.Name, Updated: b.start}
		if sb.User != "" {
			u := w.user(sb.User)
			if u == nil {
				return twins.SeedErrorf(p+"/user", "no user %q", sb.User)
			}
			bot.UserID = u.ID
			u.IsBot = true
		}
		if bot.ID == "" {
			bot.ID = w.newID("B")
		}
		bot.AppID = "A" + bot.ID[1:]
		w.Bots = append(w.Bots, bot)
	}
	b.addAuthBot()
	b.addSlackbot()

	if err := b.emoji(s); err != nil {
		return err
	}

	names := map[string]bool{}
	for i := range s.Channels {
		if err := b.addChannel(i, &s.Channels[i], names); err != nil {
			return err
		}
	}
	for i := range s.Files {
		if err := b.addFile(i, &s.Files[i]); err != nil {
			return err
		}
	}
	// Messages refer to files; resolve once both exist.
	for i := range s.Channels {
		if err := b.addMessages(i, &s.Channels[i]); err != nil {
			return err
		}
	}
	return nil
}

func (b *builder) reserveIDs(s *Seed) error {
	ids := map[string]string{}
	claim := func(id, path string) error {
		if id == "" {
			return nil
		}
		if prev, dup := ids[id]; dup {
			return twins.SeedErrorf(path, "id %q is already used at %s", id, prev)
		}
		ids[id] = path
		return nil
	}
	if s.Team != nil {
		if err := claim(s.Team.ID, "/team/id"); err != nil {
			return err
		}
	}
	for i, u := range s.Users {
		if err := claim(u.ID, twins.Pointer("users", i, "id")); err != nil {
			return err
		}
	}
	for i, x := range s.Bots {
		if err := claim(x.ID, twins.Pointer("bots", i, "id")); err != nil {
			return err
		}
	}
	for i, c := range s.Channels {
		if err := claim(c.ID, twins.Pointer("channels", i, "id")); err != nil {
			return err
		}
	}
	for i, f := range s.Files {
		if err := claim(f.ID, twins.Pointer("files", i, "id")); err != nil {
			return err
		}
	}
	// newID skips these until the records that claim them exist.
	b.w.reserved = map[string]bool{}
	for id := range ids {
		b.w.reserved[id] = true
	}
	return nil
}

func (b *builder) addUser(su SeedUser) {
	w := b.w
	id := su.ID
	if id == "" {
		id = w.newID("U")
	}
	real := su.RealName
	if real == "" {
		real = su.Name
	}
	first, last, _ := strings.Cut(real, " ")
	email := su.Email
	if email == "" && !su.IsBot {
		email = su.Name + "@" + w.Team.EmailDomain
	}
	tz := su.TZ
	if tz == "" {
		tz = "America/Los_Angeles"
	}
	hash := avatarHash(id)
	img := func(n string) string { return "https://avatars.slack-edge.com/" + hash + "_" + n + ".png" }
	u := &User{
		ID: id, TeamID: w.Team.ID, Name: su.Name, Deleted: su.Deleted, Color: colorFor(len(w.Users)),
		RealName: real, TZ: tz, TZLabel: tzLabel(tz), TZOffset: tzOffset(tz),
		IsAdmin: su.IsAdmin || su.IsOwner, IsOwner: su.IsOwner, IsBot: su.IsBot,
		IsEmailConfirmed: !su.IsBot, Updated: b.start,
		Profile: UserProfile{
			Title: su.Title, Phone: su.Phone, RealName: real, RealNameNormalized: real,
			DisplayName: su.DisplayName, DisplayNameNormalized: su.DisplayName,
			FirstName: first, LastName: last, StatusText: su.StatusText, StatusEmoji: su.StatusEmoji,
			AvatarHash: hash, Email: email, Team: w.Team.ID,
			Image24: img("24"), Image32: img("32"), Image48: img("48"), Image72: img("72"), Image192: img("192"), Image512: img("512"),
		},
	}
	w.Users = append(w.Users, u)
}

func (b *builder) addChannel(i int, sc *SeedChannel, names map[string]bool) error {
	w := b.w
	p := twins.Pointer("channels", i)
	typ, err := channelType(p, sc)
	if err != nil {
		return err
	}
	prefix := ""
	switch typ {
	case TypePublic:
		prefix = "C"
	case TypePrivate, TypeMPIM:
		prefix = "G"
	case TypeIM:
		prefix = "D"
	default:
		return twins.SeedErrorf(p+"/type", "type %q is not one of public_channel, private_channel, im, mpim", typ)
	}
	if sc.ID != "" && (!idRE.MatchString(sc.ID) || !strings.ContainsRune("CGDM", rune(sc.ID[0]))) {
		return twins.SeedErrorf(p+"/id", "channel id %q must look like C0123ABCD (G private, D direct message)", sc.ID)
	}
	ch := &Channel{ID: sc.ID, Type: typ, Created: b.start - int64(seedHistory/time.Second) - 86400, IsArchived: sc.IsArchived, IsGeneral: sc.IsGeneral, PreviousNames: []string{}, Messages: []*Message{}, Bookmarks: []*Bookmark{}, Pins: []*Pin{}}
	var members []string
	if sc.Members == nil {
		if typ == TypeIM || typ == TypeMPIM {
			return twins.SeedErrorf(p+"/members", "a %s lists its members", typ)
		}
		for _, u := range w.Users {
			if !u.Deleted && u.ID != SlackbotID {
				members = append(members, u.ID)
			}
		}
	} else {
		seen := map[string]bool{}
		for j, ref := range sc.Members {
			u := w.user(ref)
			if u == nil {
				return twins.SeedErrorf(twins.Pointer("channels", i, "members", j), "no user %q", ref)
			}
			if !seen[u.ID] {
				seen[u.ID] = true
				members = append(members, u.ID)
			}
		}
	}
	ch.Members = members
	switch typ {
	case TypeIM:
		if len(members) != 2 {
			return twins.SeedErrorf(p+"/members", "a DM has exactly two members, got %d", len(members))
		}
		if sc.Name != "" {
			return twins.SeedErrorf(p+"/name", "a DM has no name")
		}
		ch.User = members[1]
		if members[1] == w.AuthUser {
			ch.User = members[0]
		}
		ch.Name = ch.User
	case TypeMPIM:
		if len(members) < 3 {
			return twins.SeedErrorf(p+"/members", "a group DM has at least three members")
		}
		ch.Name = mpimName(w, members)
	default:
		if !channelNameRE.MatchString(sc.Name) {
			return twins.SeedErrorf(p+"/name", "channel name %q must be lower-case letters, digits, '-' or '_' (at most 80)", sc.Name)
		}
		if names[sc.Name] {
			return twins.SeedErrorf(p+"/name", "duplicate channel name %q", sc.Name)
		}
		names[sc.Name] = true
		ch.Name = sc.Name
	}
	creator := members
	if sc.Creator != "" {
		u := w.user(sc.Creator)
		if u == nil {
			return twins.SeedErrorf(p+"/creator", "no user %q", sc.Creator)
		}
		ch.Creator = u.ID
	} else if len(creator) > 0 {
		ch.Creator = creator[0]
	}
	if sc.Topic != "" {
		ch.Topic = Topic{Value: sc.Topic, Creator: ch.Creator, LastSet: ch.Created}
	}
	if sc.Purpose != "" {
		ch.Purpose = Topic{Value: sc.Purpose, Creator: ch.Creator, LastSet: ch.Created}
	}
	if ch.ID == "" {
		ch.ID = w.newID(prefix)
	}
	for j, bm := range sc.Bookmarks {
		if bm.Title == "" || bm.Link == "" {
			return twins.SeedErrorf(twins.Pointer("channels", i, "bookmarks", j), "a bookmark needs a title and a link")
		}
		ch.Bookmarks = append(ch.Bookmarks, &Bookmark{
			ID: w.newID("Bk"), ChannelID: ch.ID, Title: bm.Title, Link: bm.Link, Emoji: bm.Emoji, Type: "link",
			DateCreated: ch.Created, DateUpdated: ch.Created, Rank: rank(j), CreatedBy: ch.Creator, LastUpdated: ch.Creator,
		})
	}
	w.Channels = append(w.Channels, ch)
	return nil
}

func (b *builder) addFile(i int, sf *SeedFile) error {
	w := b.w
	p := twins.Pointer("files", i)
	if sf.Name == "" {
		return twins.SeedErrorf(p+"/name", "a file needs a name")
	}
	if sf.ID != "" && (!strings.HasPrefix(sf.ID, "F") || !idRE.MatchString(sf.ID)) {
		return twins.SeedErrorf(p+"/id", "file id %q must look like F0123ABCD", sf.ID)
	}
	user := w.AuthUser
	if sf.User != "" {
		u := w.user(sf.User)
		if u == nil {
			return twins.SeedErrorf(p+"/user", "no user %q", sf.User)
		}
		user = u.ID
	}
	f := newFile(w, sf.ID, sf.Name, sf.Title, sf.Filetype, sf.Content, user, b.start-int64(seedHistory/time.Second))
	for j, ref := range sf.Channels {
		ch := w.channelRef(ref)
		if ch == nil {
			return twins.SeedErrorf(twins.Pointer("files", i, "channels", j), "no channel %q", ref)
		}
		shareFile(f, ch)
	}
	w.Files = append(w.Files, f)
	return nil
}

func (b *builder) addMessages(i int, sc *SeedChannel) error {
	w := b.w
	ch := w.Channels[i]
	// Messages are collected in seed order and sorted once: a stable sort
	// of that sequence is exactly what inserting them one at a time (each
	// after every message with the same ts or earlier) gives. Each ts is
	// checked against the ts already used, as looking it up in the channel
	// would.
	used := make(map[string]bool, len(ch.Messages)+len(sc.Messages))
	for _, m := range ch.Messages {
		used[m.TS] = true
	}
	parents := make([]*Message, 0, len(sc.Messages))
	labels := map[string]string{}
	for j := range sc.Messages {
		sm := &sc.Messages[j]
		p := twins.Pointer("channels", i, "messages", j)
		var parent *Message
		if sm.ThreadTS != "" && sm.ThreadTS != sm.TS {
			if len(sm.Replies) > 0 {
				return twins.SeedErrorf(p+"/replies", "a reply (thread_ts) cannot have replies")
			}
			var err error
			if parent, err = seedThreadParent(p, ch, labels, sm.ThreadTS); err != nil {
				return err
			}
		}
		m, err := b.message(ch, sm, p, parent)
		if err != nil {
			return err
		}
		if used[m.TS] {
			return twins.SeedErrorf(p+"/ts", "ts %q is already used in this channel", m.TS)
		}
		if sm.TS != "" && sm.TS != m.TS {
			if _, dup := labels[sm.TS]; dup {
				return twins.SeedErrorf(p+"/ts", "ts %q is already used in this channel", sm.TS)
			}
			labels[sm.TS] = m.TS
		}
		used[m.TS] = true
		ch.Messages = append(ch.Messages, m)
		if parent == nil {
			parents = append(parents, m)
		}
		for k := range sm.Replies {
			rp := p + twins.Pointer("replies", k)
			if len(sm.Replies[k].Replies) > 0 {
				return twins.SeedErrorf(rp+"/replies", "replies cannot have replies")
			}
			r, err := b.message(ch, &sm.Replies[k], rp, m)
			if err != nil {
				return err
			}
			if used[r.TS] {
				return twins.SeedErrorf(rp+"/ts", "ts %q is already used in this channel", r.TS)
			}
			used[r.TS] = true
			ch.Messages = append(ch.Messages, r)
		}
	}
	sortMessages(ch.Messages)
	ch.ordered = true
	ch.repliesFollow = repliesFollowParents(ch.Messages)
	// Thread fields, as refreshThread sets them, from each parent's replies
	// in ts order. A seed's ts are unique in the channel, so each reply
	// belongs to the one parent whose ts it names.
	threads := map[string][]*Message{}
	for _, m := range ch.Messages {
		if m.isReply() {
			threads[m.ThreadTS] = append(threads[m.ThreadTS], m)
		}
	}
	for _, p := range parents {
		rs := threads[p.TS]
		setThread(p, rs)
		for _, r := range rs {
			r.ParentUserID = p.User
		}
	}
	// Keep the clock ahead of every seeded message.
	for _, m := range ch.Messages {
		if us, _ := parseTS(m.TS); us > w.LastTS {
			w.LastTS = us
		}
	}
	return nil
}

func (b *builder) message(ch *Channel, sm *SeedMessage, p string, parent *Message) (*Message, error) {
	w := b.w
	m := &Message{Type: "message", Text: sm.Text, Team: w.Team.ID, Username: sm.Username}
	if sm.TS != "" && !isTSLabel(sm.TS) {
		if !tsRE.MatchString(sm.TS) {
			return nil, twins.SeedErrorf(p+"/ts", "ts %q must look like 1512085950.000216", sm.TS)
		}
		m.TS = sm.TS
	} else {
		us := b.nextAuto
		b.nextAuto += 1e6
		if parent != nil {
			if pus, _ := parseTS(parent.TS); us <= pus {
				us = pus + 1
			}
		}
		m.TS = formatTS(us)
	}
	if parent != nil {
		pus, _ := parseTS(parent.TS)
		if us, _ := parseTS(m.TS); us <= pus {
			return nil, twins.SeedErrorf(p+"/ts", "a reply's ts must be after its parent's (%s)", parent.TS)
		}
		m.ThreadTS = parent.TS
		if sm.ReplyBroadcast {
			m.Subtype = "thread_broadcast"
		}
	} else if sm.ReplyBroadcast {
		return nil, twins.SeedErrorf(p+"/reply_broadcast", "only a reply can be broadcast")
	}
	switch {
	case sm.User != "" && sm.Bot != "":
		return nil, twins.SeedErrorf(p+"/bot", "a message has a user or a bot, not both")
	case sm.Bot != "":
		var bot *Bot
		for _, x := range w.Bots {
			if x.ID == sm.Bot || x.Name == sm.Bot {
				bot = x
			}
		}
		if bot == nil {
			return nil, twins.SeedErrorf(p+"/bot", "no bot %q", sm.Bot)
		}
		m.BotID = bot.ID
		m.User = bot.UserID
		if m.Subtype == "" {
			m.Subtype = "bot_message"
		}
		if m.Username == "" {
			m.Username = bot.Name
		}
	case sm.User != "":
		u := w.user(sm.User)
		if u == nil {
			return nil, twins.SeedErrorf(p+"/user", "no user %q", sm.User)
		}
		m.User = u.ID
	default:
		return nil, twins.SeedErrorf(p+"/user", "a message needs a user or a bot")
	}
	if sm.Text == "" && len(sm.Blocks) == 0 && len(sm.Attachments) == 0 && len(sm.Files) == 0 {
		return nil, twins.SeedErrorf(p+"/text", "a message needs text, blocks, attachments or files")
	}
	if len(sm.Blocks) > 0 {
		if !isJSONArray(sm.Blocks) {
			return nil, twins.SeedErrorf(p+"/blocks", "blocks must be an array")
		}
		blocks, err := assignBlockIDs(sm.Blocks)
		if err != nil {
			return nil, twins.SeedErrorf(p+"/blocks", "%v", err)
		}
		m.Blocks = blocks
	}
	if len(sm.Attachments) > 0 {
		if !isJSONArray(sm.Attachments) {
			return nil, twins.SeedErrorf(p+"/attachments", "attachments must be an array")
		}
		m.Attachments = sm.Attachments
	}
	for k, r := range sm.Reactions {
		rp := p + twins.Pointer("reactions", k)
		name := strings.Trim(r.Name, ":")
		if !emojiNameRE.MatchString(name) {
			return nil, twins.SeedErrorf(rp+"/name", "emoji name %q is not valid", r.Name)
		}
		users, err := reactionUsers(rp, r)
		if err != nil {
			return nil, err
		}
		for l, ref := range users {
			u := w.user(ref)
			if u == nil {
				up := rp + twins.Pointer("users", l)
				if r.User != "" {
					up = rp + "/user"
				}
				return nil, twins.SeedErrorf(up, "no user %q", ref)
			}
			addReaction(m, name, u.ID)
		}
	}
	if sm.Pinned {
		m.PinnedTo = []string{ch.ID}
		ch.Pins = append(ch.Pins, &Pin{TS: m.TS, Created: b.start - int64(seedHistory/time.Second), CreatedBy: m.User})
	}
	for k, ref := range sm.Files {
		f := w.file(ref)
		if f == nil {
			for _, x := range w.Files {
				if x.Name == ref {
					f = x
				}
			}
		}
		if f == nil || f.Name == "" {
			return nil, twins.SeedErrorf(p+twins.Pointer("files", k), "no file %q", ref)
		}
		m.FileIDs = append(m.FileIDs, f.ID)
		shareFile(f, ch)
	}
	return m, nil
}

func isJSONArray(raw json.RawMessage) bool {
	var v []any
	return json.Unmarshal(raw, &v) == nil
}

// addReaction adds user's emoji to m, reporting false if it was there.
func addReaction(m *Message, name, user string) bool {
	for _, r := range m.Reactions {
		if r.Name == name {
			for _, u := range r.Users {
				if u == user {
					return false
				}
			}
			r.Users = append(r.Users, user)
			r.Count = len(r.Users)
			return true
		}
	}
	m.Reactions = append(m.Reactions, &Reaction{Name: name, Users: []string{user}, Count: 1})
	return true
}

func mpimName(w *World, members []string) string {
	var names []string
	for _, id := range members {
		if u := w.userByID(id); u != nil {
			names = append(names, u.Name)
		}
	}
	return "mpdm-" + strings.Join(names, "--") + "-1"
}

func rank(i int) string { return string(rune('a'+i%26)) + strings.Repeat("z", i/26) }

var palette = []string{"9f69e7", "4bbe2e", "e7392d", "3c989f", "674b1b", "e96699", "5b89d5", "e0a729"}

func colorFor(i int) string { return palette[i%len(palette)] }

func avatarHash(id string) string {
	h := uint32(2166136261)
	for i := 0; i < len(id); i++ {
		h ^= uint32(id[i])
		h *= 16777619
	}
	const hex = "0123456789abcdef"
	out := make([]byte, 12)
	for i := range out {
		out[i] = hex[(h>>(uint(i%8)*4))&0xf]
		if i == 7 {
			h = h*31 + 7
		}
	}
	return string(out)
}

// tzLabel names a zone the way Slack's tz_label does for the zones seeds
// commonly use; other zones show their abbreviation.
func tzLabel(tz string) string {
	switch tz {
	case "America/Los_Angeles":
		return "Pacific Standard Time"
	case "America/New_York":
		return "Eastern Standard Time"
	case "Europe/London":
		return "Greenwich Mean Time"
	case "UTC":
		return "Coordinated Universal Time"
	}
	if z, ok := zoneOf(tz); ok {
		return z.name
	}
	return tz
}

func tzOffset(tz string) int {
	if z, ok := zoneOf(tz); ok {
		return z.offset
	}
	return 0
}

// zone is what a seed shows of a time zone: its name and offset on a
// fixed winter day.
type zone struct {
	name   string
	offset int
}

// zones caches zoneOf: time.LoadLocation reads the zone's file from disk
// on every call, which cost about a third of building a default world.
// Only zones that exist are kept (a few hundred at most), so seeds naming
// made-up zones cannot grow it.
var zones sync.Map // tz → zone

func zoneOf(tz string) (zone, bool) {
	if v, ok := zones.Load(tz); ok {
		return v.(zone), true
	}
	loc, err := time.LoadLocation(tz)
	if err != nil {
		return zone{}, false
	}
	var z zone
	z.name, z.offset = time.Date(2026, 1, 15, 12, 0, 0, 0, loc).Zone()
	zones.Store(tz, z)
	return z, true
}
