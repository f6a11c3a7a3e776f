package github

import (
	"github.com/pomehq/pome/twins"
)

// New returns the GitHub twin: its actions (github-mcp-server tool names,
// bound to GitHub's REST paths), its checks and its world.
func New() *twins.Twin {
	newWorldFn, decode := twins.WorldCodec(newWorld)
	return (&twins.Twin{
		Name:        "github",
		Title:       "GitHub",
		Actions:     Actions(),
		Checks:      checks(),
		NewWorld:    newWorldFn,
		DecodeWorld: decode,
		RESTError:   RESTError,
		TokenPrefix: "ghp_",
		// go-github's WithEnterpriseURLs (and GitHub Enterprise Server
		// clients generally) put the REST API under /api/v3.
		AliasPrefixes: map[string]string{"/": "/api/v3/"},
	}).Finish()
}

// Actions is the twin's one list of actions, grouped by area.
func Actions() []twins.Action {
	return []twins.Action{
		// Issues.
		issueRead, listIssues, issueWrite, addIssueComment,
		addIssueAssignees, removeIssueAssignees,
		addIssueLabels, setIssueLabelsAction, removeIssueLabel,
		getIssueComment, updateIssueComment, deleteIssueComment,
		lockIssue, unlockIssue, listIssueEvents, listIssueTimeline,
		listMilestones, getMilestone, createMilestone,
		// Repository labels.
		listLabel, getLabel, labelWrite,
		// Repositories and users.
		getRepository, listRepositories, createRepository, forkRepository,
		listRepositoryCollaborators, checkCollaborator, addCollaborator,
		getMe, getUser,
		// Contents, branches, refs and history.
		getFileContents, createOrUpdateFile, deleteFile, pushFiles,
		listBranches, getBranch, createBranch, getGitRef, updateGitRef, deleteBranch,
		listCommits, getCommit,
		listTags, getTag, listReleases, getLatestRelease, getReleaseByTag, createRelease,
		// Pull requests and reviews.
		listPullRequests, pullRequestRead, createPullRequest, updatePullRequest, mergePullRequest,
		pullRequestReviewWrite, addPullRequestReviewComment,
		requestReviewers, removeRequestedReviewers, listRequestedReviewers,
		// Statuses and checks.
		createCommitStatus, getCombinedStatus, listCommitStatuses, createCheckRun, listCheckRuns,
		// Search.
		searchIssues, searchPullRequests, searchRepositories, searchCode, searchUsers, searchCommits,
	}
}
