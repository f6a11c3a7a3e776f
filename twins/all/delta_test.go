package all

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/pomehq/pome/twins"
	"github.com/pomehq/pome/twins/twinstest"
)

// deltaCalls are writes of every kind of change a delta carries: fields
// set and cleared, list elements added at the end and in the middle and
// removed, map entries added and removed.
var deltaCalls = map[string][]string{
	"github": {
		`add_issue_comment {"owner":"acme","repo":"api","issue_number":1,"body":"first"}`,
		`issue_write {"method":"create","owner":"acme","repo":"api","title":"new issue","body":"b","labels":["bug"]}`,
		`issue_write {"method":"update","owner":"acme","repo":"api","issue_number":1,"state":"closed","title":"renamed"}`,
		`add_issue_labels {"owner":"acme","repo":"api","issue_number":1,"labels":["bug"]}`,
		`remove_issue_label {"owner":"acme","repo":"api","issue_number":1,"name":"bug"}`,
		`add_issue_comment {"owner":"acme","repo":"api","issue_number":1,"body":"second"}`,
		`lock_issue {"owner":"acme","repo":"api","issue_number":1}`,
		`create_branch {"owner":"acme","repo":"api","branch":"feature"}`,
		`create_or_update_file {"owner":"acme","repo":"api","path":"docs/new.md","content":"hello","message":"add","branch":"feature"}`,
		`create_pull_request {"owner":"acme","repo":"api","title":"pr","head":"feature","base":"main"}`,
		`create_milestone {"owner":"acme","repo":"api","title":"v1"}`,
	},
	"slack": {
		`slack_send_message {"channel_id":"general","message":"hello"}`,
		`slack_send_message {"channel_id":"general","message":"again"}`,
		`slack_add_reaction {"channel_id":"general","name":"thumbsup","timestamp":"1"}`,
		`slack_set_channel_topic {"channel_id":"general","topic":"new topic"}`,
		`slack_create_conversation {"name":"delta-room"}`,
		`slack_set_channel_purpose {"channel_id":"general","purpose":""}`,
	},
	"stripe": {
		`create_customer {"email":"a@example.com","name":"A","metadata":{"k":"v","j":"w"}}`,
		`create_customer {"email":"b@example.com"}`,
		`create_product {"name":"Widget"}`,
	},
	"linear": {
		`save_issue {"team":"ENG","title":"Delta issue","labels":["Bug"],"estimate":3}`,
		`save_issue {"id":"ENG-1","state":"In Progress","assignee":"me","estimate":2,"blocks":["ENG-2"]}`,
		`save_comment {"issueId":"ENG-1","body":"first"}`,
		`create_issue_label {"name":"Delta","teamId":"ENG"}`,
		`save_issue {"id":"ENG-1","labels":[],"estimate":null,"assignee":null}`,
		`archive_issue {"id":"ENG-2"}`,
	},
	"gmail": {
		`send_message {"to":"someone@example.com","subject":"hi","body":"hello"}`,
		`create_label {"name":"Delta"}`,
		`create_draft {"to":"x@example.com","subject":"d","body":"draft"}`,
	},
}

// TestWorldDelta: after each write, the delta of the world before it and
// the world after it, applied to the world before (and copied, as a store
// rebuilding it does), encodes exactly as the world after; and it is much
// smaller than the world.
func TestWorldDelta(t *testing.T) {
	for _, tw := range Registry().All() {
		t.Run(tw.Name, func(t *testing.T) {
			world := twinstest.World(t, tw, "")
			mutated := 0
			for _, c := range deltaCalls[tw.Name] {
				name, args, _ := bytes.Cut([]byte(c), []byte(" "))
				before := tw.CopyWorld(world)
				r := twinstest.Call(t, tw, world, string(name), string(args))
				if !r.Mutated {
					continue
				}
				mutated++
				checkDelta(t, tw, before, world)
			}
			if mutated == 0 {
				t.Fatalf("no call changed the world")
			}
		})
	}
}

func checkDelta(t *testing.T, tw *twins.Twin, before, after any) {
	t.Helper()
	delta, ok, err := twins.WorldDelta(before, after)
	if err != nil || !ok {
		t.Fatalf("WorldDelta: %v %v", ok, err)
	}
	want, _ := json.Marshal(after)
	got, err := twins.ApplyDelta(before, delta)
	if err != nil {
		t.Fatalf("ApplyDelta(%s): %v", delta, err)
	}
	gotDoc, _ := json.Marshal(tw.CopyWorld(got))
	if !bytes.Equal(gotDoc, want) {
		t.Fatalf("delta %s gives\n%s\nwant\n%s", delta, gotDoc, want)
	}
	if len(want) > 20_000 && len(delta)*4 > len(want) {
		t.Errorf("delta of %d bytes for a world of %d: %s", len(delta), len(want), delta)
	}
	// The world before is left as it was.
	if d, _, _ := twins.WorldDelta(before, tw.CopyWorld(before)); string(d) != "[]" {
		t.Fatalf("ApplyDelta changed the world it started from: %s", d)
	}
}

