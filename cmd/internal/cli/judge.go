package cli

import (
	"os"

	"github.com/spf13/pflag"

	"github.com/pomehq/pome/task"
)

// judgeFlags are the flags that choose who grades [model] criteria.
type judgeFlags struct {
	cmd, provider, model string
}

func (j *judgeFlags) add(f *pflag.FlagSet, what string) {
	f.StringVar(&j.cmd, "judge-cmd", "", "program that grades [model] criteria"+what+": JSON on stdin, {\"passed\":bool,\"reason\":…} on stdout")
	f.StringVar(&j.provider, "judge", "", "grade [model] criteria with your own model: openai (POME_LLM_BASE_URL, POME_LLM_API_KEY, POME_LLM_MODEL; any OpenAI-compatible endpoint) or anthropic (ANTHROPIC_API_KEY)")
	f.StringVar(&j.model, "judge-model", "", "the model --judge asks (default: POME_LLM_MODEL for openai, else the task's ## Config judge, else "+task.DefaultJudgeModel+" for anthropic)")
}

// settings resolves --judge from the environment: nil without --judge, a
// usage error (exit 5) when it cannot work, before anything runs.
func (j *judgeFlags) settings(tasks ...*task.Task) (*task.LLMSettings, error) {
	if j.provider == "" {
		if j.model != "" {
			return nil, usageErrorf("--judge-model needs --judge openai or --judge anthropic")
		}
		return nil, nil
	}
	if j.cmd != "" {
		return nil, usageErrorf("--judge and --judge-cmd both grade [model] criteria: give one")
	}
	s, err := task.LLMSettingsFromEnv(j.provider, j.model, os.Getenv)
	if err != nil {
		return nil, usageErrorf("%v", err)
	}
	for _, t := range tasks {
		if !hasModelCriteria(t) {
			continue
		}
		if _, err := s.ModelFor(t); err != nil {
			return nil, usageErrorf("%s: %v", t.File, err)
		}
	}
	return &s, nil
}

func hasModelCriteria(t *task.Task) bool {
	for _, c := range t.Criteria {
		if c.Kind == task.Model {
			return true
		}
	}
	return false
}
