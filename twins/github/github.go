package github

import (
	"strconv"
	"time"

	"github.com/pomehq/pome/twins"
)

// New returns the GitHub twin: its actions (github-mcp-server tool names,
// bound to GitHub's REST paths), its checks and its world.
func New() *twins.Twin {
	newWorldFn, decodeJSON := twins.WorldCodec(newWorld)
	// A decoded world gets the indexes the state document leaves out.
	decode := func(data []byte) (any, error) {
		w, err := decodeJSON(data)
		if err != nil {
			return nil, err
		}
		w.(*World).indexIssues()
		return w, nil
	}
	return (&twins.Twin{
		Name:        "github",
		Title:       "GitHub",
		Actions:     Actions(),
		Checks:      checks(),
		NewWorld:    newWorldFn,
		DecodeWorld: decode,
		CopyWorld:   twins.WorldCopier((*World).indexIssues),
		RESTError:   RESTError,
		TokenPrefix: "ghp_",
		// go-github's WithEnterpriseURLs (and GitHub Enterprise Server
		// clients generally) put the REST API under /api/v3.
		// GitHub Enterprise serves GraphQL at /api/graphql.
		AliasPrefixes: map[string]string{"/": "/api/v3/", "/graphql": "/api/graphql"},
		GraphQL:       graphqlAction,
		// GitHub Enterprise clients that keep only the scheme and host of
		// their configured host (github-mcp-server's GITHUB_HOST, gh,
		// octokit's GHES presets) send REST, GraphQL and uploads from the
		// server root; the ghp_ token names the sandbox, as Stripe's
		// sk_test_ key does for its root /v1/.
		RootPaths:       []string{"/api/v3/", "/api/graphql", "/api/uploads/"},
		RequestIDHeader: "X-Github-Request-Id",
		ResponseHeaders: rateLimitHeaders,
		// Every GET answers with an ETag, and If-None-Match gets 304.
		ETags:       true,
		SeedExample: SeedExample,

		SeedExampleOriginal: SeedExampleOriginal,
	}).Finish()
}

// rateLimitHeaders are the x-ratelimit-* headers GitHub sends with every
// answer. The counters are a personal token's quota, untouched: the
// transport's own limiter (when configured) answers 403 "API rate limit
// exceeded" on its own.
func rateLimitHeaders(now time.Time, h map[string][]string) {
	// Keys in net/http's canonical form (the wire is case-insensitive);
	// the fixed values are shared by every answer.
	h["X-Ratelimit-Limit"] = rateLimitLimit
	h["X-Ratelimit-Remaining"] = rateLimitRemaining
	h["X-Ratelimit-Used"] = rateLimitUsed
	h["X-Ratelimit-Reset"] = []string{strconv.FormatInt(now.Add(time.Hour).Unix(), 10)}
	h["X-Ratelimit-Resource"] = rateLimitResource
}

var (
	rateLimitLimit     = []string{"5000"}
	rateLimitRemaining = []string{"4999"}
	rateLimitUsed      = []string{"1"}
	rateLimitResource  = []string{"core"}
)

// Actions is the twin's one list of actions, grouped by area.
func Actions() []twins.Action {
	all := []twins.Action{
		// Issues. Routes match in the order they are listed, as in a mux
		// router: …/issues/comments and …/issues/events must come before
		// issue_read's …/issues/{issue_number}.
		listRepoIssueComments, listRepoIssueEvents, getIssueEvent,
		issueRead, listIssues, issueWrite, addIssueComment,
		addIssueAssignees, removeIssueAssignees,
		addIssueLabels, setIssueLabelsAction, removeIssueLabel,
		getIssueComment, updateIssueComment, deleteIssueComment,
		lockIssue, unlockIssue, listIssueEvents, listIssueTimeline,
		listMilestones, getMilestone, createMilestone, updateMilestone, deleteMilestone,
		subIssueWrite, listIssueTypes, listIssueFields, deleteIssueFieldValue,
		// Repository labels.
		listLabel, getLabel, labelWrite,
		// Repositories and users.
		getRepository, listRepositories, createRepository, forkRepository,
		listRepositoryCollaborators, checkCollaborator, addCollaborator,
		getMe, getUser, getTeams, getTeamMembers, listOrgTeams, getTeam, getAPIRoot,
		// Contents, branches, refs and history.
		getFileContents, createOrUpdateFile, deleteFile, pushFiles,
		listBranches, getBranch, createBranch, getGitRef, updateGitRef, deleteBranch,
		listCommits, getCommit, compareCommits,
		getGitCommit, createGitCommit, getRepositoryTree, createGitTree, getGitBlob, createGitBlob,
		listTags, getTag, listReleases, getLatestRelease, getReleaseByTag, createRelease,
		// Pull requests and reviews.
		listPullRequests, pullRequestRead, createPullRequest, updatePullRequest, mergePullRequest,
		updatePullRequestBranch, pullRequestReviewWrite, addCommentToPendingReview, addPullRequestReviewComment,
		addReplyToPullRequestComment,
		requestReviewers, removeRequestedReviewers, listRequestedReviewers,
		// Statuses and checks.
		createCommitStatus, getCombinedStatus, listCommitStatuses, createCheckRun, listCheckRuns,
		// Search.
		searchIssues, searchPullRequests, searchRepositories, searchCode, searchUsers, searchCommits,
	}
	// The actions are package-level values shared by every twin built:
	// they get their Location headers once.
	locationOnce.Do(func() { withLocation(all) })
	mcpFormsOnce.Do(func() { withMCPForms(all) })
	return all
}
