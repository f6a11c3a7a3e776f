package github

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	graphql "github.com/graph-gophers/graphql-go"

	"github.com/pomehq/pome/twins"
)

// GraphQL object resolvers: thin views of world records, read through the
// same lookups REST uses. Each root field a request reaches stamps the tool
// of the equivalent REST or MCP read (gqlState.stamp).

type gqlRoot struct{}

func (gqlRoot) Viewer(ctx context.Context) *userR {
	s := gqlFrom(ctx)
	s.stamp("get_me", rankObject)
	return s.userR(s.w.Me)
}

func (gqlRoot) User(ctx context.Context, args struct{ Login string }) (*userR, error) {
	s := gqlFrom(ctx)
	s.stamp("get_user", rankObject)
	if s.w.user(args.Login) == nil {
		return nil, gqlErrorf("NOT_FOUND", "Could not resolve to a User with the login of '%s'.", args.Login)
	}
	return s.userR(args.Login), nil
}

func (gqlRoot) Organization(ctx context.Context, args struct{ Login string }) (*orgR, error) {
	s := gqlFrom(ctx)
	o := s.w.org(args.Login)
	if o == nil {
		return nil, gqlErrorf("NOT_FOUND", "Could not resolve to an Organization with the login of '%s'.", args.Login)
	}
	return &orgR{s: s, o: o}, nil
}

func (gqlRoot) Repository(ctx context.Context, args struct {
	FollowRenames bool
	Name, Owner   string
}) (*repoR, error) {
	s := gqlFrom(ctx)
	s.stamp("get_repository", rankRepo)
	r, err := s.w.repo(args.Owner, args.Name)
	if err != nil {
		return nil, gqlErrorf("NOT_FOUND", "Could not resolve to a Repository with the name '%s/%s'.", args.Owner, args.Name)
	}
	return &repoR{s: s, r: r}, nil
}

func (gqlRoot) Node(ctx context.Context, args struct{ ID graphql.ID }) (*nodeR, error) {
	s := gqlFrom(ctx)
	n := s.node(args.ID)
	if n == nil {
		return nil, nodeNotFound(args.ID)
	}
	s.stampNode(n)
	return n, nil
}

// Nodes answers null for an id it cannot resolve (GitHub adds an error
// entry for each; the twin does not).
func (gqlRoot) Nodes(ctx context.Context, args struct{ IDs []graphql.ID }) []*nodeR {
	s := gqlFrom(ctx)
	out := make([]*nodeR, len(args.IDs))
	for i, id := range args.IDs {
		out[i] = s.node(id)
		s.stampNode(out[i])
	}
	return out
}

func (gqlRoot) RateLimit(ctx context.Context, args struct{ DryRun bool }) *rateLimitR {
	s := gqlFrom(ctx)
	return &rateLimitR{at: twins.EnvFrom(s.Context()).Now().Add(time.Hour)}
}

// rateLimitR is GraphQL's rate limit: every query costs one point of a
// personal token's 5,000, untouched, as the REST headers say.
type rateLimitR struct {
	at time.Time
}

func (*rateLimitR) Cost() int32        { return 1 }
func (*rateLimitR) Limit() int32       { return 5000 }
func (*rateLimitR) NodeCount() int32   { return 1 }
func (*rateLimitR) Remaining() int32   { return 4999 }
func (*rateLimitR) Used() int32        { return 1 }
func (r *rateLimitR) ResetAt() gqlTime { return timeOf(r.at.Truncate(time.Second)) }

// Search.

func (gqlRoot) Search(ctx context.Context, args struct {
	pageArgs
	Query, Type string
}) (*searchConnR, error) {
	s := gqlFrom(ctx)
	out := &searchConnR{}
	var items []*nodeR
	switch args.Type {
	case "ISSUE", "ISSUE_ADVANCED":
		s.stamp("search_issues", rankList)
		hits, err := issueSearchHits(s.w, SearchIssuesIn{SearchIn: SearchIn{Query: args.Query}})
		if err != nil {
			return nil, gqlFromTwin(err)
		}
		for _, h := range hits {
			items = append(items, s.issueNode(h.r, h.is))
		}
		out.issues = len(items)
	case "REPOSITORY":
		s.stamp("search_repositories", rankList)
		terms := parseQuery(args.Query)
		repos, err := scope(s.w, terms)
		if err != nil {
			return nil, gqlFromTwin(err)
		}
		fields := inFields(terms, "name", "description", "topics")
		for _, r := range repos {
			if matchAll(terms, func(t term) bool { return repoTermMatches(r, t, fields) }) {
				items = append(items, &nodeR{v: &repoR{s: s, r: r}})
			}
		}
		out.repos = len(items)
	case "USER":
		s.stamp("search_users", rankList)
		for _, u := range s.w.Users {
			if args.Query == "" || strings.Contains(strings.ToLower(u.Login+" "+u.Name), strings.ToLower(strings.TrimSpace(args.Query))) {
				items = append(items, &nodeR{v: s.userR(u.Login)})
			}
		}
		out.users = len(items)
	default:
		return nil, gqlErrorf("UNPROCESSABLE", "search type %s is not supported", args.Type)
	}
	c, err := paginate2(items, args.pageArgs, "search")
	if err != nil {
		return nil, err
	}
	out.conn = c
	return out, nil
}

type searchConnR struct {
	*conn[*nodeR]
	issues, repos, users int
}

func (c *searchConnR) IssueCount() int32      { return int32(c.issues) }
func (c *searchConnR) RepositoryCount() int32 { return int32(c.repos) }
func (c *searchConnR) UserCount() int32       { return int32(c.users) }
func (*searchConnR) CodeCount() int32         { return 0 }
func (*searchConnR) DiscussionCount() int32   { return 0 }
func (*searchConnR) WikiCount() int32         { return 0 }

// Node, the interfaces and unions: one resolver that holds any object.

type nodeR struct{ v any }

// value is the object a node holds, nil for no node.
func (n *nodeR) value() any {
	if n == nil {
		return nil
	}
	return n.v
}

func (n *nodeR) ID() graphql.ID {
	if x, ok := n.v.(interface{ ID() graphql.ID }); ok {
		return x.ID()
	}
	return ""
}

func (n *nodeR) ToIssue() (*issueR, bool) { x, ok := n.v.(*issueR); return x, ok }
func (n *nodeR) ToPullRequest() (*pullR, bool) {
	x, ok := n.v.(*pullR)
	return x, ok
}
func (n *nodeR) ToUser() (*userR, bool)        { x, ok := n.v.(*userR); return x, ok }
func (n *nodeR) ToOrganization() (*orgR, bool) { x, ok := n.v.(*orgR); return x, ok }
func (n *nodeR) ToRepository() (*repoR, bool)  { x, ok := n.v.(*repoR); return x, ok }
func (n *nodeR) ToLabel() (*labelR, bool)      { x, ok := n.v.(*labelR); return x, ok }
func (n *nodeR) ToIssueComment() (*commentR, bool) {
	x, ok := n.v.(*commentR)
	return x, ok
}
func (n *nodeR) ToPullRequestReview() (*reviewR, bool) {
	x, ok := n.v.(*reviewR)
	return x, ok
}
func (n *nodeR) ToPullRequestReviewComment() (*reviewCommentR, bool) {
	x, ok := n.v.(*reviewCommentR)
	return x, ok
}
func (n *nodeR) ToPullRequestReviewThread() (*threadR, bool) {
	x, ok := n.v.(*threadR)
	return x, ok
}
func (n *nodeR) ToPullRequestCommit() (*pullCommitR, bool) {
	x, ok := n.v.(*pullCommitR)
	return x, ok
}
func (n *nodeR) ToCommit() (*commitR, bool) { x, ok := n.v.(*commitR); return x, ok }
func (n *nodeR) ToRef() (*refR, bool)       { x, ok := n.v.(*refR); return x, ok }
func (n *nodeR) ToTeam() (*teamR, bool)     { x, ok := n.v.(*teamR); return x, ok }
func (n *nodeR) ToIssueType() (*issueTypeR, bool) {
	x, ok := n.v.(*issueTypeR)
	return x, ok
}
func (n *nodeR) ToBot() (*botR, bool) { x, ok := n.v.(*botR); return x, ok }

