package gmail

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/pomehq/pome/twins"
)

// term is one parsed search term; alts holds the terms of an OR group.
type term struct {
	neg   bool
	op    string // "" for free text
	value string
	alts  []term
}

// query is a parsed Gmail search: every term must match (AND).
type query struct {
	terms []term
	// spamTrash says the query itself asks for spam or trash (in:trash,
	// in:anywhere, label:spam …), which lifts the default exclusion.
	spamTrash bool
}

// tokenize splits a query into words, keeping quoted phrases (also after an
// operator, as in subject:"receipt for") and parenthesised groups whole.
func tokenize(q string) []string {
	var out []string
	var b strings.Builder
	depth, quoted := 0, false
	flush := func() {
		if b.Len() > 0 {
			out = append(out, b.String())
			b.Reset()
		}
	}
	for _, r := range q {
		switch {
		case r == '"':
			quoted = !quoted
			b.WriteRune(r)
		case quoted:
			b.WriteRune(r)
		case r == '(' || r == '{':
			depth++
			b.WriteRune(r)
		case (r == ')' || r == '}') && depth > 0:
			depth--
			b.WriteRune(r)
		case unicode.IsSpace(r) && depth == 0:
			flush()
		default:
			b.WriteRune(r)
		}
	}
	flush()
	return out
}

// parseQuery parses Gmail's search operators: from: to: cc: bcc: subject:
// label: is: in: has: filename: after: before: older: newer: newer_than:
// older_than: rfc822msgid: list:, quoted phrases, -negation, OR, {a b}
// groups and free words.
func parseQuery(q string) (query, error) {
	var out query
	toks := tokenize(q)
	var terms []term
	for i := 0; i < len(toks); i++ {
		tok := toks[i]
		if tok == "AND" {
			continue
		}
		if tok == "OR" || tok == "|" {
			if len(terms) == 0 || i+1 >= len(toks) {
				continue
			}
			next, err := parseTerm(toks[i+1], &out)
			if err != nil {
				return out, err
			}
			i++
			prev := terms[len(terms)-1]
			if prev.op == "or" && !prev.neg {
				prev.alts = append(prev.alts, next)
				terms[len(terms)-1] = prev
			} else {
				terms[len(terms)-1] = term{op: "or", alts: []term{prev, next}}
			}
			continue
		}
		t, err := parseTerm(tok, &out)
		if err != nil {
			return out, err
		}
		terms = append(terms, t)
	}
	out.terms = terms
	return out, nil
}

func parseTerm(tok string, q *query) (term, error) {
	var t term
	if strings.HasPrefix(tok, "-") && len(tok) > 1 {
		t.neg = true
		tok = tok[1:]
	}
	// Groups: {a b} is OR, (a b) is AND.
	if len(tok) >= 2 && (tok[0] == '{' && tok[len(tok)-1] == '}' || tok[0] == '(' && tok[len(tok)-1] == ')') {
		inner, err := parseQuery(tok[1 : len(tok)-1])
		if err != nil {
			return t, err
		}
		q.spamTrash = q.spamTrash || inner.spamTrash
		t.op = "and"
		if tok[0] == '{' {
			t.op = "or"
		}
		t.alts = inner.terms
		return t, nil
	}
	if i := strings.IndexByte(tok, ':'); i > 0 && !strings.HasPrefix(tok, `"`) {
		op := strings.ToLower(tok[:i])
		switch op {
		case "from", "to", "cc", "bcc", "subject", "label", "is", "in", "has", "filename",
			"after", "before", "older", "newer", "newer_than", "older_than", "rfc822msgid", "list", "deliveredto", "category":
			if v := tok[i+1:]; len(v) >= 2 && (v[0] == '(' && v[len(v)-1] == ')' || v[0] == '{' && v[len(v)-1] == '}') {
				return parseOpGroup(op, v, t.neg, q)
			}
			t.op = op
			t.value = strings.ToLower(strings.Trim(tok[i+1:], `"`))
			if (op == "in" && (t.value == "trash" || t.value == "spam" || t.value == "anywhere")) ||
				(op == "label" && (t.value == "trash" || t.value == "spam")) {
				q.spamTrash = true
			}
			switch op {
			case "after", "before", "older", "newer":
				if _, err := parseDate(t.value); err != nil {
					return t, err
				}
			case "newer_than", "older_than":
				if _, err := parseAge(t.value); err != nil {
					return t, err
				}
			}
			return t, nil
		}
	}
	t.value = strings.ToLower(strings.Trim(tok, `"`))
	return t, nil
}

