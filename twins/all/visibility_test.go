package all

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/pomehq/pome/twins"
	"github.com/pomehq/pome/twins/twinstest"
)

// The rules test of visibility: every action of every twin, walked against a
// seeded world holding something the caller may not see, with arguments
// aimed at it (see twinstest.WalkHidden). Which actions name the hidden
// thing is read from their input schemas, so a new action is walked without
// being listed here.

// secret is the word, and detail the text, that only hidden things hold.
const (
	secret = "zq7canary"
	detail = "X9DETAIL launch codes"
)

func TestNothingHiddenIsVisible(t *testing.T) {
	cases := map[string][]twinstest.Hidden{
		"github": {githubHidden("org", "umbrella"), githubHidden("user", "carol")},
		"slack":  {slackHidden("private_channel"), slackHidden("im"), slackHidden("mpim")},
		"gmail":  {gmailHidden()},
		// Stripe has one account and no Connect: every object of its world
		// belongs to the caller's key, so nothing in it is private (see
		// TestStripeSeedHasNoOtherAccount).
		"stripe": nil,
		// Linear's API key sees its whole workspace: the twin makes the
		// viewer a member of every team, private ones too (FIDELITY.md),
		// so a Linear seed holds nothing the caller may not see.
		"linear": nil,
	}
	for _, tw := range Registry().All() {
		hs, ok := cases[tw.Name]
		if !ok {
			t.Errorf("twin %s has no visibility case: say here what its seed can hide and walk it", tw.Name)
			continue
		}
		for _, h := range hs {
			rep := twinstest.WalkHidden(t, tw, h)
			t.Logf("%s, %s: %d aimed actions refused, %d others reveal nothing (%d of them find it when visible: %s)",
				tw.Name, h.Name, len(rep.Aimed), len(rep.Others), len(rep.Revealing), strings.Join(rep.Revealing, ", "))
			if len(rep.Aimed)+len(rep.Others) != len(tw.Actions) {
				t.Errorf("%s: walked %d of %d actions", tw.Name, len(rep.Aimed)+len(rep.Others), len(tw.Actions))
			}
			if len(rep.Others) > 0 && len(rep.Revealing) == 0 {
				t.Errorf("%s, %s: no list or search finds the thing even when visible; the arguments miss it", tw.Name, h.Name)
			}
		}
	}
}

// TestStripeSeedHasNoOtherAccount pins why Stripe needs no visibility
// case: its seed cannot hold another account's objects or live-mode ones.
func TestStripeSeedHasNoOtherAccount(t *testing.T) {
	tw, _ := Registry().Get("stripe")
	for _, seed := range []string{
		`{"accounts": [{"id": "acct_other"}]}`,
		`{"customers": [{"email": "x@example.com", "livemode": true}]}`,
		`{"customers": [{"email": "x@example.com", "account": "acct_other"}]}`,
	} {
		if _, err := tw.NewWorld(t.Context(), json.RawMessage(seed)); err == nil {
			t.Errorf("stripe accepts %s", seed)
		}
	}
}

func has(a twins.Action, props ...string) bool {
	for _, p := range props {
		if _, ok := a.InputSchema().Properties[p]; !ok {
			return false
		}
	}
	return true
}

func requires(a twins.Action, props ...string) bool {
	for _, p := range props {
		found := false
		for _, r := range a.InputSchema().Required {
			found = found || r == p
		}
		if !found {
			return false
		}
	}
	return true
}

// at walks a state document: keys of objects, indexes of arrays, and
// "[k=v]" for the first array element whose field k is v.
// firstKey is the smallest key of a JSON object.
func firstKey(v any) any {
	m, _ := v.(map[string]any)
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	if len(keys) == 0 {
		return nil
	}
	sort.Strings(keys)
	return keys[0]
}

