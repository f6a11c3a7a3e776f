package github

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/pomehq/pome/twins"
)

// Search: GET /search/{issues,repositories,code,users,commits} and
// github-mcp-server's search_* tools. A query is free words (AND-ed,
// case-insensitive substrings; "quoted phrases" stay one word) and
// qualifiers key:value; a leading - or NOT negates a term. Qualifiers the
// twin does not know are searched as free words, as GitHub does.

// maxQueryLen is GitHub's limit on q.
const maxQueryLen = 256

// SearchIn is the input of every search tool (github-mcp-server's names;
// REST's q and per_page are renamed onto query and perPage).
type SearchIn struct {
	Query string `json:"query" jsonschema:"Search query using GitHub's search syntax (free words and qualifiers such as repo:owner/name)"`
	Sort  string `json:"sort,omitempty" jsonschema:"Sort field; defaults to best match"`
	Order string `json:"order,omitempty" jsonschema:"Sort order: asc or desc (default)" enum:"asc,desc"`
	Paging
}

// SearchIssuesIn is search_issues' and search_pull_requests' input: owner
// and repo, when both are given, scope the query to that repository.
type SearchIssuesIn struct {
	SearchIn
	Owner string `json:"owner,omitempty" jsonschema:"Optional repository owner. If provided with repo, only results for this repository are listed."`
	Repo  string `json:"repo,omitempty" jsonschema:"Optional repository name. If provided with owner, only results for this repository are listed."`
}

// SearchIssuesArgs is search_issues' input, with github-mcp-server's
// field selection (the MCP answer keeps only the fields named).
type SearchIssuesArgs struct {
	SearchIssuesIn
	Fields []string `json:"fields,omitempty" jsonschema:"Fields to keep in each result item (all when omitted); leave out body, reactions and labels to shrink the answer" enum:"number,title,body,state,state_reason,draft,locked,html_url,user,author_association,labels,assignee,assignees,milestone,comments,reactions,created_at,updated_at,closed_at,closed_by,type,repository_url,pull_request,field_values"`
}

// SearchPullsArgs is search_pull_requests' input, with its field selection.
type SearchPullsArgs struct {
	SearchIssuesIn
	Fields []string `json:"fields,omitempty" jsonschema:"Fields to keep in each result item (all when omitted); leave out body, reactions and labels to shrink the answer" enum:"number,title,body,state,state_reason,draft,locked,html_url,user,author_association,labels,assignee,assignees,milestone,comments,reactions,created_at,updated_at,closed_at,closed_by,pull_request,repository_url"`
}

// SearchCodeIn is search_code's input, with its field selection.
type SearchCodeIn struct {
	SearchIn
	Fields []string `json:"fields,omitempty" jsonschema:"Fields to keep in each result item (all when omitted)" enum:"name,path,sha,repository,text_matches"`
}

// SearchReposIn is search_repositories' input.
type SearchReposIn struct {
	SearchIn
	MinimalOutput *bool `json:"minimal_output,omitempty" jsonschema:"Answer trimmed repository objects over MCP (default true); false answers GitHub's full repository objects"`
}

var searchRename = map[string]string{"q": "query", "per_page": "perPage"}

// SearchResult is GitHub's search response, on both transports.
type SearchResult[T any] struct {
	TotalCount        int  `json:"total_count"`
	IncompleteResults bool `json:"incomplete_results"`
	Items             []T  `json:"items"`

	link string
}

func (s *SearchResult[T]) linkHeader() string { return s.link }

// APISearchIssue is an issue search hit: the issue plus its score.
type APISearchIssue struct {
	APIIssue
	Score float64 `json:"score"`
}

// APISearchRepository is a repository search hit.
type APISearchRepository struct {
	APIRepository
	Score float64 `json:"score"`
}

// APISearchCode is a code search hit.
type APISearchCode struct {
	Name       string        `json:"name"`
	Path       string        `json:"path"`
	SHA        string        `json:"sha"`
	URL        string        `json:"url"`
	GitURL     string        `json:"git_url"`
	HTMLURL    string        `json:"html_url"`
	Repository APIRepository `json:"repository"`
	Score      float64       `json:"score"`
}

// APISearchUser is a user search hit.
type APISearchUser struct {
	APIUser
	Score float64 `json:"score"`
}

