package github

import (
	"context"
	"strconv"
	"strings"

	graphql "github.com/graph-gophers/graphql-go"
)

// GraphQL mutations. Each one resolves its node ids, then changes the
// world through the one action that does the same over REST and MCP, so
// the rules, the events and the tape's tool are that action's; an action
// checks everything before it changes anything, so a refused mutation
// changes nothing.

// issueByNode resolves an issue (pull request: wantPull) node id.
func (s *gqlState) issueByNode(id graphql.ID, wantPull bool) (*Repo, *Issue, error) {
	{
		switch x := s.node(id).value().(type) {
		case *issueR:
			if !wantPull {
				return x.r, x.is, nil
			}
		case *pullR:
			return x.r, x.is, nil
		}
	}
	return nil, nil, nodeNotFound(id)
}

// labelNamesByNode resolves label node ids of one repository to names.
func (s *gqlState) labelNamesByNode(r *Repo, ids []graphql.ID) ([]string, error) {
	names := make([]string, 0, len(ids))
	for _, id := range ids {
		l, ok := s.node(id).value().(*labelR)
		if !ok || l.r != r {
			return nil, nodeNotFound(id)
		}
		names = append(names, l.l.Name)
	}
	return names, nil
}

func ref(r *Repo) RepoRef { return RepoRef{Owner: r.Owner, Repo: r.Name} }

type issuePayload struct {
	ClientMutationID *string
	Issue            *issueR
}

func (s *gqlState) issuePayload(r *Repo, is *Issue, cm *string) *issuePayload {
	return &issuePayload{ClientMutationID: cm, Issue: &issueR{s: s, r: r, is: is}}
}

func (gqlRoot) CloseIssue(ctx context.Context, args struct {
	Input struct {
		ClientMutationID *string
		DuplicateIssueID *graphql.ID
		IssueID          graphql.ID
		StateReason      *string
	}
}) (*issuePayload, error) {
	s, in := gqlFrom(ctx), args.Input
	r, is, err := s.issueByNode(in.IssueID, false)
	if err != nil {
		return nil, err
	}
	w := IssueWriteIn{Method: "update", RepoRef: ref(r), IssueNumber: is.Number, State: strPtr("closed")}
	if in.StateReason != nil {
		w.StateReason = strPtr(strings.ToLower(*in.StateReason))
	}
	if in.DuplicateIssueID != nil {
		dr, dup, err := s.issueByNode(*in.DuplicateIssueID, false)
		if err != nil {
			return nil, err
		}
		if dr != r {
			return nil, gqlErrorf("UNPROCESSABLE", "the duplicate must be an issue of %s", r.FullName())
		}
		w.DuplicateOf, w.StateReason = dup.Number, strPtr("duplicate")
	}
	if _, err := s.run(issueWrite, w); err != nil {
		return nil, err
	}
	return s.issuePayload(r, is, in.ClientMutationID), nil
}

func (gqlRoot) ReopenIssue(ctx context.Context, args struct {
	Input struct {
		ClientMutationID *string
		IssueID          graphql.ID
	}
}) (*issuePayload, error) {
	s, in := gqlFrom(ctx), args.Input
	r, is, err := s.issueByNode(in.IssueID, false)
	if err != nil {
		return nil, err
	}
	if _, err := s.run(issueWrite, IssueWriteIn{Method: "update", RepoRef: ref(r), IssueNumber: is.Number, State: strPtr("open")}); err != nil {
		return nil, err
	}
	return s.issuePayload(r, is, in.ClientMutationID), nil
}

