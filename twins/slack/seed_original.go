package slack

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"

	"github.com/pomehq/pome/twins"
)

// The seed format is one superset of two shapes: ours, and the original
// Pome's (its task library's .seed.json files load unchanged). What the
// original's shape adds, and where it lives here:
//
//   - "_meta" (the seed compiler's stamp), checked and otherwise ignored;
//   - the legacy wrapping {"slack": {"seed": …}} (and {"seed": …}, which is
//     what a task's seed envelope hands this twin of that wrapping);
//   - channels' "is_private" beside our "type";
//   - flat thread replies: a message whose "thread_ts" names an earlier
//     message of its channel, beside our nested "replies";
//   - a message "ts" that is a label rather than a Slack timestamp
//     ("evan-report"): the message gets a timestamp of its own, and
//     "thread_ts" may name the label;
//   - reactions as {name, user}, one user each, beside {name, users};
//   - users' "profile" object;
//   - "emoji" as a list [{name, url?, alias?}] beside our object;
//   - ids as the original writes them (T_ACME, U_DANA, C_GENERAL: an
//     underscore is allowed, and a user id may start with B).
//
// Strictness is the same for both: a key neither shape defines is an error
// naming its JSON pointer, and so is a reference to a user, channel, file or
// message the seed does not hold, which the original silently dropped.

// SeedMeta is the stamp the original Pome's seed compiler puts on a
// .seed.json sidecar. The twin reads nothing from it.
type SeedMeta struct {
	Version    int    `json:"version"`
	SourceHash string `json:"source_hash"`
	Model      string `json:"model"`
	CompiledAt string `json:"compiled_at"`
}

// SeedProfile is a user's profile in the original's shape; its fields are
// the profile fields users.profile.get returns. A field also given at the
// user's top level (title, email, …) must agree with it.
type SeedProfile struct {
	Title            string `json:"title,omitempty"`
	Phone            string `json:"phone,omitempty"`
	RealName         string `json:"real_name,omitempty"`
	DisplayName      string `json:"display_name,omitempty"`
	FirstName        string `json:"first_name,omitempty"`
	LastName         string `json:"last_name,omitempty"`
	Email            string `json:"email,omitempty"`
	StatusText       string `json:"status_text,omitempty"`
	StatusEmoji      string `json:"status_emoji,omitempty"`
	StatusExpiration int64  `json:"status_expiration,omitempty"`
}

// SeedEmoji is the workspace's custom emoji: our object {"name":
// "https://…" | "alias:other"} or the original's list of SeedEmojiEntry.
type SeedEmoji struct {
	byName map[string]string
	list   []SeedEmojiEntry
}

// SeedEmojiEntry is one custom emoji in the original's list: an image URL,
// an alias of another emoji, or neither (the twin gives it an image URL).
type SeedEmojiEntry struct {
	Name  string `json:"name"`
	URL   string `json:"url,omitempty"`
	Alias string `json:"alias,omitempty"`
}

// UnmarshalJSON reads either shape.
func (e *SeedEmoji) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	if bytes.Equal(data, []byte("null")) {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if len(data) > 0 && data[0] == '[' {
		return dec.Decode(&e.list)
	}
	return dec.Decode(&e.byName)
}

// MarshalJSON writes the shape it was read in.
func (e SeedEmoji) MarshalJSON() ([]byte, error) {
	if e.list != nil {
		return json.Marshal(e.list)
	}
	return json.Marshal(e.byName)
}

// checkShape is walkShape's rule for a field of two shapes.
func (SeedEmoji) checkShape(v any, path string) *twins.SeedError {
	switch v.(type) {
	case []any:
		return walkShape(v, reflect.TypeFor[[]SeedEmojiEntry](), path)
	case map[string]any:
		return walkShape(v, reflect.TypeFor[map[string]string](), path)
	}
	return twins.SeedErrorf(path, `expected an object {"name": "url"} or a list [{"name", "url"}]`)
}

