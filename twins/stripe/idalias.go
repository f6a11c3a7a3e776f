package stripe

import (
	"encoding/json"
	"slices"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/pomehq/pome/twins"
)

// The original Pome's Stripe tools name the object they act on `id`
// (retrieve_payment_intent {id}); ours name it as Stripe's path does
// (payment_intent, charge, …). These tools take either.
var idAliases = map[string]string{
	"retrieve_payment_intent": "payment_intent", "confirm_payment_intent": "payment_intent",
	"update_payment_intent": "payment_intent", "cancel_payment_intent": "payment_intent",
	"simulate_crypto_deposit": "payment_intent", "retrieve_charge": "charge", "retrieve_refund": "refund",
	"retrieve_customer": "customer", "update_customer": "customer", "delete_customer": "customer",
	"retrieve_payment_method": "payment_method", "attach_payment_method": "payment_method",
	"detach_payment_method": "payment_method", "retrieve_event": "event",
}

// withIDAliases wraps the actions idAliases names.
func withIDAliases(actions []twins.Action) []twins.Action {
	out := make([]twins.Action, len(actions))
	for i, a := range actions {
		out[i] = a
		if field, ok := idAliases[a.Name()]; ok {
			out[i] = newIDAlias(a, field)
		}
	}
	return out
}

// idAlias is an action that also takes its object's id as `id`.
type idAlias struct {
	twins.Action
	field  string
	schema *jsonschema.Schema
}

func newIDAlias(a twins.Action, field string) *idAlias {
	inner := a.InputSchema()
	s := *inner
	s.Properties = make(map[string]*jsonschema.Schema, len(inner.Properties)+1)
	for k, v := range inner.Properties {
		s.Properties[k] = v
	}
	s.Properties["id"] = &jsonschema.Schema{Type: "string", Description: "the same as " + field + " (the original Pome's tools name it id); give one of the two"}
	s.Required = slices.DeleteFunc(slices.Clone(inner.Required), func(r string) bool { return r == field })
	return &idAlias{Action: a, field: field, schema: &s}
}

func (a *idAlias) InputSchema() *jsonschema.Schema { return a.schema }

// Unwrap exposes the wrapped action (twins.HasQuickValidation).
func (a *idAlias) Unwrap() twins.Action { return a.Action }

// Decode moves id to the object's own field. Both at once is refused as
// Stripe refuses a parameter it does not know: over REST the path always
// names the object, so a body id is that.
func (a *idAlias) Decode(args json.RawMessage) (any, error) {
	var obj map[string]json.RawMessage
	if json.Unmarshal(args, &obj) == nil && obj != nil {
		if id, ok := obj["id"]; ok {
			if _, both := obj[a.field]; both {
				return nil, (&twins.Error{Code: twins.Invalid, Vendor: "parameter_unknown", Message: "Received unknown parameter: id"}).WithField("id")
			}
			obj[a.field] = id
			delete(obj, "id")
			b, err := json.Marshal(obj)
			if err != nil {
				return nil, err
			}
			args = b
		}
	}
	return a.Action.Decode(args)
}

// DecodeMap is Decode for arguments held as a map (twins.Action).
func (a *idAlias) DecodeMap(obj map[string]any) (any, error) {
	if id, ok := obj["id"]; ok {
		if _, both := obj[a.field]; both {
			return nil, (&twins.Error{Code: twins.Invalid, Vendor: "parameter_unknown", Message: "Received unknown parameter: id"}).WithField("id")
		}
		obj[a.field] = id
		delete(obj, "id")
	}
	return a.Action.DecodeMap(obj)
}
