package linear

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"
)

// Linear's filters (IssueFilter, TeamFilter, …) evaluated the one way all
// of them work: a filter is an object of fields, each compared with a
// comparator (eq, in, contains, gt, null, …) or filtered with a nested
// filter, combined with and/or; a list field (an issue's labels) takes
// some/every/length, and its plain fields mean "some". Filters are decoded
// into Linear's input types (gql_inputs.go), so a field outside them is
// refused by name before anything runs; here they are read back as JSON and
// matched against a view of the record: a map of its fields, relations
// being functions resolved on demand.

// view is a record's fields for filtering. A relation is a func() view (nil
// when unset) or a func() []view.
type view map[string]any

// filterMap turns a decoded filter into its JSON object, nil when absent.
func filterMap(f any) map[string]any {
	b, err := json.Marshal(f)
	if err != nil || string(b) == "null" {
		return nil
	}
	var m map[string]any
	json.Unmarshal(b, &m)
	return lowerKeys(m).(map[string]any)
}

// lowerKeys puts back the GraphQL spelling of the Go field names (Id → id).
func lowerKeys(v any) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, x := range t {
			if x == nil {
				continue
			}
			out[strings.ToLower(k[:1])+k[1:]] = lowerKeys(x)
		}
		return out
	case []any:
		for i := range t {
			t[i] = lowerKeys(t[i])
		}
	}
	return v
}

var comparatorKeys = map[string]bool{
	"eq": true, "neq": true, "in": true, "nin": true, "gt": true, "gte": true, "lt": true, "lte": true,
	"contains": true, "containsIgnoreCase": true, "containsIgnoreCaseAndAccent": true, "notContains": true,
	"notContainsIgnoreCase": true, "startsWith": true, "startsWithIgnoreCase": true, "notStartsWith": true,
	"endsWith": true, "notEndsWith": true, "eqIgnoreCase": true, "neqIgnoreCase": true, "null": true,
}

// matches reports whether the record v passes the filter f.
func matches(v view, f map[string]any, now time.Time) bool {
	for k, fv := range f {
		switch k {
		case "and":
			for _, sub := range fv.([]any) {
				if !matches(v, sub.(map[string]any), now) {
					return false
				}
			}
			continue
		case "or":
			hit := false
			for _, sub := range fv.([]any) {
				if matches(v, sub.(map[string]any), now) {
					hit = true
					break
				}
			}
			if !hit && len(fv.([]any)) > 0 {
				return false
			}
			continue
		case "null":
			if (v == nil) != fv.(bool) {
				return false
			}
			continue
		}
		if v == nil {
			return false
		}
		sub, _ := fv.(map[string]any)
		switch field := v[k].(type) {
		case func() view:
			if !matches(field(), sub, now) {
				return false
			}
		case func() []view:
			if !matchesList(field(), sub, now) {
				return false
			}
		default:
			if !compare(field, sub, now) {
				return false
			}
		}
	}
	return true
}

// matchesList applies a collection filter: some, every, length, and the
// element fields themselves (meaning some).
func matchesList(items []view, f map[string]any, now time.Time) bool {
	plain := map[string]any{}
	for k, fv := range f {
		sub, _ := fv.(map[string]any)
		switch k {
		case "some":
			if !slices.ContainsFunc(items, func(it view) bool { return matches(it, sub, now) }) {
				return false
			}
		case "every":
			for _, it := range items {
				if !matches(it, sub, now) {
					return false
				}
			}
		case "length":
			if !compare(float64(len(items)), sub, now) {
				return false
			}
		case "and", "or":
			for _, x := range fv.([]any) {
				ok := matchesList(items, x.(map[string]any), now)
				if k == "and" && !ok {
					return false
				}
				if k == "or" && ok {
					plain = nil
					break
				}
			}
		case "null":
			if (len(items) == 0) != fv.(bool) {
				return false
			}
		default:
			plain[k] = fv
		}
	}
	if len(plain) > 0 {
		return slices.ContainsFunc(items, func(it view) bool { return matches(it, plain, now) })
	}
	return true
}

