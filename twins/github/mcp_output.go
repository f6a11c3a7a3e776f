package github

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"

	"github.com/pomehq/pome/twins"
)

// MCP answers. github-mcp-server answers most tools with trimmed objects
// rather than GitHub's REST objects (its "minimal" types), a file's
// contents as text in an embedded resource, and writes with the new
// object's id and URL. The twin's actions answer REST objects; the
// renderers below derive each tool's MCP answer from the same output, in
// this one file, so REST keeps GitHub's full objects. Field names, nesting
// and which empty values are left out follow github-mcp-server's answers
// (compared against this twin, whose REST and GraphQL it can call).

var mcpFormsOnce sync.Once

// withMCPForms gives each action with a trimmed MCP answer its renderer,
// and every other action one that answers its output as it is: either way
// the tool answers JSON text only, without an output schema or structured
// content repeating the text, as github-mcp-server's tools do. It changes
// the shared action values in place, so it runs once (Actions).
func withMCPForms(actions []twins.Action) {
	forms := mcpForms()
	for _, a := range actions {
		if f, ok := forms[a.Name()]; ok {
			a.Spec().MCP = f
		} else {
			a.Spec().MCP = asItIs
		}
	}
}

// asItIs is the MCP form of a tool whose answer is the action's output.
func asItIs(_ context.Context, _, _, out any) (any, error) { return out, nil }

// mcpRenderer adapts a typed renderer to twins.MCPRenderer.
func mcpRenderer[In, Out any](f func(m *mcpView, in In, out Out) (any, error)) twins.MCPRenderer {
	return func(ctx context.Context, world, in, out any) (any, error) {
		w, _ := world.(*World)
		typedIn, ok := in.(In)
		if !ok {
			return nil, fmt.Errorf("mcp renderer: input of type %T", in)
		}
		typedOut, ok := out.(Out)
		if !ok {
			return nil, fmt.Errorf("mcp renderer: output of type %T", out)
		}
		return f(&mcpView{ctx: ctx, w: w}, typedIn, typedOut)
	}
}

// mcpView is what a renderer may read besides the action's output: the
// world the handler ran on, still held.
type mcpView struct {
	ctx context.Context
	w   *World
}

// mcpForms maps tool names to their MCP renderers.
func mcpForms() map[string]twins.MCPRenderer {
	return map[string]twins.MCPRenderer{
		"get_me":      mcpRenderer(renderGetMe),
		"list_issues": mcpRenderer(renderListIssues),
		"issue_read":  mcpRenderer(renderIssueRead),
		"issue_write": mcpRenderer(func(_ *mcpView, _ IssueWriteIn, out APIIssue) (any, error) {
			return minimalResponse(out.ID, out.HTMLURL), nil
		}),
		"add_issue_comment":  mcpRenderer(renderAddIssueComment),
		"list_pull_requests": mcpRenderer(renderListPulls),
		"pull_request_read":  mcpRenderer(renderPullRead),
		"create_pull_request": mcpRenderer(func(_ *mcpView, _ CreatePullIn, out APIPullRequest) (any, error) {
			return minimalResponse(out.ID, out.HTMLURL), nil
		}),
		"update_pull_request": mcpRenderer(func(_ *mcpView, _ UpdatePullIn, out APIPullRequest) (any, error) {
			return minimalResponse(out.ID, out.HTMLURL), nil
		}),
		"create_repository": mcpRenderer(func(_ *mcpView, _ CreateRepositoryIn, out APIRepository) (any, error) {
			return minimalResponse(out.ID, out.HTMLURL), nil
		}),
		// GitHub answers a fork 202 Accepted, which github-mcp-server
		// reports as work in progress.
		"fork_repository": mcpRenderer(func(_ *mcpView, _ ForkIn, _ APIRepository) (any, error) {
			return &twins.MCPResult{Text: "Fork is in progress"}, nil
		}),
		"create_or_update_file": mcpRenderer(renderFileWrite),
		"add_reply_to_pull_request_comment": mcpRenderer(func(m *mcpView, in ReplyIn, out ReplyOut) (any, error) {
			var reaction, comment MinimalResponse
			if out.Reaction != nil {
				v := newView(m.ctx, m.w)
				reaction = minimalResponse(out.Reaction.ID, fmt.Sprintf("%s/repos/%s/%s/pulls/comments/%d/reactions/%d", v.api, in.Owner, in.Repo, in.CommentID, out.Reaction.ID))
			}
			if out.Comment != nil {
				comment = minimalResponse(out.Comment.ID, out.Comment.HTMLURL)
			}
			switch {
			case out.Comment != nil && out.Reaction != nil:
				return map[string]MinimalResponse{"comment": comment, "reaction": reaction}, nil
			case out.Reaction != nil:
				return reaction, nil
			}
			return comment, nil
		}),
		"delete_file": mcpRenderer(func(_ *mcpView, _ DeleteFileIn, out APIContentWrite) (any, error) {
			obj, err := withoutNulls(out)
			if err != nil {
				return nil, err
			}
			// go-github's tree reference has no url; a deletion's content
			// stays null.
			if c, ok := obj["commit"].(map[string]any); ok {
				if t, ok := c["tree"].(map[string]any); ok {
					delete(t, "url")
				}
			}
			obj["content"] = nil
			return obj, nil
		}),
		"pull_request_review_write": mcpRenderer(func(_ *mcpView, in ReviewWriteIn, _ APIReview) (any, error) {
			switch {
			case in.Method == "submit_pending":
				return &twins.MCPResult{Text: "pending pull request review successfully submitted"}, nil
			case in.Method == "delete_pending":
				return &twins.MCPResult{Text: "pending pull request review successfully deleted"}, nil
			case in.Event == "":
				return &twins.MCPResult{Text: "pending pull request created"}, nil
			}
			return &twins.MCPResult{Text: "pull request review submitted successfully"}, nil
		}),
		"add_comment_to_pending_review": mcpRenderer(func(_ *mcpView, _ PendingReviewCommentIn, _ APIReviewComment) (any, error) {
			return &twins.MCPResult{Text: "pull request review comment successfully added to pending review"}, nil
		}),
		// GitHub answers 202 Accepted, which github-mcp-server reports as
		// work in progress.
		"update_pull_request_branch": mcpRenderer(func(_ *mcpView, _ UpdatePullBranchIn, _ UpdatePullBranchOut) (any, error) {
			return &twins.MCPResult{Text: "Pull request branch update is in progress"}, nil
		}),
		"get_file_contents": mcpRenderer(renderFileContents),
		"list_branches":     mcpRenderer(renderListBranches),
		"list_tags":         mcpRenderer(renderListTags),
		"list_releases":     mcpRenderer(renderListReleases),
		"list_commits":      mcpRenderer(renderListCommits),
		"get_commit":        mcpRenderer(renderGetCommit),
		// Objects github-mcp-server passes on whole, as go-github
		// decoded them: without null members.
		"get_latest_release": mcpRenderer(func(_ *mcpView, _ RepoRef, out APIRelease) (any, error) { return withoutNulls(out) }),
		"get_release_by_tag": mcpRenderer(func(_ *mcpView, _ TagIn, out APIRelease) (any, error) { return withoutNulls(out) }),
		"sub_issue_write":    mcpRenderer(func(_ *mcpView, _ SubIssueWriteIn, out APIIssue) (any, error) { return withoutNulls(out) }),
		"get_tag":            mcpRenderer(renderGetTag),
		"list_issue_types": mcpRenderer(func(_ *mcpView, _ ListIssueTypesIn, l *List[APIIssueType]) (any, error) {
			return eachWithoutNulls(l.Items)
		}),
		"get_team_members": mcpRenderer(func(_ *mcpView, _ GetTeamMembersIn, t *teamMembers) (any, error) {
			// A list of logins, null when empty (a nil list marshalled).
			if len(t.Logins) == 0 {
				return nil, nil
			}
			return t.Logins, nil
		}),
		"get_label":                     mcpRenderer(func(_ *mcpView, _ GetLabelIn, out APILabel) (any, error) { return minimalLabel(out), nil }),
		"list_repository_collaborators": mcpRenderer(renderCollaborators),
		"search_issues": mcpRenderer(func(_ *mcpView, in SearchIssuesArgs, s *SearchResult[APISearchIssue]) (any, error) {
			return searchIssuesAnswer(s, in.Fields, true)
		}),
		"search_pull_requests": mcpRenderer(func(_ *mcpView, in SearchPullsArgs, s *SearchResult[APISearchIssue]) (any, error) {
			return searchIssuesAnswer(s, in.Fields, false)
		}),
		"search_code":         mcpRenderer(renderSearchCode),
		"search_repositories": mcpRenderer(renderSearchRepositories),
		"search_users":        mcpRenderer(renderSearchUsers),
		"search_commits":      mcpRenderer(renderSearchCommits),
	}
}

