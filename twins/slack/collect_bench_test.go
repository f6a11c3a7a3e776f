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
	ctx := twins.WithEnv(context.Background(), twinstest.Env(tw.Name))
	w, err := tw.NewWorld(ctx, nil)
	if err != nil {
		b.Fatal(err)
	}
	a, _ := tw.Action("slack_send_message")
	for i := range 300_000 {
		in, err := a.Decode(json.RawMessage(fmt.Sprintf(`{"channel_id":"general","message":"Load test message number %d, from pome-bench."}`, i)))
		if err != nil {
			b.Fatal(err)
		}
		if _, err := a.Run(ctx, w, in); err != nil {
			b.Fatal(err)
		}
	}
	if m := w.(*World).Channels[0].Messages; len(m) > 0 {
		b.Logf("last message: bot profile %v", m[len(m)-1].BotProfile != nil)
	}
	twinstest.Collections(b, w)
}
