package rest

import (
	"net"
	"net/http"
	"sync"
	"time"
)

// Connection limits. net/http bounds nothing by default but the header
// read (ReadHeaderTimeout): a body sent a byte a second, a client that
// never reads its answer, or idle keep-alive connections were each held
// for as long as the client liked. A server-wide ReadTimeout or
// WriteTimeout would also end every tape follow (a long-lived event
// stream), so the body and answer deadlines are set per request instead,
// and a stream pushes its write deadline on before each event.
const (
	defaultBodyTimeout  = 30 * time.Second
	defaultWriteTimeout = 60 * time.Second
	defaultIdleTimeout  = 60 * time.Second
	defaultMaxConns     = 4096
)

// setDeadlines bounds how long this request's body may take to arrive and
// its answer to leave. The read deadline is only set while a body remains
// to be read: once it is read net/http clears it, and on a request without
// one net/http is already watching the connection for the client going
// away, which a read deadline would cut short.
func (s *Server) setDeadlines(w http.ResponseWriter, r *http.Request) {
	rc := http.NewResponseController(w)
	now := time.Now()
	if r.Body != nil && r.Body != http.NoBody && r.ContentLength != 0 {
		_ = rc.SetReadDeadline(now.Add(s.cfg.BodyTimeout))
	}
	_ = rc.SetWriteDeadline(now.Add(s.cfg.WriteTimeout))
}

// extendWrite gives a long-lived answer (an event stream) another write
// timeout from now, before each thing it sends.
func (s *Server) extendWrite(w http.ResponseWriter) {
	_ = http.NewResponseController(w).SetWriteDeadline(time.Now().Add(s.cfg.WriteTimeout))
}

// limitListener accepts at most n connections at once; past that, Accept
// waits for one to close, so a flood of connections is held in the
// kernel's backlog rather than in the server's memory and file table.
type limitListener struct {
	net.Listener
	slots chan struct{}
}

func newLimitListener(ln net.Listener, n int) net.Listener {
	return &limitListener{Listener: ln, slots: make(chan struct{}, n)}
}

func (l *limitListener) Accept() (net.Conn, error) {
	l.slots <- struct{}{}
	c, err := l.Listener.Accept()
	if err != nil {
		<-l.slots
		return nil, err
	}
	return &limitConn{Conn: c, release: func() { <-l.slots }}, nil
}

// limitConn gives its slot back once, when closed.
type limitConn struct {
	net.Conn
	once    sync.Once
	release func()
}

func (c *limitConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.release)
	return err
}
