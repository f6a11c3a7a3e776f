package cli

import (
	"bufio"
	"context"
	"io"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/pomehq/pome/rest"
	"github.com/pomehq/pome/twins"
	"github.com/pomehq/pome/twins/github"
)

// TestServeKeyFileLocation: the generated team key is kept in the user's
// Pome directory, beside the config file `pome login` writes, whatever
// --config names; --key-file and POME_KEY_FILE move it.
func TestServeKeyFileLocation(t *testing.T) {
	path := isolate(t)
	want := filepath.Join(filepath.Dir(path), "team-key")
	cfg, r := serveWith(t)
	if r.code != ExitOK || cfg.KeyFile != want {
		t.Errorf("default key file %q, want %q (%+v)", cfg.KeyFile, want, r)
	}
	other := filepath.Join(t.TempDir(), "server.yaml")
	writeConfig(t, other, "ttl: 10m\n")
	if cfg, _ = serveWith(t, "--config", other); cfg.KeyFile != want {
		t.Errorf("with --config the key file is %q, want %q", cfg.KeyFile, want)
	}
	if cfg, _ = serveWith(t, "--key-file", "/srv/pome/key"); cfg.KeyFile != "/srv/pome/key" {
		t.Errorf("--key-file: %q", cfg.KeyFile)
	}
	t.Setenv("POME_KEY_FILE", "/run/pome/key")
	if cfg, _ = serveWith(t); cfg.KeyFile != "/run/pome/key" {
		t.Errorf("POME_KEY_FILE: %q", cfg.KeyFile)
	}
}

// TestServeRestartKeepsLoginWorking: `pome serve` with no team keys, then
// `pome login` with the key it printed, then a restart on the same config
// directory: the saved login still works, and the key is not printed again.
func TestServeRestartKeepsLoginWorking(t *testing.T) {
	path := isolate(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	pemKey := regexp.MustCompile(`pme_[A-Za-z0-9]{32}`)

	serve := func() (printed string, stop func()) {
		ctx, cancel := context.WithCancel(context.Background())
		pr, pw := io.Pipe()
		a := &App{Serve: func(ctx context.Context, cfg rest.Config, out io.Writer) error {
			cfg.Registry = twins.NewRegistry(github.New())
			return rest.Run(ctx, cfg, io.MultiWriter(out, pw))
		}}
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := runApp(t, a, ctx, "serve", "--addr", addr)
			pw.Close()
			if r.code != ExitOK {
				t.Errorf("serve: %+v", r)
			}
		}()
		stop = func() { cancel(); io.Copy(io.Discard, pr); wg.Wait() }
		var out strings.Builder
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			out.WriteString(sc.Text() + "\n")
			if strings.HasPrefix(sc.Text(), "Pome serving") {
				go io.Copy(io.Discard, pr)
				return out.String(), func() { cancel(); wg.Wait() }
			}
		}
		stop()
		t.Fatalf("serve did not start:\n%s", out.String())
		return "", nil
	}

	printed, stop := serve()
	key := pemKey.FindString(printed)
	if key == "" {
		t.Fatalf("no key printed:\n%s", printed)
	}
	if r := runApp(t, &App{}, context.Background(), "login", "--server", "http://"+addr, "--api-key", key); r.code != ExitOK {
		t.Fatalf("login: %+v", r)
	}
	stop()

	printed, stop = serve()
	defer stop()
	if strings.Contains(printed, key) || pemKey.MatchString(printed) || !strings.Contains(printed, filepath.Join(filepath.Dir(path), "team-key")) {
		t.Errorf("a restart must name the key file and print no key:\n%s", printed)
	}
	if r := runApp(t, &App{}, context.Background(), "sandbox", "list"); r.code != ExitOK {
		t.Fatalf("the saved login after a restart: %+v", r)
	}
	st, err := os.Stat(filepath.Join(filepath.Dir(path), "team-key"))
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("key file: %v %v", st, err)
	}
}
