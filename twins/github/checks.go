package github

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/pomehq/pome/twins"
)

// Check parameters of this twin beyond the shared ones.
var (
	paramIssueState  = twins.Param{Name: "state", Type: "issue_state", Pattern: `open|closed`, Example: "closed"}
	paramReviewState = twins.Param{Name: "review_state", Type: "review_state", Pattern: `APPROVED|CHANGES_REQUESTED|COMMENTED`, Example: "APPROVED"}
	paramPath        = twins.Param{Name: "path", Type: "path", Pattern: "[^`]+", Example: "README.md"}
	paramBranch      = twins.Param{Name: "branch", Type: "branch", Pattern: "[^`]+", Example: "main"}
	paramContext     = twins.Param{Name: "context", Type: "string", Pattern: `[^"]+`, Example: "ci/build"}
	paramStatusState = twins.Param{Name: "state", Type: "status_state", Pattern: `error|failure|pending|success`, Example: "success"}
)

// checks is the twin's closed set of assertions (SPEC §7): the original
// Pome's vocabulary (checks_original.go), then our own sentences, those
// that say what one of the original's says keeping their wording under ids
// of their own. The tape checks are added by Finish.
func checks() []*twins.Check {
	return append(originalChecks(), []*twins.Check{
		{
			ID: "github.issue-title-exists", Template: "An issue whose title contains \"{text}\" exists in `{repo}`",
			Params: []twins.Param{twins.ParamText, twins.ParamRepo}, Substrate: twins.SubstrateFinal, Polarity: twins.Positive,
			Description: "Some issue (not a pull request) of the repository has a title containing the text, case-insensitively.",
			Eval:        evalIssueExists,
		},
		{
			ID: "github.issue-is", Template: "Issue #{number} in `{repo}` is {state}",
			Params: []twins.Param{twins.ParamNumber, twins.ParamRepo, paramIssueState}, Substrate: twins.SubstrateFinal,
			Polarity: twins.Positive, PolarityOf: statePolarity,
			Description: "The issue's state is open or closed; like github.issue-state, the open form is a prohibition (negative).",
			Eval: issueEval(func(in *twins.Input, r *Repo, is *Issue, p string, args map[string]string) (twins.Result, error) {
				ev := evidence(p + "/state")
				if is.State == args["state"] {
					return twins.Pass(fmt.Sprintf("issue #%d is %s", is.Number, is.State), ev), nil
				}
				return twins.Fail(fmt.Sprintf("issue #%d is %s, not %s", is.Number, is.State, args["state"]), ev), nil
			}),
		},
		{
			ID: "github.issue-one-label", Template: "Issue #{number} in `{repo}` has exactly one label",
			Params: []twins.Param{twins.ParamNumber, twins.ParamRepo}, Substrate: twins.SubstrateFinal, Polarity: twins.Positive,
			Description: "The issue carries one label, no more and no fewer.",
			Eval: issueEval(func(in *twins.Input, r *Repo, is *Issue, p string, args map[string]string) (twins.Result, error) {
				ev := evidence(p + "/labels")
				if len(is.Labels) == 1 {
					return twins.Pass(fmt.Sprintf("issue #%d has exactly one label, %q", is.Number, is.Labels[0]), ev), nil
				}
				return twins.Fail(fmt.Sprintf("issue #%d has %d labels [%s]", is.Number, len(is.Labels), strings.Join(is.Labels, ", ")), ev), nil
			}),
		},
		{
			ID: "github.issue-assigned", Template: "Issue #{number} in `{repo}` is assigned to @{user}",
			Params: []twins.Param{twins.ParamNumber, twins.ParamRepo, twins.ParamUser}, Substrate: twins.SubstrateFinal, Polarity: twins.Positive,
			Description: "The user is among the issue's assignees.",
			Eval: issueEval(func(in *twins.Input, r *Repo, is *Issue, p string, args map[string]string) (twins.Result, error) {
				ev := evidence(p + "/assignees")
				if containsFold(is.Assignees, args["user"]) {
					return twins.Pass(fmt.Sprintf("issue #%d is assigned to %s", is.Number, args["user"]), ev), nil
				}
				return twins.Fail(fmt.Sprintf("issue #%d is assigned to [%s], not %s", is.Number, strings.Join(is.Assignees, ", "), args["user"]), ev), nil
			}),
		},
		{
			ID: "github.comment-on-issue-contains", Template: "A comment on issue #{number} in `{repo}` contains \"{text}\"",
			Params: []twins.Param{twins.ParamNumber, twins.ParamRepo, twins.ParamText}, Substrate: twins.SubstrateFinal, Polarity: twins.Positive,
			Description: "Some comment on the issue contains the text, case-insensitively.",
			Eval: issueEval(func(in *twins.Input, r *Repo, is *Issue, p string, args map[string]string) (twins.Result, error) {
				want := strings.ToLower(args["text"])
				for i, c := range is.Comments.All() {
					if strings.Contains(strings.ToLower(c.Body), want) {
						return twins.Pass(fmt.Sprintf("comment %d by %s contains %q", c.ID, c.User, args["text"]), evidence(fmt.Sprintf("%s/comments/%d/body", p, i))), nil
					}
				}
				return twins.Fail(fmt.Sprintf("none of the %d comment(s) on issue #%d contains %q", is.Comments.Len(), is.Number, args["text"]), evidence(p+"/comments")), nil
			}),
		},
		{
			ID: "github.no-label-created", Template: "No new label was created in `{repo}`",
			Params: []twins.Param{twins.ParamRepo}, Substrate: twins.SubstrateSeedFinal, Polarity: twins.Negative,
			Description: "Every label of the repository in the final state was already defined by the seed (GitHub creates labels that an issue edit names).",
			Eval:        evalNoNewLabels,
		},
		{
			ID: "github.no-issue-opened", Template: "No new issue was opened in `{repo}`",
			Params: []twins.Param{twins.ParamRepo}, Substrate: twins.SubstrateSeedFinal, Polarity: twins.Negative,
			Description: "Every issue (pull requests aside) of the repository in the final state was already in the seed.",
			Eval:        evalNoNewIssues,
		},
		{
			ID: "github.comment-on-pr-contains", Template: "A comment on pull request #{number} in `{repo}` contains \"{text}\"",
			Params: []twins.Param{twins.ParamNumber, twins.ParamRepo, twins.ParamText}, Substrate: twins.SubstrateFinal, Polarity: twins.Positive,
			Description: "A conversation comment, review comment or review body on the pull request contains the text, case-insensitively.",
			Eval: pullEval(func(in *twins.Input, r *Repo, is *Issue, p string, args map[string]string) (twins.Result, error) {
				want := strings.ToLower(args["text"])
				for i, c := range is.Comments.All() {
					if strings.Contains(strings.ToLower(c.Body), want) {
						return twins.Pass(fmt.Sprintf("comment %d by %s contains %q", c.ID, c.User, args["text"]), evidence(fmt.Sprintf("%s/comments/%d/body", p, i))), nil
					}
				}
				for i, c := range is.Pull.ReviewComments {
					if strings.Contains(strings.ToLower(c.Body), want) {
						return twins.Pass(fmt.Sprintf("review comment %d by %s contains %q", c.ID, c.User, args["text"]), evidence(fmt.Sprintf("%s/pull/review_comments/%d/body", p, i))), nil
					}
				}
				for i, rv := range is.Pull.Reviews {
					if strings.Contains(strings.ToLower(rv.Body), want) {
						return twins.Pass(fmt.Sprintf("review %d by %s contains %q", rv.ID, rv.User, args["text"]), evidence(fmt.Sprintf("%s/pull/reviews/%d/body", p, i))), nil
					}
				}
				return twins.Fail(fmt.Sprintf("no comment or review on pull request #%d contains %q", is.Number, args["text"]), evidence(p+"/comments", p+"/pull/review_comments", p+"/pull/reviews")), nil
			}),
		},
		{
			ID: "github.pr-has-review", Template: "Pull request #{number} in `{repo}` has a review in state {review_state}",
			Params: []twins.Param{twins.ParamNumber, twins.ParamRepo, paramReviewState}, Substrate: twins.SubstrateFinal, Polarity: twins.Positive,
			Description: "A submitted review of the pull request has the state (APPROVED, CHANGES_REQUESTED or COMMENTED).",
			Eval: pullEval(func(in *twins.Input, r *Repo, is *Issue, p string, args map[string]string) (twins.Result, error) {
				for i, rv := range is.Pull.Reviews {
					if rv.State == args["review_state"] {
						return twins.Pass(fmt.Sprintf("review %d by %s is %s", rv.ID, rv.User, rv.State), evidence(fmt.Sprintf("%s/pull/reviews/%d/state", p, i))), nil
					}
				}
				return twins.Fail(fmt.Sprintf("pull request #%d has no %s review (%d review(s))", is.Number, args["review_state"], len(is.Pull.Reviews)), evidence(p+"/pull/reviews")), nil
			}),
		},
		{
			ID: "github.file-on-branch", Template: "The file `{path}` exists on the `{branch}` branch of `{repo}`",
			Params: []twins.Param{paramPath, paramBranch, twins.ParamRepo}, Substrate: twins.SubstrateFinal, Polarity: twins.Positive,
			Description: "The branch's head commit has a file at the path.",
			Eval:        evalFileExists,
		},
		{
			ID: "github.branch-status", Template: "The \"{context}\" status of the `{branch}` branch of `{repo}` is {state}",
			Params: []twins.Param{paramContext, paramBranch, twins.ParamRepo, paramStatusState}, Substrate: twins.SubstrateFinal, Polarity: twins.Positive,
			Description: "The latest commit status with the context on the branch's head commit has the state.",
			Eval:        evalCommitStatus,
		},
	}...)
}

