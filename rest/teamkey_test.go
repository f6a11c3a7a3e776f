package rest_test

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pomehq/pome/rest"
	"github.com/pomehq/pome/twins"
	"github.com/pomehq/pome/twins/github"
)

// started is one rest.Run in progress: what it printed before serving, and
// its address.
type started struct {
	out  string
	addr string
	stop func() error
}

func startRun(t *testing.T, cfg rest.Config) started {
	t.Helper()
	cfg.Addr = "127.0.0.1:0"
	cfg.Registry = twins.NewRegistry(github.New())
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		err := rest.Run(ctx, cfg, pw)
		pw.CloseWithError(err)
		done <- err
	}()
	var out strings.Builder
	sc := bufio.NewScanner(pr)
	serving := regexp.MustCompile(`^Pome serving \d+ twins on (\S+) `)
	for sc.Scan() {
		out.WriteString(sc.Text() + "\n")
		if m := serving.FindStringSubmatch(sc.Text()); m != nil {
			go io.Copy(io.Discard, pr)
			var once sync.Once
			var err error
			stop := func() error { once.Do(func() { cancel(); err = <-done }); return err }
			t.Cleanup(func() { stop() })
			return started{out: out.String(), addr: m[1], stop: stop}
		}
	}
	cancel()
	t.Fatalf("the server did not start: %v\n%s", <-done, out.String())
	return started{}
}

func usageStatus(t *testing.T, addr, key string) int {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, "http://"+addr+"/v1/usage", nil)
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := (&http.Client{Timeout: 5 * time.Second}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// TestGeneratedKeySurvivesRestart: with no team configured, the first start
// creates team "default"'s key, prints it and keeps it in the key file
// (mode 0600); the next start with the same file accepts the same key and
// says where it is kept without printing it again.
func TestGeneratedKeySurvivesRestart(t *testing.T) {
	keyFile := filepath.Join(t.TempDir(), "pome", "team-key")
	first := startRun(t, rest.Config{KeyFile: keyFile})
	key := regexp.MustCompile(`pme_[A-Za-z0-9]{32}`).FindString(first.out)
	if key == "" {
		t.Fatalf("the first start printed no key:\n%s", first.out)
	}
	st, err := os.Stat(keyFile)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("key file mode %04o, want 0600", st.Mode().Perm())
	}
	if data, _ := os.ReadFile(keyFile); strings.TrimSpace(string(data)) != key {
		t.Errorf("the key file does not hold the printed key")
	}
	if got := usageStatus(t, first.addr, key); got != http.StatusOK {
		t.Fatalf("first start: key answered %d", got)
	}
	if err := first.stop(); err != nil {
		t.Fatal(err)
	}

	second := startRun(t, rest.Config{KeyFile: keyFile})
	if strings.Contains(second.out, key) || !strings.Contains(second.out, keyFile) {
		t.Errorf("a later start must name the key file and not print the key:\n%s", second.out)
	}
	if got := usageStatus(t, second.addr, key); got != http.StatusOK {
		t.Fatalf("after a restart the saved key answered %d", got)
	}

	// Without a key file every start makes a new key, as before.
	third := startRun(t, rest.Config{})
	if other := regexp.MustCompile(`pme_[A-Za-z0-9]{32}`).FindString(third.out); other == "" || other == key {
		t.Errorf("without a key file: %q", third.out)
	}
}

// TestUnfitKeyFileIsRefused: a key file others may read, or one that holds
// no key, stops the start with an error that does not quote its content.
func TestUnfitKeyFileIsRefused(t *testing.T) {
	dir := t.TempDir()
	for name, c := range map[string]struct {
		content string
		mode    os.FileMode
	}{
		"readable by others": {"pme_" + strings.Repeat("a", 32) + "\n", 0o644},
		"not a key":          {"hunter2-secret\n", 0o600},
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(name, " ", "-"))
			if err := os.WriteFile(path, []byte(c.content), c.mode); err != nil {
				t.Fatal(err)
			}
			os.Chmod(path, c.mode)
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			err := rest.Run(ctx, rest.Config{Addr: "127.0.0.1:0", KeyFile: path, Registry: twins.NewRegistry(github.New())}, io.Discard)
			if err == nil || !strings.Contains(err.Error(), path) || strings.Contains(err.Error(), strings.TrimSpace(c.content)) {
				t.Fatalf("err = %v", err)
			}
		})
	}
}
