package slack

import (
	"encoding/json"
	"testing"

	"github.com/pomehq/pome/twins"
	"github.com/pomehq/pome/twins/twinstest"
)

func blockIDs(t *testing.T, raw json.RawMessage) []string {
	t.Helper()
	var list []map[string]any
	if err := json.Unmarshal(raw, &list); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, b := range list {
		id, _ := b["block_id"].(string)
		out = append(out, id)
	}
	return out
}

func TestBlockIDs(t *testing.T) {
	post := `{"channel_id": "general", "blocks": [
	  {"type": "section", "text": {"type": "mrkdwn", "text": "*4.2* is out"}},
	  {"type": "section", "text": {"type": "mrkdwn", "text": "*4.2* is out"}},
	  {"type": "context", "block_id": "footer", "elements": [{"type": "mrkdwn", "text": "release bot"}]}]}`
	var first []string
	for run := 0; run < 2; run++ {
		w := world(t, "")
		out := mustCall(t, w, "slack_send_message", post).Out.(SendMessageOut)
		ids := blockIDs(t, out.Message.Blocks)
		if len(ids) != 3 || len(ids[0]) != 4 || len(ids[1]) != 4 || ids[0] == ids[1] || ids[2] != "footer" {
			t.Fatalf("block ids = %v", ids)
		}
		// Stored as answered, and the same in every sandbox.
		gen := ch(t, w, "general")
		if got := blockIDs(t, gen.Messages[len(gen.Messages)-1].Blocks); got[0] != ids[0] {
			t.Errorf("stored %v, answered %v", got, ids)
		}
		if run == 0 {
			first = ids
		} else if ids[0] != first[0] || ids[1] != first[1] {
			t.Errorf("ids differ between sandboxes: %v %v", first, ids)
		}
		// chat.update stores its blocks the same way.
		ts := out.TS
		mustCall(t, w, "slack_update_message", `{"channel_id": "general", "ts": "`+ts+`", "blocks": [{"type": "divider"}]}`)
		if got := blockIDs(t, gen.message(ts).Blocks); len(got) != 1 || len(got[0]) != 4 {
			t.Errorf("updated block ids = %v", got)
		}
	}
	w := world(t, "")
	wantErr(t, call(t, w, "slack_send_message", `{"channel_id": "general", "blocks": [{"type": "divider", "block_id": "a"}, {"type": "divider", "block_id": "a"}]}`), "invalid_blocks")
}

func TestSeedBlockIDs(t *testing.T) {
	w := world(t, `{"channels": [{"name": "x", "messages": [{"user": "pome-agent", "text": "t", "blocks": [{"type": "divider"}, {"type": "divider", "block_id": "keep"}]}]}]}`)
	if ids := blockIDs(t, ch(t, w, "x").Messages[0].Blocks); len(ids[0]) != 4 || ids[1] != "keep" {
		t.Errorf("seeded block ids = %v", ids)
	}
	_, err := tw.NewWorld(twins.WithEnv(t.Context(), twinstest.Env("slack")), json.RawMessage(`{"channels": [{"name": "x", "messages": [{"user": "pome-agent", "text": "t", "blocks": [{"type": "divider", "block_id": "a"}, {"type": "divider", "block_id": "a"}]}]}]}`))
	if se, ok := err.(*twins.SeedError); !ok || se.Path != "/channels/0/messages/0/blocks" {
		t.Errorf("duplicate seeded block_id: %v", err)
	}
}
