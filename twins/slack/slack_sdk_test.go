package slack_test

import (
	"encoding/json"
	"errors"
	"mime/multipart"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pomehq/pome/rest/resttest"
	"github.com/pomehq/pome/tape"
	twin "github.com/pomehq/pome/twins/slack"
	"github.com/slack-go/slack"
)

// start serves the Slack twin with seed ("" = default world) and returns a
// slack-go client pointed at it.
func start(t *testing.T, seed string) (*resttest.Env, *slack.Client) {
	t.Helper()
	env := resttest.Start(t, twin.New(), seed)
	return env, slack.New(env.Token, slack.OptionAPIURL(env.APIURL+"/api/"))
}

// slackErr asserts that err is Slack's ok:false error with code.
func slackErr(t *testing.T, err error, code string) {
	t.Helper()
	var se slack.SlackErrorResponse
	if !errors.As(err, &se) || se.Err != code {
		t.Fatalf("want Slack error %s, got %v", code, err)
	}
}

func slackText(s string) slack.MsgOption { return slack.MsgOptionText(s, false) }

func lastRow(t *testing.T, env *resttest.Env) tape.Row {
	t.Helper()
	rows := env.Tape(t)
	if len(rows) == 0 {
		t.Fatal("empty tape")
	}
	return rows[len(rows)-1]
}

func TestSDKAuthAndPost(t *testing.T) {
	env, api := start(t, "")
	auth, err := api.AuthTest()
	if err != nil {
		t.Fatal(err)
	}
	if auth.User != "pome-agent" || auth.Team != "Acme" || !strings.HasPrefix(auth.UserID, "U") || !strings.HasPrefix(auth.TeamID, "T") {
		t.Errorf("auth.test = %+v", auth)
	}
	chID, ts, err := api.PostMessage("general", slack.MsgOptionText("Triaged acme/api#1", false))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(chID, "C") || ts == "" {
		t.Errorf("post = %s %s", chID, ts)
	}
	row := lastRow(t, env)
	if row.ToolName() != "slack_send_message" || !row.StateMutation || row.Status != 200 {
		t.Errorf("tape row = %+v", row)
	}
	// Errors are HTTP 200 ok:false, and refused writes are no mutation.
	_, _, err = api.PostMessage("nope", slack.MsgOptionText("x", false))
	slackErr(t, err, "channel_not_found")
	if row := lastRow(t, env); row.Status != 200 || row.StateMutation || row.ToolName() != "slack_send_message" {
		t.Errorf("refused row = %+v", row)
	}
	_, _, err = api.PostMessage("general", slack.MsgOptionText("", false))
	slackErr(t, err, "no_text")

	// Thread reply with blocks, broadcast.
	_, rts, err := api.PostMessage(chID, slack.MsgOptionTS(ts), slack.MsgOptionBroadcast(),
		slack.MsgOptionBlocks(slack.NewSectionBlock(slack.NewTextBlockObject("mrkdwn", "*done*", false, false), nil, nil)),
		slack.MsgOptionText("done", false))
	if err != nil {
		t.Fatal(err)
	}
	replies, hasMore, _, err := api.GetConversationReplies(&slack.GetConversationRepliesParameters{ChannelID: chID, Timestamp: ts})
	if err != nil {
		t.Fatal(err)
	}
	if len(replies) != 2 || hasMore || replies[0].ReplyCount != 1 || replies[0].LatestReply != rts || replies[1].ThreadTimestamp != ts || len(replies[1].Blocks.BlockSet) != 1 {
		t.Errorf("replies = %+v", replies)
	}
}

