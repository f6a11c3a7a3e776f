package slack

import (
	"context"

	"github.com/pomehq/pome/twins"
)

// Who the sandbox's token is, and the users every workspace has.
//
// Slack's xoxb- token belongs to an app's bot user: auth.test names the
// bot (bot_id, app_id) beside its user, and what it posts carries bot_id,
// app_id and bot_profile. The twin's token user is such a bot user: the
// seed's auth_user (pome-agent by default) gets a bot, the seed's own if
// one of its bots names that user, else one named after it. Every
// workspace also holds Slackbot, USLACKBOT.

// SlackbotID is the id of Slack's own user, present in every workspace.
const SlackbotID = "USLACKBOT"

// BotProfile is the bot_profile object of a message a bot posted.
type BotProfile struct {
	ID      string   `json:"id"`
	AppID   string   `json:"app_id"`
	UserID  string   `json:"user_id"`
	Name    string   `json:"name"`
	Icons   BotIcons `json:"icons"`
	Deleted bool     `json:"deleted"`
	Updated int64    `json:"updated"`
	TeamID  string   `json:"team_id"`
}

// BotIcons are a bot's avatar images.
type BotIcons struct {
	Image36 string `json:"image_36"`
	Image48 string `json:"image_48"`
	Image72 string `json:"image_72"`
}

// addAuthBot makes the token's user a bot user with a bot of its own.
func (b *builder) addAuthBot() {
	w := b.w
	me := w.me()
	bot := w.botOfUser(me.ID)
	if bot == nil {
		bot = &Bot{ID: w.newID("B"), Name: me.Name, UserID: me.ID, Updated: b.start}
		bot.AppID = "A" + bot.ID[1:]
		w.Bots = append(w.Bots, bot)
	}
	me.IsBot = true
	me.Profile.BotID = bot.ID
	me.Profile.APIAppID = bot.AppID
	me.Profile.AlwaysActive = true
}

// addSlackbot adds Slack's own user, as users.list shows it.
func (b *builder) addSlackbot() {
	w := b.w
	img := func(n string) string { return "https://a.slack-edge.com/80588/img/slackbot_" + n + ".png" }
	const tz = "America/Los_Angeles"
	w.Users = append(w.Users, &User{
		ID: SlackbotID, TeamID: w.Team.ID, Name: "slackbot", Color: "757575", RealName: "Slackbot",
		TZ: tz, TZLabel: tzLabel(tz), TZOffset: tzOffset(tz),
		Profile: UserProfile{
			RealName: "Slackbot", RealNameNormalized: "Slackbot", DisplayName: "Slackbot", DisplayNameNormalized: "Slackbot",
			FirstName: "slackbot", AvatarHash: "sv41d8cd98f0", AlwaysActive: true, Team: w.Team.ID,
			Image24: img("24"), Image32: img("32"), Image48: img("48"), Image72: img("72"), Image192: img("192"), Image512: img("512"),
		},
	})
}

// actsAsUser reports whether a call acts as the token's user rather than as
// the app's bot: one made with the sandbox's xoxp- user token, or any MCP
// call, as Slack's MCP server acts as the signed-in user. Such a call
// carries no bot identity (auth.test's bot_id, a message's bot_profile).
func actsAsUser(ctx context.Context) bool {
	return twins.CredentialFrom(ctx) == twins.CredentialUser || twins.TransportFrom(ctx) == twins.TransportMCP
}

// botOfUser is the bot whose user is id, if any.
func (w *World) botOfUser(id string) *Bot {
	for _, b := range w.Bots {
		if b.UserID == id && id != "" {
			return b
		}
	}
	return nil
}

// signAsBot marks m as posted by user's bot, if user is a bot user, the way
// Slack's answers and history show it.
func (w *World) signAsBot(m *Message, user string) {
	bot := w.botOfUser(user)
	if bot == nil {
		return
	}
	p := w.botProfile(bot)
	m.BotID, m.AppID, m.BotProfile = bot.ID, bot.AppID, &p
}

// signAsBotShared is signAsBot for write paths: the messages a bot posts
// while its profile stays the same share one BotProfile (nothing changes
// a message's profile in place), so a channel of many posts holds one
// profile rather than one each for the collector to mark.
func (w *World) signAsBotShared(m *Message, user string) {
	bot := w.botOfUser(user)
	if bot == nil {
		return
	}
	p := w.botProfile(bot)
	kept := w.profiles[bot.ID]
	if kept == nil || *kept != p {
		kept = &p
		if w.profiles == nil {
			w.profiles = map[string]*BotProfile{}
		}
		w.profiles[bot.ID] = kept
	}
	m.BotID, m.AppID, m.BotProfile = bot.ID, bot.AppID, kept
}

// botProfile is the bot_profile of a message bot posts now.
func (w *World) botProfile(bot *Bot) BotProfile {
	return BotProfile{
		ID: bot.ID, AppID: bot.AppID, UserID: bot.UserID, Name: bot.Name, Deleted: bot.Deleted, Updated: bot.Updated, TeamID: w.Team.ID,
		Icons: BotIcons{
			Image36: "https://a.slack-edge.com/80588/img/plugins/app/bot_36.png",
			Image48: "https://a.slack-edge.com/80588/img/plugins/app/bot_48.png",
			Image72: "https://a.slack-edge.com/80588/img/plugins/app/service_72.png",
		},
	}
}
