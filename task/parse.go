package task

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/pomehq/pome/twins"
)

// Task is a parsed task file.
type Task struct {
	// File is the path the task was read from, as given (for messages).
	File  string
	Title string
	// TitleLine is the line of the "# Title" heading.
	TitleLine int
	Config    Config
	// Seed is the sandbox seed: one document per twin that has one, plus
	// "clock" when the envelope fixes the sandbox clock. Nil: default worlds.
	Seed map[string]json.RawMessage
	// SeedFile is where the seed came from ("" when none): the task file
	// itself or its sibling <task>.seed.json.
	SeedFile string
	Prompt   string
	// Expected is the Expected Behavior section: for judges, never for the
	// agent.
	Expected string
	Criteria []Criterion
	// Source is the task file as read, sent to the server for grading.
	Source []byte
	// Warnings are what Parse noticed that does not stop a run (a sidecar
	// seed older than the prose it was compiled from, a section only the
	// original Pome's tools read).
	Warnings []Finding
}

// Config is the task's ## Config block.
type Config struct {
	Twins []string
	// Class is conformance, restraint or adversarial ("" when not given):
	// recorded in meta.json and the verdict, not graded.
	Class   string
	Timeout time.Duration
	Runs    int
	// PassThreshold is the score (0–100) a run needs to pass.
	PassThreshold float64
	// PassThresholdSet says the task set PassThreshold itself, so that a
	// project-wide default (pome.json's pass_threshold) leaves it alone.
	PassThresholdSet bool
	// Judge is the model the original Pome's config names for [model]
	// criteria ("" when not given); a model judge uses it when neither
	// --judge-model nor the provider's environment names one.
	Judge string
	// ModelScored counts a model judge's readings of [model] criteria in
	// the score. By default they are recorded beside the verdict and left
	// out of it, since a model's reading is not repeatable the way a
	// check's is.
	ModelScored bool
}

// Defaults of a task's config.
const (
	DefaultTwin          = "github"
	DefaultTimeout       = 60 * time.Second
	DefaultRuns          = 1
	DefaultPassThreshold = 100
)

// Kind says how a criterion is graded.
type Kind string

// Criterion kinds.
const (
	Code  Kind = "code"
	Model Kind = "model"
)

// Criterion is one line of the Success Criteria section.
type Criterion struct {
	// Line is the 1-based line in the task file (0 for criteria sent
	// without a file).
	Line int
	Kind Kind
	// Twin is the twin a [code] criterion reads.
	Twin         string
	AlwaysScored bool
	// Text is the criterion without its tag.
	Text string
	// Check and Args are the check a [code] line bound to, and the
	// arguments its text carries.
	Check *twins.Check
	Args  map[string]string
}

// Error is one problem in a task file, at a line.
type Error struct {
	File string
	Line int
	Msg  string
	// Hint says how to fix it, when there is something useful to say.
	Hint string
	// prose marks a criteria line that is no criterion at all: prose in a
	// task file, an error where only criteria are expected.
	prose bool
	// cascade marks an error that only follows from the config's: the
	// task names no valid twins, which the config's error already says.
	cascade bool
}

func (e *Error) Error() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File)
		b.WriteByte(':')
	}
	if e.Line > 0 {
		fmt.Fprintf(&b, "%d:", e.Line)
	}
	if b.Len() > 0 {
		b.WriteByte(' ')
	}
	b.WriteString(e.Msg)
	if e.Hint != "" {
		b.WriteString(" (hint: ")
		b.WriteString(e.Hint)
		b.WriteByte(')')
	}
	return b.String()
}

// Errors is every problem found in one task file, in line order.
type Errors []*Error

