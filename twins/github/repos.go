package github

import (
	"context"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/pomehq/pome/twins"
)

// APIRepoPermissions is the caller's access to a repository.
type APIRepoPermissions struct {
	Admin    bool `json:"admin"`
	Maintain bool `json:"maintain"`
	Push     bool `json:"push"`
	Triage   bool `json:"triage"`
	Pull     bool `json:"pull"`
}

// APIRepoSummary is the repository object nested as a fork's parent and
// source (a separate type, since a schema cannot nest itself).
type APIRepoSummary struct {
	ID            int64    `json:"id"`
	NodeID        string   `json:"node_id"`
	Name          string   `json:"name"`
	FullName      string   `json:"full_name"`
	Private       bool     `json:"private"`
	Owner         *APIUser `json:"owner"`
	HTMLURL       string   `json:"html_url"`
	Description   *string  `json:"description"`
	Fork          bool     `json:"fork"`
	URL           string   `json:"url"`
	DefaultBranch string   `json:"default_branch"`
}

// APIRepository is GitHub's full repository object.
type APIRepository struct {
	ID               int64    `json:"id"`
	NodeID           string   `json:"node_id"`
	Name             string   `json:"name"`
	FullName         string   `json:"full_name"`
	Private          bool     `json:"private"`
	Owner            *APIUser `json:"owner"`
	HTMLURL          string   `json:"html_url"`
	Description      *string  `json:"description"`
	Fork             bool     `json:"fork"`
	URL              string   `json:"url"`
	ArchiveURL       string   `json:"archive_url"`
	BranchesURL      string   `json:"branches_url"`
	CollaboratorsURL string   `json:"collaborators_url"`
	CommentsURL      string   `json:"comments_url"`
	CommitsURL       string   `json:"commits_url"`
	ContentsURL      string   `json:"contents_url"`
	ContributorsURL  string   `json:"contributors_url"`
	EventsURL        string   `json:"events_url"`
	ForksURL         string   `json:"forks_url"`
	GitRefsURL       string   `json:"git_refs_url"`
	IssuesURL        string   `json:"issues_url"`
	LabelsURL        string   `json:"labels_url"`
	MilestonesURL    string   `json:"milestones_url"`
	PullsURL         string   `json:"pulls_url"`
	ReleasesURL      string   `json:"releases_url"`
	StatusesURL      string   `json:"statuses_url"`
	TagsURL          string   `json:"tags_url"`
	AssigneesURL     string   `json:"assignees_url"`
	BlobsURL         string   `json:"blobs_url"`
	CompareURL       string   `json:"compare_url"`
	DeploymentsURL   string   `json:"deployments_url"`
	DownloadsURL     string   `json:"downloads_url"`
	GitCommitsURL    string   `json:"git_commits_url"`
	GitTagsURL       string   `json:"git_tags_url"`
	HooksURL         string   `json:"hooks_url"`
	IssueCommentURL  string   `json:"issue_comment_url"`
	IssueEventsURL   string   `json:"issue_events_url"`
	KeysURL          string   `json:"keys_url"`
	LanguagesURL     string   `json:"languages_url"`
	MergesURL        string   `json:"merges_url"`
	NotificationsURL string   `json:"notifications_url"`
	StargazersURL    string   `json:"stargazers_url"`
	SubscribersURL   string   `json:"subscribers_url"`
	SubscriptionURL  string   `json:"subscription_url"`
	TeamsURL         string   `json:"teams_url"`
	TreesURL         string   `json:"trees_url"`
	CloneURL         string   `json:"clone_url"`
	GitURL           string   `json:"git_url"`
	SSHURL           string   `json:"ssh_url"`
	SvnURL           string   `json:"svn_url"`
	MirrorURL        *string  `json:"mirror_url"`
	Homepage         *string  `json:"homepage"`
	Language         *string  `json:"language"`
	// License is null: the twin detects no licenses.
	License          *struct{}          `json:"license"`
	ForksCount       int                `json:"forks_count"`
	StargazersCount  int                `json:"stargazers_count"`
	WatchersCount    int                `json:"watchers_count"`
	Size             int                `json:"size"`
	DefaultBranch    string             `json:"default_branch"`
	OpenIssuesCount  int                `json:"open_issues_count"`
	IsTemplate       bool               `json:"is_template"`
	Topics           []string           `json:"topics"`
	HasIssues        bool               `json:"has_issues"`
	HasProjects      bool               `json:"has_projects"`
	HasWiki          bool               `json:"has_wiki"`
	HasPages         bool               `json:"has_pages"`
	HasDownloads     bool               `json:"has_downloads"`
	HasDiscussions   bool               `json:"has_discussions"`
	AllowRebaseMerge bool               `json:"allow_rebase_merge"`
	AllowSquashMerge bool               `json:"allow_squash_merge"`
	AllowMergeCommit bool               `json:"allow_merge_commit"`
	Archived         bool               `json:"archived"`
	Disabled         bool               `json:"disabled"`
	Visibility       string             `json:"visibility"`
	PushedAt         string             `json:"pushed_at"`
	CreatedAt        string             `json:"created_at"`
	UpdatedAt        string             `json:"updated_at"`
	Permissions      APIRepoPermissions `json:"permissions"`
	AllowForking     bool               `json:"allow_forking"`
	Forks            int                `json:"forks"`
	OpenIssues       int                `json:"open_issues"`
	Watchers         int                `json:"watchers"`
	Parent           *APIRepoSummary    `json:"parent,omitempty"`
	Source           *APIRepoSummary    `json:"source,omitempty"`
}