func (gqlRoot) UpdateIssue(ctx context.Context, args struct {
	Input struct {
		AssigneeIDs      *[]graphql.ID
		Body             *string
		ClientMutationID *string
		ID               graphql.ID
		LabelIDs         *[]graphql.ID
		MilestoneID      *graphql.ID
		State            *string
		Title            *string
	}
}) (*issuePayload, error) {
	s, in := gqlFrom(ctx), args.Input
	r, is, err := s.issueByNode(in.ID, false)
	if err != nil {
		return nil, err
	}
	w := IssueWriteIn{Method: "update", RepoRef: ref(r), IssueNumber: is.Number, Title: in.Title, Body: in.Body}
	if in.State != nil {
		w.State = strPtr(strings.ToLower(*in.State))
	}
	if in.AssigneeIDs != nil {
		logins := []string{}
		for _, id := range *in.AssigneeIDs {
			u, ok := s.node(id).value().(*userR)
			if !ok {
				return nil, nodeNotFound(id)
			}
			logins = append(logins, u.Login())
		}
		w.Assignees = &logins
	}
	if in.LabelIDs != nil {
		names, err := s.labelNamesByNode(r, *in.LabelIDs)
		if err != nil {
			return nil, err
		}
		w.Labels = &names
	}
	if in.MilestoneID != nil {
		kind, n, ok := parseNodeID(string(*in.MilestoneID))
		var number int
		for _, m := range r.Milestones {
			if ok && kind == "MI" && m.ID == n {
				number = m.Number
			}
		}
		if number == 0 {
			return nil, nodeNotFound(*in.MilestoneID)
		}
		w.Milestone = &number
	}
	if _, err := s.run(issueWrite, w); err != nil {
		return nil, err
	}
	return s.issuePayload(r, is, in.ClientMutationID), nil
}

type addCommentPayload struct {
	ClientMutationID *string
	CommentEdge      *edge[*commentR]
	Subject          *nodeR
}

func (gqlRoot) AddComment(ctx context.Context, args struct {
	Input struct {
		Body             string
		ClientMutationID *string
		SubjectID        graphql.ID
	}
}) (*addCommentPayload, error) {
	s, in := gqlFrom(ctx), args.Input
	r, is, err := s.issueByNode(in.SubjectID, strings.HasPrefix(string(in.SubjectID), "PR_"))
	if err != nil {
		return nil, err
	}
	out, err := s.run(addIssueComment, AddIssueCommentIn{RepoRef: ref(r), IssueNumber: is.Number, Body: in.Body})
	if err != nil {
		return nil, err
	}
	id := out.(APIIssueComment).ID
	for i := range is.Comments.Len() {
		if c := is.Comments.At(i); c.ID == id {
			return &addCommentPayload{ClientMutationID: in.ClientMutationID, Subject: s.issueNode(r, is),
				CommentEdge: &edge[*commentR]{cursor: cursorAt(i), node: &commentR{s: s, r: r, is: is, c: c}}}, nil
		}
	}
	return nil, gqlErrorf("INTERNAL", "the comment was not stored")
}

type labelablePayload struct {
	ClientMutationID *string
	Labelable        *nodeR
}

type labelsInput struct {
	Input struct {
		ClientMutationID *string
		LabelIDs         []graphql.ID
		LabelableID      graphql.ID
	}
}

func (gqlRoot) AddLabelsToLabelable(ctx context.Context, args labelsInput) (*labelablePayload, error) {
	return gqlFrom(ctx).changeLabels(args, true)
}

func (gqlRoot) RemoveLabelsFromLabelable(ctx context.Context, args labelsInput) (*labelablePayload, error) {
	return gqlFrom(ctx).changeLabels(args, false)
}

// changeLabels adds or removes labels in one action run, so that either
// all of them change or none does.
func (s *gqlState) changeLabels(args labelsInput, add bool) (*labelablePayload, error) {
	in := args.Input
	r, is, err := s.issueByNode(in.LabelableID, strings.HasPrefix(string(in.LabelableID), "PR_"))
	if err != nil {
		return nil, err
	}
	names, err := s.labelNamesByNode(r, in.LabelIDs)
	if err != nil {
		return nil, err
	}
	if add {
		list := make([]any, len(names))
		for i, n := range names {
			list[i] = n
		}
		_, err = s.run(addIssueLabels, IssueLabelsIn{RepoRef: ref(r), IssueNumber: is.Number, Labels: list})
	} else {
		var keep []any
		for _, l := range is.Labels {
			if !containsFold(names, l) {
				keep = append(keep, l)
			}
		}
		if keep == nil {
			keep = []any{}
		}
		s.stamp("remove_issue_label", rankWrite+1)
		_, err = s.run(setIssueLabelsAction, IssueLabelsIn{RepoRef: ref(r), IssueNumber: is.Number, Labels: keep})
	}
	if err != nil {
		return nil, err
	}
	return &labelablePayload{ClientMutationID: in.ClientMutationID, Labelable: s.issueNode(r, is)}, nil
}

type reviewPayload struct {
	ClientMutationID  *string
	PullRequestReview *reviewR
}

