package slack

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/pomehq/pome/twins"
)

// Canvases: documents of markdown sections, made with canvases.create (or
// conversations.canvases.create, a channel's own canvas), edited section by
// section with canvases.edit, found with canvases.sections.lookup, and read
// whole with canvases.getContent. Slack's MCP server offers them as
// slack_create_canvas, slack_update_canvas and slack_read_canvas.

// Canvas is one canvas. Its id has Slack's file prefix (F), as canvases
// are files in Slack.
type Canvas struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	User  string `json:"user"`
	// ChannelID is set on a channel's canvas (conversations.canvases.create).
	ChannelID string           `json:"channel_id,omitempty"`
	Created   int64            `json:"created"`
	Updated   int64            `json:"updated"`
	Sections  []*CanvasSection `json:"sections"`
}

// CanvasSection is one section: a header line, or a run of lines up to a
// blank line or a header.
type CanvasSection struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Markdown string `json:"markdown"`
}

// maxCanvasMarkdown bounds one document_content, as Slack bounds a canvas.
const maxCanvasMarkdown = 100_000

func canvasActions() []twins.Action {
	return []twins.Action{
		twins.New(twins.Spec{
			Name: "slack_create_canvas", Title: "Create a canvas",
			Description: "Creates a canvas from markdown (canvases.create). Headers (#, ##, ###) and blank-line separated " +
				"paragraphs become sections; read it with slack_read_canvas, edit it with slack_update_canvas.",
			Effect: twins.Write, Bindings: method("canvases.create", nil),
		}, createCanvas),
		twins.New(twins.Spec{
			Name: "slack_create_channel_canvas", Title: "Create a channel's canvas",
			Description: "Creates the canvas of a channel the token's user is a member of (conversations.canvases.create); " +
				"a channel has at most one.",
			Effect: twins.Write, Bindings: method("conversations.canvases.create", nil),
		}, createChannelCanvas),
		twins.New(twins.Spec{
			Name: "slack_update_canvas", Title: "Edit a canvas",
			Description: "Edits a canvas (canvases.edit): action append, prepend or replace with markdown content, " +
				"at one section (section_id, from slack_read_canvas) or the whole canvas. Over the Web API, changes " +
				"holds one change: operation insert_at_start, insert_at_end, insert_before, insert_after, replace, " +
				"delete or rename.",
			Effect: twins.Write, Bindings: method("canvases.edit", nil),
		}, updateCanvas),
		twins.New(twins.Spec{
			Name: "slack_read_canvas", Title: "Read a canvas",
			Description: "Returns a canvas's title, its markdown and its sections with their ids (canvases.getContent).",
			Effect:      twins.Read, Bindings: method("canvases.getContent", nil),
		}, readCanvas),
		twins.New(twins.Spec{
			Name: "slack_lookup_canvas_sections", Title: "Find canvas sections",
			Description: "Finds the ids of a canvas's sections by type (h1, h2, h3, any_header) and/or text they contain " +
				"(canvases.sections.lookup).",
			Effect: twins.Read, Bindings: method("canvases.sections.lookup", nil),
		}, lookupCanvasSections),
	}
}

// CreateCanvasIn is canvases.create's input: Slack's MCP server takes title
// and content, the Web API title and document_content.
type CreateCanvasIn struct {
	Title           string `json:"title,omitempty" jsonschema:"Title of the canvas"`
	Content         string `json:"content,omitempty" jsonschema:"The canvas content, in markdown"`
	DocumentContent any    `json:"document_content,omitempty" jsonschema:"Web API form of content: {\"type\":\"markdown\",\"markdown\":\"…\"}, or that object encoded as a string"`
	ChannelID       string `json:"channel_id,omitempty" jsonschema:"Web API only: a channel to tab the canvas in (accepted; the canvas is standalone)"`
}

// CreateCanvasOut is canvases.create's and conversations.canvases.create's
// response.
type CreateCanvasOut struct {
	OK       bool   `json:"ok"`
	CanvasID string `json:"canvas_id"`
}