func (v *view) repoSummary(r *Repo) *APIRepoSummary {
	return &APIRepoSummary{ID: r.ID, NodeID: nodeID("R", r.ID), Name: r.Name, FullName: r.FullName(), Private: r.Private,
		Owner: v.user(r.Owner), HTMLURL: v.html + "/" + r.FullName(), Description: strPtr(r.Description), Fork: r.Fork,
		URL: v.repoURL(r), DefaultBranch: r.DefaultBranch}
}

func (v *view) repository(r *Repo) APIRepository {
	u := v.repoURL(r)
	open, forks := 0, 0
	for _, is := range r.Issues {
		if is.State == "open" {
			open++
		}
	}
	for _, x := range v.w.Repos {
		if x.Parent == r.FullName() && v.w.visible(x) {
			forks++
		}
	}
	vis := "public"
	if r.Private {
		vis = "private"
	}
	canPush := r.isCollaborator(v.w.Me) || v.w.orgMember(r.Owner, v.w.Me)
	out := APIRepository{
		ID: r.ID, NodeID: nodeID("R", r.ID), Name: r.Name, FullName: r.FullName(), Private: r.Private,
		Owner: v.user(r.Owner), HTMLURL: v.html + "/" + r.FullName(), Description: strPtr(r.Description), Fork: r.Fork, URL: u,
		ArchiveURL: u + "/{archive_format}{/ref}", BranchesURL: u + "/branches{/branch}", CollaboratorsURL: u + "/collaborators{/collaborator}",
		CommentsURL: u + "/comments{/number}", CommitsURL: u + "/commits{/sha}", ContentsURL: u + "/contents/{+path}",
		ContributorsURL: u + "/contributors", EventsURL: u + "/events", ForksURL: u + "/forks", GitRefsURL: u + "/git/refs{/sha}",
		IssuesURL: u + "/issues{/number}", LabelsURL: u + "/labels{/name}", MilestonesURL: u + "/milestones{/number}",
		PullsURL: u + "/pulls{/number}", ReleasesURL: u + "/releases{/id}", StatusesURL: u + "/statuses/{sha}", TagsURL: u + "/tags",
		AssigneesURL: u + "/assignees{/user}", BlobsURL: u + "/git/blobs{/sha}", CompareURL: u + "/compare/{base}...{head}",
		DeploymentsURL: u + "/deployments", DownloadsURL: u + "/downloads", GitCommitsURL: u + "/git/commits{/sha}", GitTagsURL: u + "/git/tags{/sha}",
		HooksURL: u + "/hooks", IssueCommentURL: u + "/issues/comments{/number}", IssueEventsURL: u + "/issues/events{/number}",
		KeysURL: u + "/keys{/key_id}", LanguagesURL: u + "/languages", MergesURL: u + "/merges",
		NotificationsURL: u + "/notifications{?since,all,participating}", StargazersURL: u + "/stargazers", SubscribersURL: u + "/subscribers",
		SubscriptionURL: u + "/subscription", TeamsURL: u + "/teams", TreesURL: u + "/git/trees{/sha}",
		SvnURL: "https://svn.github.com/" + r.FullName(), AllowRebaseMerge: true, AllowSquashMerge: true, AllowMergeCommit: true,
		CloneURL: v.html + "/" + r.FullName() + ".git", GitURL: "git://github.com/" + r.FullName() + ".git", SSHURL: "git@github.com:" + r.FullName() + ".git",
		ForksCount: forks, DefaultBranch: r.DefaultBranch, OpenIssuesCount: open, Topics: append([]string{}, r.Topics...),
		HasIssues: true, HasProjects: true, HasWiki: true, HasDownloads: true, Visibility: vis,
		PushedAt: ts(r.PushedAt), CreatedAt: ts(r.CreatedAt), UpdatedAt: ts(r.UpdatedAt),
		Permissions:  APIRepoPermissions{Admin: strings.EqualFold(r.Owner, v.w.Me), Maintain: canPush, Push: canPush, Triage: canPush, Pull: true},
		AllowForking: true, Forks: forks, OpenIssues: open,
	}
	if r.Parent != "" {
		owner, name, _ := strings.Cut(r.Parent, "/")
		// A parent the user may not see is left out, not named.
		if p, err := v.w.repo(owner, name); err == nil {
			out.Parent, out.Source = v.repoSummary(p), v.repoSummary(p)
		}
	}
	return out
}

