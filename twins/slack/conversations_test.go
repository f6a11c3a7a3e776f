package slack

import (
	"fmt"
	"strings"
	"testing"
)

// busySeed has #eng with five messages (one a thread of two replies).
const busySeed = `{"users": [{"name": "pome-agent"}, {"name": "alice"}, {"name": "bob"}],
  "channels": [
    {"name": "eng", "messages": [
      {"user": "alice", "text": "m1", "ts": "1700000001.000000"},
      {"user": "bob", "text": "m2", "ts": "1700000002.000000", "replies": [
        {"user": "alice", "text": "r1", "ts": "1700000002.500000"},
        {"user": "bob", "text": "r2", "ts": "1700000003.500000"}]},
      {"user": "alice", "text": "m3", "ts": "1700000003.000000", "pinned": true},
      {"user": "bob", "text": "m4", "ts": "1700000004.000000"},
      {"user": "alice", "text": "m5", "ts": "1700000005.000000"}
    ]},
    {"name": "ops", "type": "private_channel", "members": ["pome-agent", "alice"]},
    {"name": "hidden", "type": "private_channel", "members": ["alice"]},
    {"name": "outside", "members": ["alice"], "messages": [{"user": "alice", "text": "x"}]},
    {"name": "old", "is_archived": true},
    {"type": "im", "members": ["pome-agent", "bob"]}
  ]}`

func texts(ms []Message) string {
	var out []string
	for _, m := range ms {
		out = append(out, m.Text)
	}
	return strings.Join(out, ",")
}

func TestReadChannel(t *testing.T) {
	w := world(t, busySeed)
	r := mustCall(t, w, "slack_read_channel", `{"channel_id": "eng"}`)
	if r.Mutated {
		t.Error("read is a mutation")
	}
	out := r.Out.(ReadChannelOut)
	if texts(out.Messages) != "m5,m4,m3,m2,m1" || out.HasMore || out.ResponseMetadata.NextCursor != "" || out.PinCount != 1 {
		t.Fatalf("history = %s %+v", texts(out.Messages), out)
	}
	if out.Messages[3].ReplyCount != 2 || out.Messages[3].LatestReply != "1700000003.500000" {
		t.Errorf("thread parent = %+v", out.Messages[3])
	}

	// Cursor pagination, two at a time.
	var got []string
	cursor := ""
	for i := 0; i < 5; i++ {
		args := `{"channel_id": "eng", "limit": 2`
		if cursor != "" {
			args += `, "cursor": "` + cursor + `"`
		}
		p := mustCall(t, w, "slack_read_channel", args+"}").Out.(ReadChannelOut)
		got = append(got, texts(p.Messages))
		if p.HasMore != (p.ResponseMetadata.NextCursor != "") {
			t.Errorf("has_more %v with cursor %q", p.HasMore, p.ResponseMetadata.NextCursor)
		}
		cursor = p.ResponseMetadata.NextCursor
		if cursor == "" {
			break
		}
	}
	if strings.Join(got, "|") != "m5,m4|m3,m2|m1" {
		t.Errorf("pages = %v", got)
	}

	for _, c := range []struct{ args, want string }{
		{`"oldest": "1700000002.000000", "latest": "1700000004.000000"`, "m3"},
		{`"oldest": "1700000002.000000", "latest": "1700000004.000000", "inclusive": true`, "m4,m3,m2"},
		{`"oldest": "1700000004"`, "m5"},
		{`"latest": "1700000002"`, "m1"},
	} {
		out := mustCall(t, w, "slack_read_channel", `{"channel_id": "eng", `+c.args+`}`).Out.(ReadChannelOut)
		if texts(out.Messages) != c.want {
			t.Errorf("%s: got %s want %s", c.args, texts(out.Messages), c.want)
		}
	}
}

func TestReadChannelErrors(t *testing.T) {
	w := world(t, busySeed)
	for _, c := range []struct{ args, err string }{
		{`{"channel_id": "C0NOPE"}`, "channel_not_found"},
		{`{"channel_id": "hidden"}`, "channel_not_found"},
		{`{"channel_id": "outside"}`, "not_in_channel"},
		{`{"channel_id": "eng", "cursor": "garbage!"}`, "invalid_cursor"},
		{`{"channel_id": "eng", "cursor": "dXNlcjpVMDYxTkZUVDI="}`, "invalid_cursor"},
		{`{"channel_id": "eng", "oldest": "yesterday"}`, "invalid_ts_oldest"},
		{`{"channel_id": "eng", "latest": "soon"}`, "invalid_ts_latest"},
	} {
		wantErr(t, call(t, w, "slack_read_channel", c.args), c.err)
	}
}

