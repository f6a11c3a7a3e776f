package all

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/pomehq/pome/twins"
)

// vendorManifest is our compact record of a vendor MCP server's published
// tool list: for each tool, its parameter names, the required ones and the
// closed sets. testdata/conformance/<twin>.json holds one per vendor whose
// list is published; "source" says where the facts were read.
type vendorManifest struct {
	Vendor string                `json:"vendor"`
	Source string                `json:"source"`
	Tools  map[string]vendorTool `json:"tools"`
}

type vendorTool struct {
	Params   []string            `json:"params"`
	Required []string            `json:"required"`
	Enums    map[string][]string `json:"enums,omitempty"`
}

// knownDifference is one recorded way a twin's tool list differs from the
// vendor's, with the reason it is so. testdata/conformance/<twin>.known.json
// lists them; every one must still hold.
type knownDifference struct {
	Tool string `json:"tool"`
	// Kind is missing_tool (the vendor has the tool, the twin not),
	// missing_param (the vendor's tool takes it, the twin's not),
	// extra_param (the twin's tool takes it, the vendor's not),
	// required (one side requires it, the other not) or enum (the closed
	// sets differ, or one side has none).
	Kind   string `json:"kind"`
	Param  string `json:"param,omitempty"`
	Reason string `json:"reason"`
}

func (d knownDifference) key() string { return d.Tool + " " + d.Kind + " " + d.Param }

// conformanceTwins are the twins with a vendor tool list to hold them to.
// Slack's and Gmail's vendors publish no machine-readable tool list we
// could read; see docs/conformance.md.
var conformanceTwins = []string{"github", "stripe", "linear"}

// TestToolListConformance compares each twin's MCP tools with its vendor's
// published tool list (names, parameters, required, enums) and fails on any
// difference not recorded as known, and on any known difference that no
// longer holds, so that the record stays honest.
func TestToolListConformance(t *testing.T) {
	reg := Registry()
	for _, name := range conformanceTwins {
		t.Run(name, func(t *testing.T) {
			tw, ok := reg.Get(name)
			if !ok {
				t.Fatalf("no twin %s", name)
			}
			m := readManifest(t, name)
			known := readKnown(t, name)
			diffs, present, identical := compareTools(tw, m)
			got := map[string]knownDifference{}
			for _, d := range diffs {
				got[d.key()] = d
			}
			for _, k := range sortedKeys(got) {
				if _, ok := known[k]; !ok {
					d := got[k]
					t.Errorf("unrecorded difference from %s: %s %s %s (%s); fix the twin or add it to testdata/conformance/%s.known.json with a reason",
						m.Vendor, d.Tool, d.Kind, d.Param, d.Reason, name)
				}
			}
			for _, k := range sortedKeys(known) {
				if _, ok := got[k]; !ok {
					d := known[k]
					t.Errorf("known difference no longer holds: %s %s %s; remove it from testdata/conformance/%s.known.json", d.Tool, d.Kind, d.Param, name)
				}
			}
			nameDrift := map[string]bool{}
			for _, d := range diffs {
				if d.Kind == "missing_param" || d.Kind == "extra_param" {
					nameDrift[d.Tool] = true
				}
			}
			t.Logf("%s: %d of %d tools present, %d with the same parameter names, %d identical in names, required and enums",
				m.Vendor, present, len(m.Tools), present-len(nameDrift), identical)
		})
	}
}

// compareTools lists the differences between tw's tools and the manifest,
// the number of the vendor's tools the twin has, and the number of those
// whose parameters, required list and enums are the vendor's exactly.
func compareTools(tw *twins.Twin, m vendorManifest) (diffs []knownDifference, present, identical int) {
	for _, tool := range sortedKeys(m.Tools) {
		v := m.Tools[tool]
		a, ok := tw.Action(tool)
		if !ok {
			diffs = append(diffs, knownDifference{Tool: tool, Kind: "missing_tool", Reason: "the twin has no such tool"})
			continue
		}
		present++
		ours := toolFacts(a.InputSchema())
		before := len(diffs)
		for _, p := range v.Params {
			if !slices.Contains(ours.Params, p) {
				diffs = append(diffs, knownDifference{Tool: tool, Kind: "missing_param", Param: p, Reason: "the vendor's tool takes it"})
			}
		}
		for _, p := range ours.Params {
			if !slices.Contains(v.Params, p) {
				diffs = append(diffs, knownDifference{Tool: tool, Kind: "extra_param", Param: p, Reason: "the vendor's tool does not take it"})
			}
		}
		for _, p := range v.Params {
			if !slices.Contains(ours.Params, p) {
				continue
			}
			if vr, or := slices.Contains(v.Required, p), slices.Contains(ours.Required, p); vr != or {
				diffs = append(diffs, knownDifference{Tool: tool, Kind: "required", Param: p, Reason: fmt.Sprintf("vendor required=%v, twin required=%v", vr, or)})
			}
			ve, oe := sortedCopy(v.Enums[p]), sortedCopy(ours.Enums[p])
			if !slices.Equal(ve, oe) {
				diffs = append(diffs, knownDifference{Tool: tool, Kind: "enum", Param: p, Reason: fmt.Sprintf("vendor %v, twin %v", v.Enums[p], ours.Enums[p])})
			}
		}
		if len(diffs) == before {
			identical++
		}
	}
	return diffs, present, identical
}

// toolFacts reads a tool's facts from its input schema as sent on the wire.
func toolFacts(s *jsonschema.Schema) vendorTool {
	f := vendorTool{Required: append([]string(nil), s.Required...), Enums: map[string][]string{}}
	for name, p := range s.Properties {
		f.Params = append(f.Params, name)
		e := p.Enum
		if p.Items != nil && e == nil {
			e = p.Items.Enum
		}
		for _, v := range e {
			if str, ok := v.(string); ok { // null stands for an omitted pointer, not a value
				f.Enums[name] = append(f.Enums[name], str)
			}
		}
	}
	sort.Strings(f.Params)
	return f
}

func readManifest(t *testing.T, name string) vendorManifest {
	t.Helper()
	var m vendorManifest
	readStrict(t, filepath.Join("testdata", "conformance", name+".json"), &m)
	if len(m.Tools) == 0 || m.Vendor == "" || m.Source == "" {
		t.Fatalf("%s manifest: vendor, source and tools are required", name)
	}
	return m
}

func readKnown(t *testing.T, name string) map[string]knownDifference {
	t.Helper()
	var list []knownDifference
	readStrict(t, filepath.Join("testdata", "conformance", name+".known.json"), &list)
	out := map[string]knownDifference{}
	for _, d := range list {
		if strings.TrimSpace(d.Reason) == "" {
			t.Errorf("%s known difference %s has no reason", name, d.key())
		}
		if _, dup := out[d.key()]; dup {
			t.Errorf("%s known difference %s listed twice", name, d.key())
		}
		out[d.key()] = d
	}
	return out
}

func readStrict(t *testing.T, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func sortedCopy(s []string) []string {
	c := slices.Clone(s)
	sort.Strings(c)
	return c
}