// An issue field is one of four types by its data type.
func (n *nodeR) issueField(dataType string) (*issueFieldR, bool) {
	f, ok := n.v.(*issueFieldR)
	if !ok || f.DataType != dataType {
		return nil, false
	}
	return f, true
}
func (n *nodeR) ToIssueFieldText() (*issueFieldR, bool)   { return n.issueField("TEXT") }
func (n *nodeR) ToIssueFieldNumber() (*issueFieldR, bool) { return n.issueField("NUMBER") }
func (n *nodeR) ToIssueFieldDate() (*issueFieldR, bool)   { return n.issueField("DATE") }
func (n *nodeR) ToIssueFieldSingleSelect() (*issueFieldR, bool) {
	return n.issueField("SINGLE_SELECT")
}
func (n *nodeR) ToIssueFieldSingleSelectOption() (*issueFieldOptionR, bool) {
	x, ok := n.v.(*issueFieldOptionR)
	return x, ok
}

// Interface fields every Actor, RepositoryOwner, Labelable and Comment has.

func (n *nodeR) Login() string {
	if x, ok := n.v.(interface{ Login() string }); ok {
		return x.Login()
	}
	return ""
}

func (n *nodeR) AvatarUrl(args struct{ Size *int32 }) gqlURI {
	if x, ok := n.v.(interface {
		AvatarUrl(struct{ Size *int32 }) gqlURI
	}); ok {
		return x.AvatarUrl(args)
	}
	return ""
}

func (n *nodeR) URL() gqlURI {
	if x, ok := n.v.(interface{ URL() gqlURI }); ok {
		return x.URL()
	}
	return ""
}

func (n *nodeR) Labels(args labelsArgs) (*conn[*labelR], error) {
	if x, ok := n.v.(interface {
		Labels(labelsArgs) (*conn[*labelR], error)
	}); ok {
		return x.Labels(args)
	}
	return paginate2([]*labelR{}, args.pageArgs, "labels")
}

func (n *nodeR) Author() *nodeR {
	if x, ok := n.v.(interface{ Author() *nodeR }); ok {
		return x.Author()
	}
	return nil
}

func (n *nodeR) Body() string {
	if x, ok := n.v.(interface{ Body() string }); ok {
		return x.Body()
	}
	return ""
}

func (n *nodeR) CreatedAt() gqlTime {
	if x, ok := n.v.(interface{ CreatedAt() gqlTime }); ok {
		return x.CreatedAt()
	}
	return gqlTime{}
}

func (n *nodeR) UpdatedAt() gqlTime {
	if x, ok := n.v.(interface{ UpdatedAt() gqlTime }); ok {
		return x.UpdatedAt()
	}
	return gqlTime{}
}

// GitObject fields (a ref's target is a commit).

func (n *nodeR) Oid() gqlOID {
	if x, ok := n.v.(interface{ Oid() gqlOID }); ok {
		return x.Oid()
	}
	return ""
}

func (n *nodeR) AbbreviatedOid() string {
	if x, ok := n.v.(interface{ AbbreviatedOid() string }); ok {
		return x.AbbreviatedOid()
	}
	return ""
}

func (n *nodeR) Repository() *repoR {
	if x, ok := n.v.(interface{ Repository() *repoR }); ok {
		return x.Repository()
	}
	return nil
}

// node resolves a node id to the object it names, when the authenticated
// user can see it.
func (s *gqlState) node(id graphql.ID) *nodeR {
	kind, n, ok := parseNodeID(string(id))
	if !ok {
		return nil
	}
	w := s.w
	switch kind {
	case "U":
		for _, u := range w.Users {
			if u.ID == n {
				return &nodeR{v: s.userR(u.Login)}
			}
		}
	case "O":
		for _, o := range w.Orgs {
			if o.ID == n {
				return &nodeR{v: &orgR{s: s, o: o}}
			}
		}
	case "R":
		for _, r := range w.visibleRepos() {
			if r.ID == n {
				return &nodeR{v: &repoR{s: s, r: r}}
			}
		}
	case "I", "PR":
		if r, is := w.issueByID(n); is != nil && (is.Pull != nil) == (kind == "PR") {
			return s.issueNode(r, is)
		}
	case "LA":
		for _, r := range w.visibleRepos() {
			for _, l := range r.Labels {
				if l.ID == n {
					return &nodeR{v: &labelR{s: s, r: r, l: l}}
				}
			}
		}
	case "MI":
		for _, r := range w.visibleRepos() {
			for _, m := range r.Milestones {
				if m.ID == n {
					return &nodeR{v: &milestoneR{r: r, m: m}}
				}
			}
		}
	case "IC":
		for _, r := range w.visibleRepos() {
			for _, is := range r.Issues {
				for i := range is.Comments.Len() {
					if c := is.Comments.At(i); c.ID == n {
						return &nodeR{v: &commentR{s: s, r: r, is: is, c: c}}
					}
				}
			}
		}
	case "PRR", "PRRC", "PRRT":
		for _, r := range w.visibleRepos() {
			for _, is := range r.Issues {
				if is.Pull == nil {
					continue
				}
				for _, rv := range is.Pull.Reviews {
					if kind == "PRR" && rv.ID == n {
						return &nodeR{v: &reviewR{s: s, r: r, is: is, rv: rv}}
					}
				}
				for _, c := range is.Pull.ReviewComments {
					switch {
					case kind == "PRRC" && c.ID == n:
						return &nodeR{v: &reviewCommentR{s: s, r: r, is: is, c: c}}
					case kind == "PRRT" && c.ID == n && c.InReplyTo == 0:
						return &nodeR{v: &threadR{s: s, r: r, is: is, root: c}}
					}
				}
			}
		}
	case "T":
		for _, o := range w.Orgs {
			for _, t := range o.Teams {
				if t.ID == n && containsFold(o.Members, w.Me) {
					return &nodeR{v: &teamR{s: s, o: o, t: t}}
				}
			}
		}
	case "IT":
		for _, o := range w.Orgs {
			for _, t := range o.IssueTypes {
				if t.ID == n {
					return &nodeR{v: &issueTypeR{t: t}}
				}
			}
		}
	}
	return nil
}

// stampNode stamps a request that reads an issue or pull request by its
// node id with the tool that reads one.
func (s *gqlState) stampNode(n *nodeR) {
	switch n.value().(type) {
	case *issueR:
		s.stamp("issue_read", rankObject)
	case *pullR:
		s.stamp("pull_request_read", rankObject)
	}
}

func (s *gqlState) issueNode(r *Repo, is *Issue) *nodeR {
	if is.Pull != nil {
		return &nodeR{v: &pullR{issueR{s: s, r: r, is: is}}}
	}
	return &nodeR{v: &issueR{s: s, r: r, is: is}}
}

// Actors.

func (s *gqlState) userR(login string) *userR { return &userR{s: s, login: login, u: s.w.user(login)} }

// actor is the Actor for a login: a user, an organization, or a user the
// world does not know by that login (rendered with the login alone).
func (s *gqlState) actor(login string) *nodeR {
	if login == "" {
		return nil
	}
	if o := s.w.org(login); o != nil {
		return &nodeR{v: &orgR{s: s, o: o}}
	}
	return &nodeR{v: s.userR(login)}
}

type userR struct {
	s     *gqlState
	login string
	u     *User
}

