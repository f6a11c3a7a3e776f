package rest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/pomehq/pome/session"
	"github.com/pomehq/pome/twins"
)

// DefaultRegistry supplies the twins when Config.Registry is nil; the
// binary sets it to every twin Pome has.
var DefaultRegistry func() *twins.Registry

// Run builds the server from cfg, gives team "default" a key when no team
// is configured (see defaultTeamKeys), and serves on cfg.Addr until ctx is
// done.
func Run(ctx context.Context, cfg Config, out io.Writer) error {
	cfg.Defaults()
	reg := cfg.Registry
	if reg == nil {
		if DefaultRegistry == nil {
			return errors.New("no twins configured")
		}
		reg = DefaultRegistry()
	}
	store, kind, err := openStore(ctx, cfg)
	if err != nil {
		return err
	}
	defer store.Close()

	keys := cfg.Teams
	if len(keys) == 0 {
		if keys, err = defaultTeamKeys(cfg, out); err != nil {
			return err
		}
	}
	teams, err := session.NewTeams(keys)
	if err != nil {
		return err
	}
	srv := NewServer(cfg, reg, store, teams)
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", cfg.Addr, err)
	}
	ln = newLimitListener(ln, cfg.MaxConns)
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: cfg.IdleTimeout}
	fmt.Fprintf(out, "Pome serving %d twins on %s (store: %s, public URL %s)\n", len(reg.All()), ln.Addr(), kind, cfg.PublicURL)
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := hs.Shutdown(shut); err != nil {
		return err
	}
	return nil
}

func openStore(ctx context.Context, cfg Config) (session.Store, string, error) {
	if cfg.RedisURL == "" {
		s := session.NewMemoryStore(nil, 0)
		s.SetMaxTapeRows(cfg.MaxTapeRows)
		return s, "memory", nil
	}
	client, err := session.OpenRedis(cfg.RedisURL)
	if err != nil {
		return nil, "", fmt.Errorf("redis url: %w", err)
	}
	pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := client.Ping(pctx).Err(); err != nil {
		return nil, "", fmt.Errorf("cannot reach Redis at %s: %w", redactURL(cfg.RedisURL), err)
	}
	kind := "redis"
	if strings.Contains(strings.ToLower(cfg.RedisURL), "+cluster://") {
		kind = "redis cluster"
	}
	s := session.NewRedisStore(client, nil)
	s.SetMaxTapeRows(cfg.MaxTapeRows)
	s.SetWorldCacheBytes(cfg.WorldCacheBytes)
	return s, kind, nil
}

// redactURL hides a password in a Redis URL before it is printed.
func redactURL(u string) string {
	if i, j := strings.Index(u, "://"), strings.LastIndex(u, "@"); i >= 0 && j > i {
		return u[:i+3] + "***" + u[j:]
	}
	return u
}