func TestReadThread(t *testing.T) {
	w := world(t, busySeed)
	out := mustCall(t, w, "slack_read_thread", `{"channel_id": "eng", "message_ts": "1700000002.000000"}`).Out.(ReadThreadOut)
	if texts(out.Messages) != "m2,r1,r2" || out.HasMore {
		t.Fatalf("thread = %s", texts(out.Messages))
	}
	if out.Messages[1].ThreadTS != "1700000002.000000" || out.Messages[1].ParentUserID == "" {
		t.Errorf("reply = %+v", out.Messages[1])
	}
	// From a reply's ts, and paginated.
	p1 := mustCall(t, w, "slack_read_thread", `{"channel_id": "eng", "message_ts": "1700000003.500000", "limit": 2}`).Out.(ReadThreadOut)
	if texts(p1.Messages) != "m2,r1" || !p1.HasMore {
		t.Fatalf("page 1 = %s", texts(p1.Messages))
	}
	p2 := mustCall(t, w, "slack_read_thread", fmt.Sprintf(`{"channel_id": "eng", "message_ts": "1700000002.000000", "limit": 2, "cursor": %q}`, p1.ResponseMetadata.NextCursor)).Out.(ReadThreadOut)
	if texts(p2.Messages) != "r2" || p2.HasMore {
		t.Errorf("page 2 = %s", texts(p2.Messages))
	}
	// A message without replies is its own thread.
	one := mustCall(t, w, "slack_read_thread", `{"channel_id": "eng", "message_ts": "1700000001.000000"}`).Out.(ReadThreadOut)
	if texts(one.Messages) != "m1" {
		t.Errorf("lone = %s", texts(one.Messages))
	}
	wantErr(t, call(t, w, "slack_read_thread", `{"channel_id": "eng", "message_ts": "1600000000.000000"}`), "thread_not_found")
	wantErr(t, call(t, w, "slack_read_thread", `{"channel_id": "nope", "message_ts": "1700000001.000000"}`), "channel_not_found")
}

func TestListChannels(t *testing.T) {
	w := world(t, busySeed)
	names := func(out ListChannelsOut) string {
		var s []string
		for _, c := range out.Channels {
			n := c.Name
			if c.IsIM {
				n = "im:" + c.User
			}
			s = append(s, n)
		}
		return strings.Join(s, ",")
	}
	out := mustCall(t, w, "slack_list_channels", `{}`).Out.(ListChannelsOut)
	if names(out) != "eng,outside,old" {
		t.Errorf("public = %s", names(out))
	}
	eng := out.Channels[0]
	if !eng.IsChannel || eng.IsPrivate || !eng.IsMember || eng.NumMembers != 3 || eng.Topic == nil || eng.ContextTeamID != w.Team.ID {
		t.Errorf("eng = %+v", eng)
	}
	if out.Channels[1].IsMember {
		t.Error("outside reads as joined")
	}
	out = mustCall(t, w, "slack_list_channels", `{"types": "public_channel,private_channel,im", "exclude_archived": true}`).Out.(ListChannelsOut)
	if names(out) != "eng,ops,outside,im:"+w.user("bob").ID {
		t.Errorf("all = %s", names(out))
	}
	// Pagination.
	p1 := mustCall(t, w, "slack_list_channels", `{"limit": 2}`).Out.(ListChannelsOut)
	p2 := mustCall(t, w, "slack_list_channels", `{"limit": 2, "cursor": "`+p1.ResponseMetadata.NextCursor+`"}`).Out.(ListChannelsOut)
	if names(p1) != "eng,outside" || names(p2) != "old" || p2.ResponseMetadata.NextCursor != "" {
		t.Errorf("pages = %s | %s", names(p1), names(p2))
	}
	wantErr(t, call(t, w, "slack_list_channels", `{"types": "channels"}`), "invalid_types")
	wantErr(t, call(t, w, "slack_list_channels", `{"cursor": "bm9wZQ=="}`), "invalid_cursor")
}
