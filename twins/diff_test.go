package twins

import (
	"fmt"
	"strings"
	"testing"
)

func TestDiff(t *testing.T) {
	for _, tc := range []struct {
		name, seed, now string
		want            []string // "op path before after"
	}{
		{"equal", `{"a":[1,2],"b":{"c":null}}`, `{"b":{"c":null},"a":[1,2]}`, nil},
		{"scalar changed", `{"a":1}`, `{"a":2}`, []string{"changed /a 1 2"}},
		{"key added and removed", `{"a":1}`, `{"b":"x"}`, []string{"removed /a 1 ", "added /b  \"x\""}},
		{"type changed", `{"a":{"b":1}}`, `{"a":[1]}`, []string{`changed /a {"b":1} [1]`}},
		{"list by index", `{"l":[1,2]}`, `{"l":[1,3,4]}`, []string{"changed /l/1 2 3", "added /l/2  4"}},
		{"list shrank", `{"l":["a","b"]}`, `{"l":["a"]}`, []string{`removed /l/1 "b" `}},
		{
			// A new element at the front is one addition, not a change of
			// every element: lists of objects match by identity.
			"list by id", `{"l":[{"id":1,"v":"a"},{"id":2,"v":"b"}]}`, `{"l":[{"id":3,"v":"c"},{"id":1,"v":"a"},{"id":2,"v":"B"}]}`,
			[]string{`added /l/0  {"id":3,"v":"c"}`, `changed /l/2/v "b" "B"`},
		},
		{
			"removal points into the seed", `{"l":[{"name":"x"},{"name":"y"}]}`, `{"l":[{"name":"y"}]}`,
			[]string{`removed /l/0 {"name":"x"} `},
		},
		{
			// Duplicate ids cannot identify; fall back to indexes.
			"duplicate ids", `{"l":[{"id":1,"v":1},{"id":1,"v":2}]}`, `{"l":[{"id":1,"v":1},{"id":1,"v":3}]}`,
			[]string{"changed /l/1/v 2 3"},
		},
		{"big numbers stay exact", `{"n":9007199254740993}`, `{"n":9007199254740992}`, []string{"changed /n 9007199254740993 9007199254740992"}},
		{"pointer escaping", `{"a/b":{"c~d":1}}`, `{"a/b":{"c~d":2}}`, []string{"changed /a~1b/c~0d 1 2"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, truncated, err := Diff([]byte(tc.seed), []byte(tc.now))
			if err != nil || truncated {
				t.Fatal(err, truncated)
			}
			var lines []string
			for _, c := range got {
				lines = append(lines, fmt.Sprintf("%s %s %s %s", c.Op, c.Path, c.Before, c.After))
			}
			if strings.Join(lines, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

func TestDiffBounds(t *testing.T) {
	var a, b strings.Builder
	a.WriteString("[")
	b.WriteString("[")
	for i := 0; i < maxChanges+10; i++ {
		if i > 0 {
			a.WriteString(",")
			b.WriteString(",")
		}
		fmt.Fprintf(&a, "%d", i)
		fmt.Fprintf(&b, "%d", i+1)
	}
	a.WriteString("]")
	b.WriteString("]")
	got, truncated, err := Diff([]byte(a.String()), []byte(b.String()))
	if err != nil || !truncated || len(got) != maxChanges {
		t.Fatalf("%d changes, truncated %v, %v", len(got), truncated, err)
	}
	if _, _, err := Diff([]byte(`{`), []byte(`{}`)); err == nil {
		t.Error("a broken seed is an error")
	}
}
