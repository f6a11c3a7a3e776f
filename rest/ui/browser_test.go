package ui_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/pomehq/pome/task"
)

// chromium finds a Chromium binary: POME_CHROMIUM, then the usual names.
func chromium() string {
	if p := os.Getenv("POME_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// screenshotDir is where the browser test leaves one screenshot per page:
// POME_UI_SCREENSHOTS, or a fixed directory under the system temp dir so
// that the images outlive the test.
func screenshotDir(t *testing.T) string {
	dir := os.Getenv("POME_UI_SCREENSHOTS")
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "pome-ui-screenshots")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestDashboardInBrowser drives the dashboard in headless Chromium: log in,
// create a sandbox (with an uploaded seed), watch calls made over HTTP
// appear on the live tapes, open a row, read the state diff, stop the
// sandbox, and read a run's verdict.
func TestDashboardInBrowser(t *testing.T) {
	exe := chromium()
	if exe == "" {
		t.Skip("no Chromium binary found (install Debian's chromium package or set POME_CHROMIUM)")
	}
	runs := t.TempDir()
	seed := `{"repos":[{"name":"api","issues":[{"number":1,"labels":[]}]}]}`
	final := `{"repos":[{"name":"api","issues":[{"number":1,"labels":["bug"]}]}]}`
	row := `{"seq":1,"at":"2026-12-02T15:00:01Z","session_id":"ses_AAAAAAAAAAAAAAAA","twin":"github","transport":"rest","method":"POST","path":"/github/s/ses_AAAAAAAAAAAAAAAA/repos/acme/api/issues/1/labels","tool":"add_issue_labels","status":200,"state_mutation":true,"request":{"query":{},"body":{"labels":["bug"]},"headers":{"authorization":"[REDACTED]"}},"response":{"body":[{"name":"bug"}]},"latency_us":10}`
	// The runs are written once the page has created its sandbox: a run is
	// shown to the team whose sandbox it ran in.
	writeRuns := func(sid string) {
		writeRun(t, runs, "github-bug-triage", "20261202T150001.000Z-aaaaaa", 1, task.StatePass, sid, seed, final, []string{row})
		writeRun(t, runs, "github-bug-triage", "20261202T150002.000Z-bbbbbb", 2, task.StateFail, sid, seed, seed, nil)
		sum := task.Summary{Agent: "sh agent.sh", ExitCode: 1, FinishedAt: time.Date(2026, 12, 2, 15, 1, 0, 0, time.UTC),
			Tasks: []task.TaskSummary{{Task: "Bug triage", Slug: "github-bug-triage", K: 2, Passed: 1, PassAt1: 0.5, PassPowK: 0,
				Trials: []task.TrialSummary{{RunID: "20261202T150001.000Z-aaaaaa", SessionID: sid, State: "pass"}, {RunID: "20261202T150002.000Z-bbbbbb", SessionID: sid, State: "fail"}}}}}
		if err := task.WriteSummary(runs, &sum); err != nil {
			t.Fatal(err)
		}
	}
	seedFile := filepath.Join(t.TempDir(), "seed.json")
	write(t, seedFile, `{"clock":"2026-01-05T09:00:00Z"}`)

	b := newBench(t, runs)
	shots := screenshotDir(t)

	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(exe),
		chromedp.Flag("headless", true),
		chromedp.Flag("no-sandbox", true),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("no-default-browser-check", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("hide-scrollbars", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 900),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelAlloc()
	ctx, cancelCtx := chromedp.NewContext(actx)
	defer cancelCtx()

	// Any script error or console error (a CSP refusal is one) fails the
	// test: the pages must run clean.
	var mu sync.Mutex
	var pageErrors []string
	if err := chromedp.Listen(ctx, func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch e := ev.(type) {
		case *runtime.EventExceptionThrown:
			msg := e.ExceptionDetails.Text
			if e.ExceptionDetails.Exception != nil {
				msg += " " + e.ExceptionDetails.Exception.Description
			}
			pageErrors = append(pageErrors, "exception: "+msg)
		case *runtime.EventConsoleAPICalled:
			if e.Type == "error" {
				var parts []string
				for _, a := range e.Args {
					parts = append(parts, string(a.Value)+a.Description)
				}
				pageErrors = append(pageErrors, "console.error: "+strings.Join(parts, " "))
			}
		case *cdplog.EventEntryAdded:
			if e.Entry.Level == cdplog.EntryLevelError {
				pageErrors = append(pageErrors, "log: "+e.Entry.Text+" "+e.Entry.URL)
			}
		}
	}); err != nil {
		t.Fatalf("start Chromium (%s): %v", exe, err)
	}

	// Every step has its own deadline, so a page that never shows what a
	// step waits for fails that step instead of hanging the test.
	failed := func(format string, args ...any) {
		t.Helper()
		mu.Lock()
		defer mu.Unlock()
		t.Fatalf(format+"\npage errors so far:\n%s", append(args, strings.Join(pageErrors, "\n"))...)
	}
	step := func(name string, actions ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		sctx, cancel := context.WithTimeout(ctx, 20*time.Second)
		defer cancel()
		if err := chromedp.Do(sctx, actions...); err != nil {
			failed("%s: %v", name, err)
		}
	}
	eval := func(expr string) string {
		t.Helper()
		sctx, cancel := context.WithTimeout(ctx, 20*time.Second)
		defer cancel()
		v, err := chromedp.Run(sctx, chromedp.Evaluate[any](expr))
		if err != nil {
			failed("evaluate %s: %v", expr, err)
		}
		return fmt.Sprint(v)
	}
	wait := func(expr string) chromedp.Action[chromedp.Void] {
		return chromedp.Poll[chromedp.Void](expr, chromedp.WithPollingTimeout(15*time.Second))
	}
	shot := func(name string) {
		t.Helper()
		sctx, cancel := context.WithTimeout(ctx, 20*time.Second)
		defer cancel()
		png, err := chromedp.Run(sctx, chromedp.FullScreenshot(100))
		if err != nil {
			t.Fatalf("screenshot %s: %v", name, err)
		}
		if err := os.WriteFile(filepath.Join(shots, name+".png"), png, 0o644); err != nil {
			t.Fatal(err)
		}
		// At 1280 px nothing may overflow sideways.
		if eval(`document.documentElement.scrollWidth > document.documentElement.clientWidth`) != "false" {
			t.Errorf("%s: the page is wider than the 1280 px window", name)
		}
	}
	text := func(sel string) string {
		t.Helper()
		sctx, cancel := context.WithTimeout(ctx, 20*time.Second)
		defer cancel()
		s, err := chromedp.Run(sctx, chromedp.Text(chromedp.CSS(sel)))
		if err != nil {
			failed("read %s: %v", sel, err)
		}
		return s
	}
	css := func(sel string) chromedp.CSS { return chromedp.CSS(sel) }

	// Log in.
	step("open", chromedp.Navigate(b.url+"/ui/"), chromedp.WaitVisible(css("#api-key")))
	shot("01-login")
	step("log in",
		chromedp.SendKeys(css("#api-key"), b.keyA),
		// A click, not a form.submit(): that would skip the submit event.
		chromedp.Click(css(`button[type=submit]`)),
		chromedp.WaitVisible(css("#state-filter")))
	if stored, href := eval(`sessionStorage.getItem("pome.apiKey")`), eval(`location.href`); stored != b.keyA || strings.Contains(href, b.keyA) {
		t.Fatalf("the key must live in session storage and never in the URL: %q %q", stored, href)
	}

	// Create a sandbox with two twins and an uploaded seed.
	step("new",
		chromedp.Click(css(`a[href="#/new"]`)),
		chromedp.WaitVisible(css(`input[name=twin][value=slack]`)),
		chromedp.Click(css(`input[name=twin][value=slack]`)),
		chromedp.SetUploadFiles(css("#seed-file"), []string{seedFile}),
		wait(`document.getElementById("seed").value.includes("clock")`))
	shot("02-new")
	step("create",
		chromedp.Click(css(`button[type=submit]`)),
		chromedp.WaitVisible(css("#created-sid")))
	sid := text("#created-sid")
	authToken := text("#created-auth-token")
	ghURL := text(`tr[data-twin=github] [data-field=api_url]`)
	slURL := text(`tr[data-twin=slack] [data-field=api_url]`)
	if !strings.HasPrefix(sid, "ses_") || !strings.HasPrefix(authToken, "pst_") {
		t.Fatalf("created: %q %q", sid, authToken)
	}
	shot("03-created")

	// The list shows it with a live countdown.
	listRow := `tr[data-sid="` + sid + `"]`
	step("list",
		chromedp.Navigate(b.url+"/ui/#/sandboxes"),
		chromedp.WaitVisible(css(listRow+" .countdown")))
	c1 := text(listRow + " .countdown")
	step("tick", chromedp.Sleep(2100*time.Millisecond))
	if c2 := text(listRow + " .countdown"); c1 == c2 || !strings.Contains(c2, "m ") {
		t.Errorf("the countdown does not run: %q then %q", c1, c2)
	}
	shot("04-sandboxes")

	// Open the sandbox page, then call the twins over HTTP and watch the
	// rows arrive on the live tapes.
	step("open sandbox",
		chromedp.Click(css(`a[href="#/sandbox/`+sid+`"]`)),
		chromedp.WaitVisible(css("#rows-github")),
		chromedp.WaitVisible(css("#rows-slack")),
		wait(`document.querySelectorAll(".tape .live.on").length === 2`))

	twinCall := func(method, url, body string, hdr map[string]string) {
		t.Helper()
		req, _ := http.NewRequest(method, url, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+authToken)
		req.Header.Set("Content-Type", "application/json")
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode >= 300 {
			t.Fatalf("%s %s: %d", method, url, resp.StatusCode)
		}
	}
	twinCall(http.MethodGet, ghURL+"/repos/acme/api/issues?state=open", "", nil)
	twinCall(http.MethodPost, ghURL+"/repos/acme/api/issues/1/comments", `{"body":"Looking into it"}`, nil)
	twinCall(http.MethodPost, ghURL+"/mcp",
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"issue_read","arguments":{"owner":"acme","repo":"api","issue_number":1,"method":"get"}}}`,
		map[string]string{"Accept": "application/json, text/event-stream"})
	twinCall(http.MethodPost, slURL+"/api/chat.postMessage", `{"channel":"general","text":"Triaging acme/api#1"}`, nil)

	step("rows arrive", wait(
		`document.querySelectorAll("#rows-github button.row").length === 3 && document.querySelectorAll("#rows-slack button.row").length === 1`))
	if s := text(`#rows-github button.row[data-seq="2"]`); !strings.Contains(s, "POST /repos/acme/api/issues/1/comments") ||
		!strings.Contains(s, "add_issue_comment") || !strings.Contains(s, "201") {
		t.Errorf("comment row reads %q", s)
	}
	if s := eval(`document.querySelector('#rows-github button.row[data-seq="2"] .mut').textContent`); !strings.Contains(s, "changed state") {
		t.Errorf("comment row has no mutation marker: %q", s)
	}
	if s := text(`#rows-github button.row[data-seq="3"]`); !strings.Contains(s, "MCP") || !strings.Contains(s, "issue_read") {
		t.Errorf("MCP row reads %q", s)
	}

	// Keyboard: arrows move between rows.
	step("arrow keys",
		chromedp.Focus(css(`#rows-github button.row[data-seq="1"]`)),
		chromedp.KeyEvent(kb.ArrowDown))
	if f := eval(`document.activeElement.dataset.seq`); f != "2" {
		t.Errorf("ArrowDown focused row %q, want 2", f)
	}
	shot("05-tapes")

	// Open the comment row with the keyboard: bodies and the state change.
	step("open row",
		chromedp.KeyEvent(kb.Enter),
		chromedp.WaitVisible(css("#row-dialog[open] #row-response-body")),
		chromedp.WaitVisible(css("#row-delta table.changes")))
	if s := text("#row-request-body"); !strings.Contains(s, "Looking into it") {
		t.Errorf("request body %q", s)
	}
	if s := text("#row-response-body"); !strings.Contains(s, `"body": "Looking into it"`) {
		t.Errorf("response body %q", s)
	}
	// The row's own change (the server tapes state deltas), not the whole
	// seed-to-now diff.
	if s := text("#row-delta"); !strings.Contains(s, "What this call changed") || !strings.Contains(s, "/repos/0/issues/0/comments/0") || !strings.Contains(strings.ToLower(s), "added") {
		t.Errorf("state change %q", s)
	}
	shot("06-row")
	step("close row",
		chromedp.KeyEvent(kb.Escape),
		chromedp.WaitNotPresent(css("#row-dialog[open]")))
	if f := eval(`document.activeElement.dataset.seq`); f != "2" {
		t.Errorf("closing the row returned focus to %q, want row 2", f)
	}

	// State tab: the seed-versus-now diff and the tree.
	step("state tab",
		chromedp.Click(css("#tab-state")),
		chromedp.WaitVisible(css("#diff table.changes")))
	if s := text("#diff"); !strings.Contains(s, "/repos/0/issues/0/comments/0") {
		t.Errorf("diff %q", s)
	}
	step("reveal in tree", chromedp.Click(css(`#diff tr[data-path="/repos/0/issues/0/comments/0"] button`)))
	if eval(`document.querySelector('#tree li[data-path="/repos/0/issues/0/comments/0"]').classList.contains("flash")`) != "true" {
		t.Error("the changed path is not revealed in the tree")
	}
	shot("07-state")

	// Stop the sandbox from the page.
	step("stop",
		chromedp.Click(css("#stop")),
		wait(`document.getElementById("sandbox-state").textContent === "stopped"`))
	var got struct {
		State string `json:"state"`
	}
	if st := b.getJSON(b.keyA, "/v1/sandboxes/"+sid, &got); st != http.StatusOK || got.State != "stopped" {
		t.Errorf("after Stop: %d %q", st, got.State)
	}
	shot("08-stopped")

	// The list filters by state.
	step("filter stopped",
		chromedp.Navigate(b.url+"/ui/#/sandboxes?state=stopped"),
		chromedp.WaitVisible(css(listRow)))
	step("filter ready",
		chromedp.SetValue(css("#state-filter"), "ready"),
		chromedp.Evaluate[chromedp.Void](`document.getElementById("state-filter").dispatchEvent(new Event("change"))`),
		wait(`location.hash === "#/sandboxes?state=ready" && document.querySelector("td.note") !== null`))
	if eval(`document.querySelector('`+listRow+`') === null`) != "true" {
		t.Error("a stopped sandbox is listed under ready")
	}

	// Runs: pass@1, pass^K, and a verdict with links to its evidence rows.
	writeRuns(sid)
	step("runs",
		chromedp.Click(css(`a[href="#/runs"]`)),
		chromedp.WaitVisible(css("#latest")))
	if s := text("#latest"); !strings.Contains(s, "50%") || !strings.Contains(s, "0%") {
		t.Errorf("latest %q", s)
	}
	shot("09-runs")
	step("run",
		chromedp.Click(css(`a[href="#/run/github-bug-triage/20261202T150001.000Z-aaaaaa"]`)),
		chromedp.WaitVisible(css("#criteria")))
	if s := text("#criteria"); !strings.Contains(s, "passed") || !strings.Contains(s, "abstained") {
		t.Errorf("criteria %q", s)
	}
	step("evidence path", chromedp.Click(css(`button[data-evidence-path="/repos/0/issues/0/labels"]`)))
	if eval(`document.querySelector('#run-diff-box-github tr[data-path="/repos/0/issues/0/labels/0"]').classList.contains("flash")`) != "true" {
		t.Error("the evidence path does not point at the diff row under it")
	}
	shot("10-run")
	step("evidence",
		chromedp.Click(css(`button[data-evidence-seq="1"]`)),
		chromedp.WaitVisible(css("#row-dialog[open] #row-request-body")))
	if s := text("#row-request-body"); !strings.Contains(s, "bug") {
		t.Errorf("evidence row %q", s)
	}
	shot("11-evidence")

	mu.Lock()
	defer mu.Unlock()
	if len(pageErrors) > 0 {
		t.Errorf("the pages logged errors:\n%s", strings.Join(pageErrors, "\n"))
	}
	t.Logf("screenshots in %s", shots)
}