var getRepository = twins.New(twins.Spec{
	Name: "get_repository", Title: "Get a repository",
	Description: "Get a GitHub repository's details: owner, visibility, default branch, counts and permissions.",
	Effect:      twins.Read,
	Bindings:    []twins.Binding{{Method: "GET", Path: "/repos/{owner}/{repo}"}},
}, func(ctx context.Context, w *World, in RepoRef) (APIRepository, error) {
	r, err := w.repo(in.Owner, in.Repo)
	if err != nil {
		return APIRepository{}, err
	}
	return newView(ctx, w).repository(r), nil
})

// ListReposIn is list_repositories' input: an organization's, a user's or
// (with neither) the authenticated user's repositories.
type ListReposIn struct {
	Org       string `json:"org,omitempty" jsonschema:"Organization whose repositories to list"`
	Username  string `json:"username,omitempty" jsonschema:"User whose repositories to list"`
	Type      string `json:"type,omitempty" jsonschema:"all, public, private, forks, sources, member or owner" enum:"all,public,private,forks,sources,member,owner"`
	Sort      string `json:"sort,omitempty" jsonschema:"created, updated, pushed or full_name (default)" enum:"created,updated,pushed,full_name"`
	Direction string `json:"direction,omitempty" jsonschema:"asc or desc" enum:"asc,desc"`
	Paging
}

