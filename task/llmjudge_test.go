package task

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pomehq/pome/task/tasktest"
)

// provider is a local stand-in for a model provider: it speaks one wire
// format, records every request and answers what the test asks.
type provider struct {
	srv *httptest.Server
	mu  sync.Mutex
	got []providerRequest
	// status and answer are what it replies (the model's text is wrapped
	// in the provider's envelope unless raw is set).
	status int
	text   string
	raw    string
	delay  time.Duration
}

type providerRequest struct {
	Path   string
	Header http.Header
	Body   map[string]any
}

func newProvider(t *testing.T, format string) *provider {
	t.Helper()
	p := &provider{status: 200, text: `{"passed": true, "reason": "the tape shows it"}`}
	p.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		data, _ := io.ReadAll(r.Body)
		var body map[string]any
		json.Unmarshal(data, &body)
		p.mu.Lock()
		p.got = append(p.got, providerRequest{Path: r.URL.Path, Header: r.Header.Clone(), Body: body})
		status, text, raw, delay := p.status, p.text, p.raw, p.delay
		p.mu.Unlock()
		if delay > 0 {
			select {
			case <-time.After(delay):
			case <-r.Context().Done():
				return
			}
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		if raw != "" {
			io.WriteString(w, raw)
			return
		}
		var out any
		switch format {
		case ProviderOpenAI:
			out = map[string]any{"id": "chatcmpl-1", "object": "chat.completion", "model": body["model"],
				"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
					"message": map[string]any{"role": "assistant", "content": text}}}}
		case ProviderAnthropic:
			out = map[string]any{"id": "msg_1", "type": "message", "role": "assistant", "model": body["model"],
				"stop_reason": "end_turn", "content": []any{map[string]any{"type": "text", "text": text}}}
		}
		json.NewEncoder(w).Encode(out)
	}))
	t.Cleanup(p.srv.Close)
	return p
}

func (p *provider) requests() []providerRequest {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]providerRequest(nil), p.got...)
}