func (u *userR) ID() graphql.ID {
	if u.u == nil {
		return graphql.ID(nodeID("U", 0))
	}
	return graphql.ID(nodeID("U", u.u.ID))
}

func (u *userR) DatabaseID() *int32 {
	if u.u == nil {
		return nil
	}
	id := int32(u.u.ID)
	return &id
}

func (u *userR) Login() string {
	if u.u != nil {
		return u.u.Login
	}
	return u.login
}

func (u *userR) Name() *string {
	if u.u == nil || u.u.Name == "" {
		return nil
	}
	return &u.u.Name
}

func (u *userR) Email() string {
	if u.u == nil {
		return ""
	}
	return u.u.Email
}

func (u *userR) Bio() *string      { return u.opt(func(x *User) string { return x.Bio }) }
func (u *userR) Company() *string  { return u.opt(func(x *User) string { return x.Company }) }
func (u *userR) Location() *string { return u.opt(func(x *User) string { return x.Location }) }

func (u *userR) opt(f func(*User) string) *string {
	if u.u == nil {
		return nil
	}
	return strPtr(f(u.u))
}

func (u *userR) CreatedAt() gqlTime {
	if u.u == nil {
		return gqlTime{}
	}
	return timeOf(u.u.CreatedAt)
}

func (u *userR) AvatarUrl(struct{ Size *int32 }) gqlURI {
	return gqlURI(u.s.v.user(u.Login()).AvatarURL)
}

func (u *userR) URL() gqlURI { return gqlURI("https://github.com/" + u.Login()) }

// Organizations lists the organizations the user belongs to; another
// user's are listed when the authenticated user shares them (membership
// is private on GitHub by default).
func (u *userR) Organizations(args pageArgs) (*conn[*orgR], error) {
	w := u.s.w
	var out []*orgR
	for _, o := range w.Orgs {
		if containsFold(o.Members, u.Login()) && containsFold(o.Members, w.Me) {
			out = append(out, &orgR{s: u.s, o: o})
		}
	}
	return paginate2(out, args, "organizations")
}

type botR struct {
	login string
}

func (b *botR) ID() graphql.ID                         { return graphql.ID("BOT_" + b.login) }
func (b *botR) Login() string                          { return b.login }
func (b *botR) AvatarUrl(struct{ Size *int32 }) gqlURI { return "" }
func (b *botR) URL() gqlURI                            { return gqlURI("https://github.com/apps/" + b.login) }

type orgR struct {
	s *gqlState
	o *Org
}

func (o *orgR) ID() graphql.ID       { return graphql.ID(nodeID("O", o.o.ID)) }
func (o *orgR) DatabaseID() *int32   { id := int32(o.o.ID); return &id }
func (o *orgR) Login() string        { return o.o.Login }
func (o *orgR) Name() *string        { return strPtr(o.o.Name) }
func (o *orgR) Description() *string { return strPtr(o.o.Description) }
func (o *orgR) CreatedAt() gqlTime   { return timeOf(o.o.CreatedAt) }
func (o *orgR) URL() gqlURI          { return gqlURI("https://github.com/" + o.o.Login) }
func (o *orgR) member() bool         { return containsFold(o.o.Members, o.s.w.Me) }
func (o *orgR) AvatarUrl(struct{ Size *int32 }) gqlURI {
	return gqlURI(o.s.v.user(o.o.Login).AvatarURL)
}

// Team is visible to the organization's members only, as on GitHub.
func (o *orgR) Team(args struct{ Slug string }) *teamR {
	o.s.stamp("get_team_members", rankObject)
	_, t, err := o.s.w.team(o.o.Login, args.Slug)
	if err != nil || t == nil {
		return nil
	}
	return &teamR{s: o.s, o: o.o, t: t}
}

func (o *orgR) Teams(args struct {
	pageArgs
	Query      *string
	UserLogins *[]string
}) (*conn[*teamR], error) {
	o.s.stamp("get_teams", rankList)
	var out []*teamR
	if o.member() {
		for _, t := range o.o.Teams {
			if args.UserLogins != nil && !slices.ContainsFunc(*args.UserLogins, func(l string) bool { return containsFold(t.Members, l) }) {
				continue
			}
			if args.Query != nil && !strings.Contains(strings.ToLower(t.Name+" "+t.Slug), strings.ToLower(*args.Query)) {
				continue
			}
			out = append(out, &teamR{s: o.s, o: o.o, t: t})
		}
	}
	return paginate2(out, args.pageArgs, "teams")
}

func (o *orgR) IssueTypes(args pageArgs) (*conn[*issueTypeR], error) {
	o.s.stamp("list_issue_types", rankList)
	var out []*issueTypeR
	for _, t := range o.o.IssueTypes {
		out = append(out, &issueTypeR{t: t})
	}
	return paginate2(out, args, "issueTypes")
}

func (o *orgR) IssueFields(args pageArgs) (*conn[*nodeR], error) {
	o.s.stamp("list_issue_fields", rankList)
	out := []*nodeR{}
	for _, f := range o.o.IssueFields {
		out = append(out, &nodeR{v: newIssueFieldR(f)})
	}
	return paginate2(out, args, "issueFields")
}

type teamR struct {
	s *gqlState
	o *Org
	t *Team
}

func (t *teamR) ID() graphql.ID       { return graphql.ID(nodeID("T", t.t.ID)) }
func (t *teamR) DatabaseID() *int32   { id := int32(t.t.ID); return &id }
func (t *teamR) Name() string         { return t.t.Name }
func (t *teamR) Slug() string         { return t.t.Slug }
func (t *teamR) Description() *string { return strPtr(t.t.Description) }

func (t *teamR) Members(args struct {
	pageArgs
	Query *string
}) (*conn[*userR], error) {
	var out []*userR
	for _, m := range t.t.Members {
		if args.Query == nil || strings.Contains(strings.ToLower(m), strings.ToLower(*args.Query)) {
			out = append(out, t.s.userR(m))
		}
	}
	return paginate2(out, args.pageArgs, "members")
}

type issueTypeR struct{ t *IssueType }

func (t *issueTypeR) ID() graphql.ID       { return graphql.ID(nodeID("IT", t.t.ID)) }
func (t *issueTypeR) Name() string         { return t.t.Name }
func (t *issueTypeR) Description() *string { return strPtr(t.t.Description) }
func (t *issueTypeR) IsEnabled() bool      { return t.t.Enabled }

// Color is one of GitHub's issue type colours; others read as GRAY.
func (t *issueTypeR) Color() string {
	c := strings.ToUpper(t.t.Color)
	switch c {
	case "BLUE", "GRAY", "GREEN", "ORANGE", "PINK", "PURPLE", "RED", "YELLOW":
		return c
	}
	return "GRAY"
}

// Issue fields (issuefields.go).

func newIssueFieldR(f *OrgIssueField) *issueFieldR {
	id := gqlBigInt(f.ID)
	x := &issueFieldR{ID: graphql.ID(nodeID("IF", f.ID)), FullDatabaseID: &id, Name: f.Name,
		Description: strPtr(f.Description), DataType: strings.ToUpper(f.DataType), Visibility: "ALL"}
	for _, o := range f.Options {
		color := strings.ToUpper(o.Color)
		if color == "" {
			color = "GRAY"
		}
		oid := gqlBigInt(o.ID)
		x.Options = append(x.Options, &issueFieldOptionR{ID: graphql.ID(nodeID("IFSO", o.ID)), FullDatabaseID: &oid, Name: o.Name,
			Description: strPtr(o.Description), Color: color})
	}
	return x
}

type issueFieldR struct {
	ID             graphql.ID
	FullDatabaseID *gqlBigInt
	Name           string
	Description    *string
	DataType       string
	Visibility     string
	Options        []*issueFieldOptionR
}

