package cli

import (
	"context"
	"os"
	"testing"
)

// TestMain lets the test binary stand in for pome where a command runs
// pome itself as a child: `pome demo` runs its agent as `<this binary>
// demo-agent`, through the same runner path as any agent.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "demo-agent" {
		os.Exit(Execute(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}
