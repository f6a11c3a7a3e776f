package cli

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

func (a *App) newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version of pome and of Go it was built with",
		Args:  cobra.NoArgs,
		// The version must print even when the config file is broken.
		PersistentPreRunE: func(*cobra.Command, []string) error { return nil },
		RunE: runE(func(*cobra.Command, []string) error {
			_, err := fmt.Fprintf(a.Stdout, "pome %s (%s, %s/%s)\n", version(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
			return err
		}),
	}
}

// version prefers the -ldflags value; a binary built by `go install
// module@vX` without it still knows its module version.
func version() string {
	if Version != "dev" {
		return Version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return Version
}
