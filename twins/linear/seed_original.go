package linear

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/pomehq/pome/twins"
)

// The original Pome's Linear seed format (its tasks' .seed.json sidecars):
// flat lists of users, teams (with states), labels, projects, cycles,
// issues and comments, each referring to the others by key, email, name,
// title or id, plus the credentials, OAuth apps and webhooks of its
// standalone server. It is decoded as strictly as ours and converted into
// ours, so both build the same kind of world through one builder.

// originalSeed is the original's document. Its server settings (defaultSid,
// baseUrl, strictScopes) and its OAuth apps and webhooks are accepted and
// have no effect: a sandbox has its own URL, credentials and no outbound
// delivery.
type originalSeed struct {
	Clock        string             `json:"clock,omitempty"`
	DefaultSid   string             `json:"defaultSid,omitempty"`
	BaseURL      string             `json:"baseUrl,omitempty"`
	StrictScopes bool               `json:"strictScopes,omitempty"`
	Organization *originalOrg       `json:"organization,omitempty"`
	Users        []originalUser     `json:"users,omitempty"`
	Teams        []originalTeam     `json:"teams,omitempty"`
	Labels       []originalLabel    `json:"labels,omitempty"`
	Projects     []originalProject  `json:"projects,omitempty"`
	Cycles       []originalCycle    `json:"cycles,omitempty"`
	Issues       []originalIssue    `json:"issues,omitempty"`
	Comments     []originalComment  `json:"comments,omitempty"`
	Documents    []originalDocument `json:"documents,omitempty"`
	OAuthApps    []json.RawMessage  `json:"oauthApps,omitempty"`
	Tokens       []originalToken    `json:"tokens,omitempty"`
	Webhooks     []json.RawMessage  `json:"webhooks,omitempty"`
	Meta         json.RawMessage    `json:"_meta,omitempty"`
}

type originalOrg struct {
	ID     string `json:"id,omitempty"`
	Name   string `json:"name,omitempty"`
	URLKey string `json:"urlKey,omitempty"`
}

type originalUser struct {
	ID          string  `json:"id,omitempty"`
	Email       string  `json:"email"`
	Name        string  `json:"name,omitempty"`
	DisplayName string  `json:"displayName,omitempty"`
	AvatarURL   *string `json:"avatarUrl,omitempty"`
	Active      *bool   `json:"active,omitempty"`
	Admin       bool    `json:"admin,omitempty"`
	App         bool    `json:"app,omitempty"`
}

type originalTeam struct {
	ID          string          `json:"id,omitempty"`
	Key         string          `json:"key"`
	Name        string          `json:"name"`
	Description *string         `json:"description,omitempty"`
	Private     bool            `json:"private,omitempty"`
	States      []originalState `json:"states,omitempty"`
}

type originalState struct {
	ID       string   `json:"id,omitempty"`
	Name     string   `json:"name"`
	Type     string   `json:"type,omitempty"`
	Position *float64 `json:"position,omitempty"`
}

type originalLabel struct {
	ID          string  `json:"id,omitempty"`
	Name        string  `json:"name"`
	Color       string  `json:"color,omitempty"`
	Description *string `json:"description,omitempty"`
	Team        string  `json:"team,omitempty"`
}

type originalProject struct {
	ID          string  `json:"id,omitempty"`
	Name        string  `json:"name"`
	Description *string `json:"description,omitempty"`
	State       string  `json:"state,omitempty"`
	Team        string  `json:"team,omitempty"`
}

type originalCycle struct {
	ID       string  `json:"id,omitempty"`
	Team     string  `json:"team"`
	Name     string  `json:"name"`
	Number   int     `json:"number,omitempty"`
	StartsAt *string `json:"startsAt,omitempty"`
	EndsAt   *string `json:"endsAt,omitempty"`
}

type originalIssue struct {
	ID          string   `json:"id,omitempty"`
	Team        string   `json:"team"`
	Title       string   `json:"title"`
	Description *string  `json:"description,omitempty"`
	Priority    int      `json:"priority,omitempty"`
	State       string   `json:"state,omitempty"`
	Assignee    string   `json:"assignee,omitempty"`
	Creator     string   `json:"creator,omitempty"`
	Delegate    string   `json:"delegate,omitempty"`
	Project     string   `json:"project,omitempty"`
	Cycle       string   `json:"cycle,omitempty"`
	Parent      string   `json:"parent,omitempty"`
	Estimate    *float64 `json:"estimate,omitempty"`
	Labels      []string `json:"labels,omitempty"`
	DueDate     *string  `json:"dueDate,omitempty"`
	CreatedAt   string   `json:"createdAt,omitempty"`
	UpdatedAt   string   `json:"updatedAt,omitempty"`
}

