//go:build !unix

package task

import "os/exec"

// Without process groups only the agent process itself can be stopped.
func setProcessGroup(cmd *exec.Cmd) {}

func termGroup(cmd *exec.Cmd) { killGroup(cmd) }

func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}