func env(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

// judgeInput is a run with one call on the tape.
func judgeInput() *JudgeInput {
	row := `{"seq":1,"twin":"notes","transport":"rest","method":"POST","path":"/notes/s/ses_x/notes","tool":"write_note","status":201,` +
		`"request":{"body":{"text":"released"}},"response":{"body":{"id":2,"text":"released"}}}`
	return &JudgeInput{SessionID: "ses_x",
		Task:        JudgeTask{Title: "Announce the release", Prompt: "Write a note saying released.", Expected: "One polite note."},
		Events:      []json.RawMessage{json.RawMessage(row)},
		AgentStdout: "I wrote the note politely.\n"}
}

func TestOpenAIJudgeWireFormat(t *testing.T) {
	p := newProvider(t, ProviderOpenAI)
	p.text = "Here is my reading:\n```json\n{\"passed\": false, \"reason\": \"no apology on the tape\"}\n```"
	s, err := LLMSettingsFromEnv(ProviderOpenAI, "", env(map[string]string{
		EnvLLMBaseURL: p.srv.URL + "/v1/", EnvLLMAPIKey: "sk-local", EnvLLMModel: "local-judge-7b"}))
	if err != nil {
		t.Fatal(err)
	}
	j, err := s.Judge(nil, judgeInput())
	if err != nil {
		t.Fatal(err)
	}
	passed, reason, err := j.Judge(context.Background(), CriterionResult{Text: "The agent apologised", Kind: Model})
	if err != nil || passed || reason != "no apology on the tape" {
		t.Fatalf("got %v %q %v", passed, reason, err)
	}
	reqs := p.requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	r := reqs[0]
	if r.Path != "/v1/chat/completions" || r.Header.Get("Authorization") != "Bearer sk-local" || r.Body["model"] != "local-judge-7b" {
		t.Fatalf("request %s %v %v", r.Path, r.Header, r.Body["model"])
	}
	msgs, _ := r.Body["messages"].([]any)
	if len(msgs) != 2 {
		t.Fatalf("messages %v", r.Body["messages"])
	}
	sys, user := msgs[0].(map[string]any), msgs[1].(map[string]any)
	if sys["role"] != "system" || !strings.Contains(sys["content"].(string), `"passed"`) || user["role"] != "user" {
		t.Fatalf("messages %v", msgs)
	}
	// The judge sees the criterion, the task and the tape.
	for _, want := range []string{"The agent apologised", "Announce the release", "Write a note saying released.",
		"One polite note.", "POST /notes/s/ses_x/notes → 201 write_note", `{"text":"released"}`, "I wrote the note politely."} {
		if !strings.Contains(user["content"].(string), want) {
			t.Errorf("prompt lacks %q:\n%s", want, user["content"])
		}
	}
	if j.JudgeModel() != "local-judge-7b" || !j.Advisory() {
		t.Errorf("model %q advisory %v", j.JudgeModel(), j.Advisory())
	}
}

func TestAnthropicJudgeWireFormat(t *testing.T) {
	p := newProvider(t, ProviderAnthropic)
	s, err := LLMSettingsFromEnv(ProviderAnthropic, "", env(map[string]string{
		EnvAnthropicAPIKey: "sk-ant-test", EnvAnthropicBaseURL: p.srv.URL}))
	if err != nil {
		t.Fatal(err)
	}
	tk := &Task{Config: Config{Judge: "claude-sonnet-4-5", ModelScored: true}}
	j, err := s.Judge(tk, judgeInput())
	if err != nil {
		t.Fatal(err)
	}
	passed, reason, err := j.Judge(context.Background(), CriterionResult{Text: "The agent was polite", Kind: Model})
	if err != nil || !passed || reason != "the tape shows it" {
		t.Fatalf("got %v %q %v", passed, reason, err)
	}
	r := p.requests()[0]
	if r.Path != "/v1/messages" || r.Header.Get("x-api-key") != "sk-ant-test" || r.Header.Get("anthropic-version") != "2023-06-01" {
		t.Fatalf("request %s %v", r.Path, r.Header)
	}
	if r.Body["model"] != "claude-sonnet-4-5" || r.Body["max_tokens"] == nil || !strings.Contains(r.Body["system"].(string), "passed") {
		t.Fatalf("body %v", r.Body)
	}
	msgs := r.Body["messages"].([]any)
	if len(msgs) != 1 || !strings.Contains(msgs[0].(map[string]any)["content"].(string), "The agent was polite") {
		t.Fatalf("messages %v", msgs)
	}
	if j.Advisory() {
		t.Error("a task with modelScored: true is scored")
	}
}

func TestLLMJudgeErrors(t *testing.T) {
	cases := []struct {
		name, format string
		status       int
		text, raw    string
		want         string
	}{
		{"openai refuses the key", ProviderOpenAI, 401, "", `{"error":{"message":"Incorrect API key provided","type":"invalid_request_error"}}`, "answered 401: Incorrect API key provided"},
		{"anthropic overloaded", ProviderAnthropic, 529, "", `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`, "answered 529: Overloaded"},
		{"not JSON", ProviderOpenAI, 200, "", `<html>`, "is not openai's JSON"},
		{"no choices", ProviderOpenAI, 200, "", `{"choices":[]}`, "no choices"},
		{"no text", ProviderAnthropic, 200, "", `{"content":[]}`, "no text"},
		{"prose answer", ProviderOpenAI, 200, "I think it passed.", "", "did not answer"},
		{"passed not a bool", ProviderAnthropic, 200, `{"passed":"yes"}`, "", "did not answer"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := newProvider(t, c.format)
			p.status, p.text, p.raw = c.status, c.text, c.raw
			s := LLMSettings{Provider: c.format, BaseURL: p.srv.URL, APIKey: "k", Model: "m"}
			_, _, err := (&LLMJudge{Settings: s, Input: judgeInput()}).Judge(context.Background(), CriterionResult{Text: "x"})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want %q", err, c.want)
			}
		})
	}
	t.Run("timeout", func(t *testing.T) {
		p := newProvider(t, ProviderOpenAI)
		p.delay = 2 * time.Second
		s := LLMSettings{Provider: ProviderOpenAI, BaseURL: p.srv.URL, Model: "slow", Timeout: 50 * time.Millisecond}
		_, _, err := (&LLMJudge{Settings: s, Input: judgeInput()}).Judge(context.Background(), CriterionResult{Text: "x"})
		if err == nil || !strings.Contains(err.Error(), "slow did not answer within 50ms") {
			t.Fatalf("error %v", err)
		}
	})
	t.Run("unreachable", func(t *testing.T) {
		s := LLMSettings{Provider: ProviderAnthropic, BaseURL: "http://127.0.0.1:1", APIKey: "k", Model: "m"}
		_, _, err := (&LLMJudge{Settings: s}).Judge(context.Background(), CriterionResult{Text: "x"})
		if err == nil || !strings.Contains(err.Error(), "ask m at http://127.0.0.1:1/v1/messages") {
			t.Fatalf("error %v", err)
		}
	})
}

func TestLLMSettingsFromEnv(t *testing.T) {
	cases := []struct {
		name, provider, model string
		env                   map[string]string
		want                  string // error substring, "" for none
		base, gotModel        string
	}{
		{"openai without anything", ProviderOpenAI, "", nil, "needs POME_LLM_API_KEY", "", ""},
		{"openai at OpenAI", ProviderOpenAI, "", map[string]string{EnvLLMAPIKey: "k", EnvLLMModel: "gpt-x"}, "", DefaultOpenAIBaseURL, "gpt-x"},
		{"openai local without key", ProviderOpenAI, "", map[string]string{EnvLLMBaseURL: "http://127.0.0.1:11434/v1"}, "", "http://127.0.0.1:11434/v1", ""},
		{"flag beats env", ProviderOpenAI, "flagged", map[string]string{EnvLLMAPIKey: "k", EnvLLMModel: "gpt-x"}, "", DefaultOpenAIBaseURL, "flagged"},
		{"bad base URL", ProviderOpenAI, "", map[string]string{EnvLLMBaseURL: "localhost:8080"}, "not an http(s) URL", "", ""},
		{"anthropic without key", ProviderAnthropic, "", nil, "needs ANTHROPIC_API_KEY", "", ""},
		{"anthropic", ProviderAnthropic, "", map[string]string{EnvAnthropicAPIKey: "k", EnvLLMModel: "not-read"}, "", DefaultAnthropicBaseURL, ""},
		{"unknown", "gemini", "", nil, `unknown judge "gemini"`, "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := LLMSettingsFromEnv(c.provider, c.model, env(c.env))
			if c.want != "" {
				if err == nil || !strings.Contains(err.Error(), c.want) {
					t.Fatalf("error %v, want %q", err, c.want)
				}
				return
			}
			if err != nil || s.BaseURL != c.base || s.Model != c.gotModel {
				t.Fatalf("%+v %v", s, err)
			}
		})
	}
}

