package slack

import (
	"net/http"

	"github.com/pomehq/pome/twins"
)

// New returns the Slack twin.
func New() *twins.Twin {
	newWorld, decodeJSON := twins.WorldCodec(build)
	// A decoded world gets the indexes the state document leaves out.
	decode := func(data []byte) (any, error) {
		w, err := decodeJSON(data)
		if err != nil {
			return nil, err
		}
		w.(*World).indexMessages()
		return w, nil
	}
	return (&twins.Twin{
		Name:  "slack",
		Title: "Slack",
		// Every action sees scheduled messages delivered once their time
		// has come (scheduled.go).
		Actions:     delivering(actions()),
		Checks:      checks(),
		NewWorld:    newWorld,
		DecodeWorld: decode,
		CopyWorld:   twins.WorldCopier((*World).indexMessages),
		// Seeds come in our format and in the original Pome's, which
		// NewWorld loads alike (seed_original.go).
		SeedExample:         SeedExample,
		SeedExampleOriginal: SeedExampleOriginal,
		RESTError:           restError,
		Refusal:             refusal,
		TokenPrefix:         "xoxb-",
		// Beside the bot token, a user token for what Slack reserves to
		// users (search.messages): it acts as the same token user, without
		// the bot identity.
		UserTokenPrefix: "xoxp-",
		// Slack SDKs may send the token as a "token" form or query field.
		TokenInBody: true,
		// Slack answers every method with and without the /api prefix.
		AliasPrefixes: map[string]string{"/api/": "/"},
	}).Finish()
}

// actions is the twin's one list of actions, grouped by Web API family.
func actions() []twins.Action {
	var out []twins.Action
	out = append(out, authActions()...)
	out = append(out, chatActions()...)
	out = append(out, conversationActions()...)
	out = append(out, conversationAdminActions()...)
	out = append(out, reactionActions()...)
	out = append(out, pinAndBookmarkActions()...)
	out = append(out, userActions()...)
	out = append(out, userMoreActions()...)
	out = append(out, searchActions()...)
	out = append(out, fileActions()...)
	out = append(out, canvasActions()...)
	out = append(out, draftActions()...)
	return out
}

// method binds a Web API method the way Slack serves it: POST (form or
// JSON body) and GET (query string) on /api/{method}. The transport also
// mounts these without the /api prefix.
func method(name string, rename map[string]string) []twins.Binding {
	return []twins.Binding{
		{Method: "POST", Path: "/api/" + name, Rename: rename},
		{Method: "GET", Path: "/api/" + name, Rename: rename},
	}
}

// errorBody is Slack's error envelope.
type errorBody struct {
	OK               bool           `json:"ok"`
	Error            string         `json:"error"`
	Needed           string         `json:"needed,omitempty"`
	Provided         string         `json:"provided,omitempty"`
	ResponseMetadata *errorMetadata `json:"response_metadata,omitempty"`
	// Pome explains an unknown_method in full (the supported surfaces);
	// Slack has no field for that.
	Pome *twins.Unsupported `json:"pome,omitempty"`
}

type errorMetadata struct {
	Messages []string `json:"messages"`
}

// restError renders every twin and transport error in Slack's protocol:
// application errors are HTTP 200 with ok:false and Slack's error string;
// only rate limiting and oversized requests change the status, as on
// slack.com.
func restError(e *twins.Error) (int, any) {
	body := errorBody{Error: e.Vendor}
	status := http.StatusOK
	switch e.Code {
	case twins.RateLimited:
		status, body.Error = http.StatusTooManyRequests, "ratelimited"
	case twins.TooLarge:
		status, body.Error = http.StatusRequestEntityTooLarge, "request_too_large"
	case twins.NotImplemented:
		// As slack.com answers a method it does not know: HTTP 200, so
		// that SDKs which retry every other status stop at once.
		// Slack's own place for an explanation is
		// response_metadata.messages, which the SDKs keep on the error.
		body.Error = "unknown_method"
		body.Pome, _ = twins.UnsupportedOf(e)
		body.ResponseMetadata = &errorMetadata{Messages: []string{"[ERROR] " + e.Message}}
	case twins.Unauthorized:
		if body.Error == "" {
			body.Error = "invalid_auth"
		}
	case twins.Invalid:
		if body.Error == "" {
			body.Error = "invalid_arguments"
		}
		// Slack explains argument errors in response_metadata.messages.
		if body.Error == "invalid_arguments" || body.Error == "invalid_json" {
			body.ResponseMetadata = &errorMetadata{Messages: []string{"[ERROR] " + e.Message}}
		}
	case twins.Internal:
		body.Error = "internal_error"
	}
	if body.Error == "" {
		body.Error = "internal_error"
	}
	if v, ok := e.Details["needed"].(string); ok {
		body.Needed = v
	}
	if v, ok := e.Details["provided"].(string); ok {
		body.Provided = v
	}
	return status, body
}

// refusal is what slack.com answers a bad token, for every data-plane
// refusal: HTTP 200 invalid_auth. @slack/web-api retries any other status
// for about half an hour by default.
func refusal(string) *twins.Error {
	return twins.Errorf(twins.Unauthorized, "invalid_auth", "invalid_auth")
}

// Slack's application errors, each built in one place so the message an
// MCP client sees is always the same for the same error.

func errChannelNotFound(ref string) *twins.Error {
	return twins.Errorf(twins.NotFound, "channel_not_found", "Channel %q was not found or is not visible to this token; use conversations.list or slack_search_channels to find channel ids.", ref)
}

func errNotInChannel(ch *Channel) *twins.Error {
	return twins.Errorf(twins.Forbidden, "not_in_channel", "The token's user is not a member of #%s (%s); join it with conversations.join first.", ch.Name, ch.ID)
}

func errIsArchived(ch *Channel) *twins.Error {
	return twins.Errorf(twins.Forbidden, "is_archived", "Channel #%s (%s) is archived.", ch.Name, ch.ID)
}

func errMessageNotFound(ts string) *twins.Error {
	return twins.Errorf(twins.NotFound, "message_not_found", "No message with ts %q in this channel.", ts)
}

func errThreadNotFound(ts string) *twins.Error {
	return twins.Errorf(twins.NotFound, "thread_not_found", "No message with ts %q in this channel.", ts)
}

func errUserNotFound(ref string) *twins.Error {
	return twins.Errorf(twins.NotFound, "user_not_found", "User %q was not found; use users.list or slack_search_users to find user ids.", ref)
}
