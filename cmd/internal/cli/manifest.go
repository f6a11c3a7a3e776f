package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/spf13/cobra"
	"go.yaml.in/yaml/v3"
)

// manifestSchemaURL is the original Pome's schema for pome.json, which
// editors use to complete and check the file.
const manifestSchemaURL = "https://pome.sh/schemas/v1/pome.json"

// manifestFiles are the names a project manifest goes by, in the order the
// original Pome looks for them.
var manifestFiles = []string{"pome.json", "pome.yaml", "pome.yml"}

// Manifest is a project's pome.json (or pome.yaml), in the original Pome's
// fields. Fields it does not define are ignored, as its schema allows.
type Manifest struct {
	Schema        string        `json:"$schema,omitempty"`
	Agent         ManifestAgent `json:"agent"`
	Command       string        `json:"command,omitempty"`
	Twins         []string      `json:"twins,omitempty"`
	Tasks         string        `json:"tasks,omitempty"`
	ArtifactsDir  string        `json:"artifacts_dir,omitempty"`
	PassThreshold *int          `json:"pass_threshold,omitempty"`
}

// ManifestAgent names the agent under test.
type ManifestAgent struct {
	Slug        string `json:"slug"`
	Name        string `json:"name,omitempty"`
	Description string `json:"description,omitempty"`
	Version     string `json:"version,omitempty"`
	Framework   string `json:"framework,omitempty"`
}

// project is a manifest found on disk; its paths are relative to Dir.
type project struct {
	Path string
	Dir  string
	M    Manifest
}

var slugRE = regexp.MustCompile(`^[a-z0-9]+(?:-[a-z0-9]+)*$`)

// findProject looks for a manifest in start and its parents (nil, nil
// when there is none). Two manifests in one folder are an error, as in the
// original.
func findProject(start string) (*project, error) {
	dir, err := filepath.Abs(start)
	if err != nil {
		return nil, err
	}
	for {
		var present []string
		for _, name := range manifestFiles {
			if st, err := os.Stat(filepath.Join(dir, name)); err == nil && !st.IsDir() {
				present = append(present, name)
			}
		}
		if len(present) > 1 {
			return nil, usageErrorf("%s holds more than one manifest (%s): keep one, pome.json", dir, strings.Join(present, ", "))
		}
		if len(present) == 1 {
			path := filepath.Join(dir, present[0])
			m, err := readManifest(path)
			if err != nil {
				return nil, err
			}
			return &project{Path: path, Dir: dir, M: *m}, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return nil, nil
		}
		dir = parent
	}
}

// readManifest reads and checks one manifest file.
func readManifest(path string) (*Manifest, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, usageErrorf("%v", err)
	}
	if !strings.HasSuffix(path, ".json") {
		var doc any
		if err := yaml.Unmarshal(data, &doc); err != nil {
			return nil, usageErrorf("%s is not valid YAML: %v", path, err)
		}
		if data, err = json.Marshal(doc); err != nil {
			return nil, usageErrorf("%s: %v", path, err)
		}
	}
	var m Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return nil, usageErrorf("%s: %s must be %s", path, te.Field, jsonKind(te.Type.Kind().String()))
		}
		return nil, usageErrorf("%s is not a JSON object: %v", path, err)
	}
	if err := m.check(); err != nil {
		return nil, &ExitError{Code: ExitUsage, Err: fmt.Errorf("%s: %w", path, err), Fix: "see " + manifestSchemaURL + " for the fields"}
	}
	return &m, nil
}

func jsonKind(k string) string {
	switch k {
	case "int":
		return "a whole number"
	case "string":
		return "a string"
	case "slice":
		return "a list"
	}
	return "an object"
}

// check applies the schema's rules.
func (m *Manifest) check() error {
	switch {
	case m.Agent.Slug == "":
		return errors.New("agent.slug is required (lower-case words joined by -, e.g. \"support-bot\")")
	case len(m.Agent.Slug) > 64 || !slugRE.MatchString(m.Agent.Slug):
		return fmt.Errorf("agent.slug %q must be lower-case letters and digits joined by single -, at most 64 characters", m.Agent.Slug)
	case m.PassThreshold != nil && (*m.PassThreshold < 0 || *m.PassThreshold > 100):
		return fmt.Errorf("pass_threshold must be from 0 to 100, got %d", *m.PassThreshold)
	}
	for _, s := range m.Twins {
		if s == "" {
			return errors.New("twins holds an empty name")
		}
	}
	return nil
}

// path resolves a manifest path against the manifest's folder.
func (p *project) path(rel string) string {
	if rel == "" || filepath.IsAbs(rel) {
		return rel
	}
	return filepath.Join(p.Dir, rel)
}

// artifactsDir is where runs are: the command's --artifacts-dir when
// given, else the manifest's artifacts_dir, else "runs". A broken manifest
// is an error rather than a silent fallback.
func (a *App) artifactsDir(cmd *cobra.Command, flag string) (string, error) {
	if cmd.Flags().Changed("artifacts-dir") {
		return flag, nil
	}
	p, err := findProject(".")
	if err != nil {
		return "", err
	}
	if p != nil && p.M.ArtifactsDir != "" {
		return p.path(p.M.ArtifactsDir), nil
	}
	return flag, nil
}
