package stripe

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// clause is one term of a Stripe search query: field[key] op value.
type clause struct {
	negate bool
	field  string
	key    string // metadata key
	op     string // ":", "~", ">", "<", ">=", "<="
	value  string
	null   bool
}

// query is a parsed search: clauses joined all by AND or all by OR.
type query struct {
	clauses []clause
	or      bool
}

func queryError(format string, args ...any) error {
	return invalidParam("query", "", "Invalid search query: %s. Use the format field:'value' (e.g. email:'alice@example.com'), field~'partial', metadata['key']:'value', joined with AND or OR.", fmt.Sprintf(format, args...))
}

// parseQuery parses Stripe's search query language for the given fields
// (field name → "string" | "number" | "metadata").
func parseQuery(s string, fields map[string]string) (*query, error) {
	p := &qparser{s: s}
	q := &query{}
	sawAnd, sawOr := false, false
	for {
		p.space()
		if p.done() {
			break
		}
		if len(q.clauses) > 0 {
			word := p.word()
			switch word {
			case "AND":
				sawAnd = true
			case "OR":
				sawOr = true
			default:
				return nil, queryError("expected AND or OR, found %q", word)
			}
			if sawAnd && sawOr {
				return nil, invalidParam("query", "", "Search queries cannot mix AND and OR.")
			}
			p.space()
		}
		c, err := p.clause(fields)
		if err != nil {
			return nil, err
		}
		q.clauses = append(q.clauses, c)
	}
	if len(q.clauses) == 0 {
		return nil, missingParam("query")
	}
	q.or = sawOr
	return q, nil
}

type qparser struct {
	s string
	i int
}

func (p *qparser) done() bool { return p.i >= len(p.s) }

func (p *qparser) space() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t' || p.s[p.i] == '\n') {
		p.i++
	}
}

func (p *qparser) word() string {
	start := p.i
	for p.i < len(p.s) && p.s[p.i] != ' ' {
		p.i++
	}
	return p.s[start:p.i]
}

func (p *qparser) quoted() (string, error) {
	if p.done() || (p.s[p.i] != '\'' && p.s[p.i] != '"') {
		return "", queryError("expected a quoted value at position %d", p.i)
	}
	quote := p.s[p.i]
	p.i++
	var b strings.Builder
	for p.i < len(p.s) {
		ch := p.s[p.i]
		if ch == '\\' && p.i+1 < len(p.s) {
			b.WriteByte(p.s[p.i+1])
			p.i += 2
			continue
		}
		if ch == quote {
			p.i++
			return b.String(), nil
		}
		b.WriteByte(ch)
		p.i++
	}
	return "", queryError("unterminated quoted value")
}

func (p *qparser) clause(fields map[string]string) (clause, error) {
	var c clause
	if p.s[p.i] == '-' {
		c.negate = true
		p.i++
	}
	start := p.i
	for p.i < len(p.s) && (p.s[p.i] == '_' || p.s[p.i] == '.' || (p.s[p.i] >= 'a' && p.s[p.i] <= 'z') || (p.s[p.i] >= '0' && p.s[p.i] <= '9')) {
		p.i++
	}
	c.field = p.s[start:p.i]
	kind, ok := fields[c.field]
	if !ok {
		return c, queryError("%q is not a searchable field", c.field)
	}
	if kind == "metadata" {
		if p.done() || p.s[p.i] != '[' {
			return c, queryError("metadata needs a key, as in metadata['key']")
		}
		p.i++
		key, err := p.quoted()
		if err != nil {
			return c, err
		}
		if p.done() || p.s[p.i] != ']' {
			return c, queryError("expected ] after the metadata key")
		}
		p.i++
		c.key = key
	}
	for _, op := range []string{">=", "<=", ":", "~", ">", "<"} {
		if strings.HasPrefix(p.s[p.i:], op) {
			c.op = op
			p.i += len(op)
			break
		}
	}
	if c.op == "" {
		return c, queryError("expected an operator (: ~ > < >= <=) after %q", c.field)
	}
	if c.op == "~" && kind != "string" {
		return c, queryError("~ only applies to text fields")
	}
	if (c.op == ">" || c.op == "<" || c.op == ">=" || c.op == "<=") && kind != "number" {
		return c, queryError("%s only applies to numeric fields", c.op)
	}
	if strings.HasPrefix(p.s[p.i:], "null") {
		p.i += 4
		c.null = true
		return c, nil
	}
	if kind == "number" && !p.done() && p.s[p.i] != '\'' && p.s[p.i] != '"' {
		start := p.i
		for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
			p.i++
		}
		c.value = p.s[start:p.i]
		if c.value == "" {
			return c, queryError("expected a number after %s%s", c.field, c.op)
		}
		return c, nil
	}
	v, err := p.quoted()
	if err != nil {
		return c, err
	}
	if c.op == "~" && len(v) < 3 {
		return c, invalidParam("query", "", "Substring matches (~) need at least 3 characters.")
	}
	c.value = v
	return c, nil
}