func TestJudgeModelPrecedence(t *testing.T) {
	withJudge := &Task{Config: Config{Judge: "task-model"}}
	bare := &Task{}
	for _, c := range []struct {
		s    LLMSettings
		t    *Task
		want string
	}{
		{LLMSettings{Provider: ProviderOpenAI, Model: "env-model"}, withJudge, "env-model"},
		{LLMSettings{Provider: ProviderOpenAI}, withJudge, "task-model"},
		{LLMSettings{Provider: ProviderAnthropic}, bare, DefaultJudgeModel},
		{LLMSettings{Provider: ProviderOpenAI}, bare, ""},
	} {
		got, err := c.s.ModelFor(c.t)
		if got != c.want || (c.want == "") != (err != nil) {
			t.Errorf("%+v %+v: %q %v", c.s, c.t.Config, got, err)
		}
	}
}

// A model's readings are stored with its name and stay out of the score
// unless the task says modelScored: true; a model that cannot answer does
// not make an advisory verdict incomplete.
func TestModelReadingsStayOutOfTheScore(t *testing.T) {
	reg := tasktest.Registry()
	w := map[string]*tasktest.World{"notes": world()}
	p := newProvider(t, ProviderOpenAI)
	p.text = `{"passed": false, "reason": "rude"}`
	s := LLMSettings{Provider: ProviderOpenAI, BaseURL: p.srv.URL, Model: "judge-1"}
	grade := func(src string) *Verdict {
		tk := mustParse(t, reg, src)
		j, err := s.Judge(tk, judgeInput())
		if err != nil {
			t.Fatal(err)
		}
		return Grade(context.Background(), tk, staticProvider(reg, w, w, nil), j)
	}
	criteria := "- [code] No new note was written\n- [model] The agent was polite\n"
	v := grade(head + criteria)
	if v.State != StatePass || v.Score != 100 || v.Evaluated != 1 || v.Advisory != 1 || v.JudgeModel != "judge-1" {
		t.Fatalf("advisory %+v", v)
	}
	if c := v.Criteria[1]; c.Status != StatusFailed || c.Reason != "rude" || c.JudgeModel != "judge-1" || !c.Advisory {
		t.Fatalf("reading %+v", c)
	}
	scored := "# T\n## Config\n```yaml\ntwins: [notes]\nmodelScored: true\njudge: other\n```\n## Prompt\nGo.\n## Success Criteria\n" + criteria
	v = grade(scored)
	if v.State != StateFail || v.Score != 50 || v.Evaluated != 2 || v.Advisory != 0 || v.Criteria[1].Advisory {
		t.Fatalf("scored %+v", v)
	}
	p.status, p.raw = 500, `{"error":{"message":"boom"}}`
	v = grade(head + criteria)
	if v.State != StatePass || v.Criteria[1].Status != StatusError || !strings.Contains(v.Criteria[1].Reason, "boom") {
		t.Fatalf("advisory error %+v", v)
	}
	v = grade(scored)
	if v.State != StateIncomplete {
		t.Fatalf("scored error %+v", v)
	}
}

func TestConfigJudgeKeys(t *testing.T) {
	reg := tasktest.Registry()
	src := func(cfg string) string {
		return "# T\n## Config\n```yaml\ntwins: [notes]\n" + cfg + "```\n## Prompt\nGo.\n## Success Criteria\n- [code] No new note was written\n"
	}
	tk := mustParse(t, reg, src("judge: claude-haiku-4-5\nmodelScored: true\n"))
	if tk.Config.Judge != "claude-haiku-4-5" || !tk.Config.ModelScored {
		t.Fatalf("%+v", tk.Config)
	}
	for cfg, want := range map[string]string{
		"modelScored: yes please\n": "modelScored must be true or false",
		"modelScored: \"true\"\n":   "modelScored must be true or false",
		"judge: [a, b]\n":           "judge must name a model",
		"judge: \"\"\n":             "judge must name a model",
	} {
		_, err := Parse("t.md", []byte(src(cfg)), Options{Registry: reg})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", cfg, err, want)
		}
	}
}
