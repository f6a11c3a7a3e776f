package rest

import (
	"bytes"
	"encoding/json"
	"io"
	"math"
	"mime"
	"mime/multipart"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/pomehq/pome/twins"
)

// request is what the decoder reads of one HTTP request; the body has been
// read once already (for the tape) and is passed as bytes.
type request struct {
	vars        pathVars
	query       url.Values
	contentType string
	body        []byte
	// form, when set, keeps the body as parsed as a form.
	form *url.Values
}

// decodeInput is a REST call's typed input: the request's arguments,
// validated and decoded by the action.
//
// The arguments go to the action as a map (Action.DecodeMap), not as
// JSON: the map is what buildInput builds, and encoding it only for the
// action to parse it back twice was a third of a form call's cost. Where
// a value's JSON text says more than its generic value (a JSON body's
// values, which keep their number spelling and key order), the value is
// passed as that text, so nothing that reached the action before is lost.
func decodeInput(tw *twins.Twin, a twins.Action, b twins.Binding, r request) (any, error) {
	args, err := buildInput(tw, a, b, r)
	if err != nil {
		return nil, err
	}
	return a.DecodeMap(args)
}

// buildInput turns path parameters, the query string and the body into the
// action's arguments: the one decoder behind every vendor binding.
// Values that arrive as strings (path, query, forms) are coerced to the
// field types of the action's input schema; JSON bodies keep their types.
// Keys the input does not have are dropped, or refused when the twin is
// strict (Stripe). The map holds what Action.DecodeMap takes: generic
// JSON values, or a value's JSON text (argValue); its JSON encoding is
// the arguments' JSON.
func buildInput(tw *twins.Twin, a twins.Action, b twins.Binding, r request) (map[string]any, error) {
	schema := a.InputSchema()
	args := map[string]any{}
	typed := map[string]bool{} // keys whose values came from typed JSON

	for k, vs := range r.query {
		setNested(args, k, vs)
	}
	if len(bytes.TrimSpace(r.body)) > 0 {
		mt, params, _ := mime.ParseMediaType(r.contentType)
		// curl -d sends a form content type with whatever it is given, and
		// GitHub and Google read a JSON object whatever the header says.
		if mt == "application/x-www-form-urlencoded" && looksLikeJSONObject(r.body) {
			mt = "application/json"
		}
		switch {
		case b.Body != "":
			if schemaType(schema.Properties[b.Body]) == "string" && mt != "application/json" && (mt != "" || !json.Valid(r.body)) {
				// A media upload (Gmail's message/rfc822): the body is
				// the value, as sent.
				args[b.Body] = string(r.body)
			} else {
				// Any other whole-body value is JSON whatever the content
				// type says, as GitHub reads it: text that is not JSON is
				// refused, never taken as the value.
				if err := checkUTF8(r.body); err != nil {
					return nil, err
				}
				var v any
				if err := json.Unmarshal(r.body, &v); err != nil {
					return nil, twins.Errorf(twins.Invalid, "invalid_json", "Problems parsing JSON: %v", err)
				}
				args[b.Body] = v
			}
			typed[b.Body] = true
		case mt == "application/x-www-form-urlencoded":
			form, err := url.ParseQuery(string(r.body))
			if err != nil {
				return nil, twins.Errorf(twins.Invalid, "invalid_form_data", "the form body could not be parsed: %v", err)
			}
			for k, vs := range form {
				setNested(args, k, vs)
			}
			if r.form != nil {
				*r.form = form
			}
		case mt == "multipart/form-data":
			if err := readMultipart(args, r.body, params["boundary"]); err != nil {
				return nil, err
			}
		default:
			// JSON is what GitHub, Slack and Google clients send, often
			// without a content type. Values stay raw: the action gets
			// them as sent (argValue), and decodes them itself.
			if err := checkUTF8(r.body); err != nil {
				return nil, err
			}
			raw, ok := objectMembers(r.body)
			if !ok && json.Unmarshal(r.body, &raw) == nil && raw != nil {
				ok = true
			}
			if ok {
				for k, v := range raw {
					args[k] = v
					typed[k] = true
				}
				break
			}
			// Not a JSON object: decode again, to say how.
			var obj map[string]any
			dec := json.NewDecoder(bytes.NewReader(r.body))
			dec.UseNumber()
			if err := dec.Decode(&obj); err != nil {
				return nil, twins.Errorf(twins.Invalid, "invalid_json", "Problems parsing JSON: the body must be a JSON object")
			}
			// More() reports false before a stray '}' or ']', so ask for
			// the next token: only the end of input is clean.
			if _, err := dec.Token(); err != io.EOF {
				return nil, twins.Errorf(twins.Invalid, "invalid_json", "Problems parsing JSON: trailing data after the object")
			}
			for k, v := range obj {
				args[k] = v
				typed[k] = true
			}
		}
	}
	for _, v := range r.vars {
		args[v.name] = v.value
		delete(typed, v.name)
	}
	for from, to := range b.Rename {
		if v, ok := args[from]; ok {
			if _, set := args[to]; !set {
				args[to] = v
				typed[to] = typed[from]
			}
			delete(args, from)
			delete(typed, from)
		}
	}
	for k, v := range b.Fixed {
		switch v.(type) {
		case nil, bool, string, float64, int, int64:
		default:
			// Every call shares the binding's value: a container goes as
			// its text, so that nothing downstream converts it in place
			// or hands it to a handler.
			if text, err := json.Marshal(v); err == nil {
				v = json.RawMessage(text)
			}
		}
		args[k] = v
		typed[k] = true
	}

	keys := make([]string, 0, len(args))
	for k := range args {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		prop, ok := schema.Properties[k]
		if !ok {
			if tw.StrictParams && !ignorableParam(tw, k) {
				return nil, (&twins.Error{Code: twins.Invalid, Vendor: "parameter_unknown", Message: "Received unknown parameter: " + k}).WithField(k)
			}
			delete(args, k)
			continue
		}
		v := args[k]
		if !typed[k] {
			v = coerce(v, prop)
		}
		v, err := argValue(v)
		if err != nil {
			return nil, err
		}
		args[k] = v
	}
	return args, nil
}

