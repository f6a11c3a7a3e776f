package cli

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cast"
	"github.com/spf13/cobra"
	"github.com/spf13/viper"

	"github.com/pomehq/pome/cmd/internal/gcfloor"
	"github.com/pomehq/pome/rest"
)

func (a *App) newServeCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run the control plane and every twin on one address",
		Long: "Run the control plane and every twin in one process on one address.\n\n" +
			"Without --redis-url everything lives in memory. Team API keys come from\n" +
			"POME_API_KEYS=team:pme_…,team2:pme_… or the config file's `teams:` map\n" +
			"(team → list of keys); with neither, the server creates one key, prints it\n" +
			"once and keeps it in --key-file (default ~/.config/pome/team-key, mode 0600),\n" +
			"so that it still works after a restart; later starts say where it is kept\n" +
			"and do not print it again. The config file's `rate_limits:` map sets\n" +
			"requests per minute per twin.",
		Args: cobra.NoArgs,
		RunE: runE(func(cmd *cobra.Command, _ []string) error {
			cfg, err := ServeConfig(a.v, a.fileRaw)
			if err != nil {
				return err
			}
			cfg.Logger = slog.New(slog.NewTextHandler(a.Stderr, nil))
			if cfg.KeyFile == "" && userDir() != "" {
				cfg.KeyFile = filepath.Join(userDir(), defaultKeyFile)
			}
			floor, err := gcFloor(a.v)
			if err != nil {
				return err
			}
			defer gcfloor.Start(floor)()
			// main already cancels on these signals; doing it here too
			// keeps the command correct when embedded elsewhere.
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			serve := a.Serve
			if serve == nil {
				serve = rest.Run
			}
			err = serve(ctx, cfg, a.Stdout)
			if err != nil && (errors.Is(err, context.Canceled) || errors.Is(err, http.ErrServerClosed)) {
				return nil
			}
			if err != nil {
				return &ExitError{Code: ExitOrchestration, Err: fmt.Errorf("serve: %w", err)}
			}
			return nil
		}),
	}
	f := cmd.Flags()
	f.String("addr", "127.0.0.1:7070", "listen address (env POME_ADDR)")
	f.String("public-url", "", "base URL put in responses (env POME_PUBLIC_URL; default http:// + --addr)")
	f.String("redis-url", "", "keep sandboxes, state and tapes in Redis: redis://host:port/db, rediss:// (TLS), or a Redis Cluster as redis+cluster://host:port,host:port (env POME_REDIS_URL; default in memory)")
	f.Duration("ttl", 30*time.Minute, "default sandbox lifetime (env POME_TTL)")
	f.Duration("retention", 24*time.Hour, "how long a stopped sandbox stays readable (env POME_RETENTION)")
	f.Int("max-twins", 3, "twins per sandbox (env POME_MAX_TWINS)")
	f.Int("sandbox-quota", 1000, "open sandboxes per team (env POME_SANDBOX_QUOTA)")
	f.Int64("max-body-bytes", 10<<20, "request body limit in bytes (env POME_MAX_BODY_BYTES)")
	f.Bool("pprof", false, "serve net/http/pprof at /debug/pprof/ (env POME_PPROF)")
	f.String("runs-dir", "runs", "run directories the dashboard at /ui/ shows (env POME_RUNS_DIR)")
	bindKey(f, "runs-dir", keyRunsDir)
	f.Int64("max-tape-rows", 100_000, "rows kept per twin tape of a sandbox; later calls are counted, not kept (env POME_MAX_TAPE_ROWS)")
	bindKey(f, "max-tape-rows", keyMaxTapeRows)
	f.Int64("max-world-bytes", rest.DefaultMaxWorldBytes, "bytes one twin's world in a sandbox may hold, as its state document; larger seeds and writes are refused (env POME_MAX_WORLD_BYTES)")
	bindKey(f, "max-world-bytes", keyMaxWorldBytes)
	f.Int64("max-server-world-bytes", rest.DefaultMaxServerWorldBytes, "bytes the worlds of all sandboxes may hold together, seeds included; creates past it are refused (env POME_MAX_SERVER_WORLD_BYTES; with Redis, for every replica together)")
	bindKey(f, "max-server-world-bytes", keyMaxServerWorldBytes)
	f.Int64("max-server-tape-bytes", rest.DefaultMaxServerTapeBytes, "bytes the tapes of all sandboxes may hold together; past it tapes keep no further rows (env POME_MAX_SERVER_TAPE_BYTES; with Redis, for every replica together)")
	bindKey(f, "max-server-tape-bytes", keyMaxServerTapeBytes)
	f.Int("team-budget-percent", 0, "percent of each server budget one team may hold; 0 gives each configured team an equal part (env POME_TEAM_BUDGET_PERCENT)")
	bindKey(f, "team-budget-percent", keyTeamBudgetPercent)
	f.Int("gc-heap-floor", 128, "MiB the Go heap may grow to before a garbage collection, while little of it is live; 0 leaves GOGC alone (env POME_GC_HEAP_FLOOR)")
	bindKey(f, "gc-heap-floor", keyGCHeapFloor)
	f.Int64("answer-cache-bytes", rest.DefaultAnswerCacheBytes, "bytes of reads' answers kept per world version and served again while the world is unchanged; 0 keeps none (env POME_ANSWER_CACHE_BYTES)")
	bindKey(f, "answer-cache-bytes", keyAnswerCacheBytes)
	f.Int64("world-cache-bytes", rest.DefaultWorldCacheBytes, "bytes of decoded worlds each replica keeps in process on Redis, each charged three times its state document; 0 keeps none, and every call reads its world from Redis (env POME_WORLD_CACHE_BYTES)")
	bindKey(f, "world-cache-bytes", keyWorldCacheBytes)
	f.Bool("state-deltas", false, "tape what each call changed in its twin's state, for the dashboard (env POME_STATE_DELTAS; costs a diff per write)")
	bindKey(f, "state-deltas", keyStateDeltas)
	f.String("key-file", "", "with no team keys configured, where the generated key of team \"default\" is kept (mode 0600) and read back on restart (env POME_KEY_FILE; default "+defaultKeyFile+" in the user config directory, beside the config file of pome login)")
	bindKey(f, "key-file", keyKeyFile)
	f.Duration("body-timeout", 30*time.Second, "how long a request body may take to arrive (env POME_BODY_TIMEOUT)")
	f.Duration("write-timeout", 60*time.Second, "how long an answer, or each event of a followed tape, may take to leave (env POME_WRITE_TIMEOUT)")
	f.Duration("idle-timeout", 60*time.Second, "how long a keep-alive connection may wait for its next request (env POME_IDLE_TIMEOUT)")
	f.Int("max-conns", 4096, "connections served at once; more wait to be accepted (env POME_MAX_CONNS)")
	f.StringSlice("allowed-origin", nil, "a browser origin, beside the public URL's and loopback's, whose pages may call MCP endpoints; repeatable, * for any (env POME_ALLOWED_ORIGINS, comma-separated)")
	for flag, key := range connKeys {
		bindKey(f, flag, key)
	}
	for flag, key := range map[string]string{
		"addr": keyAddr, "public-url": keyPublicURL, "redis-url": keyRedisURL,
		"ttl": keyTTL, "retention": keyRetention, "max-twins": keyMaxTwins,
		"sandbox-quota": keySandboxQuota, "max-body-bytes": keyMaxBodyBytes, "pprof": keyPprof,
	} {
		bindKey(f, flag, key)
	}
	return cmd
}