type issueFieldOptionR struct {
	ID             graphql.ID
	FullDatabaseID *gqlBigInt
	Name           string
	Description    *string
	Color          string
	Priority       *int32
}

// issueFieldValueR is one value of the IssueFieldValue union: a number,
// or a string of its field's data type.
type issueFieldValueR struct {
	dataType string
	str      *issueFieldStringValueR
	num      *issueFieldNumberValueR
}

func (v *issueFieldValueR) asString(dataType string) (*issueFieldStringValueR, bool) {
	return v.str, v.str != nil && v.dataType == dataType
}
func (v *issueFieldValueR) ToIssueFieldDateValue() (*issueFieldStringValueR, bool) {
	return v.asString("date")
}
func (v *issueFieldValueR) ToIssueFieldTextValue() (*issueFieldStringValueR, bool) {
	return v.asString("text")
}
func (v *issueFieldValueR) ToIssueFieldSingleSelectValue() (*issueFieldStringValueR, bool) {
	return v.asString("single_select")
}
func (v *issueFieldValueR) ToIssueFieldNumberValue() (*issueFieldNumberValueR, bool) {
	return v.num, v.num != nil
}

type issueFieldStringValueR struct {
	Field *nodeR
	Value string
}

type issueFieldNumberValueR struct {
	Field *nodeR
	Value float64
}

// Repositories.

type repoR struct {
	s *gqlState
	r *Repo
}

func (r *repoR) ID() graphql.ID        { return graphql.ID(nodeID("R", r.r.ID)) }
func (r *repoR) DatabaseID() *int32    { id := int32(r.r.ID); return &id }
func (r *repoR) Name() string          { return r.r.Name }
func (r *repoR) NameWithOwner() string { return r.r.FullName() }
func (r *repoR) Description() *string  { return strPtr(r.r.Description) }
func (r *repoR) IsPrivate() bool       { return r.r.Private }
func (r *repoR) IsFork() bool          { return r.r.Fork }
func (r *repoR) CreatedAt() gqlTime    { return timeOf(r.r.CreatedAt) }
func (r *repoR) UpdatedAt() gqlTime    { return timeOf(r.r.UpdatedAt) }
func (r *repoR) PushedAt() *gqlTime    { t := timeOf(r.r.PushedAt); return &t }
func (r *repoR) URL() gqlURI           { return gqlURI("https://github.com/" + r.r.FullName()) }
func (r *repoR) Owner() *nodeR         { return r.s.actor(r.r.Owner) }

func (r *repoR) DefaultBranchRef() *refR {
	b := r.r.branch(r.r.DefaultBranch)
	if b == nil {
		return nil
	}
	return &refR{s: r.s, r: r.r, name: b.Name, prefix: "refs/heads/", sha: b.SHA}
}

// IssueFields are the organization's issue fields, which its repositories
// inherit; a user's repository has none.
func (r *repoR) IssueFields(args pageArgs) (*conn[*nodeR], error) {
	if o := r.s.w.org(r.r.Owner); o != nil {
		return (&orgR{s: r.s, o: o}).IssueFields(args)
	}
	r.s.stamp("list_issue_fields", rankList)
	return paginate2([]*nodeR{}, args, "issueFields")
}

func (r *repoR) Issue(args struct{ Number int32 }) (*issueR, error) {
	r.s.stamp("issue_read", rankObject)
	is, _ := r.r.issueIndex(int(args.Number))
	if is == nil || is.Pull != nil {
		return nil, gqlErrorf("NOT_FOUND", "Could not resolve to an Issue with the number of %d.", args.Number)
	}
	return &issueR{s: r.s, r: r.r, is: is}, nil
}

func (r *repoR) PullRequest(args struct{ Number int32 }) (*pullR, error) {
	r.s.stamp("pull_request_read", rankObject)
	is, _ := r.r.issueIndex(int(args.Number))
	if is == nil || is.Pull == nil {
		return nil, gqlErrorf("NOT_FOUND", "Could not resolve to a PullRequest with the number of %d.", args.Number)
	}
	return &pullR{issueR{s: r.s, r: r.r, is: is}}, nil
}

// IssueOrder is GitHub's issue ordering.
type IssueOrder struct {
	Direction string
	Field     string
}

// IssueFilters is GitHub's filterBy of an issues connection.
type IssueFilters struct {
	Assignee         *string
	CreatedBy        *string
	IssueFieldValues *[]IssueFieldValueFilter
	Labels           *[]string
	Mentioned        *string
	Milestone        *string
	MilestoneNumber  *string
	Since            *gqlTime
	States           *[]string
	Type             *string
	ViewerSubscribed bool
}

// IssueFieldValueFilter filters by an issue field's value (by the field's
// name, case-insensitively): the issue must hold that value.
type IssueFieldValueFilter struct {
	DateValue               *string
	FieldName               string
	NumberValue             *float64
	SingleSelectOptionValue *string
	TextValue               *string
}

func (r *repoR) Issues(args struct {
	pageArgs
	FilterBy *IssueFilters
	Labels   *[]string
	OrderBy  *IssueOrder
	States   *[]string
}) (*conn[*issueR], error) {
	r.s.stamp("list_issues", rankList)
	states, labels := args.States, args.Labels
	f := args.FilterBy
	if f == nil {
		f = &IssueFilters{}
	}
	if states == nil {
		states = f.States
	}
	var list []*Issue
	for _, is := range r.r.Issues {
		if is.Pull == nil && issueMatches(r.s.w, r.s.w.org(r.r.Owner), is, states, labels, f) {
			list = append(list, is)
		}
	}
	orderIssues(list, args.OrderBy)
	out := make([]*issueR, len(list))
	for i, is := range list {
		out[i] = &issueR{s: r.s, r: r.r, is: is}
	}
	return paginate2(out, args.pageArgs, "issues")
}

// issueMatches applies an issues connection's filters.
func issueMatches(w *World, o *Org, is *Issue, states, labels *[]string, f *IssueFilters) bool {
	if states != nil && len(*states) > 0 && !slices.Contains(*states, strings.ToUpper(is.State)) {
		return false
	}
	for _, want := range []*[]string{labels, f.Labels} {
		if want != nil && len(*want) > 0 && !slices.ContainsFunc(*want, func(l string) bool { return containsFold(is.Labels, l) }) {
			return false
		}
	}
	if f.Since != nil && is.UpdatedAt.Before(f.Since.Time) {
		return false
	}
	if f.Assignee != nil && *f.Assignee != "*" && !containsFold(is.Assignees, *f.Assignee) ||
		f.Assignee != nil && *f.Assignee == "*" && len(is.Assignees) == 0 {
		return false
	}
	if f.CreatedBy != nil && !strings.EqualFold(is.User, *f.CreatedBy) {
		return false
	}
	if f.Mentioned != nil && !strings.Contains(strings.ToLower(is.Body), "@"+strings.ToLower(*f.Mentioned)) {
		return false
	}
	if f.MilestoneNumber != nil && fmt.Sprint(is.Milestone) != *f.MilestoneNumber && !(*f.MilestoneNumber == "*" && is.Milestone != 0) {
		return false
	}
	if f.Type != nil && !strings.EqualFold(is.Type, *f.Type) {
		return false
	}
	if f.IssueFieldValues != nil {
		for _, want := range *f.IssueFieldValues {
			if !fieldValueMatches(o, is, want) {
				return false
			}
		}
	}
	return true
}

// orderIssues sorts as an IssueOrder says (default: oldest first), with
// the REST lists' ordering.
func orderIssues(list []*Issue, o *IssueOrder) {
	by, dir := "created", "asc"
	if o != nil {
		by = map[string]string{"CREATED_AT": "created", "UPDATED_AT": "updated", "COMMENTS": "comments"}[o.Field]
		dir = strings.ToLower(o.Direction)
	}
	sortIssues(list, by, dir)
}