func at(v any, path ...string) any {
	for _, p := range path {
		if strings.HasPrefix(p, "[") {
			k, want, _ := strings.Cut(strings.Trim(p, "[]"), "=")
			arr, _ := v.([]any)
			v = nil
			for _, e := range arr {
				if m, ok := e.(map[string]any); ok && fmt.Sprint(m[k]) == want {
					v = e
					break
				}
			}
			continue
		}
		switch x := v.(type) {
		case map[string]any:
			v = x[p]
		case []any:
			var i int
			fmt.Sscan(p, &i)
			if i >= len(x) {
				return nil
			}
			v = x[i]
		default:
			return nil
		}
	}
	return v
}

// githubHidden is a private repository of an organization the
// authenticated user is not in (kind "org") or of another user who has not
// made it a collaborator (kind "user"); shown, the same repository is
// public.
func githubHidden(kind, owner string) twinstest.Hidden {
	repo := "vault" + secret
	full := owner + "/" + repo
	seed := func(private bool) string {
		orgs := `[{"login": "acme", "members": ["pome-agent"]}]`
		if kind == "org" {
			orgs = `[{"login": "acme", "members": ["pome-agent"]}, {"login": "umbrella", "members": ["carol"]}]`
		}
		return fmt.Sprintf(`{
		  "clock": "2026-01-05T09:00:00Z",
		  "users": [{"login": "pome-agent"}, {"login": "carol"}, {"login": "dave"}],
		  "orgs": %s,
		  "repos": [
		    {"owner": "acme", "name": "api", "files": {"README.md": "# api\n"}},
		    {"owner": %q, "name": %q, "private": %[5]v, "description": "%[4]s",
		     "files": {"README.md": "# %[4]s\n", "NOTES.md": "%[4]s\n"},
		     "branches": [{"name": "feature", "message": "%[4]s", "files": {"plan.md": "%[4]s\n"}},
		                  {"name": "scratch", "files": {"scratch.md": "%[4]s\n"}}],
		     "labels": [{"name": "triage", "description": "%[4]s"}],
		     "collaborators": ["carol", "dave"],
		     "milestones": [{"title": "%[4]s"}],
		     "issues": [{"number": 1, "title": "%[4]s", "body": "%[4]s", "user": "carol", "labels": ["triage"],
		                 "assignees": ["carol"], "milestone": 1, "comments": [{"user": "carol", "body": "%[4]s"}]},
		                {"number": 3, "title": "%[4]s", "user": "carol", "locked": true}],
		     "pulls": [{"number": 2, "title": "%[4]s", "body": "%[4]s", "user": "carol", "head": "feature", "base": "main",
		                "requested_reviewers": ["carol"], "reviews": [{"user": "carol", "state": "COMMENTED", "body": "%[4]s"}],
		                "comments": [{"user": "carol", "body": "%[4]s"}]}],
		     "statuses": [{"ref": "main", "state": "success", "context": "ci", "description": "%[4]s"}],
		     "check_runs": [{"ref": "main", "name": "tests", "conclusion": "success"}],
		     "tags": [{"name": "v1", "ref": "main"}],
		     "releases": [{"tag_name": "v1", "name": "v1", "body": "%[4]s"}]}
		  ]
		}`, orgs, owner, repo, secret+" "+detail, private)
	}
	repoOf := func(st map[string]any) any { return at(st, "repos", "[name="+repo+"]") }
	return twinstest.Hidden{
		Name:       "private repository " + full,
		HiddenSeed: seed(true), ShownSeed: seed(false),
		Aimed:   func(a twins.Action) bool { return requires(a, "owner", "repo") },
		Refused: func(e *twins.Error) bool { return e.Code == twins.NotFound },
		Aim: func(map[string]any) map[string]any {
			return map[string]any{"owner": owner, "repo": repo, "query": secret, "org": owner, "username": owner}
		},
		Fill: func(st map[string]any) map[string]any {
			r := repoOf(st)
			mainSHA := at(r, "branches", "[name=main]", "sha")
			return map[string]any{
				"issue_number": 1, "pullNumber": 2, "milestone_number": 1,
				"comment_id": at(r, "issues", "[number=1]", "comments", "0", "id"),
				"event_id":   at(r, "issues", "[number=1]", "events", "0", "id"),
				"name":       "triage", "title": "t", "body": "b", "message": "m", "content": "c",
				"assignees": []string{"carol"}, "labels": []string{"triage"}, "reviewers": []string{"carol"},
				"path": "NOTES.md", "branch": "main", "ref": "main", "tag": "v1", "tag_name": "v2",
				"sha": mainSHA, "head_sha": mainSHA, "state": "success",
				"head": "scratch", "base": "main", "method": "get",
				"files":        []map[string]any{{"path": "new.md", "content": "n"}},
				"sub_issue_id": at(r, "issues", "[number=3]", "id"), "team_slug": "core", "commentId": 997, "field_id": 777,
				"basehead": "main...feature", "commit_sha": mainSHA, "tree": "pending-tree",
				"file_sha": firstKey(at(r, "blobs")),
			}
		},
		Extra: func(st map[string]any) map[string]map[string]any {
			r := repoOf(st)
			return map[string]map[string]any{
				"issue_write":                       {"method": "update", "issue_number": 1, "title": "t2"},
				"add_issue_comment":                 {"body": "b"},
				"update_issue_comment":              {"body": "b"},
				"unlock_issue":                      {"issue_number": 3},
				"label_write":                       {"method": "create", "name": "fresh", "color": "ffffff"},
				"remove_issue_label":                {"name": "triage"},
				"pull_request_review_write":         {"method": "submit_pending", "event": "COMMENT", "body": "b"},
				"add_comment_to_pending_review":     {"path": "plan.md", "subjectType": "FILE"},
				"add_pull_request_review_comment":   {"path": "plan.md", "line": 1},
				"add_reply_to_pull_request_comment": {"body": "b", "pullNumber": 2},
				"request_pull_request_reviewers":    {"reviewers": []string{"dave"}},
				"create_or_update_file":             {"path": "new.md"},
				"delete_branch":                     {"branch": "scratch"},
				"create_branch":                     {"branch": "fresh"},
				"get_git_ref":                       {"ref": "heads/main"},
				"update_git_ref":                    {"ref": "heads/scratch", "force": true, "sha": at(r, "branches", "[name=main]", "sha")},
				"check_repository_collaborator":     {"username": "carol"},
				"add_repository_collaborator":       {"username": "pome-agent"},
				"sub_issue_write":                   {"method": "add"},
				"create_git_tree":                   {"tree": []map[string]any{{"path": "new.md", "content": "n"}}},
			}
		},
		// The shown pull request's head already has its base.
		ControlError: map[string]string{"update_pull_request_branch": "invalid"},
		// A seed holds no issue events, nor a tree no commit points at.
		Patch: func(st map[string]any) {
			is := at(repoOf(st), "issues", "[number=1]").(map[string]any)
			is["events"] = []any{map[string]any{"id": 999, "event": "labeled", "actor": "carol", "label": "triage", "created_at": "2026-01-05T09:00:00Z"}}
			// A value of an issue field, which delete_issue_field_value clears.
			is["field_values"] = []any{map[string]any{"field_id": 777, "value": secret}}
			r := repoOf(st).(map[string]any)
			r["trees"] = map[string]any{"pending-tree": map[string]any{"NOTES.md": firstKey(r["blobs"])}}
			// The authenticated user's pending review, which
			// add_comment_to_pending_review needs.
			pull := at(r, "issues", "[number=2]", "pull").(map[string]any)
			pull["reviews"] = append(pull["reviews"].([]any), map[string]any{"id": 998, "user": "pome-agent", "state": "PENDING",
				"body": "", "commit_id": at(r, "branches", "[name=feature]", "sha"), "submitted_at": "2026-01-05T09:00:00Z"})
			// A review comment of carol's, which
			// add_reply_to_pull_request_comment answers.
			pull["review_comments"] = append(pull["review_comments"].([]any), map[string]any{"id": 997, "user": "carol", "body": secret,
				"path": "plan.md", "line": 1, "side": "RIGHT", "commit_id": at(r, "branches", "[name=feature]", "sha"),
				"created_at": "2026-01-05T09:00:00Z", "updated_at": "2026-01-05T09:00:00Z"})
		},
		Canaries: []string{secret, "X9DETAIL"},
		Part:     func(st map[string]any) any { return repoOf(st) },
	}
}

