package linear

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/pomehq/pome/twins"
)

// checks are the original Pome's eight Linear checks, under its ids,
// sentences and parameter names, with its meaning (task files written for
// it grade the same here), then ours. An issue is named by its exact
// title within a team, as the original's checks name it: a task may ask
// for an issue that does not exist yet, so it has no identifier to give.

var (
	paramTitle = twins.Param{Name: "title", Type: "string", Pattern: `[^"\n]+`, Example: "Orders 500 after deploy"}
	paramTeam  = twins.Param{Name: "team", Type: "team_key", Pattern: `[A-Z][A-Z0-9]*`, Example: "ENG"}
	// paramStateName is free text: workflow state names are each team's.
	paramStateName = twins.Param{Name: "state", Type: "string", Pattern: `[^"\n]+`, Example: "In Progress"}
	paramLabelName = twins.Param{Name: "label", Type: "string", Pattern: `[^"\n]+`, Example: "Agent"}
	paramEstimate  = twins.Param{Name: "estimate", Type: "integer", Pattern: `0|[1-9][0-9]*`, Example: "2"}
	paramUserRef   = twins.Param{Name: "user", Type: "string", Pattern: "[^`\\n]+", Example: "dev@pome-twin.test"}
	paramNeedle    = twins.Param{Name: "needle", Type: "string", Pattern: `[^"\n]+`, Example: "triage"}
)

func checks() []*twins.Check {
	return append(originalChecks(), ownChecks()...)
}

