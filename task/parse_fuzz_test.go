package task

import (
	"bytes"
	"io/fs"
	"testing"

	"github.com/pomehq/pome/examples"
	"github.com/pomehq/pome/task/tasktest"
	"github.com/pomehq/pome/twins/all"
)

// FuzzParse feeds arbitrary Markdown to the task parser, starting from the
// bundled example tasks and the unit tests' task. It never panics; a
// refusal is a list of task Errors, each naming a line inside the file (0
// for "missing section"), never another kind of error.
func FuzzParse(f *testing.F) {
	f.Add([]byte(validTask), false)
	err := fs.WalkDir(examples.FS, "tasks", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		src, err := examples.FS.ReadFile(path)
		if err == nil {
			f.Add(src, true)
		}
		return err
	})
	if err != nil {
		f.Fatal(err)
	}
	f.Add([]byte("# T\n## Config\n```yaml\ntwins: [github\n```\n## Prompt\nx\n## Success Criteria\n- [code:slack] nothing\n"), true)
	f.Add([]byte("# T\n## Config\n```yaml\ntwins: &a [*a]\n```\n"), true)
	f.Add([]byte("# T\n## Seed State\n```json\n{\"github\":{\"repos\":\"x\"}}\n```\n"), true)
	notes := tasktest.Registry()
	real := all.Registry()
	f.Fuzz(func(t *testing.T, src []byte, realTwins bool) {
		opt := Options{Registry: notes}
		if realTwins {
			opt.Registry = real
		}
		_, err := Parse("fuzz.md", src, opt)
		if err == nil {
			return
		}
		es := AsErrors(err)
		if es == nil {
			t.Fatalf("Parse refused with %T %v, want task Errors", err, err)
		}
		lines := bytes.Count(src, []byte("\n")) + 1
		for _, e := range es {
			if e.Line < 0 || e.Line > lines {
				t.Fatalf("error on line %d of a %d-line file: %v", e.Line, lines, e)
			}
		}
	})
}
