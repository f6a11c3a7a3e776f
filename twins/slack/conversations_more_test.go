package slack

import (
	"strings"
	"testing"
)

func TestChannelInfoAndCreate(t *testing.T) {
	w := world(t, busySeed)
	info := mustCall(t, w, "slack_get_channel_info", `{"channel_id": "eng"}`).Out.(ChannelOut)
	if info.Channel.Name != "eng" || !info.Channel.IsMember || info.Channel.NumMembers != 3 {
		t.Errorf("info = %+v", info)
	}
	// A public channel the user is not in is visible; a private one is not.
	mustCall(t, w, "slack_get_channel_info", `{"channel_id": "outside"}`)
	wantErr(t, call(t, w, "slack_get_channel_info", `{"channel_id": "hidden"}`), "channel_not_found")

	r := mustCall(t, w, "slack_create_conversation", `{"channel_name": "incident-42"}`)
	c := r.Out.(ChannelOut).Channel
	if !r.Mutated || !strings.HasPrefix(c.ID, "C") || c.Name != "incident-42" || !c.IsMember || c.Creator != w.AuthUser {
		t.Errorf("create = %+v", c)
	}
	p := mustCall(t, w, "slack_create_conversation", `{"channel_name": "#secret-room", "is_private": true}`).Out.(ChannelOut).Channel
	if !strings.HasPrefix(p.ID, "G") || !p.IsPrivate || p.Name != "secret-room" {
		t.Errorf("private = %+v", p)
	}
	for _, c := range []struct{ args, err string }{
		{`{"channel_name": "eng"}`, "name_taken"},
		{`{"channel_name": "hidden"}`, "name_taken"},
		{`{"channel_name": "Has Spaces"}`, "invalid_name"},
		{`{"channel_name": "UPPER"}`, "invalid_name"},
		{`{"channel_name": "---"}`, "invalid_name_punctuation"},
		{`{"channel_name": ""}`, "invalid_name_required"},
		{`{"channel_name": "` + strings.Repeat("a", 81) + `"}`, "invalid_name_maxlength"},
	} {
		wantErr(t, call(t, w, "slack_create_conversation", c.args), c.err)
	}
}

func TestJoinLeaveInviteKick(t *testing.T) {
	w := world(t, busySeed)
	out := ch(t, w, "outside")
	r := mustCall(t, w, "slack_join_channel", `{"channel_id": "outside"}`)
	if !r.Mutated || !out.isMember(w.AuthUser) || out.Messages[len(out.Messages)-1].Subtype != "channel_join" {
		t.Errorf("join: %+v", out)
	}
	again := mustCall(t, w, "slack_join_channel", `{"channel_id": "outside"}`)
	if again.Mutated || again.Out.(JoinOut).Warning != "already_in_channel" {
		t.Errorf("second join = %+v", again)
	}
	wantErr(t, call(t, w, "slack_join_channel", `{"channel_id": "hidden"}`), "channel_not_found")
	wantErr(t, call(t, w, "slack_join_channel", `{"channel_id": "ops"}`), "method_not_supported_for_channel_type")
	wantErr(t, call(t, w, "slack_join_channel", `{"channel_id": "old"}`), "is_archived")

	mustCall(t, w, "slack_leave_channel", `{"channel_id": "outside"}`)
	if out.isMember(w.AuthUser) {
		t.Error("still a member after leaving")
	}
	if l := mustCall(t, w, "slack_leave_channel", `{"channel_id": "outside"}`); l.Mutated || !l.Out.(LeaveOut).NotInChannel {
		t.Errorf("second leave = %+v", l)
	}

	bob := w.user("bob").ID
	ops := ch(t, w, "ops")
	mustCall(t, w, "slack_invite_to_channel", `{"channel_id": "ops", "users": "`+bob+`"}`)
	if !ops.isMember(bob) {
		t.Error("invite did not add bob")
	}
	for _, c := range []struct{ args, err string }{
		{`{"channel_id": "ops", "users": "` + bob + `"}`, "already_in_channel"},
		{`{"channel_id": "ops", "users": "U0NOPE"}`, "user_not_found"},
		{`{"channel_id": "ops", "users": "` + w.AuthUser + `"}`, "cant_invite_self"},
		{`{"channel_id": "outside", "users": "` + bob + `"}`, "not_in_channel"},
		{`{"channel_id": "ops", "users": ""}`, "no_user"},
	} {
		wantErr(t, call(t, w, "slack_invite_to_channel", c.args), c.err)
	}

	mustCall(t, w, "slack_kick_from_channel", `{"channel_id": "ops", "user_id": "`+bob+`"}`)
	if ops.isMember(bob) {
		t.Error("kick left bob in")
	}
	for _, c := range []struct{ args, err string }{
		{`{"channel_id": "ops", "user_id": "` + bob + `"}`, "not_in_channel"},
		{`{"channel_id": "ops", "user_id": "` + w.AuthUser + `"}`, "cant_kick_self"},
		{`{"channel_id": "ops", "user_id": "U0NOPE"}`, "user_not_found"},
	} {
		wantErr(t, call(t, w, "slack_kick_from_channel", c.args), c.err)
	}
}

func TestGeneralIsProtected(t *testing.T) {
	w := world(t, "")
	bob := w.user("bob").ID
	wantErr(t, call(t, w, "slack_leave_channel", `{"channel_id": "general"}`), "cant_leave_general")
	wantErr(t, call(t, w, "slack_archive_channel", `{"channel_id": "general"}`), "cant_archive_general")
	wantErr(t, call(t, w, "slack_kick_from_channel", `{"channel_id": "general", "user_id": "`+bob+`"}`), "cant_kick_from_general")
}