// MinimalResponse is a write's answer: the new or changed object's id and
// web address.
type MinimalResponse struct {
	ID  string `json:"id"`
	URL string `json:"url"`
}

func minimalResponse(id int64, url string) MinimalResponse {
	return MinimalResponse{ID: fmt.Sprint(id), URL: url}
}

// MinimalUser is a user as the trimmed answers name one.
type MinimalUser struct {
	Login      string       `json:"login"`
	ID         int64        `json:"id,omitempty"`
	ProfileURL string       `json:"profile_url,omitempty"`
	AvatarURL  string       `json:"avatar_url,omitempty"`
	Details    *UserDetails `json:"details,omitempty"`
}

// UserDetails is get_me's profile beyond the login.
type UserDetails struct {
	Name            string `json:"name,omitempty"`
	Company         string `json:"company,omitempty"`
	Blog            string `json:"blog,omitempty"`
	Location        string `json:"location,omitempty"`
	Email           string `json:"email,omitempty"`
	Hireable        bool   `json:"hireable,omitempty"`
	Bio             string `json:"bio,omitempty"`
	TwitterUsername string `json:"twitter_username,omitempty"`
	PublicRepos     int    `json:"public_repos"`
	PublicGists     int    `json:"public_gists"`
	Followers       int    `json:"followers"`
	Following       int    `json:"following"`
	CreatedAt       string `json:"created_at"`
	UpdatedAt       string `json:"updated_at"`
}