// APISearchCommit is a commit search hit.
type APISearchCommit struct {
	APICommit
	Repository APIRepoSummary `json:"repository"`
	Score      float64        `json:"score"`
}

// term is one parsed query term.
type term struct {
	key, value string // key "" is a free word
	neg        bool
}

// parseQuery splits a query into terms, keeping quoted phrases whole.
func parseQuery(q string) []term {
	var toks []string
	var cur strings.Builder
	inQuote, started := false, false
	for _, r := range q {
		switch {
		case r == '"':
			inQuote, started = !inQuote, true
			cur.WriteRune(r)
		case !inQuote && (r == ' ' || r == '\t' || r == '\n'):
			if started {
				toks = append(toks, cur.String())
				cur.Reset()
				started = false
			}
		default:
			cur.WriteRune(r)
			started = true
		}
	}
	if started {
		toks = append(toks, cur.String())
	}
	var out []term
	negNext := false
	for _, tok := range toks {
		switch tok {
		case "NOT":
			negNext = true
			continue
		case "AND":
			continue
		}
		t := term{neg: negNext}
		negNext = false
		if strings.HasPrefix(tok, "-") && len(tok) > 1 {
			t.neg, tok = true, tok[1:]
		}
		q := strings.IndexByte(tok, '"')
		if i := strings.IndexByte(tok, ':'); i > 0 && (q < 0 || i < q) && isQualifierKey(tok[:i]) {
			t.key, t.value = strings.ToLower(tok[:i]), unquote(tok[i+1:])
		} else {
			t.value = unquote(tok)
		}
		if t.key == "" && t.value == "" {
			continue
		}
		out = append(out, t)
	}
	return out
}

func isQualifierKey(k string) bool {
	for _, r := range k {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r == '-' || r == '_') {
			return false
		}
	}
	return true
}

func unquote(s string) string { return strings.ReplaceAll(s, `"`, "") }

// containsWord is the twin's notion of a free-word match.
func containsWord(hay, word string) bool {
	return strings.Contains(strings.ToLower(hay), strings.ToLower(word))
}

// searchInvalid is GitHub's 422 for a query it cannot run.
func searchInvalid(format string, args ...any) *twins.Error {
	msg := fmt.Sprintf(format, args...)
	return invalid("Search", "q", "invalid", "%s", msg).With("entry_message", msg)
}

// checkQuery applies GitHub's limits to q.
func checkQuery(q string) error {
	if strings.TrimSpace(q) == "" {
		return invalid("Search", "q", "missing", "query is required")
	}
	if len(q) > maxQueryLen {
		return searchInvalid("The search is longer than %d characters.", maxQueryLen)
	}
	return nil
}

const unsearchable = "The listed users and repositories cannot be searched either because the resources do not exist or you do not have permission to view them."

// scope returns the repositories the query's repo:, org: and user: terms
// select (all visible ones when it has none), or GitHub's 422 when a named
// repository or account does not exist or is hidden.
func scope(w *World, terms []term) ([]*Repo, error) {
	var repos, owners []string
	for _, t := range terms {
		if t.neg {
			continue
		}
		switch t.key {
		case "repo":
			repos = append(repos, t.value)
		case "org", "user":
			owners = append(owners, t.value)
		}
	}
	for _, full := range repos {
		owner, name, _ := strings.Cut(full, "/")
		if _, err := w.repo(owner, name); err != nil {
			return nil, searchInvalid(unsearchable)
		}
	}
	for _, o := range owners {
		if w.user(o) == nil && w.org(o) == nil {
			return nil, searchInvalid(unsearchable)
		}
	}
	var out []*Repo
	for _, r := range w.visibleRepos() {
		if len(repos) > 0 || len(owners) > 0 {
			in := false
			for _, full := range repos {
				in = in || strings.EqualFold(full, r.FullName())
			}
			for _, o := range owners {
				in = in || strings.EqualFold(o, r.Owner)
			}
			if !in {
				continue
			}
		}
		out = append(out, r)
	}
	// Negated scopes exclude.
	for _, t := range terms {
		if !t.neg {
			continue
		}
		kept := out[:0:0]
		for _, r := range out {
			if t.key == "repo" && strings.EqualFold(t.value, r.FullName()) || (t.key == "org" || t.key == "user") && strings.EqualFold(t.value, r.Owner) {
				continue
			}
			kept = append(kept, r)
		}
		out = kept
	}
	return out, nil
}