type originalComment struct {
	ID        string `json:"id,omitempty"`
	Issue     string `json:"issue"`
	Body      string `json:"body"`
	Parent    string `json:"parent,omitempty"`
	User      string `json:"user,omitempty"`
	CreatedAt string `json:"createdAt,omitempty"`
}

type originalDocument struct {
	ID        string  `json:"id,omitempty"`
	Title     string  `json:"title"`
	Content   *string `json:"content,omitempty"`
	Slug      string  `json:"slug,omitempty"`
	Project   string  `json:"project,omitempty"`
	Team      string  `json:"team,omitempty"`
	Issue     string  `json:"issue,omitempty"`
	Cycle     string  `json:"cycle,omitempty"`
	Icon      *string `json:"icon,omitempty"`
	Color     *string `json:"color,omitempty"`
	Creator   string  `json:"creator,omitempty"`
	CreatedAt string  `json:"createdAt,omitempty"`
	UpdatedAt string  `json:"updatedAt,omitempty"`
}

type originalToken struct {
	Token     string          `json:"token"`
	Type      string          `json:"type,omitempty"`
	User      string          `json:"user,omitempty"`
	App       string          `json:"app,omitempty"`
	Scopes    json.RawMessage `json:"scopes,omitempty"`
	Actor     string          `json:"actor,omitempty"`
	Sid       string          `json:"sid,omitempty"`
	ExpiresAt *string         `json:"expiresAt,omitempty"`
}

// originalOnlyKeys are top-level keys only the original's format has.
var originalOnlyKeys = []string{"defaultSid", "baseUrl", "strictScopes", "organization", "oauthApps", "webhooks", "comments", "cycles", "_meta"}

// isOriginalSeed reports whether a seed is in the original's format: it
// has a key only that format has, or its users carry camelCase names.
func isOriginalSeed(raw json.RawMessage) bool {
	var top map[string]json.RawMessage
	if json.Unmarshal(raw, &top) != nil {
		return false
	}
	for _, k := range originalOnlyKeys {
		if _, ok := top[k]; ok {
			return true
		}
	}
	return bytes.Contains(raw, []byte(`"displayName"`)) || bytes.Contains(raw, []byte(`"createdAt"`))
}