func minimalUser(u *APIUser) *MinimalUser {
	if u == nil {
		return nil
	}
	return &MinimalUser{Login: u.Login, ID: u.ID, ProfileURL: u.HTMLURL, AvatarURL: u.AvatarURL}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func renderGetMe(_ *mcpView, _ GetMeIn, u APIPrivateUser) (any, error) {
	m := minimalUser(&u.APIUser)
	m.Details = &UserDetails{
		Name: deref(u.Name), Company: deref(u.Company), Blog: u.Blog, Location: deref(u.Location),
		Email: deref(u.Email), Hireable: u.Hireable != nil && *u.Hireable, Bio: deref(u.Bio),
		TwitterUsername: deref(u.TwitterUsername), PublicRepos: u.PublicRepos, PublicGists: u.PublicGists,
		Followers: u.Followers, Following: u.Following, CreatedAt: u.CreatedAt, UpdatedAt: u.UpdatedAt,
	}
	return m, nil
}

// MinimalReactions is a reaction roll-up without its URL.
type MinimalReactions struct {
	TotalCount int `json:"total_count"`
	PlusOne    int `json:"+1"`
	MinusOne   int `json:"-1"`
	Laugh      int `json:"laugh"`
	Confused   int `json:"confused"`
	Heart      int `json:"heart"`
	Hooray     int `json:"hooray"`
	Rocket     int `json:"rocket"`
	Eyes       int `json:"eyes"`
}

func minimalReactions(r APIReactions) *MinimalReactions {
	return &MinimalReactions{TotalCount: r.TotalCount, PlusOne: r.PlusOne, MinusOne: r.MinusOne, Laugh: r.Laugh,
		Confused: r.Confused, Heart: r.Heart, Hooray: r.Hooray, Rocket: r.Rocket, Eyes: r.Eyes}
}

// MinimalIssue is an issue as issue_read and list_issues answer it.
type MinimalIssue struct {
	Number               int                     `json:"number"`
	Title                string                  `json:"title"`
	Body                 string                  `json:"body,omitempty"`
	State                string                  `json:"state"`
	StateReason          string                  `json:"state_reason,omitempty"`
	Draft                bool                    `json:"draft,omitempty"`
	Locked               bool                    `json:"locked,omitempty"`
	HTMLURL              string                  `json:"html_url,omitempty"`
	User                 *MinimalUser            `json:"user,omitempty"`
	AuthorAssociation    string                  `json:"author_association,omitempty"`
	Labels               []string                `json:"labels,omitempty"`
	Assignees            []string                `json:"assignees"`
	Milestone            string                  `json:"milestone,omitempty"`
	Comments             int                     `json:"comments,omitempty"`
	Reactions            *MinimalReactions       `json:"reactions,omitempty"`
	CreatedAt            string                  `json:"created_at,omitempty"`
	UpdatedAt            string                  `json:"updated_at,omitempty"`
	ClosedAt             string                  `json:"closed_at,omitempty"`
	ClosedBy             string                  `json:"closed_by,omitempty"`
	HasParent            *bool                   `json:"has_parent,omitempty"`
	HasChildren          *bool                   `json:"has_children,omitempty"`
	Parent               *MinimalIssueRef        `json:"parent,omitempty"`
	SubIssuesSummary     *MinimalSubIssues       `json:"sub_issues_summary,omitempty"`
	ClosedByPullRequests *MinimalClosingRequests `json:"closed_by_pull_requests,omitempty"`
}

// MinimalIssueRef names a related issue or pull request.
type MinimalIssueRef struct {
	Number     int    `json:"number"`
	Title      string `json:"title"`
	State      string `json:"state"`
	URL        string `json:"url"`
	Repository string `json:"repository,omitempty"`
}

// MinimalSubIssues counts an issue's sub-issues.
type MinimalSubIssues struct {
	Total            int `json:"total"`
	Completed        int `json:"completed"`
	PercentCompleted int `json:"percent_completed"`
}

// MinimalClosingRequests are the pull requests that close an issue.
type MinimalClosingRequests struct {
	TotalCount int               `json:"total_count"`
	References []MinimalIssueRef `json:"references"`
}

func mcpLabelNames(ls []APILabel) []string {
	var out []string
	for _, l := range ls {
		out = append(out, l.Name)
	}
	return out
}

func logins(us []APIUser) []string {
	var out []string
	for _, u := range us {
		out = append(out, u.Login)
	}
	return out
}

// minimalIssue is the REST-converted trimmed issue (issue_read get).
func minimalIssue(is APIIssue) MinimalIssue {
	m := MinimalIssue{
		Number: is.Number, Title: is.Title, Body: deref(is.Body), State: is.State, StateReason: deref(is.StateReason),
		Draft: is.Draft != nil && *is.Draft, Locked: is.Locked, HTMLURL: is.HTMLURL, User: minimalUser(is.User),
		AuthorAssociation: is.AuthorAssociation, Labels: mcpLabelNames(is.Labels), Assignees: logins(is.Assignees),
		Comments: is.Comments, Reactions: minimalReactions(is.Reactions), CreatedAt: is.CreatedAt, UpdatedAt: is.UpdatedAt,
		ClosedAt: deref(is.ClosedAt),
	}
	if m.Assignees == nil {
		m.Assignees = []string{}
	}
	if is.ClosedBy != nil {
		m.ClosedBy = is.ClosedBy.Login
	}
	if is.Milestone != nil {
		m.Milestone = is.Milestone.Title
	}
	return m
}

// MinimalIssuesPage is list_issues' answer.
type MinimalIssuesPage struct {
	Issues     []MinimalIssue  `json:"issues"`
	TotalCount int             `json:"totalCount"`
	PageInfo   MinimalPageInfo `json:"pageInfo"`
}

// MinimalPageInfo is GraphQL's page info.
type MinimalPageInfo struct {
	HasNextPage     bool   `json:"hasNextPage"`
	HasPreviousPage bool   `json:"hasPreviousPage"`
	StartCursor     string `json:"startCursor,omitempty"`
	EndCursor       string `json:"endCursor,omitempty"`
}

func renderListIssues(_ *mcpView, in ListIssuesIn, l *List[APIIssue]) (any, error) {
	page := MinimalIssuesPage{Issues: []MinimalIssue{}, TotalCount: l.TotalCount}
	for _, is := range l.Items {
		// github-mcp-server reads issues through GraphQL: upper-case
		// states, authors by login only, no URL, reactions or author
		// association.
		m := MinimalIssue{Number: is.Number, Title: is.Title, Body: deref(is.Body), State: strings.ToUpper(is.State),
			Labels: mcpLabelNames(is.Labels), Assignees: logins(is.Assignees), Comments: is.Comments,
			CreatedAt: is.CreatedAt, UpdatedAt: is.UpdatedAt}
		if m.Assignees == nil {
			m.Assignees = []string{}
		}
		if is.User != nil {
			m.User = &MinimalUser{Login: is.User.Login}
		}
		page.Issues = append(page.Issues, m)
	}
	page.PageInfo = MinimalPageInfo{HasNextPage: l.HasNext, HasPreviousPage: l.Page > 1}
	if len(l.Items) > 0 {
		page.PageInfo.StartCursor = pageCursor(l.Page)
		page.PageInfo.EndCursor = pageCursor(l.Page + 1)
	}
	if len(in.Fields) == 0 {
		return page, nil
	}
	items, err := pickEach(page.Issues, in.Fields)
	if err != nil {
		return nil, err
	}
	return struct {
		Issues     []map[string]any `json:"issues"`
		TotalCount int              `json:"totalCount"`
		PageInfo   MinimalPageInfo  `json:"pageInfo"`
	}{items, page.TotalCount, page.PageInfo}, nil
}

// MinimalIssueComment is an issue or pull request comment.
type MinimalIssueComment struct {
	ID                int64             `json:"id"`
	Body              string            `json:"body,omitempty"`
	HTMLURL           string            `json:"html_url"`
	User              *MinimalUser      `json:"user,omitempty"`
	AuthorAssociation string            `json:"author_association,omitempty"`
	Reactions         *MinimalReactions `json:"reactions,omitempty"`
	CreatedAt         string            `json:"created_at,omitempty"`
	UpdatedAt         string            `json:"updated_at,omitempty"`
}

func minimalComments(cs []APIIssueComment) []MinimalIssueComment {
	out := []MinimalIssueComment{}
	for _, c := range cs {
		out = append(out, MinimalIssueComment{ID: c.ID, Body: c.Body, HTMLURL: c.HTMLURL, User: minimalUser(c.User),
			AuthorAssociation: c.AuthorAssociation, Reactions: minimalReactions(c.Reactions), CreatedAt: c.CreatedAt, UpdatedAt: c.UpdatedAt})
	}
	return out
}

// MinimalLabel is a label as GraphQL names it.
type MinimalLabel struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Color       string `json:"color"`
	Description string `json:"description"`
}

func minimalLabel(l APILabel) MinimalLabel {
	return MinimalLabel{ID: l.NodeID, Name: l.Name, Color: l.Color, Description: l.Description}
}

func renderIssueRead(m *mcpView, in IssueReadIn, out any) (any, error) {
	switch o := out.(type) {
	case noParent:
		return map[string]any{"parent": nil}, nil
	case APIIssue:
		if in.Method == "get_parent" {
			return map[string]any{"parent": MinimalIssueRef{Number: o.Number, Title: o.Title, State: strings.ToUpper(o.State),
				URL: o.HTMLURL, Repository: repoOfURL(o.RepositoryURL)}}, nil
		}
		return m.issueWithRelations(in, minimalIssue(o)), nil
	case *List[APIIssueComment]:
		return minimalComments(o.Items), nil
	case *List[APILabel]:
		labels := []MinimalLabel{}
		for _, l := range o.Items {
			labels = append(labels, minimalLabel(l))
		}
		return struct {
			Labels     []MinimalLabel `json:"labels"`
			TotalCount int            `json:"totalCount"`
		}{labels, o.TotalCount}, nil
	case *List[APIIssue]:
		// Sub-issues are GitHub's REST issue objects.
		return eachWithoutNulls(o.Items)
	}
	return out, nil
}

