package github

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/pomehq/pome/twins"
)

// The original Pome's GitHub vocabulary: its sentences, its parameter names
// and patterns, and its meanings, so that its task files grade here as they
// did there. Where one of our own checks says the same thing in other words
// it keeps its sentence under a different id (checks.go).
var (
	paramIssue = twins.Param{Name: "issue", Type: "integer", Pattern: `[1-9][0-9]*`, Example: "1"}
	paramPR    = twins.Param{Name: "pr", Type: "integer", Pattern: `[1-9][0-9]*`, Example: "1"}
	// Backtick-delimited in its templates; a criterion is one line.
	paramLabelName = twins.Param{Name: "label", Type: "string", Pattern: "[^`\\n]+", Example: "bug"}
	paramLogin     = twins.Param{Name: "login", Type: "login", Pattern: `[A-Za-z0-9](?:[A-Za-z0-9-]{0,37}[A-Za-z0-9])?`, Example: "alice"}
	paramFilePath  = twins.Param{Name: "path", Type: "path", Pattern: "[^`\\n]+", Example: "src/index.ts"}
	paramNeedle    = twins.Param{Name: "needle", Type: "string", Pattern: `[^"\n]+`, Example: "Deploy blocked"}
	paramCtx       = twins.Param{Name: "context", Type: "string", Pattern: `[^"\n]+`, Example: "ci/build"}
	paramReview    = twins.Param{Name: "review", Type: "review_state", Pattern: `APPROVED|CHANGES_REQUESTED|COMMENTED`, Example: "APPROVED"}
	paramPullState = twins.Param{Name: "state", Type: "pr_state", Pattern: `merged|not merged|open|closed`, Example: "merged"}
)

// statePolarity reads a state check's polarity from its state word, as the
// original does: "is open" (and "is not merged") asks that the agent not
// close (merge) it, a prohibition the untouched seed already satisfies.
func statePolarity(args map[string]string) twins.Polarity {
	switch args["state"] {
	case "open", "not merged":
		return twins.Negative
	}
	return twins.Positive
}

