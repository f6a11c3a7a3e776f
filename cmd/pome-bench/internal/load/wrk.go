package load

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// WrkOptions are wrk's settings: -t, -c and -d, as a neutral load tool
// runs them (keep-alive, requests pipelined one at a time per connection).
type WrkOptions struct {
	Path        string // the wrk binary ("" finds it on PATH)
	Threads     int
	Connections int
	Duration    time.Duration
	// Timeout is wrk's per-request timeout (0: 5 s).
	Timeout time.Duration
}

// WrkPath returns wrk's path, or "" when it is not installed.
func WrkPath() string {
	p, err := exec.LookPath("wrk")
	if err != nil {
		return ""
	}
	return p
}

// luaString quotes s as a Lua string literal. Every byte outside printable
// ASCII, and the quote and backslash, is written as a decimal escape, which
// Lua reads back as that byte.
func luaString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			fmt.Fprintf(&b, "\\%03d", c)
			continue
		}
		b.WriteByte(c)
	}
	b.WriteByte('"')
	return b.String()
}

// wrkResultPrefix starts the line the script's done() prints, which Wrk
// parses.
const wrkResultPrefix = "pome-bench-wrk:"

// WrkScript is the Lua script that makes wrk send c to targets. Every
// request is formatted once, in init; thread t (of T) sends its k-th
// request to target (t + k·T) mod n, so the threads share the targets out
// and every target gets traffic, as the Go client spreads them. done()
// prints one line of figures for Wrk to read.
func WrkScript(c Call, targets []Target, threads int) string {
	var b strings.Builder
	b.WriteString("-- written by pome-bench for one run; safe to delete\n")
	b.WriteString("local paths = {\n")
	for _, t := range targets {
		fmt.Fprintf(&b, "  {%s, %s},\n", luaString(t.PathQuery), luaString(t.Auth))
	}
	b.WriteString("}\n")
	fmt.Fprintf(&b, "local method = %s\n", luaString(c.Method))
	body, ctype := "nil", "nil"
	if c.Body != nil {
		body = luaString(string(c.Body))
	}
	if c.ContentType != "" {
		ctype = luaString(c.ContentType)
	}
	fmt.Fprintf(&b, "local body = %s\nlocal ctype = %s\nlocal nthreads = %d\n", body, ctype, max(1, threads))
	b.WriteString(`local counter = 0
function setup(thread)
  thread:set("tid", counter)
  counter = counter + 1
end
local reqs, idx, step
function init(args)
  reqs = {}
  for i, p in ipairs(paths) do
    local h = {}
    h["Authorization"] = p[2]
    if ctype then h["Content-Type"] = ctype end
    reqs[i] = wrk.format(method, p[1], h, body)
  end
  idx = tid or 0
  step = nthreads
end
function request()
  local r = reqs[idx % #reqs + 1]
  idx = idx + step
  return r
end
function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format("` + wrkResultPrefix + ` requests=%d duration_us=%d bytes=%d connect=%d read=%d write=%d status=%d timeout=%d p50_us=%d p99_us=%d p999_us=%d max_us=%d\n",
    summary.requests, summary.duration, summary.bytes, e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(99), latency:percentile(99.9), latency.max))
end
`)
	return b.String()
}

// WrkResult is what wrk measured in one run.
type WrkResult struct {
	Requests   uint64
	Seconds    float64
	Bytes      uint64
	SocketErrs uint64 // connect, read, write and timeouts
	StatusErrs uint64 // answers outside 2xx and 3xx
	P50US      float64
	P99US      float64
	P999US     float64
	MaxUS      float64
	// CPUUS is wrk's own CPU time (user plus system) per request.
	CPUUS float64
}

// PerSec is the rate of answers that counted.
func (r WrkResult) PerSec() float64 {
	if r.Seconds <= 0 || r.StatusErrs > r.Requests {
		return 0
	}
	return float64(r.Requests-r.StatusErrs) / r.Seconds
}

