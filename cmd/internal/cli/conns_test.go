package cli

import (
	"reflect"
	"testing"
	"time"
)

// TestServeConnectionSettings: the connection limits and allowed origins
// reach rest.Config from flags and from the environment.
func TestServeConnectionSettings(t *testing.T) {
	isolate(t)
	cfg, r := serveWith(t, "--body-timeout", "5s", "--write-timeout", "7s", "--idle-timeout", "9s", "--max-conns", "11",
		"--allowed-origin", "https://a.test", "--allowed-origin", "https://b.test")
	if r.code != ExitOK {
		t.Fatalf("%+v", r)
	}
	if cfg.BodyTimeout != 5*time.Second || cfg.WriteTimeout != 7*time.Second || cfg.IdleTimeout != 9*time.Second || cfg.MaxConns != 11 ||
		!reflect.DeepEqual(cfg.AllowedOrigins, []string{"https://a.test", "https://b.test"}) {
		t.Errorf("flags: %+v", cfg)
	}
	t.Setenv("POME_ALLOWED_ORIGINS", "https://c.test, https://d.test")
	t.Setenv("POME_MAX_CONNS", "13")
	cfg, r = serveWith(t)
	if r.code != ExitOK || cfg.MaxConns != 13 || !reflect.DeepEqual(cfg.AllowedOrigins, []string{"https://c.test", "https://d.test"}) {
		t.Errorf("env: %+v %+v", r, cfg)
	}
	if _, r = serveWith(t, "--max-conns", "0"); r.code == ExitOK {
		t.Errorf("--max-conns 0 accepted")
	}
}