// parseOpGroup reads an operator applied to a group, as Gmail does:
// subject:(dinner movie) needs both words in the subject, subject:{a b}
// either, and an OR inside the parentheses makes it either too.
func parseOpGroup(op, v string, neg bool, q *query) (term, error) {
	g := term{op: "and", neg: neg}
	if v[0] == '{' {
		g.op = "or"
	}
	for _, w := range tokenize(v[1 : len(v)-1]) {
		switch w {
		case "AND":
			continue
		case "OR", "|":
			g.op = "or"
			continue
		}
		sign := ""
		if strings.HasPrefix(w, "-") && len(w) > 1 {
			sign, w = "-", w[1:]
		}
		sub, err := parseTerm(sign+op+":"+w, q)
		if err != nil {
			return g, err
		}
		g.alts = append(g.alts, sub)
	}
	return g, nil
}

// pst is the zone Gmail reads search dates in.
var pst = time.FixedZone("PST", -8*60*60)

func parseDate(v string) (time.Time, error) {
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		return time.Unix(n, 0), nil
	}
	v = strings.ReplaceAll(v, "-", "/")
	for _, layout := range []string{"2006/1/2", "2006/01/02", "1/2/2006"} {
		if t, err := time.ParseInLocation(layout, v, pst); err == nil {
			return t, nil
		}
	}
	return time.Time{}, gerr(twins.Invalid, "invalidArgument", "Invalid search query: bad date %q", v)
}

func parseAge(v string) (time.Duration, error) {
	if len(v) < 2 {
		return 0, gerr(twins.Invalid, "invalidArgument", "Invalid search query: bad age %q", v)
	}
	n, err := strconv.Atoi(v[:len(v)-1])
	if err != nil || n < 0 {
		return 0, gerr(twins.Invalid, "invalidArgument", "Invalid search query: bad age %q", v)
	}
	day := 24 * time.Hour
	switch v[len(v)-1] {
	case 'h':
		return time.Duration(n) * time.Hour, nil
	case 'd':
		return time.Duration(n) * day, nil
	case 'm':
		return time.Duration(n) * 30 * day, nil
	case 'y':
		return time.Duration(n) * 365 * day, nil
	}
	return 0, gerr(twins.Invalid, "invalidArgument", "Invalid search query: bad age %q", v)
}

// matcher evaluates terms against one message; the parsed MIME is built on
// first need (only free text, filename: and has: need it).
type matcher struct {
	mb  *Mailbox
	m   *Message
	now time.Time
	pm  *parsed
	txt string
}

func (x *matcher) body() string {
	if x.pm == nil {
		raw, err := decodeRaw(x.m.Raw)
		if err == nil {
			x.pm, _ = parseMessage(raw)
		}
		if x.pm != nil {
			x.txt = strings.ToLower(x.pm.text())
		}
	}
	return x.txt
}

func containsFold(hay, needle string) bool {
	return strings.Contains(strings.ToLower(hay), needle)
}

func anyContains(list []string, needle string) bool {
	return slices.ContainsFunc(list, func(s string) bool { return strings.Contains(s, needle) })
}

// labelNamed resolves label:x the way Gmail does: a label id or name, with
// spaces and slashes in the name also written as dashes.
func (mb *Mailbox) labelNamed(v string) string {
	for _, l := range mb.Labels {
		n := strings.ToLower(l.Name)
		if n == v || strings.ToLower(l.ID) == v || strings.NewReplacer(" ", "-", "/", "-").Replace(n) == v {
			return l.ID
		}
	}
	return ""
}

func (x *matcher) match(t term) bool {
	return x.eval(t) != t.neg
}