// connKeys are the config keys of the connection limits, by flag.
var connKeys = map[string]string{
	"body-timeout": "body_timeout", "write-timeout": "write_timeout",
	"idle-timeout": "idle_timeout", "max-conns": "max_conns",
	"allowed-origin": "allowed_origins",
}

// connLimits reads the connection limits and the allowed origins into cfg.
func connLimits(v *viper.Viper, cfg *rest.Config) error {
	for _, d := range []struct {
		key string
		to  *time.Duration
	}{{"body_timeout", &cfg.BodyTimeout}, {"write_timeout", &cfg.WriteTimeout}, {"idle_timeout", &cfg.IdleTimeout}} {
		v.BindEnv(d.key, "POME_"+strings.ToUpper(d.key))
		var err error
		if *d.to, err = durationKey(v, d.key); err != nil {
			return err
		}
	}
	v.BindEnv("max_conns", "POME_MAX_CONNS")
	if v.IsSet("max_conns") {
		n, err := positiveInt(v, "max_conns")
		if err != nil {
			return err
		}
		cfg.MaxConns = n
	}
	v.BindEnv("allowed_origins", "POME_ALLOWED_ORIGINS")
	for _, o := range v.GetStringSlice("allowed_origins") {
		for _, part := range strings.Split(o, ",") {
			if part = strings.TrimSpace(part); part != "" {
				cfg.AllowedOrigins = append(cfg.AllowedOrigins, part)
			}
		}
	}
	return nil
}

