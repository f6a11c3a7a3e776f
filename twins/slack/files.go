package slack

import (
	"context"
	"encoding/json"
	"fmt"
	"path"
	"strings"

	"github.com/pomehq/pome/twins"
)

// newFile builds a file record; content is kept verbatim.
func newFile(w *World, id, name, title, filetype, content, user string, created int64) *File {
	if id == "" {
		id = w.newID("F")
	}
	if title == "" {
		title = name
	}
	if filetype == "" {
		filetype = strings.TrimPrefix(path.Ext(name), ".")
		if filetype == "" {
			filetype = "text"
		}
	}
	return &File{
		ID: id, Created: created, Timestamp: created, Name: name, Title: title,
		Mimetype: mimeFor(filetype), Filetype: filetype, PrettyType: strings.ToUpper(filetype),
		User: user, Size: len(content), Mode: "hosted", IsPublic: false,
		URLPrivate: fmt.Sprintf("https://files.slack.com/files-pri/%s-%s/%s", w.Team.ID, id, name),
		Permalink:  fmt.Sprintf("%sfiles/%s/%s/%s", w.Team.URL(), user, id, name),
		Channels:   []string{}, Groups: []string{}, IMs: []string{}, Content: content,
	}
}

// shareFile records that f was shared in ch.
func shareFile(f *File, ch *Channel) {
	list := &f.Channels
	switch ch.Type {
	case TypePrivate, TypeMPIM:
		list = &f.Groups
	case TypeIM:
		list = &f.IMs
	}
	for _, id := range *list {
		if id == ch.ID {
			return
		}
	}
	*list = append(*list, ch.ID)
	if ch.Type == TypePublic {
		f.IsPublic = true
	}
}

func mimeFor(filetype string) string {
	switch filetype {
	case "json":
		return "application/json"
	case "pdf":
		return "application/pdf"
	case "png":
		return "image/png"
	case "jpg", "jpeg":
		return "image/jpeg"
	case "csv":
		return "text/csv"
	case "html":
		return "text/html"
	}
	return "text/plain"
}

func fileActions() []twins.Action {
	return []twins.Action{
		twins.New(twins.Spec{
			Name: "slack_upload_file", Title: "Upload a file",
			Description: "Uploads a file (content as text, or a multipart file) and optionally shares it to channels " +
				"with a comment (files.upload).",
			Effect: twins.Write, Bindings: method("files.upload", nil),
		}, uploadFile),
		twins.New(twins.Spec{
			Name: "slack_get_upload_url", Title: "Start an external upload",
			Description: "Reserves a file id and an upload URL for the bytes (files.getUploadURLExternal); finish with slack_complete_upload.",
			Effect:      twins.Write, Bindings: method("files.getUploadURLExternal", nil),
		}, getUploadURL),
		twins.New(twins.Spec{
			Name: "slack_upload_file_content", Title: "Send an upload's bytes",
			Description: "Receives the bytes of a file reserved with slack_get_upload_url (the upload_url it returned).",
			Effect:      twins.Write,
			// @slack/web-api's files.uploadV2 sends the bytes as a
			// multipart part named "body"; slack-go names it "file".
			Bindings: []twins.Binding{{Method: "POST", Path: "/upload/v1/{file_id}", Rename: map[string]string{"body": "file"}}},
		}, uploadFileContent),
		twins.New(twins.Spec{
			Name: "slack_complete_upload", Title: "Finish an external upload",
			Description: "Completes uploads started with slack_get_upload_url and shares them to a channel (files.completeUploadExternal).",
			Effect:      twins.Write, Bindings: method("files.completeUploadExternal", nil),
		}, completeUpload),
		twins.New(twins.Spec{
			Name: "slack_get_file", Title: "Get a file",
			Description: "Returns a file's details and content (files.info).",
			Effect:      twins.Read, Bindings: method("files.info", map[string]string{"file": "file_id"}),
		}, fileInfo),
		twins.New(twins.Spec{
			Name: "slack_list_files", Title: "List files",
			Description: "Lists files, newest first, optionally by channel or user (files.list).",
			Effect:      twins.Read, Bindings: method("files.list", map[string]string{"channel": "channel_id", "user": "user_id"}),
		}, listFiles),
	}
}

// maxFileBytes bounds what one upload may hold (the transport's body limit
// is larger; Slack's own limit is 1 GB, far beyond a sandbox's needs).
const maxFileBytes = 5 << 20

