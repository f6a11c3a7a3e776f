package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pomehq/pome/cmd/pome-bench/internal/load"
	"github.com/pomehq/pome/session"
)

// TestSameBytesHandlerAnswersPomesBytes: for every call, the bare handler
// answers what Pome answered (status, every header but Date, body), so the
// ceiling is measured on the same bytes.
func TestSameBytesHandlerAnswersPomesBytes(t *testing.T) {
	url, key := startPome(t, session.NewMemoryStore(nil, 0), 0)
	client := load.NewClient(2)
	pome, err := load.NewPome(url, key, client)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	sb, err := pome.Create(ctx, benchTwins)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range load.Calls {
		ts, err := c.Targets(ctx, client, []*load.Sandbox{sb})
		if err != nil {
			t.Fatal(err)
		}
		want, err := load.Capture(ctx, client, c, ts[0])
		if err != nil {
			t.Fatal(err)
		}
		if c.Name == load.CallGetIssue && (len(want.Body) < 2000 || want.Header.Get("Etag") == "") {
			t.Errorf("%s: captured %d bytes, ETag %q: not the issue", c.Name, len(want.Body), want.Header.Get("Etag"))
		}
		srv, err := load.Serve("127.0.0.1:0", load.NewSameBytesHandler(want))
		if err != nil {
			t.Fatal(err)
		}
		got, err := load.Capture(ctx, client, c, load.Rebase(ts, srv.URL)[0])
		srv.Close()
		if err != nil {
			t.Fatal(err)
		}
		if err := load.SameBytes(want, got); err != nil {
			t.Errorf("%s: %v", c.Name, err)
		}
	}
	// SameBytes itself must see a difference.
	a := load.Answer{Status: 200, Header: http.Header{"X-A": {"1"}}, Body: []byte("x")}
	for _, b := range []load.Answer{
		{Status: 201, Header: a.Header, Body: a.Body},
		{Status: 200, Header: http.Header{"X-A": {"2"}}, Body: a.Body},
		{Status: 200, Header: http.Header{"X-A": {"1"}, "X-B": {"1"}}, Body: a.Body},
		{Status: 200, Header: a.Header, Body: []byte("y")},
	} {
		if load.SameBytes(a, b) == nil {
			t.Errorf("%+v taken for %+v", b, a)
		}
	}
}

// TestCeilingMode runs the ceiling mode briefly with each driver there is:
// every call is measured on Pome and on its same-bytes handler, without
// errors, and the report prints a ratio per call.
func TestCeilingMode(t *testing.T) {
	drivers := []string{"go"}
	if load.WrkPath() != "" {
		drivers = append(drivers, "wrk")
	}
	for _, d := range drivers {
		t.Run(d, func(t *testing.T) {
			url, key := startPome(t, session.NewMemoryStore(nil, 0), 0)
			var out, errOut bytes.Buffer
			code := run(context.Background(), []string{"ceiling",
				"--server", url, "--api-key", key, "--driver", d, "-t", "1", "-c", "2", "-d", "1s", "--warmup", "0",
				"--rounds", "1", "--sandboxes", "3", "--json", "-q",
			}, &out, &errOut)
			if code != 0 {
				t.Fatalf("exit %d\n%s\n%s", code, errOut.String(), out.String())
			}
			var rep load.CeilingReport
			if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
				t.Fatalf("%v\n%s", err, out.String())
			}
			if rep.Driver != d || rep.Sandboxes != 3 || len(rep.Results) != len(load.Calls) {
				t.Fatalf("%s", out.String())
			}
			for _, c := range rep.Results {
				if len(c.Rounds) != 1 {
					t.Fatalf("%s: %d rounds", c.Call, len(c.Rounds))
				}
				rd := c.Rounds[0]
				if rd.Pome.Requests == 0 || rd.Bare.Requests == 0 || rd.Pome.Errors+rd.Bare.Errors != 0 || c.Ratio <= 0 || c.AnswerBytes == 0 {
					t.Errorf("%s: %+v", c.Call, c)
				}
				// The bare handler runs in this process, so with wrk its
				// CPU per request is known.
				if d == "wrk" && (rd.Bare.ServerCPUUS <= 0 || rd.Pome.ClientCPUUS <= 0) {
					t.Errorf("%s: CPU per request missing: %+v", c.Call, rd)
				}
			}
			var table bytes.Buffer
			if err := load.WriteCeilingTable(&table, &rep); err != nil {
				t.Fatal(err)
			}
			for _, c := range load.Calls {
				if !strings.Contains(table.String(), c.Name) {
					t.Errorf("table lacks %s:\n%s", c.Name, table.String())
				}
			}
		})
	}
}