// keyRunsDir is the config key of --runs-dir.
const keyRunsDir = "runs_dir"

// keyMaxTapeRows is the config key of --max-tape-rows.
const keyMaxTapeRows = "max_tape_rows"

// Config keys of the memory budgets (--max-world-bytes, …).
const (
	keyMaxWorldBytes       = "max_world_bytes"
	keyMaxServerWorldBytes = "max_server_world_bytes"
	keyMaxServerTapeBytes  = "max_server_tape_bytes"
	keyTeamBudgetPercent   = "team_budget_percent"
)

// keyAnswerCacheBytes is the config key of --answer-cache-bytes.
const keyAnswerCacheBytes = "answer_cache_bytes"

// keyWorldCacheBytes is the config key of --world-cache-bytes.
const keyWorldCacheBytes = "world_cache_bytes"

// keyStateDeltas is the config key of --state-deltas.
const keyStateDeltas = "state_deltas"

// keyKeyFile is the config key of --key-file; defaultKeyFile is the file's
// name in the user's Pome directory, where `pome login` saves the same key
// in config.yaml. It does not follow --config: a server's config file often
// lives in a repository, and the key must not.
const (
	keyKeyFile     = "key_file"
	defaultKeyFile = "team-key"
)

// keyGCHeapFloor is the config key of --gc-heap-floor.
const keyGCHeapFloor = "gc_heap_floor"

// gcFloor reads --gc-heap-floor (MiB) as bytes.
func gcFloor(v *viper.Viper) (uint64, error) {
	v.BindEnv(keyGCHeapFloor, "POME_GC_HEAP_FLOOR")
	n, err := cast.ToIntE(v.Get(keyGCHeapFloor))
	if err != nil || n < 0 {
		return 0, usageErrorf("%s: want a number of MiB, 0 or more", keyGCHeapFloor)
	}
	return uint64(n) << 20, nil
}