// argValue is v as Action.DecodeMap takes it: the generic value
// encoding/json would decode from v's JSON encoding (int64 and []string,
// which coercion and forms make, become float64 and []any), or, where no
// generic value encodes to the same text (an integer beyond float64's
// exact range, a string that is not UTF-8, a value of another Go type),
// v's JSON text itself. Either way v's JSON encoding is unchanged, so the
// action sees what it saw when it was given the arguments' JSON. A value
// JSON cannot encode (a NaN from a form) is refused as encoding it was.
func argValue(v any) (any, error) {
	if text, ok := v.(json.RawMessage); ok {
		return text, nil
	}
	if g, ok := genericArg(v); ok {
		return g, nil
	}
	text, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return json.RawMessage(text), nil
}

// genericArg converts v in place to generic values; ok is false when
// some part of v has none that encodes to the same JSON text (or none at
// all: argValue then lets encoding/json say why).
func genericArg(v any) (any, bool) {
	switch t := v.(type) {
	case nil, bool:
		return t, true
	case string:
		return t, utf8.ValidString(t)
	case float64:
		return t, !math.IsNaN(t) && !math.IsInf(t, 0)
	case int64:
		// Every integer up to 2^53 is a float64, written the same way.
		if t >= -1<<53 && t <= 1<<53 {
			return float64(t), true
		}
		return nil, false
	case int:
		return genericArg(int64(t))
	case []string:
		out := make([]any, len(t))
		for i, s := range t {
			if !utf8.ValidString(s) {
				return nil, false
			}
			out[i] = s
		}
		return out, true
	case []any:
		if t == nil {
			return nil, true
		}
		for i, e := range t {
			g, ok := genericArg(e)
			if !ok {
				return nil, false
			}
			t[i] = g
		}
		return t, true
	case map[string]any:
		if t == nil {
			return nil, true
		}
		for k, e := range t {
			if !utf8.ValidString(k) {
				return nil, false
			}
			g, ok := genericArg(e)
			if !ok {
				return nil, false
			}
			t[k] = g
		}
		return t, true
	}
	return nil, false
}

// checkUTF8 refuses a JSON body that is not UTF-8, as the vendors do
// (GitHub: 400 "Problems parsing JSON"); encoding/json would read its
// invalid bytes as U+FFFD and store text the client never sent.
func checkUTF8(body []byte) error {
	if utf8.Valid(body) {
		return nil
	}
	return twins.Errorf(twins.Invalid, "invalid_json", "Problems parsing JSON: the body is not valid UTF-8")
}

// ignorableParam: credentials sent as fields are authentication, not input.
func ignorableParam(tw *twins.Twin, k string) bool {
	return tw.TokenInBody && k == "token"
}