func (es Errors) Error() string {
	lines := make([]string, len(es))
	for i, e := range es {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

// AsErrors returns the problems err carries, or nil when it is not a task
// validation error.
func AsErrors(err error) Errors {
	var es Errors
	if errors.As(err, &es) {
		return es
	}
	var e *Error
	if errors.As(err, &e) {
		return Errors{e}
	}
	return nil
}

// Options tune Parse.
type Options struct {
	// Registry holds the twins whose checks criteria bind to and whose
	// seeds are validated. Required.
	Registry *twins.Registry
	// SeedFile is the sibling seed document and its name, used when the
	// task has no Seed State section (nil: none).
	SeedFile     []byte
	SeedFileName string
	// SkipSeed leaves the seed unread and unvalidated: the grader reads the
	// seed the sandbox was created with, not the one the file names.
	SkipSeed bool
}

// ParseFile reads a task file and its sibling <task>.seed.json, if any.
func ParseFile(path string, reg *twins.Registry) (*Task, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	opt := Options{Registry: reg}
	seedPath := SeedPath(path)
	if data, err := os.ReadFile(seedPath); err == nil {
		opt.SeedFile, opt.SeedFileName = data, seedPath
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	return Parse(path, src, opt)
}

// SeedPath is the sibling seed file of a task file: x.md → x.seed.json.
func SeedPath(taskPath string) string {
	return strings.TrimSuffix(taskPath, filepath.Ext(taskPath)) + ".seed.json"
}

// section names, lower-case, to their canonical name.
var sectionNames = map[string]string{
	"config":             "Config",
	"seed state":         "Seed State",
	"prompt":             "Prompt",
	"task":               "Prompt",
	"success criteria":   "Success Criteria",
	"checks":             "Success Criteria",
	"expected behavior":  "Expected Behavior",
	"expected behaviour": "Expected Behavior",
	"setup":              "Setup",
}

type section struct {
	name  string
	line  int // line of the heading
	lines []srcLine
}

type srcLine struct {
	n    int
	text string
}

type parser struct {
	file string
	opt  Options
	errs Errors
}

func (p *parser) errorf(line int, format string, args ...any) *Error {
	e := &Error{File: p.file, Line: line, Msg: fmt.Sprintf(format, args...)}
	p.errs = append(p.errs, e)
	return e
}

// Parse reads a task from src; name is used in messages. It reports every
// problem it finds, as Errors.
func Parse(name string, src []byte, opt Options) (*Task, error) {
	if opt.Registry == nil {
		return nil, errors.New("task: no twin registry")
	}
	p := &parser{file: name, opt: opt}
	t := &Task{File: name, Source: src}
	secs := p.split(t, src)

	if t.Title == "" {
		// The original Pome titles such a task with its file name.
		t.Title = Slug(t)
	}
	p.config(t, secs["Config"])
	if s, ok := secs["Prompt"]; ok {
		t.Prompt = text(s.lines)
		if t.Prompt == "" {
			p.errorf(s.line, "the Prompt section is empty")
		}
	} else {
		p.errorf(0, "the task has no \"## Prompt\" section")
	}
	if s, ok := secs["Expected Behavior"]; ok {
		t.Expected = text(s.lines)
	}
	if !opt.SkipSeed && len(t.Config.Twins) > 0 {
		p.seed(t, secs)
	}
	if s, ok := secs["Success Criteria"]; ok {
		for _, l := range s.lines {
			if c, ok := p.criterion(t, l); ok {
				t.Criteria = append(t.Criteria, c)
			}
		}
		if len(t.Criteria) == 0 && !p.hasErrorsIn(s) && len(t.Config.Twins) > 0 {
			p.errorf(s.line, "the Success Criteria section has no criteria")
		}
	} else {
		p.errorf(0, "the task has no \"## Success Criteria\" section")
	}
	if len(p.errs) > 0 {
		sort.SliceStable(p.errs, func(i, j int) bool { return p.errs[i].Line < p.errs[j].Line })
		return t, p.errs
	}
	return t, nil
}

func (p *parser) hasErrorsIn(s *section) bool {
	for _, e := range p.errs {
		if len(s.lines) > 0 && e.Line >= s.lines[0].n && e.Line <= s.lines[len(s.lines)-1].n {
			return true
		}
	}
	return false
}

// split cuts the file into the title and its sections. Headings inside
// fenced blocks are content, not structure.
func (p *parser) split(t *Task, src []byte) map[string]*section {
	secs := map[string]*section{}
	var cur *section
	fence := ""
	lines := strings.Split(strings.ReplaceAll(string(src), "\r\n", "\n"), "\n")
	for i, raw := range lines {
		n := i + 1
		trimmed := strings.TrimSpace(raw)
		if fence != "" {
			if strings.HasPrefix(trimmed, fence) && strings.Trim(trimmed, fence[:1]) == "" {
				fence = ""
			}
			if cur != nil {
				cur.lines = append(cur.lines, srcLine{n, raw})
			}
			continue
		}
		if f := fenceOpen(trimmed); f != "" {
			fence = f
			if cur != nil {
				cur.lines = append(cur.lines, srcLine{n, raw})
			}
			continue
		}
		switch {
		case strings.HasPrefix(trimmed, "# ") && t.Title == "":
			// The first "# " line is the title, as in the original Pome;
			// inside a section it stays that section's content too, and
			// later ones are only content.
			t.Title, t.TitleLine = strings.TrimSpace(trimmed[2:]), n
			if cur != nil {
				cur.lines = append(cur.lines, srcLine{n, raw})
			}
			continue
		case strings.HasPrefix(trimmed, "## "):
			heading := strings.TrimSpace(trimmed[3:])
			canon, ok := sectionNames[strings.ToLower(strings.TrimRight(heading, ":"))]
			if !ok {
				// The original Pome ignores a section it does not know;
				// so do we, but say so, since a misspelt name loses it.
				t.Warnings = append(t.Warnings, Finding{Line: n, Warning: true,
					Msg: fmt.Sprintf("unknown section %q is ignored (sections are Config, Seed State, Prompt or Task, Success Criteria or Checks, Expected Behavior and Setup)", heading)})
				cur = &section{name: "", line: n} // swallow its body
				continue
			}
			if prev, dup := secs[canon]; dup {
				p.errorf(n, "a second %s section (the first is on line %d)", canon, prev.line)
				cur = &section{line: n}
				continue
			}
			cur = &section{name: canon, line: n}
			secs[canon] = cur
			continue
		}
		// Text outside any section (before the title, say) is prose.
		if cur != nil {
			cur.lines = append(cur.lines, srcLine{n, raw})
		}
	}
	if fence != "" {
		p.errorf(len(lines), "a fenced block is never closed")
	}
	return secs
}

// fenceOpen returns the fence marker a line opens (``` or ~~~, possibly
// longer), or "".
func fenceOpen(line string) string {
	for _, c := range []string{"`", "~"} {
		if strings.HasPrefix(line, c+c+c) {
			n := len(line) - len(strings.TrimLeft(line, c))
			return strings.Repeat(c, n)
		}
	}
	return ""
}

// text joins section lines and trims blank edges.
func text(lines []srcLine) string {
	parts := make([]string, len(lines))
	for i, l := range lines {
		parts[i] = l.text
	}
	return strings.TrimSpace(strings.Join(parts, "\n"))
}

// block is one fenced block: its info string, body and the line of its
// opening fence.
type block struct {
	lang string
	body string
	line int
}

// blocks returns the fenced blocks of a section.
func blocks(lines []srcLine) []block {
	var out []block
	var cur *block
	var body []string
	fence := ""
	for _, l := range lines {
		trimmed := strings.TrimSpace(l.text)
		if cur == nil {
			if f := fenceOpen(trimmed); f != "" {
				fence = f
				cur = &block{lang: strings.ToLower(strings.TrimSpace(trimmed[len(f):])), line: l.n}
				body = nil
			}
			continue
		}
		if strings.HasPrefix(trimmed, fence) && strings.Trim(trimmed, fence[:1]) == "" {
			cur.body = strings.Join(body, "\n")
			out = append(out, *cur)
			cur = nil
			continue
		}
		body = append(body, l.text)
	}
	return out
}

// criterionLine is a list item with a bracketed tag: "- [code:github] …",
// "* [model] …" or "1. [code] …".
var criterionLine = regexp.MustCompile(`^\s*(?:[-*+]|\d+[.)])\s+\[([^\]]*)\]\s*(.*?)\s*$`)

// listItem is any list item, to say what is wrong with an untagged one.
var listItem = regexp.MustCompile(`^\s*(?:[-*+]|\d+[.)])\s+(.*?)\s*$`)

// nearMiss is a list item that reaches for a [code] or [model] tag (or a
// retired [D]/[P] one) and misses the grammar: "-[code] …", "- [code …".
// It is refused rather than read as prose, as in the original Pome, because
// it would otherwise go ungraded without a word.
var nearMiss = regexp.MustCompile(`(?i)^\s*(?:[-*+]|\d+[.)])\s*\[\s*(?:code|model|d|p)\b`)

// criterion parses one line of the criteria section. Blank lines, HTML
// comments and other prose are skipped, as in the original Pome; a list
// item without any bracketed tag ("- [ ] todo" has one) is prose too, but
// worth a warning, since it reads like a criterion that will not be graded.
func (p *parser) criterion(t *Task, l srcLine) (Criterion, bool) {
	trimmed := strings.TrimSpace(l.text)
	if trimmed == "" || (strings.HasPrefix(trimmed, "<!--") && strings.HasSuffix(trimmed, "-->")) {
		return Criterion{}, false
	}
	c, err := parseCriterion(p.opt.Registry, t.Config.Twins, l.text)
	if err != nil && err.prose {
		if li := listItem.FindStringSubmatch(l.text); li != nil && !criterionLine.MatchString(l.text) {
			t.Warnings = append(t.Warnings, Finding{Line: l.n, Warning: true,
				Msg: "this list item has no [code] or [model] tag, so it is prose and not graded: " + quote(li[1])})
		}
		return Criterion{}, false
	}
	if err != nil && err.cascade && len(p.errs) > 0 {
		return Criterion{}, false
	}
	if err != nil {
		err.File, err.Line = p.file, l.n
		p.errs = append(p.errs, err)
		return Criterion{}, false
	}
	c.Line = l.n
	return c, true
}

// parseCriterion parses and binds one criterion line. A line that is not a
// criterion at all comes back as an error marked prose.
func parseCriterion(reg *twins.Registry, taskTwins []string, line string) (Criterion, *Error) {
	m := criterionLine.FindStringSubmatch(line)
	if m == nil {
		if nearMiss.MatchString(line) {
			return Criterion{}, &Error{Msg: "this line reaches for a criterion tag but does not match the criterion grammar: " + quote(strings.TrimSpace(line)),
				Hint: "write \"- [code] …\", \"- [code:twin] …\", \"- [code:twin always-scored] …\" or \"- [model] …\""}
		}
		if li := listItem.FindStringSubmatch(line); li != nil {
			return Criterion{}, &Error{prose: true, Msg: "criterion has no [code] or [model] tag: " + quote(li[1]),
				Hint: "start it with [code] for a check or [model] for a judge"}
		}
		return Criterion{}, &Error{prose: true, Msg: "text that is not a criterion: " + quote(strings.TrimSpace(line)),
			Hint: "a criterion is \"- [code] …\" or \"- [model] …\""}
	}
	tag, body := strings.TrimSpace(m[1]), m[2]
	fields := strings.Fields(tag)
	head := ""
	if len(fields) > 0 {
		head = fields[0]
	}
	kind, twin, _ := strings.Cut(head, ":")
	switch k := strings.ToLower(kind); {
	case k == "d" || k == "p":
		return Criterion{}, retiredTag(kind, twin, body)
	case k != "code" && k != "model":
		// "- [ ] todo", "- [x] done", "- [note] …": Markdown, not a
		// criterion, as in the original Pome.
		return Criterion{}, &Error{prose: true, Msg: "unknown criterion tag [" + tag + "]", Hint: "tags are [code], [code:twin], [code:twin always-scored] and [model]"}
	}
	if body == "" {
		return Criterion{}, &Error{Msg: "criterion [" + tag + "] has no text"}
	}
	if strings.ToLower(kind) == "model" {
		return modelCriterion(reg, taskTwins, tag, twin, fields[1:], body)
	}
	c := Criterion{Kind: Code, Text: body}
	for _, opt := range fields[1:] {
		if opt != "always-scored" {
			return Criterion{}, &Error{Msg: fmt.Sprintf("unknown option %q in [%s]", opt, tag), Hint: "the one option is always-scored"}
		}
		c.AlwaysScored = true
	}
	inTask := false
	for _, n := range taskTwins {
		if n == twin {
			inTask = true
		}
	}
	switch {
	case twin == "" && len(taskTwins) == 1:
		c.Twin = taskTwins[0]
	case len(taskTwins) == 0:
		return Criterion{}, &Error{cascade: true, Msg: "cannot tell which twin this [code] criterion reads: the task names no valid twins"}
	case twin == "":
		e := &Error{Msg: fmt.Sprintf("this task has several twins (%s); tag the criterion with its twin", strings.Join(taskTwins, ", "))}
		for _, n := range taskTwins {
			if tw, ok := reg.Get(n); ok {
				if ch, _ := bind(tw, body); ch != nil {
					e.Hint = fmt.Sprintf("it reads like [code:%s] (%s)", n, ch.ID)
					break
				}
			}
		}
		return Criterion{}, e
	case !inTask:
		if _, ok := reg.Get(twin); !ok {
			return Criterion{}, &Error{Msg: fmt.Sprintf("unknown twin %q in [%s]", twin, tag), Hint: "twins are " + strings.Join(reg.Names(), ", ")}
		}
		return Criterion{}, &Error{Msg: fmt.Sprintf("twin %q is not in this task's twins (%s)", twin, strings.Join(taskTwins, ", ")), Hint: "add it to twins: in ## Config, or fix the tag"}
	default:
		c.Twin = twin
	}
	tw, ok := reg.Get(c.Twin)
	if !ok {
		return Criterion{}, &Error{Msg: fmt.Sprintf("unknown twin %q", c.Twin), Hint: "twins are " + strings.Join(reg.Names(), ", ")}
	}
	ch, args := bind(tw, body)
	if ch == nil {
		return Criterion{}, unbound(tw, body)
	}
	c.Check, c.Args = ch, args
	return c, nil
}

func quote(s string) string {
	if len(s) > 80 {
		s = s[:77] + "…"
	}
	return fmt.Sprintf("%q", s)
}

// retiredTag is the original Pome's migration hint for the [D] and [P]
// tags, which it renamed [code] and [model]; twin tags carry over.
func retiredTag(kind, twin, body string) *Error {
	now := map[string]string{"d": "code", "p": "model"}[strings.ToLower(kind)]
	old, tag := "["+strings.ToUpper(kind), "["+now
	if twin != "" {
		old, tag = old+":"+twin, tag+":"+twin
	}
	old, tag = old+"]", tag+"]"
	return &Error{Msg: fmt.Sprintf("criterion %q uses a retired tag", old+" "+body),
		Hint: fmt.Sprintf("write %s: tags were renamed [D]→[code] and [P]→[model], and twin tags carry over ([D:github]→[code:github])", tag)}
}

// modelCriterion is a [model] line: it may name one of the task's twins,
// which it is about, as in the original Pome; it takes no option, since
// always-scored only means something against a seed.
func modelCriterion(reg *twins.Registry, taskTwins []string, tag, twin string, opts []string, body string) (Criterion, *Error) {
	for _, o := range opts {
		if o == "always-scored" {
			return Criterion{}, &Error{Msg: "a [model] criterion cannot be always-scored: [" + tag + "]",
				Hint: "always-scored applies to [code] criteria; a [model] one is judged from the run, never against the seed"}
		}
		return Criterion{}, &Error{Msg: fmt.Sprintf("unknown option %q in [%s]", o, tag), Hint: "a [model] criterion takes no option"}
	}
	if twin != "" && len(taskTwins) == 0 {
		return Criterion{}, &Error{cascade: true, Msg: "cannot tell whether twin " + twin + " is in the task: the task names no valid twins"}
	}
	if twin != "" && !contains(taskTwins, twin) {
		if _, ok := reg.Get(twin); !ok {
			return Criterion{}, &Error{Msg: fmt.Sprintf("unknown twin %q in [%s]", twin, tag), Hint: "twins are " + strings.Join(reg.Names(), ", ")}
		}
		return Criterion{}, &Error{Msg: fmt.Sprintf("twin %q is not in this task's twins (%s)", twin, strings.Join(taskTwins, ", ")), Hint: "add it to twins: in ## Config, or fix the tag"}
	}
	return Criterion{Kind: Model, Twin: twin, Text: body}, nil
}