func (r *repoR) PullRequests(args struct {
	pageArgs
	BaseRefName, HeadRefName *string
	Labels                   *[]string
	OrderBy                  *IssueOrder
	States                   *[]string
}) (*conn[*pullR], error) {
	r.s.stamp("list_pull_requests", rankList)
	var list []*Issue
	for _, is := range r.r.Issues {
		p := is.Pull
		if p == nil || args.BaseRefName != nil && p.Base != *args.BaseRefName || args.HeadRefName != nil && p.Head != *args.HeadRefName {
			continue
		}
		state := strings.ToUpper(is.State)
		if p.Merged {
			state = "MERGED"
		}
		if args.States != nil && len(*args.States) > 0 && !slices.Contains(*args.States, state) {
			continue
		}
		if !issueMatches(r.s.w, nil, is, nil, args.Labels, &IssueFilters{}) {
			continue
		}
		list = append(list, is)
	}
	orderIssues(list, args.OrderBy)
	out := make([]*pullR, len(list))
	for i, is := range list {
		out[i] = &pullR{issueR{s: r.s, r: r.r, is: is}}
	}
	return paginate2(out, args.pageArgs, "pullRequests")
}

func (r *repoR) Label(args struct{ Name string }) *labelR {
	r.s.stamp("get_label", rankList)
	l := r.r.label(args.Name)
	if l == nil {
		return nil
	}
	return &labelR{s: r.s, r: r.r, l: l}
}

// LabelOrder is GitHub's label ordering.
type LabelOrder struct {
	Direction string
	Field     string
}

func (r *repoR) Labels(args struct {
	pageArgs
	OrderBy *LabelOrder
	Query   *string
}) (*conn[*labelR], error) {
	r.s.stamp("list_label", rankList)
	var out []*labelR
	for _, l := range r.r.Labels {
		if args.Query == nil || strings.Contains(strings.ToLower(l.Name+" "+l.Description), strings.ToLower(*args.Query)) {
			out = append(out, &labelR{s: r.s, r: r.r, l: l})
		}
	}
	if args.OrderBy != nil && args.OrderBy.Field == "NAME" {
		sort.SliceStable(out, func(i, j int) bool { return strings.ToLower(out[i].l.Name) < strings.ToLower(out[j].l.Name) })
	}
	if args.OrderBy != nil && args.OrderBy.Direction == "DESC" {
		slices.Reverse(out)
	}
	return paginate2(out, args.pageArgs, "labels")
}

// SuggestedActors lists who may be assigned: the repository's
// collaborators. The twin has no bots (no Copilot coding agent).
func (r *repoR) SuggestedActors(args struct {
	pageArgs
	Capabilities       []string
	LoginsToPrioritize *[]string
	Query              *string
}) (*conn[*nodeR], error) {
	var out []*nodeR
	for _, c := range r.r.Collaborators {
		out = append(out, &nodeR{v: r.s.userR(c)})
	}
	return paginate2(out, args.pageArgs, "suggestedActors")
}

type refR struct {
	s      *gqlState
	r      *Repo
	name   string
	prefix string
	sha    string
}

func (x *refR) ID() graphql.ID { return graphql.ID("REF_" + x.r.FullName() + ":" + x.prefix + x.name) }
func (x *refR) Name() string   { return x.name }
func (x *refR) Prefix() string { return x.prefix }
func (x *refR) Target() *nodeR {
	c := x.r.commit(x.sha)
	if c == nil {
		return nil
	}
	return &nodeR{v: &commitR{s: x.s, r: x.r, c: c}}
}

type commitR struct {
	s *gqlState
	r *Repo
	c *Commit
}

func (c *commitR) ID() graphql.ID         { return graphql.ID("C_" + c.c.SHA) }
func (c *commitR) Oid() gqlOID            { return gqlOID(c.c.SHA) }
func (c *commitR) AbbreviatedOid() string { return c.c.SHA[:7] }
func (c *commitR) Message() string        { return c.c.Message }
func (c *commitR) MessageHeadline() string {
	h, _, _ := strings.Cut(c.c.Message, "\n")
	return h
}
func (c *commitR) CommittedDate() gqlTime { return timeOf(c.c.Date) }
func (c *commitR) URL() gqlURI {
	return gqlURI("https://github.com/" + c.r.FullName() + "/commit/" + c.c.SHA)
}
func (c *commitR) Repository() *repoR { return &repoR{s: c.s, r: c.r} }

type labelR struct {
	s *gqlState
	r *Repo
	l *Label
}

func (l *labelR) ID() graphql.ID       { return graphql.ID(nodeID("LA", l.l.ID)) }
func (l *labelR) Name() string         { return l.l.Name }
func (l *labelR) Color() string        { return l.l.Color }
func (l *labelR) Description() *string { return strPtr(l.l.Description) }
func (l *labelR) IsDefault() bool      { return l.l.Default }
func (l *labelR) CreatedAt() *gqlTime  { return nil }
func (l *labelR) URL() gqlURI {
	return gqlURI("https://github.com/" + l.r.FullName() + "/labels/" + pathEscape(l.l.Name))
}

type labelsArgs struct {
	pageArgs
	OrderBy *LabelOrder
}

// Issues and pull requests.

type issueR struct {
	s  *gqlState
	r  *Repo
	is *Issue
}

func (i *issueR) ID() graphql.ID     { return graphql.ID(nodeID("I", i.is.ID)) }
func (i *issueR) DatabaseID() *int32 { id := int32(i.is.ID); return &id }
func (i *issueR) Number() int32      { return int32(i.is.Number) }
func (i *issueR) Title() string      { return i.is.Title }
func (i *issueR) Body() string       { return i.is.Body }
func (i *issueR) State() string      { return strings.ToUpper(i.is.State) }
func (i *issueR) Closed() bool       { return i.is.State == "closed" }
func (i *issueR) ClosedAt() *gqlTime { return timePtr(i.is.ClosedAt) }
func (i *issueR) Locked() bool       { return i.is.Locked }
func (i *issueR) CreatedAt() gqlTime { return timeOf(i.is.CreatedAt) }
func (i *issueR) UpdatedAt() gqlTime { return timeOf(i.is.UpdatedAt) }
func (i *issueR) Author() *nodeR     { return i.s.actor(i.is.User) }
func (i *issueR) Repository() *repoR { return &repoR{s: i.s, r: i.r} }
func (i *issueR) IssueType() *issueTypeR {
	if i.is.Type == "" {
		return nil
	}
	if o := i.s.w.org(i.r.Owner); o != nil {
		if t := o.issueType(i.is.Type); t != nil {
			return &issueTypeR{t: t}
		}
	}
	return nil
}

func (i *issueR) URL() gqlURI {
	return gqlURI(fmt.Sprintf("https://github.com/%s/issues/%d", i.r.FullName(), i.is.Number))
}

func (i *issueR) StateReason() *string {
	if i.is.StateReason == "" {
		return nil
	}
	s := strings.ToUpper(i.is.StateReason)
	return &s
}

func (i *issueR) Labels(args labelsArgs) (*conn[*labelR], error) {
	var out []*labelR
	for _, n := range i.is.Labels {
		if l := i.r.label(n); l != nil {
			out = append(out, &labelR{s: i.s, r: i.r, l: l})
		}
	}
	return paginate2(out, args.pageArgs, "labels")
}

func (i *issueR) Assignees(args pageArgs) (*conn[*userR], error) {
	var out []*userR
	for _, a := range i.is.Assignees {
		out = append(out, i.s.userR(a))
	}
	return paginate2(out, args, "assignees")
}

