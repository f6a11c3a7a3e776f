package slack

import (
	"fmt"
	"path"
	"strings"
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