// issueWithRelations adds issue_read get's hierarchy flags and the pull
// requests that close the issue.
func (m *mcpView) issueWithRelations(in IssueReadIn, mi MinimalIssue) MinimalIssue {
	r, is, err := m.w.issueOf(in.Owner, in.Repo, in.IssueNumber)
	if err != nil {
		return mi
	}
	pr, parent := m.w.parentOf(is)
	subs := m.w.subIssues(is)
	hasParent, hasChildren := parent != nil, len(subs) > 0
	mi.HasParent, mi.HasChildren = &hasParent, &hasChildren
	v := newView(m.ctx, m.w)
	if parent != nil {
		mi.Parent = &MinimalIssueRef{Number: parent.Number, Title: parent.Title, State: strings.ToUpper(parent.State),
			URL: fmt.Sprintf("%s/%s/issues/%d", v.html, pr.FullName(), parent.Number), Repository: pr.FullName()}
	}
	if hasChildren {
		done := 0
		for _, s := range subs {
			if s.issue.State == "closed" {
				done++
			}
		}
		mi.SubIssuesSummary = &MinimalSubIssues{Total: len(subs), Completed: done, PercentCompleted: done * 100 / len(subs)}
	}
	closing := &MinimalClosingRequests{References: []MinimalIssueRef{}}
	for _, p := range r.Issues {
		if p.Pull == nil || !closesIssue(p.Body, is.Number) {
			continue
		}
		closing.TotalCount++
		if len(closing.References) < 5 {
			state := strings.ToUpper(p.State)
			if p.Pull.Merged {
				state = "MERGED"
			}
			closing.References = append(closing.References, MinimalIssueRef{Number: p.Number, Title: p.Title, State: state,
				URL: fmt.Sprintf("%s/%s/pull/%d", v.html, r.FullName(), p.Number), Repository: r.FullName()})
		}
	}
	mi.ClosedByPullRequests = closing
	return mi
}

func renderAddIssueComment(m *mcpView, in AddIssueCommentIn, out any) (any, error) {
	switch o := out.(type) {
	case APIIssueComment:
		return minimalResponse(o.ID, o.HTMLURL), nil
	case *APIReaction:
		return m.reactionResponse(in, o), nil
	case CommentAndReaction:
		return map[string]MinimalResponse{"comment": minimalResponse(o.Comment.ID, o.Comment.HTMLURL), "reaction": m.reactionResponse(in, o.Reaction)}, nil
	}
	return out, nil
}

// reactionResponse names a reaction by its API URL, as
// github-mcp-server does.
func (m *mcpView) reactionResponse(in AddIssueCommentIn, rx *APIReaction) MinimalResponse {
	v := newView(m.ctx, m.w)
	base := fmt.Sprintf("%s/repos/%s/%s", v.api, in.Owner, in.Repo)
	if in.CommentID != 0 {
		return minimalResponse(rx.ID, fmt.Sprintf("%s/issues/comments/%d/reactions/%d", base, in.CommentID, rx.ID))
	}
	return minimalResponse(rx.ID, fmt.Sprintf("%s/issues/%d/reactions/%d", base, in.IssueNumber, rx.ID))
}

// MinimalFileWrite is create_or_update_file's answer.
type MinimalFileWrite struct {
	Content *MinimalFileContent `json:"content,omitempty"`
	Commit  *MinimalFileCommit  `json:"commit,omitempty"`
}

// MinimalFileContent names a written file.
type MinimalFileContent struct {
	Name    string `json:"name"`
	Path    string `json:"path"`
	SHA     string `json:"sha"`
	Size    int    `json:"size,omitempty"`
	HTMLURL string `json:"html_url"`
}

// MinimalFileCommit is the commit that wrote a file.
type MinimalFileCommit struct {
	SHA     string               `json:"sha"`
	Message string               `json:"message,omitempty"`
	HTMLURL string               `json:"html_url,omitempty"`
	Author  *MinimalCommitAuthor `json:"author,omitempty"`
}

func renderFileWrite(_ *mcpView, _ CreateOrUpdateFileIn, out APIContentWrite) (any, error) {
	m := MinimalFileWrite{Commit: &MinimalFileCommit{SHA: out.Commit.SHA, Message: out.Commit.Message, HTMLURL: out.Commit.HTMLURL,
		Author: minimalActor(out.Commit.Author)}}
	if c := out.Content; c != nil {
		m.Content = &MinimalFileContent{Name: c.Name, Path: c.Path, SHA: c.SHA, Size: c.Size, HTMLURL: c.HTMLURL}
	}
	return m, nil
}

// MinimalPullRequest is a pull request as list_pull_requests and
// pull_request_read get answer it.
type MinimalPullRequest struct {
	Number             int              `json:"number"`
	Title              string           `json:"title"`
	Body               string           `json:"body,omitempty"`
	State              string           `json:"state"`
	Draft              bool             `json:"draft"`
	Merged             bool             `json:"merged"`
	MergeableState     string           `json:"mergeable_state,omitempty"`
	HTMLURL            string           `json:"html_url"`
	User               *MinimalUser     `json:"user,omitempty"`
	Labels             []string         `json:"labels,omitempty"`
	Assignees          []string         `json:"assignees,omitempty"`
	RequestedReviewers []string         `json:"requested_reviewers,omitempty"`
	MergedBy           string           `json:"merged_by,omitempty"`
	Head               *MinimalPRBranch `json:"head,omitempty"`
	Base               *MinimalPRBranch `json:"base,omitempty"`
	Additions          int              `json:"additions,omitempty"`
	Deletions          int              `json:"deletions,omitempty"`
	ChangedFiles       int              `json:"changed_files,omitempty"`
	Commits            int              `json:"commits,omitempty"`
	Comments           int              `json:"comments,omitempty"`
	CreatedAt          string           `json:"created_at,omitempty"`
	UpdatedAt          string           `json:"updated_at,omitempty"`
	ClosedAt           string           `json:"closed_at,omitempty"`
	MergedAt           string           `json:"merged_at,omitempty"`
	Milestone          string           `json:"milestone,omitempty"`
}

// MinimalPRBranch is a pull request's head or base.
type MinimalPRBranch struct {
	Ref  string               `json:"ref"`
	SHA  string               `json:"sha"`
	Repo *MinimalPRBranchRepo `json:"repo,omitempty"`
}

// MinimalPRBranchRepo names the repository of a head or base.
type MinimalPRBranchRepo struct {
	FullName    string `json:"full_name"`
	Description string `json:"description,omitempty"`
}

func minimalBranchOf(b APIPullBranch) *MinimalPRBranch {
	out := &MinimalPRBranch{Ref: b.Ref, SHA: b.SHA}
	if b.Repo != nil {
		out.Repo = &MinimalPRBranchRepo{FullName: b.Repo.FullName, Description: deref(b.Repo.Description)}
	}
	return out
}