// ParseWrkOutput reads the done() line from wrk's output.
func ParseWrkOutput(out []byte) (WrkResult, error) {
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), wrkResultPrefix)
		if !ok {
			continue
		}
		f := map[string]float64{}
		for _, kv := range strings.Fields(rest) {
			k, v, ok := strings.Cut(kv, "=")
			if !ok {
				return WrkResult{}, fmt.Errorf("wrk output: bad field %q", kv)
			}
			x, err := strconv.ParseFloat(v, 64)
			if err != nil {
				return WrkResult{}, fmt.Errorf("wrk output: %s: %v", k, err)
			}
			f[k] = x
		}
		for _, k := range []string{"requests", "duration_us", "status", "p50_us", "p99_us"} {
			if _, ok := f[k]; !ok {
				return WrkResult{}, fmt.Errorf("wrk output: no %s", k)
			}
		}
		return WrkResult{
			Requests: uint64(f["requests"]), Seconds: f["duration_us"] / 1e6, Bytes: uint64(f["bytes"]),
			SocketErrs: uint64(f["connect"] + f["read"] + f["write"] + f["timeout"]), StatusErrs: uint64(f["status"]),
			P50US: f["p50_us"], P99US: f["p99_us"], P999US: f["p999_us"], MaxUS: f["max_us"],
		}, nil
	}
	return WrkResult{}, fmt.Errorf("wrk printed no result line: %.500s", out)
}

// Wrk runs wrk with the script for c over targets, which must all be on
// one server. The script lives in a temporary file for the run.
func Wrk(ctx context.Context, opt WrkOptions, c Call, targets []Target) (WrkResult, error) {
	if len(targets) == 0 {
		return WrkResult{}, errors.New("wrk: no targets")
	}
	path := opt.Path
	if path == "" {
		if path = WrkPath(); path == "" {
			return WrkResult{}, errors.New("wrk is not installed")
		}
	}
	f, err := os.CreateTemp("", "pome-bench-*.lua")
	if err != nil {
		return WrkResult{}, err
	}
	defer os.Remove(f.Name())
	if _, err := f.WriteString(WrkScript(c, targets, opt.Threads)); err != nil {
		f.Close()
		return WrkResult{}, err
	}
	if err := f.Close(); err != nil {
		return WrkResult{}, err
	}
	base, err := serverOf(targets[0].URL)
	if err != nil {
		return WrkResult{}, err
	}
	timeout := opt.Timeout
	if timeout <= 0 {
		timeout = 5 * time.Second
	}
	secs := max(1, int(opt.Duration.Round(time.Second)/time.Second))
	args := []string{"-t", strconv.Itoa(opt.Threads), "-c", strconv.Itoa(opt.Connections),
		"-d", strconv.Itoa(secs) + "s", "--timeout", strconv.Itoa(max(1, int(timeout/time.Second))) + "s",
		"-s", f.Name(), base}
	// wrk stops by itself; the context only cuts a run that hangs.
	rctx, cancel := context.WithTimeout(ctx, time.Duration(secs)*time.Second+30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(rctx, path, args...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		return WrkResult{}, fmt.Errorf("wrk %s: %v: %.500s", strings.Join(args, " "), err, errOut.String())
	}
	res, err := ParseWrkOutput(out.Bytes())
	if err != nil {
		return res, err
	}
	if st := cmd.ProcessState; st != nil && res.Requests > 0 {
		res.CPUUS = float64((st.UserTime() + st.SystemTime()).Microseconds()) / float64(res.Requests)
	}
	return res, nil
}

// serverOf is the scheme and host of an absolute URL: what wrk is given.
func serverOf(raw string) (string, error) {
	t, err := NewTarget(raw, "")
	if err != nil {
		return "", err
	}
	return strings.TrimSuffix(t.URL, t.PathQuery) + "/", nil
}