// shaped is a seed type that accepts more than one JSON shape and checks
// a value against them itself.
type shaped interface {
	checkShape(v any, path string) *twins.SeedError
}

var shapedType = reflect.TypeFor[shaped]()

// unwrapSeed takes off the original's legacy wrapping {"slack": {"seed":
// S}} or the {"seed": S} a task envelope leaves of it, returning S and the
// JSON pointer it sat at. Anything beside the wrapping's one key is an
// error: the original ignored it, silently.
func unwrapSeed(raw json.RawMessage) (json.RawMessage, string, error) {
	prefix := ""
	for _, key := range []string{"slack", "seed"} {
		var obj map[string]json.RawMessage
		if json.Unmarshal(raw, &obj) != nil {
			return raw, prefix, nil
		}
		inner, ok := obj[key]
		if !ok {
			if key == "seed" && prefix != "" {
				return nil, "", twins.SeedErrorf(prefix, `the {"slack": {"seed": …}} wrapping holds its seed under "seed"`)
			}
			continue
		}
		for k, v := range obj {
			switch {
			case k == key:
			case k == "_meta":
				// The seed compiler's stamp may sit on the wrapping.
				if err := checkMeta(v, prefix+"/_meta"); err != nil {
					return nil, "", err
				}
			default:
				return nil, "", twins.SeedErrorf(prefix+twins.Pointer(k), "unknown key %q beside the %q wrapping", k, key)
			}
		}
		prefix += twins.Pointer(key)
		raw = inner
	}
	return raw, prefix, nil
}

// checkMeta checks a _meta object found outside the seed proper.
func checkMeta(raw json.RawMessage, path string) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return twins.SeedErrorf(path, "invalid JSON: %v", err)
	}
	if err := walkShape(v, reflect.TypeFor[SeedMeta](), path); err != nil {
		return err
	}
	return nil
}

// underPrefix moves a seed error's path below the wrapping it was read
// from, so the path names the place in the document as given.
func underPrefix(err error, prefix string) error {
	var se *twins.SeedError
	if prefix == "" || !errors.As(err, &se) {
		return err
	}
	return &twins.SeedError{Path: prefix + se.Path, Message: se.Message}
}

// emoji resolves the seed's custom emoji into the world.
func (b *builder) emoji(s *Seed) error {
	w := b.w
	defined := map[string]bool{}
	if s.Emoji.list == nil {
		for name := range s.Emoji.byName {
			defined[name] = true
		}
		names := make([]string, 0, len(s.Emoji.byName))
		for name := range s.Emoji.byName {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			p := twins.Pointer("emoji", name)
			if err := b.addEmoji(p, p, name, s.Emoji.byName[name], defined); err != nil {
				return err
			}
		}
		return nil
	}
	for i, e := range s.Emoji.list {
		p := twins.Pointer("emoji", i)
		if defined[e.Name] {
			return twins.SeedErrorf(p+"/name", "duplicate emoji %q", e.Name)
		}
		defined[e.Name] = true
	}
	for i, e := range s.Emoji.list {
		p := twins.Pointer("emoji", i)
		value := e.URL
		switch {
		case e.URL != "" && e.Alias != "":
			return twins.SeedErrorf(p+"/alias", "an emoji has a url or an alias, not both")
		case e.Alias != "":
			value = "alias:" + e.Alias
		case e.URL == "":
			value = "https://emoji.slack-edge.com/" + w.Team.ID + "/" + e.Name + "/" + avatarHash(e.Name) + ".png"
		}
		if err := b.addEmoji(p+"/name", p+"/alias", e.Name, value, defined); err != nil {
			return err
		}
	}
	return nil
}

