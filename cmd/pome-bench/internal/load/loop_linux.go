package load

import (
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"syscall"
	"time"
	"unsafe"
)

// The loop client runs a constant-rate schedule from one goroutine, as
// wrk2 does: every connection is a non-blocking socket in one epoll set,
// and the goroutine waits in epoll_pwait2 until the next request is due
// or an answer arrives. A request costs a write, a read and a share of a
// wake-up, with no goroutine parked or woken and no timer of the
// runtime's. With a goroutine per sender (the raw client) each request
// parks and wakes its sender twice, and at 10,000 requests a second the
// runtime's thread hand-offs (futex waits and wake-ups) took most of the
// load tool's half a CPU, on the same two cores as the server it measures.

// sysEpollPwait2 is epoll_pwait2's number, the same on every architecture
// (Linux 5.11): epoll_wait with a timeout in nanoseconds.
const sysEpollPwait2 = 441

// Connection states.
const (
	loopClosed     = iota // no socket: dialled when next needed
	loopConnecting        // connect in progress, out waiting
	loopIdle              // open, nothing in flight
	loopBusy              // a request written (or being written), its answer awaited
)

type loopConn struct {
	fd    int
	state int
	// out is what is left to write of the request in flight.
	out []byte
	// due is when the request in flight was due.
	due time.Time
	// buf holds the bytes read of its answer.
	buf     []byte
	scratch []byte
}

// LoopClient is the loop client: its connections stay open from one run
// to the next (a warm-up, then the measured run).
type LoopClient struct {
	l *loop
}

// loop is the loop client's state; a run's fields are reset by Run.
type loop struct {
	ctx    context.Context
	sched  Schedule
	reqs   []RawRequest
	check  func(status int, body []byte) error
	sa     syscall.Sockaddr
	family int
	epfd   int
	conns  []loopConn
	idle   []int
	busy   int
	tl     *timeline
	tally  tally
	events []syscall.EpollEvent
}

// loopWorks says whether the loop client can run here.
func loopWorks() error {
	l := &loop{events: make([]syscall.EpollEvent, 1)}
	var err error
	if l.epfd, err = syscall.EpollCreate1(syscall.EPOLL_CLOEXEC); err != nil {
		return fmt.Errorf("epoll: %w", err)
	}
	defer syscall.Close(l.epfd)
	if _, err := l.wait(0); err != nil {
		return fmt.Errorf("epoll_pwait2 (Linux 5.11): %w", err)
	}
	return nil
}

// NewLoopClient opens conns connections for reqs, which must all go to
// the same address. It fails when the loop client cannot run here
// (epoll_pwait2 came with Linux 5.11) or the server cannot be reached.
func NewLoopClient(conns int, reqs []RawRequest) (*LoopClient, error) {
	if len(reqs) == 0 || conns < 1 {
		return nil, errors.New("loop: no requests or no connections")
	}
	for _, r := range reqs[1:] {
		if r.Addr != reqs[0].Addr {
			return nil, fmt.Errorf("loop: requests to %s and %s: one address a client", reqs[0].Addr, r.Addr)
		}
	}
	if err := loopWorks(); err != nil {
		return nil, fmt.Errorf("loop: %w", err)
	}
	addr, err := net.ResolveTCPAddr("tcp", reqs[0].Addr)
	if err != nil {
		return nil, err
	}
	l := &loop{reqs: reqs, conns: make([]loopConn, conns), events: make([]syscall.EpollEvent, min(conns, 256))}
	if ip4 := addr.IP.To4(); ip4 != nil {
		sa := &syscall.SockaddrInet4{Port: addr.Port}
		copy(sa.Addr[:], ip4)
		l.sa, l.family = sa, syscall.AF_INET
	} else {
		sa := &syscall.SockaddrInet6{Port: addr.Port}
		copy(sa.Addr[:], addr.IP.To16())
		l.sa, l.family = sa, syscall.AF_INET6
	}
	if l.epfd, err = syscall.EpollCreate1(syscall.EPOLL_CLOEXEC); err != nil {
		return nil, fmt.Errorf("loop: epoll: %w", err)
	}
	if err := l.connectAll(); err != nil {
		l.close()
		return nil, err
	}
	return &LoopClient{l: l}, nil
}

// Run sends sched's requests, request i being reqs[i mod len(reqs)], and
// checks each answer with check, until every one is answered or ctx ends;
// requests then still in flight are left unanswered and their
// connections closed (opened again when next needed). Not safe for
// concurrent use.
func (lc *LoopClient) Run(ctx context.Context, sched Schedule, check func(status int, body []byte) error) *OpenLoopResult {
	l := lc.l
	l.ctx, l.sched, l.check = ctx, sched, check
	l.tl, l.tally = newTimeline(sched, sched.SlowOver), tally{}
	l.run()
	for k := range l.conns {
		if l.conns[k].state == loopBusy || l.conns[k].state == loopConnecting {
			l.closeConn(k)
			l.conns[k].out = nil
			l.idle = append(l.idle, k)
		}
	}
	l.busy = 0
	return openLoopResult(sched, l.tl, ctx.Err() != nil, &l.tally)
}