// matches evaluates the query against one object; get returns a field's
// value (string, *string, int64, bool) and whether it is set.
func (q *query) matches(get func(field, key string) (any, bool)) bool {
	for _, c := range q.clauses {
		ok := c.eval(get)
		if q.or && ok {
			return true
		}
		if !q.or && !ok {
			return false
		}
	}
	return !q.or
}

func (c clause) eval(get func(field, key string) (any, bool)) bool {
	raw, present := get(c.field, c.key)
	var s string
	var num int64
	isNum := false
	switch v := raw.(type) {
	case string:
		s = v
	case *string:
		if v == nil {
			present = false
		} else {
			s = *v
		}
	case int64:
		num, isNum, s = v, true, strconv.FormatInt(v, 10)
	case bool:
		s = strconv.FormatBool(v)
	case nil:
		present = false
	}
	var ok bool
	switch {
	case c.null:
		ok = !present || s == ""
	case !present:
		ok = false
	case c.op == ":":
		ok = strings.EqualFold(s, c.value)
	case c.op == "~":
		ok = strings.Contains(strings.ToLower(s), strings.ToLower(c.value))
	default:
		want, err := strconv.ParseInt(c.value, 10, 64)
		if err != nil || !isNum {
			return false
		}
		switch c.op {
		case ">":
			ok = num > want
		case "<":
			ok = num < want
		case ">=":
			ok = num >= want
		case "<=":
			ok = num <= want
		}
	}
	if c.negate {
		return !ok
	}
	return ok
}

// searchPage cuts one page of search results; the page cursor is an opaque
// offset.
func searchPage[T any](w *World, items []T, in SearchInput, url string, expand func(T, []string) (T, error)) (SearchResult[T], error) {
	limit := int64(10)
	if in.Limit != nil {
		limit = *in.Limit
		if limit < 1 || limit > 100 {
			return SearchResult[T]{}, invalidParam("limit", "parameter_invalid_integer", "Invalid integer: %d. This value must be between 1 and 100.", limit)
		}
	}
	offset := int64(0)
	if in.Page != "" {
		raw, err := base64.RawURLEncoding.DecodeString(in.Page)
		if err != nil || json.Unmarshal(raw, &offset) != nil || offset < 0 {
			return SearchResult[T]{}, invalidParam("page", "", "Invalid page: %s", in.Page)
		}
	}
	var paths []string
	for _, e := range in.Expand {
		rest, ok := strings.CutPrefix(e, "data.")
		if !ok {
			return SearchResult[T]{}, invalidParam("expand", "", "This property cannot be expanded (%s). You may want to try expanding 'data.%s' instead.", e, e)
		}
		paths = append(paths, rest)
	}
	if offset > int64(len(items)) {
		offset = int64(len(items))
	}
	end := min(offset+limit, int64(len(items)))
	out := make([]T, 0, end-offset)
	for _, it := range items[offset:end] {
		if len(paths) > 0 {
			var err error
			if it, err = expand(it, paths); err != nil {
				return SearchResult[T]{}, err
			}
		}
		out = append(out, it)
	}
	res := SearchResult[T]{Object: "search_result", Data: out, URL: url}
	if end < int64(len(items)) {
		res.HasMore = true
		b, _ := json.Marshal(end)
		next := base64.RawURLEncoding.EncodeToString(b)
		res.NextPage = &next
	}
	return res, nil
}