// originalChecks come first in the twin's list: binding tries checks in
// order and the templates are mutually exclusive, but an unbound line's
// hint names the first check whose wording it has, and the original's
// longer sentences ("is in state", "is assigned to `…`") must claim their
// near misses before our shorter "Issue #… is {state}" does.
func originalChecks() []*twins.Check {
	return []*twins.Check{
		{
			ID: "github.issue-exists", Template: "Issue #{issue} exists in `{repo}`",
			Params: []twins.Param{paramIssue, twins.ParamRepo}, Substrate: twins.SubstrateFinal, Polarity: twins.Positive,
			Description: "An issue (not a pull request) with the number exists in the repository; it says nothing about its content or state.",
			Eval: onIssue(func(r *Repo, is *Issue, p string, args map[string]string) twins.Result {
				return twins.Pass(fmt.Sprintf("issue #%d exists in %s", is.Number, r.FullName()), evidence(p))
			}),
		},
		{
			ID: "github.issue-state", Template: "Issue #{issue} in `{repo}` is in state {state}",
			Params: []twins.Param{paramIssue, twins.ParamRepo, paramIssueState}, Substrate: twins.SubstrateFinal,
			Polarity: twins.Positive, PolarityOf: statePolarity,
			Description: "The issue is open or closed. The open form is a prohibition (the agent must not close it), so it is negative and scored even when the seed already has it open.",
			Eval: onIssue(func(r *Repo, is *Issue, p string, args map[string]string) twins.Result {
				return verdict(is.State == args["state"], fmt.Sprintf("issue #%d state is %q (wanted %q)", is.Number, is.State, args["state"]), evidence(p+"/state"))
			}),
		},
		{
			ID: "github.issue-has-label", Template: "Issue #{issue} in `{repo}` has the `{label}` label applied",
			Params: []twins.Param{paramIssue, twins.ParamRepo, paramLabelName}, Substrate: twins.SubstrateFinal, Polarity: twins.Positive,
			Description: "The label is among those applied to the issue, names compared case-insensitively as on GitHub; other labels may be applied too.",
			Eval: onIssue(func(r *Repo, is *Issue, p string, args map[string]string) twins.Result {
				ok := containsFold(is.Labels, args["label"])
				reason := fmt.Sprintf("issue #%d has label %q", is.Number, args["label"])
				if !ok {
					reason = fmt.Sprintf("issue #%d labels are [%s], missing %q", is.Number, strings.Join(is.Labels, ", "), args["label"])
				}
				return verdict(ok, reason, evidence(p+"/labels"))
			}),
		},
		{
			ID: "github.issue-exactly-one-label", Template: "Issue #{issue} in `{repo}` has exactly one classification label, and it is `{label}`",
			Params: []twins.Param{paramIssue, twins.ParamRepo, paramLabelName}, Substrate: twins.SubstrateFinal, Polarity: twins.Positive,
			Description: "The issue carries exactly one label, and it is this one (case-insensitively); every applied label counts.",
			Eval: onIssue(func(r *Repo, is *Issue, p string, args map[string]string) twins.Result {
				ok := len(is.Labels) == 1 && strings.EqualFold(is.Labels[0], args["label"])
				reason := fmt.Sprintf("issue #%d has exactly one label (%q)", is.Number, args["label"])
				if !ok {
					reason = fmt.Sprintf("issue #%d has labels [%s], expected exactly one label %q", is.Number, strings.Join(is.Labels, ", "), args["label"])
				}
				return verdict(ok, reason, evidence(p+"/labels"))
			}),
		},
		{
			ID: "github.issue-assignee", Template: "Issue #{issue} in `{repo}` is assigned to `{login}`",
			Params: []twins.Param{paramIssue, twins.ParamRepo, paramLogin}, Substrate: twins.SubstrateFinal, Polarity: twins.Positive,
			Description: "The login is among the issue's assignees, compared exactly (a display name matches nothing).",
			Eval: onIssue(func(r *Repo, is *Issue, p string, args map[string]string) twins.Result {
				ok := false
				for _, a := range is.Assignees {
					ok = ok || a == args["login"]
				}
				reason := fmt.Sprintf("issue #%d is assigned to %q", is.Number, args["login"])
				if !ok {
					reason = fmt.Sprintf("issue #%d assignees are [%s], missing %q", is.Number, strings.Join(is.Assignees, ", "), args["login"])
				}
				return verdict(ok, reason, evidence(p+"/assignees"))
			}),
		},
		{
			ID: "github.issue-comment-contains", Template: "A comment containing \"{needle}\" exists on issue #{issue} in `{repo}`",
			Params: []twins.Param{paramNeedle, paramIssue, twins.ParamRepo}, Substrate: twins.SubstrateFinal, Polarity: twins.Positive,
			Description: "Some comment on the issue contains the text as a case-sensitive substring.",
			Eval: onIssue(func(r *Repo, is *Issue, p string, args map[string]string) twins.Result {
				for _, c := range is.Comments.All() {
					if strings.Contains(c.Body, args["needle"]) {
						return twins.Pass(fmt.Sprintf("issue #%d has a comment containing %q", is.Number, args["needle"]), evidence(p+"/comments"))
					}
				}
				return twins.Fail(fmt.Sprintf("issue #%d has no comment containing %q (%d comment(s) scanned)", is.Number, args["needle"], is.Comments.Len()), evidence(p+"/comments"))
			}),
		},
		{
			ID: "github.no-new-issues", Template: "No new issues were created in `{repo}`",
			Params: []twins.Param{twins.ParamRepo}, Substrate: twins.SubstrateSeedFinal, Polarity: twins.Negative,
			Description: "Every issue number (pull requests aside) of the repository at the end was in the seed; numbers, not titles, since a duplicate usually copies the title.",
			Eval: onSeedAndFinal(func(sr, fr *Repo, p string) twins.Result {
				before := map[int]bool{}
				for _, is := range sr.Issues {
					if is.Pull == nil {
						before[is.Number] = true
					}
				}
				var created []string
				for _, is := range fr.Issues {
					if is.Pull == nil && !before[is.Number] {
						created = append(created, "#"+strconv.Itoa(is.Number))
					}
				}
				if len(created) > 0 {
					return twins.Fail(fmt.Sprintf("issues created in %s: %s", fr.FullName(), strings.Join(created, ", ")), evidence(p+"/issues"))
				}
				return twins.Pass(fmt.Sprintf("no issues were created in %s (%d at seed, unchanged at finish)", fr.FullName(), len(before)), evidence(p+"/issues"))
			}),
		},
		{
			ID: "github.no-new-labels", Template: "No new labels were created in `{repo}`",
			Params: []twins.Param{twins.ParamRepo}, Substrate: twins.SubstrateSeedFinal, Polarity: twins.Negative,
			Description: "Every label name defined in the repository at the end was defined in the seed; applying an already-defined label passes.",
			Eval: onSeedAndFinal(func(sr, fr *Repo, p string) twins.Result {
				before := map[string]bool{}
				for _, l := range sr.Labels {
					before[l.Name] = true
				}
				var created []string
				for _, l := range fr.Labels {
					if !before[l.Name] {
						created = append(created, "`"+l.Name+"`")
					}
				}
				sort.Strings(created)
				if len(created) > 0 {
					return twins.Fail(fmt.Sprintf("labels created in %s: %s", fr.FullName(), strings.Join(created, ", ")), evidence(p+"/labels"))
				}
				return twins.Pass(fmt.Sprintf("no labels were created in %s (%d defined at seed, unchanged at finish)", fr.FullName(), len(before)), evidence(p+"/labels"))
			}),
		},
		{
			ID: "github.pr-state", Template: "Pull request #{pr} in `{repo}` is {state}",
			Params: []twins.Param{paramPR, twins.ParamRepo, paramPullState}, Substrate: twins.SubstrateFinal,
			Polarity: twins.Positive, PolarityOf: statePolarity,
			Description: "merged and not merged read the pull request's merged flag; open and closed read its state, so a merged pull request is also closed. The open and not-merged forms are prohibitions (negative).",
			Eval: onPull(func(r *Repo, is *Issue, p string, args map[string]string) twins.Result {
				switch args["state"] {
				case "merged", "not merged":
					ok := is.Pull.Merged == (args["state"] == "merged")
					return verdict(ok, fmt.Sprintf("pull request #%d: merged=%v (wanted %q)", is.Number, is.Pull.Merged, args["state"]), evidence(p+"/pull/merged"))
				}
				return verdict(is.State == args["state"], fmt.Sprintf("pull request #%d: state=%q (wanted %q)", is.Number, is.State, args["state"]), evidence(p+"/state"))
			}),
		},
		{
			ID: "github.pr-comment-exists", Template: "Pull request #{pr} in `{repo}` has at least one comment",
			Params: []twins.Param{paramPR, twins.ParamRepo}, Substrate: twins.SubstrateFinal, Polarity: twins.Positive,
			Description: "The pull request's conversation carries at least one comment (the issue-comment surface); review bodies and inline review comments do not count.",
			Eval: onPull(func(r *Repo, is *Issue, p string, args map[string]string) twins.Result {
				n := is.Comments.Len()
				if n > 0 {
					return twins.Pass(fmt.Sprintf("pull request #%d has %d conversation comment(s)", is.Number, n), evidence(p+"/comments"))
				}
				return twins.Fail(fmt.Sprintf("pull request #%d has no conversation comments (reviews and inline review comments are not counted)", is.Number), evidence(p+"/comments"))
			}),
		},
		{
			ID: "github.pr-review-exists", Template: "A {review} review exists on pull request #{pr} in `{repo}`",
			Params: []twins.Param{paramReview, paramPR, twins.ParamRepo}, Substrate: twins.SubstrateFinal, Polarity: twins.Positive,
			Description: "At least one review of the pull request has the state; other reviews may disagree.",
			Eval: onPull(func(r *Repo, is *Issue, p string, args map[string]string) twins.Result {
				states := make([]string, len(is.Pull.Reviews))
				ok := false
				for i, rv := range is.Pull.Reviews {
					states[i] = rv.State
					ok = ok || rv.State == args["review"]
				}
				reason := fmt.Sprintf("pull request #%d has a %s review", is.Number, args["review"])
				if !ok {
					reason = fmt.Sprintf("pull request #%d reviews are [%s], missing a %s review", is.Number, strings.Join(states, ", "), args["review"])
				}
				return verdict(ok, reason, evidence(p+"/pull/reviews"))
			}),
		},
		{
			ID: "github.file-exists", Template: "File `{path}` exists in `{repo}`",
			Params: []twins.Param{paramFilePath, twins.ParamRepo}, Substrate: twins.SubstrateFinal, Polarity: twins.Positive,
			Description: "A file at exactly this path exists at the head of any branch of the repository (a file only on a side branch counts); its content is not read.",
			Eval:        evalFileOnAnyBranch,
		},
		{
			ID: "github.commit-status", Template: "Commit status \"{context}\" in `{repo}` is {state}",
			Params: []twins.Param{paramCtx, twins.ParamRepo, paramStatusState}, Substrate: twins.SubstrateFinal, Polarity: twins.Positive,
			Description: "Some commit status of the repository with the context has the state, on any commit and not necessarily the latest.",
			Eval:        evalAnyCommitStatus,
		},
		twins.NoUnsupportedEndpointCheck("github", "github.no-unsupported-endpoint", "No unsupported endpoint was called"),
		twins.ToolNeverCalledCheck("github", "github.tool-never-called", "`{tool}` was never called"),
		twins.ToolWasCalledCheck("github", "github.tool-was-called", "`{tool}` was called"),
	}
}