func str(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// convertOriginal decodes the original's seed and restates it as ours.
func convertOriginal(raw json.RawMessage) (*Seed, error) {
	var o originalSeed
	if err := twins.DecodeSeed(raw, &o); err != nil {
		return nil, err
	}
	s := &Seed{Clock: o.Clock}
	if o.Organization != nil {
		s.Workspace = &SeedWorkspace{ID: o.Organization.ID, Name: o.Organization.Name, URLKey: o.Organization.URLKey}
		if s.Workspace.Name == "" {
			s.Workspace.Name = "Pome Twin"
		}
	}
	for _, u := range o.Users {
		s.Users = append(s.Users, SeedUser{ID: u.ID, Email: u.Email, Name: u.Name, DisplayName: u.DisplayName, Admin: u.Admin, App: u.App, Active: u.Active})
	}
	// The token's user is the viewer, as the original resolves its
	// credential; else the first admin, else the first user.
	for _, t := range o.Tokens {
		if t.User != "" {
			s.Viewer = t.User
			break
		}
	}
	if s.Viewer == "" {
		for _, u := range o.Users {
			if u.Admin {
				s.Viewer = u.Email
				break
			}
		}
	}
	teamIdx := map[string]int{}
	for i, t := range o.Teams {
		st := SeedTeam{ID: t.ID, Key: t.Key, Name: t.Name, Description: str(t.Description), Private: t.Private}
		for _, ss := range t.States {
			st.States = append(st.States, SeedState{ID: ss.ID, Name: ss.Name, Type: ss.Type, Position: ss.Position})
		}
		s.Teams = append(s.Teams, st)
		teamIdx[t.Key] = i
		if t.ID != "" {
			teamIdx[t.ID] = i
		}
	}
	teamOf := func(path, ref string) (int, error) {
		i, ok := teamIdx[ref]
		if !ok {
			return 0, twins.SeedErrorf(path, "no team %q", ref)
		}
		return i, nil
	}
	for i, l := range o.Labels {
		sl := SeedLabel{ID: l.ID, Name: l.Name, Color: l.Color, Description: str(l.Description)}
		if l.Team == "" {
			s.Labels = append(s.Labels, sl)
			continue
		}
		ti, err := teamOf(twins.Pointer("labels", i, "team"), l.Team)
		if err != nil {
			return nil, err
		}
		s.Teams[ti].Labels = append(s.Teams[ti].Labels, sl)
	}
	for i, c := range o.Cycles {
		ti, err := teamOf(twins.Pointer("cycles", i, "team"), c.Team)
		if err != nil {
			return nil, err
		}
		s.Teams[ti].Cycles = append(s.Teams[ti].Cycles, SeedCycle{ID: c.ID, Number: c.Number, Name: c.Name, StartsAt: str(c.StartsAt), EndsAt: str(c.EndsAt)})
	}
	for i, p := range o.Projects {
		sp := SeedProject{ID: p.ID, Name: p.Name, Description: str(p.Description), State: p.State}
		if p.Team != "" {
			ti, err := teamOf(twins.Pointer("projects", i, "team"), p.Team)
			if err != nil {
				return nil, err
			}
			sp.Teams = []string{s.Teams[ti].Key}
		}
		s.Projects = append(s.Projects, sp)
	}
	for i, is := range o.Issues {
		if _, err := teamOf(twins.Pointer("issues", i, "team"), is.Team); err != nil {
			return nil, err
		}
		si := SeedIssue{ID: is.ID, Team: s.Teams[teamIdx[is.Team]].Key, Title: is.Title, Description: str(is.Description),
			State: is.State, Priority: is.Priority, Estimate: is.Estimate, Assignee: is.Assignee, Creator: is.Creator,
			Labels: is.Labels, Parent: is.Parent, Project: is.Project, Cycle: is.Cycle, DueDate: str(is.DueDate),
			CreatedAt: is.CreatedAt, UpdatedAt: is.UpdatedAt}
		s.Issues = append(s.Issues, si)
	}
	// Comments hang off their issue (by id, title or identifier), and
	// replies off their parent comment.
	issueOf := map[string]int{}
	for i, c := range o.Comments {
		p := twins.Pointer("comments", i)
		sc := SeedComment{ID: c.ID, User: c.User, Body: c.Body, CreatedAt: c.CreatedAt, Parent: c.Parent}
		if sc.ID == "" {
			sc.ID = "comment_seed_" + strconv.Itoa(i+1)
		}
		ii := originalIssueIndex(s, c.Issue)
		if c.Parent != "" {
			pi, ok := issueOf[c.Parent]
			if !ok {
				return nil, twins.SeedErrorf(p+"/parent", "no earlier comment %q", c.Parent)
			}
			ii = pi
		}
		if ii < 0 {
			return nil, twins.SeedErrorf(p+"/issue", "no issue %q", c.Issue)
		}
		s.Issues[ii].Comments = append(s.Issues[ii].Comments, sc)
		issueOf[sc.ID] = ii
	}
	for _, d := range o.Documents {
		s.Documents = append(s.Documents, SeedDocument{ID: d.ID, Title: d.Title, Content: str(d.Content), Project: d.Project, Team: d.Team, Issue: d.Issue, Creator: d.Creator})
	}
	for _, t := range o.Tokens {
		if t.Token != "" {
			s.Tokens = append(s.Tokens, t.Token)
		}
	}
	return s, nil
}

// originalIssueIndex finds an issue of the seed by id, title or
// identifier (KEY-n, n counting the team's issues in seed order).
func originalIssueIndex(s *Seed, ref string) int {
	for i, is := range s.Issues {
		if is.ID != "" && is.ID == ref || is.Title == ref {
			return i
		}
	}
	if m := identifierRE.FindStringSubmatch(ref); m != nil {
		n := 0
		for i, is := range s.Issues {
			if strings.EqualFold(is.Team, m[1]) {
				n++
				if fmt.Sprint(n) == m[2] {
					return i
				}
			}
		}
	}
	return -1
}
