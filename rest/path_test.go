package rest

import (
	"regexp"
	"testing"
)

// dataPathPattern is the rule splitDataPath implements by hand.
var dataPathPattern = regexp.MustCompile(`^/([a-z]+)/s/([^/]+)(/.*)?$`)

func checkSplitDataPath(t *testing.T, p string) {
	twin, sid, rest, ok := splitDataPath(p)
	m := dataPathPattern.FindStringSubmatch(p)
	if ok != (m != nil) {
		t.Fatalf("splitDataPath(%q) ok=%v, pattern match=%v", p, ok, m != nil)
	}
	if ok && (twin != m[1] || sid != m[2] || rest != m[3]) {
		t.Fatalf("splitDataPath(%q) = %q %q %q, pattern gives %q %q %q", p, twin, sid, rest, m[1], m[2], m[3])
	}
}

func TestSplitDataPath(t *testing.T) {
	for _, p := range []string{
		"", "/", "/github", "/github/s", "/github/s/", "/github/s/sb_1", "/github/s/sb_1/",
		"/github/s/sb_1/repos/a/b", "/github/s//repos", "/GitHub/s/x", "/git-hub/s/x", "//s/x",
		"github/s/x", "/github/x/sb", "/github/s/x/_pome/tape", "/a/s/b", "/github/s/x%2Fy/z",
		"/v1/customers", "/github/ss/x", "/github/s/ü/x",
	} {
		checkSplitDataPath(t, p)
	}
}

func FuzzSplitDataPath(f *testing.F) {
	f.Add("/github/s/sb_1/repos/a/b")
	f.Add("/slack/s/x/api/chat.postMessage")
	f.Add("//s/")
	f.Fuzz(func(t *testing.T, p string) { checkSplitDataPath(t, p) })
}