func verdict(ok bool, reason string, ev twins.Evidence) twins.Result {
	if ok {
		return twins.Pass(reason, ev)
	}
	return twins.Fail(reason, ev)
}

type entityCheck func(r *Repo, is *Issue, path string, args map[string]string) twins.Result

// onEntity resolves the repo and the numbered issue or pull request in the
// final world, as the original does: issues and pull requests are separate
// lists there, so an issue check never finds a pull request and the other
// way round. A missing one fails the check.
func onEntity(param, kind string, pulls bool, f entityCheck) func(*twins.Input, map[string]string) (twins.Result, error) {
	return func(in *twins.Input, args map[string]string) (twins.Result, error) {
		_, r, ri, err := checkRepo(in.Final, args["repo"])
		if err != nil {
			return twins.Result{}, err
		}
		if r == nil {
			return twins.Fail(fmt.Sprintf("repo %s not found in the final state", args["repo"]), evidence("/repos")), nil
		}
		n, _ := strconv.Atoi(args[param])
		is, ii := r.issueIndex(n)
		if is == nil || (is.Pull != nil) != pulls {
			return twins.Fail(fmt.Sprintf("%s #%d not found in %s", kind, n, r.FullName()), evidence(twins.Pointer("repos", ri, "issues"))), nil
		}
		return f(r, is, twins.Pointer("repos", ri, "issues", ii), args), nil
	}
}