var listRepositories = twins.New(twins.Spec{
	Name: "list_repositories", Title: "List repositories",
	Description: "List the repositories of an organization (org), of a user (username) or, with neither, those the authenticated user can access.",
	Effect:      twins.Read,
	Bindings: []twins.Binding{
		{Method: "GET", Path: "/orgs/{org}/repos", Rename: perPageRename, Shape: restShape, Headers: linkHeaders},
		{Method: "GET", Path: "/users/{username}/repos", Rename: perPageRename, Shape: restShape, Headers: linkHeaders},
		{Method: "GET", Path: "/user/repos", Rename: perPageRename, Shape: restShape, Headers: linkHeaders},
	},
}, func(ctx context.Context, w *World, in ListReposIn) (*List[APIRepository], error) {
	path := "/user/repos"
	switch {
	case in.Org != "":
		if w.org(in.Org) == nil {
			return nil, notFound("organization %s not found", in.Org)
		}
		path = "/orgs/" + in.Org + "/repos"
	case in.Username != "":
		if w.user(in.Username) == nil && w.org(in.Username) == nil {
			return nil, notFound("user %s not found", in.Username)
		}
		path = "/users/" + in.Username + "/repos"
	}
	var repos []*Repo
	for _, r := range w.visibleRepos() {
		switch {
		case in.Org != "":
			if !strings.EqualFold(r.Owner, in.Org) {
				continue
			}
		case in.Username != "":
			if !strings.EqualFold(r.Owner, in.Username) {
				continue
			}
		default:
			if !strings.EqualFold(r.Owner, w.Me) && !r.isCollaborator(w.Me) && !w.orgMember(r.Owner, w.Me) {
				continue
			}
		}
		switch in.Type {
		case "public":
			if r.Private {
				continue
			}
		case "private":
			if !r.Private {
				continue
			}
		case "forks":
			if !r.Fork {
				continue
			}
		case "sources":
			if r.Fork {
				continue
			}
		case "owner":
			if !strings.EqualFold(r.Owner, w.Me) {
				continue
			}
		}
		repos = append(repos, r)
	}
	sortBy := in.Sort
	if sortBy == "" {
		sortBy = "full_name"
	}
	dir := in.Direction
	if dir == "" {
		dir = "desc"
		if sortBy == "full_name" {
			dir = "asc"
		}
	}
	sort.SliceStable(repos, func(i, j int) bool {
		a, b := repos[i], repos[j]
		var less bool
		switch sortBy {
		case "created":
			less = a.CreatedAt.Before(b.CreatedAt) || a.CreatedAt.Equal(b.CreatedAt) && a.ID < b.ID
		case "updated":
			less = a.UpdatedAt.Before(b.UpdatedAt) || a.UpdatedAt.Equal(b.UpdatedAt) && a.ID < b.ID
		case "pushed":
			less = a.PushedAt.Before(b.PushedAt) || a.PushedAt.Equal(b.PushedAt) && a.ID < b.ID
		default:
			less = strings.ToLower(a.FullName()) < strings.ToLower(b.FullName())
		}
		if dir == "desc" {
			return !less
		}
		return less
	})
	v := newView(ctx, w)
	items := make([]APIRepository, 0, len(repos))
	for _, r := range repos {
		items = append(items, v.repository(r))
	}
	q := url.Values{}
	for k, val := range map[string]string{"type": in.Type, "sort": in.Sort, "direction": in.Direction} {
		if val != "" {
			q.Set(k, val)
		}
	}
	return newList(ctx, items, in.Paging, path, q), nil
})

// CreateRepositoryIn is create_repository's input (github-mcp-server's
// names; REST's auto_init and {org} are renamed onto them).
type CreateRepositoryIn struct {
	Name         string `json:"name" jsonschema:"Repository name"`
	Description  string `json:"description,omitempty" jsonschema:"Repository description"`
	Private      *bool  `json:"private,omitempty" jsonschema:"Whether the repository should be private; when omitted, private over MCP (github-mcp-server's default) and public over REST (GitHub's)"`
	AutoInit     bool   `json:"autoInit,omitempty" jsonschema:"Initialize with a README"`
	Organization string `json:"organization,omitempty" jsonschema:"Organization to create the repository in (omit for your personal account)"`
}

