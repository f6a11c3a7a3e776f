package stripe_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/pomehq/pome/rest"
	"github.com/pomehq/pome/rest/resttest"
	"github.com/pomehq/pome/session"
	"github.com/pomehq/pome/twins"
	"github.com/pomehq/pome/twins/stripe"
)

// sharedKey is what two seed authors who never met may both write: the
// original Pome's bundled tasks all seed one such key.
const sharedKey = "sk_test_pome_sharedshop"

func seedWithKey(pi string) string {
	return `{"api_keys":[{"key":"` + sharedKey + `","sid":"shop","account_id":"acct_shop"}],
	"payment_intents":[{"id":"` + pi + `","account_id":"acct_shop","amount":700,"currency":"usd","status":"requires_action"}]}`
}

type twoTeams struct {
	url          string
	keyA, keyB   string
	sbA, sbB     *session.Created
	createStatus func(team string, body any) (int, *session.Created)
}

func startTwoTeams(t *testing.T) *twoTeams {
	t.Helper()
	keyA, keyB := session.NewAPIKey(), session.NewAPIKey()
	teams, err := session.NewTeams(map[string][]string{"team-a": {keyA}, "team-b": {keyB}})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewUnstartedServer(nil)
	hs.Start()
	t.Cleanup(hs.Close)
	srv := rest.NewServer(rest.Config{Addr: hs.Listener.Addr().String(), PublicURL: hs.URL}, twins.NewRegistry(stripe.New()), resttest.NewStore(t), teams)
	hs.Config.Handler = srv
	tt := &twoTeams{url: hs.URL, keyA: keyA, keyB: keyB}
	tt.createStatus = func(teamKey string, body any) (int, *session.Created) {
		b, _ := json.Marshal(body)
		req, _ := http.NewRequest(http.MethodPost, hs.URL+"/v1/sandboxes", bytes.NewReader(b))
		req.Header.Set("Authorization", "Bearer "+teamKey)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var c session.Created
		data, _ := io.ReadAll(resp.Body)
		_ = json.Unmarshal(data, &c)
		return resp.StatusCode, &c
	}
	create := func(teamKey, seed string) *session.Created {
		st, c := tt.createStatus(teamKey, map[string]any{"twins": []string{"stripe"}, "seed": map[string]json.RawMessage{"stripe": json.RawMessage(seed)}})
		if st != http.StatusCreated {
			t.Fatalf("create: %d", st)
		}
		return c
	}
	tt.sbA = create(keyA, seedWithKey("pi_team_a"))
	tt.sbB = create(keyB, seedWithKey("pi_team_b"))
	return tt
}