func (i *issueR) Comments(args pageArgs) (*conn[*commentR], error) {
	var out []*commentR
	for k := range i.is.Comments.Len() {
		out = append(out, &commentR{s: i.s, r: i.r, is: i.is, c: i.is.Comments.At(k)})
	}
	return paginate2(out, args, "comments")
}

func (i *issueR) Parent() *issueR {
	r, p := i.s.w.parentOf(i.is)
	if p == nil {
		return nil
	}
	return &issueR{s: i.s, r: r, is: p}
}

func (i *issueR) SubIssues(args pageArgs) (*conn[*issueR], error) {
	var out []*issueR
	for _, s := range i.s.w.subIssues(i.is) {
		out = append(out, &issueR{s: i.s, r: s.repo, is: s.issue})
	}
	return paginate2(out, args, "subIssues")
}

func (i *issueR) SubIssuesSummary() *subIssuesSummaryR {
	subs := i.s.w.subIssues(i.is)
	done := 0
	for _, s := range subs {
		if s.issue.State == "closed" {
			done++
		}
	}
	pct := 0
	if len(subs) > 0 {
		pct = done * 100 / len(subs)
	}
	return &subIssuesSummaryR{Total: int32(len(subs)), Completed: int32(done), PercentCompleted: int32(pct)}
}

type subIssuesSummaryR struct {
	Total, Completed, PercentCompleted int32
}

func (i *issueR) IssueFieldValues(args pageArgs) (*conn[*issueFieldValueR], error) {
	out := []*issueFieldValueR{}
	if o := i.s.w.org(i.r.Owner); o != nil {
		for _, fv := range i.is.FieldValues {
			f := o.issueFieldByID(fv.FieldID)
			if f == nil {
				continue
			}
			field := &nodeR{v: newIssueFieldR(f)}
			v := &issueFieldValueR{dataType: f.DataType}
			if f.DataType == "number" {
				v.num = &issueFieldNumberValueR{Field: field, Value: fv.Number}
			} else {
				v.str = &issueFieldStringValueR{Field: field, Value: fv.Value}
			}
			out = append(out, v)
		}
	}
	return paginate2(out, args, "issueFieldValues")
}

// ClosedByPullRequestsReferences lists the open pull requests of the
// repository whose body says they close the issue ("Fixes #n").
func (i *issueR) ClosedByPullRequestsReferences(args struct {
	pageArgs
	IncludeClosedPrs, OrderByState, UserLinkedOnly bool
}) (*conn[*pullR], error) {
	var out []*pullR
	for _, is := range i.r.Issues {
		if is.Pull == nil || !args.IncludeClosedPrs && is.State != "open" || args.UserLinkedOnly {
			continue
		}
		if closesIssue(is.Body, i.is.Number) {
			out = append(out, &pullR{issueR{s: i.s, r: i.r, is: is}})
		}
	}
	return paginate2(out, args.pageArgs, "closedByPullRequestsReferences")
}

// closesIssue reports whether a pull request body names #n after one of
// GitHub's closing keywords.
func closesIssue(body string, n int) bool {
	words := strings.Fields(strings.ToLower(body))
	for k, wd := range words {
		if k+1 < len(words) && strings.TrimRight(words[k+1], ".,;:!") == fmt.Sprintf("#%d", n) {
			switch strings.TrimSuffix(wd, ":") {
			case "close", "closes", "closed", "fix", "fixes", "fixed", "resolve", "resolves", "resolved":
				return true
			}
		}
	}
	return false
}

type pullR struct{ issueR }

func (p *pullR) ID() graphql.ID { return graphql.ID(nodeID("PR", p.is.ID)) }
func (p *pullR) URL() gqlURI {
	return gqlURI(fmt.Sprintf("https://github.com/%s/pull/%d", p.r.FullName(), p.is.Number))
}
func (p *pullR) State() string {
	if p.is.Pull.Merged {
		return "MERGED"
	}
	return strings.ToUpper(p.is.State)
}
func (p *pullR) Merged() bool           { return p.is.Pull.Merged }
func (p *pullR) MergedAt() *gqlTime     { return timePtr(p.is.Pull.MergedAt) }
func (p *pullR) IsDraft() bool          { return p.is.Pull.Draft }
func (p *pullR) HeadRefName() string    { return p.is.Pull.Head }
func (p *pullR) BaseRefName() string    { return p.is.Pull.Base }
func (p *pullR) HeadRefOid() gqlOID     { return gqlOID(p.r.headSHA(p.is.Pull)) }
func (p *pullR) BaseRefOid() gqlOID     { return gqlOID(p.r.baseSHA(p.is.Pull)) }
func (p *pullR) files() []APICommitFile { f, _ := p.s.v.pullDiff(p.r, p.is.Pull); return f }
func (p *pullR) Additions() int32 {
	_, st := p.s.v.pullDiff(p.r, p.is.Pull)
	return int32(st.Additions)
}
func (p *pullR) Deletions() int32 {
	_, st := p.s.v.pullDiff(p.r, p.is.Pull)
	return int32(st.Deletions)
}
func (p *pullR) ChangedFiles() int32 { return int32(len(p.files())) }

func (p *pullR) Files(args pageArgs) (*conn[*changedFileR], error) {
	var out []*changedFileR
	for _, f := range p.files() {
		ct := strings.ToUpper(f.Status)
		if ct == "REMOVED" {
			ct = "DELETED"
		}
		out = append(out, &changedFileR{Path: f.Filename, Additions: int32(f.Additions), Deletions: int32(f.Deletions), ChangeType: ct})
	}
	return paginate2(out, args, "files")
}

type changedFileR struct {
	Path                 string
	Additions, Deletions int32
	ChangeType           string
}

func (p *pullR) Commits(args pageArgs) (*conn[*pullCommitR], error) {
	var out []*pullCommitR
	for _, c := range p.r.commitsBetween(p.r.pullFrom(p.is.Pull), p.r.headSHA(p.is.Pull)) {
		out = append(out, &pullCommitR{p: p, c: &commitR{s: p.s, r: p.r, c: c}})
	}
	return paginate2(out, args, "commits")
}

type pullCommitR struct {
	p *pullR
	c *commitR
}

func (c *pullCommitR) ID() graphql.ID   { return graphql.ID("PURC_" + c.c.c.SHA) }
func (c *pullCommitR) Commit() *commitR { return c.c }
func (c *pullCommitR) URL() gqlURI      { return gqlURI(string(c.p.URL()) + "/commits/" + c.c.c.SHA) }

func (p *pullR) Reviews(args struct {
	pageArgs
	Author *string
	States *[]string
}) (*conn[*reviewR], error) {
	var out []*reviewR
	for _, rv := range p.is.Pull.Reviews {
		if args.Author != nil && !strings.EqualFold(rv.User, *args.Author) {
			continue
		}
		if args.States != nil && len(*args.States) > 0 && !slices.Contains(*args.States, rv.State) {
			continue
		}
		out = append(out, &reviewR{s: p.s, r: p.r, is: p.is, rv: rv})
	}
	return paginate2(out, args.pageArgs, "reviews")
}

// ReviewThreads groups review comments into threads: a comment that
// replies to none starts one, and its replies follow it.
func (p *pullR) ReviewThreads(args pageArgs) (*conn[*threadR], error) {
	p.s.stamp("pull_request_read", rankList)
	var out []*threadR
	for _, c := range p.is.Pull.ReviewComments {
		if c.InReplyTo == 0 && p.visibleComment(c) {
			out = append(out, &threadR{s: p.s, r: p.r, is: p.is, root: c})
		}
	}
	return paginate2(out, args, "reviewThreads")
}

// visibleComment hides the comments of another user's pending review.
func (p *issueR) visibleComment(c *ReviewComment) bool {
	for _, rv := range p.is.Pull.Reviews {
		if rv.ID == c.ReviewID && rv.State == "PENDING" && !strings.EqualFold(rv.User, p.s.w.Me) {
			return false
		}
	}
	return true
}

