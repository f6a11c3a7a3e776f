package task

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// JudgeInput is what a --judge-cmd program reads on stdin, once per [model]
// criterion: the criterion, the task (with the expected behaviour the agent
// never saw) and the run's artifacts.
type JudgeInput struct {
	Criterion    JudgeCriterion             `json:"criterion"`
	Task         JudgeTask                  `json:"task"`
	SessionID    string                     `json:"session_id"`
	RunDir       string                     `json:"run_dir,omitempty"`
	AgentStdout  string                     `json:"agent_stdout,omitempty"`
	AgentStderr  string                     `json:"agent_stderr,omitempty"`
	Events       []json.RawMessage          `json:"events"`
	StateInitial map[string]json.RawMessage `json:"state_initial,omitempty"`
	StateFinal   map[string]json.RawMessage `json:"state_final"`
}

// JudgeCriterion is the criterion being judged.
type JudgeCriterion struct {
	Text string `json:"text"`
	Line int    `json:"line,omitempty"`
}

// JudgeTask is the task as a judge sees it.
type JudgeTask struct {
	Title    string `json:"title"`
	File     string `json:"file,omitempty"`
	Prompt   string `json:"prompt"`
	Expected string `json:"expected_behavior,omitempty"`
}

// CommandJudge grades [model] criteria by running a program: JudgeInput on
// stdin, {"passed":bool,"reason":"…"} on stdout, exit 0.
type CommandJudge struct {
	Cmd   string
	Input *JudgeInput
	Env   []string
	// Timeout bounds one judgement (0: 2 minutes).
	Timeout time.Duration
	Grace   time.Duration
}

// Judge runs the program for one criterion.
func (j *CommandJudge) Judge(ctx context.Context, c CriterionResult) (bool, string, error) {
	in := *j.Input
	in.Criterion = JudgeCriterion{Text: c.Text, Line: c.Line}
	if in.Events == nil {
		in.Events = []json.RawMessage{}
	}
	body, err := json.Marshal(in)
	if err != nil {
		return false, "", err
	}
	timeout := j.Timeout
	if timeout <= 0 {
		timeout = 2 * time.Minute
	}
	grace := j.Grace
	if grace <= 0 {
		grace = 2 * time.Second
	}
	var out, errOut bytes.Buffer
	res, err := runProcess(ctx, j.Cmd, j.Env, bytes.NewReader(body), &limitedBuffer{buf: &out, max: 1 << 20}, &limitedBuffer{buf: &errOut, max: 16 << 10}, timeout, grace)
	if err != nil {
		return false, "", err
	}
	if res.TimedOut {
		return false, "", fmt.Errorf("the judge did not answer within %s", timeout)
	}
	if res.ExitCode != 0 {
		return false, "", fmt.Errorf("the judge exited with code %d: %s", res.ExitCode, strings.TrimSpace(tail(errOut.String(), 500)))
	}
	return ParseJudgeOutput(out.Bytes())
}

// ParseJudgeOutput reads a judge's answer: the whole output as one JSON
// object, or else its last non-empty line (judges that log before they
// answer).
func ParseJudgeOutput(out []byte) (bool, string, error) {
	type answer struct {
		Passed *bool  `json:"passed"`
		Reason string `json:"reason"`
	}
	try := func(b []byte) (answer, bool) {
		var a answer
		if json.Unmarshal(b, &a) != nil || a.Passed == nil {
			return a, false
		}
		return a, true
	}
	a, ok := try(bytes.TrimSpace(out))
	if !ok {
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		a, ok = try([]byte(lines[len(lines)-1]))
	}
	if !ok {
		return false, "", errors.New("the judge did not print {\"passed\":true|false,\"reason\":\"…\"}: " + quote(strings.TrimSpace(string(out))))
	}
	return *a.Passed, a.Reason, nil
}
