package slack

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/pomehq/pome/twins"
	"github.com/pomehq/pome/twins/twinstest"
)

// BenchmarkCollectMessages times a full collection of a heap holding a
// world of 300,000 messages posted through chat.postMessage's action, each
// text decoded from its own request as a call's is: what a collection
// marks for the worlds a rate run's posts grew.
func BenchmarkCollectMessages(b *testing.B) {
	w := postedWorld(b, 300_000)
	if m := w.Channels[0].Messages; len(m) > 0 {
		b.Logf("last message: bot profile %v", m[len(m)-1].BotProfile != nil)
	}
	twinstest.Collections(b, w)
}

// BenchmarkCollectMessagesZeroed is BenchmarkCollectMessages with every
// message then set to the zero Message, still held: what a collection
// costs for the messages' own words, which it reads whether they point
// anywhere or not. Set beside BenchmarkCollectMessages it shows how much
// of a world's collection is the size of its objects that may hold
// pointers rather than what they point to.
func BenchmarkCollectMessagesZeroed(b *testing.B) {
	w := postedWorld(b, 300_000)
	for _, ch := range w.Channels {
		for _, m := range ch.Messages {
			*m = Message{}
		}
	}
	twinstest.Collections(b, w)
}

// postedWorld is a new world with n messages posted to #general through
// the twin's action, each decoded from its own request.
func postedWorld(b *testing.B, n int) *World {
	ctx := twins.WithEnv(context.Background(), twinstest.Env(tw.Name))
	w, err := tw.NewWorld(ctx, nil)
	if err != nil {
		b.Fatal(err)
	}
	a, _ := tw.Action("slack_send_message")
	for i := range n {
		in, err := a.Decode(json.RawMessage(fmt.Sprintf(`{"channel_id":"general","message":"Load test message number %d, from pome-bench."}`, i)))
		if err != nil {
			b.Fatal(err)
		}
		if _, err := a.Run(ctx, w, in); err != nil {
			b.Fatal(err)
		}
	}
	return w.(*World)
}