func minimalPull(p APIPullRequest) MinimalPullRequest {
	m := MinimalPullRequest{
		Number: p.Number, Title: p.Title, Body: deref(p.Body), State: p.State, Draft: p.Draft, Merged: p.Merged,
		MergeableState: p.MergeableState, HTMLURL: p.HTMLURL, User: minimalUser(p.User), Labels: mcpLabelNames(p.Labels),
		Assignees: logins(p.Assignees), RequestedReviewers: logins(p.RequestedReviewers),
		Head: minimalBranchOf(p.Head), Base: minimalBranchOf(p.Base), Additions: p.Additions, Deletions: p.Deletions,
		ChangedFiles: p.ChangedFiles, Commits: p.Commits, Comments: p.Comments, CreatedAt: p.CreatedAt, UpdatedAt: p.UpdatedAt,
		ClosedAt: deref(p.ClosedAt), MergedAt: deref(p.MergedAt),
	}
	if p.MergedBy != nil {
		m.MergedBy = p.MergedBy.Login
	}
	if p.Milestone != nil {
		m.Milestone = p.Milestone.Title
	}
	return m
}

func renderListPulls(_ *mcpView, in ListPullsIn, l *List[APIPullRequest]) (any, error) {
	items := []MinimalPullRequest{}
	for _, p := range l.Items {
		items = append(items, minimalPull(p))
	}
	if len(in.Fields) == 0 {
		return items, nil
	}
	return pickEach(items, in.Fields)
}

// MinimalPRFile is a changed file of a pull request.
type MinimalPRFile struct {
	Filename         string `json:"filename"`
	Status           string `json:"status,omitempty"`
	Additions        int    `json:"additions,omitempty"`
	Deletions        int    `json:"deletions,omitempty"`
	Changes          int    `json:"changes,omitempty"`
	Patch            string `json:"patch,omitempty"`
	PreviousFilename string `json:"previous_filename,omitempty"`
}

// MinimalCommitAuthor is a commit's author or committer.
type MinimalCommitAuthor struct {
	Name  string `json:"name,omitempty"`
	Email string `json:"email,omitempty"`
	Date  string `json:"date,omitempty"`
}

func minimalActor(a APIGitActor) *MinimalCommitAuthor {
	return &MinimalCommitAuthor{Name: a.Name, Email: a.Email, Date: a.Date}
}

// MinimalPullCommit is a commit of a pull request.
type MinimalPullCommit struct {
	SHA     string               `json:"sha"`
	HTMLURL string               `json:"html_url,omitempty"`
	Message string               `json:"message,omitempty"`
	Author  *MinimalCommitAuthor `json:"author,omitempty"`
}

// MinimalReview is a pull request review.
type MinimalReview struct {
	ID                int64        `json:"id"`
	State             string       `json:"state"`
	Body              string       `json:"body,omitempty"`
	HTMLURL           string       `json:"html_url"`
	User              *MinimalUser `json:"user,omitempty"`
	CommitID          string       `json:"commit_id,omitempty"`
	SubmittedAt       string       `json:"submitted_at,omitempty"`
	AuthorAssociation string       `json:"author_association,omitempty"`
}

// MinimalStatus is one commit status.
type MinimalStatus struct {
	State       string `json:"state"`
	Context     string `json:"context"`
	Description string `json:"description,omitempty"`
	TargetURL   string `json:"target_url,omitempty"`
	CreatedAt   string `json:"created_at,omitempty"`
	UpdatedAt   string `json:"updated_at,omitempty"`
}

// MinimalCombinedStatus is a commit's combined status.
type MinimalCombinedStatus struct {
	State      string          `json:"state"`
	SHA        string          `json:"sha"`
	TotalCount int             `json:"total_count"`
	Statuses   []MinimalStatus `json:"statuses"`
}

// MinimalCheckRun is one check run.
type MinimalCheckRun struct {
	ID          int64  `json:"id"`
	Name        string `json:"name"`
	Status      string `json:"status"`
	Conclusion  string `json:"conclusion,omitempty"`
	HTMLURL     string `json:"html_url,omitempty"`
	DetailsURL  string `json:"details_url,omitempty"`
	StartedAt   string `json:"started_at,omitempty"`
	CompletedAt string `json:"completed_at,omitempty"`
}

// MinimalReviewThreads is pull_request_read get_review_comments' answer:
// review comments grouped in threads.
type MinimalReviewThreads struct {
	ReviewThreads []MinimalReviewThread `json:"review_threads"`
	TotalCount    int                   `json:"totalCount"`
	PageInfo      MinimalPageInfo       `json:"pageInfo"`
}

// MinimalReviewThread is one thread of review comments.
type MinimalReviewThread struct {
	ID          string                 `json:"id"`
	IsResolved  bool                   `json:"is_resolved"`
	IsOutdated  bool                   `json:"is_outdated"`
	IsCollapsed bool                   `json:"is_collapsed"`
	Comments    []MinimalReviewComment `json:"comments"`
	TotalCount  int                    `json:"total_count"`
}

// MinimalReviewComment is one comment of a review thread.
type MinimalReviewComment struct {
	Body      string `json:"body,omitempty"`
	Path      string `json:"path"`
	Line      *int   `json:"line,omitempty"`
	Author    string `json:"author,omitempty"`
	CreatedAt string `json:"created_at,omitempty"`
	UpdatedAt string `json:"updated_at,omitempty"`
	HTMLURL   string `json:"html_url"`
}

func renderPullRead(_ *mcpView, in PullReadIn, out any) (any, error) {
	switch o := out.(type) {
	case APIPullRequest:
		return minimalPull(o), nil
	case *PullDiff:
		return &twins.MCPResult{Text: o.Diff}, nil
	case APICombinedStatus:
		return minimalCombined(o), nil
	case *APICombinedStatus:
		return minimalCombined(*o), nil
	case *List[APICommitFile]:
		files := []MinimalPRFile{}
		for _, f := range o.Items {
			files = append(files, MinimalPRFile{Filename: f.Filename, Status: f.Status, Additions: f.Additions, Deletions: f.Deletions,
				Changes: f.Changes, Patch: f.Patch, PreviousFilename: f.PreviousFilename})
		}
		return files, nil
	case *List[APICommit]:
		commits := []MinimalPullCommit{}
		for _, c := range o.Items {
			commits = append(commits, MinimalPullCommit{SHA: c.SHA, HTMLURL: c.HTMLURL, Message: c.Commit.Message, Author: minimalActor(c.Commit.Author)})
		}
		return commits, nil
	case *List[APIReview]:
		reviews := []MinimalReview{}
		for _, rv := range o.Items {
			reviews = append(reviews, MinimalReview{ID: rv.ID, State: rv.State, Body: rv.Body, HTMLURL: rv.HTMLURL, User: minimalUser(rv.User),
				CommitID: rv.CommitID, SubmittedAt: deref(rv.SubmittedAt), AuthorAssociation: rv.AuthorAssociation})
		}
		return reviews, nil
	case *List[APIReviewComment]:
		return reviewThreads(o.Items), nil
	case *List[APIIssueComment]:
		return minimalComments(o.Items), nil
	case APICheckRuns:
		return minimalCheckRuns(o), nil
	case *APICheckRuns:
		return minimalCheckRuns(*o), nil
	}
	return out, nil
}

