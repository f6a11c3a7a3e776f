package linear_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/shurcooL/graphql"

	"github.com/pomehq/pome/rest/resttest"
	"github.com/pomehq/pome/twins/linear"
)

// send posts body to the twin's path with the Authorization header as
// given, and returns status and body.
func send(t *testing.T, env *resttest.Env, method, url, auth string, body []byte) (int, []byte) {
	t.Helper()
	req, _ := http.NewRequest(method, url, bytes.NewReader(body))
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

func TestCredentialsAsLinearTakesThem(t *testing.T) {
	env := resttest.Start(t, linear.New(), "")
	q := []byte(`{"query":"{ viewer { email } }"}`)
	if !strings.HasPrefix(env.Token, "lin_api_") || env.Created.ProviderCredentials["linear"].Scheme != "" {
		t.Fatalf("credential %+v", env.Created.ProviderCredentials["linear"])
	}
	for _, auth := range []string{env.Token, "Bearer " + env.Token, "Bearer " + env.AgentToken} {
		st, body := send(t, env, http.MethodPost, env.APIURL+"/graphql", auth, q)
		if st != http.StatusOK || !strings.Contains(string(body), "pome-agent@acme.test") {
			t.Errorf("%.12s…: %d %s", auth, st, body)
		}
	}
	// At the server root, the key names the sandbox.
	if st, body := send(t, env, http.MethodPost, env.HTTP.URL+"/graphql", env.Token, q); st != http.StatusOK {
		t.Errorf("root: %d %s", st, body)
	}
	// A credential the seed declares (the original Pome's tokens) opens
	// the sandbox on its own URL, as the token's user.
	seeded := resttest.Start(t, linear.New(), `{"users":[{"email":"lee@acme.test"}],"teams":[{"key":"ENG","name":"Eng"}],"tokens":["lin_api_seededKey"]}`)
	if st, body := send(t, seeded, http.MethodPost, seeded.APIURL+"/graphql", "lin_api_seededKey", q); st != http.StatusOK || !strings.Contains(string(body), "lee@acme.test") {
		t.Errorf("seeded key: %d %s", st, body)
	}
	for _, auth := range []string{"", "lin_api_wrong", "Bearer lin_api_wrong", "Basic " + env.Token} {
		if st, _ := send(t, env, http.MethodPost, env.APIURL+"/graphql", auth, q); st != http.StatusNotFound {
			t.Errorf("%q: %d, want the opaque 404", auth, st)
		}
	}
}

func TestUnsupportedAndInvalidRequests(t *testing.T) {
	env := resttest.Start(t, linear.New(), "")
	st, body := send(t, env, http.MethodGet, env.APIURL+"/v1/issues", env.Token, nil)
	var e struct {
		Errors []struct {
			Message    string         `json:"message"`
			Extensions map[string]any `json:"extensions"`
		} `json:"errors"`
		Pome struct {
			Supported []string `json:"supported"`
		} `json:"pome"`
	}
	json.Unmarshal(body, &e)
	if st != http.StatusNotFound || len(e.Errors) != 1 || !strings.Contains(e.Errors[0].Message, "does not implement GET /v1/issues") ||
		strings.Join(e.Pome.Supported, ",") != "GET /schema.graphql,POST /graphql" {
		t.Fatalf("unsupported: %d %s", st, body)
	}
	// A query for a field Linear has but the twin does not serve fails
	// validation, in Linear's envelope, with 400.
	st, body = send(t, env, http.MethodPost, env.APIURL+"/graphql", env.Token, []byte(`{"query":"{ initiatives { nodes { id } } }"}`))
	if st != http.StatusBadRequest || !strings.Contains(string(body), "GRAPHQL_VALIDATION_FAILED") {
		t.Fatalf("validation: %d %s", st, body)
	}
	st, body = send(t, env, http.MethodGet, env.APIURL+"/schema.graphql", env.Token, nil)
	if st != http.StatusOK || !strings.Contains(string(body), "type Issue {") {
		t.Fatalf("schema: %d %.200s", st, body)
	}
	rows := env.Tape(t)
	if len(rows) != 3 || rows[0].Tool != nil || rows[1].ToolName() != "graphql" || rows[0].StateMutation || rows[1].StateMutation {
		t.Fatalf("tape: %+v", rows)
	}
}

// TestMCPAndGraphQLAgree makes the same change over MCP and over GraphQL
// in two sandboxes: the state changes alike and the tape names one tool.
func TestMCPAndGraphQLAgree(t *testing.T) {
	mcpEnv := resttest.Start(t, linear.New(), "")
	tool(t, mcpEnv, "save_issue", map[string]any{"team": "ENG", "title": "Same change", "priority": 1, "estimate": 5, "labels": []string{"Bug"}})
	tool(t, mcpEnv, "save_comment", map[string]any{"issueId": "ENG-4", "body": "Noted"})

	gqlEnv := resttest.Start(t, linear.New(), "")
	d := gql(t, gqlEnv, "linear", `query { teams { nodes { id } } issueLabels(filter: {name: {eq: "Bug"}}) { nodes { id } } }`, nil)
	gql(t, gqlEnv, "linear", `mutation($in: IssueCreateInput!) { issueCreate(input: $in) { success } }`, map[string]any{"in": map[string]any{
		"teamId": dig(d, "teams", "nodes", 0, "id"), "title": "Same change", "priority": 1, "estimate": 5,
		"labelIds": []any{dig(d, "issueLabels", "nodes", 0, "id")}}})
	gql(t, gqlEnv, "linear", `mutation { commentCreate(input: {issueId: "ENG-4", body: "Noted"}) { success } }`, nil)

	var a, b map[string]any
	json.Unmarshal(mcpEnv.State(t), &a)
	json.Unmarshal(gqlEnv.State(t), &b)
	ia, ib := dig(a, "issues", 3), dig(b, "issues", 3)
	for _, k := range []string{"identifier", "title", "priority", "estimate", "stateId", "labelIds", "creatorId"} {
		if ja, jb := mustJSON(dig(ia, k)), mustJSON(dig(ib, k)); ja != jb {
			t.Errorf("%s: MCP %s, GraphQL %s", k, ja, jb)
		}
	}
	if ca, cb := dig(a, "comments", 1, "body"), dig(b, "comments", 1, "body"); ca != "Noted" || cb != "Noted" {
		t.Errorf("comments %v %v", ca, cb)
	}
	var mcpTools, gqlTools []string
	for _, r := range mcpEnv.Tape(t) {
		if r.StateMutation {
			mcpTools = append(mcpTools, r.ToolName())
		}
	}
	for _, r := range gqlEnv.Tape(t) {
		if r.StateMutation {
			gqlTools = append(gqlTools, r.ToolName())
		}
	}
	if strings.Join(mcpTools, ",") != "save_issue,save_comment" || strings.Join(gqlTools, ",") != "save_issue,save_comment" {
		t.Errorf("tapes: MCP %v, GraphQL %v", mcpTools, gqlTools)
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// bareKey sends the key as @linear/sdk sends an API key.
type bareKey string

func (k bareKey) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", string(k))
	return http.DefaultTransport.RoundTrip(r)
}

// IssueUpdateInput is Linear's input type, named as shurcooL/graphql names
// a variable's type: after the Go type.
type IssueUpdateInput struct {
	StateID  *string `json:"stateId,omitempty"`
	Estimate *int    `json:"estimate,omitempty"`
}

// TestGoGraphQLClient drives the twin with a Go GraphQL client over HTTP,
// typed queries and a mutation with an input variable.
func TestGoGraphQLClient(t *testing.T) {
	env := resttest.Start(t, linear.New(), "")
	c := graphql.NewClient(env.APIURL+"/graphql", &http.Client{Transport: bareKey(env.Token)})
	ctx := context.Background()
	var q struct {
		Team struct {
			Key    string
			States struct {
				Nodes []struct {
					ID   string
					Name string
					Type string
				}
			}
		} `graphql:"team(id: $team)"`
		Issue struct {
			Identifier string
			Title      string
			Priority   float64
			State      struct{ Name string }
			Labels     struct{ Nodes []struct{ Name string } }
		} `graphql:"issue(id: $id)"`
	}
	if err := c.Query(ctx, &q, map[string]any{"team": graphql.String("ENG"), "id": graphql.String("ENG-1")}); err != nil {
		t.Fatal(err)
	}
	if q.Team.Key != "ENG" || q.Issue.State.Name != "Todo" || q.Issue.Priority != 2 || q.Issue.Labels.Nodes[0].Name != "Bug" {
		t.Fatalf("query: %+v", q)
	}
	var done string
	for _, s := range q.Team.States.Nodes {
		if s.Type == "completed" {
			done = s.ID
		}
	}
	est := 5
	var m struct {
		IssueUpdate struct {
			Success bool
			Issue   struct {
				Estimate    float64
				CompletedAt *string
				State       struct{ Name string }
			}
		} `graphql:"issueUpdate(id: $id, input: $input)"`
	}
	if err := c.Mutate(ctx, &m, map[string]any{"id": graphql.String("ENG-1"), "input": IssueUpdateInput{StateID: &done, Estimate: &est}}); err != nil {
		t.Fatal(err)
	}
	if !m.IssueUpdate.Success || m.IssueUpdate.Issue.Estimate != 5 || m.IssueUpdate.Issue.State.Name != "Done" || m.IssueUpdate.Issue.CompletedAt == nil {
		t.Fatalf("mutation: %+v", m)
	}
	rows := env.Tape(t)
	// The team's states are a list: the most specific read the query made.
	if rows[0].ToolName() != "list_issue_statuses" || rows[1].ToolName() != "save_issue" || !rows[1].StateMutation {
		t.Fatalf("tape: %s, %s", rows[0].ToolName(), rows[1].ToolName())
	}
}

// TestSDKDocumentsOverHTTP sends @linear/sdk's read documents over HTTP
// with the SDK's credential header and reads the tool each is taped with.
func TestSDKDocumentsOverHTTP(t *testing.T) {
	env := resttest.Start(t, linear.New(), "")
	b, err := os.ReadFile("testdata/sdk_documents.json")
	if err != nil {
		t.Fatal(err)
	}
	var f struct{ Documents map[string]string }
	json.Unmarshal(b, &f)
	for name, want := range map[string]string{
		"Viewer": "get_user", "Teams": "list_teams", "Issues": "list_issues", "WorkflowStates": "list_issue_statuses",
		"IssueLabels": "list_issue_labels", "Users": "list_users", "Projects": "list_projects", "Cycles": "list_cycles",
		"Comments": "list_comments", "Issue": "get_issue", "Team_States": "list_issue_statuses", "Issue_Comments": "list_comments",
	} {
		vars := map[string]any{"id": "ENG-1"}
		if strings.HasPrefix(name, "Team") {
			vars["id"] = "ENG"
		}
		body, _ := json.Marshal(map[string]any{"query": f.Documents[name], "variables": vars})
		st, out := send(t, env, http.MethodPost, env.APIURL+"/graphql", env.Token, body)
		if st != http.StatusOK || strings.Contains(string(out), `"errors"`) {
			t.Errorf("%s: %d %.300s", name, st, out)
			continue
		}
		rows := env.Tape(t)
		if got := rows[len(rows)-1].ToolName(); got != want {
			t.Errorf("%s taped as %s, want %s", name, got, want)
		}
	}
}
