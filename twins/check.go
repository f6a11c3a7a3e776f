package twins

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/pomehq/pome/tape"
)

// Substrate is what a check reads.
type Substrate string

const (
	SubstrateFinal     Substrate = "final"
	SubstrateSeedFinal Substrate = "seed+final"
	SubstrateTape      Substrate = "tape"
)

// Polarity says whether a check asserts something happened (positive) or
// that something did not (negative).
type Polarity string

const (
	Positive Polarity = "positive"
	Negative Polarity = "negative"
)

// Param is one typed placeholder of a check template.
type Param struct {
	Name    string `json:"name"`
	Type    string `json:"type"`
	Pattern string `json:"pattern"`
	Example string `json:"example"`
}

// Evidence points at what a check looked at.
type Evidence struct {
	TapeSeqs   []int64  `json:"tape_seqs"`
	StatePaths []string `json:"state_paths"`
}

// Result is a check's verdict on one set of arguments.
type Result struct {
	Passed   bool     `json:"passed"`
	Reason   string   `json:"reason"`
	Evidence Evidence `json:"evidence"`
}

// Input is what a check may read: the twin's seed world, its final world and
// its tape. Worlds are the twin's own world type (decoded).
type Input struct {
	Twin  *Twin
	Seed  any
	Final any
	Tape  []tape.Row
	// TapeDropped counts calls past the tape's cap, which Tape lacks; a
	// tape check cannot be trusted then and reports an error instead.
	TapeDropped int64
}

// Check is a typed, closed-set assertion over a twin.
type Check struct {
	ID        string    `json:"id"`
	Template  string    `json:"template"`
	Params    []Param   `json:"params"`
	Substrate Substrate `json:"substrate"`
	Polarity  Polarity  `json:"polarity"`
	// PolarityOf, when set, reads the polarity from the arguments, as the
	// original Pome does: "Issue #3 in `acme/api` is in state open" asks
	// that the issue not be closed, so that form is negative while the
	// "closed" form is positive. Polarity is then the check's usual reading,
	// shown in listings.
	PolarityOf  func(args map[string]string) Polarity `json:"-"`
	Description string                                `json:"description"`
	// Eval evaluates the check. It returns an error only when the check
	// cannot be evaluated (bad arguments, wrong world type), never for a
	// failed assertion.
	Eval func(in *Input, args map[string]string) (Result, error) `json:"-"`

	matchOnce sync.Once
	matcher   *regexp.Regexp
}

// Common parameter types, shared so that templates read alike across twins.
var (
	ParamRepo    = Param{Name: "repo", Type: "repo", Pattern: `[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+`, Example: "acme/api"}
	ParamNumber  = Param{Name: "number", Type: "integer", Pattern: `[0-9]+`, Example: "1"}
	ParamLabel   = Param{Name: "label", Type: "string", Pattern: `[^` + "`" + `]+`, Example: "bug"}
	ParamUser    = Param{Name: "user", Type: "login", Pattern: `[A-Za-z0-9-]+`, Example: "alice"}
	ParamText    = Param{Name: "text", Type: "string", Pattern: `[^"]*`, Example: "acme/api#1"}
	ParamChannel = Param{Name: "channel", Type: "channel", Pattern: `[^"]+`, Example: "general"}
	ParamTool    = Param{Name: "tool", Type: "tool", Pattern: `[a-z][a-z0-9_]*`, Example: "issue_write"}
)

// PolarityFor is the check's polarity for these arguments.
func (c *Check) PolarityFor(args map[string]string) Polarity {
	if c.PolarityOf != nil {
		return c.PolarityOf(args)
	}
	return c.Polarity
}

// Render fills the template with args.
func (c *Check) Render(args map[string]string) string {
	out := c.Template
	for _, p := range c.Params {
		out = strings.ReplaceAll(out, "{"+p.Name+"}", args[p.Name])
	}
	return out
}

// Match binds a criterion text to this check's template, returning the
// arguments it carries, or false when the text is not this check's.
func (c *Check) Match(text string) (map[string]string, bool) {
	// Checks are shared package-level data read by concurrent graders.
	c.matchOnce.Do(func() { c.matcher = compileTemplate(c) })
	m := c.matcher.FindStringSubmatch(strings.TrimSpace(text))
	if m == nil {
		return nil, false
	}
	args := map[string]string{}
	for i, name := range c.matcher.SubexpNames() {
		if i > 0 && name != "" {
			args[name] = m[i]
		}
	}
	return args, true
}