func (x *matcher) eval(t term) bool {
	m := x.m
	v := t.value
	switch t.op {
	case "or":
		return slices.ContainsFunc(t.alts, x.match)
	case "and":
		for _, a := range t.alts {
			if !x.match(a) {
				return false
			}
		}
		return true
	case "from":
		return containsFold(m.From, v) || (v == "me" && fromAddress(m.From) == strings.ToLower(x.mb.Address))
	case "to":
		return anyContains(m.To, v) || (v == "me" && slices.Contains(m.To, strings.ToLower(x.mb.Address)))
	case "cc":
		return anyContains(m.Cc, v)
	case "bcc":
		return anyContains(m.Bcc, v)
	case "deliveredto":
		return anyContains(m.To, v) || anyContains(m.Cc, v) || anyContains(m.Bcc, v)
	case "subject":
		return containsFold(m.Subject, v)
	case "rfc822msgid":
		return strings.Trim(strings.ToLower(m.MessageIDHdr), "<>") == strings.Trim(v, "<>")
	case "label":
		id := x.mb.labelNamed(v)
		return id != "" && m.hasLabel(id)
	case "category":
		return m.hasLabel("CATEGORY_" + strings.ToUpper(v))
	case "is":
		switch v {
		case "unread":
			return m.hasLabel("UNREAD")
		case "read":
			return !m.hasLabel("UNREAD")
		case "starred":
			return m.hasLabel("STARRED")
		case "important":
			return m.hasLabel("IMPORTANT")
		case "sent":
			return m.hasLabel("SENT")
		case "draft":
			return m.hasLabel("DRAFT")
		case "inbox":
			return m.hasLabel("INBOX")
		}
		id := x.mb.labelNamed(v)
		return id != "" && m.hasLabel(id)
	case "in":
		switch v {
		case "anywhere", "all":
			return true
		case "inbox", "sent", "trash", "spam", "draft", "drafts", "starred", "important", "chats":
			id := strings.ToUpper(strings.TrimSuffix(v, "s"))
			switch v {
			case "drafts", "draft":
				id = "DRAFT"
			case "chats":
				id = "CHAT"
			case "trash", "spam", "inbox", "sent", "starred", "important":
				id = strings.ToUpper(v)
			}
			return m.hasLabel(id)
		}
		id := x.mb.labelNamed(v)
		return id != "" && m.hasLabel(id)
	case "has":
		switch v {
		case "attachment":
			return m.HasAttachment
		case "userlabels":
			return slices.ContainsFunc(m.LabelIDs, x.mb.isUserLabel)
		case "nouserlabels":
			return !slices.ContainsFunc(m.LabelIDs, x.mb.isUserLabel)
		}
		return false
	case "filename":
		x.body()
		if x.pm == nil {
			return false
		}
		for _, a := range x.pm.attachments() {
			n := strings.ToLower(a.filename)
			if strings.Contains(n, v) || strings.HasSuffix(n, "."+v) {
				return true
			}
		}
		return false
	case "list":
		return false
	case "after", "newer":
		d, _ := parseDate(v)
		return m.InternalDate >= d.UnixMilli()
	case "before", "older":
		d, _ := parseDate(v)
		return m.InternalDate < d.UnixMilli()
	case "newer_than":
		a, _ := parseAge(v)
		return m.InternalDate >= x.now.Add(-a).UnixMilli()
	case "older_than":
		a, _ := parseAge(v)
		return m.InternalDate < x.now.Add(-a).UnixMilli()
	}
	// Free text: subject, addresses, snippet and body.
	if v == "" {
		return true
	}
	return containsFold(m.Subject, v) || containsFold(m.From, v) || anyContains(m.To, v) ||
		anyContains(m.Cc, v) || strings.Contains(x.body(), v)
}

// search returns the mailbox's messages matching q and every label id,
// newest first. Spam and trash are left out unless asked for.
func (mb *Mailbox) search(q string, labelIDs []string, includeSpamTrash bool, now time.Time) ([]*Message, error) {
	pq, err := parseQuery(q)
	if err != nil {
		return nil, err
	}
	for _, id := range labelIDs {
		if id == "TRASH" || id == "SPAM" {
			pq.spamTrash = true
		}
	}
	var out []*Message
	for _, m := range mb.Messages {
		if !includeSpamTrash && !pq.spamTrash && (m.hasLabel("TRASH") || m.hasLabel("SPAM")) {
			continue
		}
		ok := true
		for _, id := range labelIDs {
			if !m.hasLabel(id) {
				ok = false
				break
			}
		}
		if !ok {
			continue
		}
		x := &matcher{mb: mb, m: m, now: now}
		for _, t := range pq.terms {
			if !x.match(t) {
				ok = false
				break
			}
		}
		if ok {
			out = append(out, m)
		}
	}
	newestFirst(out)
	return out, nil
}

// page cuts a result list: pageToken is the offset, written in decimal as
// an opaque string (Gmail's tokens are opaque digits too).
func page[T any](items []T, pageToken string, size, def, limit int) ([]T, string, error) {
	start := 0
	if pageToken != "" {
		n, err := strconv.Atoi(pageToken)
		if err != nil || n < 0 || len(pageToken) != 20 {
			return nil, "", gerr(twins.Invalid, "invalidArgument", "Invalid pageToken")
		}
		start = n
	}
	if size <= 0 {
		size = def
	}
	size = min(size, limit)
	if start >= len(items) {
		return []T{}, "", nil
	}
	end := min(start+size, len(items))
	next := ""
	if end < len(items) {
		next = pageTokenFor(end)
	}
	return items[start:end], next, nil
}

func pageTokenFor(offset int) string { return fmt.Sprintf("%020d", offset) }

// isUserLabel reports whether id names a user label (a seed may pin user
// label ids that do not start with Label_).
func (mb *Mailbox) isUserLabel(id string) bool {
	l := mb.label(id)
	return l != nil && l.Type == "user"
}
