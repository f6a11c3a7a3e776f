package load

import (
	"context"
	"errors"
	"os"
	"syscall"
	"time"
	"unsafe"
)

// Go's runtime waits for its timers in whole milliseconds when nothing else
// wakes it (netpoll turns a wait under 1 ms into 1 ms), so a sender asleep
// on time.Sleep can wake up to a millisecond after its request was due, and
// the open-loop latency, which runs from the due time, counts that as the
// server's. A timerfd expires to the nanosecond and wakes the runtime's
// poller as any readable descriptor does: each sender sleeps on one of its
// own. Sleeping on the runtime's timers first and on the timerfd only for
// the last milliseconds cost a second wake-up a request: at 4,000 comments
// a second the load tool took 0.50 of a CPU that way, 0.38–0.40 without.

// timerfd_create's and timerfd_settime's flags (linux/timerfd.h).
const (
	clockMonotonic = 1
	tfdNonblock    = syscall.O_NONBLOCK
	tfdCloexec     = syscall.O_CLOEXEC
)

// itimerspec is struct itimerspec: a period (zero: once) and the expiry.
type itimerspec struct {
	interval, value syscall.Timespec
}

type timerSleeper struct {
	f    *os.File
	fd   uintptr
	spec itimerspec
	buf  [8]byte
	// ctx is the context the sleeper wakes for when it is done (a sender
	// sleeps under one context all its life): its end sets the timerfd's
	// read deadline in the past, which ends the wait, and every later one
	// at once. stop unregisters that.
	ctx  context.Context
	stop func() bool
}

// newSleeper returns a sender's precise sleeper.
func newSleeper() (sleeper, error) {
	fd, _, errno := syscall.Syscall(syscall.SYS_TIMERFD_CREATE, clockMonotonic, tfdNonblock|tfdCloexec, 0)
	if errno != 0 {
		return nil, errno
	}
	// A non-blocking descriptor becomes a pollable File: its reads wait
	// in the runtime's poller, not in a thread of their own.
	f := os.NewFile(fd, "timerfd")
	if f == nil {
		syscall.Close(int(fd))
		return nil, errors.New("timerfd: not a file")
	}
	return &timerSleeper{f: f, fd: fd}, nil
}

func (s *timerSleeper) SleepUntil(ctx context.Context, t time.Time) {
	// The whole wait on the timerfd: one wake-up a request.
	d := time.Until(t)
	if d <= 0 || ctx.Err() != nil {
		return
	}
	if ctx != s.ctx {
		s.wakeFor(ctx)
	}
	// A relative expiry: d from now, once (it_interval zero).
	s.spec = itimerspec{value: syscall.NsecToTimespec(int64(d))}
	if _, _, errno := syscall.Syscall6(syscall.SYS_TIMERFD_SETTIME, s.fd, 0, uintptr(unsafe.Pointer(&s.spec)), 0, 0, 0); errno != 0 {
		sleepUntil(ctx, t)
		return
	}
	if _, err := s.f.Read(s.buf[:]); err != nil && ctx.Err() == nil {
		sleepUntil(ctx, t)
	}
}

// wakeFor makes the end of ctx end the sleeper's waits.
func (s *timerSleeper) wakeFor(ctx context.Context) {
	if s.stop != nil {
		s.stop()
	}
	s.f.SetReadDeadline(time.Time{})
	s.ctx = ctx
	s.stop = context.AfterFunc(ctx, func() { s.f.SetReadDeadline(time.Unix(1, 0)) })
}

func (s *timerSleeper) Close() {
	if s.stop != nil {
		s.stop()
	}
	s.f.Close()
}