func createCanvas(ctx context.Context, w *World, in CreateCanvasIn) (CreateCanvasOut, error) {
	md, err := canvasMarkdown(in.Content, in.DocumentContent)
	if err != nil {
		return CreateCanvasOut{}, err
	}
	if in.ChannelID != "" {
		if _, _, err := w.postTarget(in.ChannelID); err != nil {
			return CreateCanvasOut{}, err
		}
	}
	c := w.newCanvas(ctx, in.Title, md)
	return CreateCanvasOut{OK: true, CanvasID: c.ID}, nil
}

// CreateChannelCanvasIn is conversations.canvases.create's input.
type CreateChannelCanvasIn struct {
	ChannelID       string `json:"channel_id" jsonschema:"Channel id (C…) or name"`
	Title           string `json:"title,omitempty" jsonschema:"Title of the canvas"`
	Content         string `json:"content,omitempty" jsonschema:"The canvas content, in markdown"`
	DocumentContent any    `json:"document_content,omitempty" jsonschema:"Web API form of content: {\"type\":\"markdown\",\"markdown\":\"…\"}, or that object encoded as a string"`
}

func createChannelCanvas(ctx context.Context, w *World, in CreateChannelCanvasIn) (CreateCanvasOut, error) {
	ch, _, err := w.postTarget(in.ChannelID)
	if err != nil {
		return CreateCanvasOut{}, err
	}
	if ch == nil {
		// A user id names a DM that is not open yet: it has no canvas to make.
		return CreateCanvasOut{}, errChannelNotFound(in.ChannelID)
	}
	md, err := canvasMarkdown(in.Content, in.DocumentContent)
	if err != nil {
		return CreateCanvasOut{}, err
	}
	for _, c := range w.Canvases {
		if c.ChannelID == ch.ID {
			return CreateCanvasOut{}, twins.Errorf(twins.Conflict, "channel_canvas_already_exists",
				"Channel %s already has a canvas (%s); edit it with slack_update_canvas.", ch.ID, c.ID)
		}
	}
	c := w.newCanvas(ctx, in.Title, md)
	c.ChannelID = ch.ID
	return CreateCanvasOut{OK: true, CanvasID: c.ID}, nil
}

// UpdateCanvasIn is canvases.edit's input: Slack's MCP arguments (action,
// content, section_id) or the Web API's changes.
type UpdateCanvasIn struct {
	CanvasID  string `json:"canvas_id" jsonschema:"Canvas id (F…)"`
	Action    string `json:"action,omitempty" jsonschema:"append, prepend or replace"`
	Content   string `json:"content,omitempty" jsonschema:"Markdown to add, or to replace with"`
	SectionID string `json:"section_id,omitempty" jsonschema:"Section to act at (from slack_read_canvas); without it, the whole canvas"`
	Changes   any    `json:"changes,omitempty" jsonschema:"Web API form: one change, [{\"operation\":…,\"section_id\":…,\"document_content\":{…},\"title_content\":{…}}], or that array encoded as a string"`
}

// CanvasChange is one change of canvases.edit.
type CanvasChange struct {
	Operation       string          `json:"operation"`
	SectionID       string          `json:"section_id,omitempty"`
	DocumentContent json.RawMessage `json:"document_content,omitempty"`
	TitleContent    json.RawMessage `json:"title_content,omitempty"`
}

func updateCanvas(ctx context.Context, w *World, in UpdateCanvasIn) (OKOut, error) {
	c, err := w.canvas(in.CanvasID)
	if err != nil {
		return OKOut{}, err
	}
	ch, err := canvasChange(in)
	if err != nil {
		return OKOut{}, err
	}
	if err := w.applyCanvasChange(ctx, c, ch); err != nil {
		return OKOut{}, err
	}
	c.Updated = now(ctx)
	return OKOut{OK: true}, nil
}

