package task

import (
	"context"
	"fmt"
	"math"
	"sync"

	"github.com/pomehq/pome/twins"
)

// Status is the outcome of one criterion.
type Status string

// Criterion statuses (SPEC §7).
const (
	StatusPassed    Status = "passed"
	StatusFailed    Status = "failed"
	StatusExcluded  Status = "excluded"
	StatusAbstained Status = "abstained"
	StatusError     Status = "error"
)

// Verdict states.
const (
	StatePass       = "pass"
	StateFail       = "fail"
	StateIncomplete = "incomplete"
)

// ReasonAlreadyTrue is the reason of a criterion excluded because the seed
// already satisfied it.
const ReasonAlreadyTrue = "already_true_in_seed"

// Verdict is the graded outcome of a task on one sandbox (SPEC §7).
type Verdict struct {
	Task string `json:"task,omitempty"`
	// Class is the task's class (conformance, restraint, adversarial),
	// when it names one.
	Class     string `json:"class,omitempty"`
	SessionID string `json:"session_id,omitempty"`
	AgentIdentity
	State string `json:"state"`
	// Score is 0–100 over the evaluated criteria.
	Score         float64 `json:"score"`
	PassThreshold float64 `json:"pass_threshold"`
	// Passed, Evaluated, Excluded, Abstained and Errors count criteria.
	Passed    int `json:"passed"`
	Evaluated int `json:"evaluated"`
	Excluded  int `json:"excluded"`
	Abstained int `json:"abstained"`
	Errors    int `json:"errors"`
	// Advisory counts [model] criteria a model judge read without their
	// counting in the score (see Config.ModelScored).
	Advisory int `json:"advisory,omitempty"`
	// JudgeModel is the model that read the [model] criteria, when a model
	// judge did.
	JudgeModel string `json:"judge_model,omitempty"`
	// Reason says why the state is incomplete (empty otherwise).
	Reason   string            `json:"reason,omitempty"`
	Criteria []CriterionResult `json:"criteria"`
}

// AgentIdentity names the agent under test, as a project manifest
// (pome.json's agent) and `pome run`'s flags give it.
type AgentIdentity struct {
	Slug      string `json:"agent_slug,omitempty"`
	Version   string `json:"agent_version,omitempty"`
	Model     string `json:"agent_model,omitempty"`
	Framework string `json:"agent_framework,omitempty"`
}

// CriterionResult is one criterion's outcome.
type CriterionResult struct {
	Text         string            `json:"text"`
	Kind         Kind              `json:"kind"`
	Line         int               `json:"line,omitempty"`
	Twin         string            `json:"twin,omitempty"`
	Check        string            `json:"check,omitempty"`
	Params       map[string]string `json:"params"`
	AlwaysScored bool              `json:"always_scored,omitempty"`
	Status       Status            `json:"status"`
	Reason       string            `json:"reason"`
	Evidence     twins.Evidence    `json:"evidence"`
	// JudgeModel is the model that gave this reading ([model] criteria
	// read by a model judge).
	JudgeModel string `json:"judge_model,omitempty"`
	// Advisory says the reading is recorded but left out of the score and
	// the verdict's state.
	Advisory bool `json:"advisory,omitempty"`
}

// Provider gives the grader what a twin's checks read: seed world, final
// world and tape.
type Provider interface {
	Input(ctx context.Context, twin string) (*twins.Input, error)
}

// ProviderFunc adapts a function to Provider.
type ProviderFunc func(ctx context.Context, twin string) (*twins.Input, error)

// Input calls f.
func (f ProviderFunc) Input(ctx context.Context, twin string) (*twins.Input, error) {
	return f(ctx, twin)
}

// Judge grades a [model] criterion. It is given the criterion and returns
// whether it held and why; an error means it could not say.
type Judge interface {
	Judge(ctx context.Context, c CriterionResult) (passed bool, reason string, err error)
}

// Grade evaluates every criterion of t against the provider's twins and
// returns the verdict; judge may be nil ([model] criteria then abstain).
// It never fails as a whole: what cannot be evaluated is a criterion with
// status error, which makes the verdict incomplete.
func Grade(ctx context.Context, t *Task, p Provider, judge Judge) *Verdict {
	v := &Verdict{Task: t.Title, Class: t.Config.Class, PassThreshold: t.Config.PassThreshold, Criteria: make([]CriterionResult, 0, len(t.Criteria))}
	inputs := map[string]*twins.Input{}
	inputErr := map[string]error{}
	var mu sync.Mutex
	input := func(name string) (*twins.Input, error) {
		mu.Lock()
		defer mu.Unlock()
		if in, ok := inputs[name]; ok {
			return in, nil
		}
		if err, ok := inputErr[name]; ok {
			return nil, err
		}
		in, err := p.Input(ctx, name)
		if err != nil {
			inputErr[name] = err
			return nil, err
		}
		inputs[name] = in
		return in, nil
	}
	for _, c := range t.Criteria {
		r := CriterionResult{Text: c.Text, Kind: c.Kind, Line: c.Line, Twin: c.Twin, AlwaysScored: c.AlwaysScored,
			Params: map[string]string{}, Evidence: emptyEvidence()}
		if c.Kind == Model {
			r.Status, r.Reason = StatusAbstained, "not graded: no judge given (--judge or --judge-cmd)"
			v.Criteria = append(v.Criteria, r)
			continue
		}
		r.Check = c.Check.ID
		for k, val := range c.Args {
			r.Params[k] = val
		}
		in, err := input(c.Twin)
		if err != nil {
			r.Status, r.Reason = StatusError, fmt.Sprintf("could not read the %s twin: %v", c.Twin, err)
			v.Criteria = append(v.Criteria, r)
			continue
		}
		gradeCode(&r, c, in)
		v.Criteria = append(v.Criteria, r)
	}
	if judge != nil {
		ApplyJudge(ctx, v, judge)
	}
	Summarize(v)
	return v
}