type threadR struct {
	s    *gqlState
	r    *Repo
	is   *Issue
	root *ReviewComment
}

func (t *threadR) ID() graphql.ID    { return graphql.ID(nodeID("PRRT", t.root.ID)) }
func (t *threadR) IsResolved() bool  { return t.root.ResolvedBy != "" }
func (t *threadR) IsOutdated() bool  { return false }
func (t *threadR) IsCollapsed() bool { return t.IsResolved() }
func (t *threadR) Path() string      { return t.root.Path }
func (t *threadR) PullRequest() *pullR {
	return &pullR{issueR{s: t.s, r: t.r, is: t.is}}
}
func (t *threadR) Repository() *repoR { return &repoR{s: t.s, r: t.r} }
func (t *threadR) ResolvedBy() *userR {
	if t.root.ResolvedBy == "" {
		return nil
	}
	return t.s.userR(t.root.ResolvedBy)
}

// The viewer may reply to, resolve and unresolve threads of a repository it
// can write to (the twin's collaborators) or of its own pull request.
func (t *threadR) viewerCanWrite() bool {
	return containsFold(t.r.Collaborators, t.s.w.Me) || strings.EqualFold(t.r.Owner, t.s.w.Me) || strings.EqualFold(t.is.User, t.s.w.Me)
}
func (t *threadR) ViewerCanReply() bool     { return t.viewerCanWrite() }
func (t *threadR) ViewerCanResolve() bool   { return t.viewerCanWrite() && !t.IsResolved() }
func (t *threadR) ViewerCanUnresolve() bool { return t.viewerCanWrite() && t.IsResolved() }
func (t *threadR) Line() *int32 {
	if t.root.Line == 0 {
		return nil
	}
	l := int32(t.root.Line)
	return &l
}
func (t *threadR) DiffSide() string {
	if t.root.Side == "LEFT" {
		return "LEFT"
	}
	return "RIGHT"
}
func (t *threadR) SubjectType() string {
	if t.root.Line == 0 {
		return "FILE"
	}
	return "LINE"
}

func (t *threadR) Comments(args struct {
	pageArgs
	Skip *int32
}) (*conn[*reviewCommentR], error) {
	out := []*reviewCommentR{{s: t.s, r: t.r, is: t.is, c: t.root}}
	for _, c := range t.is.Pull.ReviewComments {
		if c.InReplyTo == t.root.ID {
			out = append(out, &reviewCommentR{s: t.s, r: t.r, is: t.is, c: c})
		}
	}
	if args.Skip != nil {
		out = out[min(int(max(*args.Skip, 0)), len(out)):]
	}
	return paginate2(out, args.pageArgs, "comments")
}

type reviewR struct {
	s  *gqlState
	r  *Repo
	is *Issue
	rv *Review
}

func (x *reviewR) ID() graphql.ID     { return graphql.ID(nodeID("PRR", x.rv.ID)) }
func (x *reviewR) DatabaseID() *int32 { id := int32(x.rv.ID); return &id }
func (x *reviewR) Body() string       { return x.rv.Body }
func (x *reviewR) State() string      { return x.rv.State }
func (x *reviewR) Author() *nodeR     { return x.s.actor(x.rv.User) }
func (x *reviewR) CreatedAt() gqlTime { return timeOf(x.rv.SubmittedAt) }
func (x *reviewR) UpdatedAt() gqlTime { return timeOf(x.rv.SubmittedAt) }
func (x *reviewR) PullRequest() *pullR {
	return &pullR{issueR{s: x.s, r: x.r, is: x.is}}
}
func (x *reviewR) SubmittedAt() *gqlTime {
	if x.rv.State == "PENDING" {
		return nil
	}
	t := timeOf(x.rv.SubmittedAt)
	return &t
}
func (x *reviewR) URL() gqlURI {
	return gqlURI(fmt.Sprintf("https://github.com/%s/pull/%d#pullrequestreview-%d", x.r.FullName(), x.is.Number, x.rv.ID))
}

func (x *reviewR) Comments(args pageArgs) (*conn[*reviewCommentR], error) {
	var out []*reviewCommentR
	for _, c := range x.is.Pull.ReviewComments {
		if c.ReviewID == x.rv.ID {
			out = append(out, &reviewCommentR{s: x.s, r: x.r, is: x.is, c: c})
		}
	}
	return paginate2(out, args, "comments")
}

type reviewCommentR struct {
	s  *gqlState
	r  *Repo
	is *Issue
	c  *ReviewComment
}

func (x *reviewCommentR) ID() graphql.ID     { return graphql.ID(nodeID("PRRC", x.c.ID)) }
func (x *reviewCommentR) DatabaseID() *int32 { id := int32(x.c.ID); return &id }
func (x *reviewCommentR) Body() string       { return x.c.Body }
func (x *reviewCommentR) Path() string       { return x.c.Path }
func (x *reviewCommentR) Author() *nodeR     { return x.s.actor(x.c.User) }
func (x *reviewCommentR) CreatedAt() gqlTime { return timeOf(x.c.CreatedAt) }
func (x *reviewCommentR) UpdatedAt() gqlTime { return timeOf(x.c.UpdatedAt) }
func (x *reviewCommentR) Line() *int32 {
	if x.c.Line == 0 {
		return nil
	}
	l := int32(x.c.Line)
	return &l
}
func (x *reviewCommentR) URL() gqlURI {
	return gqlURI(fmt.Sprintf("https://github.com/%s/pull/%d#discussion_r%d", x.r.FullName(), x.is.Number, x.c.ID))
}
func (x *reviewCommentR) PullRequestReview() *reviewR {
	for _, rv := range x.is.Pull.Reviews {
		if rv.ID == x.c.ReviewID {
			return &reviewR{s: x.s, r: x.r, is: x.is, rv: rv}
		}
	}
	return nil
}

type commentR struct {
	s  *gqlState
	r  *Repo
	is *Issue
	c  Comment
}

func (x *commentR) ID() graphql.ID     { return graphql.ID(nodeID("IC", x.c.ID)) }
func (x *commentR) DatabaseID() *int32 { id := int32(x.c.ID); return &id }
func (x *commentR) Body() string       { return x.c.Body }
func (x *commentR) Author() *nodeR     { return x.s.actor(x.c.User) }
func (x *commentR) CreatedAt() gqlTime { return timeOf(x.c.CreatedAt) }
func (x *commentR) UpdatedAt() gqlTime { return timeOf(x.c.UpdatedAt) }
func (x *commentR) URL() gqlURI {
	return gqlURI(fmt.Sprintf("https://github.com/%s/issues/%d#issuecomment-%d", x.r.FullName(), x.is.Number, x.c.ID))
}

// Milestones, refs and git objects.

type milestoneR struct {
	r *Repo
	m *Milestone
}

func (m *milestoneR) ID() graphql.ID       { return graphql.ID(nodeID("MI", m.m.ID)) }
func (m *milestoneR) Number() int32        { return int32(m.m.Number) }
func (m *milestoneR) Title() string        { return m.m.Title }
func (m *milestoneR) Description() *string { return strPtr(m.m.Description) }
func (m *milestoneR) State() string        { return strings.ToUpper(m.m.State) }
func (m *milestoneR) Closed() bool         { return m.m.State == "closed" }
func (m *milestoneR) ClosedAt() *gqlTime   { return timePtr(m.m.ClosedAt) }
func (m *milestoneR) DueOn() *gqlTime      { return timePtr(m.m.DueOn) }
func (m *milestoneR) CreatedAt() gqlTime   { return timeOf(m.m.CreatedAt) }
func (m *milestoneR) UpdatedAt() gqlTime   { return timeOf(m.m.UpdatedAt) }
func (m *milestoneR) URL() gqlURI {
	return gqlURI(fmt.Sprintf("https://github.com/%s/milestone/%d", m.r.FullName(), m.m.Number))
}

