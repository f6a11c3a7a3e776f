package load

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strings"
	"time"
)

// baselineBody is the fixed answer of the baseline handler: a 300-byte JSON
// object, about the size of a small twin response, so the baseline costs
// the same bytes on the wire and differs only in doing no work.
var baselineBody = func() []byte {
	head := `{"id":1,"status":"ok","pad":"`
	tail := `"}`
	return []byte(head + strings.Repeat("x", 300-len(head)-len(tail)) + tail)
}()

// Baseline is a bare net/http server on a loopback port: the ceiling a Go
// HTTP server reaches on this machine with this client.
type Baseline struct {
	URL string
	srv *http.Server
}

// StartBaseline listens on 127.0.0.1 on a free port and serves baselineBody
// to every request.
func StartBaseline() (*Baseline, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	b := &Baseline{URL: "http://" + ln.Addr().String() + "/", srv: &http.Server{
		Handler:           http.HandlerFunc(ServeBaseline),
		ReadHeaderTimeout: 10 * time.Second,
	}}
	go func() {
		if err := b.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			// The run's requests fail and report the cause; nothing to
			// add here.
			return
		}
	}()
	return b, nil
}

// ServeBaseline is the baseline handler, exported for in-process
// benchmarks.
func ServeBaseline(w http.ResponseWriter, _ *http.Request) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	w.Write(baselineBody)
}

// Close stops the server.
func (b *Baseline) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	return b.srv.Shutdown(ctx)
}

// BaselineScenario is a GET of the baseline, expecting 200.
func BaselineScenario(url string) Scenario {
	return Scenario{
		Name: "baseline",
		Next: func(ctx context.Context, _, _ int) (*http.Request, error) {
			return http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		},
		Check: expectStatus(http.StatusOK),
	}
}
