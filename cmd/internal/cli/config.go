package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/spf13/viper"
	"go.yaml.in/yaml/v3"
)

// Config keys, as spelled in the config file.
const (
	keyServer  = "server"
	keyAPIKey  = "api_key"
	keySession = "session"

	keyAddr         = "addr"
	keyPublicURL    = "public_url"
	keyRedisURL     = "redis_url"
	keyTTL          = "ttl"
	keyRetention    = "retention"
	keyMaxTwins     = "max_twins"
	keySandboxQuota = "sandbox_quota"
	keyMaxBodyBytes = "max_body_bytes"
	keyPprof        = "pprof"
	keyAPIKeys      = "api_keys"
	keyTeams        = "teams"
	keyRateLimits   = "rate_limits"
)

// defaultServer is where a fresh `pome serve` listens.
const defaultServer = "http://127.0.0.1:7070"

// envNames maps config keys to their environment variables. The names are
// spelled out rather than derived from a prefix because some differ from the
// key (session is POME_SESSION_ID, the variable `pome run` hands to agents).
var envNames = map[string]string{
	keyServer:       "POME_SERVER",
	keyAPIKey:       "POME_API_KEY",
	keySession:      "POME_SESSION_ID",
	keyAddr:         "POME_ADDR",
	keyPublicURL:    "POME_PUBLIC_URL",
	keyRedisURL:     "POME_REDIS_URL",
	keyTTL:          "POME_TTL",
	keyRetention:    "POME_RETENTION",
	keyMaxTwins:     "POME_MAX_TWINS",
	keySandboxQuota: "POME_SANDBOX_QUOTA",
	keyMaxBodyBytes: "POME_MAX_BODY_BYTES",
	keyPprof:        "POME_PPROF",
	keyAPIKeys:      "POME_API_KEYS",
}

// loadConfig resolves the configuration for cmd: its bound flags, POME_*
// env, the config file and defaults, in that order of precedence.
func (a *App) loadConfig(cmd *cobra.Command) error {
	v := viper.New()
	v.SetDefault(keyServer, defaultServer)
	for key, env := range envNames {
		if err := v.BindEnv(key, env); err != nil {
			return err
		}
	}
	var bindErr error
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if keys := f.Annotations[configKeyAnnotation]; len(keys) == 1 && bindErr == nil {
			bindErr = v.BindPFlag(keys[0], f)
		}
	})
	if bindErr != nil {
		return bindErr
	}

	flagPath, _ := cmd.Flags().GetString("config")
	a.configPath = configPath(flagPath)
	a.fileRaw = nil
	if a.configPath != "" {
		data, err := os.ReadFile(a.configPath)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			// No config file yet is the normal state before `pome login`,
			// which creates it (also at a --config path).
		case err != nil:
			return &ExitError{Code: ExitUsage, Err: fmt.Errorf("config file: %w", err)}
		default:
			if err := yaml.Unmarshal(data, &a.fileRaw); err != nil {
				return &ExitError{Code: ExitUsage, Err: fmt.Errorf("config file %s: %w", a.configPath, err)}
			}
			v.SetConfigType("yaml")
			if err := v.ReadConfig(bytes.NewReader(data)); err != nil {
				return &ExitError{Code: ExitUsage, Err: fmt.Errorf("config file %s: %w", a.configPath, err)}
			}
		}
	}
	a.v = v
	return nil
}

// configPath picks the config file: --config, then POME_CONFIG, then the
// XDG location. It returns "" only when no home directory is known.
func configPath(flagValue string) string {
	if flagValue != "" {
		return flagValue
	}
	if p := os.Getenv("POME_CONFIG"); p != "" {
		return p
	}
	if dir := userDir(); dir != "" {
		return filepath.Join(dir, "config.yaml")
	}
	return ""
}

// userDir is the user's Pome directory: $XDG_CONFIG_HOME/pome, else
// ~/.config/pome; "" when no home directory is known.
func userDir() string {
	if dir := os.Getenv("XDG_CONFIG_HOME"); dir != "" && filepath.IsAbs(dir) {
		return filepath.Join(dir, "pome")
	}
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		return ""
	}
	return filepath.Join(home, ".config", "pome")
}