// reviewByID finds the review the action answered with.
func (s *gqlState) reviewPayload(r *Repo, is *Issue, id int64, cm *string) *reviewPayload {
	for _, rv := range is.Pull.Reviews {
		if rv.ID == id {
			return &reviewPayload{ClientMutationID: cm, PullRequestReview: &reviewR{s: s, r: r, is: is, rv: rv}}
		}
	}
	return &reviewPayload{ClientMutationID: cm}
}

func (gqlRoot) AddPullRequestReview(ctx context.Context, args struct {
	Input struct {
		Body             *string
		ClientMutationID *string
		Comments         *[]*struct {
			Body     string
			Path     string
			Position int32
		}
		CommitOID     *gqlOID
		Event         *string
		PullRequestID graphql.ID
	}
}) (*reviewPayload, error) {
	s, in := gqlFrom(ctx), args.Input
	r, is, err := s.issueByNode(in.PullRequestID, true)
	if err != nil {
		return nil, err
	}
	w := ReviewWriteIn{Method: "create", RepoRef: ref(r), PullNumber: is.Number}
	if in.Body != nil {
		w.Body = *in.Body
	}
	if in.Event != nil {
		w.Event = *in.Event
	}
	if in.CommitOID != nil {
		w.CommitID = string(*in.CommitOID)
	}
	if in.Comments != nil {
		for _, c := range *in.Comments {
			if c != nil {
				w.Comments = append(w.Comments, ReviewDraftComment{Path: c.Path, Body: c.Body, Line: int(c.Position)})
			}
		}
	}
	out, err := s.run(pullRequestReviewWrite, w)
	if err != nil {
		return nil, err
	}
	return s.reviewPayload(r, is, out.(APIReview).ID, in.ClientMutationID), nil
}

// reviewTarget finds the pull request of a mutation naming a review or a
// pull request, and the review when one is named.
func (s *gqlState) reviewTarget(reviewID, pullID *graphql.ID) (*Repo, *Issue, *Review, error) {
	switch {
	case reviewID != nil:
		if rv, ok := s.node(*reviewID).value().(*reviewR); ok {
			return rv.r, rv.is, rv.rv, nil
		}
		return nil, nil, nil, nodeNotFound(*reviewID)
	case pullID != nil:
		r, is, err := s.issueByNode(*pullID, true)
		return r, is, nil, err
	}
	return nil, nil, nil, gqlErrorf("UNPROCESSABLE", "pullRequestReviewId or pullRequestId is required")
}

// ownPending checks that a named review is the viewer's pending review,
// the one pull_request_review_write submits or deletes.
func (s *gqlState) ownPending(rv *Review) error {
	if rv != nil && (rv.State != "PENDING" || !strings.EqualFold(rv.User, s.w.Me)) {
		return gqlErrorf("UNPROCESSABLE", "Review %s is not a pending review of %s", nodeID("PRR", rv.ID), s.w.Me)
	}
	return nil
}

func (gqlRoot) SubmitPullRequestReview(ctx context.Context, args struct {
	Input struct {
		Body                *string
		ClientMutationID    *string
		Event               string
		PullRequestID       *graphql.ID
		PullRequestReviewID *graphql.ID
	}
}) (*reviewPayload, error) {
	s, in := gqlFrom(ctx), args.Input
	r, is, rv, err := s.reviewTarget(in.PullRequestReviewID, in.PullRequestID)
	if err != nil {
		return nil, err
	}
	if err := s.ownPending(rv); err != nil {
		return nil, err
	}
	w := ReviewWriteIn{Method: "submit_pending", RepoRef: ref(r), PullNumber: is.Number, Event: in.Event}
	if in.Body != nil {
		w.Body = *in.Body
	}
	out, err := s.run(pullRequestReviewWrite, w)
	if err != nil {
		return nil, err
	}
	return s.reviewPayload(r, is, out.(APIReview).ID, in.ClientMutationID), nil
}

