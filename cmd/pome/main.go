// Command pome runs the Pome server and talks to its control plane.
//
// Everything but process wiring lives in cmd/internal/cli so that tests can
// drive the same commands in-process.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/pomehq/pome/cmd/internal/cli"
	"github.com/pomehq/pome/rest"
)

func main() {
	rest.DefaultRegistry = registry
	rest.DefaultGrader = grader
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	// After the first signal, give the default behaviour back so that a
	// second Ctrl-C kills a server that is slow to drain.
	go func() {
		<-ctx.Done()
		stop()
	}()
	os.Exit(cli.Execute(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