func originalChecks() []*twins.Check {
	return []*twins.Check{
		{
			ID: "linear.issue-exists", Template: "An issue titled \"{title}\" exists in `{team}`",
			Params:    []twins.Param{paramTitle, paramTeam},
			Substrate: twins.SubstrateFinal, Polarity: twins.Positive,
			Description: "An unarchived issue with exactly this title exists in the team (by key). A renamed or archived issue does not count.",
			Eval: func(in *twins.Input, args map[string]string) (twins.Result, error) {
				w, is, path, miss, err := resolveIssue(in.Final, args)
				if err != nil || is == nil {
					return miss, err
				}
				_ = w
				return twins.Pass(fmt.Sprintf("an issue titled %q exists in `%s` (%s)", args["title"], args["team"], is.Identifier), twins.Evidence{StatePaths: []string{path}}), nil
			},
		},
		{
			ID: "linear.issue-state", Template: "Issue \"{title}\" in `{team}` is in state \"{state}\"",
			Params:    []twins.Param{paramTitle, paramTeam, paramStateName},
			Substrate: twins.SubstrateFinal, Polarity: twins.Positive,
			Description: "The issue (exact title, within the team) is in the named workflow state, compared case-insensitively. " +
				"An issue that is missing, archived or ambiguous fails.",
			Eval: func(in *twins.Input, args map[string]string) (twins.Result, error) {
				w, is, path, miss, err := resolveIssue(in.Final, args)
				if err != nil || is == nil {
					return miss, err
				}
				name := "(unknown)"
				ev := twins.Evidence{StatePaths: []string{path + "/stateId"}}
				if t, ti := w.teamIndex(is.TeamID); t != nil {
					for si, s := range t.States {
						if s.ID == is.StateID {
							name = s.Name
							ev.StatePaths = append(ev.StatePaths, twins.Pointer("teams", ti, "states", si, "name"))
						}
					}
				}
				reason := fmt.Sprintf("issue state is %q (wanted %q)", name, args["state"])
				if strings.EqualFold(name, args["state"]) {
					return twins.Pass(reason, ev), nil
				}
				return twins.Fail(reason, ev), nil
			},
		},
		{
			ID: "linear.issue-has-label", Template: "Issue \"{title}\" in `{team}` has label \"{label}\"",
			Params:    []twins.Param{paramTitle, paramTeam, paramLabelName},
			Substrate: twins.SubstrateFinal, Polarity: twins.Positive,
			Description: "The issue carries a label of this name (team or workspace label), compared case-insensitively.",
			Eval: func(in *twins.Input, args map[string]string) (twins.Result, error) {
				w, is, path, miss, err := resolveIssue(in.Final, args)
				if err != nil || is == nil {
					return miss, err
				}
				ev := twins.Evidence{StatePaths: []string{path + "/labelIds", "/labels"}}
				for _, id := range is.LabelIDs {
					if l := w.label(id); l != nil && strings.EqualFold(l.Name, args["label"]) {
						return twins.Pass(fmt.Sprintf("issue carries %d label(s), %q among them", len(is.LabelIDs), l.Name), ev), nil
					}
				}
				return twins.Fail(fmt.Sprintf("issue carries %d label(s) (wanted %q)", len(is.LabelIDs), args["label"]), ev), nil
			},
		},
		{
			ID: "linear.issue-estimate", Template: "Issue \"{title}\" in `{team}` has estimate {estimate}",
			Params:    []twins.Param{paramTitle, paramTeam, paramEstimate},
			Substrate: twins.SubstrateFinal, Polarity: twins.Positive,
			Description: "The issue's estimate is this number; an unset estimate fails.",
			Eval: func(in *twins.Input, args map[string]string) (twins.Result, error) {
				_, is, path, miss, err := resolveIssue(in.Final, args)
				if err != nil || is == nil {
					return miss, err
				}
				want, _ := strconv.ParseFloat(args["estimate"], 64)
				ev := twins.Evidence{StatePaths: []string{path + "/estimate"}}
				if is.Estimate == nil {
					return twins.Fail(fmt.Sprintf("issue estimate is unset (wanted %s)", args["estimate"]), ev), nil
				}
				reason := fmt.Sprintf("issue estimate is %s (wanted %s)", strconv.FormatFloat(*is.Estimate, 'f', -1, 64), args["estimate"])
				if *is.Estimate == want {
					return twins.Pass(reason, ev), nil
				}
				return twins.Fail(reason, ev), nil
			},
		},
		{
			ID: "linear.issue-assignee", Template: "Issue \"{title}\" in `{team}` is assigned to `{user}`",
			Params:    []twins.Param{paramTitle, paramTeam, paramUserRef},
			Substrate: twins.SubstrateFinal, Polarity: twins.Positive,
			Description: "The issue's assignee matches the reference by email, name or display name (case-insensitively); an unassigned issue fails.",
			Eval: func(in *twins.Input, args map[string]string) (twins.Result, error) {
				w, is, path, miss, err := resolveIssue(in.Final, args)
				if err != nil || is == nil {
					return miss, err
				}
				ev := twins.Evidence{StatePaths: []string{path + "/assigneeId"}}
				u := w.user(is.AssigneeID)
				if u == nil {
					return twins.Fail("issue has no assignee", ev), nil
				}
				ev.StatePaths = append(ev.StatePaths, "/users")
				for _, name := range []string{u.Email, u.Name, u.DisplayName} {
					if name != "" && strings.EqualFold(name, args["user"]) {
						return twins.Pass(fmt.Sprintf("issue is assigned to `%s`", u.Email), ev), nil
					}
				}
				return twins.Fail(fmt.Sprintf("issue is assigned to `%s` (wanted `%s`)", u.Email, args["user"]), ev), nil
			},
		},
		{
			ID: "linear.issue-comment-contains", Template: "A comment on issue \"{title}\" in `{team}` contains \"{needle}\"",
			Params:    []twins.Param{paramTitle, paramTeam, paramNeedle},
			Substrate: twins.SubstrateFinal, Polarity: twins.Positive,
			Description: "Some comment or threaded reply on the issue contains the text (case-sensitively, as in the original Pome).",
			Eval: func(in *twins.Input, args map[string]string) (twins.Result, error) {
				w, is, _, miss, err := resolveIssue(in.Final, args)
				if err != nil || is == nil {
					return miss, err
				}
				var hits []string
				n := 0
				for i, c := range w.Comments {
					if c.IssueID != is.ID {
						continue
					}
					n++
					if strings.Contains(c.Body, args["needle"]) {
						hits = append(hits, twins.Pointer("comments", i, "body"))
					}
				}
				if len(hits) > 0 {
					return twins.Pass(fmt.Sprintf("a comment contains %q", args["needle"]), twins.Evidence{StatePaths: hits}), nil
				}
				return twins.Fail(fmt.Sprintf("no comment contains %q (%d comment(s) scanned)", args["needle"], n), twins.Evidence{StatePaths: []string{"/comments"}}), nil
			},
		},
		{
			ID: "linear.issue-threaded-reply", Template: "A threaded reply to a seeded comment exists on issue \"{title}\" in `{team}`",
			Params:    []twins.Param{paramTitle, paramTeam},
			Substrate: twins.SubstrateSeedFinal, Polarity: twins.Positive,
			Description: "A comment on the issue replies in the thread of a comment the seed held: replying in an existing thread, " +
				"not posting a comment and replying to it. It says nothing about who wrote the reply or what it says.",
			Eval: func(in *twins.Input, args map[string]string) (twins.Result, error) {
				if in.Seed == nil {
					return twins.Result{}, fmt.Errorf("linear.issue-threaded-reply needs the seed")
				}
				_, seedIssue, _, miss, err := resolveIssue(in.Seed, args)
				if err != nil || seedIssue == nil {
					miss.Reason = "in the seed: " + miss.Reason
					miss.Evidence = twins.Evidence{}
					return miss, err
				}
				seed, _ := twins.World[World](in.Seed)
				seeded := map[string]bool{}
				for _, c := range seed.Comments {
					if c.IssueID == seedIssue.ID {
						seeded[c.ID] = true
					}
				}
				w, is, _, miss, err := resolveIssue(in.Final, args)
				if err != nil || is == nil {
					return miss, err
				}
				var hits []string
				for i, c := range w.Comments {
					if c.IssueID == is.ID && c.ParentID != "" && seeded[c.ParentID] && !seeded[c.ID] {
						hits = append(hits, twins.Pointer("comments", i))
					}
				}
				if len(hits) > 0 {
					return twins.Pass(fmt.Sprintf("%d repl%s to a seeded comment", len(hits), plural(len(hits), "y", "ies")), twins.Evidence{StatePaths: hits}), nil
				}
				return twins.Fail(fmt.Sprintf("no reply to any of the %d seeded comment(s)", len(seeded)), twins.Evidence{StatePaths: []string{"/comments"}}), nil
			},
		},
		twins.NoUnsupportedEndpointCheck("linear", "linear.no-unsupported-endpoint", "No unsupported endpoint was called"),
	}
}