func TestArchive(t *testing.T) {
	w := world(t, "")
	rnd := ch(t, w, "random")
	mustCall(t, w, "slack_archive_channel", `{"channel_id": "random"}`)
	if !rnd.IsArchived {
		t.Fatal("not archived")
	}
	wantErr(t, call(t, w, "slack_archive_channel", `{"channel_id": "random"}`), "already_archived")
	wantErr(t, call(t, w, "slack_send_message", `{"channel_id": "random", "message": "x"}`), "is_archived")
	// History stays readable.
	mustCall(t, w, "slack_read_channel", `{"channel_id": "random"}`)
	mustCall(t, w, "slack_unarchive_channel", `{"channel_id": "random"}`)
	wantErr(t, call(t, w, "slack_unarchive_channel", `{"channel_id": "random"}`), "not_archived")
	mustCall(t, w, "slack_send_message", `{"channel_id": "random", "message": "back"}`)
}

func TestMembersAndOpen(t *testing.T) {
	w := world(t, busySeed)
	p1 := mustCall(t, w, "slack_list_channel_members", `{"channel_id": "eng", "limit": 2}`).Out.(MembersOut)
	p2 := mustCall(t, w, "slack_list_channel_members", `{"channel_id": "eng", "limit": 2, "cursor": "`+p1.ResponseMetadata.NextCursor+`"}`).Out.(MembersOut)
	if len(p1.Members) != 2 || len(p2.Members) != 1 || p2.ResponseMetadata.NextCursor != "" {
		t.Errorf("members = %v %v", p1, p2)
	}
	wantErr(t, call(t, w, "slack_list_channel_members", `{"channel_id": "hidden"}`), "channel_not_found")

	alice, bob := w.user("alice").ID, w.user("bob").ID
	// bob already has a DM with the token's user in busySeed.
	r := mustCall(t, w, "slack_open_conversation", `{"users": "`+bob+`"}`)
	if r.Mutated || !r.Out.(OpenOut).AlreadyOpen || !strings.HasPrefix(r.Out.(OpenOut).Channel.ID, "D") {
		t.Errorf("existing dm = %+v", r)
	}
	r = mustCall(t, w, "slack_open_conversation", `{"users": "`+alice+`"}`)
	if !r.Mutated || r.Out.(OpenOut).AlreadyOpen || r.Out.(OpenOut).Channel.User != alice {
		t.Errorf("new dm = %+v", r)
	}
	g := mustCall(t, w, "slack_open_conversation", `{"users": "`+alice+`,`+bob+`"}`).Out.(OpenOut)
	if !g.Channel.IsMpIM || !strings.HasPrefix(g.Channel.ID, "G") {
		t.Errorf("group dm = %+v", g)
	}
	if again := mustCall(t, w, "slack_open_conversation", `{"users": "`+bob+`,`+alice+`"}`); again.Mutated {
		t.Error("reopening the group DM is a mutation")
	}
	wantErr(t, call(t, w, "slack_open_conversation", `{}`), "users_list_not_supplied")
	wantErr(t, call(t, w, "slack_open_conversation", `{"users": "U0NOPE"}`), "user_not_found")
}

func TestTopicPurposeRename(t *testing.T) {
	w := world(t, "")
	gen := ch(t, w, "general")
	out := mustCall(t, w, "slack_set_channel_topic", `{"channel_id": "general", "topic": "Incident in progress"}`).Out.(ChannelOut)
	if out.Channel.Topic.Value != "Incident in progress" || gen.Topic.Creator != w.AuthUser {
		t.Errorf("topic = %+v", out.Channel.Topic)
	}
	if last := gen.Messages[len(gen.Messages)-1]; last.Subtype != "channel_topic" {
		t.Errorf("no topic notice: %+v", last)
	}
	if r := mustCall(t, w, "slack_set_channel_topic", `{"channel_id": "general", "topic": "Incident in progress"}`); r.Mutated {
		t.Error("same topic is a mutation")
	}
	wantErr(t, call(t, w, "slack_set_channel_topic", `{"channel_id": "general", "topic": "`+strings.Repeat("x", 251)+`"}`), "too_long")
	mustCall(t, w, "slack_set_channel_purpose", `{"channel_id": "random", "purpose": "fun"}`)
	if ch(t, w, "random").Purpose.Value != "fun" {
		t.Error("purpose not set")
	}
	wantErr(t, call(t, w, "slack_set_channel_purpose", `{"channel_id": "nope", "purpose": "x"}`), "channel_not_found")

	rn := mustCall(t, w, "slack_rename_channel", `{"channel_id": "`+ch(t, w, "random").ID+`", "name": "water-cooler"}`).Out.(ChannelOut)
	if rn.Channel.Name != "water-cooler" || rn.Channel.PreviousNames[0] != "random" {
		t.Errorf("rename = %+v", rn.Channel)
	}
	wantErr(t, call(t, w, "slack_rename_channel", `{"channel_id": "water-cooler", "name": "general"}`), "name_taken")
	wantErr(t, call(t, w, "slack_rename_channel", `{"channel_id": "water-cooler", "name": "Bad Name"}`), "invalid_name")
	// The system notices never count as posted messages.
	seed := world(t, "")
	if r := eval(t, "slack.no-new-messages-anywhere", seed, w, nil); !r.Passed {
		t.Errorf("system notices counted: %+v", r)
	}
}
