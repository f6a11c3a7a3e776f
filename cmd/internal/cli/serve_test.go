package cli

import (
	"context"
	"errors"
	"io"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/pomehq/pome/cmd/internal/gcfloor"
	"github.com/pomehq/pome/rest"
)

func TestParseAPIKeys(t *testing.T) {
	cases := []struct {
		in      string
		want    map[string][]string
		wantErr bool
	}{
		{"", nil, false},
		{" , ", nil, false},
		{"acme:pme_a", map[string][]string{"acme": {"pme_a"}}, false},
		{"acme:pme_a,beta:pme_b,acme:pme_c", map[string][]string{"acme": {"pme_a", "pme_c"}, "beta": {"pme_b"}}, false},
		{" acme : pme_a , acme:pme_a ", map[string][]string{"acme": {"pme_a"}}, false},
		{"Acme:pme_a", map[string][]string{"Acme": {"pme_a"}}, false},
		{"pme_a", nil, true},
		{":pme_a", nil, true},
		{"acme:", nil, true},
		{"acme:pme_a,beta:pme_a", nil, true},
	}
	for _, c := range cases {
		got, err := ParseAPIKeys(c.in)
		if (err != nil) != c.wantErr {
			t.Errorf("ParseAPIKeys(%q) error = %v", c.in, err)
			continue
		}
		if err != nil {
			if strings.Contains(err.Error(), "pme_a") {
				t.Errorf("error %q repeats a key", err)
			}
			if exitCode(err) != ExitUsage {
				t.Errorf("error %q is not a usage error", err)
			}
			continue
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("ParseAPIKeys(%q) = %v, want %v", c.in, got, c.want)
		}
	}
}

// serveWith runs `pome serve` with a stand-in for rest.Run and returns the
// configuration it was given.
func serveWith(t *testing.T, args ...string) (rest.Config, result) {
	t.Helper()
	var got rest.Config
	a := &App{Serve: func(_ context.Context, cfg rest.Config, _ io.Writer) error {
		got = cfg
		return nil
	}}
	r := runApp(t, a, context.Background(), append([]string{"serve"}, args...)...)
	return got, r
}

func TestServeDefaults(t *testing.T) {
	isolate(t)
	cfg, r := serveWith(t)
	if r.code != ExitOK {
		t.Fatalf("%+v", r)
	}
	if cfg.Logger == nil {
		t.Error("no logger")
	}
	cfg.Logger, cfg.KeyFile = nil, "" // the key file: TestServeKeyFileLocation
	want := rest.Config{Addr: "127.0.0.1:7070", PublicURL: "http://127.0.0.1:7070", TTL: 30 * time.Minute,
		Retention: 24 * time.Hour, MaxTwins: 3, SandboxQuota: 1000, MaxBodyBytes: 10 << 20, RunsDir: "runs",
		BodyTimeout: 30 * time.Second, WriteTimeout: time.Minute, IdleTimeout: time.Minute, MaxConns: 4096,
		MaxWorldBytes: rest.DefaultMaxWorldBytes, MaxServerWorldBytes: rest.DefaultMaxServerWorldBytes, MaxServerTapeBytes: rest.DefaultMaxServerTapeBytes, AnswerCacheBytes: rest.DefaultAnswerCacheBytes,
		WorldCacheBytes: rest.DefaultWorldCacheBytes}
	if !reflect.DeepEqual(cfg, want) {
		t.Errorf("defaults\n got %+v\nwant %+v", cfg, want)
	}
}

func TestServeFlags(t *testing.T) {
	isolate(t)
	cfg, r := serveWith(t, "--addr", "0.0.0.0:8080", "--public-url", "https://pome.example.com/",
		"--redis-url", "redis://localhost:6379/0", "--ttl", "1h", "--retention", "2h", "--max-twins", "2",
		"--sandbox-quota", "5", "--max-body-bytes", "1024", "--pprof", "--runs-dir", "/srv/pome-runs",
		"--max-world-bytes", "2048", "--max-server-world-bytes", "4096", "--max-server-tape-bytes", "8192", "--team-budget-percent", "50", "--answer-cache-bytes", "0",
		"--world-cache-bytes", "0")
	if r.code != ExitOK {
		t.Fatalf("%+v", r)
	}
	cfg.Logger, cfg.KeyFile = nil, "" // the key file: TestServeKeyFileLocation
	want := rest.Config{Addr: "0.0.0.0:8080", PublicURL: "https://pome.example.com", RedisURL: "redis://localhost:6379/0",
		TTL: time.Hour, Retention: 2 * time.Hour, MaxTwins: 2, SandboxQuota: 5, MaxBodyBytes: 1024, Pprof: true, RunsDir: "/srv/pome-runs",
		BodyTimeout: 30 * time.Second, WriteTimeout: time.Minute, IdleTimeout: time.Minute, MaxConns: 4096,
		MaxWorldBytes: 2048, MaxServerWorldBytes: 4096, MaxServerTapeBytes: 8192, TeamBudgetPercent: 50, AnswerCacheBytes: -1, WorldCacheBytes: -1}
	if !reflect.DeepEqual(cfg, want) {
		t.Errorf("flags\n got %+v\nwant %+v", cfg, want)
	}
}