// Excludable reports whether seed exclusion applies to a check with these
// arguments: positive checks over the final state (see the package
// documentation for why the others are left out). Polarity is read per
// argument where the check says so ("is in state open" is negative).
func Excludable(c *twins.Check, args map[string]string) bool {
	return c.Substrate == twins.SubstrateFinal && c.PolarityFor(args) == twins.Positive
}

// gradeCode evaluates one [code] criterion: first on the seed (exclusion),
// then on the final world and tape.
func gradeCode(r *CriterionResult, c Criterion, in *twins.Input) {
	if Excludable(c.Check, c.Args) && !c.AlwaysScored && in.Seed != nil {
		seedOnly := &twins.Input{Twin: in.Twin, Seed: in.Seed, Final: in.Seed}
		// An error here (say, on a seed that lacks what the check names)
		// only means the seed does not satisfy the criterion.
		if res, err := evaluate(c, seedOnly); err == nil && res.Passed {
			r.Status, r.Reason, r.Evidence = StatusExcluded, ReasonAlreadyTrue, res.Evidence
			return
		}
	}
	res, err := evaluate(c, in)
	if err != nil {
		r.Status, r.Reason = StatusError, "could not evaluate: "+err.Error()
		return
	}
	r.Reason, r.Evidence = res.Reason, res.Evidence
	if res.Passed {
		r.Status = StatusPassed
	} else {
		r.Status = StatusFailed
	}
}

// evaluate runs a check, turning a panic in a twin's check into an error:
// one broken check must not take the verdict (or the server) down.
func evaluate(c Criterion, in *twins.Input) (res twins.Result, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("check %s panicked: %v", c.Check.ID, p)
		}
	}()
	res, err = c.Check.Evaluate(in, c.Args)
	if res.Evidence.TapeSeqs == nil {
		res.Evidence.TapeSeqs = []int64{}
	}
	if res.Evidence.StatePaths == nil {
		res.Evidence.StatePaths = []string{}
	}
	return res, err
}

func emptyEvidence() twins.Evidence {
	return twins.Evidence{TapeSeqs: []int64{}, StatePaths: []string{}}
}

// ModelNamer is a Judge backed by a language model: its readings are
// stored with the model's name.
type ModelNamer interface {
	JudgeModel() string
}

// Adviser is a Judge whose readings may stay out of the score.
type Adviser interface {
	// Advisory reports that readings are recorded, not scored.
	Advisory() bool
}

// ApplyJudge grades the verdict's [model] criteria with judge. A judge
// failure is a criterion error, so the verdict says incomplete rather than
// guessing — unless the judge is advisory, whose readings, failures
// included, never move the score or the state.
func ApplyJudge(ctx context.Context, v *Verdict, judge Judge) {
	model := ""
	if n, ok := judge.(ModelNamer); ok {
		model = n.JudgeModel()
	}
	advisory := false
	if a, ok := judge.(Adviser); ok {
		advisory = a.Advisory()
	}
	for i := range v.Criteria {
		r := &v.Criteria[i]
		if r.Kind != Model {
			continue
		}
		r.JudgeModel, r.Advisory = model, advisory
		if model != "" {
			v.JudgeModel = model
		}
		passed, reason, err := judge.Judge(ctx, *r)
		switch {
		case err != nil:
			r.Status, r.Reason = StatusError, "judge failed: "+err.Error()
		case passed:
			r.Status, r.Reason = StatusPassed, reason
		default:
			r.Status, r.Reason = StatusFailed, reason
		}
	}
	Summarize(v)
}

// Summarize recomputes the counts, score and state from the criteria.
func Summarize(v *Verdict) {
	v.Passed, v.Evaluated, v.Excluded, v.Abstained, v.Errors, v.Advisory = 0, 0, 0, 0, 0, 0
	codeEvaluated, codeErrors := 0, 0
	for _, r := range v.Criteria {
		if r.Advisory && r.Kind == Model {
			v.Advisory++
			continue
		}
		switch r.Status {
		case StatusPassed, StatusFailed:
			v.Evaluated++
			if r.Status == StatusPassed {
				v.Passed++
			}
			if r.Kind == Code {
				codeEvaluated++
			}
		case StatusExcluded:
			v.Excluded++
		case StatusAbstained:
			v.Abstained++
		case StatusError:
			v.Errors++
			if r.Kind == Code {
				codeErrors++
			}
		}
	}
	v.Score = 0
	if v.Evaluated > 0 {
		v.Score = math.Round(float64(v.Passed)*10000/float64(v.Evaluated)) / 100
	}
	v.Reason = ""
	switch {
	case codeErrors > 0:
		v.State = StateIncomplete
		v.Reason = fmt.Sprintf("%d [code] criteria could not be evaluated", codeErrors)
	case v.Errors > 0:
		v.State = StateIncomplete
		v.Reason = fmt.Sprintf("the judge could not grade %d [model] criteria", v.Errors)
	case codeEvaluated == 0 && v.Excluded > 0:
		v.State = StateIncomplete
		v.Reason = fmt.Sprintf("no [code] criterion was evaluated: all %d were already true in the seed", v.Excluded)
	case codeEvaluated == 0:
		v.State = StateIncomplete
		v.Reason = "no [code] criterion was evaluated"
	// Compared without the rounding of Score: 2 of 3 is below 66.67.
	case float64(v.Passed)*100 >= v.PassThreshold*float64(v.Evaluated):
		v.State = StatePass
	default:
		v.State = StateFail
	}
}