// cmpExpr matches GitHub's range syntax (>=x, <=x, >x, <x, a..b, x) with
// compare(x) returning -1, 0 or 1 for value against x; a bound that does
// not parse matches nothing.
func cmpExpr(expr string, compare func(string) (int, bool)) bool {
	if lo, hi, ok := strings.Cut(expr, ".."); ok {
		a, okA := compare(lo)
		b, okB := compare(hi)
		if lo == "*" {
			a, okA = 1, true
		}
		if hi == "*" {
			b, okB = -1, true
		}
		return okA && okB && a >= 0 && b <= 0
	}
	for _, op := range []string{">=", "<=", ">", "<"} {
		if rest, ok := strings.CutPrefix(expr, op); ok {
			c, ok := compare(rest)
			if !ok {
				return false
			}
			switch op {
			case ">=":
				return c >= 0
			case "<=":
				return c <= 0
			case ">":
				return c > 0
			}
			return c < 0
		}
	}
	c, ok := compare(expr)
	return ok && c == 0
}

// dateMatches compares t with a date qualifier; a bare date matches the
// whole day.
func dateMatches(t *time.Time, expr string) bool {
	if t == nil {
		return false
	}
	return cmpExpr(expr, func(s string) (int, bool) {
		if d, err := time.Parse("2006-01-02", s); err == nil {
			day := t.UTC().Truncate(24 * time.Hour)
			return day.Compare(d), true
		}
		for _, layout := range []string{time.RFC3339, "2006-01-02T15:04:05", "2006-01-02T15:04"} {
			if d, err := time.Parse(layout, s); err == nil {
				return t.Compare(d), true
			}
		}
		return 0, false
	})
}

func numberMatches(n int, expr string) bool {
	return cmpExpr(expr, func(s string) (int, bool) {
		x, err := strconv.Atoi(s)
		if err != nil {
			return 0, false
		}
		switch {
		case n < x:
			return -1, true
		case n > x:
			return 1, true
		}
		return 0, true
	})
}

// searchPage pages hits and builds the Link header for the search path.
func searchPage[T any](ctx context.Context, hits []T, in SearchIn, path string) *SearchResult[T] {
	q := url.Values{"q": {in.Query}}
	if in.Sort != "" {
		q.Set("sort", in.Sort)
	}
	if in.Order != "" {
		q.Set("order", in.Order)
	}
	page, info := paginate(ctx, hits, in.Paging, path, q)
	return &SearchResult[T]{TotalCount: len(hits), Items: page, link: info.link}
}

// order checks the order parameter and reports whether it is ascending.
func order(o string) (bool, error) {
	switch strings.ToLower(o) {
	case "", "desc":
		return false, nil
	case "asc":
		return true, nil
	}
	return false, invalid("Search", "order", "invalid", "order must be asc or desc, got %q", o)
}

// checkSearch makes the checks every search endpoint but the issue search
// makes, in GitHub's order: the query, the order, then sort against the
// endpoint's sort keys. It reports whether the order is ascending.
func checkSearch(in SearchIn, sorts ...string) (bool, error) {
	if err := checkQuery(in.Query); err != nil {
		return false, err
	}
	asc, err := order(in.Order)
	if err != nil {
		return false, err
	}
	if in.Sort != "" && !slices.Contains(sorts, in.Sort) {
		keys := sorts[len(sorts)-1]
		if len(sorts) > 1 {
			keys = strings.Join(sorts[:len(sorts)-1], ", ") + " or " + keys
		}
		return false, invalid("Search", "sort", "invalid", "sort must be %s, got %q", keys, in.Sort)
	}
	return asc, nil
}

// matchAll reports whether a hit satisfies every term of a query: a term
// must match, a negated one must not.
func matchAll(terms []term, matches func(term) bool) bool {
	for _, t := range terms {
		if matches(t) == t.neg {
			return false
		}
	}
	return true
}

// inFields returns the fields the query's in: qualifier names (the last
// one wins), or the endpoint's defaults.
func inFields(terms []term, defaults ...string) []string {
	fields := defaults
	for _, t := range terms {
		if t.key == "in" && !t.neg {
			fields = strings.Split(strings.ToLower(t.value), ",")
		}
	}
	return fields
}

// ---- issues and pull requests ----

// issueHit is an issue with its repository, while matching.
type issueHit struct {
	r  *Repo
	is *Issue
}

