package task

import (
	"bytes"
	"context"
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
}

// Config is the task's ## Config block.
type Config struct {
	Twins   []string
	Timeout time.Duration
	Runs    int
	// PassThreshold is the score (0–100) a run needs to pass.
	PassThreshold float64
}

// Defaults of a task's config.
const (
	DefaultTimeout       = 300 * time.Second
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
		p.errorf(1, "the task has no \"# Title\" heading")
	}
	if s, ok := secs["Config"]; ok {
		p.config(t, s)
	} else {
		p.errorf(0, "the task has no \"## Config\" section").Hint = "add ## Config with a fenced block such as ```yaml\\ntwins: [github]\\n```"
	}
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
			if c, ok := p.criterion(t.Config.Twins, l); ok {
				t.Criteria = append(t.Criteria, c)
			}
		}
		if len(t.Criteria) == 0 && !p.hasErrorsIn(s) {
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
		case strings.HasPrefix(trimmed, "# "):
			if t.Title != "" {
				p.errorf(n, "a second \"# \" title (the first is on line %d)", t.TitleLine).Hint = "use ## for sections"
				continue
			}
			t.Title, t.TitleLine = strings.TrimSpace(trimmed[2:]), n
			cur = nil
			continue
		case strings.HasPrefix(trimmed, "## "):
			heading := strings.TrimSpace(trimmed[3:])
			canon, ok := sectionNames[strings.ToLower(strings.TrimRight(heading, ":"))]
			if !ok {
				p.errorf(n, "unknown section %q", heading).Hint = "sections are Config, Seed State, Prompt (or Task), Success Criteria (or Checks), Expected Behavior and Setup"
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
		if cur != nil {
			cur.lines = append(cur.lines, srcLine{n, raw})
		} else if trimmed != "" && t.Title == "" && !strings.HasPrefix(trimmed, "<!--") {
			p.errorf(n, "text before the \"# Title\" heading")
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

// seed reads the Seed State section or the sibling seed file and validates
// every twin's document with the twin itself.
func (p *parser) seed(t *Task, secs map[string]*section) {
	var doc []byte
	file, line := p.file, 0
	s, inFile := secs["Seed State"]
	switch {
	case inFile && p.opt.SeedFile != nil:
		p.errorf(s.line, "the seed is given twice: in this section and in %s", p.opt.SeedFileName).Hint = "keep one of them"
		return
	case inFile:
		bs := blocks(s.lines)
		if len(bs) != 1 {
			p.errorf(s.line, "the Seed State section must hold exactly one fenced JSON block, found %d", len(bs))
			return
		}
		if bs[0].lang != "" && bs[0].lang != "json" {
			p.errorf(bs[0].line, "the seed block is %q; seeds are JSON", bs[0].lang)
			return
		}
		doc, line = []byte(bs[0].body), bs[0].line
		t.SeedFile = p.file
	case p.opt.SeedFile != nil:
		doc, file, line = p.opt.SeedFile, p.opt.SeedFileName, 1
		t.SeedFile = p.opt.SeedFileName
	default:
		return
	}
	fail := func(format string, args ...any) *Error {
		e := &Error{File: file, Line: line, Msg: fmt.Sprintf(format, args...)}
		p.errs = append(p.errs, e)
		return e
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(doc, &top); err != nil || top == nil {
		if err == nil {
			err = errors.New("it is null")
		}
		fail("the seed must be a JSON object: %v", err)
		return
	}
	inTask := map[string]bool{}
	for _, n := range t.Config.Twins {
		inTask[n] = true
	}
	envelope := false
	for k := range top {
		if inTask[k] {
			envelope = true
		}
	}
	for k := range top {
		if envelope && !inTask[k] && k != "clock" {
			if _, known := p.opt.Registry.Get(k); known {
				fail("the seed has a %q document, but %s is not in this task's twins (%s)", k, k, strings.Join(t.Config.Twins, ", "))
			} else {
				fail("unknown key %q in the seed envelope (twin names of this task and \"clock\")", k)
			}
			envelope = false
			return
		}
	}
	seeds := map[string]json.RawMessage{}
	switch {
	case envelope:
		for k, v := range top {
			seeds[k] = v
		}
	case len(t.Config.Twins) == 1:
		seeds[t.Config.Twins[0]] = json.RawMessage(bytes.TrimSpace(doc))
	default:
		fail("a task with several twins needs a seed envelope {%s}", quotedKeys(t.Config.Twins)).Hint = "put each twin's seed under its name"
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

func quotedKeys(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q: {…}", n)
	}
	return strings.Join(q, ", ")
}

// criterionLine is a list item with a bracketed tag: "- [code:github] …",
// "* [model] …" or "1. [code] …".
var criterionLine = regexp.MustCompile(`^\s*(?:[-*+]|\d+[.)])\s+\[([^\]]*)\]\s*(.*?)\s*$`)

// listItem is any list item, to say what is wrong with an untagged one.
var listItem = regexp.MustCompile(`^\s*(?:[-*+]|\d+[.)])\s+(.*?)\s*$`)

// criterion parses one line of the criteria section. Blank lines and HTML
// comments are skipped; any other text is an error, because a line that
// looks like a criterion but is not one would otherwise go ungraded.
func (p *parser) criterion(taskTwins []string, l srcLine) (Criterion, bool) {
	trimmed := strings.TrimSpace(l.text)
	if trimmed == "" || (strings.HasPrefix(trimmed, "<!--") && strings.HasSuffix(trimmed, "-->")) {
		return Criterion{}, false
	}
	c, err := parseCriterion(p.opt.Registry, taskTwins, l.text)
	if err != nil {
		err.File, err.Line = p.file, l.n
		p.errs = append(p.errs, err)
		return Criterion{}, false
	}
	c.Line = l.n
	return c, true
}

// parseCriterion parses and binds one criterion line.
func parseCriterion(reg *twins.Registry, taskTwins []string, line string) (Criterion, *Error) {
	m := criterionLine.FindStringSubmatch(line)
	if m == nil {
		if li := listItem.FindStringSubmatch(line); li != nil {
			return Criterion{}, &Error{Msg: "criterion has no [code] or [model] tag: " + quote(li[1]),
				Hint: "start it with [code] for a check or [model] for a judge"}
		}
		return Criterion{}, &Error{Msg: "text in the Success Criteria section that is not a criterion: " + quote(strings.TrimSpace(line)),
			Hint: "every line there is \"- [code] …\" or \"- [model] …\"; put prose in ## Setup or ## Expected Behavior"}
	}
	tag, body := strings.TrimSpace(m[1]), m[2]
	if body == "" {
		return Criterion{}, &Error{Msg: "criterion [" + tag + "] has no text"}
	}
	fields := strings.Fields(tag)
	head := ""
	if len(fields) > 0 {
		head = fields[0]
	}
	kind, twin, _ := strings.Cut(head, ":")
	switch strings.ToLower(kind) {
	case "d":
		return Criterion{}, &Error{Msg: "the [D] tag is no longer supported", Hint: "write [code] (or [code:twin]) and phrase the line as a check template; `pome checks TWIN` lists them"}
	case "p":
		return Criterion{}, &Error{Msg: "the [P] tag is no longer supported", Hint: "write [model]; it is graded only when `pome run --judge-cmd` is given"}
	case "model":
		if twin != "" || len(fields) > 1 {
			return Criterion{}, &Error{Msg: "a [model] criterion takes no twin or options: [" + tag + "]"}
		}
		return Criterion{Kind: Model, Text: body}, nil
	case "code":
	default:
		return Criterion{}, &Error{Msg: "unknown criterion tag [" + tag + "]", Hint: "tags are [code], [code:twin], [code:twin always-scored] and [model]"}
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
	case twin == "" && len(taskTwins) == 0:
		return Criterion{}, &Error{Msg: "cannot tell which twin this [code] criterion reads: the task names no twins"}
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
