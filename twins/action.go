package twins

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
)

// Spec is everything about an action except its types and handler.
type Spec struct {
	// Name is the MCP tool name and the tape's tool field.
	Name        string
	Title       string
	Description string
	// Effect is required; an action with an unset effect panics at definition.
	Effect   Effect
	Bindings []Binding
	// MCP, when set, renders the action's output as the vendor's MCP server
	// answers the tool, where that differs from the REST object (the
	// trimmed objects of github-mcp-server, a file's text instead of its
	// base64). It is the one place the MCP form is derived: Run applies it
	// to calls that arrive over MCP, and the tool then declares no output
	// schema, as the vendor's tools declare none. It sees the world the
	// handler saw (still held) and the call's context; it must not change
	// the world.
	MCP MCPRenderer
}

// MCPRenderer turns an action's output into its MCP answer: any value
// answered as its JSON text, or an *MCPResult for an answer that is not
// one JSON text.
type MCPRenderer func(ctx context.Context, world, in, out any) (any, error)

// MCPResult is an MCP answer other than one JSON text: a plain-text
// message and, optionally, an embedded resource (github-mcp-server answers
// a file's contents this way).
type MCPResult struct {
	Text     string       `json:"text"`
	Resource *MCPResource `json:"resource,omitempty"`
}

// MCPResource is an embedded resource of an MCP answer: text, or bytes
// (Blob) for binary contents.
type MCPResource struct {
	URI      string `json:"uri"`
	MIMEType string `json:"mimeType,omitempty"`
	Text     string `json:"text,omitempty"`
	Blob     []byte `json:"blob,omitempty"`
}

// Binding mounts an action on one vendor REST route.
type Binding struct {
	// Method is the HTTP method ("GET", "POST", …).
	Method string
	// Path is the vendor path below the twin's API root, with {name}
	// placeholders that bind input fields of the same JSON name, e.g.
	// "/repos/{owner}/{repo}/issues/{issue_number}".
	Path string
	// Fixed arguments are set on the input regardless of the request
	// (e.g. issue_write's "method": "create" for POST …/issues).
	Fixed map[string]any
	// Status is the success status; 0 means 200.
	Status int
	// StatusOf, when set, picks the success status from the call (GitHub's
	// contents PUT answers 201 for a new file and 200 for an update).
	StatusOf func(in, out any) int
	// Body, when set, names the input field that receives the whole decoded
	// request body instead of merging the body's fields into the input.
	Body string
	// Rename maps vendor parameter names to input field names
	// (e.g. Slack's "channel" → "channel_id").
	Rename map[string]string
	// Shape turns the action's output into the vendor's REST body when the
	// two differ; nil sends the output as it is.
	Shape func(in, out any) any
	// Headers returns extra response headers (pagination links and the like)
	// computed from input and output, as name and value pairs; the REST
	// adapter sets them in order, so a later pair of a name wins.
	Headers func(in, out any) [][2]string
}

// SuccessStatus returns the binding's success status.
func (b Binding) SuccessStatus() int {
	if b.Status == 0 {
		return 200
	}
	return b.Status
}

// PathParams returns the names of the {placeholders} in the binding's path.
func (b Binding) PathParams() []string {
	var out []string
	p := b.Path
	for {
		i := strings.IndexByte(p, '{')
		if i < 0 {
			return out
		}
		j := strings.IndexByte(p[i:], '}')
		if j < 0 {
			return out
		}
		name := p[i+1 : i+j]
		if k := strings.IndexByte(name, ':'); k >= 0 {
			name = name[:k]
		}
		out = append(out, name)
		p = p[i+j+1:]
	}
}

// Action is one twin operation, defined once and served by every transport.
// Values are built by New; the interface lets actions of different input and
// output types live in one slice.
type Action interface {
	Spec() *Spec
	Name() string
	// InputSchema is the JSON schema of the input, inferred once.
	InputSchema() *jsonschema.Schema
	// OutputSchema is the JSON schema of the output when it is an object,
	// encoded; nil otherwise.
	OutputSchema() json.RawMessage
	// InputType is the Go type of the input struct.
	InputType() reflect.Type
	// Decode validates a JSON object of arguments against the input schema
	// and decodes it into the typed input.
	Decode(args json.RawMessage) (any, error)
	// DecodeMap is Decode for arguments already held as a map, as the REST
	// decoder builds them: the same validation, the same refusals, the
	// same typed input, without encoding the map to JSON and parsing it
	// back (see argdecode.go). Values are what encoding/json decodes into
	// an any (nil, bool, float64, string, []any, map[string]any), or a
	// json.RawMessage holding a value's JSON text. DecodeMap may change
	// obj; the caller must not use it afterwards.
	DecodeMap(obj map[string]any) (any, error)
	// Run calls the handler with the twin's world and a decoded input.
	Run(ctx context.Context, world any, in any) (any, error)
}