var searchIssues = twins.New(twins.Spec{
	Name:  "search_issues",
	Title: "Search issues",
	Description: "Search issues with GitHub's issues search syntax (repo:, is:open|closed, label:, assignee:, author:, in:title|body, …); " +
		"over MCP the query is scoped to is:issue, and owner with repo scope it to that repository.",
	Effect: twins.Read,
	Bindings: []twins.Binding{
		{Method: "GET", Path: "/search/issues", Rename: searchRename, Headers: linkHeaders},
	},
}, func(ctx context.Context, w *World, args SearchIssuesArgs) (*SearchResult[APISearchIssue], error) {
	in := args.SearchIssuesIn
	if twins.TransportFrom(ctx) == twins.TransportMCP {
		in.Query = scopeMCPQuery(in, "issue")
	}
	return runIssueSearch(ctx, w, in)
})

var searchPullRequests = twins.New(twins.Spec{
	Name:        "search_pull_requests",
	Title:       "Search pull requests",
	Description: "Search for pull requests in GitHub repositories using issues search syntax already scoped to is:pr; owner with repo scope it to that repository.",
	Effect:      twins.Read,
	// REST has no route of its own: GET /search/issues?q=is:pr … is search_issues.
}, func(ctx context.Context, w *World, args SearchPullsArgs) (*SearchResult[APISearchIssue], error) {
	in := args.SearchIssuesIn
	in.Query = scopeMCPQuery(in, "pr")
	return runIssueSearch(ctx, w, in)
})

// scopeMCPQuery adds what github-mcp-server adds to a query: is:<kind>
// unless the query says it, and repo:owner/repo when both are given.
func scopeMCPQuery(in SearchIssuesIn, kind string) string {
	q := in.Query
	has := func(key, val string) bool {
		for _, t := range parseQuery(q) {
			if t.key == key && (val == "" || strings.EqualFold(t.value, val)) {
				return true
			}
		}
		return false
	}
	if !has("is", kind) {
		q = "is:" + kind + " " + q
	}
	if in.Owner != "" && in.Repo != "" && !has("repo", "") {
		q = "repo:" + in.Owner + "/" + in.Repo + " " + q
	}
	return strings.TrimSpace(q)
}

func runIssueSearch(ctx context.Context, w *World, in SearchIssuesIn) (*SearchResult[APISearchIssue], error) {
	hits, err := issueSearchHits(w, in)
	if err != nil {
		return nil, err
	}
	v := newView(ctx, w)
	items := make([]APISearchIssue, 0, len(hits))
	for _, h := range hits {
		items = append(items, APISearchIssue{APIIssue: v.issue(h.r, h.is), Score: 1})
	}
	return searchPage(ctx, items, in.SearchIn, "/search/issues"), nil
}

// issueSearchHits runs an issues search: the matching issues and pull
// requests of the repositories the user can see, in the order asked for.
// GraphQL's search(type: ISSUE) shares it.
func issueSearchHits(w *World, in SearchIssuesIn) ([]issueHit, error) {
	if err := checkQuery(in.Query); err != nil {
		return nil, err
	}
	asc, err := order(in.Order)
	if err != nil {
		return nil, err
	}
	sortBy := in.Sort
	switch sortBy {
	case "", "comments", "created", "updated", "interactions":
	default:
		if !strings.HasPrefix(sortBy, "reactions") {
			return nil, invalid("Search", "sort", "invalid", "sort must be comments, reactions, interactions, created or updated, got %q", in.Sort)
		}
		// The twin records no reactions: every count is zero.
		sortBy = ""
	}
	terms := parseQuery(in.Query)
	repos, err := scope(w, terms)
	if err != nil {
		return nil, err
	}
	fields := inFields(terms, "title", "body", "comments")
	var hits []issueHit
	for _, r := range repos {
		for _, is := range r.Issues {
			if matchAll(terms, func(t term) bool { return issueTermMatches(w, r, is, t, fields) }) {
				hits = append(hits, issueHit{r, is})
			}
		}
	}
	key := func(h issueHit) int64 {
		switch sortBy {
		case "comments", "interactions":
			return int64(h.is.Comments.Len())
		case "updated":
			return h.is.UpdatedAt.UnixNano()
		}
		return h.is.CreatedAt.UnixNano()
	}
	sort.SliceStable(hits, func(i, j int) bool {
		a, b := key(hits[i]), key(hits[j])
		if a == b {
			a, b = hits[i].is.ID, hits[j].is.ID
		}
		if asc {
			return a < b
		}
		return a > b
	})
	return hits, nil
}