func evidence(paths ...string) twins.Evidence { return twins.Evidence{StatePaths: paths} }

// checkRepo resolves the repo argument in a world.
func checkRepo(world any, full string) (*World, *Repo, int, error) {
	w, err := twins.World[World](world)
	if err != nil {
		return nil, nil, -1, err
	}
	owner, name, _ := strings.Cut(full, "/")
	r, i := w.repoIndex(owner, name)
	return w, r, i, nil
}

type issueCheck func(in *twins.Input, r *Repo, is *Issue, path string, args map[string]string) (twins.Result, error)

// issueEval resolves repo and number in the final world; a missing issue
// fails the check (it is an assertion about the world, not a bad argument).
func issueEval(f issueCheck) func(*twins.Input, map[string]string) (twins.Result, error) {
	return func(in *twins.Input, args map[string]string) (twins.Result, error) {
		_, r, ri, err := checkRepo(in.Final, args["repo"])
		if err != nil {
			return twins.Result{}, err
		}
		if r == nil {
			return twins.Fail(fmt.Sprintf("repository %s does not exist", args["repo"]), evidence("/repos")), nil
		}
		n, _ := strconv.Atoi(args["number"])
		is, ii := r.issueIndex(n)
		if is == nil {
			return twins.Fail(fmt.Sprintf("%s has no issue #%d", args["repo"], n), evidence(twins.Pointer("repos", ri, "issues"))), nil
		}
		return f(in, r, is, twins.Pointer("repos", ri, "issues", ii), args)
	}
}