// reviewThreads groups review comments into threads: a comment and its
// replies (in_reply_to_id) are one thread, as GitHub groups them.
func reviewThreads(cs []APIReviewComment) MinimalReviewThreads {
	out := MinimalReviewThreads{ReviewThreads: []MinimalReviewThread{}}
	index := map[int64]int{}
	for _, c := range cs {
		mc := MinimalReviewComment{Body: c.Body, Path: c.Path, Line: c.Line, CreatedAt: c.CreatedAt, UpdatedAt: c.UpdatedAt, HTMLURL: c.HTMLURL}
		if c.User != nil {
			mc.Author = c.User.Login
		}
		root := c.ID
		if c.InReplyToID != nil {
			root = *c.InReplyToID
		}
		i, ok := index[root]
		if !ok {
			i = len(out.ReviewThreads)
			index[root] = i
			out.ReviewThreads = append(out.ReviewThreads, MinimalReviewThread{ID: nodeID("PRRT", root), Comments: []MinimalReviewComment{}})
		}
		index[c.ID] = i
		t := &out.ReviewThreads[i]
		t.Comments = append(t.Comments, mc)
		t.TotalCount++
	}
	out.TotalCount = len(out.ReviewThreads)
	if out.TotalCount > 0 {
		out.PageInfo.StartCursor, out.PageInfo.EndCursor = pageCursor(1), pageCursor(out.TotalCount)
	}
	return out
}

func minimalCombined(s APICombinedStatus) MinimalCombinedStatus {
	out := MinimalCombinedStatus{State: s.State, SHA: s.SHA, TotalCount: s.TotalCount, Statuses: []MinimalStatus{}}
	for _, st := range s.Statuses {
		out.Statuses = append(out.Statuses, MinimalStatus{State: st.State, Context: st.Context, Description: deref(st.Description),
			TargetURL: deref(st.TargetURL), CreatedAt: st.CreatedAt, UpdatedAt: st.UpdatedAt})
	}
	return out
}

func minimalCheckRuns(rs APICheckRuns) any {
	runs := []MinimalCheckRun{}
	for _, c := range rs.CheckRuns {
		runs = append(runs, MinimalCheckRun{ID: c.ID, Name: c.Name, Status: c.Status, Conclusion: deref(c.Conclusion),
			HTMLURL: c.HTMLURL, DetailsURL: c.DetailsURL, StartedAt: c.StartedAt, CompletedAt: deref(c.CompletedAt)})
	}
	return struct {
		TotalCount int               `json:"total_count"`
		CheckRuns  []MinimalCheckRun `json:"check_runs"`
	}{rs.TotalCount, runs}
}

func renderFileContents(m *mcpView, in GetFileContentsIn, out any) (any, error) {
	switch o := out.(type) {
	case APIContent:
		return m.fileResource(in, o)
	case *List[APIContent]:
		// github-mcp-server reads a directory at the commit its ref
		// resolves to, so the entries' URLs name that commit.
		items := o.Items
		if r, err := m.w.repo(in.Owner, in.Repo); err == nil {
			ref := in.Ref
			if in.SHA != "" {
				ref = in.SHA
			}
			if c := r.resolve(ref); c != nil {
				v := newView(m.ctx, m.w)
				items = make([]APIContent, 0, len(o.Items))
				for _, e := range o.Items {
					items = append(items, v.contentEntry(r, c.SHA, e.Path, e.SHA, e.Type == "dir", false))
				}
			}
		}
		// go-github's content object has no _links.
		entries, err := eachWithoutNulls(items)
		if err != nil {
			return nil, err
		}
		for i, e := range entries {
			delete(e, "_links")
			if len(in.Fields) > 0 {
				entries[i] = pick(e, in.Fields)
			}
		}
		return entries, nil
	}
	return out, nil
}

// fileResource answers a file as github-mcp-server does: a line naming its
// blob sha, and its text (or bytes) as a resource addressed by the commit
// it was read at.
func (m *mcpView) fileResource(in GetFileContentsIn, c APIContent) (any, error) {
	data, err := base64.StdEncoding.DecodeString(strings.ReplaceAll(deref(c.Content), "\n", ""))
	if err != nil {
		return nil, err
	}
	ref := in.Ref
	if in.SHA != "" {
		ref = in.SHA
	}
	commit := ref
	if r, err := m.w.repo(in.Owner, in.Repo); err == nil {
		if cm := r.resolve(ref); cm != nil {
			commit = cm.SHA
		}
	}
	uri := fmt.Sprintf("repo://%s/%s/sha/%s/contents/%s", in.Owner, in.Repo, commit, strings.Trim(in.Path, "/"))
	res := &twins.MCPResource{URI: uri}
	kind := "text"
	switch ct := http.DetectContentType(data); {
	case len(data) == 0:
		kind, res.MIMEType = "empty", "text/plain"
	case strings.HasPrefix(ct, "text/") || ct == "application/json" || ct == "application/xml" ||
		strings.HasSuffix(ct, "+json") || strings.HasSuffix(ct, "+xml"):
		res.MIMEType, res.Text = ct, string(data)
	default:
		kind, res.MIMEType, res.Blob = "binary", ct, data
	}
	return &twins.MCPResult{Text: fmt.Sprintf("successfully downloaded %s file (SHA: %s)", kind, c.SHA), Resource: res}, nil
}

// MinimalBranch is a branch with its head sha.
type MinimalBranch struct {
	Name      string `json:"name"`
	SHA       string `json:"sha"`
	Protected bool   `json:"protected"`
}

func renderListBranches(_ *mcpView, _ RepoLabelsIn, l *List[APIBranchShort]) (any, error) {
	out := []MinimalBranch{}
	for _, b := range l.Items {
		out = append(out, MinimalBranch{Name: b.Name, SHA: b.Commit.SHA, Protected: b.Protected})
	}
	return out, nil
}

// MinimalTag is a tag with the sha it points at.
type MinimalTag struct {
	Name string `json:"name"`
	SHA  string `json:"sha"`
}

func renderListTags(_ *mcpView, _ RepoLabelsIn, l *List[APITag]) (any, error) {
	out := []MinimalTag{}
	for _, t := range l.Items {
		out = append(out, MinimalTag{Name: t.Name, SHA: t.Commit.SHA})
	}
	return out, nil
}