func (gqlRoot) DeletePullRequestReview(ctx context.Context, args struct {
	Input struct {
		ClientMutationID    *string
		PullRequestReviewID graphql.ID
	}
}) (*reviewPayload, error) {
	s, in := gqlFrom(ctx), args.Input
	r, is, rv, err := s.reviewTarget(&in.PullRequestReviewID, nil)
	if err != nil {
		return nil, err
	}
	if err := s.ownPending(rv); err != nil {
		return nil, err
	}
	if _, err := s.run(pullRequestReviewWrite, ReviewWriteIn{Method: "delete_pending", RepoRef: ref(r), PullNumber: is.Number}); err != nil {
		return nil, err
	}
	// The review is gone; the payload carries what it was.
	return &reviewPayload{ClientMutationID: in.ClientMutationID, PullRequestReview: &reviewR{s: s, r: r, is: is, rv: rv}}, nil
}

type threadPayload struct {
	ClientMutationID *string
	Thread           *threadR
}

func (gqlRoot) AddPullRequestReviewThread(ctx context.Context, args struct {
	Input struct {
		Body                string
		ClientMutationID    *string
		Line                *int32
		Path                string
		PullRequestID       *graphql.ID
		PullRequestReviewID *graphql.ID
		Side                string
		StartLine           *int32
		StartSide           string
		SubjectType         string
	}
}) (*threadPayload, error) {
	s, in := gqlFrom(ctx), args.Input
	r, is, rv, err := s.reviewTarget(in.PullRequestReviewID, in.PullRequestID)
	if err != nil {
		return nil, err
	}
	if err := s.ownPending(rv); err != nil {
		return nil, err
	}
	w := PendingReviewCommentIn{RepoRef: ref(r), PullNumber: is.Number, Path: in.Path, Body: in.Body, SubjectType: in.SubjectType, Side: in.Side, StartSide: in.StartSide}
	if in.Line != nil {
		w.Line = int(*in.Line)
	}
	if in.StartLine != nil {
		w.StartLine = int(*in.StartLine)
	}
	out, err := s.run(addCommentToPendingReview, w)
	if err != nil {
		return nil, err
	}
	id := out.(APIReviewComment).ID
	for _, c := range is.Pull.ReviewComments {
		if c.ID == id {
			return &threadPayload{ClientMutationID: in.ClientMutationID, Thread: &threadR{s: s, r: r, is: is, root: c}}, nil
		}
	}
	return nil, gqlErrorf("INTERNAL", "the comment was not stored")
}

type subIssuePayload struct {
	ClientMutationID *string
	Issue            *issueR
	SubIssue         *issueR
}

// subIssueWriteByNode runs sub_issue_write for node ids.
func (s *gqlState) subIssueWriteByNode(method string, parentID, subID graphql.ID, cm *string, replace bool, after, before *graphql.ID) (*subIssuePayload, error) {
	r, parent, err := s.issueByNode(parentID, false)
	if err != nil {
		return nil, err
	}
	sr, sub, err := s.issueByNode(subID, false)
	if err != nil {
		return nil, err
	}
	w := SubIssueWriteIn{Method: method, RepoRef: ref(r), IssueNumber: parent.Number, SubIssueID: sub.ID, ReplaceParent: replace}
	for _, p := range []struct {
		id  *graphql.ID
		dst *int64
	}{{after, &w.AfterID}, {before, &w.BeforeID}} {
		if p.id != nil {
			_, x, err := s.issueByNode(*p.id, false)
			if err != nil {
				return nil, err
			}
			*p.dst = x.ID
		}
	}
	if _, err := s.run(subIssueWrite, w); err != nil {
		return nil, err
	}
	return &subIssuePayload{ClientMutationID: cm, Issue: &issueR{s: s, r: r, is: parent}, SubIssue: &issueR{s: s, r: sr, is: sub}}, nil
}

func (gqlRoot) AddSubIssue(ctx context.Context, args struct {
	Input struct {
		ClientMutationID *string
		IssueID          graphql.ID
		ReplaceParent    *bool
		SubIssueID       *graphql.ID
		SubIssueURL      *string
	}
}) (*subIssuePayload, error) {
	s, in := gqlFrom(ctx), args.Input
	sub := in.SubIssueID
	if sub == nil && in.SubIssueURL != nil {
		// https://github.com/{owner}/{repo}/issues/{n}
		parts := strings.Split(strings.TrimPrefix(*in.SubIssueURL, "https://github.com/"), "/")
		if len(parts) == 4 && parts[2] == "issues" {
			if r, err := s.w.repo(parts[0], parts[1]); err == nil {
				for _, is := range r.Issues {
					if parts[3] == strconv.Itoa(is.Number) && is.Pull == nil {
						id := graphql.ID(nodeID("I", is.ID))
						sub = &id
					}
				}
			}
		}
		if sub == nil {
			return nil, gqlErrorf("NOT_FOUND", "Could not resolve to an Issue with the URL of '%s'.", *in.SubIssueURL)
		}
	}
	if sub == nil {
		return nil, gqlErrorf("UNPROCESSABLE", "subIssueId or subIssueUrl is required")
	}
	return s.subIssueWriteByNode("add", in.IssueID, *sub, in.ClientMutationID, in.ReplaceParent != nil && *in.ReplaceParent, nil, nil)
}

