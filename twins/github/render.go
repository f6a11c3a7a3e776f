package github

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/pomehq/pome/internal/capmap"
	"github.com/pomehq/pome/twins"
)

// Wire types: field names and JSON types as GitHub's REST API returns them
// (the fields go-github and octokit decode). Fields GitHub always sends are
// never omitted, so nulls stay nulls.

// APIUser is GitHub's simple-user object.
type APIUser struct {
	Login             string `json:"login"`
	ID                int64  `json:"id"`
	NodeID            string `json:"node_id"`
	AvatarURL         string `json:"avatar_url"`
	GravatarID        string `json:"gravatar_id"`
	URL               string `json:"url"`
	HTMLURL           string `json:"html_url"`
	FollowersURL      string `json:"followers_url"`
	FollowingURL      string `json:"following_url"`
	GistsURL          string `json:"gists_url"`
	StarredURL        string `json:"starred_url"`
	SubscriptionsURL  string `json:"subscriptions_url"`
	OrganizationsURL  string `json:"organizations_url"`
	ReposURL          string `json:"repos_url"`
	EventsURL         string `json:"events_url"`
	ReceivedEventsURL string `json:"received_events_url"`
	Type              string `json:"type"`
	UserViewType      string `json:"user_view_type"`
	SiteAdmin         bool   `json:"site_admin"`
}

// APILabel is GitHub's label object.
type APILabel struct {
	ID          int64  `json:"id"`
	NodeID      string `json:"node_id"`
	URL         string `json:"url"`
	Name        string `json:"name"`
	Color       string `json:"color"`
	Default     bool   `json:"default"`
	Description string `json:"description"`
}

// APIMilestone is GitHub's milestone object.
type APIMilestone struct {
	URL          string   `json:"url"`
	HTMLURL      string   `json:"html_url"`
	LabelsURL    string   `json:"labels_url"`
	ID           int64    `json:"id"`
	NodeID       string   `json:"node_id"`
	Number       int      `json:"number"`
	State        string   `json:"state"`
	Title        string   `json:"title"`
	Description  string   `json:"description"`
	Creator      *APIUser `json:"creator"`
	OpenIssues   int      `json:"open_issues"`
	ClosedIssues int      `json:"closed_issues"`
	CreatedAt    string   `json:"created_at"`
	UpdatedAt    string   `json:"updated_at"`
	ClosedAt     *string  `json:"closed_at"`
	DueOn        *string  `json:"due_on"`
}

// APIPullRequestLinks is the pull_request key that marks an issue as a PR.
type APIPullRequestLinks struct {
	URL      string  `json:"url"`
	HTMLURL  string  `json:"html_url"`
	DiffURL  string  `json:"diff_url"`
	PatchURL string  `json:"patch_url"`
	MergedAt *string `json:"merged_at"`
}

// APIReactions is the reaction rollup GitHub attaches to issues and comments.
type APIReactions struct {
	URL        string `json:"url"`
	TotalCount int    `json:"total_count"`
	PlusOne    int    `json:"+1"`
	MinusOne   int    `json:"-1"`
	Laugh      int    `json:"laugh"`
	Hooray     int    `json:"hooray"`
	Confused   int    `json:"confused"`
	Heart      int    `json:"heart"`
	Rocket     int    `json:"rocket"`
	Eyes       int    `json:"eyes"`
}

