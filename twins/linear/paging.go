package linear

import (
	"encoding/base64"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Paging of the MCP tools: limit (default 50, at most 250) and an opaque
// cursor naming where the next page starts.

const (
	defaultLimit = 50
	maxLimit     = 250
)

func encodeCursor(i int) string {
	return base64.RawURLEncoding.EncodeToString([]byte("pome:" + strconv.Itoa(i)))
}

func decodeCursor(c string) (int, bool) {
	b, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil || !strings.HasPrefix(string(b), "pome:") {
		return 0, false
	}
	n, err := strconv.Atoi(strings.TrimPrefix(string(b), "pome:"))
	return n, err == nil && n >= 0
}

// page cuts one page of items; next is "" on the last page.
func page[T any](items []T, limit int, cursor string) ([]T, string, error) {
	if limit == 0 {
		limit = defaultLimit
	}
	if limit < 0 || limit > maxLimit {
		return nil, "", errInvalid("limit", "limit must be between 1 and %d", maxLimit)
	}
	from := 0
	if cursor != "" {
		n, ok := decodeCursor(cursor)
		if !ok {
			return nil, "", errInvalid("cursor", "Invalid cursor %q", cursor)
		}
		from = min(n, len(items))
	}
	to := min(from+limit, len(items))
	next := ""
	if to < len(items) {
		next = encodeCursor(to)
	}
	return items[from:to], next, nil
}

// Timed is what ordering by createdAt or updatedAt needs.
type timed interface {
	created() time.Time
	updated() time.Time
}

func (i *Issue) created() time.Time    { return i.CreatedAt }
func (i *Issue) updated() time.Time    { return i.UpdatedAt }
func (c *Comment) created() time.Time  { return c.CreatedAt }
func (c *Comment) updated() time.Time  { return c.UpdatedAt }
func (t *Team) created() time.Time     { return t.CreatedAt }
func (t *Team) updated() time.Time     { return t.UpdatedAt }
func (u *User) created() time.Time     { return u.CreatedAt }
func (u *User) updated() time.Time     { return u.CreatedAt }
func (l *Label) created() time.Time    { return l.CreatedAt }
func (l *Label) updated() time.Time    { return l.UpdatedAt }
func (p *Project) created() time.Time  { return p.CreatedAt }
func (p *Project) updated() time.Time  { return p.UpdatedAt }
func (d *Document) created() time.Time { return d.CreatedAt }
func (d *Document) updated() time.Time { return d.UpdatedAt }

// sortBy orders newest first by the field Linear's orderBy names (updatedAt
// by default).
func sortBy[T timed](items []T, orderBy string) []T {
	// Newest first; records of the same instant in reverse world order,
	// the later-made one first.
	out := slices.Clone(items)
	slices.Reverse(out)
	key := T.updated
	if orderBy == "createdAt" {
		key = T.created
	}
	slices.SortStableFunc(out, func(a, b T) int { return key(b).Compare(key(a)) })
	return out
}

var durationRE = regexp.MustCompile(`^-?P(?:(\d+)Y)?(?:(\d+)M)?(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?)?$`)

// since reads Linear's "created after" filters: an ISO 8601 date or time,
// or a duration back from now (-P1D).
func since(field, v string, now time.Time) (time.Time, error) {
	if m := durationRE.FindStringSubmatch(v); m != nil && v != "P" && v != "-P" {
		n := func(i int) int { x, _ := strconv.Atoi(m[i]); return x }
		t := now.AddDate(-n(1), -n(2), -7*n(3)-n(4))
		return t.Add(-time.Duration(n(5))*time.Hour - time.Duration(n(6))*time.Minute - time.Duration(n(7))*time.Second), nil
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02"} {
		if t, err := time.Parse(layout, v); err == nil {
			return t, nil
		}
	}
	return time.Time{}, errInvalid(field, "%s must be an ISO-8601 date, time or duration such as -P1D: %q", field, v)
}

// contains is Linear's search: case-insensitive substring.
func contains(haystack, needle string) bool {
	return strings.Contains(strings.ToLower(haystack), strings.ToLower(needle))
}