// Handler is an action's logic: the twin's world in, the typed output out.
// It knows nothing of transports. A handler must validate before it mutates,
// so that a refused call leaves the world as it was.
type Handler[W, In, Out any] func(ctx context.Context, w *W, in In) (Out, error)

type action[W, In, Out any] struct {
	spec Spec
	h    Handler[W, In, Out]
	in   *jsonschema.Schema
	// resolved is the full validator of the input schema and byProp that
	// of the schema without its required list, to validate one property
	// at a time (see firstFault). Both are resolved on first need: most
	// arguments are accepted by quick, and a server's resolved schemas of
	// every action were a fifth of the objects its collections marked
	// (12,916 of 69,641 in a heap profile of an idle server), for actions
	// most sandboxes never call. New resolves them once to check them, and
	// drops the result.
	resolved func() (resolvedInput, error)
	// quick says yes, cheaply, to arguments resolved would accept (nil
	// when the schema is beyond it; see quickSchema).
	quick *quickSchema
	// out is the output schema, kept encoded: nothing reads it but to
	// send it (tools/list, the OpenAPI document), and as a graph of
	// schemas it was the largest part of a server's live heap that every
	// collection had to scan (14.5 MB in a heap profile of a busy server,
	// against 731 KB encoded: TestOutputSchemasEncoded), which made each
	// collection's marking take about twice as long.
	out json.RawMessage
	// plan fills In from generic values (DecodeMap).
	plan *argPlan
}

// New defines an action. It panics on a definition error (missing name or
// effect, input that is not a struct), since actions are package-level data
// checked by tests.
func New[W, In, Out any](spec Spec, h Handler[W, In, Out]) Action {
	if spec.Name == "" {
		panic("twins.New: action without a name")
	}
	if !spec.Effect.Valid() {
		panic(fmt.Sprintf("twins.New(%s): effect is required", spec.Name))
	}
	if reflect.TypeFor[In]().Kind() != reflect.Struct {
		panic(fmt.Sprintf("twins.New(%s): input must be a struct", spec.Name))
	}
	in, err := jsonschema.For[In](schemaOptions())
	if err != nil {
		panic(fmt.Sprintf("twins.New(%s): input schema: %v", spec.Name, err))
	}
	// Like the vendors' MCP servers, tolerate arguments the schema does not
	// name: agents send extras, and dropping them is what the vendor does.
	in.AdditionalProperties = nil
	if in.Properties == nil {
		in.Properties = map[string]*jsonschema.Schema{}
	}
	concrete(in)
	if err := enums(in, reflect.TypeFor[In]()); err != nil {
		panic(fmt.Sprintf("twins.New(%s): input schema: %v", spec.Name, err))
	}
	if _, err := resolveInput(in); err != nil {
		panic(fmt.Sprintf("twins.New(%s): resolve input schema: %v", spec.Name, err))
	}
	a := &action[W, In, Out]{spec: spec, h: h, in: in, plan: argPlanFor(reflect.TypeFor[In]()),
		resolved: sync.OnceValues(func() (resolvedInput, error) { return resolveInput(in) })}
	if doc, err := json.Marshal(in); err == nil {
		a.quick = compileQuick(doc)
	}
	ot := reflect.TypeFor[Out]()
	for ot.Kind() == reflect.Pointer {
		ot = ot.Elem()
	}
	if ot.Kind() == reflect.Struct {
		opts := schemaOptions()
		opts.IgnoreInvalidTypes = true
		out, err := jsonschema.ForType(ot, opts)
		if err != nil {
			panic(fmt.Sprintf("twins.New(%s): output schema: %v", spec.Name, err))
		}
		concrete(out)
		if a.out, err = json.Marshal(out); err != nil {
			panic(fmt.Sprintf("twins.New(%s): output schema: %v", spec.Name, err))
		}
	}
	return a
}

