package github

import (
	"fmt"
	"strings"
	"time"

	"github.com/pomehq/pome/twins"
)

// checkFilePath refuses paths git would not store.
func checkFilePath(p string) error {
	if p == "" || strings.HasPrefix(p, "/") || strings.HasSuffix(p, "/") {
		return fmt.Errorf("invalid file path %q", p)
	}
	for _, seg := range strings.Split(p, "/") {
		if seg == "" || seg == "." || seg == ".." || seg == ".git" {
			return fmt.Errorf("invalid file path %q", p)
		}
	}
	return nil
}

// ancestors returns every commit reachable from sha, itself included.
func (r *Repo) ancestors(sha string) map[string]bool {
	seen := map[string]bool{}
	stack := []string{sha}
	for len(stack) > 0 {
		s := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[s] {
			continue
		}
		seen[s] = true
		if c := r.commit(s); c != nil {
			stack = append(stack, c.Parents...)
		}
	}
	return seen
}

// mergeBase is the nearest common ancestor of a and b (nil when they share
// no history).
func (r *Repo) mergeBase(a, b string) *Commit {
	inA := r.ancestors(a)
	// Walk b's history breadth-first so the nearest ancestor wins.
	queue, seen := []string{b}, map[string]bool{}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		if seen[s] {
			continue
		}
		seen[s] = true
		if inA[s] {
			return r.commit(s)
		}
		if c := r.commit(s); c != nil {
			queue = append(queue, c.Parents...)
		}
	}
	return nil
}

// commitsBetween lists the commits reachable from head but not from base,
// oldest first: what a pull request would merge.
func (r *Repo) commitsBetween(base, head string) []*Commit {
	inBase := r.ancestors(base)
	inHead := r.ancestors(head)
	var out []*Commit
	for _, c := range r.Commits {
		if inHead[c.SHA] && !inBase[c.SHA] {
			out = append(out, c)
		}
	}
	return out
}

// threeWay merges head into base file by file against their merge base; a
// path both sides changed differently is a conflict.
func (r *Repo) threeWay(baseSHA, headSHA string) (map[string]string, []string) {
	bc, hc := r.commit(baseSHA), r.commit(headSHA)
	var anc map[string]string
	if mb := r.mergeBase(baseSHA, headSHA); mb != nil {
		anc = mb.Tree
	}
	out := map[string]string{}
	var conflicts []string
	paths := map[string]bool{}
	for p := range bc.Tree {
		paths[p] = true
	}
	for p := range hc.Tree {
		paths[p] = true
	}
	for p := range paths {
		o, b, h := anc[p], bc.Tree[p], hc.Tree[p]
		var v string
		switch {
		case b == h:
			v = b
		case h == o:
			v = b
		case b == o:
			v = h
		default:
			conflicts = append(conflicts, p)
			continue
		}
		if v != "" {
			out[p] = v
		}
	}
	return out, conflicts
}

// mergePull merges a pull request's head into its base branch, so the base
// branch's contents change. method is merge, squash or rebase; a conflict
// or a closed pull request is GitHub's 405.
func mergePull(w *World, r *Repo, is *Issue, actor, title, message, method string, at time.Time) (string, error) {
	p := is.Pull
	if p.Merged || is.State != "open" {
		return "", twins.Errorf(twins.NotAllowed, "not_mergeable", "Pull Request is not mergeable")
	}
	hb, bb := r.branch(p.Head), r.branch(p.Base)
	if hb == nil || bb == nil {
		return "", twins.Errorf(twins.NotAllowed, "not_mergeable", "Pull Request is not mergeable")
	}
	tree, conflicts := r.threeWay(bb.SHA, hb.SHA)
	if len(conflicts) > 0 {
		return "", twins.Errorf(twins.NotAllowed, "not_mergeable", "Pull Request is not mergeable")
	}
	if method == "" {
		method = "merge"
	}
	var c *Commit
	switch method {
	case "merge":
		if title == "" {
			title = fmt.Sprintf("Merge pull request #%d from %s/%s", is.Number, r.Owner, p.Head)
		}
		if message == "" {
			message = is.Title
		}
		c = r.addCommit(tree, []string{bb.SHA, hb.SHA}, title+"\n\n"+message, actor, at)
	case "squash", "rebase":
		if title == "" {
			title = fmt.Sprintf("%s (#%d)", is.Title, is.Number)
		}
		msg := title
		if message != "" {
			msg += "\n\n" + message
		}
		c = r.addCommit(tree, []string{bb.SHA}, msg, actor, at)
	default:
		return "", invalid("PullRequest", "merge_method", "invalid", "merge_method must be merge, squash or rebase, got %q", method)
	}
	bb.SHA = c.SHA
	t := at
	p.Merged, p.MergedAt, p.MergedBy, p.MergeCommitSHA = true, &t, actor, c.SHA
	p.HeadSHA = hb.SHA
	is.State, is.ClosedAt, is.ClosedBy, is.UpdatedAt = "closed", &t, actor, at
	is.Events = append(is.Events,
		&Event{ID: w.nextID(), Event: "merged", Actor: actor, CreatedAt: at, CommitID: c.SHA},
		&Event{ID: w.nextID(), Event: "closed", Actor: actor, CreatedAt: at, CommitID: c.SHA})
	r.PushedAt = at
	return c.SHA, nil
}

var checkRunStatuses = map[string]bool{"queued": true, "in_progress": true, "completed": true, "waiting": true, "requested": true, "pending": true}
var checkRunConclusions = map[string]bool{"action_required": true, "cancelled": true, "failure": true, "neutral": true, "success": true, "skipped": true, "stale": true, "timed_out": true}

// newCheckRun validates and builds a check run; a conclusion implies
// completed, and completed requires a conclusion, as on GitHub.
func newCheckRun(w *World, sha, name, status, conclusion string, at time.Time) (*CheckRun, error) {
	if conclusion != "" {
		if !checkRunConclusions[conclusion] {
			return nil, invalid("CheckRun", "conclusion", "invalid", "conclusion %q is not one of action_required, cancelled, failure, neutral, success, skipped, stale, timed_out", conclusion)
		}
		status = "completed"
	}
	if status == "" {
		status = "queued"
	}
	if !checkRunStatuses[status] {
		return nil, invalid("CheckRun", "status", "invalid", "status %q is not one of queued, in_progress, completed", status)
	}
	if status == "completed" && conclusion == "" {
		return nil, invalid("CheckRun", "conclusion", "missing_field", "a completed check run needs a conclusion")
	}
	cr := &CheckRun{ID: w.nextID(), HeadSHA: sha, Name: name, Status: status, Conclusion: conclusion, StartedAt: at}
	if status == "completed" {
		t := at
		cr.CompletedAt = &t
	}
	return cr, nil
}