// Close closes the client's connections.
func (lc *LoopClient) Close() { lc.l.close() }

// connectAll opens every connection before the run, so the run's first
// requests do not wait for handshakes.
func (l *loop) connectAll() error {
	deadline := time.Now().Add(10 * time.Second)
	for k := range l.conns {
		if err := l.dial(k); err != nil {
			return fmt.Errorf("loop: connect: %w", err)
		}
	}
	for {
		pending := 0
		for k := range l.conns {
			if l.conns[k].state == loopConnecting {
				pending++
			}
		}
		if pending == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("loop: %d connections not open after 10s", pending)
		}
		n, err := l.wait(100 * time.Millisecond)
		if err != nil {
			return err
		}
		for _, ev := range l.events[:n] {
			if l.conns[ev.Fd].state != loopConnecting {
				continue
			}
			if _, err := l.connected(int(ev.Fd), ev.Events); err != nil {
				return fmt.Errorf("loop: connect: %w", err)
			}
		}
	}
}

// run sends every request at its due time on an idle connection (or as
// soon as one is free) and reads the answers, until all are answered or
// the context ends.
func (l *loop) run() {
	var next int64
	for {
		if l.ctx.Err() != nil {
			return
		}
		now := time.Now()
		for next < l.sched.Count && len(l.idle) > 0 {
			due := l.sched.Due(next)
			if due.After(now) {
				break
			}
			k := l.idle[len(l.idle)-1]
			l.idle = l.idle[:len(l.idle)-1]
			l.send(k, next, due, now)
			next++
		}
		if next >= l.sched.Count && l.busy == 0 {
			return
		}
		// Wait for the next due time when a connection is free for it,
		// else for answers; at most 50 ms, to see the context end.
		timeout := 50 * time.Millisecond
		if next < l.sched.Count && len(l.idle) > 0 {
			timeout = min(timeout, max(0, l.sched.Due(next).Sub(now)))
		}
		n, err := l.wait(timeout)
		if err != nil {
			l.tally.answered(l.tl, l.sched, time.Time{}, time.Now(), fmt.Errorf("epoll: %w", err))
			return
		}
		for _, ev := range l.events[:n] {
			l.event(int(ev.Fd), ev.Events)
		}
	}
}

// send starts request i on connection k.
func (l *loop) send(k int, i int64, due, now time.Time) {
	c := &l.conns[k]
	c.due = due
	c.out = l.reqs[i%int64(len(l.reqs))].Bytes
	c.buf = c.buf[:0]
	l.busy++
	l.tally.sent(now.Sub(due))
	if c.state == loopClosed {
		if err := l.dial(k); err != nil {
			l.done(k, 0, nil, err)
			return
		}
		if c.state == loopConnecting {
			return
		}
	}
	c.state = loopBusy
	l.flush(k)
}

// flush writes what is left of connection k's request, waiting for the
// socket to be writable when it takes no more.
func (l *loop) flush(k int) {
	c := &l.conns[k]
	for len(c.out) > 0 {
		n, err := syscall.Write(c.fd, c.out)
		if err == syscall.EAGAIN {
			l.ctl(syscall.EPOLL_CTL_MOD, k, syscall.EPOLLIN|syscall.EPOLLOUT|syscall.EPOLLRDHUP)
			return
		}
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			l.done(k, 0, nil, fmt.Errorf("write: %w", err))
			return
		}
		c.out = c.out[n:]
	}
}

// event handles what epoll says of connection k.
func (l *loop) event(k int, ev uint32) {
	c := &l.conns[k]
	switch c.state {
	case loopConnecting:
		open, err := l.connected(k, ev)
		if err != nil {
			l.done(k, 0, nil, fmt.Errorf("connect: %w", err))
			return
		}
		if open {
			c.state = loopBusy
			l.flush(k)
		}
	case loopBusy:
		if ev&syscall.EPOLLOUT != 0 && len(c.out) > 0 {
			l.flush(k)
			if c.state == loopBusy && len(c.out) == 0 {
				l.ctl(syscall.EPOLL_CTL_MOD, k, syscall.EPOLLIN|syscall.EPOLLRDHUP)
			}
		}
		if ev&(syscall.EPOLLIN|syscall.EPOLLRDHUP|syscall.EPOLLHUP|syscall.EPOLLERR) != 0 && c.state == loopBusy {
			l.read(k)
		}
	case loopIdle:
		// The server closed an idle connection (or sent what was not
		// asked for): open a new one when it is next needed.
		l.closeConn(k)
	}
}