func (a *action[W, In, Out]) Spec() *Spec                     { return &a.spec }
func (a *action[W, In, Out]) Name() string                    { return a.spec.Name }
func (a *action[W, In, Out]) InputSchema() *jsonschema.Schema { return a.in }
func (a *action[W, In, Out]) OutputSchema() json.RawMessage   { return a.out }
func (a *action[W, In, Out]) InputType() reflect.Type         { return reflect.TypeFor[In]() }

// QuickValidation lets the cheap schema check accept arguments before the
// full validator (see quickSchema). Tests turn it off to compare.
var QuickValidation = true

// HasQuickValidation reports whether a's input schema is simple enough for
// the cheap check, so that tests can see it stays in use. A twin that wraps
// its actions exposes the wrapped one with an Unwrap method.
func HasQuickValidation(a Action) bool {
	for {
		if q, ok := a.(interface{ quickSchema() *quickSchema }); ok {
			return q.quickSchema() != nil
		}
		w, ok := a.(interface{ Unwrap() Action })
		if !ok {
			return false
		}
		a = w.Unwrap()
	}
}

func (a *action[W, In, Out]) quickSchema() *quickSchema { return a.quick }

func (a *action[W, In, Out]) Decode(args json.RawMessage) (any, error) {
	if len(bytes.TrimSpace(args)) == 0 || string(bytes.TrimSpace(args)) == "null" {
		args = json.RawMessage("{}")
	}
	var generic any
	if err := json.Unmarshal(args, &generic); err != nil {
		return nil, Errorf(Invalid, "invalid_json", "Problems parsing JSON: %v", err)
	}
	obj, ok := generic.(map[string]any)
	if !ok {
		return nil, Errorf(Invalid, "invalid_arguments", "arguments must be a JSON object")
	}
	if err := a.validate(obj); err != nil {
		return nil, err
	}
	return a.unmarshal(args)
}

// resolvedInput is an input schema's validators (action.resolved).
type resolvedInput struct{ full, byProp *jsonschema.Resolved }

// resolveInput resolves in, and in without its required list. in is not
// changed.
func resolveInput(in *jsonschema.Schema) (resolvedInput, error) {
	full, err := in.Resolve(nil)
	if err != nil {
		return resolvedInput{}, err
	}
	loose := *in
	loose.Required = nil
	byProp, err := loose.Resolve(nil)
	if err != nil {
		return resolvedInput{}, err
	}
	return resolvedInput{full, byProp}, nil
}

// validate checks generic arguments against the input schema: the cheap
// check first, the full validator when it cannot say yes.
func (a *action[W, In, Out]) validate(obj map[string]any) error {
	if !QuickValidation || !a.quick.accepts(obj) {
		r, err := a.resolved()
		if err != nil {
			// New resolved the same schema without error.
			return Errorf(Internal, "", "action %s: input schema: %v", a.spec.Name, err)
		}
		if err := r.full.Validate(obj); err != nil {
			return validationError(a.firstFault(r, obj, err))
		}
	}
	return nil
}

// unmarshal decodes the arguments' JSON text into In with encoding/json,
// the reference every other way of filling In must agree with.
func (a *action[W, In, Out]) unmarshal(args []byte) (any, error) {
	var in In
	if err := json.Unmarshal(args, &in); err != nil {
		return nil, Errorf(Invalid, "invalid_arguments", "invalid arguments: %v", err)
	}
	return in, nil
}

func (a *action[W, In, Out]) DecodeMap(obj map[string]any) (any, error) {
	if obj == nil {
		obj = map[string]any{}
	}
	// Values given as text are checked, and mostly decoded, as the
	// generic values their text stands for. A call has a few such keys:
	// their texts are kept in a list on the stack, not a map of their own.
	var rawBuf [8]rawText
	raw := rawTexts(rawBuf[:0])
	for k, v := range obj {
		text, ok := v.(json.RawMessage)
		if !ok {
			continue
		}
		g, ok := plainGeneric(text)
		if !ok {
			if err := json.Unmarshal(text, &g); err != nil {
				return nil, Errorf(Invalid, "invalid_json", "Problems parsing JSON: %v", err)
			}
		}
		raw = append(raw, rawText{key: k, text: text})
		obj[k] = g
	}
	if err := a.validate(obj); err != nil {
		return nil, err
	}
	var in In
	if err := decodeArgs(a.plan, obj, raw, reflect.ValueOf(&in).Elem()); err == nil {
		return in, nil
	}
	// The plan stepped aside: decode the text Decode would have been
	// given, so that the answer, or the refusal, is encoding/json's.
	for _, r := range raw {
		obj[r.key] = r.text
	}
	args, err := json.Marshal(obj)
	if err != nil {
		return nil, Errorf(Invalid, "invalid_arguments", "invalid arguments: %v", err)
	}
	return a.unmarshal(args)
}

