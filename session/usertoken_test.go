package session_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/pomehq/pome/session"
	"github.com/pomehq/pome/session/storetest"
	"github.com/pomehq/pome/twins"
)

// userTwin is a fake twin that, like Slack, issues a user token beside its
// bot token.
func userTwin() *twins.Twin {
	tw := storetest.FakeTwin("chat")
	tw.TokenPrefix, tw.UserTokenPrefix = "xoxb-", "xoxp-"
	return tw.Finish()
}

// TestUserToken runs on the memory store and, when POME_TEST_REDIS_URL is
// set, on Redis: the user token is issued once per sandbox, kept only as a
// hash, opens its own sandbox's twin as RoleUser, and is refused on
// another sandbox and on another twin, alike to an unknown token.
func TestUserToken(t *testing.T) {
	stores := map[string]func(t *testing.T) session.Store{
		"memory": func(t *testing.T) session.Store { return newMemory(t, nil) },
	}
	stores["redis"] = func(t *testing.T) session.Store { redisURL(t); return newRedis(t, nil) }
	for name, newStore := range stores {
		t.Run(name, func(t *testing.T) {
			chat := userTwin()
			m := session.NewManager(newStore(t), twins.NewRegistry(chat, storetest.FakeTwin("alpha").Finish()), session.Config{TTL: time.Hour, MaxTwins: 4, SandboxQuota: 10}, nil)
			ctx := t.Context()
			team := storetest.NewTeam()
			a, err := m.Create(ctx, team, session.CreateRequest{Twins: []string{"chat", "alpha"}})
			if err != nil {
				t.Fatal(err)
			}
			b, err := m.Create(ctx, team, session.CreateRequest{Twins: []string{"chat"}})
			if err != nil {
				t.Fatal(err)
			}
			ca, cb := a.ProviderCredentials["chat"], b.ProviderCredentials["chat"]
			if !strings.HasPrefix(ca.UserToken, "xoxp-") || ca.UserToken == cb.UserToken || ca.UserToken == ca.Token {
				t.Fatalf("user tokens: %q %q (bot %q)", ca.UserToken, cb.UserToken, ca.Token)
			}
			if a.ProviderCredentials["alpha"].UserToken != "" {
				t.Fatalf("a twin without UserTokenPrefix got a user token")
			}
			// The record keeps the hash, never the token.
			stored, err := m.Store.Get(ctx, a.SessionID)
			if err != nil {
				t.Fatal(err)
			}
			if stored.UserHashes["chat"] != session.HashToken(ca.UserToken) || len(stored.UserHashes) != 1 {
				t.Fatalf("stored user hashes: %v", stored.UserHashes)
			}
			sb, role, err := m.Authorize(ctx, a.SessionID, "chat", ca.UserToken)
			if err != nil || role != session.RoleUser || sb.ID != a.SessionID {
				t.Fatalf("user token on its sandbox: %v %v", role, err)
			}
			if _, role, err := m.AuthorizeRead(ctx, a.SessionID, "chat", ca.UserToken); err != nil || role != session.RoleUser {
				t.Fatalf("user token on a read: %v %v", role, err)
			}
			if _, role, err := m.Authorize(ctx, a.SessionID, "chat", ca.Token); err != nil || role != session.RoleProvider {
				t.Fatalf("bot token: %v %v", role, err)
			}
			for _, c := range []struct{ what, sid, twin, tok string }{
				{"A's user token on B", b.SessionID, "chat", ca.UserToken},
				{"B's user token on A", a.SessionID, "chat", cb.UserToken},
				{"A's user token on A's other twin", a.SessionID, "alpha", ca.UserToken},
				{"a user token one character off", a.SessionID, "chat", ca.UserToken[:len(ca.UserToken)-1] + "x"},
			} {
				if _, _, err := m.Authorize(ctx, c.sid, c.twin, c.tok); !errors.Is(err, session.ErrDenied) {
					t.Errorf("%s: %v, want ErrDenied", c.what, err)
				}
			}
		})
	}
}

func TestUserTokenShape(t *testing.T) {
	tok := session.NewProviderToken("xoxp-", session.NewSandboxID(), false)
	parts := strings.Split(tok, "-")
	if len(parts) != 5 || parts[0] != "xoxp" || len(parts[4]) != 32 {
		t.Fatalf("xoxp- token %q is not in Slack's shape", tok)
	}
	if session.NewProviderToken("xoxp-", session.NewSandboxID(), false) == tok {
		t.Fatal("user tokens repeat")
	}
}
