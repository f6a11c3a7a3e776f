package task

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// Model judge providers: the wire format a model judge speaks.
const (
	// ProviderOpenAI is OpenAI's chat completions API, which most model
	// servers (hosted gateways, vLLM, Ollama, LM Studio, …) also speak.
	ProviderOpenAI = "openai"
	// ProviderAnthropic is Anthropic's messages API.
	ProviderAnthropic = "anthropic"
)

// Environment a model judge reads.
const (
	EnvLLMBaseURL       = "POME_LLM_BASE_URL"
	EnvLLMAPIKey        = "POME_LLM_API_KEY"
	EnvLLMModel         = "POME_LLM_MODEL"
	EnvAnthropicAPIKey  = "ANTHROPIC_API_KEY"
	EnvAnthropicBaseURL = "ANTHROPIC_BASE_URL"
)

// Defaults of the model judges. DefaultJudgeModel is the original Pome's
// default judge (its ## Config `judge`), which is an Anthropic model.
const (
	DefaultOpenAIBaseURL    = "https://api.openai.com/v1"
	DefaultAnthropicBaseURL = "https://api.anthropic.com"
	DefaultJudgeModel       = "claude-haiku-4-5"
	anthropicVersion        = "2023-06-01"
)

// LLMSettings is where a model judge sends its questions. Model may be
// empty; ModelFor then takes the task's.
type LLMSettings struct {
	Provider string
	BaseURL  string
	APIKey   string
	Model    string
	// HTTPClient sends the requests (nil: http.DefaultClient).
	HTTPClient *http.Client
	// Timeout bounds one judgement (0: 2 minutes).
	Timeout time.Duration
}

// LLMSettingsFromEnv reads a provider's settings from the environment
// (getenv is os.Getenv in the CLI). model, when not empty, wins over the
// environment's. It fails when the provider is unknown or a required
// variable is missing, naming the variable.
func LLMSettingsFromEnv(provider, model string, getenv func(string) string) (LLMSettings, error) {
	s := LLMSettings{Provider: provider, Model: strings.TrimSpace(model)}
	switch provider {
	case ProviderOpenAI:
		s.BaseURL = strings.TrimSpace(getenv(EnvLLMBaseURL))
		s.APIKey = strings.TrimSpace(getenv(EnvLLMAPIKey))
		if s.Model == "" {
			s.Model = strings.TrimSpace(getenv(EnvLLMModel))
		}
		if s.BaseURL == "" {
			s.BaseURL = DefaultOpenAIBaseURL
			// A server of one's own may need no key; OpenAI's does.
			if s.APIKey == "" {
				return s, fmt.Errorf("--judge openai needs %s (and %s for a server other than OpenAI's, %s for the model)", EnvLLMAPIKey, EnvLLMBaseURL, EnvLLMModel)
			}
		}
	case ProviderAnthropic:
		s.APIKey = strings.TrimSpace(getenv(EnvAnthropicAPIKey))
		s.BaseURL = strings.TrimSpace(getenv(EnvAnthropicBaseURL))
		if s.BaseURL == "" {
			s.BaseURL = DefaultAnthropicBaseURL
		}
		if s.APIKey == "" {
			return s, fmt.Errorf("--judge anthropic needs %s", EnvAnthropicAPIKey)
		}
	default:
		return s, fmt.Errorf("unknown judge %q: give openai (any OpenAI-compatible endpoint) or anthropic", provider)
	}
	if !strings.HasPrefix(s.BaseURL, "http://") && !strings.HasPrefix(s.BaseURL, "https://") {
		return s, fmt.Errorf("the judge's base URL %q is not an http(s) URL", s.BaseURL)
	}
	s.BaseURL = strings.TrimRight(s.BaseURL, "/")
	return s, nil
}

// ModelFor is the model that judges t: the settings' own (a flag or the
// provider's environment), else the task's ## Config judge, else, for
// Anthropic, the original Pome's default judge. An OpenAI-compatible
// endpoint has no default model, since each serves its own.
func (s LLMSettings) ModelFor(t *Task) (string, error) {
	switch {
	case s.Model != "":
		return s.Model, nil
	case t != nil && t.Config.Judge != "":
		return t.Config.Judge, nil
	case s.Provider == ProviderAnthropic:
		return DefaultJudgeModel, nil
	}
	return "", fmt.Errorf("--judge openai needs a model: set %s, --judge-model, or judge: in the task's ## Config", EnvLLMModel)
}

