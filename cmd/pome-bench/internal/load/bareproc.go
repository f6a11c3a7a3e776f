package load

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"time"
)

// BareProcess is a same-bytes handler in a process of its own, as Pome is
// one: the rate mode's ceiling. Its CPU is read from its pid as the
// server's is, and it shares nothing with the load tool's runtime.
type BareProcess struct {
	URL string
	PID int

	cmd    *exec.Cmd
	stdin  io.WriteCloser
	done   chan error
	stderr *strings.Builder
}

// bareInput is what StartBare sends the same-bytes process: the answer,
// and what to do on each request before it (none by default).
type bareInput struct {
	Answer
	BurnNS       int64  `json:",omitempty"`
	GarbageBytes int    `json:",omitempty"`
	Keep         string `json:",omitempty"`
}

// StartBare starts command (pome-bench same-bytes, or what stands for it
// in a test), sends it a and work (what its handler does on each request
// besides answering; the zero value for nothing) as one JSON value on its standard
// input and reads the URL it serves on from the first line of its standard
// output. The process serves until its standard input closes (Close), so
// it does not outlive the load tool.
func StartBare(ctx context.Context, command []string, a Answer, work BareWork) (*BareProcess, error) {
	if len(command) == 0 {
		return nil, errors.New("no command for the same-bytes server")
	}
	cmd := exec.Command(command[0], command[1:]...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("same-bytes server: %w", err)
	}
	b := &BareProcess{PID: cmd.Process.Pid, cmd: cmd, stdin: stdin, done: make(chan error, 1), stderr: &stderr}
	line := make(chan string, 1)
	go func() {
		s := bufio.NewScanner(stdout)
		if s.Scan() {
			line <- s.Text()
		}
		close(line)
		io.Copy(io.Discard, stdout)
		b.done <- cmd.Wait()
	}()
	if err := json.NewEncoder(stdin).Encode(bareInput{Answer: a, BurnNS: int64(work.Burn), GarbageBytes: work.GarbageBytes, Keep: work.Keep}); err != nil {
		b.Close()
		return nil, fmt.Errorf("same-bytes server: sending the answer: %w (%s)", err, strings.TrimSpace(stderr.String()))
	}
	select {
	case u, ok := <-line:
		if !ok || !strings.HasPrefix(u, "http://") {
			b.Close()
			return nil, fmt.Errorf("same-bytes server: no URL on its output (%s)", strings.TrimSpace(stderr.String()))
		}
		b.URL = u
		return b, nil
	case <-ctx.Done():
		b.Close()
		return nil, ctx.Err()
	case <-time.After(10 * time.Second):
		b.Close()
		return nil, errors.New("same-bytes server: no URL within 10 s")
	}
}

// Close ends the process: its standard input closes, which it takes as the
// end; one that does not go within 5 s is killed. A process that ended
// other than cleanly (it failed, crashed, or, built with -race, found a
// race) is an error, with the end of what it wrote on its standard error:
// its run's figures are not to be trusted.
func (b *BareProcess) Close() error {
	b.stdin.Close()
	select {
	case err := <-b.done:
		b.done <- err
		if err != nil {
			// Wait has returned: nothing writes to stderr any more.
			msg := strings.TrimSpace(b.stderr.String())
			if len(msg) > 2000 {
				msg = "…" + msg[len(msg)-2000:]
			}
			return fmt.Errorf("same-bytes server ended with %v: %s", err, msg)
		}
		return nil
	case <-time.After(5 * time.Second):
		b.cmd.Process.Kill()
		return errors.New("same-bytes server did not stop; killed")
	}
}

// ServeSameBytes is the same-bytes server's side of StartBare: it reads one
// answer (and the CPU time to burn on each request) as JSON from in, serves it on addr with the same handler and
// net/http settings as the ceiling mode's, writes the URL as one line to
// out, and serves until in ends or ctx is done.
func ServeSameBytes(ctx context.Context, addr string, in io.Reader, out io.Writer) error {
	dec := json.NewDecoder(in)
	var a bareInput
	if err := dec.Decode(&a); err != nil {
		return fmt.Errorf("reading the answer: %w", err)
	}
	if a.Status < 100 || a.Status > 999 {
		return fmt.Errorf("answer status %d", a.Status)
	}
	work := BareWork{Burn: time.Duration(a.BurnNS), GarbageBytes: a.GarbageBytes, Keep: a.Keep}
	if err := work.check(); err != nil {
		return err
	}
	h := NewSameBytesHandler(a.Answer).(*sameBytesHandler)
	if work != (BareWork{}) {
		// Calibrated before the server listens: nothing measured waits on it.
		h.work = newWorker(work)
	}
	srv, err := Serve(addr, h)
	if err != nil {
		return err
	}
	defer srv.Close()
	if _, err := fmt.Fprintln(out, srv.URL); err != nil {
		return err
	}
	ended := make(chan struct{})
	go func() {
		io.Copy(io.Discard, io.MultiReader(dec.Buffered(), in))
		close(ended)
	}()
	select {
	case <-ended:
	case <-ctx.Done():
	}
	return nil
}