// slackHidden is a conversation of the given type that the token's user is
// not in: a private channel, alice's DM with bob, or a group DM of alice,
// bob and carol. Shown, the token's user is a member.
func slackHidden(kind string) twinstest.Hidden {
	id := map[string]string{"private_channel": "GVAULT0001", "im": "DVAULT0001", "mpim": "GVAULT0002"}[kind]
	name := `"name": "vault-` + secret + `",`
	if kind == "im" {
		name = ""
	}
	seed := func(member bool) string {
		members := map[string]string{"private_channel": `["UALICE0001", "UBOB000001"]`, "im": `["UALICE0001", "UBOB000001"]`, "mpim": `["UALICE0001", "UBOB000001", "UCAROL0001"]`}[kind]
		if member {
			members = map[string]string{"private_channel": `["UALICE0001", "UBOB000001", "UAGENT0001"]`, "im": `["UALICE0001", "UAGENT0001"]`, "mpim": `["UALICE0001", "UBOB000001", "UAGENT0001"]`}[kind]
		}
		return fmt.Sprintf(`{
		  "auth_user": "pome-agent",
		  "users": [{"id": "UAGENT0001", "name": "pome-agent", "is_admin": true}, {"id": "UALICE0001", "name": "alice"},
		            {"id": "UBOB000001", "name": "bob"}, {"id": "UCAROL0001", "name": "carol"}],
		  "channels": [
		    {"id": "CGENERAL01", "name": "general", "is_general": true},
		    {"id": %q, %s "type": %q, "members": %s, "topic": "%[5]s", "purpose": "%[5]s",
		     "messages": [
		       {"ts": "1764000000.000100", "user": "UALICE0001", "text": "%[5]s", "pinned": true, "files": ["FVAULT0001"],
		        "reactions": [{"name": "eyes", "users": ["UALICE0001", "UAGENT0001"]}],
		        "replies": [{"ts": "1764000000.000200", "user": "UALICE0001", "text": "%[5]s"}]},
		       {"ts": "1764000000.000300", "user": "UALICE0001", "text": "%[5]s"},
		       {"ts": "1764000000.000400", "user": "UAGENT0001", "text": "%[5]s"}
		     ],
		     "bookmarks": [{"title": "%[5]s", "link": "https://example.com/%[6]s"}]}
		  ],
		  "files": [{"id": "FVAULT0001", "name": "%[6]s.txt", "title": "%[5]s", "content": "%[5]s", "user": "UALICE0001", "channels": [%[1]q]}]
		}`, id, name, kind, members, secret+" "+detail, secret)
	}
	chOf := func(st map[string]any) any { return at(st, "channels", "[id="+id+"]") }
	return twinstest.Hidden{
		Name:       kind + " " + id,
		HiddenSeed: seed(false), ShownSeed: seed(true),
		Aimed:   func(a twins.Action) bool { return requires(a, "channel_id") },
		Refused: func(e *twins.Error) bool { return e.Vendor == "channel_not_found" },
		Aim: func(map[string]any) map[string]any {
			return map[string]any{"channel_id": id, "channels": id, "query": secret, "file_id": "FVAULT0001", "user_id": "UALICE0001"}
		},
		Fill: func(map[string]any) map[string]any {
			return map[string]any{
				"ts": "1764000000.000300", "message_ts": "1764000000.000100", "timestamp": "1764000000.000300",
				"post_at": 1796227200, "emoji": "tada", "title": "t", "topic": "t", "purpose": "p", "name": "renamed",
				"users": "UCAROL0001", "channel_name": "vault-" + secret, "email": "alice@acme.test",
				"filename": "f.txt", "length": 1, "files": []map[string]any{{"id": "FVAULT0001"}},
				"scheduled_message_id": "Q0VAULT001",
				"canvas_id":            "FVAULTCNV1", "criteria": map[string]any{"contains_text": secret},
			}
		},
		Extra: func(st map[string]any) map[string]map[string]any {
			hi := map[string]any{"message": "hi"}
			return map[string]map[string]any{
				"slack_send_message": hi, "slack_schedule_message": hi, "slack_send_ephemeral": hi, "slack_send_message_draft": hi,
				"slack_update_canvas":   {"action": "append", "content": "more"},
				"slack_update_message":  {"ts": "1764000000.000400", "message": "edited"},
				"slack_delete_message":  {"ts": "1764000000.000400"},
				"slack_remove_reaction": {"emoji": "eyes"},
				"slack_unpin_message":   {"timestamp": "1764000000.000100"},
				"slack_add_bookmark":    {"link": "https://example.com/new"},
				"slack_remove_bookmark": {"bookmark_id": at(chOf(st), "bookmarks", "0", "id")},
			}
		},
		// A seed holds no scheduled messages and no canvases.
		Patch: func(st map[string]any) {
			st["scheduled_messages"] = []any{map[string]any{"id": "Q0VAULT001", "channel_id": id, "post_at": 1796227200,
				"date_created": 1764000000, "text": secret + " " + detail, "user": "UAGENT0001"}}
			st["canvases"] = []any{map[string]any{"id": "FVAULTCNV1", "title": secret, "user": "UALICE0001", "channel_id": id,
				"created": 1764000000, "updated": 1764000000,
				"sections": []any{map[string]any{"id": "temp:C:VAULT", "type": "paragraph", "markdown": secret + " " + detail}}}}
		},
		ControlError: controlErrors[kind],
		Canaries:     []string{secret, "X9DETAIL", id},
		Part:         func(st map[string]any) any { return chOf(st) },
	}
}

