package session

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/pomehq/pome/twins"
	"github.com/pomehq/pome/twins/all"
)

// TestDefaultDocs: a sandbox created from the cache of default documents
// gets the document its own build would have made, seeded credentials
// included; twins whose default world depends on more than the clock's
// second are never cached.
func TestDefaultDocs(t *testing.T) {
	ctx := context.Background()
	reg := all.Registry()
	// A clock that stays in one second for the creates below.
	base := time.Now().UTC().Truncate(time.Second).Add(100 * time.Millisecond)
	tick := base
	clock := func() time.Time { tick = tick.Add(time.Millisecond); return tick }
	s := NewMemoryStore(nil, time.Hour)
	defer s.Close()
	m := NewManager(s, reg, Config{TTL: time.Hour, MaxTwins: 3, SandboxQuota: 100, PublicURL: "http://127.0.0.1:7070"}, clock)
	names := []string{"github", "slack", "stripe"}
	for i := range 4 {
		c, err := m.Create(ctx, "t", CreateRequest{Twins: names})
		if err != nil {
			t.Fatal(err)
		}
		sb := c.Sandbox
		for _, name := range names {
			tw, _ := reg.Get(name)
			// What this sandbox's own build makes, at the same second.
			env := m.Env(sb, tw)
			world, err := tw.NewWorld(twins.WithEnv(ctx, env), nil)
			if err != nil {
				t.Fatal(err)
			}
			want, _ := json.Marshal(world)
			got, err := s.Seed(ctx, sb, name)
			if err != nil {
				t.Fatal(err)
			}
			m.defaults.mu.Lock()
			e := m.defaults.twins[name]
			m.defaults.mu.Unlock()
			if e.stable && !bytes.Equal(got, want) {
				t.Errorf("create %d, %s: the cached document differs from the sandbox's own build", i, name)
			}
			if !e.stable {
				t.Errorf("%s's default world was not found stable", name)
			}
		}
	}
	// A twin whose default world names its sandbox is never cached.
	tw := &twins.Twin{Name: "named",
		NewWorld: func(ctx context.Context, seed json.RawMessage) (any, error) {
			return map[string]string{"id": twins.EnvFrom(ctx).SandboxID}, nil
		},
		DecodeWorld: func(b []byte) (any, error) { var w map[string]string; return w, json.Unmarshal(b, &w) },
	}
	if probeDefaultWorld(ctx, tw) {
		t.Errorf("a world naming its sandbox was found stable")
	}
}