// issueTermMatches reports whether one (un-negated) term matches the issue.
func issueTermMatches(w *World, r *Repo, is *Issue, t term, fields []string) bool {
	val := strings.ToLower(t.value)
	pull := is.Pull
	switch t.key {
	case "":
		for _, f := range fields {
			switch f {
			case "title":
				if containsWord(is.Title, t.value) {
					return true
				}
			case "body":
				if containsWord(is.Body, t.value) {
					return true
				}
			case "comments":
				for _, c := range is.Comments.All() {
					if containsWord(c.Body, t.value) {
						return true
					}
				}
			}
		}
		return false
	case "repo", "org", "user":
		return true // applied by scope
	case "in":
		return true // applied to free words
	case "is", "type", "state":
		switch val {
		case "issue":
			return pull == nil
		case "pr", "pull-request":
			return pull != nil
		case "open", "closed":
			return is.State == val
		case "merged":
			return pull != nil && pull.Merged
		case "unmerged":
			return pull != nil && !pull.Merged && is.State == "closed"
		case "locked":
			return is.Locked
		case "unlocked":
			return !is.Locked
		case "draft":
			return pull != nil && pull.Draft
		case "public":
			return !r.Private
		case "private":
			return r.Private
		}
		return false
	case "label":
		for _, l := range strings.Split(t.value, ",") {
			if containsFold(is.Labels, strings.TrimSpace(l)) {
				return true
			}
		}
		return false
	case "no":
		switch val {
		case "label":
			return len(is.Labels) == 0
		case "assignee":
			return len(is.Assignees) == 0
		case "milestone":
			return is.Milestone == 0
		}
		return false
	case "assignee":
		return containsFold(is.Assignees, t.value)
	case "author":
		return strings.EqualFold(is.User, t.value)
	case "mentions":
		return mentions(is, t.value)
	case "commenter":
		for _, c := range is.Comments.All() {
			if strings.EqualFold(c.User, t.value) {
				return true
			}
		}
		return false
	case "involves":
		if strings.EqualFold(is.User, t.value) || containsFold(is.Assignees, t.value) || mentions(is, t.value) {
			return true
		}
		return issueTermMatches(w, r, is, term{key: "commenter", value: t.value}, fields)
	case "milestone":
		m := r.milestone(is.Milestone)
		return m != nil && strings.EqualFold(m.Title, t.value)
	case "reason":
		switch val {
		case "completed":
			return is.StateReason == "completed"
		case "not planned", "not_planned":
			return is.StateReason == "not_planned"
		case "reopened":
			return is.StateReason == "reopened"
		}
		return false
	case "created":
		return dateMatches(&is.CreatedAt, t.value)
	case "updated":
		return dateMatches(&is.UpdatedAt, t.value)
	case "closed":
		return dateMatches(is.ClosedAt, t.value)
	case "merged":
		return pull != nil && dateMatches(pull.MergedAt, t.value)
	case "comments", "interactions":
		return numberMatches(is.Comments.Len(), t.value)
	case "head":
		return pull != nil && strings.EqualFold(pull.Head, t.value)
	case "base":
		return pull != nil && strings.EqualFold(pull.Base, t.value)
	case "review-requested":
		return pull != nil && containsFold(pull.RequestedReviewers, t.value)
	case "reviewed-by":
		if pull != nil {
			for _, rv := range pull.Reviews {
				if strings.EqualFold(rv.User, t.value) {
					return true
				}
			}
		}
		return false
	case "review":
		if pull == nil {
			return false
		}
		last := map[string]string{}
		for _, rv := range pull.Reviews {
			if rv.State != "COMMENTED" {
				last[strings.ToLower(rv.User)] = rv.State
			}
		}
		switch val {
		case "none":
			return len(pull.Reviews) == 0
		case "required":
			return len(last) == 0
		case "approved", "changes_requested":
			want := strings.ToUpper(val)
			for _, s := range last {
				if s == want {
					return true
				}
			}
		}
		return false
	}
	// An unknown qualifier is searched as text, as GitHub does.
	return issueTermMatches(w, r, is, term{value: t.key + ":" + t.value}, fields)
}