// setNested stores a form or query value, expanding Stripe/Rails bracket
// keys: a[b]=1 → {"a":{"b":"1"}}, a[]=x → {"a":["x"]}, a[0][b]=y →
// {"a":{"0":{"b":"y"}}} (numeric-keyed maps become arrays during coercion).
func setNested(args map[string]any, key string, vs []string) {
	i := strings.IndexByte(key, '[')
	if i <= 0 || !strings.HasSuffix(key, "]") {
		if len(vs) == 1 {
			args[key] = vs[0]
		} else {
			args[key] = append([]string(nil), vs...)
		}
		return
	}
	head := key[:i]
	var segs []string
	rest := key[i:]
	for len(rest) > 0 && rest[0] == '[' {
		j := strings.IndexByte(rest, ']')
		if j < 0 {
			break
		}
		segs = append(segs, rest[1:j])
		rest = rest[j+1:]
	}
	cur := args
	name := head
	for n, seg := range segs {
		last := n == len(segs)-1
		if seg == "" {
			// a[] — append every value to a list under name.
			list, _ := cur[name].([]any)
			for _, v := range vs {
				list = append(list, v)
			}
			cur[name] = list
			return
		}
		child, ok := cur[name].(map[string]any)
		if !ok {
			child = map[string]any{}
			cur[name] = child
		}
		if last {
			if len(vs) == 1 {
				child[seg] = vs[0]
			} else {
				child[seg] = append([]string(nil), vs...)
			}
			return
		}
		cur, name = child, seg
	}
}

func readMultipart(args map[string]any, body []byte, boundary string) error {
	if boundary == "" {
		return twins.Errorf(twins.Invalid, "invalid_form_data", "multipart body without a boundary")
	}
	mr := multipart.NewReader(bytes.NewReader(body), boundary)
	for {
		p, err := mr.NextPart()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return twins.Errorf(twins.Invalid, "invalid_form_data", "the multipart body could not be parsed: %v", err)
		}
		data, err := io.ReadAll(p)
		if err != nil {
			return twins.Errorf(twins.Invalid, "invalid_form_data", "the multipart body could not be read: %v", err)
		}
		name := p.FormName()
		if name == "" {
			continue
		}
		if fn := p.FileName(); fn != "" {
			if _, ok := args["filename"]; !ok {
				args["filename"] = fn
			}
		}
		setNested(args, name, []string{string(data)})
	}
}

// schemaType returns the non-null JSON type a schema names.
func schemaType(s *jsonschema.Schema) string {
	if s == nil {
		return ""
	}
	if s.Type != "" {
		return s.Type
	}
	for _, t := range s.Types {
		if t != "null" {
			return t
		}
	}
	return ""
}

// coerce converts string-typed values (and bracket-nested maps of them) to
// the schema's types. What cannot be converted is left as it is, so that
// schema validation names the field and the expected type.
func coerce(v any, s *jsonschema.Schema) any {
	switch schemaType(s) {
	case "integer":
		if str, ok := single(v); ok {
			if n, err := strconv.ParseInt(strings.TrimSpace(str), 10, 64); err == nil {
				return n
			}
		}
	case "number":
		if str, ok := single(v); ok {
			if f, err := strconv.ParseFloat(strings.TrimSpace(str), 64); err == nil {
				return f
			}
		}
	case "boolean":
		if str, ok := single(v); ok {
			switch strings.ToLower(strings.TrimSpace(str)) {
			case "true", "1", "yes", "on":
				return true
			case "false", "0", "no", "off", "":
				return false
			}
		}
	case "string":
		if list, ok := v.([]string); ok && len(list) > 0 {
			return list[len(list)-1]
		}
	case "array":
		var items []any
		switch t := v.(type) {
		case string:
			if t == "" {
				return []any{}
			}
			if schemaType(s.Items) == "object" {
				return v
			}
			for _, p := range strings.Split(t, ",") {
				items = append(items, strings.TrimSpace(p))
			}
		case []string:
			for _, p := range t {
				items = append(items, p)
			}
		case []any:
			items = t
		case map[string]any:
			items = indexedList(t)
			if items == nil {
				return v
			}
		default:
			return v
		}
		for i := range items {
			items[i] = coerce(items[i], s.Items)
		}
		return items
	case "object":
		m, ok := v.(map[string]any)
		if !ok {
			return v
		}
		for k, vv := range m {
			if p, ok := s.Properties[k]; ok {
				m[k] = coerce(vv, p)
			} else if s.AdditionalProperties != nil {
				m[k] = coerce(vv, s.AdditionalProperties)
			}
		}
		return m
	}
	return v
}

func single(v any) (string, bool) {
	switch t := v.(type) {
	case string:
		return t, true
	case []string:
		if len(t) > 0 {
			return t[len(t)-1], true
		}
	}
	return "", false
}

// indexedList turns {"0":a,"1":b} into [a,b]; nil when keys are not 0..n-1.
func indexedList(m map[string]any) []any {
	out := make([]any, len(m))
	for k, v := range m {
		i, err := strconv.Atoi(k)
		if err != nil || i < 0 || i >= len(m) || out[i] != nil {
			return nil
		}
		out[i] = v
	}
	return out
}

// looksLikeJSONObject reports whether b is one valid JSON object; no form
// body is.
func looksLikeJSONObject(b []byte) bool {
	t := bytes.TrimSpace(b)
	return len(t) > 1 && t[0] == '{' && json.Valid(t)
}