// canvasChange turns either input form into one canvases.edit change.
func canvasChange(in UpdateCanvasIn) (CanvasChange, error) {
	if in.Changes != nil {
		if in.Action != "" || in.Content != "" {
			return CanvasChange{}, invalidArgs("changes", "pass changes (Web API) or action and content (MCP), not both")
		}
		raw, err := jsonArray(in.Changes)
		if err != nil {
			return CanvasChange{}, invalidArgs("changes", "changes must be a JSON array of changes: %v", err)
		}
		var list []CanvasChange
		if err := json.Unmarshal(raw, &list); err != nil {
			return CanvasChange{}, invalidArgs("changes", "changes must be a JSON array of changes: %v", err)
		}
		if len(list) != 1 {
			return CanvasChange{}, invalidArgs("changes", "changes holds exactly one change, got %d", len(list))
		}
		return list[0], nil
	}
	doc, _ := json.Marshal(map[string]string{"type": "markdown", "markdown": in.Content})
	ch := CanvasChange{SectionID: in.SectionID, DocumentContent: doc}
	switch in.Action {
	case "append":
		ch.Operation = "insert_at_end"
		if in.SectionID != "" {
			ch.Operation = "insert_after"
		}
	case "prepend":
		ch.Operation = "insert_at_start"
		if in.SectionID != "" {
			ch.Operation = "insert_before"
		}
	case "replace":
		ch.Operation = "replace"
	case "":
		return ch, invalidArgs("action", "action is required: append, prepend or replace")
	default:
		return ch, invalidArgs("action", "action must be append, prepend or replace, got %q", in.Action)
	}
	return ch, nil
}

func (w *World) applyCanvasChange(ctx context.Context, c *Canvas, ch CanvasChange) error {
	if ch.Operation == "rename" {
		var title struct {
			Type     string `json:"type"`
			Markdown string `json:"markdown"`
		}
		if err := decodeMaybeString(ch.TitleContent, &title); err != nil || title.Type != "markdown" {
			return invalidArgs("changes", "rename takes title_content {\"type\":\"markdown\",\"markdown\":\"…\"}")
		}
		c.Title = strings.TrimSpace(title.Markdown)
		return nil
	}
	switch ch.Operation {
	case "insert_at_start", "insert_at_end", "insert_before", "insert_after", "replace", "delete":
	default:
		return invalidArgs("changes", "unknown operation %q (insert_at_start, insert_at_end, insert_before, insert_after, replace, delete, rename)", ch.Operation)
	}
	at := -1
	if ch.SectionID != "" {
		for i, s := range c.Sections {
			if s.ID == ch.SectionID {
				at = i
			}
		}
		if at < 0 {
			return twins.Errorf(twins.NotFound, "canvas_editing_failed", "Canvas %s has no section %q; find section ids with slack_read_canvas.", c.ID, ch.SectionID).WithField("section_id")
		}
	}
	needsSection := ch.Operation == "insert_before" || ch.Operation == "insert_after" || ch.Operation == "delete"
	switch {
	case needsSection && at < 0:
		return invalidArgs("section_id", "%s needs a section_id", ch.Operation)
	case (ch.Operation == "insert_at_start" || ch.Operation == "insert_at_end") && at >= 0:
		return invalidArgs("section_id", "%s takes no section_id", ch.Operation)
	}
	if ch.Operation == "delete" {
		c.Sections = append(c.Sections[:at], c.Sections[at+1:]...)
		return nil
	}
	var md string
	if len(ch.DocumentContent) > 0 {
		var err error
		if md, err = canvasMarkdown("", ch.DocumentContent); err != nil {
			return err
		}
	}
	if strings.TrimSpace(md) == "" {
		return invalidArgs("content", "%s needs non-empty markdown content", ch.Operation)
	}
	add := w.canvasSections(ctx, md)
	switch ch.Operation {
	case "insert_at_start":
		c.Sections = append(add, c.Sections...)
	case "insert_at_end":
		c.Sections = append(c.Sections, add...)
	case "insert_before":
		c.Sections = splice(c.Sections, at, at, add)
	case "insert_after":
		c.Sections = splice(c.Sections, at+1, at+1, add)
	case "replace":
		if at < 0 {
			c.Sections = add
		} else {
			c.Sections = splice(c.Sections, at, at+1, add)
		}
	}
	return nil
}

// splice replaces list[i:j] with add.
func splice(list []*CanvasSection, i, j int, add []*CanvasSection) []*CanvasSection {
	out := make([]*CanvasSection, 0, len(list)-(j-i)+len(add))
	out = append(out, list[:i]...)
	out = append(out, add...)
	return append(out, list[j:]...)
}

