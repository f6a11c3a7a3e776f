package task

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/pomehq/pome/twins"
)

// matchMu serializes Check.Match, which compiles its matcher lazily on the
// shared check value; the grader runs in concurrent server requests.
var matchMu sync.Mutex

// bind returns the first check of tw whose template the text renders, in
// declaration order, with the arguments the text carries. A trailing
// period is forgiven: prose habit, not a different criterion.
func bind(tw *twins.Twin, text string) (*twins.Check, map[string]string) {
	matchMu.Lock()
	defer matchMu.Unlock()
	candidates := []string{strings.TrimSpace(text)}
	if t := strings.TrimSuffix(candidates[0], "."); t != candidates[0] {
		candidates = append(candidates, t)
	}
	for _, s := range candidates {
		for _, c := range tw.Checks {
			if args, ok := c.Match(s); ok {
				return c, args
			}
		}
	}
	return nil, nil
}

// unbound explains why a [code] line binds to no check: a template whose
// wording matches but whose parameter does not fit its pattern, or else
// the templates that read most alike.
func unbound(tw *twins.Twin, text string) *Error {
	e := &Error{Msg: fmt.Sprintf("criterion binds to no %s check: %s", tw.Name, quote(text))}
	for _, c := range tw.Checks {
		if args, ok := looseMatch(c, text); ok {
			if err := c.CheckArgs(args); err != nil {
				e.Hint = fmt.Sprintf("it has the wording of %s, but %v", c.ID, strings.TrimPrefix(err.Error(), "check "+c.ID+": "))
				return e
			}
		}
	}
	type scored struct {
		c     *twins.Check
		score float64
	}
	var best []scored
	for _, c := range tw.Checks {
		best = append(best, scored{c, similarity(c.Template, text)})
	}
	sort.SliceStable(best, func(i, j int) bool { return best[i].score > best[j].score })
	if len(best) > 0 && best[0].score > 0.3 {
		e.Hint = fmt.Sprintf("closest template: %q (%s); `pome checks %s` lists them all", best[0].c.Template, best[0].c.ID, tw.Name)
	} else {
		e.Hint = fmt.Sprintf("criteria must render a check template; `pome checks %s` lists them", tw.Name)
	}
	return e
}

// looseMatch matches the template's fixed wording with every parameter
// accepting anything, to tell a wrong value from a wrong sentence.
func looseMatch(c *twins.Check, text string) (map[string]string, bool) {
	names := map[string]bool{}
	for _, p := range c.Params {
		names[p.Name] = true
	}
	var b strings.Builder
	b.WriteString("^")
	t := c.Template
	var order []string
	for {
		i := strings.IndexByte(t, '{')
		j := strings.IndexByte(t, '}')
		if i < 0 || j < i || !names[t[i+1:j]] {
			if i >= 0 && j > i {
				b.WriteString(regexp.QuoteMeta(t[:j+1]))
				t = t[j+1:]
				continue
			}
			b.WriteString(regexp.QuoteMeta(t))
			break
		}
		b.WriteString(regexp.QuoteMeta(t[:i]))
		b.WriteString("(.*?)")
		order = append(order, t[i+1:j])
		t = t[j+1:]
	}
	b.WriteString("$")
	re, err := regexp.Compile(b.String())
	if err != nil {
		return nil, false
	}
	m := re.FindStringSubmatch(strings.TrimSuffix(strings.TrimSpace(text), "."))
	if m == nil {
		return nil, false
	}
	args := map[string]string{}
	for i, n := range order {
		args[n] = m[i+1]
	}
	return args, true
}

// similarity is the share of the template's fixed words found in the text.
func similarity(template, text string) float64 {
	words := func(s string) map[string]bool {
		out := map[string]bool{}
		for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
		}) {
			out[w] = true
		}
		return out
	}
	tw := map[string]bool{}
	// Placeholder names are not words the text would contain.
	fixed := regexp.MustCompile(`\{[a-z_]+\}`).ReplaceAllString(template, " ")
	for w := range words(fixed) {
		tw[w] = true
	}
	if len(tw) == 0 {
		return 0
	}
	xw := words(text)
	hit := 0
	for w := range tw {
		if xw[w] {
			hit++
		}
	}
	return float64(hit) / float64(len(tw))
}

// FindCheck returns the check with the given id ("github.issue-state")
// and its twin.
func FindCheck(reg *twins.Registry, id string) (*twins.Twin, *twins.Check, bool) {
	name, _, _ := strings.Cut(id, ".")
	tw, ok := reg.Get(name)
	if !ok {
		return nil, nil, false
	}
	c, ok := tw.Check(id)
	return tw, c, ok
}
