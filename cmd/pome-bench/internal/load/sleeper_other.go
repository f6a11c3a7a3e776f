//go:build !linux

package load

import "errors"

// newSleeper has no precise sleeper to offer off Linux: senders sleep on
// the runtime's timers.
func newSleeper() (sleeper, error) { return nil, errors.New("no timerfd on this system") }