var createRepository = twins.New(twins.Spec{
	Name: "create_repository", Title: "Create repository",
	Description: "Create a new GitHub repository in your account or in an organization you belong to.",
	Effect:      twins.Write,
	Bindings: []twins.Binding{
		{Method: "POST", Path: "/user/repos", Status: 201, Rename: map[string]string{"auto_init": "autoInit"}},
		{Method: "POST", Path: "/orgs/{org}/repos", Status: 201, Rename: map[string]string{"auto_init": "autoInit", "org": "organization"}},
	},
}, func(ctx context.Context, w *World, in CreateRepositoryIn) (APIRepository, error) {
	owner := w.Me
	if in.Organization != "" {
		o := w.org(in.Organization)
		if o == nil {
			return APIRepository{}, notFound("organization %s not found", in.Organization)
		}
		if !containsFold(o.Members, w.Me) {
			return APIRepository{}, twins.Errorf(twins.Forbidden, "forbidden", "%s is not a member of %s", w.Me, o.Login)
		}
		owner = o.Login
	}
	if !repoRE.MatchString(in.Name) {
		return APIRepository{}, invalid("Repository", "name", "missing_field", "repository name %q is missing or invalid", in.Name)
	}
	if r, _ := w.repoIndex(owner, in.Name); r != nil {
		return APIRepository{}, invalid("Repository", "name", "custom", "name already exists on this account")
	}
	now := twins.EnvFrom(ctx).Now().UTC()
	r := emptyRepo(w, owner, in.Name, now)
	r.Description = in.Description
	if in.Private != nil {
		r.Private = *in.Private
	} else {
		// github-mcp-server creates private repositories unless told
		// otherwise; GitHub's REST API creates public ones.
		r.Private = twins.TransportFrom(ctx) == twins.TransportMCP
	}
	if in.Organization == "" {
		r.Collaborators = []string{}
	}
	tree := map[string]string{}
	if in.AutoInit {
		tree["README.md"] = r.putBlob([]byte("# " + in.Name + "\n" + descLine(in.Description)))
	}
	c := r.addCommit(tree, []string{}, "Initial commit", w.Me, now)
	r.Branches = append(r.Branches, &Branch{Name: r.DefaultBranch, SHA: c.SHA})
	w.Repos = append(w.Repos, r)
	return newView(ctx, w).repository(r), nil
})

func descLine(d string) string {
	if d == "" {
		return ""
	}
	return "\n" + d + "\n"
}

// emptyRepo makes a repository with every collection initialised.
func emptyRepo(w *World, owner, name string, now time.Time) *Repo {
	t := now.UTC()
	return &Repo{
		ID: w.nextID(), Owner: owner, Name: name, DefaultBranch: "main", Topics: []string{},
		CreatedAt: t, UpdatedAt: t, PushedAt: t,
		Collaborators: []string{}, Labels: defaultLabels(w), Milestones: []*Milestone{}, Issues: []*Issue{}, NextNumber: 1,
		Branches: []*Branch{}, Commits: []*Commit{}, Blobs: map[string][]byte{},
		Statuses: []*Status{}, CheckRuns: []*CheckRun{}, Tags: []*Tag{}, Releases: []*Release{},
		issuesSorted: true, commentIssue: map[int64]int32{},
	}
}

// defaultLabels are the labels GitHub puts in every new repository.
func defaultLabels(w *World) []*Label {
	defs := [][3]string{
		{"bug", "d73a4a", "Something isn't working"},
		{"documentation", "0075ca", "Improvements or additions to documentation"},
		{"duplicate", "cfd3d7", "This issue or pull request already exists"},
		{"enhancement", "a2eeef", "New feature or request"},
		{"good first issue", "7057ff", "Good for newcomers"},
		{"help wanted", "008672", "Extra attention is needed"},
		{"invalid", "e4e669", "This doesn't seem right"},
		{"question", "d876e3", "Further information is requested"},
		{"wontfix", "ffffff", "This will not be worked on"},
	}
	out := make([]*Label, 0, len(defs))
	for _, d := range defs {
		out = append(out, &Label{ID: w.nextID(), Name: d[0], Color: d[1], Description: d[2], Default: true})
	}
	return out
}