func TestServePrecedenceAndFileMaps(t *testing.T) {
	path := isolate(t)
	writeConfig(t, path, `
addr: 127.0.0.1:9000
ttl: 10m
max_twins: 2
pprof: true
teams:
  Acme: [pme_a1, pme_a2]
  beta: pme_b
rate_limits:
  github: 5000
  slack: 50
`)
	cfg, r := serveWith(t)
	if r.code != ExitOK {
		t.Fatalf("%+v", r)
	}
	if cfg.Addr != "127.0.0.1:9000" || cfg.PublicURL != "http://127.0.0.1:9000" || cfg.TTL != 10*time.Minute || cfg.MaxTwins != 2 || !cfg.Pprof {
		t.Errorf("file values: %+v", cfg)
	}
	if want := map[string][]string{"Acme": {"pme_a1", "pme_a2"}, "beta": {"pme_b"}}; !reflect.DeepEqual(cfg.Teams, want) {
		t.Errorf("teams %v, want %v", cfg.Teams, want)
	}
	if want := map[string]int{"github": 5000, "slack": 50}; !reflect.DeepEqual(cfg.RateLimits, want) {
		t.Errorf("rate limits %v", cfg.RateLimits)
	}

	t.Setenv("POME_ADDR", "127.0.0.1:9100")
	t.Setenv("POME_TTL", "20m")
	t.Setenv("POME_PPROF", "false")
	t.Setenv("POME_API_KEYS", "gamma:pme_g1,gamma:pme_g2")
	cfg, _ = serveWith(t, "--ttl", "40m")
	if cfg.Addr != "127.0.0.1:9100" || cfg.TTL != 40*time.Minute || cfg.MaxTwins != 2 || cfg.Pprof {
		t.Errorf("env over file, flag over env: %+v", cfg)
	}
	if want := map[string][]string{"gamma": {"pme_g1", "pme_g2"}}; !reflect.DeepEqual(cfg.Teams, want) {
		t.Errorf("POME_API_KEYS should replace the file's teams: %v", cfg.Teams)
	}
}

func TestServeRejectsBadValues(t *testing.T) {
	cases := []struct {
		name, file string
		args       []string
		env        map[string]string
	}{
		{name: "number ttl", file: "ttl: 1800\n"},
		{name: "zero ttl flag", args: []string{"--ttl", "0s"}},
		{name: "bad env duration", env: map[string]string{"POME_RETENTION": "a day"}},
		{name: "zero max twins", args: []string{"--max-twins", "0"}},
		{name: "bad env int", env: map[string]string{"POME_SANDBOX_QUOTA": "lots"}},
		{name: "bad API keys", env: map[string]string{"POME_API_KEYS": "acme"}},
		{name: "teams not a map", file: "teams: [pme_a]\n"},
		{name: "rate limit not a number", file: "rate_limits:\n  github: fast\n"},
		{name: "stray argument", args: []string{"now"}},
		{name: "negative GC heap floor", args: []string{"--gc-heap-floor", "-1"}},
		{name: "bad env GC heap floor", env: map[string]string{"POME_GC_HEAP_FLOOR": "big"}},
		{name: "GC heap floor not a number", file: "gc_heap_floor: big\n"},
		{name: "world budget of zero", args: []string{"--max-world-bytes", "0"}},
		{name: "bad env server world budget", env: map[string]string{"POME_MAX_SERVER_WORLD_BYTES": "lots"}},
		{name: "negative tape budget", file: "max_server_tape_bytes: -1\n"},
		{name: "team percent over 100", args: []string{"--team-budget-percent", "101"}},
		{name: "negative answer cache", args: []string{"--answer-cache-bytes", "-1"}},
		{name: "answer cache not a number", env: map[string]string{"POME_ANSWER_CACHE_BYTES": "lots"}},
		{name: "negative world cache", args: []string{"--world-cache-bytes", "-1"}},
		{name: "world cache not a number", env: map[string]string{"POME_WORLD_CACHE_BYTES": "lots"}},
		{name: "world cache in the file not a number", file: "world_cache_bytes: big\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := isolate(t)
			if c.file != "" {
				writeConfig(t, path, c.file)
			}
			for k, v := range c.env {
				t.Setenv(k, v)
			}
			called := false
			a := &App{Serve: func(context.Context, rest.Config, io.Writer) error { called = true; return nil }}
			r := runApp(t, a, context.Background(), append([]string{"serve"}, c.args...)...)
			if r.code != ExitUsage || called {
				t.Fatalf("code %d (called %v), stderr %s", r.code, called, r.stderr)
			}
		})
	}
}