// ServeConfig maps the resolved configuration of `pome serve` to
// rest.Config. v supplies flags, env and scalar config-file keys; fileRaw is
// the config file as parsed YAML, read for `teams:` and `rate_limits:`
// because viper lower-cases map keys and team names keep their case.
// POME_API_KEYS, when set, replaces the file's teams (env beats file).
func ServeConfig(v *viper.Viper, fileRaw map[string]any) (rest.Config, error) {
	var cfg rest.Config
	var err error
	cfg.Addr = strings.TrimSpace(v.GetString(keyAddr))
	cfg.PublicURL = strings.TrimRight(strings.TrimSpace(v.GetString(keyPublicURL)), "/")
	cfg.RedisURL = strings.TrimSpace(v.GetString(keyRedisURL))
	if cfg.TTL, err = durationKey(v, keyTTL); err != nil {
		return cfg, err
	}
	if cfg.Retention, err = durationKey(v, keyRetention); err != nil {
		return cfg, err
	}
	if cfg.MaxTwins, err = positiveInt(v, keyMaxTwins); err != nil {
		return cfg, err
	}
	if cfg.SandboxQuota, err = positiveInt(v, keySandboxQuota); err != nil {
		return cfg, err
	}
	maxBody, err := positiveInt(v, keyMaxBodyBytes)
	if err != nil {
		return cfg, err
	}
	cfg.MaxBodyBytes = int64(maxBody)
	if v.IsSet(keyPprof) {
		if cfg.Pprof, err = cast.ToBoolE(v.Get(keyPprof)); err != nil {
			return cfg, usageErrorf("%s: %v", keyPprof, err)
		}
	}

	// Bound here rather than in envNames so that the dashboard's one
	// setting stays in this file.
	v.BindEnv(keyRunsDir, "POME_RUNS_DIR")
	if cfg.RunsDir = strings.TrimSpace(v.GetString(keyRunsDir)); cfg.RunsDir == "" {
		cfg.RunsDir = "runs"
	}
	if err := connLimits(v, &cfg); err != nil {
		return cfg, err
	}
	v.BindEnv(keyKeyFile, "POME_KEY_FILE")
	cfg.KeyFile = strings.TrimSpace(v.GetString(keyKeyFile))
	v.BindEnv(keyStateDeltas, "POME_STATE_DELTAS")
	if v.IsSet(keyStateDeltas) {
		if cfg.StateDeltas, err = cast.ToBoolE(v.Get(keyStateDeltas)); err != nil {
			return cfg, usageErrorf("%s: %v", keyStateDeltas, err)
		}
	}
	v.BindEnv(keyMaxTapeRows, "POME_MAX_TAPE_ROWS")
	if v.IsSet(keyMaxTapeRows) {
		n, err := positiveInt(v, keyMaxTapeRows)
		if err != nil {
			return cfg, err
		}
		cfg.MaxTapeRows = int64(n)
	}
	if err := budgetConfig(v, &cfg); err != nil {
		return cfg, err
	}

	if env := strings.TrimSpace(v.GetString(keyAPIKeys)); env != "" {
		if cfg.Teams, err = ParseAPIKeys(env); err != nil {
			return cfg, err
		}
	} else if raw, ok := fileRaw[keyTeams]; ok && raw != nil {
		if cfg.Teams, err = teamsFromConfig(raw); err != nil {
			return cfg, err
		}
	}
	if raw, ok := fileRaw[keyRateLimits]; ok && raw != nil {
		if cfg.RateLimits, err = rateLimitsFromConfig(raw); err != nil {
			return cfg, err
		}
	}
	cfg.Defaults()
	return cfg, nil
}

// budgetConfig reads the memory budgets.
func budgetConfig(v *viper.Viper, cfg *rest.Config) error {
	for key, dst := range map[string]*int64{
		keyMaxWorldBytes: &cfg.MaxWorldBytes, keyMaxServerWorldBytes: &cfg.MaxServerWorldBytes, keyMaxServerTapeBytes: &cfg.MaxServerTapeBytes,
	} {
		v.BindEnv(key, "POME_"+strings.ToUpper(key))
		n, err := positiveInt(v, key)
		if err != nil {
			return err
		}
		*dst = int64(n)
	}
	// A cache's bytes: 0 keeps none, which the server's Config says as -1
	// (its 0 is the default).
	for _, c := range []struct {
		key string
		dst *int64
	}{{keyAnswerCacheBytes, &cfg.AnswerCacheBytes}, {keyWorldCacheBytes, &cfg.WorldCacheBytes}} {
		key, dst := c.key, c.dst
		v.BindEnv(key, "POME_"+strings.ToUpper(key))
		if !v.IsSet(key) {
			continue
		}
		n, err := cast.ToInt64E(v.Get(key))
		if err != nil || n < 0 {
			return usageErrorf("%s: want a number of bytes, 0 or more, got %v", key, v.Get(key))
		}
		*dst = n
		if n == 0 {
			*dst = -1
		}
	}
	v.BindEnv(keyTeamBudgetPercent, "POME_TEAM_BUDGET_PERCENT")
	if v.IsSet(keyTeamBudgetPercent) {
		n, err := cast.ToIntE(v.Get(keyTeamBudgetPercent))
		if err != nil || n < 0 || n > 100 {
			return usageErrorf("%s: want a percent from 0 to 100, got %v", keyTeamBudgetPercent, v.Get(keyTeamBudgetPercent))
		}
		cfg.TeamBudgetPercent = n
	}
	return nil
}

