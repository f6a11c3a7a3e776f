package task

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/pomehq/pome/twins"
)

// The sidecar's _meta marks a seed written by hand rather than compiled
// from the prose, in the original Pome's format: either field carries it.
const (
	handAuthoredModel = "hand-authored"
	handAuthoredHash  = "sha256:hand-authored"
)

// seedMeta is the _meta object the original Pome's `compile-seeds` writes
// at the top of a sidecar seed. Only the fields the staleness warning reads
// are decoded; the rest (version, compiled_at) is accepted as it is.
type seedMeta struct {
	SourceHash string `json:"source_hash"`
	Model      string `json:"model"`
}

// seed reads the task's seed: the sibling <task>.seed.json when there is
// one, else the Seed State section, and validates every twin's document
// with the twin itself.
//
// The sidecar wins over the section, as in the original Pome, where the
// section is prose that `compile-seeds` turns into the sidecar: a task may
// carry both, and only the sidecar is a seed.
func (p *parser) seed(t *Task, secs map[string]*section) {
	var doc []byte
	file, line := p.file, 0
	s, inFile := secs["Seed State"]
	switch {
	case p.opt.SeedFile != nil:
		doc, file, line = p.opt.SeedFile, p.opt.SeedFileName, 1
		t.SeedFile = p.opt.SeedFileName
	case inFile:
		bs := blocks(s.lines)
		switch {
		case len(bs) == 0 && text(s.lines) == "":
			return
		case len(bs) == 0 || len(bs) == 1 && bs[0].lang == "" && !strings.HasPrefix(strings.TrimSpace(bs[0].body), "{"):
			// Prose, perhaps with a fenced file's content in it, as the
			// original's seed compiler reads it.
			e := p.errorf(s.line, "the Seed State section is prose, and there is no compiled seed beside the task")
			e.Hint = "write the seed as one fenced JSON block here, or put it in " + seedFileLabel(p.file) +
				" (the original Pome's `pome compile-seeds` writes that file from the prose)"
			return
		case len(bs) != 1:
			p.errorf(s.line, "the Seed State section must hold exactly one fenced JSON block, found %d", len(bs)).Hint =
				"or put the seed in " + seedFileLabel(p.file) + ", which wins over this section"
			return
		}
		if bs[0].lang != "" && bs[0].lang != "json" {
			p.errorf(bs[0].line, "the seed block is %q; seeds are JSON", bs[0].lang)
			return
		}
		doc, line = []byte(bs[0].body), bs[0].line
		t.SeedFile = p.file
	default:
		return
	}
	fail := func(format string, args ...any) *Error {
		e := &Error{File: file, Line: line, Msg: fmt.Sprintf(format, args...)}
		p.errs = append(p.errs, e)
		return e
	}
	seeds, meta, err := SplitSeed(p.opt.Registry, t.Config.Twins, doc)
	if err != nil {
		e := fail("%s", err.Msg)
		e.Hint = err.Hint
		return
	}
	if meta != nil && p.opt.SeedFile != nil && inFile {
		p.staleSeed(t, s, meta)
	}
	if len(seeds) == 0 {
		// Only provenance: every twin starts from its default world.
		return
	}
	if c, ok := seeds["clock"]; ok {
		var ts time.Time
		if err := json.Unmarshal(c, &ts); err != nil {
			fail("seed clock must be an RFC 3339 timestamp: %v", err)
		}
	}
	for _, name := range t.Config.Twins {
		raw, ok := seeds[name]
		if !ok {
			continue
		}
		tw, _ := p.opt.Registry.Get(name)
		if tw == nil || tw.NewWorld == nil {
			continue
		}
		env := &twins.Env{SandboxID: "ses_lint000000000000", Twin: name, APIURL: "http://127.0.0.1/" + name, Now: time.Now}
		if _, err := tw.NewWorld(twins.WithEnv(context.Background(), env), raw); err != nil {
			var se *twins.SeedError
			if errors.As(err, &se) {
				where := se.Path
				if where == "" {
					where = "the root"
				}
				fail("the %s seed is invalid at %s: %s", name, where, se.Message)
			} else {
				fail("the %s seed is invalid: %v", name, err)
			}
		}
	}
	t.Seed = seeds
}