// TestRateMode offers a low rate briefly: every offered request is
// answered, and the report holds the latency quantiles and the server's
// memory.
func TestRateMode(t *testing.T) {
	// Each client with one of the pacings (the raw client with the
	// default, precise where the system has a timerfd; the loop client
	// with its own, where it runs).
	for client, pacing := range map[string]string{load.ClientLoop: "", load.ClientRaw: "", load.ClientGo: load.PacingRuntime} {
		t.Run(client, func(t *testing.T) { testRateMode(t, client, pacing) })
	}
}

func testRateMode(t *testing.T, client, pacing string) {
	url, key := startPome(t, session.NewMemoryStore(nil, 0), 0)
	rep, table := rateReport(t,
		"--server", url, "--api-key", key, "--rate", "400", "--duration", "500ms", "--warmup", "0",
		"--sandboxes", "3", "--senders", "8", "--store", "memory", "--calls", "github_get_issue,stripe_create_customer",
		"--server-pid", strconv.Itoa(os.Getpid()), "-q", "--client", client, "--pacing", cmp.Or(pacing, load.PacingPrecise))
	// The table on stdout, the same report as JSON in the file.
	if !strings.Contains(table, "p99 target") {
		t.Errorf("no table:\n%s", table)
	}
	wantClient, want := client, cmp.Or(pacing, load.PacingPrecise)
	switch {
	case runtime.GOOS != "linux":
		want = load.PacingRuntime // no timerfd: the runtime's timers, said so
		if client == load.ClientLoop {
			wantClient = load.ClientRaw + " (no loop client here" // said so too
		}
	case client == load.ClientLoop:
		want = load.PacingLoop
	}
	if len(rep.Results) != 2 || rep.P99TargetUS != 5000 || !strings.HasPrefix(rep.Client, wantClient) {
		t.Fatalf("client %q, want %s:\n%s", rep.Client, wantClient, table)
	}
	if !strings.HasPrefix(rep.Pacing, want) || !strings.Contains(table, want) {
		t.Errorf("pacing %q in the report, want %s:\n%s", rep.Pacing, want, table)
	}
	for _, r := range rep.Results {
		if r.Offered != 200 || r.Completed != 200 || r.Errors != 0 || r.Unanswered != 0 || r.P50US <= 0 || r.P999US < r.P99US || r.P99US < r.P50US || r.AchievedRate <= 0 || r.Mem == nil {
			t.Errorf("%+v", r)
		}
		// Where the slow requests fell, against the store's p99 target.
		if r.Stalls == nil || r.Stalls.OverUS != 5000 || r.Stalls.InStalls > r.Stalls.Slow {
			t.Errorf("%s: stalls %+v", r.Call, r.Stalls)
		} else if !strings.Contains(table, r.Call+": ") {
			t.Errorf("no stalls line for %s:\n%s", r.Call, table)
		}
	}
	var out, errOut bytes.Buffer
	for _, bad := range [][]string{{"--rate", "0"}, {"--store", "disk"}, {"--calls", "nope"}, {"--pacing", "sometimes"}, {"--client", "curl"}, {"--client", "loop", "--pacing", "runtime"}} {
		args := append([]string{"rate", "--server", url, "--api-key", key, "-q"}, bad...)
		if code := run(context.Background(), args, &out, &errOut); code == 0 {
			t.Errorf("%v: exit 0", bad)
		}
	}
}