// kv is one config key and the value to store under it.
type kv struct{ key, value string }

// writeConfigKeys sets keys in the config file at path and leaves the rest
// of the file — other keys, their order and comments — as it was. It goes
// through yaml.Node rather than viper.WriteConfig because viper would also
// write every default, env value and flag in effect into the file.
func writeConfigKeys(path string, pairs ...kv) error {
	_, err := editConfig(path, func(m *yaml.Node) bool {
		for _, p := range pairs {
			setMapping(m, p.key, p.value)
		}
		return true
	})
	return err
}

// deleteConfigKey removes key from the config file, keeping the rest; it
// reports whether the key was there.
func deleteConfigKey(path, key string) (bool, error) {
	return editConfig(path, func(m *yaml.Node) bool {
		for i := 0; i+1 < len(m.Content); i += 2 {
			if m.Content[i].Value == key {
				m.Content = append(m.Content[:i], m.Content[i+2:]...)
				return true
			}
		}
		return false
	})
}

// editConfig applies edit to the config file's top-level mapping and
// writes the file back when edit says it changed something.
func editConfig(path string, edit func(m *yaml.Node) bool) (bool, error) {
	if path == "" {
		return false, errors.New("no config file location: set --config, POME_CONFIG or HOME")
	}
	var doc yaml.Node
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, err
	}
	if len(bytes.TrimSpace(data)) > 0 {
		if err := yaml.Unmarshal(data, &doc); err != nil {
			return false, fmt.Errorf("config file %s: %w", path, err)
		}
	}
	if doc.Kind == 0 {
		doc.Kind = yaml.DocumentNode
	}
	if len(doc.Content) == 0 {
		// A file holding only comments parses to an empty document.
		doc.Content = []*yaml.Node{{Kind: yaml.MappingNode, Tag: "!!map"}}
	}
	m := doc.Content[0]
	if m.Kind != yaml.MappingNode {
		return false, fmt.Errorf("config file %s: top level is not a mapping", path)
	}
	if !edit(m) {
		return false, nil
	}
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return false, err
	}
	if err := enc.Close(); err != nil {
		return false, err
	}
	return true, writeFileAtomic(path, buf.Bytes(), 0o600, true)
}

// setMapping sets key to a string value in a YAML mapping node, in place
// when the key exists so that its comments stay attached.
func setMapping(m *yaml.Node, key, value string) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			n := m.Content[i+1]
			n.Kind, n.Tag, n.Value, n.Style, n.Content = yaml.ScalarNode, "!!str", value, 0, nil
			return
		}
	}
	m.Content = append(m.Content,
		&yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key},
		&yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: value})
}

// pendingFile is a file being replaced atomically: the data goes to a
// temporary file beside it, created with the final mode from the start so
// that a secret is never readable by others, even for a moment, and renamed
// over the target on Commit.
type pendingFile struct {
	f    *os.File
	path string
}

// createPending opens a temporary file next to path. With mkdir, missing
// parent directories are created private (0700).
func createPending(path string, perm fs.FileMode, mkdir bool) (*pendingFile, error) {
	dir := filepath.Dir(path)
	if mkdir {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, err
		}
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return nil, err
	}
	if err := f.Chmod(perm); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, err
	}
	return &pendingFile{f: f, path: path}, nil
}

// Commit writes data and moves the file into place.
func (p *pendingFile) Commit(data []byte) error {
	if _, err := p.f.Write(data); err != nil {
		p.Abort()
		return err
	}
	if err := p.f.Close(); err != nil {
		os.Remove(p.f.Name())
		return err
	}
	if err := os.Rename(p.f.Name(), p.path); err != nil {
		os.Remove(p.f.Name())
		return err
	}
	return nil
}

// Abort discards the temporary file; the target is untouched.
func (p *pendingFile) Abort() {
	p.f.Close()
	os.Remove(p.f.Name())
}

// writeFileAtomic replaces path with data, with mode perm.
func writeFileAtomic(path string, data []byte, perm fs.FileMode, mkdir bool) error {
	p, err := createPending(path, perm, mkdir)
	if err != nil {
		return err
	}
	return p.Commit(data)
}