func get(t *testing.T, url, token string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestSeededKeyOpensOnlyItsSandbox: two teams seed the same key. On each
// sandbox's own base URL the key reaches that sandbox and no other; at the
// server root, where the key alone would have to pick a sandbox, it
// reaches none; it opens no Pome-only path; and the tape never holds it.
func TestSeededKeyOpensOnlyItsSandbox(t *testing.T) {
	tt := startTwoTeams(t)
	apiA, apiB := tt.sbA.PerTwin["stripe"].APIURL, tt.sbB.PerTwin["stripe"].APIURL

	st, body := get(t, apiA+"/v1/payment_intents", sharedKey)
	if st != http.StatusOK || !strings.Contains(body, "pi_team_a") || strings.Contains(body, "pi_team_b") {
		t.Fatalf("team A's URL: %d %s", st, body)
	}
	st, body = get(t, apiB+"/v1/payment_intents", sharedKey)
	if st != http.StatusOK || !strings.Contains(body, "pi_team_b") || strings.Contains(body, "pi_team_a") {
		t.Fatalf("team B's URL: %d %s", st, body)
	}
	// The root finds a sandbox from the key; a seeded key names none.
	if st, body = get(t, tt.url+"/v1/payment_intents", sharedKey); st == http.StatusOK || strings.Contains(body, "pi_team_") {
		t.Errorf("root with the seeded key: %d %s", st, body)
	}
	// The issued credential still works at the root.
	if st, body = get(t, tt.url+"/v1/payment_intents", tt.sbA.ProviderCredentials["stripe"].Token); st != http.StatusOK || !strings.Contains(body, "pi_team_a") {
		t.Errorf("root with A's issued key: %d %s", st, body)
	}
	// The seeded key is a provider credential: it opens no Pome path.
	if st, _ = get(t, apiA+"/_pome/state", sharedKey); st == http.StatusOK {
		t.Errorf("seeded key read _pome/state: %d", st)
	}
	// MCP on the sandbox's own URL takes it too.
	cs := resttest.ConnectMCP(t, tt.sbA.PerTwin["stripe"].MCPURL, sharedKey)
	text, isErr := resttest.CallTool(t, cs, "list_payment_intents", map[string]any{})
	if isErr || !strings.Contains(text, "pi_team_a") {
		t.Errorf("MCP with the seeded key: %v %s", isErr, text)
	}

	// Team B, holding the same key, cannot read team A's tape or state.
	if st, _ = get(t, tt.url+"/v1/sandboxes/"+tt.sbA.SessionID+"/tapes/stripe", tt.keyB); st == http.StatusOK {
		t.Errorf("team B read team A's tape: %d", st)
	}
	st, tapeBody := get(t, tt.url+"/v1/sandboxes/"+tt.sbA.SessionID+"/tapes/stripe", tt.keyA)
	if st != http.StatusOK || !strings.Contains(tapeBody, "list_payment_intents") {
		t.Fatalf("team A's tape: %d %s", st, tapeBody)
	}
	if strings.Contains(tapeBody, sharedKey) || strings.Contains(tapeBody, "sharedshop") {
		t.Error("the tape holds the seeded key")
	}
	if st, stateBody := get(t, tt.url+"/v1/sandboxes/"+tt.sbA.SessionID+"/state/stripe", tt.keyA); st != http.StatusOK || strings.Contains(stateBody, sharedKey) {
		t.Errorf("state: %d, or it holds the seeded key", st)
	}
}

// TestSeededKeyIsOnlyItsSeeds: a key one sandbox was seeded with does not
// open a sandbox seeded without it, even on that sandbox's own URL.
func TestSeededKeyIsOnlyItsSeeds(t *testing.T) {
	tt := startTwoTeams(t)
	st, c := tt.createStatus(tt.keyB, map[string]any{"twins": []string{"stripe"}, "seed": map[string]json.RawMessage{
		"stripe": json.RawMessage(`{"api_keys":[{"key":"sk_test_pome_other","sid":"x"}]}`)}})
	if st != http.StatusCreated {
		t.Fatalf("create: %d", st)
	}
	if st, _ := get(t, c.PerTwin["stripe"].APIURL+"/v1/payment_intents", sharedKey); st == http.StatusOK {
		t.Errorf("another sandbox's seeded key opened this one: %d", st)
	}
	if st, _ := get(t, c.PerTwin["stripe"].APIURL+"/v1/payment_intents", "sk_test_pome_other"); st != http.StatusOK {
		t.Errorf("its own seeded key: %d", st)
	}
	if st, _ := get(t, tt.sbA.PerTwin["stripe"].APIURL+"/v1/payment_intents", "sk_test_pome_other"); st == http.StatusOK {
		t.Errorf("B's seeded key opened A's sandbox: %d", st)
	}
}

// TestSeedCredentialHash: the twin hashes seeded keys as the session
// layer hashes every presented token, or no seeded key could match.
func TestSeedCredentialHash(t *testing.T) {
	if stripe.HashCredential(sharedKey) != session.HashToken(sharedKey) {
		t.Fatal("stripe.HashCredential and session.HashToken disagree")
	}
}