// addEmoji adds one custom emoji; namePath and valuePath are where its
// name and its value sit in the seed.
func (b *builder) addEmoji(namePath, valuePath, name, value string, defined map[string]bool) error {
	if !emojiNameRE.MatchString(name) {
		return twins.SeedErrorf(namePath, "emoji name %q must be lower-case letters, digits, '_', '+', '-'", name)
	}
	if alias, ok := strings.CutPrefix(value, "alias:"); ok && !defined[alias] {
		return twins.SeedErrorf(valuePath, "alias of an emoji the seed does not define: %q", alias)
	}
	b.w.Emoji[name] = value
	return nil
}

// mergeProfile folds a user's profile object into its top-level fields,
// refusing a field given twice with two values.
func mergeProfile(p string, su *SeedUser) error {
	pr := su.Profile
	if pr == nil {
		return nil
	}
	for _, f := range []struct {
		key     string
		top     *string
		profile string
	}{
		{"title", &su.Title, pr.Title},
		{"phone", &su.Phone, pr.Phone},
		{"real_name", &su.RealName, pr.RealName},
		{"display_name", &su.DisplayName, pr.DisplayName},
		{"email", &su.Email, pr.Email},
		{"status_text", &su.StatusText, pr.StatusText},
		{"status_emoji", &su.StatusEmoji, pr.StatusEmoji},
	} {
		switch {
		case f.profile == "":
		case *f.top == "":
			*f.top = f.profile
		case *f.top != f.profile:
			return twins.SeedErrorf(p+"/profile/"+f.key, "%q contradicts the user's %s %q", f.profile, f.key, *f.top)
		}
	}
	return nil
}

// applyProfileExtras sets what only the profile object can say.
func applyProfileExtras(u *User, pr *SeedProfile) {
	if pr == nil {
		return
	}
	if pr.FirstName != "" {
		u.Profile.FirstName = pr.FirstName
	}
	if pr.LastName != "" {
		u.Profile.LastName = pr.LastName
	}
	u.Profile.StatusExpiration = pr.StatusExpiration
}

// channelType reads a channel's type from "type" and the original's
// "is_private", which must agree when both are given.
func channelType(p string, sc *SeedChannel) (string, error) {
	typ := sc.Type
	if sc.IsPrivate == nil {
		if typ == "" {
			typ = TypePublic
		}
		return typ, nil
	}
	want := TypePublic
	if *sc.IsPrivate {
		want = TypePrivate
	}
	if typ != "" && typ != want {
		return "", twins.SeedErrorf(p+"/is_private", "is_private %v contradicts type %q", *sc.IsPrivate, typ)
	}
	return want, nil
}

// reactionUsers is who added a seeded reaction: "users", or the original's
// one "user".
func reactionUsers(rp string, r SeedReaction) ([]string, error) {
	switch {
	case r.User != "" && len(r.Users) > 0:
		return nil, twins.SeedErrorf(rp+"/user", "a reaction has user or users, not both")
	case r.User != "":
		return []string{r.User}, nil
	case len(r.Users) == 0:
		return nil, twins.SeedErrorf(rp+"/users", "a reaction needs at least one user")
	}
	return r.Users, nil
}

// isTSLabel reports whether a seed ts is a label the original's seeds give
// a message so a reply can name it, rather than a Slack timestamp (which a
// malformed one still must be, so a typo in a timestamp is not taken for a
// label).
func isTSLabel(ts string) bool {
	return strings.Trim(ts, "0123456789.") != ""
}

// seedThreadParent finds the message a flat reply's thread_ts names: a label
// or the ts of an earlier message of the channel.
func seedThreadParent(p string, ch *Channel, labels map[string]string, ref string) (*Message, error) {
	ts := ref
	if l, ok := labels[ref]; ok {
		ts = l
	}
	for _, m := range ch.Messages {
		if m.TS != ts {
			continue
		}
		if m.isReply() {
			return nil, twins.SeedErrorf(p+"/thread_ts", "%q is itself a reply; a thread_ts names the thread's first message", ref)
		}
		return m, nil
	}
	return nil, twins.SeedErrorf(p+"/thread_ts", "names no earlier message of this channel (%s)", fmt.Sprintf("%q", ref))
}