// ForkIn is fork_repository's input.
type ForkIn struct {
	RepoRef
	Organization      string `json:"organization,omitempty" jsonschema:"Organization to fork into (default: your account)"`
	Name              string `json:"name,omitempty" jsonschema:"Name of the fork (default: the repository's name)"`
	DefaultBranchOnly bool   `json:"default_branch_only,omitempty" jsonschema:"Fork only the default branch"`
}

var forkRepository = twins.New(twins.Spec{
	Name: "fork_repository", Title: "Fork repository",
	Description: "Fork a GitHub repository to your account or an organization. The fork has the repository's branches and history, not its issues.",
	Effect:      twins.Write,
	Bindings:    []twins.Binding{{Method: "POST", Path: "/repos/{owner}/{repo}/forks", Status: 202}},
}, func(ctx context.Context, w *World, in ForkIn) (APIRepository, error) {
	src, err := w.repo(in.Owner, in.Repo)
	if err != nil {
		return APIRepository{}, err
	}
	owner := w.Me
	if in.Organization != "" {
		o := w.org(in.Organization)
		if o == nil {
			return APIRepository{}, notFound("organization %s not found", in.Organization)
		}
		// As for create_repository: only a member may fork into an
		// organization, which also keeps its hidden repositories' names
		// from answering "name already exists".
		if !containsFold(o.Members, w.Me) {
			return APIRepository{}, twins.Errorf(twins.Forbidden, "forbidden", "%s is not a member of %s", w.Me, o.Login)
		}
		owner = o.Login
	}
	name := in.Name
	if name == "" {
		name = src.Name
	}
	if existing, _ := w.repoIndex(owner, name); existing != nil {
		if existing.Parent == src.FullName() {
			// GitHub answers an existing fork with the fork itself.
			twins.Unchanged(ctx)
			return newView(ctx, w).repository(existing), nil
		}
		return APIRepository{}, invalid("Repository", "name", "custom", "name already exists on this account")
	}
	if strings.EqualFold(owner, src.Owner) && strings.EqualFold(name, src.Name) {
		return APIRepository{}, invalid("Repository", "name", "custom", "cannot fork a repository onto itself")
	}
	now := twins.EnvFrom(ctx).Now().UTC()
	r := emptyRepo(w, owner, name, now)
	r.Labels = []*Label{}
	for _, l := range src.Labels {
		r.Labels = append(r.Labels, &Label{ID: w.nextID(), Name: l.Name, Color: l.Color, Description: l.Description, Default: l.Default})
	}
	r.Description, r.Private, r.Fork, r.Parent, r.DefaultBranch = src.Description, src.Private, true, src.FullName(), src.DefaultBranch
	for sha, b := range src.Blobs {
		r.Blobs[sha] = b
	}
	for _, c := range src.Commits {
		cc := *c
		cc.Tree = copyTree(c.Tree)
		cc.Parents = append([]string{}, c.Parents...)
		r.Commits = append(r.Commits, &cc)
	}
	for _, b := range src.Branches {
		if in.DefaultBranchOnly && b.Name != src.DefaultBranch {
			continue
		}
		r.Branches = append(r.Branches, &Branch{Name: b.Name, SHA: b.SHA})
	}
	for _, t := range src.Tags {
		r.Tags = append(r.Tags, &Tag{Name: t.Name, SHA: t.SHA})
	}
	w.Repos = append(w.Repos, r)
	return newView(ctx, w).repository(r), nil
})

