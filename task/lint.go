package task

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/pomehq/pome/twins"
)

// Finding is a problem Lint found in a task that parsed. Warnings do not
// stop a run; errors would make its verdict wrong or always incomplete.
type Finding struct {
	Line    int
	Warning bool
	Msg     string
}

// Lint looks for what the grammar cannot see: criteria a check cannot
// evaluate (an unknown tool name, say), criteria the seed already
// satisfies (they will be excluded), and tasks that can never be graded.
// Parse's warnings come first. It builds each twin's seed world, as a sandbox would, and evaluates every
// [code] criterion on it with an empty tape; nothing else runs.
func Lint(t *Task, reg *twins.Registry) []Finding {
	out := append([]Finding(nil), t.Warnings...)
	worlds := map[string]any{}
	code, excluded := 0, 0
	for _, c := range t.Criteria {
		if c.Kind != Code {
			continue
		}
		code++
		w, ok := worlds[c.Twin]
		if !ok {
			tw, _ := reg.Get(c.Twin)
			env := &twins.Env{SandboxID: "ses_lint000000000000", Twin: c.Twin, APIURL: "http://127.0.0.1/" + c.Twin, Now: time.Now}
			var err error
			w, err = tw.NewWorld(twins.WithEnv(context.Background(), env), t.Seed[c.Twin])
			if err != nil {
				// Parse reported the seed already.
				w = nil
			}
			worlds[c.Twin] = w
		}
		if w == nil {
			continue
		}
		tw, _ := reg.Get(c.Twin)
		res, err := evaluate(c, &twins.Input{Twin: tw, Seed: w, Final: w})
		switch {
		case err != nil:
			out = append(out, Finding{Line: c.Line, Msg: "criterion cannot be evaluated: " + err.Error()})
		case res.Passed && Excludable(c.Check, c.Args) && !c.AlwaysScored:
			excluded++
			out = append(out, Finding{Line: c.Line, Warning: true,
				Msg: fmt.Sprintf("criterion is already true in the seed (%s), so it will be excluded; tag it [code:%s always-scored] to count it", res.Reason, c.Twin)})
		}
	}
	switch {
	case code == 0:
		out = append(out, Finding{Line: t.TitleLine, Msg: "the task has no [code] criterion, so no run of it can be graded"})
	case excluded == code:
		out = append(out, Finding{Line: t.TitleLine, Msg: "every [code] criterion is already true in the seed, so no run of it can be graded"})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Line < out[j].Line })
	return out
}

// RenderCriterion renders a criterion line for a check with the given
// arguments, as `pome checks add` appends it, after making sure the line
// binds back to the same check.
func RenderCriterion(reg *twins.Registry, taskTwins []string, id string, args map[string]string, alwaysScored bool) (string, error) {
	tw, c, ok := FindCheck(reg, id)
	if !ok {
		return "", fmt.Errorf("no check %q (`pome checks` lists them)", id)
	}
	if !contains(taskTwins, tw.Name) {
		return "", fmt.Errorf("check %s reads the %s twin, which is not in this task's twins (%s)", id, tw.Name, strings.Join(taskTwins, ", "))
	}
	known := map[string]bool{}
	for _, p := range c.Params {
		known[p.Name] = true
	}
	for k := range args {
		if !known[k] {
			return "", fmt.Errorf("check %s has no parameter %q (it has %s)", id, k, paramNames(c))
		}
	}
	if err := c.CheckArgs(args); err != nil {
		return "", fmt.Errorf("%v (parameters: %s)", err, paramNames(c))
	}
	text := c.Render(args)
	if got, _ := bind(tw, text); got != c {
		other := "no check"
		if got != nil {
			other = got.ID
		}
		return "", fmt.Errorf("%q would bind to %s, not %s; choose other values", text, other, id)
	}
	tag := "code:" + tw.Name
	if alwaysScored {
		tag += " always-scored"
	}
	return "- [" + tag + "] " + text, nil
}

// FindCriterion returns the task's [code] criterion that binds to the
// check id with exactly these arguments, if any.
func (t *Task) FindCriterion(id string, args map[string]string) (Criterion, bool) {
	for _, c := range t.Criteria {
		if c.Kind != Code || c.Check == nil || c.Check.ID != id || len(c.Args) != len(args) {
			continue
		}
		same := true
		for k, v := range args {
			if c.Args[k] != v {
				same = false
			}
		}
		if same {
			return c, true
		}
	}
	return Criterion{}, false
}

func paramNames(c *twins.Check) string {
	if len(c.Params) == 0 {
		return "none"
	}
	var s []string
	for _, p := range c.Params {
		s = append(s, fmt.Sprintf("%s (e.g. %s)", p.Name, p.Example))
	}
	return strings.Join(s, ", ")
}

// AppendCriterion inserts line at the end of the Success Criteria section
// (after its last non-blank line), creating the section at the end of the
// file when there is none.
func AppendCriterion(src []byte, line string) []byte {
	text := strings.ReplaceAll(string(src), "\r\n", "\n")
	lines := strings.Split(text, "\n")
	in, last, fence := false, -1, ""
	for i, l := range lines {
		trimmed := strings.TrimSpace(l)
		if fence != "" {
			if strings.HasPrefix(trimmed, fence) && strings.Trim(trimmed, fence[:1]) == "" {
				fence = ""
			}
			if in {
				last = i
			}
			continue
		}
		if f := fenceOpen(trimmed); f != "" {
			fence = f
			if in {
				last = i
			}
			continue
		}
		if strings.HasPrefix(trimmed, "## ") || strings.HasPrefix(trimmed, "# ") {
			name := strings.ToLower(strings.TrimRight(strings.TrimSpace(strings.TrimLeft(trimmed, "#")), ":"))
			if sectionNames[name] == "Success Criteria" {
				in, last = true, i
				continue
			}
			if in {
				break
			}
			continue
		}
		if in && trimmed != "" {
			last = i
		}
	}
	if last < 0 {
		body := strings.TrimRight(text, "\n")
		return []byte(body + "\n\n## Success Criteria\n" + line + "\n")
	}
	out := append([]string{}, lines[:last+1]...)
	out = append(out, line)
	out = append(out, lines[last+1:]...)
	return []byte(strings.Join(out, "\n"))
}
