package rest

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/pomehq/pome/session"
)

// defaultTeam is the team `pome serve` creates when none is configured.
const defaultTeam = "default"

// defaultTeamKeys returns the teams of a server configured with none: team
// "default" with one key. With cfg.KeyFile the key is kept there (mode
// 0600) and read back on later starts, so that the key `pome login` saved
// keeps working across restarts; it is printed only when created, and a
// later start says where it is. Without a key file a new key is printed
// on every start.
func defaultTeamKeys(cfg Config, out io.Writer) (map[string][]string, error) {
	ephemeral := func() map[string][]string {
		key := session.NewAPIKey()
		fmt.Fprintf(out, "No team keys configured: created team %q with API key\n\n    %s\n\nIt is shown once. Use it with: pome login --server %s --api-key %s\n\n", defaultTeam, key, cfg.PublicURL, key)
		return map[string][]string{defaultTeam: {key}}
	}
	if cfg.KeyFile == "" {
		return ephemeral(), nil
	}
	key, created, err := loadOrCreateKey(cfg.KeyFile)
	var ke *keepError
	if errors.As(err, &ke) {
		// Serving matters more than keeping the key: say why this one
		// will not outlive the process.
		fmt.Fprintf(out, "Cannot keep a team key in %s (%v); the key below lasts until the server stops.\n", cfg.KeyFile, ke.err)
		return ephemeral(), nil
	}
	if err != nil {
		return nil, err
	}
	if created {
		fmt.Fprintf(out, "No team keys configured: created team %q with API key\n\n    %s\n\nIt is kept in %s (mode 0600) and used again on every start.\nUse it with: pome login --server %s --api-key %s\n\n", defaultTeam, key, cfg.KeyFile, cfg.PublicURL, key)
	} else {
		fmt.Fprintf(out, "No team keys configured: team %q uses the API key kept in %s.\nUse it with: pome login --server %s < %s\n\n", defaultTeam, cfg.KeyFile, cfg.PublicURL, cfg.KeyFile)
	}
	return map[string][]string{defaultTeam: {key}}, nil
}

// loadOrCreateKey reads the key kept at path, or creates one there. The file
// is written under a temporary name and linked into place, so that a server
// starting at the same moment reads either no file or the whole key, and
// the first of two to create one wins. A key file others may read is
// refused rather than used: it is the only secret the team needs.
func loadOrCreateKey(path string) (key string, created bool, err error) {
	if key, err := readKeyFile(path); err == nil || !errors.Is(err, fs.ErrNotExist) {
		return key, false, err
	}
	key = session.NewAPIKey()
	err = createKeyFile(path, key)
	if errors.Is(err, fs.ErrExist) {
		key, err := readKeyFile(path)
		return key, false, err
	}
	if err != nil {
		return "", false, &keepError{err}
	}
	return key, true, nil
}

// keepError is a key file that could not be created (a directory the
// server may not write, say), as opposed to one that exists but is unfit.
type keepError struct{ err error }

func (e *keepError) Error() string { return "team key file: " + e.err.Error() }
func (e *keepError) Unwrap() error { return e.err }

// createKeyFile writes key to a new file at path; fs.ErrExist when one is
// there already.
func createKeyFile(path, key string) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, ".team-key-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.WriteString(key + "\n")
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if err := os.Link(tmp.Name(), path); err == nil || errors.Is(err, fs.ErrExist) {
		return err
	}
	// A file system without hard links: create the file in place.
	return writeNewKeyFile(path, key)
}

func writeNewKeyFile(path, key string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	_, err = f.WriteString(key + "\n")
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

func readKeyFile(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return "", fmt.Errorf("team key file: %w", err)
	}
	if runtime.GOOS != "windows" && st.Mode().Perm()&0o077 != 0 {
		return "", fmt.Errorf("team key file %s may be read by others (mode %04o): run chmod 600 %s", path, st.Mode().Perm(), path)
	}
	data, err := io.ReadAll(io.LimitReader(f, 1024))
	if err != nil {
		return "", fmt.Errorf("team key file: %w", err)
	}
	key := strings.TrimSpace(string(data))
	if !strings.HasPrefix(key, "pme_") || len(key) < 20 || strings.ContainsAny(key, " \t\r\n") {
		// Never quote the content: it is meant to be a secret.
		return "", fmt.Errorf("team key file %s does not hold an API key (pme_ followed by 32 characters); remove it to have a new key created", path)
	}
	return key, nil
}