func TestServeFailureIsOrchestrationError(t *testing.T) {
	isolate(t)
	a := &App{Serve: func(context.Context, rest.Config, io.Writer) error {
		return errors.New("listen tcp: address already in use")
	}}
	r := runApp(t, a, context.Background(), "serve")
	if r.code != ExitOrchestration || !strings.Contains(r.stderr, "address already in use") {
		t.Fatalf("%+v", r)
	}
	a = &App{Serve: func(ctx context.Context, _ rest.Config, _ io.Writer) error { return context.Canceled }}
	if r := runApp(t, a, context.Background(), "serve"); r.code != ExitOK {
		t.Fatalf("a shutdown on signal is a clean exit: %+v", r)
	}
}

// TestShippedConfigs keeps the documented config files and the flags of
// `pome serve` in step: every key they set must reach rest.Config.
func TestShippedConfigs(t *testing.T) {
	isolate(t)
	cfg, r := serveWith(t, "--config", "../../../configs/pome.yaml")
	if r.code != ExitOK {
		t.Fatalf("configs/pome.yaml: %+v", r)
	}
	cfg.Logger, cfg.KeyFile = nil, "" // the key file: TestServeKeyFileLocation
	want := rest.Config{Addr: "127.0.0.1:7070", PublicURL: "http://127.0.0.1:7070", TTL: 30 * time.Minute,
		Retention: 24 * time.Hour, MaxTwins: 3, SandboxQuota: 1000, MaxBodyBytes: 10 << 20, RunsDir: "runs", MaxTapeRows: 100_000,
		BodyTimeout: 30 * time.Second, WriteTimeout: time.Minute, IdleTimeout: time.Minute, MaxConns: 4096,
		MaxWorldBytes: rest.DefaultMaxWorldBytes, MaxServerWorldBytes: rest.DefaultMaxServerWorldBytes, MaxServerTapeBytes: rest.DefaultMaxServerTapeBytes, AnswerCacheBytes: rest.DefaultAnswerCacheBytes,
		WorldCacheBytes: rest.DefaultWorldCacheBytes}
	if !reflect.DeepEqual(cfg, want) {
		t.Errorf("configs/pome.yaml\n got %+v\nwant %+v", cfg, want)
	}

	cfg, r = serveWith(t, "--config", "../../../configs/replicas.yaml", "--addr", "127.0.0.1:7071")
	if r.code != ExitOK {
		t.Fatalf("configs/replicas.yaml: %+v", r)
	}
	if cfg.Addr != "127.0.0.1:7071" || cfg.PublicURL != "http://127.0.0.1:7070" || cfg.RedisURL != "redis://127.0.0.1:6379/0" ||
		len(cfg.Teams["acme"]) != 1 {
		t.Errorf("configs/replicas.yaml: %+v", cfg)
	}
}

// TestServeGCHeapFloor: while serving, collections raise the GC percent of
// a process with little live heap (the default floor), unless the floor is
// 0; once serve returns the percent is back where it was.
func TestServeGCHeapFloor(t *testing.T) {
	t.Setenv("GOGC", "")
	for _, c := range []struct {
		name   string
		args   []string
		env    string
		raised bool
	}{
		{"default", nil, "", true},
		{"flag 0", []string{"--gc-heap-floor", "0"}, "", false},
		{"env 0", nil, "0", false},
		{"flag over env", []string{"--gc-heap-floor", "64"}, "0", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			isolate(t)
			if c.env != "" {
				t.Setenv("POME_GC_HEAP_FLOOR", c.env)
			}
			raised := false
			a := &App{Serve: func(context.Context, rest.Config, io.Writer) error {
				for range 20 {
					runtime.GC()
					time.Sleep(5 * time.Millisecond)
					if gcfloor.Current() > 100 {
						raised = true
						break
					}
				}
				return nil
			}}
			if r := runApp(t, a, context.Background(), append([]string{"serve"}, c.args...)...); r.code != ExitOK {
				t.Fatalf("%+v", r)
			}
			if raised != c.raised {
				t.Errorf("GC percent raised while serving: %v, want %v", raised, c.raised)
			}
			if p := gcfloor.Current(); p != 100 {
				t.Errorf("GC percent %d after serve returned, want 100", p)
			}
		})
	}
}
