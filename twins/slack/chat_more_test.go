package slack

import (
	"strconv"
	"strings"
	"testing"
)

func TestUpdateAndDelete(t *testing.T) {
	w := world(t, "")
	gen := ch(t, w, "general")
	greeting := gen.Messages[0].TS
	sent := mustCall(t, w, "slack_send_message", `{"channel_id": "general", "message": "v1", "blocks": [{"type": "divider"}]}`).Out.(SendMessageOut)

	up := mustCall(t, w, "slack_update_message", `{"channel_id": "`+gen.ID+`", "ts": "`+sent.TS+`", "message": "v2"}`)
	out := up.Out.(UpdateMessageOut)
	if !up.Mutated || out.Text != "v2" || out.Message.Edited == nil || out.Message.Edited.User != w.AuthUser || len(out.Message.Blocks) == 0 {
		t.Errorf("update = %+v", out)
	}
	for _, c := range []struct{ args, err string }{
		{`{"channel_id": "general", "ts": "` + greeting + `", "message": "hijack"}`, "cant_update_message"},
		{`{"channel_id": "general", "ts": "1.000001", "message": "x"}`, "message_not_found"},
		{`{"channel_id": "nope", "ts": "` + sent.TS + `", "message": "x"}`, "channel_not_found"},
		{`{"channel_id": "general", "ts": "` + sent.TS + `", "message": "", "blocks": "[]"}`, "no_text"},
	} {
		wantErr(t, call(t, w, "slack_update_message", c.args), c.err)
	}

	wantErr(t, call(t, w, "slack_delete_message", `{"channel_id": "general", "ts": "`+greeting+`"}`), "cant_delete_message")
	del := mustCall(t, w, "slack_delete_message", `{"channel_id": "general", "ts": "`+sent.TS+`"}`)
	if !del.Mutated || gen.message(sent.TS) != nil {
		t.Errorf("delete left %+v", gen.message(sent.TS))
	}
	wantErr(t, call(t, w, "slack_delete_message", `{"channel_id": "general", "ts": "`+sent.TS+`"}`), "message_not_found")

	// A parent with replies becomes a tombstone; deleting the last reply
	// removes it.
	p := mustCall(t, w, "slack_send_message", `{"channel_id": "general", "message": "parent"}`).Out.(SendMessageOut)
	r := mustCall(t, w, "slack_send_message", `{"channel_id": "general", "message": "reply", "thread_ts": "`+p.TS+`"}`).Out.(SendMessageOut)
	mustCall(t, w, "slack_delete_message", `{"channel_id": "general", "ts": "`+p.TS+`"}`)
	if m := gen.message(p.TS); m == nil || m.Subtype != "tombstone" || m.ReplyCount != 1 {
		t.Fatalf("tombstone = %+v", m)
	}
	mustCall(t, w, "slack_delete_message", `{"channel_id": "general", "ts": "`+r.TS+`"}`)
	if gen.message(p.TS) != nil {
		t.Error("empty tombstone kept")
	}
}

func TestPermalink(t *testing.T) {
	w := world(t, "")
	gen := ch(t, w, "general")
	ts := gen.Messages[0].TS
	out := mustCall(t, w, "slack_get_permalink", `{"channel_id": "general", "message_ts": "`+ts+`"}`).Out.(PermalinkOut)
	want := "https://acme.slack.com/archives/" + gen.ID + "/p" + strings.ReplaceAll(ts, ".", "")
	if out.Permalink != want || out.Channel != gen.ID {
		t.Errorf("permalink = %s, want %s", out.Permalink, want)
	}
	wantErr(t, call(t, w, "slack_get_permalink", `{"channel_id": "general", "message_ts": "1.000000"}`), "message_not_found")
	wantErr(t, call(t, w, "slack_get_permalink", `{"channel_id": "nope", "message_ts": "`+ts+`"}`), "channel_not_found")
}

func TestScheduledMessages(t *testing.T) {
	w := world(t, "")
	now := int64(1796223600) // the test clock
	at := strconv.FormatInt(now+3600, 10)
	out := mustCall(t, w, "slack_schedule_message", `{"channel_id": "general", "message": "standup", "post_at": `+at+`}`).Out.(ScheduleMessageOut)
	if !strings.HasPrefix(out.ScheduledMessageID, "Q") || out.PostAt != now+3600 || out.Message.Text != "standup" {
		t.Errorf("schedule = %+v", out)
	}
	if len(ch(t, w, "general").Messages) != 1 {
		t.Error("scheduling posted the message")
	}
	mustCall(t, w, "slack_schedule_message", `{"channel_id": "random", "message": "later", "post_at": `+strconv.FormatInt(now+60, 10)+`}`)
	list := mustCall(t, w, "slack_list_scheduled_messages", `{}`).Out.(ListScheduledOut)
	if len(list.ScheduledMessages) != 2 || list.ScheduledMessages[0].Text != "later" {
		t.Errorf("list = %+v", list)
	}
	one := mustCall(t, w, "slack_list_scheduled_messages", `{"channel_id": "general"}`).Out.(ListScheduledOut)
	if len(one.ScheduledMessages) != 1 {
		t.Errorf("general list = %+v", one)
	}
	for _, c := range []struct{ args, err string }{
		{`{"channel_id": "general", "message": "x", "post_at": ` + strconv.FormatInt(now-1, 10) + `}`, "time_in_past"},
		{`{"channel_id": "general", "message": "x", "post_at": ` + strconv.FormatInt(now+121*86400, 10) + `}`, "time_too_far"},
		{`{"channel_id": "general", "post_at": ` + at + `}`, "no_text"},
		{`{"channel_id": "nope", "message": "x", "post_at": ` + at + `}`, "channel_not_found"},
		{`{"channel_id": "general", "message": "x", "post_at": ` + at + `, "thread_ts": "1.000000"}`, "thread_not_found"},
	} {
		wantErr(t, call(t, w, "slack_schedule_message", c.args), c.err)
	}
	wantErr(t, call(t, w, "slack_delete_scheduled_message", `{"channel_id": "random", "scheduled_message_id": "`+out.ScheduledMessageID+`"}`), "invalid_scheduled_message_id")
	mustCall(t, w, "slack_delete_scheduled_message", `{"channel_id": "general", "scheduled_message_id": "`+out.ScheduledMessageID+`"}`)
	if len(w.Scheduled) != 1 {
		t.Errorf("scheduled = %+v", w.Scheduled)
	}
}

func TestEphemeral(t *testing.T) {
	w := world(t, `{"users": [{"name": "pome-agent"}, {"name": "alice"}, {"name": "bob"}], "channels": [{"name": "general", "members": ["pome-agent", "alice"]}]}`)
	out := mustCall(t, w, "slack_send_ephemeral", `{"channel_id": "general", "user_id": "`+w.user("alice").ID+`", "message": "only you"}`).Out.(SendEphemeralOut)
	if out.MessageTS == "" || len(ch(t, w, "general").Messages) != 0 || len(w.Ephemeral) != 1 {
		t.Errorf("ephemeral = %+v, stored %d", out, len(w.Ephemeral))
	}
	wantErr(t, call(t, w, "slack_send_ephemeral", `{"channel_id": "general", "user_id": "`+w.user("bob").ID+`", "message": "x"}`), "user_not_in_channel")
	wantErr(t, call(t, w, "slack_send_ephemeral", `{"channel_id": "general", "user_id": "U0NOPE", "message": "x"}`), "user_not_found")
	wantErr(t, call(t, w, "slack_send_ephemeral", `{"channel_id": "general", "user_id": "`+w.user("alice").ID+`"}`), "no_text")
}