// ---- repositories ----

var searchRepositories = twins.New(twins.Spec{
	Name:        "search_repositories",
	Title:       "Search repositories",
	Description: "Find GitHub repositories by name, description, topics or owner (qualifiers user:, org:, repo:, in:name|description|topics|readme, topic:, is:public|private, fork:true|only, archived:).",
	Effect:      twins.Read,
	Bindings: []twins.Binding{
		{Method: "GET", Path: "/search/repositories", Rename: searchRename, Headers: linkHeaders},
	},
}, func(ctx context.Context, w *World, args SearchReposIn) (*SearchResult[APISearchRepository], error) {
	in := args.SearchIn
	asc, err := checkSearch(in, "stars", "forks", "help-wanted-issues", "updated")
	if err != nil {
		return nil, err
	}
	terms := parseQuery(in.Query)
	repos, err := scope(w, terms)
	if err != nil {
		return nil, err
	}
	fields := inFields(terms, "name", "description", "topics")
	forks := "false"
	for _, t := range terms {
		if t.key == "fork" {
			forks = strings.ToLower(t.value)
		}
	}
	v := newView(ctx, w)
	var hits []*Repo
	for _, r := range repos {
		// Forks are left out unless fork:true or fork:only says otherwise.
		if r.Fork && forks == "false" || !r.Fork && forks == "only" {
			continue
		}
		if matchAll(terms, func(t term) bool { return repoTermMatches(r, t, fields) }) {
			hits = append(hits, r)
		}
	}
	sort.SliceStable(hits, func(i, j int) bool {
		a, b := hits[i].ID, hits[j].ID
		if in.Sort == "updated" {
			a, b = hits[i].UpdatedAt.UnixNano(), hits[j].UpdatedAt.UnixNano()
		}
		if a == b {
			a, b = hits[i].ID, hits[j].ID
		}
		if asc {
			return a < b
		}
		return a > b
	})
	items := make([]APISearchRepository, 0, len(hits))
	for _, r := range hits {
		items = append(items, APISearchRepository{APIRepository: v.repository(r), Score: 1})
	}
	return searchPage(ctx, items, in, "/search/repositories"), nil
})

func repoTermMatches(r *Repo, t term, fields []string) bool {
	switch t.key {
	case "":
		for _, f := range fields {
			switch f {
			case "name":
				if containsWord(r.Name, t.value) || containsWord(r.FullName(), t.value) {
					return true
				}
			case "description":
				if containsWord(r.Description, t.value) {
					return true
				}
			case "topics":
				for _, tp := range r.Topics {
					if containsWord(tp, t.value) {
						return true
					}
				}
			case "readme":
				if c := r.resolve(""); c != nil {
					for p, sha := range c.Tree {
						if strings.EqualFold(p, "README.md") || strings.EqualFold(p, "README") {
							if containsWord(string(r.Blobs[sha]), t.value) {
								return true
							}
						}
					}
				}
			}
		}
		return false
	case "repo", "org", "user", "in", "fork":
		return true
	case "topic":
		return containsFold(r.Topics, t.value)
	case "is":
		switch strings.ToLower(t.value) {
		case "public":
			return !r.Private
		case "private":
			return r.Private
		}
		return false
	case "archived":
		return strings.EqualFold(t.value, "false")
	case "language":
		// The twin detects no languages (language is null).
		return false
	case "created":
		return dateMatches(&r.CreatedAt, t.value)
	case "pushed":
		return dateMatches(&r.PushedAt, t.value)
	case "stars", "forks", "size":
		return numberMatches(0, t.value)
	}
	return repoTermMatches(r, term{value: t.key + ":" + t.value}, fields)
}

// ---- code ----