func (gqlRoot) RemoveSubIssue(ctx context.Context, args struct {
	Input struct {
		ClientMutationID *string
		IssueID          graphql.ID
		SubIssueID       graphql.ID
	}
}) (*subIssuePayload, error) {
	s, in := gqlFrom(ctx), args.Input
	return s.subIssueWriteByNode("remove", in.IssueID, in.SubIssueID, in.ClientMutationID, false, nil, nil)
}

func (gqlRoot) ReprioritizeSubIssue(ctx context.Context, args struct {
	Input struct {
		AfterID          *graphql.ID
		BeforeID         *graphql.ID
		ClientMutationID *string
		IssueID          graphql.ID
		SubIssueID       graphql.ID
	}
}) (*issuePayload, error) {
	s, in := gqlFrom(ctx), args.Input
	p, err := s.subIssueWriteByNode("reprioritize", in.IssueID, in.SubIssueID, in.ClientMutationID, false, in.AfterID, in.BeforeID)
	if err != nil {
		return nil, err
	}
	return &issuePayload{ClientMutationID: p.ClientMutationID, Issue: p.Issue}, nil
}

type pullPayload struct {
	ClientMutationID *string
	PullRequest      *pullR
}

// setDraft runs update_pull_request with the draft flag, as the REST edit
// of a pull request does.
func (s *gqlState) setDraft(id graphql.ID, cm *string, draft bool) (*pullPayload, error) {
	r, is, err := s.issueByNode(id, true)
	if err != nil {
		return nil, err
	}
	if _, err := s.run(updatePullRequest, UpdatePullIn{RepoRef: ref(r), PullNumber: is.Number, Draft: &draft}); err != nil {
		return nil, err
	}
	return &pullPayload{ClientMutationID: cm, PullRequest: &pullR{issueR{s: s, r: r, is: is}}}, nil
}

type pullIDInput struct {
	Input struct {
		ClientMutationID *string
		PullRequestID    graphql.ID
	}
}

func (gqlRoot) ConvertPullRequestToDraft(ctx context.Context, args pullIDInput) (*pullPayload, error) {
	return gqlFrom(ctx).setDraft(args.Input.PullRequestID, args.Input.ClientMutationID, true)
}

func (gqlRoot) MarkPullRequestReadyForReview(ctx context.Context, args pullIDInput) (*pullPayload, error) {
	return gqlFrom(ctx).setDraft(args.Input.PullRequestID, args.Input.ClientMutationID, false)
}

type threadIDInput struct {
	Input struct {
		ClientMutationID *string
		ThreadID         graphql.ID
	}
}

// resolveThread runs pull_request_review_write's resolve_thread or
// unresolve_thread for the thread the node id names.
func (s *gqlState) resolveThread(args threadIDInput, method string) (*threadPayload, error) {
	in := args.Input
	t, ok := s.node(in.ThreadID).value().(*threadR)
	if !ok {
		return nil, nodeNotFound(in.ThreadID)
	}
	w := ReviewWriteIn{Method: method, RepoRef: ref(t.r), PullNumber: t.is.Number, ThreadID: string(in.ThreadID)}
	if _, err := s.run(pullRequestReviewWrite, w); err != nil {
		return nil, err
	}
	return &threadPayload{ClientMutationID: in.ClientMutationID, Thread: t}, nil
}

func (gqlRoot) ResolveReviewThread(ctx context.Context, args threadIDInput) (*threadPayload, error) {
	return gqlFrom(ctx).resolveThread(args, "resolve_thread")
}

func (gqlRoot) UnresolveReviewThread(ctx context.Context, args threadIDInput) (*threadPayload, error) {
	return gqlFrom(ctx).resolveThread(args, "unresolve_thread")
}
