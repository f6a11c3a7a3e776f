package slack_test

import (
	"mime/multipart"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/pomehq/pome/rest/resttest"
	twin "github.com/pomehq/pome/twins/slack"
)

// TestUploadV2AsNodeSends drives files.uploadV2 the way @slack/web-api does:
// files.getUploadURLExternal, then a multipart POST to upload_url whose one
// part, named "body", holds the bytes (filename "Untitled"), then
// files.completeUploadExternal. The bytes must arrive in the file.
func TestUploadV2AsNodeSends(t *testing.T) {
	env := resttest.Start(t, twin.New(), "")
	content := "region,total\nnorth,12\n"
	up := slackCall(t, env, "files.getUploadURLExternal", url.Values{"filename": {"totals.csv"}, "length": {strconv.Itoa(len(content))}})
	uploadURL, fileID := up["upload_url"].(string), up["file_id"].(string)
	if !strings.HasPrefix(uploadURL, env.APIURL) {
		t.Fatalf("upload_url %s is not the sandbox's", uploadURL)
	}
	var b strings.Builder
	mw := multipart.NewWriter(&b)
	fw, _ := mw.CreateFormFile("body", "Untitled")
	fw.Write([]byte(content))
	mw.Close()
	st, body := env.Do(t, http.MethodPost, strings.TrimPrefix(uploadURL, env.APIURL), mw.FormDataContentType(), []byte(b.String()))
	if st != http.StatusOK {
		t.Fatalf("upload: %d %s", st, body)
	}
	slackCall(t, env, "files.completeUploadExternal", url.Values{"files": {`[{"id":"` + fileID + `","title":"Totals"}]`}, "channel_id": {"general"}})
	info := slackCall(t, env, "files.info", url.Values{"file": {fileID}})
	f := info["file"].(map[string]any)
	if f["content"] != content || f["size"] != float64(len(content)) || f["name"] != "totals.csv" {
		t.Errorf("file = %v", f)
	}
}