// APICollaborator is a user with their permissions on a repository.
type APICollaborator struct {
	APIUser
	Permissions APIRepoPermissions `json:"permissions"`
	RoleName    string             `json:"role_name"`
}

// CollaboratorsIn is list_repository_collaborators' input.
type CollaboratorsIn struct {
	RepoRef
	Affiliation string `json:"affiliation,omitempty" jsonschema:"outside, direct or all (default)" enum:"outside,direct,all"`
	Paging
}

var listRepositoryCollaborators = twins.New(twins.Spec{
	Name: "list_repository_collaborators", Title: "List repository collaborators",
	Description: "List the users who can push to a repository (its collaborators and, for a user repository, its owner).",
	Effect:      twins.Read,
	Bindings:    []twins.Binding{{Method: "GET", Path: "/repos/{owner}/{repo}/collaborators", Rename: perPageRename, Shape: restShape, Headers: linkHeaders}},
}, func(ctx context.Context, w *World, in CollaboratorsIn) (*List[APICollaborator], error) {
	r, err := w.repo(in.Owner, in.Repo)
	if err != nil {
		return nil, err
	}
	v := newView(ctx, w)
	var logins []string
	if w.user(r.Owner) != nil {
		logins = append(logins, w.user(r.Owner).Login)
	}
	for _, c := range r.Collaborators {
		if !containsFold(logins, c) {
			logins = append(logins, c)
		}
	}
	items := []APICollaborator{}
	for _, l := range logins {
		outside := !w.orgMember(r.Owner, l) && !strings.EqualFold(r.Owner, l)
		if in.Affiliation == "outside" && !outside {
			continue
		}
		role := "write"
		perm := APIRepoPermissions{Push: true, Triage: true, Pull: true}
		if strings.EqualFold(r.Owner, l) {
			role = "admin"
			perm = APIRepoPermissions{Admin: true, Maintain: true, Push: true, Triage: true, Pull: true}
		}
		items = append(items, APICollaborator{APIUser: *v.user(l), Permissions: perm, RoleName: role})
	}
	return newList(ctx, items, in.Paging, "/repos/"+r.FullName()+"/collaborators", nil), nil
})

// CollaboratorIn addresses one collaborator.
type CollaboratorIn struct {
	RepoRef
	Username   string `json:"username" jsonschema:"The user's login"`
	Permission string `json:"permission,omitempty" jsonschema:"pull, triage, push, maintain or admin (add only)" enum:"pull,triage,push,maintain,admin"`
}

var checkCollaborator = twins.New(twins.Spec{
	Name: "check_repository_collaborator", Title: "Check if a user is a repository collaborator",
	Description: "Answer whether a user is a collaborator of a repository (404 when not).",
	Effect:      twins.Read,
	Bindings:    []twins.Binding{{Method: "GET", Path: "/repos/{owner}/{repo}/collaborators/{username}", Status: 204, Shape: noBody}},
}, func(ctx context.Context, w *World, in CollaboratorIn) (*CollaboratorCheck, error) {
	r, err := w.repo(in.Owner, in.Repo)
	if err != nil {
		return nil, err
	}
	if !r.isCollaborator(in.Username) {
		return nil, notFound("%s is not a collaborator of %s", in.Username, r.FullName())
	}
	return &CollaboratorCheck{Collaborator: true}, nil
})

// CollaboratorCheck is check_repository_collaborator's MCP answer.
type CollaboratorCheck struct {
	Collaborator bool `json:"collaborator"`
}