// TestWorldDeltaRemovals: list elements removed from the middle and the
// end, a map entry removed, fields cleared.
func TestWorldDeltaRemovals(t *testing.T) {
	gh, _ := Registry().Get("github")
	world := twinstest.World(t, gh, "")
	for i := range 5 {
		twinstest.MustCall(t, gh, world, "add_issue_comment", fmt.Sprintf(`{"owner":"acme","repo":"api","issue_number":1,"body":"c%d"}`, i))
	}
	doc, _ := json.Marshal(world)
	var w struct {
		Repos []struct {
			Issues []struct {
				Number   int `json:"number"`
				Comments []struct {
					ID int64 `json:"id"`
				} `json:"comments"`
			} `json:"issues"`
		} `json:"repos"`
	}
	json.Unmarshal(doc, &w)
	var ids []int64
	for _, r := range w.Repos {
		for _, is := range r.Issues {
			if is.Number == 1 {
				for _, c := range is.Comments {
					ids = append(ids, c.ID)
				}
			}
		}
	}
	if len(ids) < 5 {
		t.Fatalf("comments: %v", ids)
	}
	for _, id := range []int64{ids[2], ids[len(ids)-1], ids[0]} {
		before := gh.CopyWorld(world)
		twinstest.MustCall(t, gh, world, "delete_issue_comment", fmt.Sprintf(`{"owner":"acme","repo":"api","comment_id":%d}`, id))
		checkDelta(t, gh, before, world)
	}
}

// BenchmarkWorldDelta: what a write on Redis pays to find what it changed
// (WorldDelta of the world before and its changed copy) and, for
// comparison, to copy the world (CopyWorld) and to encode it whole: the
// GitHub world of one repository with 10, 1,000 and 10,000 issues (each
// with a comment), the write adding one comment to the last issue.
//
//	go test -run '^$' -bench WorldDelta -benchmem ./twins/all/
func BenchmarkWorldDelta(b *testing.B) {
	gh, _ := Registry().Get("github")
	for _, n := range []int{10, 1_000, 10_000} {
		var issues []string
		for i := range n {
			issues = append(issues, fmt.Sprintf(`{"number":%d,"title":"Issue %d: 500 error on POST /orders after deploy","body":"Since this morning's deploy, POST /orders answers 500.","user":"alice","comments":[{"user":"bob","body":"Looking into it."}]}`, i+1, i+1))
		}
		world := twinstest.World(b, gh, `{"clock":"2026-01-05T09:00:00Z","me":"pome-agent","users":[{"login":"alice"},{"login":"bob"},{"login":"pome-agent"}],"orgs":[{"login":"acme","members":["alice","bob","pome-agent"]}],"repos":[{"owner":"acme","name":"api","default_branch":"main","collaborators":["alice","bob","pome-agent"],"issues":[`+strings.Join(issues, ",")+`]}]}`)
		doc, _ := json.Marshal(world)
		after := gh.CopyWorld(world)
		// The last issue's number: the default world's issues, then n.
		var w struct {
			Repos []struct {
				Name   string `json:"name"`
				Issues []struct {
					Number int `json:"number"`
				} `json:"issues"`
			} `json:"repos"`
		}
		json.Unmarshal(doc, &w)
		last := 0
		for _, r := range w.Repos {
			if r.Name == "api" {
				last = r.Issues[len(r.Issues)-1].Number
			}
		}
		twinstest.MustCall(b, gh, after, "add_issue_comment", fmt.Sprintf(`{"owner":"acme","repo":"api","issue_number":%d,"body":"a comment"}`, last))
		b.Run(fmt.Sprintf("issues=%d/delta", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, _, err := twins.WorldDelta(world, after); err != nil {
					b.Fatal(err)
				}
			}
			d, _, _ := twins.WorldDelta(world, after)
			b.ReportMetric(float64(len(d)), "delta-bytes")
			b.ReportMetric(float64(len(doc)), "doc-bytes")
		})
		b.Run(fmt.Sprintf("issues=%d/copy", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				gh.CopyWorld(world)
			}
		})
		b.Run(fmt.Sprintf("issues=%d/encode", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				json.Marshal(after)
			}
		})
	}
}
