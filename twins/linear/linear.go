package linear

import (
	"net/http"

	"github.com/pomehq/pome/twins"
)

// New returns the Linear twin: the tools of Linear's MCP server, each bound
// to Linear's GraphQL API at /graphql (gql.go) rather than to REST paths,
// its checks and its world.
func New() *twins.Twin {
	newWorldFn, decode := twins.WorldCodec(newWorld)
	return (&twins.Twin{
		Name:        "linear",
		Title:       "Linear",
		Actions:     Actions(),
		Checks:      checks(),
		NewWorld:    newWorldFn,
		DecodeWorld: decode,
		CopyWorld:   twins.WorldCopier[World](nil),
		RESTError:   restError,
		// Linear's personal API keys are lin_api_…, sent as the whole
		// Authorization header; OAuth tokens come as Bearer.
		TokenPrefix:    "lin_api_",
		BareCredential: true,
		GraphQL:        graphqlAction,
		// Linear's API is one endpoint, https://api.linear.app/graphql:
		// clients configured with the server's root reach it at /graphql,
		// the lin_api_ key naming the sandbox.
		RootPaths:       []string{"/graphql"},
		SeedCredentials: seedCredentials,
		SeedExample:     SeedExample,

		SeedExampleOriginal: SeedExampleOriginal,
	}).Finish()
}

// Actions is the twin's one list of actions: the tools of Linear's MCP
// server, in its order, and archive_issue for GraphQL's issueArchive, which
// that server has no tool for.
func Actions() []twins.Action {
	return []twins.Action{
		listComments, saveComment, deleteComment,
		listCycles,
		getDocument, listDocuments, saveDocument,
		getIssue, listIssues, saveIssue,
		listIssueStatuses, getIssueStatus,
		listIssueLabels, createIssueLabel,
		listProjects, getProject, saveProject,
		listTeams, getTeam,
		listUsers, getUser,
		searchDocumentation,
		archiveIssue,
	}
}

func seedCredentials(world any) []string {
	w, ok := world.(*World)
	if !ok || w == nil {
		return nil
	}
	return append([]string(nil), w.TokenHashes...)
}

// Linear's error classes, as its GraphQL API names them in
// extensions.type (which @linear/sdk turns into its error classes) and
// extensions.code.
func errorType(c twins.Code) (typ, code string, status int) {
	switch c {
	case twins.NotFound, twins.Invalid, twins.Unprocessable, twins.Conflict:
		return "invalid input", "INPUT_ERROR", http.StatusBadRequest
	case twins.Unauthorized:
		return "authentication error", "AUTHENTICATION_ERROR", http.StatusUnauthorized
	case twins.Forbidden, twins.NotAllowed:
		return "forbidden", "FORBIDDEN", http.StatusForbidden
	case twins.RateLimited:
		return "ratelimited", "RATELIMITED", http.StatusTooManyRequests
	case twins.TooLarge:
		return "invalid input", "INPUT_ERROR", http.StatusRequestEntityTooLarge
	case twins.NotImplemented:
		return "invalid input", "UNSUPPORTED", http.StatusNotFound
	}
	return "internal error", "INTERNAL_ERROR", http.StatusInternalServerError
}

// gqlErrorBody is one entry of Linear's errors list.
type gqlErrorBody struct {
	Message    string         `json:"message"`
	Path       []any          `json:"path,omitempty"`
	Locations  []any          `json:"locations,omitempty"`
	Extensions map[string]any `json:"extensions,omitempty"`
}

// errorEnvelope is Linear's answer to a request it refuses: a GraphQL
// response without data.
type errorEnvelope struct {
	Errors []gqlErrorBody `json:"errors"`
	// Pome explains an unsupported call in full; Linear has no field for
	// it.
	Pome *twins.Unsupported `json:"pome,omitempty"`
}

func extensionsOf(e *twins.Error) map[string]any {
	typ, code, status := errorType(e.Code)
	ext := map[string]any{"type": typ, "code": code, "statusCode": status,
		"userError": e.Code != twins.Internal && e.Code != twins.Unavailable, "userPresentableMessage": e.Message}
	if e.Field != "" {
		ext["field"] = e.Field
	}
	return ext
}

// restError renders every error in Linear's GraphQL envelope.
func restError(e *twins.Error) (int, any) {
	_, _, status := errorType(e.Code)
	body := errorEnvelope{Errors: []gqlErrorBody{{Message: e.Message, Extensions: extensionsOf(e)}}}
	if e.Code == twins.NotImplemented {
		body.Pome, _ = twins.UnsupportedOf(e)
	}
	return status, body
}

func errNotFound(kind, ref string) *twins.Error {
	return twins.Errorf(twins.NotFound, "entity_not_found", "Entity not found: %s - Could not find referenced %s %q.", kind, kind, ref)
}

func errInvalid(field, format string, args ...any) *twins.Error {
	return twins.Errorf(twins.Invalid, "invalid_input", format, args...).WithField(field)
}