func ownChecks() []*twins.Check {
	return []*twins.Check{
		{
			ID: "linear.no-new-issues", Template: "No new issue was created in `{team}`",
			Params:    []twins.Param{paramTeam},
			Substrate: twins.SubstrateSeedFinal, Polarity: twins.Negative,
			Description: "The team holds no issue the seed did not hold (by id; an issue moved into the team counts as new there).",
			Eval:        evalNothingNew(true),
		},
		{
			ID: "linear.no-new-comments", Template: "No new comment was posted on Linear",
			Substrate: twins.SubstrateSeedFinal, Polarity: twins.Negative,
			Description: "No issue holds a comment or reply the seed did not hold.",
			Eval:        evalNothingNew(false),
		},
	}
}

func evalNothingNew(issues bool) func(in *twins.Input, args map[string]string) (twins.Result, error) {
	return func(in *twins.Input, args map[string]string) (twins.Result, error) {
		w, err := twins.World[World](in.Final)
		if err != nil {
			return twins.Result{}, err
		}
		seeded := map[string]bool{}
		if in.Seed != nil {
			s, err := twins.World[World](in.Seed)
			if err != nil {
				return twins.Result{}, err
			}
			for _, is := range s.Issues {
				seeded["i"+is.ID+"@"+is.TeamID] = true
			}
			for _, c := range s.Comments {
				seeded["c"+c.ID] = true
			}
		}
		var paths []string
		if issues {
			t := w.findTeamByKey(args["team"])
			if t == nil {
				return twins.Fail(fmt.Sprintf("team `%s` not found", args["team"]), twins.Evidence{StatePaths: []string{"/teams"}}), nil
			}
			for i, is := range w.Issues {
				if is.TeamID == t.ID && !seeded["i"+is.ID+"@"+is.TeamID] {
					paths = append(paths, twins.Pointer("issues", i))
				}
			}
			if len(paths) > 0 {
				return twins.Fail(fmt.Sprintf("%d new issue(s) in `%s`", len(paths), t.Key), twins.Evidence{StatePaths: paths}), nil
			}
			return twins.Pass(fmt.Sprintf("no new issue in `%s`", t.Key), twins.Evidence{StatePaths: []string{"/issues"}}), nil
		}
		for i, c := range w.Comments {
			if !seeded["c"+c.ID] {
				paths = append(paths, twins.Pointer("comments", i))
			}
		}
		if len(paths) > 0 {
			return twins.Fail(fmt.Sprintf("%d new comment(s)", len(paths)), twins.Evidence{StatePaths: paths}), nil
		}
		return twins.Pass("no new comment", twins.Evidence{StatePaths: []string{"/comments"}}), nil
	}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func (w *World) findTeamByKey(key string) *Team {
	for _, t := range w.Teams {
		if t.Key == key {
			return t
		}
	}
	return nil
}

func (w *World) teamIndex(id string) (*Team, int) {
	for i, t := range w.Teams {
		if t.ID == id {
			return t, i
		}
	}
	return nil, -1
}

// resolveIssue finds the one unarchived issue with exactly the title in
// the team with exactly the key, as the original's checks do; miss is the
// failed result when there is none, or several.
func resolveIssue(world any, args map[string]string) (w *World, is *Issue, path string, miss twins.Result, err error) {
	w, err = twins.World[World](world)
	if err != nil {
		return nil, nil, "", twins.Result{}, err
	}
	t := w.findTeamByKey(args["team"])
	if t == nil {
		return w, nil, "", twins.Fail(fmt.Sprintf("team `%s` not found", args["team"]), twins.Evidence{StatePaths: []string{"/teams"}}), nil
	}
	var found []int
	for i, x := range w.Issues {
		if x.TeamID == t.ID && x.Title == args["title"] && x.ArchivedAt == nil {
			found = append(found, i)
		}
	}
	switch len(found) {
	case 1:
		return w, w.Issues[found[0]], twins.Pointer("issues", found[0]), twins.Result{}, nil
	case 0:
		return w, nil, "", twins.Fail(fmt.Sprintf("no issue titled %q in `%s`", args["title"], t.Key), twins.Evidence{StatePaths: []string{"/issues"}}), nil
	}
	return w, nil, "", twins.Fail(fmt.Sprintf("%d issues in `%s` share that title", len(found), t.Key), twins.Evidence{StatePaths: []string{"/issues"}}), nil
}