// MinimalRelease is a release.
type MinimalRelease struct {
	ID          int64        `json:"id"`
	TagName     string       `json:"tag_name"`
	Name        string       `json:"name,omitempty"`
	Body        string       `json:"body,omitempty"`
	HTMLURL     string       `json:"html_url"`
	PublishedAt string       `json:"published_at,omitempty"`
	Prerelease  bool         `json:"prerelease"`
	Draft       bool         `json:"draft"`
	Author      *MinimalUser `json:"author,omitempty"`
}

func renderListReleases(_ *mcpView, in ListReleasesIn, l *List[APIRelease]) (any, error) {
	out := []MinimalRelease{}
	for _, r := range l.Items {
		out = append(out, MinimalRelease{ID: r.ID, TagName: r.TagName, Name: deref(r.Name), Body: deref(r.Body), HTMLURL: r.HTMLURL,
			PublishedAt: deref(r.PublishedAt), Prerelease: r.Prerelease, Draft: r.Draft, Author: minimalUser(r.Author)})
	}
	if len(in.Fields) == 0 {
		return out, nil
	}
	return pickEach(out, in.Fields)
}

// MinimalCommit is a commit as list_commits, get_commit and search_commits
// answer it.
type MinimalCommit struct {
	SHA       string              `json:"sha"`
	HTMLURL   string              `json:"html_url"`
	Commit    *MinimalCommitInfo  `json:"commit,omitempty"`
	Author    *MinimalUser        `json:"author,omitempty"`
	Committer *MinimalUser        `json:"committer,omitempty"`
	Stats     *MinimalCommitStats `json:"stats,omitempty"`
	Files     []MinimalCommitFile `json:"files,omitempty"`
}

// MinimalCommitInfo is a commit's message, author and committer.
type MinimalCommitInfo struct {
	Message   string               `json:"message"`
	Author    *MinimalCommitAuthor `json:"author,omitempty"`
	Committer *MinimalCommitAuthor `json:"committer,omitempty"`
}

// MinimalCommitStats counts a commit's changed lines.
type MinimalCommitStats struct {
	Additions int `json:"additions,omitempty"`
	Deletions int `json:"deletions,omitempty"`
	Total     int `json:"total,omitempty"`
}

// MinimalCommitFile is a file a commit changed.
type MinimalCommitFile struct {
	Filename  string `json:"filename"`
	Status    string `json:"status,omitempty"`
	Additions int    `json:"additions,omitempty"`
	Deletions int    `json:"deletions,omitempty"`
	Changes   int    `json:"changes,omitempty"`
	Patch     string `json:"patch,omitempty"`
}

// minimalCommit trims a commit; detail is get_commit's (none, stats or
// full_patch).
func minimalCommit(c APICommit, detail string) MinimalCommit {
	m := MinimalCommit{SHA: c.SHA, HTMLURL: c.HTMLURL, Author: minimalUser(c.Author), Committer: minimalUser(c.Committer),
		Commit: &MinimalCommitInfo{Message: c.Commit.Message, Author: minimalActor(c.Commit.Author), Committer: minimalActor(c.Commit.Committer)}}
	if detail == "none" {
		return m
	}
	if c.Stats != nil {
		m.Stats = &MinimalCommitStats{Additions: c.Stats.Additions, Deletions: c.Stats.Deletions, Total: c.Stats.Total}
	}
	for _, f := range c.Files {
		mf := MinimalCommitFile{Filename: f.Filename, Status: f.Status, Additions: f.Additions, Deletions: f.Deletions, Changes: f.Changes}
		if detail == "full_patch" {
			mf.Patch = f.Patch
		}
		m.Files = append(m.Files, mf)
	}
	return m
}

func renderListCommits(_ *mcpView, in ListCommitsIn, l *List[APICommit]) (any, error) {
	out := []MinimalCommit{}
	for _, c := range l.Items {
		out = append(out, minimalCommit(c, "none"))
	}
	if len(in.Fields) == 0 {
		return out, nil
	}
	return pickEach(out, in.Fields)
}

func renderGetCommit(_ *mcpView, in GetCommitIn, c APICommit) (any, error) {
	detail := in.Detail
	if detail == "" {
		detail = "stats"
		if in.IncludeDiff != nil && !*in.IncludeDiff {
			detail = "none"
		}
	}
	return minimalCommit(c, detail), nil
}

// MinimalCollaborator is a collaborator with the role it holds.
type MinimalCollaborator struct {
	Login    string `json:"login"`
	ID       int64  `json:"id"`
	RoleName string `json:"role_name"`
}

func renderCollaborators(_ *mcpView, _ CollaboratorsIn, l *List[APICollaborator]) (any, error) {
	items := []MinimalCollaborator{}
	for _, c := range l.Items {
		items = append(items, MinimalCollaborator{Login: c.Login, ID: c.ID, RoleName: c.RoleName})
	}
	// github-mcp-server answers the page numbers of the REST Link header
	// (0 when there is none).
	next := 0
	if l.HasNext {
		next = l.Page + 1
	}
	return struct {
		Items     []MinimalCollaborator `json:"items"`
		NextPage  int                   `json:"nextPage"`
		PrevPage  int                   `json:"prevPage"`
		FirstPage int                   `json:"firstPage"`
		LastPage  int                   `json:"lastPage"`
	}{Items: items, NextPage: next, PrevPage: l.Page - 1, FirstPage: firstPage(l.Page), LastPage: lastPage(l.TotalCount, l.PerPage, l.HasNext)}, nil
}

func firstPage(page int) int {
	if page > 1 {
		return 1
	}
	return 0
}

func lastPage(total, perPage int, hasNext bool) int {
	if !hasNext || perPage <= 0 {
		return 0
	}
	return (total + perPage - 1) / perPage
}

// mcpSearchPage is a search answer whose items are trimmed or picked.
type mcpSearchPage[T any] struct {
	TotalCount        int  `json:"total_count"`
	IncompleteResults bool `json:"incomplete_results"`
	Items             []T  `json:"items"`
}

// searchIssuesAnswer answers issue and pull request search with GitHub's
// issue objects as go-github reads them (no nulls, no score); issue search
// adds the issue fields' values, which the twin does not model.
func searchIssuesAnswer(s *SearchResult[APISearchIssue], fields []string, issues bool) (any, error) {
	items := make([]map[string]any, 0, len(s.Items))
	for _, it := range s.Items {
		obj, err := withoutNulls(it.APIIssue)
		if err != nil {
			return nil, err
		}
		if issues {
			obj["field_values"] = []any{}
		}
		if len(fields) > 0 {
			obj = pick(obj, fields)
		}
		items = append(items, obj)
	}
	return mcpSearchPage[map[string]any]{s.TotalCount, s.IncompleteResults, items}, nil
}

// MinimalCodeResult is a code search hit.
type MinimalCodeResult struct {
	Name       string `json:"name"`
	Path       string `json:"path"`
	SHA        string `json:"sha"`
	Repository string `json:"repository"`
}