// compare applies a comparator to a scalar value (string, float64, bool,
// time.Time or nil).
func compare(val any, c map[string]any, now time.Time) bool {
	for op, arg := range c {
		if op == "null" {
			if (val == nil) != arg.(bool) {
				return false
			}
			continue
		}
		if val == nil {
			if op == "neq" || op == "nin" || strings.HasPrefix(op, "not") {
				continue
			}
			return false
		}
		if !compareOne(val, op, arg, now) {
			return false
		}
	}
	return true
}

func compareOne(val any, op string, arg any, now time.Time) bool {
	eq := func(a any) bool { return equalValue(val, a, now) }
	s, isStr := val.(string)
	as, _ := arg.(string)
	switch op {
	case "eq":
		return eq(arg)
	case "neq":
		return !eq(arg)
	case "in":
		return slices.ContainsFunc(arg.([]any), eq)
	case "nin":
		return !slices.ContainsFunc(arg.([]any), eq)
	case "gt", "gte", "lt", "lte":
		d := order(val, arg, now)
		switch op {
		case "gt":
			return d > 0
		case "gte":
			return d >= 0
		case "lt":
			return d < 0
		}
		return d <= 0
	}
	if !isStr {
		return false
	}
	ls, la := strings.ToLower(s), strings.ToLower(as)
	switch op {
	case "contains":
		return strings.Contains(s, as)
	case "containsIgnoreCase", "containsIgnoreCaseAndAccent":
		return strings.Contains(ls, la)
	case "notContains":
		return !strings.Contains(s, as)
	case "notContainsIgnoreCase":
		return !strings.Contains(ls, la)
	case "startsWith":
		return strings.HasPrefix(s, as)
	case "startsWithIgnoreCase":
		return strings.HasPrefix(ls, la)
	case "notStartsWith":
		return !strings.HasPrefix(s, as)
	case "endsWith":
		return strings.HasSuffix(s, as)
	case "notEndsWith":
		return !strings.HasSuffix(s, as)
	case "eqIgnoreCase":
		return ls == la
	case "neqIgnoreCase":
		return ls != la
	}
	return false
}

func equalValue(val, arg any, now time.Time) bool {
	switch v := val.(type) {
	case time.Time:
		return order(v, arg, now) == 0
	case float64:
		a, ok := arg.(float64)
		return ok && a == v
	case bool:
		a, ok := arg.(bool)
		return ok && a == v
	case string:
		a, ok := arg.(string)
		return ok && a == v
	}
	return false
}

// order compares a value with a comparator's argument: -1, 0 or 1.
func order(val, arg any, now time.Time) int {
	switch v := val.(type) {
	case float64:
		a, _ := arg.(float64)
		switch {
		case v < a:
			return -1
		case v > a:
			return 1
		}
		return 0
	case time.Time:
		a, err := dateArg(arg, now)
		if err != nil {
			return 0
		}
		return v.Compare(a)
	case string:
		return strings.Compare(v, fmt.Sprint(arg))
	}
	return 0
}

var signedDurationRE = regexp.MustCompile(`^([-+]?)P`)

// dateArg reads a DateTimeOrDuration: a date or time, or a duration from
// now (-P2W two weeks ago, P1D a day ahead).
func dateArg(arg any, now time.Time) (time.Time, error) {
	s, _ := arg.(string)
	if m := signedDurationRE.FindStringSubmatch(s); m != nil {
		past, err := since("filter", "-"+strings.TrimLeft(s, "+-"), now)
		if err != nil {
			return time.Time{}, err
		}
		if m[1] == "-" {
			return past, nil
		}
		return now.Add(now.Sub(past)), nil
	}
	return since("filter", s, now)
}

func num(n int) float64 { return float64(n) }

func optTime(t *time.Time) any {
	if t == nil {
		return nil
	}
	return *t
}

