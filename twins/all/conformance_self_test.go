package all

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/pomehq/pome/twins"
)

type probeWorld struct{}

type probeIn struct {
	Owner string `json:"owner"`
	State string `json:"state,omitempty" enum:"open,closed"`
	Page  int    `json:"page,omitempty"`
}

type probeRenamedIn struct {
	Owner  string `json:"owner"`
	Status string `json:"status,omitempty" enum:"open,closed"`
	Page   int    `json:"page,omitempty"`
}

type probeWiderIn struct {
	Owner string `json:"owner"`
	State string `json:"state,omitempty" enum:"open,closed,all"`
}

func probeTwin(a twins.Action) *twins.Twin {
	return (&twins.Twin{Name: "probe", Actions: []twins.Action{a}}).Finish()
}

func probeAction[In any](name string) twins.Action {
	return twins.New(twins.Spec{Name: name, Effect: twins.Read}, func(context.Context, *probeWorld, In) (In, error) {
		var in In
		return in, nil
	})
}

// TestConformanceComparisonCatchesDrift proves the conformance test can
// fail: against a manifest of one tool, a twin that lost the tool, renamed
// a parameter, dropped one, or widened an enum each shows the difference.
func TestConformanceComparisonCatchesDrift(t *testing.T) {
	m := vendorManifest{Vendor: "probe", Source: "test", Tools: map[string]vendorTool{
		"list_things": {Params: []string{"owner", "page", "state"}, Required: []string{"owner"}, Enums: map[string][]string{"state": {"closed", "open"}}},
	}}
	keys := func(tw *twins.Twin) ([]string, int, int) {
		diffs, present, identical := compareTools(tw, m)
		var out []string
		for _, d := range diffs {
			out = append(out, d.key())
		}
		return out, present, identical
	}
	if got, present, identical := keys(probeTwin(probeAction[probeIn]("list_things"))); len(got) != 0 || present != 1 || identical != 1 {
		t.Errorf("matching tool: diffs %v, present %d, identical %d", got, present, identical)
	}
	if got, present, _ := keys(probeTwin(probeAction[probeIn]("list_other_things"))); !slices.Equal(got, []string{"list_things missing_tool "}) || present != 0 {
		t.Errorf("removed tool: %v", got)
	}
	got, _, identical := keys(probeTwin(probeAction[probeRenamedIn]("list_things")))
	if want := []string{"list_things missing_param state", "list_things extra_param status"}; !slices.Equal(got, want) || identical != 0 {
		t.Errorf("renamed parameter: %v, want %v", got, want)
	}
	got, _, _ = keys(probeTwin(probeAction[probeWiderIn]("list_things")))
	if want := []string{"list_things missing_param page", "list_things enum state"}; !slices.Equal(got, want) {
		t.Errorf("dropped parameter and widened enum: %v, want %v", got, want)
	}
	type requiredIn struct {
		Owner string `json:"owner,omitempty"`
		State string `json:"state,omitempty" enum:"open,closed"`
		Page  int    `json:"page,omitempty"`
	}
	got, _, _ = keys(probeTwin(probeAction[requiredIn]("list_things")))
	if want := []string{"list_things required owner"}; !slices.Equal(got, want) {
		t.Errorf("required dropped: %v, want %v", got, want)
	}
}

// TestBindingsFixedValuesPassTheSchema: a REST binding's fixed arguments
// (issue_read's method for each GET route, …) go through the same input
// schema as any call, so each must lie inside its parameter's enum, or the
// route would refuse every request.
func TestBindingsFixedValuesPassTheSchema(t *testing.T) {
	for _, tw := range Registry().All() {
		for _, a := range tw.Actions {
			for _, b := range a.Spec().Bindings {
				for k, v := range b.Fixed {
					p, ok := a.InputSchema().Properties[k]
					if !ok || p.Enum == nil {
						continue
					}
					if !slices.Contains(p.Enum, v) {
						raw, _ := json.Marshal(p.Enum)
						t.Errorf("%s.%s %s %s: fixed %s=%v is outside the enum %s", tw.Name, a.Name(), b.Method, b.Path, k, v, raw)
					}
				}
			}
		}
	}
}