func renderSearchCode(_ *mcpView, in SearchCodeIn, s *SearchResult[APISearchCode]) (any, error) {
	items := []MinimalCodeResult{}
	for _, c := range s.Items {
		items = append(items, MinimalCodeResult{Name: c.Name, Path: c.Path, SHA: c.SHA, Repository: c.Repository.FullName})
	}
	if len(in.Fields) == 0 {
		return mcpSearchPage[MinimalCodeResult]{s.TotalCount, s.IncompleteResults, items}, nil
	}
	picked, err := pickEach(items, in.Fields)
	if err != nil {
		return nil, err
	}
	return mcpSearchPage[map[string]any]{s.TotalCount, s.IncompleteResults, picked}, nil
}

// MinimalRepository is a repository search hit (minimal_output, the
// default).
type MinimalRepository struct {
	ID            int64    `json:"id"`
	Name          string   `json:"name"`
	FullName      string   `json:"full_name"`
	Description   string   `json:"description,omitempty"`
	HTMLURL       string   `json:"html_url"`
	Language      string   `json:"language,omitempty"`
	Stars         int      `json:"stargazers_count"`
	Forks         int      `json:"forks_count"`
	OpenIssues    int      `json:"open_issues_count"`
	UpdatedAt     string   `json:"updated_at,omitempty"`
	CreatedAt     string   `json:"created_at,omitempty"`
	Topics        []string `json:"topics,omitempty"`
	Private       bool     `json:"private"`
	Fork          bool     `json:"fork"`
	Archived      bool     `json:"archived"`
	DefaultBranch string   `json:"default_branch,omitempty"`
}

func renderSearchRepositories(_ *mcpView, in SearchReposIn, s *SearchResult[APISearchRepository]) (any, error) {
	if in.MinimalOutput != nil && !*in.MinimalOutput {
		items := make([]map[string]any, 0, len(s.Items))
		for _, it := range s.Items {
			obj, err := withoutNulls(it.APIRepository)
			if err != nil {
				return nil, err
			}
			// go-github's repository has forks_count only.
			delete(obj, "forks")
			items = append(items, obj)
		}
		return mcpSearchPage[map[string]any]{s.TotalCount, s.IncompleteResults, items}, nil
	}
	items := []MinimalRepository{}
	for _, it := range s.Items {
		r := it.APIRepository
		items = append(items, MinimalRepository{ID: r.ID, Name: r.Name, FullName: r.FullName, Description: deref(r.Description),
			HTMLURL: r.HTMLURL, Language: deref(r.Language), Stars: r.StargazersCount, Forks: r.ForksCount, OpenIssues: r.OpenIssuesCount,
			UpdatedAt: r.UpdatedAt, CreatedAt: r.CreatedAt, Topics: r.Topics, Private: r.Private, Fork: r.Fork, Archived: r.Archived,
			DefaultBranch: r.DefaultBranch})
	}
	return mcpSearchPage[MinimalRepository]{s.TotalCount, s.IncompleteResults, items}, nil
}

func renderSearchUsers(_ *mcpView, _ SearchIn, s *SearchResult[APISearchUser]) (any, error) {
	items := []MinimalUser{}
	for _, u := range s.Items {
		items = append(items, *minimalUser(&u.APIUser))
	}
	return mcpSearchPage[MinimalUser]{s.TotalCount, s.IncompleteResults, items}, nil
}

// MinimalCommitSearchItem is a commit search hit with its repository.
type MinimalCommitSearchItem struct {
	MinimalCommit
	Repository *MinimalRepoRef `json:"repository,omitempty"`
}

// MinimalRepoRef names a repository.
type MinimalRepoRef struct {
	FullName string `json:"full_name"`
	HTMLURL  string `json:"html_url,omitempty"`
	Private  bool   `json:"private,omitempty"`
}

func renderSearchCommits(_ *mcpView, _ SearchIn, s *SearchResult[APISearchCommit]) (any, error) {
	items := []MinimalCommitSearchItem{}
	for _, c := range s.Items {
		items = append(items, MinimalCommitSearchItem{MinimalCommit: minimalCommit(c.APICommit, "none"),
			Repository: &MinimalRepoRef{FullName: c.Repository.FullName, HTMLURL: c.Repository.HTMLURL, Private: c.Repository.Private}})
	}
	return mcpSearchPage[MinimalCommitSearchItem]{s.TotalCount, s.IncompleteResults, items}, nil
}

// eachWithoutNulls is withoutNulls of every item.
func eachWithoutNulls[T any](items []T) ([]map[string]any, error) {
	out := make([]map[string]any, 0, len(items))
	for _, it := range items {
		obj, err := withoutNulls(it)
		if err != nil {
			return nil, err
		}
		out = append(out, obj)
	}
	return out, nil
}

// repoOfURL is owner/name of a repository's API URL.
func repoOfURL(u string) string {
	i := strings.LastIndex(u, "/repos/")
	if i < 0 {
		return ""
	}
	return u[i+len("/repos/"):]
}

// renderGetTag answers a tag as github-mcp-server does for a lightweight
// tag (every tag of the twin is one): its git reference.
func renderGetTag(m *mcpView, in TagIn, t APITag) (any, error) {
	r, err := m.w.repo(in.Owner, in.Repo)
	if err != nil {
		return nil, err
	}
	return newView(m.ctx, m.w).ref(r, "refs/tags/"+t.Name, t.Commit.SHA), nil
}

// withoutNulls is v's JSON object without its null members, at any depth:
// what a go-github object marshals to after GitHub's answer was decoded
// into it.
func withoutNulls(v any) (map[string]any, error) {
	obj, err := jsonObject(v)
	if err != nil {
		return nil, err
	}
	dropNulls(obj)
	return obj, nil
}

func dropNulls(v any) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if e == nil {
				delete(x, k)
				continue
			}
			dropNulls(e)
		}
	case []any:
		for _, e := range x {
			dropNulls(e)
		}
	}
}

func jsonObject(v any) (map[string]any, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var obj map[string]any
	if err := dec.Decode(&obj); err != nil {
		return nil, err
	}
	return obj, nil
}

// pick keeps the named members of obj (the fields parameter); names obj
// lacks (empty values left out) are skipped.
func pick(obj map[string]any, fields []string) map[string]any {
	out := make(map[string]any, len(fields))
	for _, f := range fields {
		if v, ok := obj[f]; ok {
			out[f] = v
		}
	}
	return out
}

// pickEach applies pick to every item.
func pickEach[T any](items []T, fields []string) ([]map[string]any, error) {
	out := make([]map[string]any, 0, len(items))
	for _, it := range items {
		obj, err := jsonObject(it)
		if err != nil {
			return nil, err
		}
		out = append(out, pick(obj, fields))
	}
	return out, nil
}