// compileTemplate turns "Issue #{number} in `{repo}`" into an anchored regexp
// with one named group per parameter, each constrained by its pattern.
func compileTemplate(c *Check) *regexp.Regexp {
	pat := map[string]string{}
	for _, p := range c.Params {
		pat[p.Name] = p.Pattern
	}
	var b strings.Builder
	b.WriteString("^")
	t := c.Template
	for {
		i := strings.IndexByte(t, '{')
		if i < 0 {
			b.WriteString(regexp.QuoteMeta(t))
			break
		}
		j := strings.IndexByte(t[i:], '}')
		if j < 0 {
			b.WriteString(regexp.QuoteMeta(t))
			break
		}
		name := t[i+1 : i+j]
		p, ok := pat[name]
		if !ok {
			b.WriteString(regexp.QuoteMeta(t[:i+j+1]))
			t = t[i+j+1:]
			continue
		}
		b.WriteString(regexp.QuoteMeta(t[:i]))
		fmt.Fprintf(&b, "(?P<%s>%s)", name, p)
		t = t[i+j+1:]
	}
	b.WriteString("$")
	return regexp.MustCompile(b.String())
}

// CheckArgs validates args against the check's params.
func (c *Check) CheckArgs(args map[string]string) error {
	for _, p := range c.Params {
		v, ok := args[p.Name]
		if !ok {
			return fmt.Errorf("check %s: missing parameter %q", c.ID, p.Name)
		}
		if !regexp.MustCompile(`^(?:` + p.Pattern + `)$`).MatchString(v) {
			return fmt.Errorf("check %s: parameter %q = %q does not match %s", c.ID, p.Name, v, p.Pattern)
		}
	}
	return nil
}

// Evaluate validates the arguments and runs the check.
func (c *Check) Evaluate(in *Input, args map[string]string) (Result, error) {
	if err := c.CheckArgs(args); err != nil {
		return Result{}, err
	}
	if c.Substrate == SubstrateTape && in.TapeDropped > 0 {
		return Result{}, fmt.Errorf("the %s tape reached its cap: %d calls are not on it, so %s cannot be decided", in.Twin.Name, in.TapeDropped, c.ID)
	}
	r, err := c.Eval(in, args)
	if r.Evidence.TapeSeqs == nil {
		r.Evidence.TapeSeqs = []int64{}
	}
	if r.Evidence.StatePaths == nil {
		r.Evidence.StatePaths = []string{}
	}
	return r, err
}

// Pass and Fail build results.
func Pass(reason string, ev Evidence) Result {
	return Result{Passed: true, Reason: reason, Evidence: ev}
}
func Fail(reason string, ev Evidence) Result {
	return Result{Passed: false, Reason: reason, Evidence: ev}
}

// World casts a check input's world to the twin's type.
func World[W any](w any) (*W, error) {
	t, ok := w.(*W)
	if !ok || t == nil {
		var z W
		return nil, fmt.Errorf("world is %T, want *%T", w, z)
	}
	return t, nil
}

// TapeChecks are the tape checks every twin has, usable with every action
// name of that twin. A twin may declare one of these predicates itself under
// the same id, worded as the original Pome words it (ToolWasCalledCheck and
// its siblings build those); the generic sentence then keeps binding under
// the id with "-on-<twin>" appended.
func TapeChecks(t *Twin) []*Check {
	name := t.Name
	out := []*Check{
		ToolWasCalledCheck(name, name+".tool-was-called", "The `{tool}` tool was called on "+name),
		ToolNeverCalledCheck(name, name+".tool-never-called", "The `{tool}` tool was never called on "+name),
		NoUnsupportedEndpointCheck(name, name+".no-unsupported-endpoint", "No unsupported "+name+" endpoint was called"),
		{
			ID: name + ".no-mutations", Template: "Nothing was changed on " + name,
			Substrate: SubstrateTape, Polarity: Negative,
			Description: "No call on the tape changed the twin's state.",
			Eval: func(in *Input, args map[string]string) (Result, error) {
				seqs := rowsWhere(in.Tape, func(r *tape.Row) bool { return r.StateMutation })
				if len(seqs) > 0 {
					return Fail(fmt.Sprintf("%d call(s) changed state", len(seqs)), Evidence{TapeSeqs: seqs}), nil
				}
				return Pass("no call changed state", Evidence{}), nil
			},
		},
	}
	for _, c := range out {
		if _, taken := t.Check(c.ID); taken {
			c.ID += "-on-" + name
		}
	}
	return out
}

