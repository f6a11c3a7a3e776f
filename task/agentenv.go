package task

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"
)

// SafeParentEnv are the variables of Pome's own environment an agent
// inherits: what a process needs to find programs, a home and a temporary
// directory, and the locale. The list is the original Pome's.
var SafeParentEnv = []string{"PATH", "HOME", "USERPROFILE", "SystemRoot", "COMSPEC", "TMPDIR", "TEMP", "TMP", "LANG", "LC_ALL"}

// ModelProviderEnv are the model providers' keys an agent inherits, so
// that it can call its model; the list is the original Pome's.
var ModelProviderEnv = []string{
	"AI_GATEWAY_API_KEY", "ANTHROPIC_API_KEY", "CLAUDE_CODE_OAUTH_TOKEN",
	"GOOGLE_API_KEY", "GOOGLE_GENERATIVE_AI_API_KEY", "OPENAI_API_KEY", "OPENROUTER_API_KEY",
}

// Variables that widen what an agent inherits, as in the original Pome.
const (
	// EnvAllowlist names more variables to pass on, comma-separated.
	EnvAllowlist = "POME_AGENT_ENV_ALLOWLIST"
	// EnvInheritAll set to 1 passes on the whole environment.
	EnvInheritAll = "POME_INHERIT_AGENT_ENV"
)

// ScrubAgentEnv returns what an agent inherits of parent: the safe list,
// the model providers' keys and the names POME_AGENT_ENV_ALLOWLIST lists;
// everything when POME_INHERIT_AGENT_ENV=1. POME_* variables never pass,
// not even then: they hold the team key and other sandboxes' tokens, and
// the run sets the agent's own.
func ScrubAgentEnv(parent []string) []string {
	vals := map[string]string{}
	var order []string
	for _, kv := range parent {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			continue
		}
		if _, seen := vals[k]; !seen {
			order = append(order, k)
		}
		vals[k] = v
	}
	keep := map[string]bool{}
	if vals[EnvInheritAll] == "1" {
		for _, k := range order {
			keep[k] = true
		}
	} else {
		for _, k := range SafeParentEnv {
			keep[k] = true
		}
		for _, k := range ModelProviderEnv {
			keep[k] = true
		}
		for _, k := range strings.Split(vals[EnvAllowlist], ",") {
			if k = strings.TrimSpace(k); k != "" {
				keep[k] = true
			}
		}
	}
	out := make([]string, 0, len(keep)+24)
	for _, k := range order {
		if keep[k] && !strings.HasPrefix(k, "POME_") {
			out = append(out, k+"="+vals[k])
		}
	}
	return out
}

// agentEnv is the agent's environment (SPEC §7, and the names the
// original Pome's runner gives agents).
func (r *Runner) agentEnv(t *Task, sb *Sandbox, runID, dir string, timeout time.Duration) []string {
	env := ScrubAgentEnv(r.parentEnv())
	return append(env, ContractEnv(t, sb, runID, dir, timeout)...)
}

// ContractEnv is what a run tells the agent about its sandbox: ours, and
// the original Pome's names for the same things, so that agents written
// for either run unchanged.
func ContractEnv(t *Task, sb *Sandbox, runID, dir string, timeout time.Duration) []string {
	file := t.File
	if abs, err := filepath.Abs(file); err == nil && file != "" {
		file = abs
	}
	env := []string{
		"POME_TASK=" + t.Prompt,
		"POME_TASK_TITLE=" + t.Title,
		"POME_TASK_FILE=" + file,
		"POME_TWIN_NAMES=" + strings.Join(t.Config.Twins, ","),
		"POME_SESSION_ID=" + sb.ID,
		"POME_AUTH_TOKEN=" + sb.AgentToken,
		"POME_RUN_ID=" + runID,
		"POME_ARTIFACTS_DIR=" + dir,
		fmt.Sprintf("POME_TIMEOUT=%d", int(timeout.Seconds())),
	}
	for _, name := range t.Config.Twins {
		a := sb.Twins[name]
		up := strings.ToUpper(name)
		env = append(env, "POME_"+up+"_REST_URL="+a.RESTURL, "POME_"+up+"_MCP_URL="+a.MCPURL, "POME_"+up+"_TOKEN="+a.Token)
		if a.UserToken != "" {
			env = append(env, "POME_"+up+"_USER_TOKEN="+a.UserToken)
		}
	}
	if len(t.Config.Twins) > 0 {
		env = append(env, "POME_TWIN_BASE_URL="+sb.Twins[t.Config.Twins[0]].RESTURL)
	}
	return append(env, SDKEnv(t.Config.Twins, sb.Root, func(twin string) string { return sb.Twins[twin].Token })...)
}

// SDKEnv names what the vendors' own SDKs take, for the twins in the
// list: they reach their sandbox at the server's root, the provider
// credential naming the sandbox. root is the server's root URL.
//
//   - POME_STRIPE_API_KEY, POME_STRIPE_API_BASE: the sk_test_ key and the
//     base stripe SDKs take (they add /v1 themselves).
//   - POME_GITHUB_HOST: GITHUB_HOST for github-mcp-server (a GitHub
//     Enterprise host: it adds /api/v3).
//   - POME_GMAIL_ROOT_URL: rootUrl for googleapis (it adds gmail/v1).
//   - POME_LINEAR_API_KEY, POME_LINEAR_API_URL: @linear/sdk's apiKey and
//     apiUrl (Linear's one GraphQL endpoint, at the server's root).
func SDKEnv(twinNames []string, root string, token func(twin string) string) []string {
	root = strings.TrimRight(root, "/")
	if root == "" {
		return nil
	}
	var env []string
	for _, name := range twinNames {
		switch name {
		case "stripe":
			env = append(env, "POME_STRIPE_API_KEY="+token(name), "POME_STRIPE_API_BASE="+root)
		case "github":
			env = append(env, "POME_GITHUB_HOST="+root)
		case "gmail":
			env = append(env, "POME_GMAIL_ROOT_URL="+root+"/")
		case "linear":
			env = append(env, "POME_LINEAR_API_KEY="+token(name), "POME_LINEAR_API_URL="+root+"/graphql")
		}
	}
	return env
}
