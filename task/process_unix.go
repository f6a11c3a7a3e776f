//go:build unix

package task

import (
	"os/exec"
	"syscall"
)

// setProcessGroup makes the process the leader of a new group, so that
// signalling the group reaches everything it started.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

func termGroup(cmd *exec.Cmd) { signalGroup(cmd, syscall.SIGTERM) }

func killGroup(cmd *exec.Cmd) { signalGroup(cmd, syscall.SIGKILL) }

func signalGroup(cmd *exec.Cmd, sig syscall.Signal) {
	if cmd.Process == nil {
		return
	}
	// The group may be gone already; that is the outcome we want.
	_ = syscall.Kill(-cmd.Process.Pid, sig)
}