// UploadFileIn is files.upload's input.
type UploadFileIn struct {
	Content        string `json:"content,omitempty" jsonschema:"File content as text"`
	File           string `json:"file,omitempty" jsonschema:"File content (multipart upload)"`
	Filename       string `json:"filename,omitempty" jsonschema:"File name"`
	Filetype       string `json:"filetype,omitempty" jsonschema:"File type, e.g. text, csv, json"`
	Title          string `json:"title,omitempty" jsonschema:"Title"`
	Channels       string `json:"channels,omitempty" jsonschema:"Comma-separated channel ids or names to share it to"`
	InitialComment string `json:"initial_comment,omitempty" jsonschema:"Message text posted with the file"`
	ThreadTS       string `json:"thread_ts,omitempty" jsonschema:"Share it as a reply in this thread"`
}

// FileOut is the response of methods that return one file.
type FileOut struct {
	OK   bool `json:"ok"`
	File File `json:"file"`
}

// shareTargets resolves a comma-separated channel list for sharing.
func (w *World) shareTargets(list string) ([]*Channel, error) {
	var out []*Channel
	for _, ref := range strings.Split(list, ",") {
		ref = strings.TrimSpace(ref)
		if ref == "" {
			continue
		}
		ch, dm, err := w.postTarget(ref)
		if err != nil {
			return nil, err
		}
		if ch == nil {
			if dm == nil {
				return nil, errChannelNotFound(ref)
			}
			if ch = w.imWith(dm.ID); ch == nil {
				return nil, errChannelNotFound(ref)
			}
		}
		out = append(out, ch)
	}
	return out, nil
}

// share posts a file_share message for files into ch.
func (w *World) share(ctx context.Context, ch *Channel, files []*File, comment, threadTS string) error {
	var parent *Message
	if threadTS != "" {
		p, err := threadParent(ch, threadTS)
		if err != nil {
			return err
		}
		parent = p
	}
	m := w.newMessage(ctx, ch, content{text: comment})
	for _, f := range files {
		m.FileIDs = append(m.FileIDs, f.ID)
		shareFile(f, ch)
	}
	if parent != nil {
		m.ThreadTS, m.ParentUserID = parent.TS, parent.User
	}
	ch.insert(m)
	if parent != nil {
		ch.refreshThread(parent.TS)
	}
	return nil
}

func uploadFile(ctx context.Context, w *World, in UploadFileIn) (FileOut, error) {
	body := in.Content
	if body == "" {
		body = in.File
	}
	if body == "" {
		return FileOut{}, twins.Errorf(twins.Invalid, "no_file_data", "Pass content or a multipart file.").WithField("content")
	}
	if len(body) > maxFileBytes {
		return FileOut{}, twins.Errorf(twins.TooLarge, "file_too_large", "Files in the twin hold at most %d bytes.", maxFileBytes)
	}
	targets, err := w.shareTargets(in.Channels)
	if err != nil {
		return FileOut{}, err
	}
	for _, ch := range targets {
		if in.ThreadTS != "" {
			if _, err := threadParent(ch, in.ThreadTS); err != nil {
				return FileOut{}, err
			}
		}
	}
	name := in.Filename
	if name == "" {
		name = "-.txt"
	}
	f := newFile(w, "", name, in.Title, in.Filetype, body, w.AuthUser, now(ctx))
	w.Files = append(w.Files, f)
	for _, ch := range targets {
		if err := w.share(ctx, ch, []*File{f}, in.InitialComment, in.ThreadTS); err != nil {
			return FileOut{}, err
		}
	}
	return FileOut{OK: true, File: *f}, nil
}

// GetUploadURLIn is files.getUploadURLExternal's input.
type GetUploadURLIn struct {
	Filename    string `json:"filename" jsonschema:"File name"`
	Length      int    `json:"length" jsonschema:"Size in bytes"`
	AltTxt      string `json:"alt_txt,omitempty" jsonschema:"Description of an image"`
	SnippetType string `json:"snippet_type,omitempty" jsonschema:"Syntax type of a snippet"`
}

// GetUploadURLOut is files.getUploadURLExternal's response.
type GetUploadURLOut struct {
	OK        bool   `json:"ok"`
	UploadURL string `json:"upload_url"`
	FileID    string `json:"file_id"`
}