var searchCode = twins.New(twins.Spec{
	Name:        "search_code",
	Title:       "Search code",
	Description: "Search file contents and paths on repositories' default branches: free words are AND-ed substrings; qualifiers repo:, org:, user:, path:, filename:, extension:, in:file|path.",
	Effect:      twins.Read,
	Bindings: []twins.Binding{
		{Method: "GET", Path: "/search/code", Rename: searchRename, Headers: linkHeaders},
	},
}, func(ctx context.Context, w *World, args SearchCodeIn) (*SearchResult[APISearchCode], error) {
	in := args.SearchIn
	if _, err := checkSearch(in, "indexed"); err != nil {
		return nil, err
	}
	terms := parseQuery(in.Query)
	repos, err := scope(w, terms)
	if err != nil {
		return nil, err
	}
	fields := inFields(terms, "file", "path")
	v := newView(ctx, w)
	var items []APISearchCode
	for _, r := range repos {
		c := r.resolve("")
		if c == nil {
			continue
		}
		paths := make([]string, 0, len(c.Tree))
		for p := range c.Tree {
			paths = append(paths, p)
		}
		sort.Strings(paths)
		var repo *APIRepository
		for _, p := range paths {
			sha := c.Tree[p]
			content := string(r.Blobs[sha])
			if !matchAll(terms, func(t term) bool { return codeTermMatches(p, content, t, fields) }) {
				continue
			}
			if repo == nil {
				rr := v.repository(r)
				repo = &rr
			}
			name := p[strings.LastIndexByte(p, '/')+1:]
			items = append(items, APISearchCode{
				Name: name, Path: p, SHA: sha,
				URL:        v.repoURL(r) + "/contents/" + p + "?ref=" + c.SHA,
				GitURL:     v.repoURL(r) + "/git/blobs/" + sha,
				HTMLURL:    v.html + "/" + r.FullName() + "/blob/" + c.SHA + "/" + p,
				Repository: *repo, Score: 1,
			})
		}
	}
	return searchPage(ctx, items, in, "/search/code"), nil
})

func codeTermMatches(p, content string, t term, fields []string) bool {
	switch t.key {
	case "":
		for _, f := range fields {
			if f == "file" && containsWord(content, t.value) || f == "path" && containsWord(p, t.value) {
				return true
			}
		}
		return false
	case "repo", "org", "user", "in":
		return true
	case "path":
		dir := strings.Trim(t.value, "/")
		return dir == "" || p == dir || strings.HasPrefix(p, dir+"/") || strings.Contains(p, t.value)
	case "filename":
		return strings.EqualFold(p[strings.LastIndexByte(p, '/')+1:], t.value)
	case "extension":
		return strings.HasSuffix(strings.ToLower(p), "."+strings.ToLower(strings.TrimPrefix(t.value, ".")))
	case "language":
		ext, ok := languageExt[strings.ToLower(t.value)]
		return ok && strings.HasSuffix(strings.ToLower(p), ext)
	case "size":
		return numberMatches(len(content), t.value)
	}
	return codeTermMatches(p, content, term{value: t.key + ":" + t.value}, fields)
}

// languageExt maps the language: qualifier to a file extension for the
// languages sandboxes tend to hold.
var languageExt = map[string]string{
	"go": ".go", "python": ".py", "javascript": ".js", "typescript": ".ts", "ruby": ".rb",
	"java": ".java", "rust": ".rs", "markdown": ".md", "yaml": ".yml", "json": ".json", "shell": ".sh",
}

// ---- users ----

var searchUsers = twins.New(twins.Spec{
	Name:        "search_users",
	Title:       "Search users",
	Description: "Find GitHub users and organizations by login, name or email (qualifiers type:user|org, in:login|name|email, location:).",
	Effect:      twins.Read,
	Bindings: []twins.Binding{
		{Method: "GET", Path: "/search/users", Rename: searchRename, Headers: linkHeaders},
	},
}, func(ctx context.Context, w *World, in SearchIn) (*SearchResult[APISearchUser], error) {
	asc, err := checkSearch(in, "followers", "repositories", "joined")
	if err != nil {
		return nil, err
	}
	terms := parseQuery(in.Query)
	fields := inFields(terms, "login", "name", "email")
	type account struct {
		login, name, email, location, kind string
		id                                 int64
		created                            time.Time
	}
	var all []account
	for _, u := range w.Users {
		all = append(all, account{u.Login, u.Name, u.Email, u.Location, "user", u.ID, u.CreatedAt})
	}
	for _, o := range w.Orgs {
		all = append(all, account{o.Login, o.Name, "", "", "org", o.ID, o.CreatedAt})
	}
	var hits []account
	for _, a := range all {
		ok := true
		for _, t := range terms {
			m := false
			switch t.key {
			case "":
				for _, f := range fields {
					m = m || f == "login" && containsWord(a.login, t.value) || f == "name" && containsWord(a.name, t.value) || f == "email" && containsWord(a.email, t.value)
				}
			case "in":
				m = true
			case "type":
				m = strings.EqualFold(t.value, a.kind) || strings.EqualFold(t.value, "organization") && a.kind == "org"
			case "user", "org":
				m = strings.EqualFold(t.value, a.login)
			case "location":
				m = containsWord(a.location, t.value)
			case "created":
				m = dateMatches(&a.created, t.value)
			case "fullname":
				m = containsWord(a.name, t.value)
			default:
				m = containsWord(a.login, t.key+":"+t.value)
			}
			if m == t.neg {
				ok = false
				break
			}
		}
		if ok {
			hits = append(hits, a)
		}
	}
	sort.SliceStable(hits, func(i, j int) bool {
		a, b := hits[i].id, hits[j].id
		if in.Sort == "" {
			// Best match: logins in alphabetical order.
			return hits[i].login < hits[j].login
		}
		if asc {
			return a < b
		}
		return a > b
	})
	v := newView(ctx, w)
	items := make([]APISearchUser, 0, len(hits))
	for _, a := range hits {
		items = append(items, APISearchUser{APIUser: *v.user(a.login), Score: 1})
	}
	return searchPage(ctx, items, in, "/search/users"), nil
})