// knownTool refuses an action name the twin being graded does not have.
func knownTool(in *Input, tool string) error {
	if in.Twin == nil {
		return fmt.Errorf("no twin to check the action %q against", tool)
	}
	if _, ok := in.Twin.Action(tool); !ok {
		return fmt.Errorf("%s has no action %q (actions: %s)", in.Twin.Name, tool, strings.Join(in.Twin.ActionNames(), ", "))
	}
	return nil
}

// ToolWasCalledCheck asserts that a call on the twin's tape (REST or MCP)
// invoked the action; a refused call counts, since it is what the agent
// reached for.
func ToolWasCalledCheck(twin, id, template string) *Check {
	return &Check{
		ID: id, Template: template, Params: []Param{ParamTool}, Substrate: SubstrateTape, Polarity: Positive,
		Description: "At least one call on the " + twin + " tape (REST or MCP) invoked the action.",
		Eval: func(in *Input, args map[string]string) (Result, error) {
			if err := knownTool(in, args["tool"]); err != nil {
				return Result{}, err
			}
			seqs := rowsWhere(in.Tape, func(r *tape.Row) bool { return r.ToolName() == args["tool"] })
			if len(seqs) == 0 {
				return Fail(fmt.Sprintf("no call to %s on the %s tape", args["tool"], twin), Evidence{}), nil
			}
			return Pass(fmt.Sprintf("%s was called %d time(s)", args["tool"], len(seqs)), Evidence{TapeSeqs: seqs}), nil
		},
	}
}

// ToolNeverCalledCheck asserts that no call on the twin's tape invoked the
// action.
func ToolNeverCalledCheck(twin, id, template string) *Check {
	return &Check{
		ID: id, Template: template, Params: []Param{ParamTool}, Substrate: SubstrateTape, Polarity: Negative,
		Description: "No call on the " + twin + " tape invoked the action.",
		Eval: func(in *Input, args map[string]string) (Result, error) {
			if err := knownTool(in, args["tool"]); err != nil {
				return Result{}, err
			}
			seqs := rowsWhere(in.Tape, func(r *tape.Row) bool { return r.ToolName() == args["tool"] })
			if len(seqs) > 0 {
				return Fail(fmt.Sprintf("%s was called %d time(s)", args["tool"], len(seqs)), Evidence{TapeSeqs: seqs}), nil
			}
			return Pass(fmt.Sprintf("%s was never called", args["tool"]), Evidence{}), nil
		},
	}
}

// NoUnsupportedEndpointCheck asserts that no call hit a vendor path the
// twin does not implement (answered 501).
func NoUnsupportedEndpointCheck(twin, id, template string) *Check {
	return &Check{
		ID: id, Template: template, Substrate: SubstrateTape, Polarity: Negative,
		Description: "No call hit a vendor path the twin does not implement (answered in the vendor's envelope with Pome's explanation, tool null).",
		Eval: func(in *Input, args map[string]string) (Result, error) {
			seqs := rowsWhere(in.Tape, unsupportedRow)
			if len(seqs) > 0 {
				return Fail(fmt.Sprintf("%d call(s) to unsupported endpoints", len(seqs)), Evidence{TapeSeqs: seqs}), nil
			}
			return Pass("every call hit a supported endpoint", Evidence{}), nil
		},
	}
}

func rowsWhere(rows []tape.Row, f func(*tape.Row) bool) []int64 {
	var out []int64
	for i := range rows {
		if f(&rows[i]) {
			out = append(out, rows[i].Seq)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// unsupportedRow reports whether a row is a call to a vendor path the twin
// does not cover: tool null, and the answer carries Pome's explanation
// (each vendor's envelope has its own status for it); tapes written before
// that answered 501.
func unsupportedRow(r *tape.Row) bool {
	if r.Tool != nil {
		return false
	}
	if r.Status == 501 {
		return true
	}
	var body struct {
		Pome struct {
			Unsupported bool `json:"unsupported"`
		} `json:"pome"`
	}
	return json.Unmarshal(r.Response.Body, &body) == nil && body.Pome.Unsupported
}