// Judge returns the judge of t's [model] criteria over the run in in.
func (s LLMSettings) Judge(t *Task, in *JudgeInput) (*LLMJudge, error) {
	model, err := s.ModelFor(t)
	if err != nil {
		return nil, err
	}
	j := &LLMJudge{Settings: s, Input: in}
	j.Settings.Model = model
	if t != nil {
		j.Scored = t.Config.ModelScored
	}
	return j, nil
}

// LLMJudge grades [model] criteria by asking a language model. It sees the
// criterion, the task (with the expected behaviour the agent never saw),
// the twins' tapes and the end of the agent's output, and answers
// {"passed":bool,"reason":"…"}.
type LLMJudge struct {
	Settings LLMSettings
	Input    *JudgeInput
	// Scored counts the readings in the score (the task's modelScored).
	Scored bool
}

// JudgeModel names the model, for the verdict.
func (j *LLMJudge) JudgeModel() string { return j.Settings.Model }

// Advisory is true unless the task asked for model readings to be scored.
func (j *LLMJudge) Advisory() bool { return !j.Scored }

// Judge asks the model about one criterion.
func (j *LLMJudge) Judge(ctx context.Context, c CriterionResult) (bool, string, error) {
	timeout := j.Settings.Timeout
	if timeout <= 0 {
		timeout = 2 * time.Minute
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	user := JudgePrompt(c, j.Input)
	var text string
	var err error
	switch j.Settings.Provider {
	case ProviderOpenAI:
		text, err = j.openAI(ctx, user)
	case ProviderAnthropic:
		text, err = j.anthropic(ctx, user)
	default:
		err = fmt.Errorf("unknown judge provider %q", j.Settings.Provider)
	}
	if err != nil {
		if ctx.Err() == context.DeadlineExceeded {
			return false, "", fmt.Errorf("%s did not answer within %s", j.Settings.Model, timeout)
		}
		return false, "", err
	}
	return ParseModelAnswer(text)
}

// JudgeSystemPrompt tells the model its job and the answer's shape.
const JudgeSystemPrompt = "You grade one success criterion of a task that an AI agent carried out against " +
	"simulated SaaS APIs (digital twins of GitHub, Slack, Stripe, Gmail and Linear). Every call the agent made is on " +
	"the twins' tapes, oldest first, with its request and the twin's response; the agent's own output is " +
	"shown as well. Decide only from this evidence whether the criterion holds; if the evidence does not " +
	"show it, it does not hold. Answer with one JSON object and nothing else: " +
	`{"passed": true or false, "reason": "one or two sentences that cite the evidence"}`

// Limits on what a model judge is sent.
const (
	judgeTapeBudget   = 120 << 10
	judgeOutputBudget = 8 << 10
	judgeBodyBudget   = 2000
)

// JudgePrompt is the question about criterion c of the run in.
func JudgePrompt(c CriterionResult, in *JudgeInput) string {
	var b strings.Builder
	fmt.Fprintf(&b, "## Criterion\n%s\n\n", c.Text)
	if in == nil {
		in = &JudgeInput{}
	}
	fmt.Fprintf(&b, "## Task\n%s\n\n### Prompt given to the agent\n%s\n\n", in.Task.Title, strings.TrimSpace(in.Task.Prompt))
	if e := strings.TrimSpace(in.Task.Expected); e != "" {
		fmt.Fprintf(&b, "### Expected behaviour (not shown to the agent)\n%s\n\n", e)
	}
	fmt.Fprintf(&b, "## Tapes (%d calls, oldest first)\n", len(in.Events))
	used := 0
	for i, raw := range in.Events {
		line := tapeLine(raw)
		if used+len(line) > judgeTapeBudget {
			fmt.Fprintf(&b, "… %d more calls left out for length\n", len(in.Events)-i)
			break
		}
		used += len(line)
		b.WriteString(line)
		b.WriteByte('\n')
	}
	if out := strings.TrimSpace(in.AgentStdout); out != "" {
		fmt.Fprintf(&b, "\n## The agent's output (its end)\n%s\n", tail(out, judgeOutputBudget))
	}
	return b.String()
}

// tapeLine is one tape row as the judge reads it: what was called and what
// came back, bodies cut short.
func tapeLine(raw json.RawMessage) string {
	var row struct {
		Seq       int64  `json:"seq"`
		Twin      string `json:"twin"`
		Transport string `json:"transport"`
		Method    string `json:"method"`
		Path      string `json:"path"`
		Tool      string `json:"tool"`
		Status    int    `json:"status"`
		Request   struct {
			Body json.RawMessage `json:"body"`
		} `json:"request"`
		Response struct {
			Body json.RawMessage `json:"body"`
		} `json:"response"`
	}
	if json.Unmarshal(raw, &row) != nil {
		return cut(string(raw), judgeBodyBudget)
	}
	tool := row.Tool
	if tool == "" {
		tool = "(no action)"
	}
	return fmt.Sprintf("#%d %s %s %s %s → %d %s\n  request: %s\n  response: %s", row.Seq, row.Twin, row.Transport, row.Method, row.Path, row.Status, tool,
		cut(compactJSON(row.Request.Body), judgeBodyBudget), cut(compactJSON(row.Response.Body), judgeBodyBudget))
}

func compactJSON(raw json.RawMessage) string {
	if len(raw) == 0 {
		return "-"
	}
	var buf bytes.Buffer
	if json.Compact(&buf, raw) != nil {
		return string(raw)
	}
	return buf.String()
}

func cut(s string, max int) string {
	if len(s) <= max {
		return s
	}
	return s[:max] + "…"
}

// ParseModelAnswer reads a model's answer: a JSON object with a boolean
// "passed", possibly inside a code fence or after some prose.
func ParseModelAnswer(text string) (bool, string, error) {
	s := strings.TrimSpace(text)
	if i, j := strings.Index(s, "{"), strings.LastIndex(s, "}"); i >= 0 && j > i {
		var a struct {
			Passed *bool  `json:"passed"`
			Reason string `json:"reason"`
		}
		if json.Unmarshal([]byte(s[i:j+1]), &a) == nil && a.Passed != nil {
			return *a.Passed, a.Reason, nil
		}
	}
	return false, "", errors.New("the model did not answer {\"passed\":true|false,\"reason\":\"…\"}: " + quote(cut(s, 300)))
}

func (j *LLMJudge) openAI(ctx context.Context, user string) (string, error) {
	body := map[string]any{
		"model": j.Settings.Model,
		"messages": []map[string]string{
			{"role": "system", "content": JudgeSystemPrompt},
			{"role": "user", "content": user},
		},
	}
	hdr := http.Header{}
	if j.Settings.APIKey != "" {
		hdr.Set("Authorization", "Bearer "+j.Settings.APIKey)
	}
	var out struct {
		Choices []struct {
			Message struct {
				Content string `json:"content"`
			} `json:"message"`
		} `json:"choices"`
	}
	if err := j.post(ctx, j.Settings.BaseURL+"/chat/completions", hdr, body, &out); err != nil {
		return "", err
	}
	if len(out.Choices) == 0 {
		return "", fmt.Errorf("%s answered with no choices", j.Settings.Model)
	}
	return out.Choices[0].Message.Content, nil
}

func (j *LLMJudge) anthropic(ctx context.Context, user string) (string, error) {
	body := map[string]any{
		"model":      j.Settings.Model,
		"max_tokens": 1024,
		"system":     JudgeSystemPrompt,
		"messages":   []map[string]string{{"role": "user", "content": user}},
	}
	hdr := http.Header{}
	hdr.Set("x-api-key", j.Settings.APIKey)
	hdr.Set("anthropic-version", anthropicVersion)
	var out struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
	}
	if err := j.post(ctx, j.Settings.BaseURL+"/v1/messages", hdr, body, &out); err != nil {
		return "", err
	}
	var text strings.Builder
	for _, c := range out.Content {
		if c.Type == "text" {
			text.WriteString(c.Text)
		}
	}
	if text.Len() == 0 {
		return "", fmt.Errorf("%s answered with no text", j.Settings.Model)
	}
	return text.String(), nil
}

// post sends one JSON request and decodes a 2xx answer into out. Any other
// answer is an error carrying the provider's own message.
func (j *LLMJudge) post(ctx context.Context, url string, hdr http.Header, body, out any) error {
	data, err := json.Marshal(body)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(data))
	if err != nil {
		return err
	}
	req.Header = hdr
	req.Header.Set("Content-Type", "application/json")
	client := j.Settings.HTTPClient
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("ask %s at %s: %w", j.Settings.Model, url, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if err != nil {
		return fmt.Errorf("read %s's answer: %w", j.Settings.Model, err)
	}
	if resp.StatusCode/100 != 2 {
		// Both providers put the message at error.message.
		var e struct {
			Error struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		msg := strings.TrimSpace(string(raw))
		if json.Unmarshal(raw, &e) == nil && e.Error.Message != "" {
			msg = e.Error.Message
		}
		return fmt.Errorf("%s at %s answered %d: %s", j.Settings.Provider, url, resp.StatusCode, cut(msg, 300))
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return fmt.Errorf("%s's answer is not %s's JSON: %w", j.Settings.Model, j.Settings.Provider, err)
	}
	return nil
}