// ---- commits ----

var searchCommits = twins.New(twins.Spec{
	Name:        "search_commits",
	Title:       "Search commits",
	Description: "Search commit messages on repositories' default branches (qualifiers repo:, org:, user:, author:, committer:, hash:, merge:true|false, author-date:, committer-date:).",
	Effect:      twins.Read,
	Bindings: []twins.Binding{
		{Method: "GET", Path: "/search/commits", Rename: searchRename, Headers: linkHeaders},
	},
}, func(ctx context.Context, w *World, in SearchIn) (*SearchResult[APISearchCommit], error) {
	asc, err := checkSearch(in, "author-date", "committer-date")
	if err != nil {
		return nil, err
	}
	terms := parseQuery(in.Query)
	repos, err := scope(w, terms)
	if err != nil {
		return nil, err
	}
	type hit struct {
		r   *Repo
		c   *Commit
		seq int
	}
	var hits []hit
	for _, r := range repos {
		head := r.resolve("")
		if head == nil {
			continue
		}
		reach := r.ancestors(head.SHA)
		for _, c := range r.Commits {
			if !reach[c.SHA] {
				continue
			}
			if matchAll(terms, func(t term) bool { return commitTermMatches(c, t) }) {
				hits = append(hits, hit{r, c, len(hits)})
			}
		}
	}
	sort.SliceStable(hits, func(i, j int) bool {
		a, b := hits[i].c.Date, hits[j].c.Date
		if a.Equal(b) {
			// Equal dates (a seed stamps one time) fall back to history order.
			if asc {
				return hits[i].seq < hits[j].seq
			}
			return hits[i].seq > hits[j].seq
		}
		if asc {
			return a.Before(b)
		}
		return a.After(b)
	})
	v := newView(ctx, w)
	items := make([]APISearchCommit, 0, len(hits))
	for _, h := range hits {
		items = append(items, APISearchCommit{APICommit: v.commit(h.r, h.c, false), Repository: *v.repoSummary(h.r), Score: 1})
	}
	return searchPage(ctx, items, in, "/search/commits"), nil
})

func commitTermMatches(c *Commit, t term) bool {
	switch t.key {
	case "":
		return containsWord(c.Message, t.value)
	case "repo", "org", "user", "is":
		return true
	case "author", "committer", "author-name", "committer-name":
		return strings.EqualFold(c.Author, t.value)
	case "hash":
		return strings.HasPrefix(c.SHA, strings.ToLower(t.value))
	case "parent":
		for _, p := range c.Parents {
			if strings.HasPrefix(p, strings.ToLower(t.value)) {
				return true
			}
		}
		return false
	case "tree":
		return strings.HasPrefix(treeSHA(c.Tree), strings.ToLower(t.value))
	case "merge":
		return (len(c.Parents) > 1) == strings.EqualFold(t.value, "true")
	case "author-date", "committer-date":
		return dateMatches(&c.Date, t.value)
	case "author-email", "committer-email":
		return strings.EqualFold(c.Author+"@users.noreply.github.com", t.value)
	}
	return containsWord(c.Message, t.key+":"+t.value)
}
