package task

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	yaml "go.yaml.in/yaml/v3"
)

// config reads the ## Config block. It walks the YAML node tree rather
// than decoding into a struct so that every problem names its own line.
func (p *parser) config(t *Task, s *section) {
	t.Config = Config{Timeout: DefaultTimeout, Runs: DefaultRuns, PassThreshold: DefaultPassThreshold}
	if s == nil {
		// No Config section: every key takes its default, as in the
		// original Pome.
		p.defaultTwins(t, 0)
		return
	}
	bs := blocks(s.lines)
	switch {
	case len(bs) == 0 && text(s.lines) == "":
		// An empty section is no config, as in the original Pome.
		p.defaultTwins(t, s.line)
		return
	case len(bs) == 0:
		// The original reads an unfenced section as YAML too.
		bs = []block{{body: unfenced(s.lines), line: s.line}}
	case len(bs) != 1:
		p.errorf(s.line, "the Config section must hold exactly one fenced YAML or JSON block, found %d", len(bs))
		return
	}
	b := bs[0]
	switch b.lang {
	case "", "yaml", "yml", "json":
	default:
		p.errorf(b.line, "the config block is %q; write YAML or JSON", b.lang)
		return
	}
	// Node lines count from the block's first line, one below the fence.
	at := func(n *yaml.Node) int { return b.line + n.Line }
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(b.body), &doc); err != nil {
		p.errorf(b.line, "the config is not valid YAML: %s", strings.TrimPrefix(err.Error(), "yaml: "))
		return
	}
	if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		p.errorf(b.line, "the config must be a mapping such as \"twins: [github]\"")
		return
	}
	m := doc.Content[0]
	seen := map[string]bool{}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		if seen[k.Value] {
			p.errorf(at(k), "config key %q is given twice", k.Value)
			continue
		}
		seen[k.Value] = true
		switch k.Value {
		case "twins":
			p.configTwins(t, v, at(v))
		case "class":
			if v.Kind != yaml.ScalarNode || !validClass(v.Value) {
				p.errorf(at(v), "class must be conformance, restraint or adversarial, got %q", v.Value)
				continue
			}
			t.Config.Class = v.Value
		case "timeout":
			d, err := parseTimeout(v)
			if err != nil {
				p.errorf(at(v), "timeout: %v", err)
				continue
			}
			t.Config.Timeout = d
		case "runs":
			n, err := strconv.Atoi(v.Value)
			if v.Kind != yaml.ScalarNode || err != nil || n < 1 || n > 1000 {
				p.errorf(at(v), "runs must be a whole number from 1 to 1000, got %q", v.Value)
				continue
			}
			t.Config.Runs = n
		case "passThreshold":
			f, err := strconv.ParseFloat(v.Value, 64)
			if v.Kind != yaml.ScalarNode || err != nil || math.IsNaN(f) || f < 0 || f > 100 {
				p.errorf(at(v), "passThreshold must be a number from 0 to 100 (a score in percent), got %q", v.Value)
				continue
			}
			t.Config.PassThreshold, t.Config.PassThresholdSet = f, true
		case "judge":
			if v.Kind != yaml.ScalarNode || strings.TrimSpace(v.Value) == "" {
				p.errorf(at(v), "judge must name a model, such as claude-haiku-4-5, got %q", v.Value)
				continue
			}
			t.Config.Judge = strings.TrimSpace(v.Value)
		case "modelScored":
			b, err := strconv.ParseBool(v.Value)
			if v.Kind != yaml.ScalarNode || v.ShortTag() != "!!bool" || err != nil {
				p.errorf(at(v), "modelScored must be true or false, got %q", v.Value)
				continue
			}
			t.Config.ModelScored = b
		default:
			e := p.errorf(at(k), "unknown config key %q", k.Value)
			e.Hint = "keys are twins, class, timeout, runs, passThreshold, judge and modelScored"
			if strings.EqualFold(strings.ReplaceAll(k.Value, "_", ""), "passthreshold") {
				e.Hint = "write passThreshold"
			}
		}
	}
	if !seen["twins"] {
		p.defaultTwins(t, b.line)
	}
}

// defaultTwins applies the default twins, [github].
func (p *parser) defaultTwins(t *Task, line int) {
	if _, ok := p.opt.Registry.Get(DefaultTwin); !ok {
		p.errorf(line, "the config names no twins, and the default twin %s is not offered here", DefaultTwin).Hint = "add twins: [" + strings.Join(p.opt.Registry.Names(), ", ") + "] (one or several)"
		return
	}
	t.Config.Twins = []string{DefaultTwin}
}

// Task classes, as the original Pome names them: what population of
// tasks a task belongs to.
const (
	ClassConformance = "conformance"
	ClassRestraint   = "restraint"
	ClassAdversarial = "adversarial"
)

func validClass(c string) bool {
	switch c {
	case ClassConformance, ClassRestraint, ClassAdversarial:
		return true
	}
	return false
}

func (p *parser) configTwins(t *Task, v *yaml.Node, line int) {
	var names []string
	switch v.Kind {
	case yaml.ScalarNode:
		names = []string{v.Value}
	case yaml.SequenceNode:
		for _, n := range v.Content {
			if n.Kind != yaml.ScalarNode {
				p.errorf(line, "twins must be a list of twin names")
				return
			}
			names = append(names, n.Value)
		}
	default:
		p.errorf(line, "twins must be a list of twin names")
		return
	}
	if len(names) == 0 {
		p.errorf(line, "twins is empty; name at least one of %s", strings.Join(p.opt.Registry.Names(), ", "))
		return
	}
	seen := map[string]bool{}
	ok := true
	for _, raw := range names {
		n := strings.ToLower(strings.TrimSpace(raw))
		if _, known := p.opt.Registry.Get(n); !known {
			p.errorf(line, "unknown twin %q", raw).Hint = "twins are " + strings.Join(p.opt.Registry.Names(), ", ")
			ok = false
			continue
		}
		if seen[n] {
			p.errorf(line, "twin %q is listed twice", n)
			ok = false
			continue
		}
		seen[n] = true
		t.Config.Twins = append(t.Config.Twins, n)
	}
	if !ok {
		t.Config.Twins = nil
	}
}

// parseTimeout accepts seconds (120) or a Go duration ("2m", "90s").
func parseTimeout(v *yaml.Node) (time.Duration, error) {
	if v.Kind != yaml.ScalarNode {
		return 0, fmt.Errorf("want seconds (120) or a duration (\"2m\")")
	}
	var d time.Duration
	if f, err := strconv.ParseFloat(v.Value, 64); err == nil {
		d = time.Duration(f * float64(time.Second))
	} else if pd, err := time.ParseDuration(v.Value); err == nil {
		d = pd
	} else {
		return 0, fmt.Errorf("want seconds (120) or a duration (\"2m\"), got %q", v.Value)
	}
	if d <= 0 || d > 24*time.Hour {
		return 0, fmt.Errorf("must be more than 0 and at most 24h, got %s", v.Value)
	}
	return d, nil
}

// unfenced is a section's lines as one YAML document whose first line is
// the line after the heading, so that node lines count from the heading as
// they count from a fence.
func unfenced(lines []srcLine) string {
	parts := make([]string, 0, len(lines))
	for _, l := range lines {
		parts = append(parts, l.text)
	}
	return strings.Join(parts, "\n")
}