// SplitSeed turns a seed document into one document per twin (plus
// "clock") for a task or sandbox of the given twins, and returns its
// top-level _meta (nil when none). A one-twin seed may be that twin's seed
// as it is ("flat", the original Pome's form) or an envelope keyed by twin
// name (ours); a seed of several twins is an envelope, as in the original.
// _meta, the original's provenance block at the top of a compiled seed, is
// dropped: it belongs to no twin. reg, when not nil, tells a twin outside
// the list from a key no twin has, for the message.
func SplitSeed(reg *twins.Registry, twinNames []string, doc []byte) (map[string]json.RawMessage, json.RawMessage, *Error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(doc, &top); err != nil || top == nil {
		if err == nil {
			err = errors.New("it is null")
		}
		return nil, nil, &Error{Msg: fmt.Sprintf("the seed must be a JSON object: %v", err)}
	}
	meta, hasMeta := top["_meta"]
	if hasMeta {
		delete(top, "_meta")
		doc, _ = json.Marshal(top)
	}
	if len(top) == 0 {
		return map[string]json.RawMessage{}, meta, nil
	}
	inTask := map[string]bool{}
	for _, n := range twinNames {
		inTask[n] = true
	}
	envelope := len(twinNames) > 1
	for k := range top {
		if inTask[k] {
			envelope = true
		}
		// No twin's seed has a key named like another twin: this is an
		// envelope for the wrong twins.
		if reg != nil {
			if _, known := reg.Get(k); known {
				envelope = true
			}
		}
	}
	if !envelope {
		return map[string]json.RawMessage{twinNames[0]: json.RawMessage(bytes.TrimSpace(doc))}, meta, nil
	}
	keys := make([]string, 0, len(top))
	for k := range top {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if inTask[k] || k == "clock" {
			continue
		}
		known := false
		if reg != nil {
			_, known = reg.Get(k)
		}
		switch {
		case known:
			return nil, nil, &Error{Msg: fmt.Sprintf("the seed has a %q document, but %s is not in this task's twins (%s)", k, k, strings.Join(twinNames, ", "))}
		case len(twinNames) > 1:
			return nil, nil, &Error{Msg: fmt.Sprintf("a task with several twins needs a seed envelope {%s}; %q is not one of its twins", quotedKeys(twinNames), k),
				Hint: "put each twin's seed under its name (\"clock\" may sit beside them)"}
		default:
			return nil, nil, &Error{Msg: fmt.Sprintf("unknown key %q in the seed envelope (twin names of this task and \"clock\")", k)}
		}
	}
	return top, meta, nil
}

// staleSeed warns when the prose Seed State section no longer hashes to
// the source_hash the sidecar was compiled from: the sidecar is what runs,
// so an edit to the prose alone changes nothing.
func (p *parser) staleSeed(t *Task, s *section, raw json.RawMessage) {
	var m seedMeta
	if json.Unmarshal(raw, &m) != nil || m.SourceHash == "" || m.SourceHash == handAuthoredHash || m.Model == handAuthoredModel {
		return
	}
	if got := ProseSeedHash(t.Source); got != m.SourceHash {
		t.Warnings = append(t.Warnings, Finding{Line: s.line, Warning: true,
			Msg: fmt.Sprintf("the Seed State prose changed since %s was compiled from it (its _meta.source_hash is %s, the prose now hashes to %s); the compiled seed is what runs",
				p.opt.SeedFileName, m.SourceHash, got)})
	}
}

// seedHeading and nextHeading find the Seed State section the way the
// original Pome's `compile-seeds` does, so that the hash below is the one
// it wrote: the heading line alone, up to the next line that starts with
// "##" and a space, fences or not.
var (
	seedHeading = regexp.MustCompile(`(?im)^##[ \t\n\r\f\v]+seed state[ \t\n\r\f\v]*$`)
	nextHeading = regexp.MustCompile(`(?m)^##[ \t\n\r\f\v]+`)
)

// ProseSeedHash is the original Pome's source_hash of a task's prose seed:
// "sha256:" and the hex SHA-256 of the Seed State section's text, trimmed.
// It is "" when the task has no such section.
func ProseSeedHash(src []byte) string {
	loc := seedHeading.FindIndex(src)
	if loc == nil {
		return ""
	}
	rest := src[loc[1]:]
	if next := nextHeading.FindIndex(rest); next != nil {
		rest = rest[:next[0]]
	}
	sum := sha256.Sum256([]byte(jsTrim(string(rest))))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// jsTrim trims what JavaScript's String.prototype.trim does: white space
// and line terminators, the byte-order mark among them.
func jsTrim(s string) string {
	return strings.TrimFunc(s, func(r rune) bool {
		switch r {
		case '\t', '\n', '\v', '\f', '\r', ' ', 0xa0, 0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000, 0xfeff:
			return true
		}
		return r >= 0x2000 && r <= 0x200a
	})
}

func seedFileLabel(taskFile string) string {
	if taskFile == "" {
		return "<task>.seed.json"
	}
	return SeedPath(taskFile)
}

func quotedKeys(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q: {…}", n)
	}
	return strings.Join(q, ", ")
}