// APIIssue is GitHub's issue object (also used for pull requests in issue
// lists, where pull_request is set).
type APIIssue struct {
	ID                int64                `json:"id"`
	NodeID            string               `json:"node_id"`
	URL               string               `json:"url"`
	RepositoryURL     string               `json:"repository_url"`
	LabelsURL         string               `json:"labels_url"`
	CommentsURL       string               `json:"comments_url"`
	EventsURL         string               `json:"events_url"`
	HTMLURL           string               `json:"html_url"`
	Number            int                  `json:"number"`
	State             string               `json:"state"`
	StateReason       *string              `json:"state_reason"`
	Title             string               `json:"title"`
	Body              *string              `json:"body"`
	User              *APIUser             `json:"user"`
	Labels            []APILabel           `json:"labels"`
	Assignee          *APIUser             `json:"assignee"`
	Assignees         []APIUser            `json:"assignees"`
	Milestone         *APIMilestone        `json:"milestone"`
	Type              *APIIssueType        `json:"type"`
	IssueFieldValues  []APIIssueFieldValue `json:"issue_field_values,omitempty"`
	Locked            bool                 `json:"locked"`
	ActiveLockReason  *string              `json:"active_lock_reason"`
	Comments          int                  `json:"comments"`
	PullRequest       *APIPullRequestLinks `json:"pull_request,omitempty"`
	ClosedAt          *string              `json:"closed_at"`
	CreatedAt         string               `json:"created_at"`
	UpdatedAt         string               `json:"updated_at"`
	ClosedBy          *APIUser             `json:"closed_by"`
	AuthorAssociation string               `json:"author_association"`
	Draft             *bool                `json:"draft,omitempty"`
	Reactions         APIReactions         `json:"reactions"`
}

// APIIssueComment is GitHub's issue comment object.
type APIIssueComment struct {
	ID                int64        `json:"id"`
	NodeID            string       `json:"node_id"`
	URL               string       `json:"url"`
	HTMLURL           string       `json:"html_url"`
	IssueURL          string       `json:"issue_url"`
	Body              string       `json:"body"`
	User              *APIUser     `json:"user"`
	CreatedAt         string       `json:"created_at"`
	UpdatedAt         string       `json:"updated_at"`
	AuthorAssociation string       `json:"author_association"`
	Reactions         APIReactions `json:"reactions"`
}

// view renders world records as wire objects; it knows the sandbox's API
// root so that url fields point back at the twin (SDKs follow them).
type view struct {
	w    *World
	api  string
	html string
}

func newView(ctx context.Context, w *World) *view {
	api := twins.EnvFrom(ctx).APIURL
	if api == "" {
		api = "https://api.github.com"
	}
	return &view{w: w, api: api, html: "https://github.com"}
}

// ts renders a time as GitHub does: UTC, whole seconds.
func ts(t time.Time) string { return t.UTC().Truncate(time.Second).Format(time.RFC3339) }

func tsPtr(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := ts(*t)
	return &s
}