func optString(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func optFloat(f *float64) any {
	if f == nil {
		return nil
	}
	return *f
}

// Views of each record, for filters.

func (w *World) teamView(t *Team) view {
	if t == nil {
		return nil
	}
	return view{"id": t.ID, "key": t.Key, "name": t.Name, "description": optString(t.Description), "private": t.Private}
}

func (w *World) userView(u *User) view {
	if u == nil {
		return nil
	}
	return view{"id": u.ID, "name": u.Name, "displayName": u.DisplayName, "email": u.Email, "active": u.Active,
		"admin": u.Admin, "app": u.App, "isMe": u.ID == w.ViewerID}
}

func (w *World) stateView(s *State) view {
	if s == nil {
		return nil
	}
	return view{"id": s.ID, "name": s.Name, "type": s.Type, "position": s.Position,
		"team": func() view { return w.teamView(w.team(s.TeamID)) }}
}

func (w *World) labelView(l *Label) view {
	if l == nil {
		return nil
	}
	return view{"id": l.ID, "name": l.Name, "isGroup": l.IsGroup,
		"team":   func() view { return w.teamView(w.team(l.TeamID)) },
		"parent": func() view { return w.labelView(w.label(l.ParentID)) }}
}

func (w *World) projectView(p *Project) view {
	if p == nil {
		return nil
	}
	return view{"id": p.ID, "name": p.Name, "state": p.State, "createdAt": p.CreatedAt, "updatedAt": p.UpdatedAt}
}

func (w *World) cycleView(c *Cycle) view {
	if c == nil {
		return nil
	}
	v := view{"id": c.ID, "number": num(c.Number), "name": c.Name, "startsAt": optTime(c.StartsAt), "endsAt": optTime(c.EndsAt),
		"team": func() view { return w.teamView(w.team(c.TeamID)) }}
	return v
}

func (w *World) issueView(is *Issue) view {
	if is == nil {
		return nil
	}
	dueDate := any(nil)
	if is.DueDate != "" {
		if t, err := time.Parse("2006-01-02", is.DueDate); err == nil {
			dueDate = t
		}
	}
	hasRel := func(incoming bool) bool {
		for _, r := range w.Relations {
			if r.Type == "blocks" && (incoming && r.RelatedIssueID == is.ID || !incoming && r.IssueID == is.ID) {
				return true
			}
		}
		return false
	}
	return view{
		"id": is.ID, "number": num(is.Number), "title": is.Title, "description": optString(is.Description),
		"priority": num(is.Priority), "estimate": optFloat(is.Estimate),
		"createdAt": is.CreatedAt, "updatedAt": is.UpdatedAt, "completedAt": optTime(is.CompletedAt),
		"canceledAt": optTime(is.CanceledAt), "startedAt": optTime(is.StartedAt), "archivedAt": optTime(is.ArchivedAt),
		"dueDate": dueDate, "searchableContent": is.Title + "\n" + is.Description,
		"hasBlockedByRelations": hasRel(true), "hasBlockingRelations": hasRel(false),
		"state":    func() view { return w.stateView(w.state(is.StateID)) },
		"team":     func() view { return w.teamView(w.team(is.TeamID)) },
		"assignee": func() view { return w.userView(w.user(is.AssigneeID)) },
		"creator":  func() view { return w.userView(w.user(is.CreatorID)) },
		"delegate": func() view { return w.userView(w.user(is.DelegateID)) },
		"parent":   func() view { return w.issueView(w.issue(is.ParentID)) },
		"project":  func() view { return w.projectView(w.project(is.ProjectID)) },
		"cycle":    func() view { return w.cycleView(w.cycle(is.CycleID)) },
		"labels": func() []view {
			var out []view
			for _, id := range is.LabelIDs {
				if l := w.label(id); l != nil {
					out = append(out, w.labelView(l))
				}
			}
			return out
		},
	}
}

func (w *World) commentView(c *Comment) view {
	if c == nil {
		return nil
	}
	return view{"id": c.ID, "body": c.Body, "createdAt": c.CreatedAt, "updatedAt": c.UpdatedAt,
		"user":   func() view { return w.userView(w.user(c.UserID)) },
		"issue":  func() view { return w.issueView(w.issue(c.IssueID)) },
		"parent": func() view { return w.commentView(w.comment(c.ParentID)) }}
}