// ParseAPIKeys parses POME_API_KEYS: comma-separated team:key pairs, where
// a team may appear several times to hold several keys. Error messages name
// the entry by position, never by content, because the content is a secret.
func ParseAPIKeys(s string) (map[string][]string, error) {
	teams := map[string][]string{}
	for i, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		team, key, ok := strings.Cut(part, ":")
		team, key = strings.TrimSpace(team), strings.TrimSpace(key)
		if !ok || team == "" || key == "" {
			return nil, usageErrorf("POME_API_KEYS entry %d is not team:key", i+1)
		}
		if !slices.Contains(teams[team], key) {
			teams[team] = append(teams[team], key)
		}
	}
	if len(teams) == 0 {
		return nil, nil
	}
	return teams, checkTeams(teams)
}

// teamsFromConfig reads `teams:` — team → list of keys (a single string is
// accepted as a list of one).
func teamsFromConfig(raw any) (map[string][]string, error) {
	m, ok := raw.(map[string]any)
	if !ok {
		return nil, usageErrorf("config %s: want a map of team name to a list of API keys", keyTeams)
	}
	teams := make(map[string][]string, len(m))
	for team, v := range m {
		var keys []string
		switch k := v.(type) {
		case string:
			keys = []string{k}
		case []any:
			for _, item := range k {
				s, ok := item.(string)
				if !ok {
					return nil, usageErrorf("config %s.%s: API keys must be strings", keyTeams, team)
				}
				keys = append(keys, s)
			}
		default:
			return nil, usageErrorf("config %s.%s: want a list of API keys", keyTeams, team)
		}
		for _, key := range keys {
			key = strings.TrimSpace(key)
			if key == "" {
				return nil, usageErrorf("config %s.%s: empty API key", keyTeams, team)
			}
			if !slices.Contains(teams[team], key) {
				teams[team] = append(teams[team], key)
			}
		}
	}
	if len(teams) == 0 {
		return nil, nil
	}
	return teams, checkTeams(teams)
}

// checkTeams refuses a key shared by two teams: a key must say which team
// is calling.
func checkTeams(teams map[string][]string) error {
	names := make([]string, 0, len(teams))
	for t := range teams {
		names = append(names, t)
	}
	sort.Strings(names)
	owner := map[string]string{}
	for _, t := range names {
		for _, k := range teams[t] {
			if prev, ok := owner[k]; ok && prev != t {
				return usageErrorf("one API key is given to two teams, %q and %q", prev, t)
			}
			owner[k] = t
		}
	}
	return nil
}

// rateLimitsFromConfig reads `rate_limits:` — twin → requests per minute.
func rateLimitsFromConfig(raw any) (map[string]int, error) {
	m, ok := raw.(map[string]any)
	if !ok {
		return nil, usageErrorf("config %s: want a map of twin name to requests per minute", keyRateLimits)
	}
	limits := make(map[string]int, len(m))
	for twin, v := range m {
		n, err := cast.ToIntE(v)
		if err != nil || n < 0 {
			return nil, usageErrorf("config %s.%s: want a number of requests per minute, got %v", keyRateLimits, twin, v)
		}
		limits[twin] = n
	}
	return limits, nil
}

// durationKey reads a duration. A bare number is refused rather than read
// as nanoseconds, which is what the generic conversion would do with
// `ttl: 1800`.
func durationKey(v *viper.Viper, key string) (time.Duration, error) {
	if !v.IsSet(key) {
		return 0, nil
	}
	var d time.Duration
	switch x := v.Get(key).(type) {
	case time.Duration:
		d = x
	case string:
		var err error
		if d, err = time.ParseDuration(strings.TrimSpace(x)); err != nil {
			return 0, usageErrorf("%s: %q is not a duration such as 30m or 24h", key, x)
		}
	default:
		return 0, usageErrorf("%s: %v is not a duration; write it with a unit, such as 30m or 24h", key, x)
	}
	if d <= 0 {
		return 0, usageErrorf("%s: must be positive, got %s", key, d)
	}
	return d, nil
}

// positiveInt reads a count that must be at least 1.
func positiveInt(v *viper.Viper, key string) (int, error) {
	if !v.IsSet(key) {
		return 0, nil
	}
	n, err := cast.ToIntE(v.Get(key))
	if err != nil {
		return 0, usageErrorf("%s: %v is not a whole number", key, v.Get(key))
	}
	if n <= 0 {
		return 0, usageErrorf("%s: must be at least 1, got %d", key, n)
	}
	return n, nil
}