func strPtr(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// user renders the account login names. A seeded user's or organization's
// rendering is kept (userRenders) and handed to every answer that names
// them: nearly every answer does, and building the dozen URLs was a ninth
// of what a comment allocated. What user returns is thus shared and must
// not be changed; callers that adjust one copy it first.
func (v *view) user(login string) *APIUser {
	if login == "" {
		return nil
	}
	renders := v.w.userRenders()
	key := userRenderKey{api: v.api, html: v.html, login: login}
	if u, ok := renders.Get(key); ok {
		return u
	}
	u, known := v.renderUser(login)
	if known {
		// Reads rendering side by side all answer with the first kept.
		u = renders.Put(key, u)
	}
	return u
}

// renderUser builds login's simple-user object; known is false for a
// login the world has no account for.
func (v *view) renderUser(login string) (_ *APIUser, known bool) {
	u := v.w.user(login)
	var id int64
	typ := "User"
	if u != nil {
		id, login, known = u.ID, u.Login, true
	} else if o := v.w.org(login); o != nil {
		id, login, typ, known = o.ID, o.Login, "Organization", true
	}
	kind := "U"
	if typ == "Organization" {
		kind = "O"
	}
	// Every URL of a user starts with one of two prefixes: they are built
	// into one string and handed out as slices of it, one allocation
	// rather than one per URL (a user is rendered in nearly every answer);
	// a strings.Builder hands its bytes over as that string, uncopied.
	var spans [11][2]int
	var buf strings.Builder
	buf.Grow(10*(len(v.api)+len("/users/")+len(login)) + len(v.html) + len(login) + 200)
	for i, part := range [11]string{
		"", "/followers", "/following{/other_user}", "/gists{/gist_id}", "/starred{/owner}{/repo}",
		"/subscriptions", "/orgs", "/repos", "/events{/privacy}", "/received_events", "",
	} {
		start := buf.Len()
		if i == 10 {
			buf.WriteString(v.html)
			buf.WriteByte('/')
			buf.WriteString(login)
		} else {
			buf.WriteString(v.api)
			buf.WriteString("/users/")
			buf.WriteString(login)
			buf.WriteString(part)
		}
		spans[i] = [2]int{start, buf.Len()}
	}
	all := buf.String()
	url := func(i int) string { return all[spans[i][0]:spans[i][1]] }
	return &APIUser{
		Login: login, ID: id, NodeID: nodeID(kind, id),
		AvatarURL:         "https://avatars.githubusercontent.com/u/" + strconv.FormatInt(id, 10) + "?v=4",
		URL:               url(0),
		HTMLURL:           url(10),
		FollowersURL:      url(1),
		FollowingURL:      url(2),
		GistsURL:          url(3),
		StarredURL:        url(4),
		SubscriptionsURL:  url(5),
		OrganizationsURL:  url(6),
		ReposURL:          url(7),
		EventsURL:         url(8),
		ReceivedEventsURL: url(9),
		Type:              typ, UserViewType: "public",
	}, known
}

// userRenders keeps the rendered users of one world, per API base (a
// world is answered under its sandbox's URL, but a client may reach it by
// another host name), up to maxUserRenders of them; beyond that users are
// rendered each time. Accounts are made only by the seed and never change,
// so a rendering holds as long as its world. Reads render side by side
// under the world's read lock; the map has a lock of its own.
type userRenders = capmap.Map[userRenderKey, *APIUser]

type userRenderKey struct{ api, html, login string }

// maxUserRenders bounds a world's kept renderings.
const maxUserRenders = 256

func (v *view) users(logins []string) []APIUser {
	out := make([]APIUser, 0, len(logins))
	for _, l := range logins {
		out = append(out, *v.user(l))
	}
	return out
}

func (v *view) repoURL(r *Repo) string { return v.api + "/repos/" + r.FullName() }

func (v *view) label(r *Repo, l *Label) APILabel {
	return APILabel{
		ID: l.ID, NodeID: nodeID("LA", l.ID), URL: v.repoURL(r) + "/labels/" + pathEscape(l.Name),
		Name: l.Name, Color: l.Color, Default: l.Default, Description: l.Description,
	}
}

func (v *view) labels(r *Repo, names []string) []APILabel {
	out := make([]APILabel, 0, len(names))
	for _, n := range names {
		if l := r.label(n); l != nil {
			out = append(out, v.label(r, l))
		}
	}
	return out
}

func (v *view) milestone(r *Repo, m *Milestone) *APIMilestone {
	if m == nil {
		return nil
	}
	open, closed := 0, 0
	for _, is := range r.Issues {
		if is.Milestone == m.Number {
			if is.State == "open" {
				open++
			} else {
				closed++
			}
		}
	}
	num := strconv.Itoa(m.Number)
	u := v.repoURL(r) + "/milestones/" + num
	return &APIMilestone{
		URL: u, HTMLURL: v.html + "/" + r.FullName() + "/milestone/" + num, LabelsURL: u + "/labels",
		ID: m.ID, NodeID: nodeID("MI", m.ID), Number: m.Number, State: m.State, Title: m.Title, Description: m.Description,
		Creator: v.user(m.Creator), OpenIssues: open, ClosedIssues: closed,
		CreatedAt: ts(m.CreatedAt), UpdatedAt: ts(m.UpdatedAt), ClosedAt: tsPtr(m.ClosedAt), DueOn: tsPtr(m.DueOn),
	}
}

func (v *view) reactions(u string, list []*Reaction) APIReactions {
	out := APIReactions{URL: u + "/reactions", TotalCount: len(list)}
	for _, x := range list {
		if n := out.count(x.Content); n != nil {
			*n++
		}
	}
	return out
}

// count is the counter of one reaction content.
func (a *APIReactions) count(content string) *int {
	return map[string]*int{"+1": &a.PlusOne, "-1": &a.MinusOne, "laugh": &a.Laugh, "hooray": &a.Hooray,
		"confused": &a.Confused, "heart": &a.Heart, "rocket": &a.Rocket, "eyes": &a.Eyes}[content]
}

func (v *view) issue(r *Repo, is *Issue) APIIssue {
	// URLs are joined with + rather than fmt: an issue is rendered in
	// nearly every answer, and a list renders a page of them.
	repo, num := v.repoURL(r), strconv.Itoa(is.Number)
	u := repo + "/issues/" + num
	kind := "issues"
	if is.Pull != nil {
		kind = "pull"
	}
	out := APIIssue{
		ID: is.ID, NodeID: nodeID("I", is.ID), URL: u, RepositoryURL: repo,
		LabelsURL: u + "/labels{/name}", CommentsURL: u + "/comments", EventsURL: u + "/events",
		HTMLURL: v.html + "/" + r.FullName() + "/" + kind + "/" + num,
		Number:  is.Number, State: is.State, StateReason: strPtr(is.StateReason), Title: is.Title,
		Body: strPtr(is.Body), User: v.user(is.User), Labels: v.labels(r, is.Labels),
		Assignees: v.users(is.Assignees), Milestone: v.milestone(r, r.milestone(is.Milestone)),
		Locked: is.Locked, ActiveLockReason: strPtr(is.LockReason), Comments: is.Comments.Len(),
		ClosedAt: tsPtr(is.ClosedAt), CreatedAt: ts(is.CreatedAt), UpdatedAt: ts(is.UpdatedAt),
		ClosedBy: v.user(is.ClosedBy), AuthorAssociation: v.w.authorAssociation(r, is.User),
		Reactions: v.reactions(u, is.Reactions),
	}
	if len(is.Assignees) > 0 {
		out.Assignee = v.user(is.Assignees[0])
	}
	out.IssueFieldValues = v.issueFieldValues(r, is)
	if is.Type != "" {
		if o := v.w.org(r.Owner); o != nil && o.issueType(is.Type) != nil {
			out.Type = apiIssueType(o.issueType(is.Type))
		}
	}
	if is.Pull != nil {
		pu := repo + "/pulls/" + num
		h := out.HTMLURL
		out.PullRequest = &APIPullRequestLinks{URL: pu, HTMLURL: h, DiffURL: h + ".diff", PatchURL: h + ".patch", MergedAt: tsPtr(is.Pull.MergedAt)}
		d := is.Pull.Draft
		out.Draft = &d
	}
	return out
}

func (v *view) comment(r *Repo, is *Issue, c Comment) APIIssueComment {
	kind := "issues"
	if is.Pull != nil {
		kind = "pull"
	}
	repo, num, id := v.repoURL(r), strconv.Itoa(is.Number), strconv.FormatInt(c.ID, 10)
	u := repo + "/issues/comments/" + id
	return APIIssueComment{
		ID: c.ID, NodeID: nodeID("IC", c.ID), URL: u,
		HTMLURL:  v.html + "/" + r.FullName() + "/" + kind + "/" + num + "#issuecomment-" + id,
		IssueURL: repo + "/issues/" + num,
		Body:     c.Body, User: v.user(c.User), CreatedAt: ts(c.CreatedAt), UpdatedAt: ts(c.UpdatedAt),
		AuthorAssociation: v.w.authorAssociation(r, c.User), Reactions: v.reactions(u, c.Reactions),
	}
}