// rateReport runs the rate mode with args, and returns the report it wrote
// with --json-out and the table it printed.
func rateReport(t *testing.T, args ...string) (load.RateReport, string) {
	t.Helper()
	jsonFile := filepath.Join(t.TempDir(), "rate.json")
	var out, errOut bytes.Buffer
	if code := run(context.Background(), append(append([]string{"rate"}, args...), "--json-out", jsonFile), &out, &errOut); code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, errOut.String(), out.String())
	}
	raw, err := os.ReadFile(jsonFile)
	if err != nil {
		t.Fatal(err)
	}
	var rep load.RateReport
	if err := json.Unmarshal(raw, &rep); err != nil {
		t.Fatalf("%v\n%s", err, raw)
	}
	return rep, out.String()
}

// A test binary started with POME_BENCH_AS_MAIN=1 is pome-bench itself:
// what rate --ceiling starts as its same-bytes server.
func TestMain(m *testing.M) {
	if os.Getenv("POME_BENCH_AS_MAIN") == "1" {
		main()
	}
	os.Exit(m.Run())
}

// TestRateCeiling: with --ceiling each call's run is followed by the same
// load against the bytes Pome answered, served by pome-bench same-bytes
// in a process of its own; both runs are in the report, the bare one
// without a verdict.
func TestRateCeiling(t *testing.T) {
	t.Setenv("POME_BENCH_AS_MAIN", "1")
	url, key := startPome(t, session.NewMemoryStore(nil, 0), 0)
	rep, table := rateReport(t, "--ceiling",
		"--server", url, "--api-key", key, "--rate", "300", "--duration", "400ms", "--warmup", "0",
		"--sandboxes", "3", "--senders", "8", "--store", "memory", "--calls", "github_get_issue,github_post_comment",
		"--server-pid", strconv.Itoa(os.Getpid()), "-q")
	want := []struct{ call, side string }{{"github_get_issue", ""}, {"github_get_issue", load.SideBare}, {"github_post_comment", ""}, {"github_post_comment", load.SideBare}}
	if len(rep.Results) != len(want) {
		t.Fatalf("%d results, want %d:\n%s", len(rep.Results), len(want), table)
	}
	for i, r := range rep.Results {
		if r.Call != want[i].call || r.Side != want[i].side {
			t.Errorf("result %d: %s %q, want %s %q", i, r.Call, r.Side, want[i].call, want[i].side)
		}
		if r.Offered != 120 || r.Completed != 120 || r.Errors != 0 || r.Unanswered != 0 || r.P50US <= 0 {
			t.Errorf("%s %q: %+v", r.Call, r.Side, r)
		}
		// The bare process's memory is not Pome's: not read.
		if (r.Side == load.SideBare) != (r.Mem == nil) {
			t.Errorf("%s %q: memory %+v", r.Call, r.Side, r.Mem)
		}
	}
	for _, s := range []string{"github_get_issue (bare)", "github_post_comment (bare)", "(ceiling)"} {
		if !strings.Contains(table, s) {
			t.Errorf("no %q in the table:\n%s", s, table)
		}
	}
}