func TestSDKHistoryPagination(t *testing.T) {
	_, api := start(t, "")
	for i := 0; i < 5; i++ {
		if _, _, err := api.PostMessage("random", slack.MsgOptionText("n"+string(rune('0'+i)), false)); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	cursor := ""
	for {
		h, err := api.GetConversationHistory(&slack.GetConversationHistoryParameters{ChannelID: "random", Limit: 2, Cursor: cursor})
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range h.Messages {
			got = append(got, m.Text)
		}
		if !h.HasMore {
			break
		}
		cursor = h.ResponseMetaData.NextCursor
	}
	if strings.Join(got, ",") != "n4,n3,n2,n1,n0" {
		t.Errorf("history = %v", got)
	}
	h, err := api.GetConversationHistory(&slack.GetConversationHistoryParameters{ChannelID: "general", Inclusive: true})
	if err != nil || len(h.Messages) != 1 {
		t.Fatalf("general history = %+v, %v", h, err)
	}
}

func TestSDKListsAndReactions(t *testing.T) {
	_, api := start(t, "")
	chans, next, err := api.GetConversations(&slack.GetConversationsParameters{Limit: 1})
	if err != nil || len(chans) != 1 || next == "" || chans[0].Name != "general" || !chans[0].IsMember {
		t.Fatalf("conversations.list = %+v %q %v", chans, next, err)
	}
	chans, next, err = api.GetConversations(&slack.GetConversationsParameters{Limit: 1, Cursor: next})
	if err != nil || len(chans) != 1 || next != "" || chans[0].Name != "random" {
		t.Fatalf("page 2 = %+v %q %v", chans, next, err)
	}
	users, err := api.GetUsers()
	if err != nil || len(users) != 4 {
		t.Fatalf("users.list = %+v %v", users, err)
	}
	var alice slack.User
	for _, u := range users {
		if u.Name == "alice" {
			alice = u
		}
	}
	info, err := api.GetUserInfo(alice.ID)
	if err != nil || info.Profile.Email != "alice@acme.test" || info.RealName != "Alice Park" {
		t.Fatalf("users.info = %+v %v", info, err)
	}
	_, err = api.GetUserInfo("U0NOPE")
	slackErr(t, err, "user_not_found")

	h, _ := api.GetConversationHistory(&slack.GetConversationHistoryParameters{ChannelID: "general"})
	ref := slack.NewRefToMessage(h.Messages[0].Channel, h.Messages[0].Timestamp)
	gen, _, _ := api.GetConversations(&slack.GetConversationsParameters{})
	ref.Channel = gen[0].ID
	if err := api.AddReaction("wave", ref); err != nil {
		t.Fatal(err)
	}
	slackErr(t, api.AddReaction("wave", ref), "already_reacted")
}

// Slack accepts the same method as GET query, form and JSON, with the token
// in the header or a form field, with or without /api.
func TestSDKBodyShapes(t *testing.T) {
	env, _ := start(t, "")
	decode := func(b []byte) map[string]any {
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		return m
	}
	st, body := env.Do(t, "POST", "/api/chat.postMessage", "application/json", []byte(`{"channel":"general","text":"json body","blocks":[{"type":"divider"}]}`))
	if m := decode(body); st != 200 || m["ok"] != true {
		t.Errorf("json: %d %s", st, body)
	}
	form := url.Values{"channel": {"#general"}, "text": {"form body"}, "unfurl_links": {"false"}}
	st, body = env.Do(t, "POST", "/chat.postMessage", "application/x-www-form-urlencoded", []byte(form.Encode()))
	if m := decode(body); st != 200 || m["ok"] != true {
		t.Errorf("form without /api: %d %s", st, body)
	}
	st, body = env.Do(t, "GET", "/api/conversations.history?channel=general&limit=1&inclusive=1", "", nil)
	if m := decode(body); st != 200 || m["ok"] != true || len(m["messages"].([]any)) != 1 || m["has_more"] != true {
		t.Errorf("query: %d %s", st, body)
	}
	// Mixed: channel in the query, text in the form.
	st, body = env.Do(t, "POST", "/api/chat.postMessage?channel=random", "application/x-www-form-urlencoded", []byte("text=mixed"))
	if m := decode(body); st != 200 || m["ok"] != true {
		t.Errorf("mixed: %d %s", st, body)
	}
	st, body = env.Do(t, "POST", "/api/chat.postMessage", "application/json", []byte(`{"channel":"general"`))
	if m := decode(body); st != 200 || m["ok"] != false || m["error"] != "invalid_json" {
		t.Errorf("bad json: %d %s", st, body)
	}
}

func TestSDKTokenInForm(t *testing.T) {
	env, _ := start(t, "")
	// slack-go puts the token in the form for many methods; no header here.
	api := slack.New(env.Token, slack.OptionAPIURL(env.APIURL+"/"))
	h, err := api.GetConversationHistory(&slack.GetConversationHistoryParameters{ChannelID: "general"})
	if err != nil || len(h.Messages) != 1 {
		t.Fatalf("history = %+v %v", h, err)
	}
}

func TestSDKChat(t *testing.T) {
	_, api := start(t, "")
	chID, ts, err := api.PostMessage("general", slackText("v1"))
	if err != nil {
		t.Fatal(err)
	}
	_, _, text, err := api.UpdateMessage(chID, ts, slackText("v2"))
	if err != nil || text != "v2" {
		t.Fatalf("update = %q %v", text, err)
	}
	h, _ := api.GetConversationHistory(&slack.GetConversationHistoryParameters{ChannelID: chID, Limit: 1})
	if h.Messages[0].Text != "v2" || h.Messages[0].Edited == nil {
		t.Errorf("edited = %+v", h.Messages[0])
	}
	all, _ := api.GetConversationHistory(&slack.GetConversationHistoryParameters{ChannelID: chID})
	greeting := all.Messages[len(all.Messages)-1].Timestamp
	_, _, _, err = api.UpdateMessage(chID, greeting, slackText("hijack"))
	slackErr(t, err, "cant_update_message")

	link, err := api.GetPermalink(&slack.PermalinkParameters{Channel: chID, Ts: ts})
	if err != nil || !strings.HasPrefix(link, "https://acme.slack.com/archives/"+chID+"/p") {
		t.Errorf("permalink = %q %v", link, err)
	}
	if _, _, err := api.DeleteMessage(chID, ts); err != nil {
		t.Fatal(err)
	}
	_, _, err = api.DeleteMessage(chID, ts)
	slackErr(t, err, "message_not_found")

	at := time.Now().Add(time.Hour).Unix()
	_, sid, err := api.ScheduleMessage(chID, strconv.FormatInt(at, 10), slackText("later"))
	if err != nil || !strings.HasPrefix(sid, "Q") {
		t.Fatalf("schedule = %q %v", sid, err)
	}
	list, _, err := api.GetScheduledMessages(&slack.GetScheduledMessagesParameters{Channel: chID})
	if err != nil || len(list) != 1 || list[0].ID != sid || list[0].Text != "later" {
		t.Fatalf("scheduled list = %+v %v", list, err)
	}
	_, _, err = api.ScheduleMessage(chID, strconv.FormatInt(time.Now().Add(-time.Hour).Unix(), 10), slackText("past"))
	slackErr(t, err, "time_in_past")
	if ok, err := api.DeleteScheduledMessage(&slack.DeleteScheduledMessageParameters{Channel: chID, ScheduledMessageID: sid}); err != nil || !ok {
		t.Fatalf("delete scheduled = %v %v", ok, err)
	}
	_, err = api.DeleteScheduledMessage(&slack.DeleteScheduledMessageParameters{Channel: chID, ScheduledMessageID: sid})
	slackErr(t, err, "invalid_scheduled_message_id")

	users, _ := api.GetUsers()
	ets, err := api.PostEphemeral(chID, users[1].ID, slackText("psst"))
	if err != nil || ets == "" {
		t.Fatalf("ephemeral = %q %v", ets, err)
	}
}

func TestSDKConversations(t *testing.T) {
	_, api := start(t, "")
	c, err := api.CreateConversation(slack.CreateConversationParams{ChannelName: "incident-7"})
	if err != nil || c.Name != "incident-7" || !strings.HasPrefix(c.ID, "C") {
		t.Fatalf("create = %+v %v", c, err)
	}
	_, err = api.CreateConversation(slack.CreateConversationParams{ChannelName: "incident-7"})
	slackErr(t, err, "name_taken")
	_, err = api.CreateConversation(slack.CreateConversationParams{ChannelName: "Bad Name"})
	slackErr(t, err, "invalid_name")

	info, err := api.GetConversationInfo(&slack.GetConversationInfoInput{ChannelID: c.ID})
	if err != nil || info.Name != "incident-7" || info.Creator == "" {
		t.Fatalf("info = %+v %v", info, err)
	}
	users, _ := api.GetUsers()
	var alice, bob string
	for _, u := range users {
		switch u.Name {
		case "alice":
			alice = u.ID
		case "bob":
			bob = u.ID
		}
	}
	if _, err := api.InviteUsersToConversation(c.ID, alice, bob); err != nil {
		t.Fatal(err)
	}
	members, _, err := api.GetUsersInConversation(&slack.GetUsersInConversationParameters{ChannelID: c.ID, Limit: 2})
	if err != nil || len(members) != 2 {
		t.Fatalf("members = %v %v", members, err)
	}
	if err := api.KickUserFromConversation(c.ID, bob); err != nil {
		t.Fatal(err)
	}
	slackErr(t, api.KickUserFromConversation(c.ID, bob), "not_in_channel")
	if _, err := api.SetTopicOfConversation(c.ID, "db is down"); err != nil {
		t.Fatal(err)
	}
	ch, err := api.SetPurposeOfConversation(c.ID, "war room")
	if err != nil || ch.Purpose.Value != "war room" || ch.Topic.Value != "db is down" {
		t.Fatalf("purpose = %+v %v", ch, err)
	}
	ch, err = api.RenameConversation(c.ID, "incident-7-resolved")
	if err != nil || ch.Name != "incident-7-resolved" {
		t.Fatalf("rename = %+v %v", ch, err)
	}
	if err := api.ArchiveConversation(c.ID); err != nil {
		t.Fatal(err)
	}
	_, _, err = api.PostMessage(c.ID, slackText("x"))
	slackErr(t, err, "is_archived")
	if err := api.UnArchiveConversation(c.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := api.LeaveConversation(c.ID); err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := api.JoinConversation(c.ID); err != nil {
		t.Fatal(err)
	}
	_, err = api.LeaveConversation("general")
	slackErr(t, err, "cant_leave_general")

	dm, _, _, err := api.OpenConversation(&slack.OpenConversationParameters{Users: []string{alice}})
	if err != nil || !strings.HasPrefix(dm.ID, "D") {
		t.Fatalf("open = %+v %v", dm, err)
	}
	all, _, err := api.GetConversations(&slack.GetConversationsParameters{Types: []string{"public_channel", "im"}, ExcludeArchived: true})
	if err != nil || len(all) != 4 {
		t.Errorf("list = %d %v", len(all), err)
	}
}

func TestSDKReactionsPinsBookmarks(t *testing.T) {
	_, api := start(t, "")
	chID, ts, err := api.PostMessage("general", slackText("ship it"))
	if err != nil {
		t.Fatal(err)
	}
	ref := slack.NewRefToMessage(chID, ts)
	if err := api.AddReaction("rocket", ref); err != nil {
		t.Fatal(err)
	}
	item, err := api.GetReactions(ref, slack.GetReactionsParameters{})
	if err != nil || len(item.Reactions) != 1 || item.Reactions[0].Name != "rocket" || item.Reactions[0].Count != 1 {
		t.Fatalf("reactions.get = %+v %v", item, err)
	}
	items, _, err := api.ListReactions(slack.ListReactionsParameters{})
	if err != nil || len(items) != 1 {
		t.Fatalf("reactions.list = %+v %v", items, err)
	}
	if err := api.RemoveReaction("rocket", ref); err != nil {
		t.Fatal(err)
	}
	slackErr(t, api.RemoveReaction("rocket", ref), "no_reaction")

	if err := api.AddPin(chID, ref); err != nil {
		t.Fatal(err)
	}
	pins, _, err := api.ListPins(chID)
	if err != nil || len(pins) != 1 || pins[0].Message == nil || pins[0].Message.Text != "ship it" {
		t.Fatalf("pins.list = %+v %v", pins, err)
	}
	slackErr(t, api.AddPin(chID, ref), "already_pinned")
	if err := api.RemovePin(chID, ref); err != nil {
		t.Fatal(err)
	}

	bm, err := api.AddBookmark(chID, slack.AddBookmarkParameters{Title: "Runbook", Type: "link", Link: "https://wiki.acme.test/rb"})
	if err != nil || bm.Title != "Runbook" {
		t.Fatalf("bookmarks.add = %+v %v", bm, err)
	}
	bms, err := api.ListBookmarks(chID)
	if err != nil || len(bms) != 1 || bms[0].ID != bm.ID {
		t.Fatalf("bookmarks.list = %+v %v", bms, err)
	}
	if err := api.RemoveBookmark(chID, bm.ID); err != nil {
		t.Fatal(err)
	}
}

func TestSDKUsersTeamEmoji(t *testing.T) {
	_, api := start(t, `{"users": [{"name": "pome-agent", "is_admin": true}, {"name": "alice", "email": "alice@acme.test"}],
	  "channels": [{"name": "general"}, {"name": "ops", "type": "private_channel", "members": ["pome-agent"]}],
	  "emoji": {"shipit": "https://example.test/shipit.png"}}`)
	u, err := api.GetUserByEmail("alice@acme.test")
	if err != nil || u.Name != "alice" {
		t.Fatalf("lookupByEmail = %+v %v", u, err)
	}
	_, err = api.GetUserByEmail("nobody@acme.test")
	slackErr(t, err, "users_not_found")
	if err := api.SetUserCustomStatus("deploying", ":rocket:", 0); err != nil {
		t.Fatal(err)
	}
	p, err := api.GetUserProfile(&slack.GetUserProfileParameters{})
	if err != nil || p.StatusText != "deploying" || p.StatusEmoji != ":rocket:" {
		t.Fatalf("profile = %+v %v", p, err)
	}
	chans, _, err := api.GetConversationsForUser(&slack.GetConversationsForUserParameters{Types: []string{"public_channel", "private_channel"}})
	if err != nil || len(chans) != 2 {
		t.Fatalf("users.conversations = %+v %v", chans, err)
	}
	team, err := api.GetTeamInfo()
	if err != nil || team.Name != "Acme" || team.Domain != "acme" {
		t.Fatalf("team.info = %+v %v", team, err)
	}
	emoji, err := api.GetEmoji()
	if err != nil || emoji["shipit"] == "" {
		t.Fatalf("emoji.list = %+v %v", emoji, err)
	}
}

// TestSDKSearch: search.messages with the sandbox's bot token is refused
// as Slack refuses it; the same search over MCP, which acts as the user,
// answers. (Before the token was a bot user, this test searched over REST.)
func TestSDKSearch(t *testing.T) {
	env, api := start(t, "")
	for _, text := range []string{"deploy started", "deploy done https://ci.acme.test/9", "lunch"} {
		if _, _, err := api.PostMessage("random", slackText(text)); err != nil {
			t.Fatal(err)
		}
	}
	_, err := api.SearchMessages("deploy in:#random has:link", slack.NewSearchParameters())
	if err == nil || err.Error() != "not_allowed_token_type" {
		t.Fatalf("search.messages with the bot token: %v", err)
	}
	cs := env.MCP(t)
	out, isErr, text := mcpCall(t, cs, "slack_search_public_and_private", map[string]any{"query": "deploy in:#random has:link"})
	if isErr {
		t.Fatal(text)
	}
	msgs := out["messages"].(map[string]any)
	if msgs["total"] != float64(1) || len(msgs["matches"].([]any)) != 1 {
		t.Errorf("search over MCP = %v", out)
	}
	// The refusal is Slack's: HTTP 200, ok false, and no change.
	found := false
	for _, r := range env.Tape(t) {
		if strings.HasSuffix(r.Path, "/search.messages") {
			found = true
			if r.Status != 200 || r.StateMutation {
				t.Errorf("search.messages row = %+v", r)
			}
		}
	}
	if !found {
		t.Error("search.messages is not on the tape")
	}
}

func TestSDKFiles(t *testing.T) {
	env, api := start(t, "")
	content := "id,total\n1,42\n"
	sum, err := api.UploadFile(slack.UploadFileParameters{Filename: "totals.csv", Content: content, FileSize: len(content), Title: "Totals", Channel: "general", InitialComment: "numbers"})
	if err != nil {
		t.Fatal(err)
	}
	f, _, _, err := api.GetFileInfo(sum.ID, 0, 0)
	if err != nil || f.Title != "Totals" || f.Size != len(content) || f.Name != "totals.csv" {
		t.Fatalf("files.info = %+v %v", f, err)
	}
	files, paging, err := api.GetFiles(slack.GetFilesParameters{Channel: f.Channels[0]})
	if err != nil || len(files) != 1 || paging.Total != 1 {
		t.Fatalf("files.list = %+v %+v %v", files, paging, err)
	}
	h, _ := api.GetConversationHistory(&slack.GetConversationHistoryParameters{ChannelID: "general", Limit: 1})
	if h.Messages[0].Text != "numbers" || len(h.Messages[0].Files) != 1 {
		t.Errorf("share = %+v", h.Messages[0])
	}
	var tools []string
	for _, r := range env.Tape(t) {
		tools = append(tools, r.ToolName())
	}
	if !strings.Contains(strings.Join(tools, ","), "slack_get_upload_url,slack_upload_file_content,slack_complete_upload") {
		t.Errorf("tape = %v", tools)
	}

	// The legacy files.upload as a multipart form.
	var b strings.Builder
	mw := multipart.NewWriter(&b)
	mw.WriteField("channels", "random")
	mw.WriteField("title", "Log")
	fw, _ := mw.CreateFormFile("file", "app.log")
	fw.Write([]byte("boot ok\n"))
	mw.Close()
	st, body := env.Do(t, "POST", "/api/files.upload", mw.FormDataContentType(), []byte(b.String()))
	var out struct {
		OK   bool `json:"ok"`
		File struct {
			Name    string `json:"name"`
			Content string `json:"content"`
		} `json:"file"`
	}
	json.Unmarshal(body, &out)
	if st != 200 || !out.OK || out.File.Name != "app.log" || out.File.Content != "boot ok\n" {
		t.Errorf("files.upload = %d %s", st, body)
	}
}

// Every Slack error the issue lists, as slack-go sees it (HTTP 200 ok:false).
func TestSDKErrors(t *testing.T) {
	_, api := start(t, `{"users": [{"name": "pome-agent"}, {"name": "alice"}],
	  "channels": [{"name": "general", "messages": [{"user": "alice", "text": "hi", "ts": "1700000000.000100"}]},
	               {"name": "outside", "members": ["alice"]}, {"name": "old", "is_archived": true}]}`)
	_, _, err := api.PostMessage("outside", slackText("x"))
	slackErr(t, err, "not_in_channel")
	_, _, err = api.PostMessage("old", slackText("x"))
	slackErr(t, err, "is_archived")
	_, _, err = api.PostMessage("general", slackText(strings.Repeat("a", 40001)))
	slackErr(t, err, "msg_too_long")
	_, _, err = api.PostMessage("general", slackText(""))
	slackErr(t, err, "no_text")
	_, _, err = api.PostMessage("C0NOPE", slackText("x"))
	slackErr(t, err, "channel_not_found")
	ref := slack.NewRefToMessage("general", "1700000000.000100")
	slackErr(t, api.RemoveReaction("wave", ref), "no_reaction")
	slackErr(t, api.AddReaction("wave", slack.NewRefToMessage("general", "1.000000")), "message_not_found")
	_, _, _, err = api.UpdateMessage("general", "1700000000.000100", slackText("x"))
	slackErr(t, err, "cant_update_message")
	_, err = api.GetUserInfo("U0NOPE")
	slackErr(t, err, "user_not_found")
	_, err = api.CreateConversation(slack.CreateConversationParams{ChannelName: "general"})
	slackErr(t, err, "name_taken")
	_, err = api.CreateConversation(slack.CreateConversationParams{ChannelName: "No Spaces"})
	slackErr(t, err, "invalid_name")
	_, err = api.GetConversationHistory(&slack.GetConversationHistoryParameters{ChannelID: "general", Cursor: "bad"})
	slackErr(t, err, "invalid_cursor")
}
