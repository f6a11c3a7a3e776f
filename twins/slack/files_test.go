package slack

import (
	"strings"
	"testing"
)

func TestFilesUploadAndList(t *testing.T) {
	seed := world(t, "")
	w := clone(t, seed)
	r := mustCall(t, w, "slack_upload_file", `{"content": "a,b\n1,2", "filename": "report.csv", "title": "Report", "channels": "general", "initial_comment": "latest numbers"}`)
	f := r.Out.(FileOut).File
	if !strings.HasPrefix(f.ID, "F") || f.Filetype != "csv" || f.Content != "a,b\n1,2" || f.Size != 7 || f.Channels[0] != ch(t, w, "general").ID {
		t.Errorf("file = %+v", f)
	}
	gen := ch(t, w, "general")
	last := gen.Messages[len(gen.Messages)-1]
	if last.Text != "latest numbers" || len(last.FileIDs) != 1 {
		t.Errorf("share message = %+v", last)
	}
	h := mustCall(t, w, "slack_read_channel", `{"channel_id": "general", "limit": 1}`).Out.(ReadChannelOut)
	if len(h.Messages[0].Files) != 1 || h.Messages[0].Files[0].ID != f.ID || len(h.Messages[0].FileIDs) != 0 {
		t.Errorf("history files = %+v", h.Messages[0])
	}
	info := mustCall(t, w, "slack_get_file", `{"file_id": "`+f.ID+`"}`).Out.(FileInfoOut)
	if info.File.Content != "a,b\n1,2" {
		t.Errorf("info = %+v", info)
	}
	l := mustCall(t, w, "slack_list_files", `{"channel_id": "general"}`).Out.(ListFilesOut)
	if len(l.Files) != 1 || l.Paging.Total != 1 {
		t.Errorf("list = %+v", l)
	}
	if none := mustCall(t, w, "slack_list_files", `{"channel_id": "random"}`).Out.(ListFilesOut); len(none.Files) != 0 {
		t.Errorf("random files = %+v", none)
	}
	wantErr(t, call(t, w, "slack_upload_file", `{"filename": "x.txt"}`), "no_file_data")
	wantErr(t, call(t, w, "slack_upload_file", `{"content": "x", "channels": "nope"}`), "channel_not_found")
	wantErr(t, call(t, w, "slack_get_file", `{"file_id": "F0NOPE"}`), "file_not_found")
	// A file newly holding a secret counts as exposed.
	mustCall(t, w, "slack_upload_file", `{"content": "AWS_KEY=AKIAIOSFODNN7EXAMPLE", "filename": "env.txt"}`)
	if r := eval(t, "slack.no-secret-newly-exposed-anywhere", seed, w, nil); r.Passed {
		t.Errorf("secret file not caught: %+v", r)
	}
}

func TestExternalUpload(t *testing.T) {
	w := world(t, "")
	u := mustCall(t, w, "slack_get_upload_url", `{"filename": "notes.md", "length": 5}`).Out.(GetUploadURLOut)
	if !strings.HasSuffix(u.UploadURL, "/upload/v1/"+u.FileID) {
		t.Errorf("upload url = %s", u.UploadURL)
	}
	// Not listed or visible until completed.
	wantErr(t, call(t, w, "slack_get_file", `{"file_id": "`+u.FileID+`"}`), "file_not_found")
	wantErr(t, call(t, w, "slack_complete_upload", `{"files": [{"id": "`+u.FileID+`"}], "channel_id": "general"}`), "file_upload_not_complete")
	mustCall(t, w, "slack_upload_file_content", `{"file_id": "`+u.FileID+`", "file": "hello"}`)
	wantErr(t, call(t, w, "slack_upload_file_content", `{"file_id": "`+u.FileID+`", "file": "again"}`), "file_not_found")
	c := mustCall(t, w, "slack_complete_upload", `{"files": "[{\"id\": \"`+u.FileID+`\", \"title\": \"Notes\"}]", "channel_id": "general", "initial_comment": "see notes"}`).Out.(CompleteUploadOut)
	if len(c.Files) != 1 || c.Files[0].Title != "Notes" {
		t.Errorf("complete = %+v", c)
	}
	f := mustCall(t, w, "slack_get_file", `{"file_id": "`+u.FileID+`"}`).Out.(FileInfoOut).File
	if f.Content != "hello" || f.Title != "Notes" || len(f.Channels) != 1 {
		t.Errorf("file = %+v", f)
	}
	wantErr(t, call(t, w, "slack_complete_upload", `{"files": [{"id": "F0NOPE"}]}`), "file_not_found")
	wantErr(t, call(t, w, "slack_complete_upload", `{"files": "nope"}`), "invalid_arguments")
	wantErr(t, call(t, w, "slack_get_upload_url", `{"filename": "x", "length": 0}`), "invalid_arguments")
}
