package rest

import (
	"net/http"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/pomehq/pome/twins"
)

var muxPattern = regexp.MustCompile(`\{([^}:]+):[^}]*\}`)

// openAPIPath drops mux regexps from a binding path: {path:.+} → {path}.
func openAPIPath(p string) string { return muxPattern.ReplaceAllString(p, "{$1}") }

// openAPI is the OpenAPI 3.1 document of a twin's bindings in one sandbox,
// derived from the same action list as everything else.
func (s *Server) openAPI(tw *twins.Twin, sid string) map[string]any {
	paths := map[string]map[string]any{}
	for _, a := range tw.Actions {
		for i, b := range a.Spec().Bindings {
			p := openAPIPath(b.Path)
			if paths[p] == nil {
				paths[p] = map[string]any{}
			}
			opID := a.Name()
			if i > 0 {
				opID = a.Name() + "_" + strings.ToLower(b.Method) + "_" + strings.Trim(regexp.MustCompile(`[^a-zA-Z0-9]+`).ReplaceAllString(p, "_"), "_")
			}
			paths[p][strings.ToLower(b.Method)] = operation(a, b, opID)
		}
	}
	return map[string]any{
		"openapi": "3.1.0",
		"info": map[string]any{
			"title":       "Pome " + tw.Title + " twin",
			"version":     "1",
			"description": "The vendor REST surface of Pome's " + tw.Title + " twin. Each operation is one action; x-pome-tool names it (the MCP tool and the tape's tool field).",
		},
		"servers": []any{map[string]any{"url": s.Manager.TwinURLs(sid, tw.Name).APIURL}},
		"paths":   paths,
		"components": map[string]any{"securitySchemes": map[string]any{
			"bearer": map[string]any{"type": "http", "scheme": "bearer"},
		}},
		"security": []any{map[string]any{"bearer": []any{}}},
	}
}

func operation(a twins.Action, b twins.Binding, opID string) map[string]any {
	in := a.InputSchema()
	inPath := map[string]bool{}
	var params []any
	for _, name := range b.PathParams() {
		field := name
		if r, ok := b.Rename[name]; ok {
			field = r
		}
		inPath[field] = true
		params = append(params, map[string]any{"name": name, "in": "path", "required": true, "schema": propSchema(in, field)})
	}
	vendorName := map[string]string{}
	for from, to := range b.Rename {
		vendorName[to] = from
	}
	var names []string
	for k := range in.Properties {
		if !inPath[k] && b.Fixed[k] == nil {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	required := map[string]bool{}
	for _, r := range in.Required {
		required[r] = true
	}
	op := map[string]any{
		"operationId":   opID,
		"summary":       a.Spec().Title,
		"description":   a.Spec().Description,
		"x-pome-tool":   a.Name(),
		"x-pome-effect": a.Spec().Effect.String(),
	}
	bodyMethod := b.Method == http.MethodPost || b.Method == http.MethodPut || b.Method == http.MethodPatch
	if bodyMethod {
		props := map[string]any{}
		var req []string
		for _, k := range names {
			n := k
			if v, ok := vendorName[k]; ok {
				n = v
			}
			props[n] = in.Properties[k]
			if required[k] {
				req = append(req, n)
			}
		}
		body := map[string]any{"type": "object", "properties": props}
		if len(req) > 0 {
			body["required"] = req
		}
		op["requestBody"] = map[string]any{"content": map[string]any{
			"application/json":                  map[string]any{"schema": body},
			"application/x-www-form-urlencoded": map[string]any{"schema": body},
		}}
	} else {
		for _, k := range names {
			n := k
			if v, ok := vendorName[k]; ok {
				n = v
			}
			params = append(params, map[string]any{"name": n, "in": "query", "required": required[k], "schema": in.Properties[k]})
		}
	}
	if params == nil {
		params = []any{}
	}
	op["parameters"] = params
	var out any = map[string]any{}
	if os := a.OutputSchema(); os != nil && b.Shape == nil {
		out = os
	}
	status := http.StatusText(b.SuccessStatus())
	resp := map[string]any{"description": status}
	if b.SuccessStatus() != http.StatusNoContent {
		resp["content"] = map[string]any{"application/json": map[string]any{"schema": out}}
	}
	op["responses"] = map[string]any{
		strconv.Itoa(b.SuccessStatus()): resp,
		"default":                       map[string]any{"description": "The vendor's error envelope."},
	}
	return op
}

func propSchema(in *jsonschema.Schema, name string) any {
	if p, ok := in.Properties[name]; ok {
		return p
	}
	return map[string]any{"type": "string"}
}