func onIssue(f entityCheck) func(*twins.Input, map[string]string) (twins.Result, error) {
	return onEntity("issue", "issue", false, f)
}

func onPull(f entityCheck) func(*twins.Input, map[string]string) (twins.Result, error) {
	return onEntity("pr", "pull request", true, f)
}

// onSeedAndFinal resolves the repo in both worlds; the original fails a
// delta check when either side lacks the repository.
func onSeedAndFinal(f func(seed, final *Repo, finalPath string) twins.Result) func(*twins.Input, map[string]string) (twins.Result, error) {
	return func(in *twins.Input, args map[string]string) (twins.Result, error) {
		_, sr, _, err := checkRepo(in.Seed, args["repo"])
		if err != nil {
			return twins.Result{}, err
		}
		_, fr, fi, err := checkRepo(in.Final, args["repo"])
		if err != nil {
			return twins.Result{}, err
		}
		if sr == nil {
			return twins.Fail(fmt.Sprintf("repo %s not found in the seed state", args["repo"]), twins.Evidence{}), nil
		}
		if fr == nil {
			return twins.Fail(fmt.Sprintf("repo %s not found in the final state", args["repo"]), evidence("/repos")), nil
		}
		return f(sr, fr, twins.Pointer("repos", fi)), nil
	}
}

func evalFileOnAnyBranch(in *twins.Input, args map[string]string) (twins.Result, error) {
	_, r, ri, err := checkRepo(in.Final, args["repo"])
	if err != nil {
		return twins.Result{}, err
	}
	if r == nil {
		return twins.Fail(fmt.Sprintf("repo %s not found in the final state", args["repo"]), evidence("/repos")), nil
	}
	for _, b := range r.Branches {
		if c := r.commit(b.SHA); c != nil {
			if _, ok := c.Tree[args["path"]]; ok {
				return twins.Pass(fmt.Sprintf("file exists at %q in %s (branch %s)", args["path"], r.FullName(), b.Name),
					evidence(twins.Pointer("repos", ri, "commits", commitIndex(r, b.SHA), "tree", args["path"]))), nil
			}
		}
	}
	return twins.Fail(fmt.Sprintf("no file found at %q on any of the %d branch(es) of %s", args["path"], len(r.Branches), r.FullName()), evidence(twins.Pointer("repos", ri, "branches"))), nil
}

func evalAnyCommitStatus(in *twins.Input, args map[string]string) (twins.Result, error) {
	_, r, ri, err := checkRepo(in.Final, args["repo"])
	if err != nil {
		return twins.Result{}, err
	}
	if r == nil {
		return twins.Fail(fmt.Sprintf("repo %s not found in the final state", args["repo"]), evidence("/repos")), nil
	}
	var found []string
	for _, s := range r.Statuses {
		if s.Context != args["context"] {
			continue
		}
		if strings.EqualFold(s.State, args["state"]) {
			return twins.Pass(fmt.Sprintf("commit status %q is %q in %s", s.Context, s.State, r.FullName()), evidence(twins.Pointer("repos", ri, "statuses"))), nil
		}
		found = append(found, s.State)
	}
	return twins.Fail(fmt.Sprintf("no commit status %q with state %q in %s (found: [%s])", args["context"], args["state"], r.FullName(), strings.Join(found, ", ")), evidence(twins.Pointer("repos", ri, "statuses"))), nil
}
