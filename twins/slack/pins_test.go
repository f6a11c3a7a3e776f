package slack

import "testing"

func TestReactionsGroup(t *testing.T) {
	w := world(t, busySeed)
	eng := ch(t, w, "eng")
	ts := "1700000001.000000"
	args := `{"channel_id": "eng", "message_ts": "` + ts + `", "emoji": "eyes"}`
	mustCall(t, w, "slack_add_reaction", args)
	g := mustCall(t, w, "slack_get_reactions", `{"channel_id": "eng", "message_ts": "`+ts+`"}`).Out.(GetReactionsOut)
	if g.Type != "message" || g.Channel != eng.ID || len(g.Message.Reactions) != 1 || g.Message.Reactions[0].Name != "eyes" {
		t.Errorf("get = %+v", g)
	}
	l := mustCall(t, w, "slack_list_reactions", `{}`).Out.(ListReactionsOut)
	if len(l.Items) != 1 || l.Items[0].Message.TS != ts {
		t.Errorf("list = %+v", l)
	}
	if bob := mustCall(t, w, "slack_list_reactions", `{"user_id": "`+w.user("bob").ID+`"}`).Out.(ListReactionsOut); len(bob.Items) != 0 {
		t.Errorf("bob = %+v", bob)
	}
	wantErr(t, call(t, w, "slack_list_reactions", `{"user_id": "U0NOPE"}`), "user_not_found")
	mustCall(t, w, "slack_remove_reaction", args)
	if len(eng.message(ts).Reactions) != 0 {
		t.Error("reaction not removed")
	}
	wantErr(t, call(t, w, "slack_remove_reaction", args), "no_reaction")
	wantErr(t, call(t, w, "slack_get_reactions", `{"channel_id": "eng", "message_ts": "1.000000"}`), "message_not_found")
}

func TestPins(t *testing.T) {
	w := world(t, busySeed)
	eng := ch(t, w, "eng")
	l := mustCall(t, w, "slack_list_pins", `{"channel_id": "eng"}`).Out.(ListPinsOut)
	if len(l.Items) != 1 || l.Items[0].Message.Text != "m3" {
		t.Fatalf("seeded pins = %+v", l)
	}
	mustCall(t, w, "slack_pin_message", `{"channel_id": "eng", "timestamp": "1700000005.000000"}`)
	if m := eng.message("1700000005.000000"); len(m.PinnedTo) != 1 {
		t.Errorf("pinned_to = %v", m.PinnedTo)
	}
	wantErr(t, call(t, w, "slack_pin_message", `{"channel_id": "eng", "timestamp": "1700000005.000000"}`), "already_pinned")
	wantErr(t, call(t, w, "slack_pin_message", `{"channel_id": "eng", "timestamp": "1.000000"}`), "message_not_found")
	l = mustCall(t, w, "slack_list_pins", `{"channel_id": "eng"}`).Out.(ListPinsOut)
	if len(l.Items) != 2 || l.Items[0].Message.Text != "m5" || l.Items[0].CreatedBy != w.AuthUser {
		t.Errorf("pins = %+v", l)
	}
	mustCall(t, w, "slack_unpin_message", `{"channel_id": "eng", "timestamp": "1700000005.000000"}`)
	wantErr(t, call(t, w, "slack_unpin_message", `{"channel_id": "eng", "timestamp": "1700000005.000000"}`), "no_pin")
	wantErr(t, call(t, w, "slack_list_pins", `{"channel_id": "hidden"}`), "channel_not_found")
}

func TestBookmarks(t *testing.T) {
	w := world(t, "")
	gen := ch(t, w, "general")
	b := mustCall(t, w, "slack_add_bookmark", `{"channel_id": "`+gen.ID+`", "title": "Runbook", "type": "link", "link": "https://wiki.acme.test/runbook"}`).Out.(BookmarkOut)
	if b.Bookmark.Title != "Runbook" || b.Bookmark.ChannelID != gen.ID || b.Bookmark.ID == "" {
		t.Errorf("add = %+v", b)
	}
	for _, c := range []struct{ args, err string }{
		{`{"channel_id": "general", "title": "x", "link": "not a url"}`, "invalid_link"},
		{`{"channel_id": "general", "title": "x", "type": "folder", "link": "https://x.test"}`, "invalid_bookmark_type"},
		{`{"channel_id": "nope", "title": "x", "link": "https://x.test"}`, "channel_not_found"},
	} {
		wantErr(t, call(t, w, "slack_add_bookmark", c.args), c.err)
	}
	l := mustCall(t, w, "slack_list_bookmarks", `{"channel_id": "general"}`).Out.(ListBookmarksOut)
	if len(l.Bookmarks) != 1 {
		t.Errorf("list = %+v", l)
	}
	mustCall(t, w, "slack_remove_bookmark", `{"channel_id": "general", "bookmark_id": "`+b.Bookmark.ID+`"}`)
	wantErr(t, call(t, w, "slack_remove_bookmark", `{"channel_id": "general", "bookmark_id": "`+b.Bookmark.ID+`"}`), "not_found")
}