func (i *issueR) Milestone() *milestoneR {
	if m := i.r.milestone(i.is.Milestone); m != nil && i.is.Milestone != 0 {
		return &milestoneR{r: i.r, m: m}
	}
	return nil
}

func (r *repoR) Milestone(args struct{ Number int32 }) (*milestoneR, error) {
	r.s.stamp("get_milestone", rankList)
	m := r.r.milestone(int(args.Number))
	if m == nil {
		return nil, gqlErrorf("NOT_FOUND", "Could not resolve to a Milestone with the number of %d.", args.Number)
	}
	return &milestoneR{r: r.r, m: m}, nil
}

// MilestoneOrder is GitHub's milestone ordering.
type MilestoneOrder struct {
	Direction string
	Field     string
}

func (r *repoR) Milestones(args struct {
	pageArgs
	OrderBy *MilestoneOrder
	Query   *string
	States  *[]string
}) (*conn[*milestoneR], error) {
	r.s.stamp("list_milestones", rankList)
	var out []*milestoneR
	for _, m := range r.r.Milestones {
		if args.States != nil && len(*args.States) > 0 && !slices.Contains(*args.States, strings.ToUpper(m.State)) {
			continue
		}
		if args.Query != nil && !strings.Contains(strings.ToLower(m.Title), strings.ToLower(*args.Query)) {
			continue
		}
		out = append(out, &milestoneR{r: r.r, m: m})
	}
	if o := args.OrderBy; o != nil {
		key := func(m *Milestone) int64 {
			switch o.Field {
			case "CREATED_AT":
				return m.CreatedAt.UnixNano()
			case "UPDATED_AT":
				return m.UpdatedAt.UnixNano()
			case "DUE_DATE":
				if m.DueOn != nil {
					return m.DueOn.UnixNano()
				}
				return 0
			}
			return int64(m.Number)
		}
		sort.SliceStable(out, func(i, j int) bool {
			if o.Direction == "DESC" {
				return key(out[i].m) > key(out[j].m)
			}
			return key(out[i].m) < key(out[j].m)
		})
	}
	return paginate2(out, args.pageArgs, "milestones")
}

// RefOrder is GitHub's ref ordering.
type RefOrder struct {
	Direction string
	Field     string
}

// refsOf lists branches (refs/heads/) or tags (refs/tags/) by name.
func (r *repoR) refsOf(prefix string) []*refR {
	var out []*refR
	switch prefix {
	case "refs/heads/":
		for _, b := range sortedBranches(r.r) {
			out = append(out, &refR{s: r.s, r: r.r, name: b.Name, prefix: prefix, sha: b.SHA})
		}
	case "refs/tags/":
		for _, t := range r.r.Tags {
			out = append(out, &refR{s: r.s, r: r.r, name: t.Name, prefix: prefix, sha: t.SHA})
		}
		sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	}
	return out
}

func (r *repoR) Refs(args struct {
	pageArgs
	Direction *string
	OrderBy   *RefOrder
	Query     *string
	RefPrefix string
}) (*conn[*refR], error) {
	switch args.RefPrefix {
	case "refs/heads/":
		r.s.stamp("list_branches", rankList)
	case "refs/tags/":
		r.s.stamp("list_tags", rankList)
	default:
		return nil, gqlErrorf("UNPROCESSABLE", "refPrefix must be refs/heads/ or refs/tags/, got %q", args.RefPrefix)
	}
	var out []*refR
	for _, x := range r.refsOf(args.RefPrefix) {
		if args.Query == nil || strings.Contains(x.name, *args.Query) {
			out = append(out, x)
		}
	}
	desc := args.Direction != nil && *args.Direction == "DESC" || args.OrderBy != nil && args.OrderBy.Direction == "DESC"
	if desc {
		slices.Reverse(out)
	}
	return paginate2(out, args.pageArgs, "refs")
}

func (r *repoR) Ref(args struct{ QualifiedName string }) *refR {
	r.s.stamp("get_git_ref", rankList)
	name := strings.TrimPrefix(args.QualifiedName, "refs/")
	for _, p := range []string{"refs/heads/", "refs/tags/"} {
		short := strings.TrimPrefix(name, strings.TrimPrefix(p, "refs/"))
		for _, x := range r.refsOf(p) {
			if x.name == short && (short != name || p == "refs/heads/" || r.r.branch(short) == nil) {
				return x
			}
		}
	}
	return nil
}

// Object resolves a git expression ("main", a sha, "main:path/to/file")
// or an oid to a commit or a blob.
func (r *repoR) Object(args struct {
	Expression *string
	Oid        *gqlOID
}) *nodeR {
	if args.Oid != nil {
		if c := r.r.commit(string(*args.Oid)); c != nil {
			r.s.stamp("get_commit", rankList)
			return &nodeR{v: &commitR{s: r.s, r: r.r, c: c}}
		}
		if data, ok := r.r.Blobs[string(*args.Oid)]; ok {
			r.s.stamp("get_file_contents", rankList)
			return &nodeR{v: &blobR{r: r, sha: string(*args.Oid), data: data}}
		}
		return nil
	}
	if args.Expression == nil {
		return nil
	}
	rev, path, hasPath := strings.Cut(*args.Expression, ":")
	c := r.r.resolve(rev)
	if c == nil {
		return nil
	}
	if !hasPath {
		r.s.stamp("get_commit", rankList)
		return &nodeR{v: &commitR{s: r.s, r: r.r, c: c}}
	}
	r.s.stamp("get_file_contents", rankList)
	sha, ok := c.Tree[path]
	if !ok {
		return nil
	}
	return &nodeR{v: &blobR{r: r, sha: sha, data: r.r.Blobs[sha]}}
}

type blobR struct {
	r    *repoR
	sha  string
	data []byte
}

func (b *blobR) ID() graphql.ID         { return graphql.ID("B_" + b.sha) }
func (b *blobR) Oid() gqlOID            { return gqlOID(b.sha) }
func (b *blobR) AbbreviatedOid() string { return b.sha[:7] }
func (b *blobR) ByteSize() int32        { return int32(len(b.data)) }
func (b *blobR) Repository() *repoR     { return b.r }
func (b *blobR) IsBinary() *bool {
	bin := !utf8.Valid(b.data) || bytes.IndexByte(b.data, 0) >= 0
	return &bin
}
func (b *blobR) Text() *string {
	if *b.IsBinary() {
		return nil
	}
	s := string(b.data)
	return &s
}

func (n *nodeR) ToBlob() (*blobR, bool) { x, ok := n.v.(*blobR); return x, ok }
func (n *nodeR) ToMilestone() (*milestoneR, bool) {
	x, ok := n.v.(*milestoneR)
	return x, ok
}

// fieldValueMatches reports whether an issue holds the value a filter asks
// for; a field its organization lacks matches nothing.
func fieldValueMatches(o *Org, is *Issue, want IssueFieldValueFilter) bool {
	if o == nil {
		return false
	}
	f := o.issueField(want.FieldName)
	if f == nil {
		return false
	}
	for _, fv := range is.FieldValues {
		if fv.FieldID != f.ID {
			continue
		}
		switch {
		case want.NumberValue != nil:
			return f.DataType == "number" && fv.Number == *want.NumberValue
		case want.TextValue != nil:
			return f.DataType == "text" && fv.Value == *want.TextValue
		case want.DateValue != nil:
			return f.DataType == "date" && fv.Value == *want.DateValue
		case want.SingleSelectOptionValue != nil:
			return f.DataType == "single_select" && strings.EqualFold(fv.Value, *want.SingleSelectOptionValue)
		}
		return true
	}
	return false
}