// TestRateCeilingBurn: --ceiling-burn sets --ceiling and adds a run of the
// same-bytes handler per value after the plain one, each burning its time
// a request (match: Pome's CPU per request less the plain handler's, or a
// note when Pome's is not above it); match needs --server-pid, and a value
// that is neither a duration nor match is refused before anything runs.
func TestRateCeilingBurn(t *testing.T) {
	t.Setenv("POME_BENCH_AS_MAIN", "1")
	url, key := startPome(t, session.NewMemoryStore(nil, 0), 0)
	common := []string{"--server", url, "--api-key", key, "--rate", "200", "--duration", "300ms", "--warmup", "0",
		"--sandboxes", "2", "--senders", "4", "--store", "memory", "--calls", "github_post_comment", "-q"}
	rep, table := rateReport(t, append([]string{"--ceiling-burn", "match,300us", "--ceiling-garbage", "2000", "--ceiling-keep", "flat", "--server-pid", strconv.Itoa(os.Getpid())}, common...)...)
	var burns []float64
	for i, r := range rep.Results {
		if (i == 0) != (r.Side == "") || r.Completed != 60 || r.Errors != 0 {
			t.Errorf("result %d: %+v", i, r)
		}
		if i > 0 {
			burns = append(burns, r.BurnUS)
			// The plain run does nothing but answer; the burning runs
			// drop and keep what they were given too.
			if plain := r.BurnUS == 0; plain != (r.GarbageBytes == 0) || plain != (r.Keep == "") || (!plain && (r.GarbageBytes != 2000 || r.Keep != load.KeepFlat)) {
				t.Errorf("result %d: %+v", i, r)
			}
		}
	}
	matched := len(burns) == 3 && burns[0] == 0 && burns[1] > 0 && burns[2] == 300
	noted := len(burns) == 2 && burns[0] == 0 && burns[1] == 300 && len(rep.Notes) == 1 && strings.Contains(rep.Notes[0], "no run to match it")
	if !matched && !noted {
		t.Fatalf("burns %v, notes %q:\n%s", burns, rep.Notes, table)
	}
	if !strings.Contains(table, "github_post_comment (bare+300.0µs, 2000 B dropped, kept flat)") || !strings.Contains(table, "github_post_comment (bare)") {
		t.Errorf("no burning row in the table:\n%s", table)
	}
	var out, errOut bytes.Buffer
	for _, bad := range [][]string{{"--ceiling-burn", "match"}, {"--ceiling-burn", "lots"}, {"--ceiling-burn", "-3us", "--server-pid", "1"},
		{"--ceiling-keep", "flat"}, {"--ceiling-burn", "0", "--ceiling-keep", "all"}, {"--ceiling-burn", "0", "--ceiling-garbage", "-1"}} {
		out.Reset()
		if code := run(context.Background(), append(append([]string{"rate"}, common...), bad...), &out, &errOut); code == 0 {
			t.Errorf("%v: exit 0", bad)
		} else if strings.Contains(out.String(), "github_post_comment") {
			t.Errorf("%v: ran:\n%s", bad, out.String())
		}
	}
}

// TestScaleMode runs every dimension at two small sizes: each series has a
// point per size, every write answered, and a spread.
func TestScaleMode(t *testing.T) {
	url, key := startPome(t, session.NewMemoryStore(nil, 0), 0)
	var out, errOut bytes.Buffer
	code := run(context.Background(), []string{"scale",
		"--server", url, "--api-key", key, "--world-sizes", "3,30", "--tape-sizes", "5,40", "--sandbox-counts", "2,5",
		"--writes", "25", "--rounds", "2", "--server-pid", strconv.Itoa(os.Getpid()), "--json", "-q",
	}, &out, &errOut)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, errOut.String(), out.String())
	}
	var rep load.ScaleReport
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	var got []string
	for _, se := range rep.Series {
		got = append(got, se.Dim+" "+se.Call)
		if len(se.Points) != 2 || se.Spread < 1 {
			t.Errorf("%s %s: %+v", se.Dim, se.Call, se)
		}
		for _, p := range se.Points {
			if p.Writes != 25 || p.Errors != 0 || p.P50US <= 0 || p.PerSec <= 0 || len(p.Costs) != 2 || p.FirstCallUS <= 0 {
				t.Errorf("%s %s size %d: %+v", se.Dim, se.Call, p.Size, p)
			}
		}
	}
	want := []string{"world github_post_comment", "world slack_post_message", "world stripe_create_customer", "world gmail_send",
		"tape github_post_comment", "sandboxes github_post_comment"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("series %v, want %v", got, want)
	}
	// The sandboxes the run made are gone.
	req, _ := http.NewRequest(http.MethodGet, url+"/v1/usage", nil)
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var usage struct {
		Open    int `json:"sandboxes_open"`
		Created int `json:"sandboxes_created"`
	}
	err = json.NewDecoder(resp.Body).Decode(&usage)
	resp.Body.Close()
	if err != nil || usage.Open != 0 || usage.Created < 10 {
		t.Errorf("usage after the run: %+v, %v", usage, err)
	}
	var table bytes.Buffer
	load.WriteScaleTable(&table, &rep)
	if !strings.Contains(table.String(), "spread world") {
		t.Errorf("no spread line:\n%s", table.String())
	}
	if code := run(context.Background(), []string{"scale", "--server", url, "--api-key", key, "--world-sizes", "0"}, &out, &errOut); code != 2 {
		t.Errorf("size 0: exit %d", code)
	}
	if code := run(context.Background(), []string{"scale", "--server", url, "--api-key", key, "--rounds", "0"}, &out, &errOut); code != 2 {
		t.Errorf("--rounds 0: exit %d", code)
	}
}

