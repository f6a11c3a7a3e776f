package task

import (
	"strings"
	"testing"
	"time"
)

func TestScrubAgentEnv(t *testing.T) {
	parent := []string{
		"PATH=/bin", "HOME=/home/a", "LANG=C", "ANTHROPIC_API_KEY=sk-ant", "CLAUDE_CODE_OAUTH_TOKEN=oat",
		"AWS_SECRET_ACCESS_KEY=aws", "GITHUB_TOKEN=real-gh", "EXTRA_ONE=1", "EXTRA_TWO=2",
		"POME_API_KEY=pme_team", "POME_SLACK_TOKEN=xoxb-other", "NOEQUALS",
	}
	got := strings.Join(ScrubAgentEnv(parent), "\n")
	if got != "PATH=/bin\nHOME=/home/a\nLANG=C\nANTHROPIC_API_KEY=sk-ant\nCLAUDE_CODE_OAUTH_TOKEN=oat" {
		t.Errorf("default:\n%s", got)
	}
	got = strings.Join(ScrubAgentEnv(append(parent, "POME_AGENT_ENV_ALLOWLIST= EXTRA_TWO ,,POME_API_KEY")), "\n")
	if !strings.Contains(got, "EXTRA_TWO=2") || strings.Contains(got, "EXTRA_ONE") || strings.Contains(got, "pme_team") {
		t.Errorf("allowlist:\n%s", got)
	}
	got = strings.Join(ScrubAgentEnv(append(parent, "POME_INHERIT_AGENT_ENV=1")), "\n")
	for _, want := range []string{"AWS_SECRET_ACCESS_KEY=aws", "GITHUB_TOKEN=real-gh", "EXTRA_ONE=1"} {
		if !strings.Contains(got, want) {
			t.Errorf("inherit lacks %s:\n%s", want, got)
		}
	}
	if strings.Contains(got, "POME_") {
		t.Errorf("POME_* passed on:\n%s", got)
	}
	// Only "1" turns inheritance on, as in the original.
	if got := strings.Join(ScrubAgentEnv(append(parent, "POME_INHERIT_AGENT_ENV=true")), "\n"); strings.Contains(got, "AWS_") {
		t.Errorf("inherit=true:\n%s", got)
	}
	// A later value of a name wins, as in exec's environment.
	if got := ScrubAgentEnv([]string{"PATH=/a", "PATH=/b"}); len(got) != 1 || got[0] != "PATH=/b" {
		t.Errorf("%v", got)
	}
}

func TestContractEnvNamesTheSDKBases(t *testing.T) {
	tk := &Task{Title: "T", Prompt: "Go.", Config: Config{Twins: []string{"stripe", "github", "gmail", "slack"}}}
	root := "http://127.0.0.1:7070"
	sb := &Sandbox{ID: "ses_x", AgentToken: "pat_x", Root: root + "/", Twins: map[string]TwinAccess{
		"stripe": {RESTURL: root + "/stripe/s/ses_x", MCPURL: root + "/stripe/s/ses_x/mcp", Token: "sk_test_x"},
		"github": {RESTURL: root + "/github/s/ses_x", Token: "ghp_x"},
		"gmail":  {RESTURL: root + "/gmail/s/ses_x", Token: "ya29.x"},
		"slack":  {RESTURL: root + "/slack/s/ses_x", Token: "xoxb-x", UserToken: "xoxp-x"},
	}}
	env := "\n" + strings.Join(ContractEnv(tk, sb, "run1", "/runs/t/run1", time.Minute), "\n") + "\n"
	for _, want := range []string{
		"\nPOME_TWIN_BASE_URL=" + root + "/stripe/s/ses_x\n",
		"\nPOME_STRIPE_API_KEY=sk_test_x\n",
		"\nPOME_STRIPE_API_BASE=" + root + "\n",
		"\nPOME_GITHUB_HOST=" + root + "\n",
		"\nPOME_GMAIL_ROOT_URL=" + root + "/\n",
		"\nPOME_SLACK_TOKEN=xoxb-x\n",
		"\nPOME_SLACK_USER_TOKEN=xoxp-x\n",
		"\nPOME_TIMEOUT=60\n",
	} {
		if !strings.Contains(env, want) {
			t.Errorf("lacks %q:\n%s", want, env)
		}
	}
	// Without a known root, no SDK base is guessed.
	sb.Root = ""
	if env := strings.Join(ContractEnv(tk, sb, "r", "/d", time.Minute), "\n"); strings.Contains(env, "API_BASE") || strings.Contains(env, "GITHUB_HOST") {
		t.Errorf("%s", env)
	}
}
