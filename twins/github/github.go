package github

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sync"
	"time"

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
		AliasPrefixes:   map[string]string{"/": "/api/v3/"},
		RequestIDHeader: "X-GitHub-Request-Id",
		ResponseHeaders: rateLimitHeaders,
	}).Finish()
}

// rateLimitHeaders are the x-ratelimit-* headers GitHub sends with every
// answer. The counters are a personal token's quota, untouched: the
// transport's own limiter (when configured) answers 403 "API rate limit
// exceeded" on its own.
func rateLimitHeaders(env *twins.Env) map[string]string {
	reset := env.Now().Add(time.Hour).Unix()
	return map[string]string{
		"X-RateLimit-Limit":     "5000",
		"X-RateLimit-Remaining": "4999",
		"X-RateLimit-Used":      "1",
		"X-RateLimit-Reset":     fmt.Sprint(reset),
		"X-RateLimit-Resource":  "core",
	}
}

// withETag adds GitHub's ETag (a weak validator of the body) to a GET
// binding's headers.
func withETag(next func(in, out any) map[string]string, shape func(in, out any) any) func(in, out any) map[string]string {
	return func(in, out any) map[string]string {
		h := map[string]string{}
		if next != nil {
			for k, v := range next(in, out) {
				h[k] = v
			}
		}
		body := out
		if shape != nil {
			body = shape(in, out)
		}
		if b, err := json.Marshal(body); err == nil {
			sum := sha256.Sum256(b)
			h["ETag"] = `W/"` + hex.EncodeToString(sum[:16]) + `"`
		}
		return h
	}
}

var etagOnce sync.Once

// Actions is the twin's one list of actions, grouped by area.
func Actions() []twins.Action {
	all := []twins.Action{
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
	// Every GET answers with an ETag; the actions are package data, so
	// their bindings are decorated once.
	etagOnce.Do(func() {
		for _, a := range all {
			bs := a.Spec().Bindings
			for i := range bs {
				if bs[i].Method == "GET" {
					bs[i].Headers = withETag(bs[i].Headers, bs[i].Shape)
				}
			}
		}
	})
	return all
}