// CanvasIn names a canvas.
type CanvasIn struct {
	CanvasID string `json:"canvas_id" jsonschema:"Canvas id (F…)"`
	// ContentType is canvases.getContent's; only markdown is served.
	ContentType string `json:"content_type,omitempty" jsonschema:"Web API only: markdown (the default)"`
}

// ReadCanvasOut is canvases.getContent's response, with the title and
// sections Slack's MCP server shows beside the markdown.
type ReadCanvasOut struct {
	OK       bool             `json:"ok"`
	CanvasID string           `json:"canvas_id"`
	Title    string           `json:"title"`
	Content  string           `json:"content"`
	Sections []*CanvasSection `json:"sections"`
}

func readCanvas(ctx context.Context, w *World, in CanvasIn) (ReadCanvasOut, error) {
	if in.ContentType != "" && in.ContentType != "markdown" {
		return ReadCanvasOut{}, invalidArgs("content_type", "content_type %q is not served; use markdown", in.ContentType)
	}
	c, err := w.canvas(in.CanvasID)
	if err != nil {
		return ReadCanvasOut{}, err
	}
	return ReadCanvasOut{OK: true, CanvasID: c.ID, Title: c.Title, Content: c.markdown(), Sections: c.Sections}, nil
}

// LookupSectionsIn is canvases.sections.lookup's input.
type LookupSectionsIn struct {
	CanvasID string `json:"canvas_id" jsonschema:"Canvas id (F…)"`
	Criteria any    `json:"criteria" jsonschema:"{\"section_types\":[\"h1\"|\"h2\"|\"h3\"|\"any_header\"], \"contains_text\":\"…\"}, or that object encoded as a string"`
}

// LookupSectionsOut is canvases.sections.lookup's response.
type LookupSectionsOut struct {
	OK       bool             `json:"ok"`
	Sections []SectionPointer `json:"sections"`
}

// SectionPointer is a section as canvases.sections.lookup names it.
type SectionPointer struct {
	ID string `json:"id"`
}

func lookupCanvasSections(ctx context.Context, w *World, in LookupSectionsIn) (LookupSectionsOut, error) {
	var crit struct {
		SectionTypes []string `json:"section_types"`
		ContainsText string   `json:"contains_text"`
	}
	raw, _ := json.Marshal(in.Criteria)
	if err := decodeMaybeString(raw, &crit); err != nil {
		return LookupSectionsOut{}, invalidArgs("criteria", "criteria must be an object with section_types and/or contains_text: %v", err)
	}
	if len(crit.SectionTypes) == 0 && crit.ContainsText == "" {
		return LookupSectionsOut{}, invalidArgs("criteria", "criteria needs section_types or contains_text")
	}
	for _, t := range crit.SectionTypes {
		if t != "h1" && t != "h2" && t != "h3" && t != "any_header" {
			return LookupSectionsOut{}, invalidArgs("criteria", "section_types holds h1, h2, h3 or any_header, got %q", t)
		}
	}
	c, err := w.canvas(in.CanvasID)
	if err != nil {
		return LookupSectionsOut{}, err
	}
	out := LookupSectionsOut{OK: true, Sections: []SectionPointer{}}
	for _, s := range c.Sections {
		if len(crit.SectionTypes) > 0 && !sectionTypeIn(s.Type, crit.SectionTypes) {
			continue
		}
		if crit.ContainsText != "" && !strings.Contains(strings.ToLower(s.Markdown), strings.ToLower(crit.ContainsText)) {
			continue
		}
		out.Sections = append(out.Sections, SectionPointer{ID: s.ID})
	}
	return out, nil
}

func sectionTypeIn(t string, types []string) bool {
	for _, want := range types {
		if want == t || (want == "any_header" && strings.HasPrefix(t, "h")) {
			return true
		}
	}
	return false
}