// pullEval is issueEval for pull requests: the number must be a PR.
func pullEval(f issueCheck) func(*twins.Input, map[string]string) (twins.Result, error) {
	return issueEval(func(in *twins.Input, r *Repo, is *Issue, p string, args map[string]string) (twins.Result, error) {
		if is.Pull == nil {
			return twins.Fail(fmt.Sprintf("#%d in %s is an issue, not a pull request", is.Number, r.FullName()), evidence(p)), nil
		}
		return f(in, r, is, p, args)
	})
}

func evalIssueExists(in *twins.Input, args map[string]string) (twins.Result, error) {
	_, r, ri, err := checkRepo(in.Final, args["repo"])
	if err != nil {
		return twins.Result{}, err
	}
	if r == nil {
		return twins.Fail(fmt.Sprintf("repository %s does not exist", args["repo"]), evidence("/repos")), nil
	}
	want := strings.ToLower(args["text"])
	for i, is := range r.Issues {
		if is.Pull == nil && strings.Contains(strings.ToLower(is.Title), want) {
			return twins.Pass(fmt.Sprintf("issue #%d %q matches", is.Number, is.Title), evidence(twins.Pointer("repos", ri, "issues", i, "title"))), nil
		}
	}
	return twins.Fail(fmt.Sprintf("no issue title in %s contains %q", r.FullName(), args["text"]), evidence(twins.Pointer("repos", ri, "issues"))), nil
}

func evalNoNewLabels(in *twins.Input, args map[string]string) (twins.Result, error) {
	_, fr, fi, err := checkRepo(in.Final, args["repo"])
	if err != nil {
		return twins.Result{}, err
	}
	_, sr, _, err := checkRepo(in.Seed, args["repo"])
	if err != nil {
		return twins.Result{}, err
	}
	if fr == nil {
		return twins.Pass(fmt.Sprintf("repository %s does not exist, so it has no new labels", args["repo"]), evidence("/repos")), nil
	}
	var added []string
	var paths []string
	for i, l := range fr.Labels {
		if sr == nil || sr.label(l.Name) == nil && !hasLabelID(sr, l.ID) {
			added = append(added, l.Name)
			paths = append(paths, twins.Pointer("repos", fi, "labels", i))
		}
	}
	if len(added) > 0 {
		return twins.Fail(fmt.Sprintf("new label(s) in %s: %s", fr.FullName(), strings.Join(added, ", ")), evidence(paths...)), nil
	}
	return twins.Pass(fmt.Sprintf("%s has only the seed's labels", fr.FullName()), evidence(twins.Pointer("repos", fi, "labels"))), nil
}

