package main

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/pomehq/pome/cmd/pome-bench/internal/load"
	"github.com/pomehq/pome/session"
)

// discardWriter is a ResponseWriter that keeps the status and counts the
// body: what a connection would be handed, without the connection.
type discardWriter struct {
	h      http.Header
	status int
	n      int
}

func (w *discardWriter) Header() http.Header { return w.h }
func (w *discardWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
}
func (w *discardWriter) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	w.n += len(p)
	return len(p), nil
}
func (w *discardWriter) Flush() {}

// BenchmarkHandler puts each call of the ratio targets (load.Calls)
// through the server's handler directly, one goroutine, spread over
// benchSandboxes sandboxes as the load tool spreads them: Pome's own cost
// per call, without net/http's connection work or a client on the same
// cores, so a change to the serving path shows in ns/op and allocs/op far
// above this machine's noise. Writes grow the worlds, so compare runs of
// the same -benchtime (e.g. 20000x):
//
//	go test -run '^$' -bench Handler -benchtime 20000x -count 5 ./cmd/pome-bench/
func BenchmarkHandler(b *testing.B) {
	for _, c := range load.Calls {
		b.Run(c.Name, func(b *testing.B) {
			srv, url, key := startServer(b, session.NewMemoryStore(nil, 0), 0)
			client := load.NewClient(8)
			b.Cleanup(client.CloseIdleConnections)
			pome, err := load.NewPome(url, key, client)
			if err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			sbs, err := pome.CreateMany(ctx, benchSandboxes, 8, benchTwins)
			if err != nil {
				b.Fatal(err)
			}
			targets, err := c.Targets(ctx, client, sbs)
			if err != nil {
				b.Fatal(err)
			}
			w := &discardWriter{h: http.Header{}}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				req, err := c.Request(ctx, targets[i%len(targets)])
				if err != nil {
					b.Fatal(err)
				}
				req.RemoteAddr = "127.0.0.1:40000"
				clear(w.h)
				w.status, w.n = 0, 0
				srv.ServeHTTP(w, req)
				if w.status != c.Want {
					b.Fatalf("%s: status %d, want %d", c.Name, w.status, c.Want)
				}
			}
		})
	}
}

// The server sets its deadlines through http.ResponseController; a
// connection's writer has them.
func (w *discardWriter) SetReadDeadline(time.Time) error  { return nil }
func (w *discardWriter) SetWriteDeadline(time.Time) error { return nil }
