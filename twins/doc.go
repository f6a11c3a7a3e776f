// Package twins is the action framework: each twin declares its actions once
// (name, effect, typed input and output, handler, REST bindings) and the MCP
// server, the REST adapter, the OpenAPI document and the tape all derive
// from that one list. This package knows nothing of HTTP or MCP.
//
// # Writing a twin
//
// A twin lives in its own package (twins/github, twins/slack, …) and exports
// one constructor, New() *twins.Twin, that lists its actions and checks
// explicitly and ends with Finish(). Nothing registers itself.
//
// World. All of a twin's state for one sandbox is one exported Go struct with
// JSON tags (the "world"). Stores keep it live (memory) or as its JSON
// document (Redis), so everything must survive a json round trip, including
// id counters: ids are deterministic per sandbox (counters in the world), and
// timestamps come from twins.EnvFrom(ctx).Now(), the sandbox clock.
//
// Seed. NewWorld(ctx, seed) builds the world: a nil seed gives the default
// world of SPEC §9; a seed is decoded strictly with DecodeSeed (unknown keys
// and wrong types fail) and its references are checked (a label that is not
// defined, an assignee who is not a collaborator); every failure is a
// *SeedError whose Path is a JSON pointer into the twin's seed document.
//
// Handlers. func(ctx, w *World, in Input) (Output, error). A handler
// validates everything before it changes anything: a refused call must leave
// the world exactly as it was. A write that succeeds without changing
// anything calls Unchanged(ctx), so the tape reads state_mutation=false.
// Errors are *Error values (Errorf(code, vendorCode, format, …)); the twin's
// RESTError maps them to the vendor's status and envelope in one place, and
// MCP shows the message in an isError result. Never pick a status by
// matching error text.
//
// Input structs. JSON field names are the MCP argument names (the vendor MCP
// server's). Fields without omitempty are required in the inferred schema;
// a `jsonschema:"…"` tag is the field's description. Use pointers or
// omitempty for optional fields, so that "absent" and "zero" differ where
// the vendor distinguishes them.
//
// Closed sets. A string parameter (or list of strings) that takes one of a
// fixed set of values declares it with an `enum:"a,b,c"` tag beside its
// json tag, e.g.
//
//	State string `json:"state,omitempty" jsonschema:"open (default), closed or all" enum:"open,closed,all"`
//
// The set goes into the input schema as a JSON Schema enum (on the items,
// for a list; with null added for a pointer field, whose schema allows
// null), and Decode refuses any other value, over MCP and REST alike, with
// the same Invalid error as a wrong type (the twin's RESTError shapes it;
// the handler never sees the call, and nothing changes). Values are
// matched exactly: list the spellings the vendor declares, and where one
// field serves both transports with different spellings (github-mcp-server's
// OPEN/CLOSED, REST's open/closed/all) list their union. A REST binding's
// Fixed value must lie inside the set (twins/all checks it). A tag on any
// other type, or with an empty value, panics when the action is defined.
// Tag the parameters the vendor's MCP server or REST reference declares as
// enums; the tool-list conformance test in twins/all compares them with the
// vendor's published lists.
//
// Bindings. Each REST route the vendor has for an action is a Binding on
// that action: Method, Path (vendor spelling below the API root, {name}
// placeholders bind input fields of that JSON name), Fixed arguments (e.g.
// issue_write's "method":"create" for POST …/issues), success Status, Rename
// (vendor parameter name → input field), Shape (output → vendor REST body
// when they differ) and Headers (pagination links and the like). The REST
// adapter builds the input from path parameters, the query string and the
// body (JSON, form, Slack's mixed form/JSON/query, Stripe's bracket-nested
// form), coercing strings to the field types, then validates it against the
// same schema MCP uses. When several arguments are wrong, the error names
// the first of them in name order, so the same call is always answered (and
// taped) the same way; several faults inside one nested argument may still
// be worded differently from run to run.
package twins