// canvas finds a canvas the token's user may see: one on no channel, or
// on a channel visible to the user. Any other is canvas_not_found, as a
// canvas that does not exist.
func (w *World) canvas(id string) (*Canvas, error) {
	id = strings.TrimSpace(id)
	for _, c := range w.Canvases {
		if c.ID != id {
			continue
		}
		if c.ChannelID != "" {
			if ch := w.channelByID(c.ChannelID); ch == nil || !ch.visibleTo(w.AuthUser) {
				break
			}
		}
		return c, nil
	}
	return nil, twins.Errorf(twins.NotFound, "canvas_not_found", "Canvas %q was not found or is not visible to this token.", id).WithField("canvas_id")
}

func (w *World) newCanvas(ctx context.Context, title, md string) *Canvas {
	t := now(ctx)
	c := &Canvas{ID: w.newID("F"), Title: strings.TrimSpace(title), User: w.AuthUser, Created: t, Updated: t, Sections: w.canvasSections(ctx, md)}
	if c.Title == "" {
		c.Title = "Untitled"
	}
	w.Canvases = append(w.Canvases, c)
	return c
}

// canvasSections splits markdown into sections: each header line is one,
// and so is each run of other lines between blank lines and headers.
func (w *World) canvasSections(_ context.Context, md string) []*CanvasSection {
	out := []*CanvasSection{}
	var run []string
	flush := func() {
		if len(run) > 0 {
			out = append(out, &CanvasSection{ID: w.sectionID(), Type: "paragraph", Markdown: strings.Join(run, "\n")})
			run = nil
		}
	}
	for _, line := range strings.Split(strings.ReplaceAll(md, "\r\n", "\n"), "\n") {
		if t := headerType(line); t != "" {
			flush()
			out = append(out, &CanvasSection{ID: w.sectionID(), Type: t, Markdown: strings.TrimRight(line, " ")})
			continue
		}
		if strings.TrimSpace(line) == "" {
			flush()
			continue
		}
		run = append(run, line)
	}
	flush()
	return out
}

// sectionID is a fresh section id in Slack's "temp:C:…" shape.
func (w *World) sectionID() string { return "temp:C:" + w.newID("S") }

func headerType(line string) string {
	for n := 3; n >= 1; n-- {
		if strings.HasPrefix(line, strings.Repeat("#", n)+" ") {
			return fmt.Sprintf("h%d", n)
		}
	}
	return ""
}

// markdown is the canvas's whole document, sections apart by blank lines.
func (c *Canvas) markdown() string {
	parts := make([]string, len(c.Sections))
	for i, s := range c.Sections {
		parts[i] = s.Markdown
	}
	return strings.Join(parts, "\n\n")
}

// canvasMarkdown takes the markdown from content (MCP) or document_content
// (Web API: an object, or the object encoded as a string).
func canvasMarkdown(content string, doc any) (string, error) {
	md := content
	if doc != nil {
		if content != "" {
			return "", invalidArgs("document_content", "pass content (MCP) or document_content (Web API), not both")
		}
		raw, ok := doc.(json.RawMessage)
		if !ok {
			raw, _ = json.Marshal(doc)
		}
		var dc struct {
			Type     string `json:"type"`
			Markdown string `json:"markdown"`
		}
		if err := decodeMaybeString(raw, &dc); err != nil || dc.Type != "markdown" {
			return "", twins.Errorf(twins.Invalid, "canvas_creation_failed", "document_content must be {\"type\":\"markdown\",\"markdown\":\"…\"}").WithField("document_content")
		}
		md = dc.Markdown
	}
	if len(md) > maxCanvasMarkdown {
		return "", twins.Errorf(twins.Invalid, "canvas_creation_failed", "canvas content is longer than %d bytes", maxCanvasMarkdown).WithField("content")
	}
	return md, nil
}

// decodeMaybeString decodes raw into v, raw being the JSON value or a JSON
// string that holds it (how form bodies carry objects).
func decodeMaybeString(raw json.RawMessage, v any) error {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		raw = json.RawMessage(s)
	}
	return json.Unmarshal(raw, v)
}

func invalidArgs(field, format string, args ...any) *twins.Error {
	return twins.Errorf(twins.Invalid, "invalid_arguments", format, args...).WithField(field)
}