// TestCeilingWithPeers: a peer's side is measured in every round with its
// own call, and the report gives Pome ÷ peer against the peer's target.
func TestCeilingWithPeers(t *testing.T) {
	url, key := startPome(t, session.NewMemoryStore(nil, 0), 0)
	var mu sync.Mutex
	seen := 0
	peer, err := load.Serve("127.0.0.1:0", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen++
		mu.Unlock()
		if r.URL.Path != "/peer/issue" || r.Header.Get("Authorization") != "Bearer peer" {
			w.WriteHeader(http.StatusNotFound)
			return
		}
		w.Write([]byte(`{"number":1}`))
	}))
	if err != nil {
		t.Fatal(err)
	}
	defer peer.Close()
	tgt, _ := load.NewTarget(peer.URL+"/peer/issue", "Bearer peer")
	calls, _ := load.SelectCalls([]string{load.CallGetIssue, load.CallHistory})
	var log bytes.Buffer
	rep, err := load.Ceiling(context.Background(), load.CeilingConfig{
		Log:    &log,
		Server: url, APIKey: key, Sandboxes: 2, Calls: calls, Rounds: 2, Driver: "go",
		Wrk: load.WrkOptions{Connections: 2, Duration: 300 * time.Millisecond}, MaxRequests: 1_000_000,
		Peers: func(c load.Call) []load.PeerSide {
			if c.Name != load.CallGetIssue {
				return nil
			}
			pc := c
			pc.Path = "/peer/issue"
			return []load.PeerSide{{Name: "fake", Call: pc, Targets: []load.Target{tgt}, Target: 3, AnswerBytes: 12}}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Results) != 2 || len(rep.Results[0].Peers) != 1 || len(rep.Results[1].Peers) != 0 {
		t.Fatalf("%+v", rep.Results)
	}
	// Every round of a call runs before the next call: a read is never
	// measured on a world grown by another call's rounds.
	var order []string
	for _, l := range strings.Split(log.String(), "\n") {
		if f := strings.Fields(l); len(f) > 3 && f[0] == "round" {
			order = append(order, f[1]+" "+f[2]+" "+f[3])
		}
	}
	want := "1 github_get_issue pome,1 github_get_issue bare,1 github_get_issue fake,2 github_get_issue bare,2 github_get_issue pome,2 github_get_issue fake," +
		"1 slack_history pome,1 slack_history bare,2 slack_history bare,2 slack_history pome"
	if strings.Join(order, ",") != want {
		t.Errorf("runs in the order\n%s\nwant\n%s", strings.Join(order, ","), want)
	}
	p := rep.Results[0].Peers[0]
	if len(p.Rounds) != 2 || p.PerSec <= 0 || p.Ratio <= 0 || p.Rounds[0].Errors != 0 || p.Rounds[0].Requests == 0 || p.AnswerBytes != 12 {
		t.Fatalf("%+v", p)
	}
	mu.Lock()
	if uint64(seen) < p.Rounds[0].Requests+p.Rounds[1].Requests {
		t.Errorf("the peer saw %d requests, the report counts more", seen)
	}
	mu.Unlock()
	var table bytes.Buffer
	load.WriteCeilingTable(&table, rep)
	// The peers' table: a figure under every head (11 columns, the
	// unknown CPU a dash).
	var row []string
	for _, l := range strings.Split(table.String(), "\n") {
		if f := strings.Fields(l); len(f) > 1 && f[1] == "fake" {
			row = f
		}
	}
	if len(row) != 11 || row[2] != "12" || row[8] != "met" && row[8] != "missed" {
		t.Errorf("%s", table.String())
	}
}