// controlErrors are the aimed Slack methods that fail on a conversation of
// each kind even for a member, with Slack's error there.
var controlErrors = map[string]map[string]string{
	"private_channel": {
		// The patched state gives each conversation a canvas already.
		"slack_create_channel_canvas": "channel_canvas_already_exists",
		"slack_join_channel":          "method_not_supported_for_channel_type",
		"slack_unarchive_channel":     "not_archived",
	},
	"im": {
		"slack_create_channel_canvas": "channel_canvas_already_exists",
		"slack_join_channel":          "method_not_supported_for_channel_type",
		"slack_leave_channel":         "method_not_supported_for_channel_type",
		"slack_invite_to_channel":     "method_not_supported_for_channel_type",
		"slack_kick_from_channel":     "method_not_supported_for_channel_type",
		"slack_archive_channel":       "method_not_supported_for_channel_type",
		"slack_unarchive_channel":     "not_archived",
		"slack_rename_channel":        "method_not_supported_for_channel_type",
	},
	"mpim": {
		"slack_create_channel_canvas": "channel_canvas_already_exists",
		"slack_join_channel":          "method_not_supported_for_channel_type",
		"slack_kick_from_channel":     "method_not_supported_for_channel_type",
		"slack_archive_channel":       "method_not_supported_for_channel_type",
		"slack_unarchive_channel":     "not_archived",
		"slack_rename_channel":        "method_not_supported_for_channel_type",
	},
}