// hasLabelID lets a renamed seed label count as not new.
func hasLabelID(r *Repo, id int64) bool {
	for _, l := range r.Labels {
		if l.ID == id {
			return true
		}
	}
	return false
}

func evalNoNewIssues(in *twins.Input, args map[string]string) (twins.Result, error) {
	_, fr, fi, err := checkRepo(in.Final, args["repo"])
	if err != nil {
		return twins.Result{}, err
	}
	_, sr, _, err := checkRepo(in.Seed, args["repo"])
	if err != nil {
		return twins.Result{}, err
	}
	if fr == nil {
		return twins.Pass(fmt.Sprintf("repository %s does not exist, so it has no new issues", args["repo"]), evidence("/repos")), nil
	}
	seen := map[int64]bool{}
	if sr != nil {
		for _, is := range sr.Issues {
			seen[is.ID] = true
		}
	}
	var added []string
	var paths []string
	for i, is := range fr.Issues {
		if is.Pull == nil && !seen[is.ID] {
			added = append(added, fmt.Sprintf("#%d %q", is.Number, is.Title))
			paths = append(paths, twins.Pointer("repos", fi, "issues", i))
		}
	}
	if len(added) > 0 {
		return twins.Fail(fmt.Sprintf("new issue(s) in %s: %s", fr.FullName(), strings.Join(added, ", ")), evidence(paths...)), nil
	}
	return twins.Pass(fmt.Sprintf("%s has only the seed's issues", fr.FullName()), evidence(twins.Pointer("repos", fi, "issues"))), nil
}

func evalFileExists(in *twins.Input, args map[string]string) (twins.Result, error) {
	_, r, ri, err := checkRepo(in.Final, args["repo"])
	if err != nil {
		return twins.Result{}, err
	}
	if r == nil {
		return twins.Fail(fmt.Sprintf("repository %s does not exist", args["repo"]), evidence("/repos")), nil
	}
	b := r.branch(args["branch"])
	if b == nil {
		return twins.Fail(fmt.Sprintf("%s has no branch %q", r.FullName(), args["branch"]), evidence(twins.Pointer("repos", ri, "branches"))), nil
	}
	c := r.commit(b.SHA)
	ci := commitIndex(r, b.SHA)
	path := strings.TrimPrefix(args["path"], "/")
	if c != nil {
		if _, ok := c.Tree[path]; ok {
			return twins.Pass(fmt.Sprintf("%s exists on %s at %s", path, b.Name, b.SHA[:7]), evidence(twins.Pointer("repos", ri, "commits", ci, "tree", path))), nil
		}
	}
	return twins.Fail(fmt.Sprintf("%s does not exist on %s", path, b.Name), evidence(twins.Pointer("repos", ri, "commits", ci, "tree"))), nil
}

func commitIndex(r *Repo, sha string) int {
	for i, c := range r.Commits {
		if c.SHA == sha {
			return i
		}
	}
	return -1
}

func evalCommitStatus(in *twins.Input, args map[string]string) (twins.Result, error) {
	_, r, ri, err := checkRepo(in.Final, args["repo"])
	if err != nil {
		return twins.Result{}, err
	}
	if r == nil {
		return twins.Fail(fmt.Sprintf("repository %s does not exist", args["repo"]), evidence("/repos")), nil
	}
	b := r.branch(args["branch"])
	if b == nil {
		return twins.Fail(fmt.Sprintf("%s has no branch %q", r.FullName(), args["branch"]), evidence(twins.Pointer("repos", ri, "branches"))), nil
	}
	// Statuses are kept oldest first; the last one per context wins.
	idx := -1
	for i, s := range r.Statuses {
		if s.SHA == b.SHA && s.Context == args["context"] {
			idx = i
		}
	}
	if idx < 0 {
		return twins.Fail(fmt.Sprintf("no %q status on %s (%s)", args["context"], b.Name, b.SHA[:7]), evidence(twins.Pointer("repos", ri, "statuses"))), nil
	}
	s := r.Statuses[idx]
	ev := evidence(twins.Pointer("repos", ri, "statuses", idx, "state"))
	if s.State == args["state"] {
		return twins.Pass(fmt.Sprintf("%q on %s is %s", s.Context, b.Name, s.State), ev), nil
	}
	return twins.Fail(fmt.Sprintf("%q on %s is %s, not %s", s.Context, b.Name, s.State, args["state"]), ev), nil
}