// firstFault picks, among the faults of arguments the schema refused with
// err, the one to report: that of the first named property in name order
// that is wrong on its own, else err (a missing required property). The
// validator walks the schema's properties in map order, so with several
// wrong arguments it would name a different one from call to call, and the
// same call would be answered, and taped, differently.
func (a *action[W, In, Out]) firstFault(r resolvedInput, obj map[string]any, err error) error {
	if len(obj) < 2 {
		return err
	}
	names := make([]string, 0, len(obj))
	for k := range obj {
		if _, named := a.in.Properties[k]; named {
			names = append(names, k)
		}
	}
	slices.Sort(names)
	for _, k := range names {
		if perr := r.byProp.Validate(map[string]any{k: obj[k]}); perr != nil {
			return perr
		}
	}
	return err
}

func (a *action[W, In, Out]) Run(ctx context.Context, world any, in any) (any, error) {
	w, ok := world.(*W)
	if !ok {
		return nil, Errorf(Internal, "", "action %s: world of type %T", a.spec.Name, world)
	}
	typed, ok := in.(In)
	if !ok {
		return nil, Errorf(Internal, "", "action %s: input of type %T", a.spec.Name, in)
	}
	out, err := a.h(ctx, w, typed)
	var rendered any = out
	if err == nil && a.spec.MCP != nil && TransportFrom(ctx) == TransportMCP {
		rendered, err = a.spec.MCP(ctx, w, typed, out)
	}
	CallFrom(ctx).finish(a.spec.Effect, err)
	if err != nil {
		return nil, err
	}
	return rendered, nil
}

// schemaOptions maps types whose Go shape is not their JSON shape: a
// json.RawMessage is any JSON value, not an array of bytes, and so are the
// types a twin declares with AnyJSON.
func schemaOptions() *jsonschema.ForOptions {
	m := map[reflect.Type]*jsonschema.Schema{reflect.TypeFor[json.RawMessage](): {}}
	for _, t := range anyJSONTypes {
		m[t] = &jsonschema.Schema{}
	}
	return &jsonschema.ForOptions{TypeSchemas: m}
}

// anyJSONTypes are the types AnyJSON declared; written by init functions
// only, so read without a lock.
var anyJSONTypes []reflect.Type

// AnyJSON declares that values of t, a type with its own JSON encoding,
// may encode as any JSON value, as a json.RawMessage does: the schemas of
// the actions whose inputs or outputs hold one say so, rather than
// describing t's Go shape. Call it from an init function.
func AnyJSON(t reflect.Type) { anyJSONTypes = append(anyJSONTypes, t) }

// validationError turns a schema validation failure into an Invalid error
// that names the offending field where the validator says which.
func validationError(err error) *Error {
	// The validator prints a null among an enum's values as Go's <nil>.
	msg := strings.ReplaceAll(err.Error(), "<nil>", "null")
	e := &Error{Code: Invalid, Vendor: "invalid_arguments", Message: msg}
	// The validator reports paths such as "validating /properties/title: …".
	if i := strings.Index(msg, "/properties/"); i >= 0 {
		rest := msg[i+len("/properties/"):]
		if j := strings.IndexAny(rest, "/: "); j >= 0 {
			rest = rest[:j]
		}
		e.Field = rest
	}
	if strings.Contains(msg, "missing properties") {
		if i := strings.Index(msg, "["); i >= 0 {
			if j := strings.Index(msg[i:], "]"); j > 0 {
				e.Field = strings.Trim(strings.Fields(msg[i+1 : i+j])[0], "\"")
			}
		}
	}
	return e
}

// Raw is an output the REST transport sends as it is, under its content
// type, rather than as JSON: GitHub's diff and patch media types. Over MCP
// it is encoded like any other output.
type Raw struct {
	ContentType string `json:"content_type"`
	Body        string `json:"body"`
}