// gmailHidden is alice's mailbox, in a sandbox whose authenticated user is
// pome-agent; shown, alice is the authenticated user.
func gmailHidden() twinstest.Hidden {
	alice := `{"address": "alice@example.com", "name": "Alice",
	  "labels": [{"name": "Vault"}],
	  "messages": [{"id": "18f0a1b2000aa000", "thread": "t", "from": "bob@example.com", "to": ["alice@example.com"],
	                "subject": "%[1]s", "text": "%[1]s", "labels": ["INBOX", "UNREAD", "Vault"],
	                "attachments": [{"filename": "codes.txt", "mimeType": "text/plain", "text": "%[1]s"}]},
	               {"id": "18f0a1b2000ab000", "thread": "t", "from": "bob@example.com", "to": ["alice@example.com"],
	                "subject": "Re: %[1]s", "text": "%[1]s", "labels": ["INBOX"]}],
	  "drafts": [{"to": ["bob@example.com"], "subject": "%[1]s", "text": "%[1]s"}],
	  "filters": [{"id": "filter_vault", "criteria": {"subject": "%[1]s"}, "action": {"addLabelIds": ["Vault"]}}],
	  "forwardingAddresses": [{"forwardingEmail": "vault@example.com"}],
	  "sendAs": [{"sendAsEmail": "vault@example.com", "displayName": "%[1]s"}]}`
	alice = fmt.Sprintf(alice, secret+" "+detail)
	agent := `{"address": "pome-agent@acme.test", "name": "Pome Agent",
	  "messages": [{"from": "bob@example.com", "subject": "hello", "text": "hello"}]}`
	return twinstest.Hidden{
		Name:       "mailbox alice@example.com",
		HiddenSeed: `{"mailboxes": [` + agent + `, ` + alice + `]}`,
		ShownSeed:  `{"mailboxes": [` + alice + `, ` + agent + `]}`,
		Aimed:      func(a twins.Action) bool { return has(a, "userId") },
		Refused: func(e *twins.Error) bool {
			return e.Code == twins.Forbidden && strings.HasPrefix(e.Message, "Delegation denied")
		},
		Aim: func(map[string]any) map[string]any {
			return map[string]any{"userId": "alice@example.com", "q": secret, "query": secret}
		},
		Fill: func(st map[string]any) map[string]any {
			mb := at(st, "mailboxes", "[address=alice@example.com]")
			return map[string]any{
				"messageId": "18f0a1b2000aa000", "threadId": "18f0a1b2000aa000", "ids": []string{"18f0a1b2000ab000"},
				"labelIds": []string{"STARRED"}, "id": at(mb, "labels", "[name=Vault]", "id"),
				"attachmentId": "ATTACHMENT", "startHistoryId": "1",
			}
		},
		Extra: func(st map[string]any) map[string]map[string]any {
			draft := at(st, "mailboxes", "[address=alice@example.com]", "drafts", "0", "id")
			raw := base64.RawURLEncoding.EncodeToString([]byte("From: bob@example.com\r\nTo: alice@example.com\r\nSubject: s\r\n\r\nhi\r\n"))
			mail := map[string]any{"to": []string{"bob@example.com"}, "subject": "s", "body": "b"}
			return map[string]map[string]any{
				"send_message":                  mail,
				"create_draft":                  mail,
				"reply_to_message":              {"body": "b"},
				"insert_message":                {"raw": raw},
				"import_message":                {"raw": raw},
				"get_attachment":                {"attachmentId": "ANGjdJ" + base64.RawURLEncoding.EncodeToString([]byte("18f0a1b2000aa000.1"))},
				"create_label":                  {"name": "New"},
				"update_label":                  {"name": "Renamed"},
				"get_draft":                     {"id": draft},
				"delete_draft":                  {"id": draft},
				"send_draft":                    {"id": draft},
				"update_draft":                  {"id": draft, "to": []string{"bob@example.com"}, "subject": "s2", "body": "b2"},
				"get_filter":                    {"id": "filter_vault"},
				"delete_filter":                 {"id": "filter_vault"},
				"create_filter":                 {"criteria": map[string]any{"from": "bob@example.com"}, "action": map[string]any{"addLabelIds": []string{"STARRED"}}},
				"get_forwarding_address":        {"forwardingEmail": "vault@example.com"},
				"get_send_as":                   {"sendAsEmail": "vault@example.com"},
				"apply_sensitive_message_label": {"labelOption": "TRASH"},
				"apply_sensitive_thread_label":  {"labelOption": "SPAM"},
			}
		},
		Canaries: []string{secret, "X9DETAIL"},
		Part: func(st map[string]any) any {
			return at(st, "mailboxes", "[address=alice@example.com]")
		},
	}
}