var addCollaborator = twins.New(twins.Spec{
	Name: "add_repository_collaborator", Title: "Add a repository collaborator",
	Description: "Add a user as a collaborator of a repository. The twin skips GitHub's invitation step: the user can be assigned at once.",
	Effect:      twins.Write,
	Bindings:    []twins.Binding{{Method: "PUT", Path: "/repos/{owner}/{repo}/collaborators/{username}", Status: 204, Shape: noBody}},
}, func(ctx context.Context, w *World, in CollaboratorIn) (*CollaboratorCheck, error) {
	r, err := w.repo(in.Owner, in.Repo)
	if err != nil {
		return nil, err
	}
	u := w.user(in.Username)
	if u == nil {
		return nil, notFound("user %s not found", in.Username)
	}
	switch in.Permission {
	case "", "pull", "triage", "push", "maintain", "admin":
	default:
		return nil, invalid("Collaborator", "permission", "invalid", "permission must be pull, triage, push, maintain or admin")
	}
	if r.isCollaborator(u.Login) {
		twins.Unchanged(ctx)
	} else {
		r.Collaborators = append(r.Collaborators, u.Login)
	}
	return &CollaboratorCheck{Collaborator: true}, nil
})

// APIPrivateUser is GET /user and GET /users/{username}'s user object.
type APIPrivateUser struct {
	APIUser
	Name            *string `json:"name"`
	Company         *string `json:"company"`
	Blog            string  `json:"blog"`
	Location        *string `json:"location"`
	Email           *string `json:"email"`
	Hireable        *bool   `json:"hireable"`
	Bio             *string `json:"bio"`
	TwitterUsername *string `json:"twitter_username"`
	PublicRepos     int     `json:"public_repos"`
	PublicGists     int     `json:"public_gists"`
	Followers       int     `json:"followers"`
	Following       int     `json:"following"`
	CreatedAt       string  `json:"created_at"`
	UpdatedAt       string  `json:"updated_at"`
}

func (v *view) fullUser(login string) (APIPrivateUser, bool) {
	out := APIPrivateUser{Blog: ""}
	public := 0
	for _, r := range v.w.Repos {
		if strings.EqualFold(r.Owner, login) && !r.Private {
			public++
		}
	}
	if u := v.w.user(login); u != nil {
		out.APIUser = *v.user(u.Login)
		out.Name, out.Company, out.Location, out.Email, out.Bio = strPtr(u.Name), strPtr(u.Company), strPtr(u.Location), strPtr(u.Email), strPtr(u.Bio)
		out.CreatedAt, out.UpdatedAt = ts(u.CreatedAt), ts(u.CreatedAt)
	} else if o := v.w.org(login); o != nil {
		out.APIUser = *v.user(o.Login)
		out.Name = strPtr(o.Name)
		out.CreatedAt, out.UpdatedAt = ts(o.CreatedAt), ts(o.CreatedAt)
	} else {
		return out, false
	}
	out.PublicRepos = public
	return out, true
}

// GetMeIn is get_me's (empty) input.
type GetMeIn struct{}

var getMe = twins.New(twins.Spec{
	Name: "get_me", Title: "Get my user profile",
	Description: "Get details of the authenticated GitHub user.",
	Effect:      twins.Read,
	Bindings:    []twins.Binding{{Method: "GET", Path: "/user"}},
}, func(ctx context.Context, w *World, in GetMeIn) (APIPrivateUser, error) {
	u, _ := newView(ctx, w).fullUser(w.Me)
	return u, nil
})

// GetUserIn is get_user's input.
type GetUserIn struct {
	Username string `json:"username" jsonschema:"The user's (or organization's) login"`
}

var getUser = twins.New(twins.Spec{
	Name: "get_user", Title: "Get a user",
	Description: "Get a GitHub user's (or organization's) public profile by login.",
	Effect:      twins.Read,
	Bindings:    []twins.Binding{{Method: "GET", Path: "/users/{username}"}},
}, func(ctx context.Context, w *World, in GetUserIn) (APIPrivateUser, error) {
	u, ok := newView(ctx, w).fullUser(in.Username)
	if !ok {
		return APIPrivateUser{}, notFound("user %s not found", in.Username)
	}
	return u, nil
})