func getUploadURL(ctx context.Context, w *World, in GetUploadURLIn) (GetUploadURLOut, error) {
	if strings.TrimSpace(in.Filename) == "" {
		return GetUploadURLOut{}, twins.Errorf(twins.Invalid, "invalid_arguments", "filename is required").WithField("filename")
	}
	if in.Length <= 0 || in.Length > maxFileBytes {
		return GetUploadURLOut{}, twins.Errorf(twins.Invalid, "invalid_arguments", "length must be between 1 and %d", maxFileBytes).WithField("length")
	}
	f := newFile(w, "", in.Filename, "", in.SnippetType, "", w.AuthUser, now(ctx))
	f.UploadState = "pending"
	w.Files = append(w.Files, f)
	return GetUploadURLOut{OK: true, FileID: f.ID, UploadURL: twins.EnvFrom(ctx).APIURL + "/upload/v1/" + f.ID}, nil
}

// UploadContentIn is what an upload URL receives.
type UploadContentIn struct {
	FileID   string `json:"file_id" jsonschema:"The file id from slack_get_upload_url"`
	File     string `json:"file,omitempty" jsonschema:"The file's bytes"`
	Filename string `json:"filename,omitempty" jsonschema:"File name"`
}

// UploadContentOut answers an upload.
type UploadContentOut struct {
	OK     bool   `json:"ok"`
	FileID string `json:"file_id"`
	Size   int    `json:"size"`
}

func uploadFileContent(ctx context.Context, w *World, in UploadContentIn) (UploadContentOut, error) {
	f := w.file(in.FileID)
	if f == nil || f.UploadState != "pending" {
		return UploadContentOut{}, twins.Errorf(twins.NotFound, "file_not_found", "No pending upload %q; call files.getUploadURLExternal first.", in.FileID)
	}
	if len(in.File) > maxFileBytes {
		return UploadContentOut{}, twins.Errorf(twins.TooLarge, "file_too_large", "Files in the twin hold at most %d bytes.", maxFileBytes)
	}
	f.Content, f.Size, f.UploadState = in.File, len(in.File), "uploaded"
	return UploadContentOut{OK: true, FileID: f.ID, Size: f.Size}, nil
}

// CompleteUploadIn is files.completeUploadExternal's input.
type CompleteUploadIn struct {
	Files          any    `json:"files" jsonschema:"JSON array of {id, title} (or its string)"`
	ChannelID      string `json:"channel_id,omitempty" jsonschema:"Channel to share the files to"`
	Channels       string `json:"channels,omitempty" jsonschema:"Comma-separated channels to share the files to"`
	InitialComment string `json:"initial_comment,omitempty" jsonschema:"Message text posted with the files"`
	ThreadTS       string `json:"thread_ts,omitempty" jsonschema:"Share as a reply in this thread"`
	Blocks         any    `json:"blocks,omitempty" jsonschema:"Accepted; the twin posts initial_comment as text"`
}

// FileSummary is a file in files.completeUploadExternal's response.
type FileSummary struct {
	ID    string `json:"id"`
	Title string `json:"title"`
}

// CompleteUploadOut is files.completeUploadExternal's response.
type CompleteUploadOut struct {
	OK    bool          `json:"ok"`
	Files []FileSummary `json:"files"`
}

func completeUpload(ctx context.Context, w *World, in CompleteUploadIn) (CompleteUploadOut, error) {
	raw, err := jsonArray(in.Files)
	if err != nil || raw == nil {
		return CompleteUploadOut{}, twins.Errorf(twins.Invalid, "invalid_arguments", "files must be a JSON array of {id, title}").WithField("files")
	}
	var refs []FileSummary
	if err := json.Unmarshal(raw, &refs); err != nil {
		return CompleteUploadOut{}, twins.Errorf(twins.Invalid, "invalid_arguments", "files must be a JSON array of {id, title}: %v", err).WithField("files")
	}
	var files []*File
	for _, r := range refs {
		f := w.file(r.ID)
		if f == nil || f.UploadState == "" {
			return CompleteUploadOut{}, twins.Errorf(twins.NotFound, "file_not_found", "No upload in progress for %q.", r.ID)
		}
		if f.UploadState != "uploaded" {
			return CompleteUploadOut{}, twins.Errorf(twins.Invalid, "file_upload_not_complete", "The bytes of %s were never sent to its upload_url.", r.ID)
		}
		files = append(files, f)
	}
	list := in.Channels
	if in.ChannelID != "" {
		list = in.ChannelID + "," + list
	}
	targets, err := w.shareTargets(list)
	if err != nil {
		return CompleteUploadOut{}, err
	}
	for _, ch := range targets {
		if in.ThreadTS != "" {
			if _, err := threadParent(ch, in.ThreadTS); err != nil {
				return CompleteUploadOut{}, err
			}
		}
	}
	out := CompleteUploadOut{OK: true, Files: []FileSummary{}}
	for i, f := range files {
		f.UploadState = ""
		if refs[i].Title != "" {
			f.Title = refs[i].Title
		}
		out.Files = append(out.Files, FileSummary{ID: f.ID, Title: f.Title})
	}
	for _, ch := range targets {
		if err := w.share(ctx, ch, files, in.InitialComment, in.ThreadTS); err != nil {
			return CompleteUploadOut{}, err
		}
	}
	return out, nil
}