// read reads what connection k has and, once its answer is whole, records
// it.
func (l *loop) read(k int) {
	c := &l.conns[k]
	if cap(c.buf) == 0 {
		c.buf = make([]byte, 0, 16<<10)
	}
	if len(c.buf) == cap(c.buf) {
		c.buf = slices.Grow(c.buf, cap(c.buf))
	}
	n, err := syscall.Read(c.fd, c.buf[len(c.buf):cap(c.buf)])
	switch {
	case err == syscall.EAGAIN || err == syscall.EINTR:
		return
	case err != nil:
		l.done(k, 0, nil, fmt.Errorf("read: %w", err))
		return
	}
	c.buf = c.buf[:len(c.buf)+n]
	eof := n == 0
	a, ok, err := parseAnswer(c.buf, eof, &c.scratch)
	switch {
	case err != nil:
		l.done(k, 0, nil, err)
	case ok:
		if a.size != len(c.buf) {
			// Bytes past the answer: not asked for.
			a.keep = false
		}
		keep := a.keep && !eof
		l.done(k, a.status, a.body, nil)
		if !keep {
			l.closeConn(k)
		}
	case eof:
		l.done(k, 0, nil, errMidAnswer)
	}
}

// done records connection k's request as answered (or failed with err)
// and frees the connection; a failed one is closed.
func (l *loop) done(k int, status int, body []byte, err error) {
	c := &l.conns[k]
	l.busy--
	if err == nil {
		err = l.check(status, body)
	} else {
		l.closeConn(k)
	}
	l.tally.answered(l.tl, l.sched, c.due, time.Now(), err)
	if c.state == loopBusy {
		c.state = loopIdle
	}
	c.out = nil
	l.idle = append(l.idle, k)
}

// dial opens connection k without waiting: it is idle if the connection
// was made at once, connecting if not.
func (l *loop) dial(k int) error {
	fd, err := syscall.Socket(l.family, syscall.SOCK_STREAM|syscall.SOCK_NONBLOCK|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	syscall.SetsockoptInt(fd, syscall.IPPROTO_TCP, syscall.TCP_NODELAY, 1)
	c := &l.conns[k]
	c.fd = fd
	err = syscall.Connect(fd, l.sa)
	switch err {
	case nil:
		c.state = loopIdle
		err = l.ctl(syscall.EPOLL_CTL_ADD, k, syscall.EPOLLIN|syscall.EPOLLRDHUP)
	case syscall.EINPROGRESS:
		c.state = loopConnecting
		err = l.ctl(syscall.EPOLL_CTL_ADD, k, syscall.EPOLLOUT|syscall.EPOLLIN|syscall.EPOLLRDHUP)
	}
	if err != nil {
		syscall.Close(fd)
		c.state = loopClosed
		return err
	}
	if c.state == loopIdle && c.out == nil {
		l.idle = append(l.idle, k)
	}
	return nil
}

// connected finishes connection k's connect, which was in progress, when
// ev says it is over: open says it succeeded. A connection opened with no
// request waiting becomes idle.
func (l *loop) connected(k int, ev uint32) (open bool, err error) {
	if ev&(syscall.EPOLLOUT|syscall.EPOLLERR|syscall.EPOLLHUP) == 0 {
		return false, nil
	}
	c := &l.conns[k]
	if soErr, err := syscall.GetsockoptInt(c.fd, syscall.SOL_SOCKET, syscall.SO_ERROR); err != nil || soErr != 0 {
		if err == nil {
			err = syscall.Errno(soErr)
		}
		l.closeConn(k)
		return false, err
	}
	if err := l.ctl(syscall.EPOLL_CTL_MOD, k, syscall.EPOLLIN|syscall.EPOLLRDHUP); err != nil {
		l.closeConn(k)
		return false, err
	}
	c.state = loopIdle
	if c.out == nil {
		l.idle = append(l.idle, k)
	}
	return true, nil
}

func (l *loop) ctl(op, k int, events uint32) error {
	ev := syscall.EpollEvent{Events: events, Fd: int32(k)}
	return syscall.EpollCtl(l.epfd, op, l.conns[k].fd, &ev)
}

func (l *loop) closeConn(k int) {
	c := &l.conns[k]
	if c.state == loopClosed {
		return
	}
	syscall.Close(c.fd) // closing removes it from the epoll set
	c.state, c.fd = loopClosed, -1
}

func (l *loop) close() {
	for k := range l.conns {
		l.closeConn(k)
	}
	syscall.Close(l.epfd)
}

// wait waits up to d for events (EINTR: none).
func (l *loop) wait(d time.Duration) (int, error) {
	ts := syscall.NsecToTimespec(int64(d))
	n, _, errno := syscall.Syscall6(sysEpollPwait2, uintptr(l.epfd), uintptr(unsafe.Pointer(&l.events[0])), uintptr(len(l.events)),
		uintptr(unsafe.Pointer(&ts)), 0, 0)
	switch errno {
	case 0:
		return int(n), nil
	case syscall.EINTR:
		return 0, nil
	}
	return 0, errno
}
