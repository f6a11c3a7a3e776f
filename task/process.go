package task

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"time"
)

// ProcessResult is how an agent (or judge) process ended.
type ProcessResult struct {
	ExitCode int  `json:"exit_code"`
	TimedOut bool `json:"timed_out"`
	// Killed is true when Pome ended the process group (deadline or
	// interruption) rather than the process exiting by itself.
	Killed     bool  `json:"killed"`
	DurationMS int64 `json:"duration_ms"`
}

// runProcess runs command with sh -c in its own process group, with env,
// stdin and outputs, until it exits, timeout passes or ctx ends. At the
// deadline the whole group gets SIGTERM and, after grace, SIGKILL: an
// agent's children (a model server, a browser) must not outlive the run
// and keep writing to the sandbox. Whatever is left of the group once the
// leader exits is killed too, for the same reason.
func runProcess(ctx context.Context, command string, env []string, stdin io.Reader, stdout, stderr io.Writer, timeout, grace time.Duration) (ProcessResult, error) {
	cmd := exec.Command("/bin/sh", "-c", command)
	cmd.Env = env
	cmd.Stdin = stdin
	cmd.Stdout, cmd.Stderr = stdout, stderr
	setProcessGroup(cmd)
	// Pipes held open by grandchildren must not keep Wait waiting forever.
	cmd.WaitDelay = grace + time.Second
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return ProcessResult{ExitCode: -1}, err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()

	timer := time.NewTimer(timeout)
	defer timer.Stop()
	var res ProcessResult
	var waitErr error
	select {
	case waitErr = <-done:
	case <-timer.C:
		res.TimedOut, res.Killed = true, true
		waitErr = stopGroup(cmd, done, grace)
	case <-ctx.Done():
		res.Killed = true
		waitErr = stopGroup(cmd, done, grace)
	}
	killGroup(cmd)
	res.DurationMS = time.Since(start).Milliseconds()
	res.ExitCode = exitCodeOf(cmd, waitErr)
	var ee *exec.ExitError
	if waitErr != nil && !errors.As(waitErr, &ee) && !errors.Is(waitErr, exec.ErrWaitDelay) {
		return res, waitErr
	}
	return res, nil
}

// stopGroup asks the group to terminate, then kills it after grace.
func stopGroup(cmd *exec.Cmd, done <-chan error, grace time.Duration) error {
	termGroup(cmd)
	select {
	case err := <-done:
		return err
	case <-time.After(grace):
	}
	killGroup(cmd)
	return <-done
}

func exitCodeOf(cmd *exec.Cmd, err error) int {
	if cmd.ProcessState != nil {
		return cmd.ProcessState.ExitCode()
	}
	if err != nil {
		return -1
	}
	return 0
}

// createFile opens an artifact for writing.
func createFile(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
}