// FileInfoIn is files.info's input.
type FileInfoIn struct {
	FileID string `json:"file_id" jsonschema:"File id (F…)"`
}

// FileInfoOut is files.info's response.
type FileInfoOut struct {
	OK               bool             `json:"ok"`
	File             File             `json:"file"`
	Comments         []any            `json:"comments"`
	ResponseMetadata ResponseMetadata `json:"response_metadata"`
}

// visibleFile reports whether the token's user can see f: its own files and
// files shared where it can read.
func (w *World) visibleFile(f *File) bool {
	if f.UploadState != "" {
		return false
	}
	if f.User == w.AuthUser {
		return true
	}
	for _, list := range [][]string{f.Channels, f.Groups, f.IMs} {
		for _, id := range list {
			if ch := w.channelByID(id); ch != nil && ch.visibleTo(w.AuthUser) {
				return true
			}
		}
	}
	return false
}

func fileInfo(ctx context.Context, w *World, in FileInfoIn) (FileInfoOut, error) {
	f := w.file(in.FileID)
	if f == nil || !w.visibleFile(f) {
		return FileInfoOut{}, twins.Errorf(twins.NotFound, "file_not_found", "No file %q visible to the token's user.", in.FileID)
	}
	return FileInfoOut{OK: true, File: *f, Comments: []any{}}, nil
}

// ListFilesIn is files.list's input.
type ListFilesIn struct {
	ChannelID string `json:"channel_id,omitempty" jsonschema:"Only files shared in this channel"`
	UserID    string `json:"user_id,omitempty" jsonschema:"Only files uploaded by this user"`
	Types     string `json:"types,omitempty" jsonschema:"Comma-separated file types (all, snippets, …); accepted"`
	Count     int    `json:"count,omitempty" jsonschema:"Files per page (default 100)"`
	Page      int    `json:"page,omitempty" jsonschema:"Page number, from 1"`
	TSFrom    string `json:"ts_from,omitempty" jsonschema:"Only files created after this Unix time"`
	TSTo      string `json:"ts_to,omitempty" jsonschema:"Only files created before this Unix time"`
}

// ListFilesOut is files.list's response.
type ListFilesOut struct {
	OK     bool   `json:"ok"`
	Files  []File `json:"files"`
	Paging Paging `json:"paging"`
}

func listFiles(ctx context.Context, w *World, in ListFilesIn) (ListFilesOut, error) {
	only := ""
	if in.ChannelID != "" {
		ch, err := w.visible(in.ChannelID)
		if err != nil {
			return ListFilesOut{}, err
		}
		only = ch.ID
	}
	inRange, err := tsRange(in.TSFrom, in.TSTo, true)
	if err != nil {
		return ListFilesOut{}, err
	}
	var list []*File
	for i := len(w.Files) - 1; i >= 0; i-- {
		f := w.Files[i]
		if !w.visibleFile(f) || (in.UserID != "" && f.User != in.UserID) || !inRange(formatTS(f.Created*1e6)) {
			continue
		}
		if only != "" && !containsStr(f.Channels, only) && !containsStr(f.Groups, only) && !containsStr(f.IMs, only) {
			continue
		}
		list = append(list, f)
	}
	count := pageLimit(in.Count, 100, 1000)
	page := in.Page
	if page <= 0 {
		page = 1
	}
	pages := (len(list) + count - 1) / count
	start, end := (page-1)*count, page*count
	if start > len(list) {
		start = len(list)
	}
	if end > len(list) {
		end = len(list)
	}
	out := ListFilesOut{OK: true, Files: []File{}, Paging: Paging{Count: count, Total: len(list), Page: page, Pages: pages}}
	for _, f := range list[start:end] {
		out.Files = append(out.Files, *f)
	}
	return out, nil
}

func containsStr(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
