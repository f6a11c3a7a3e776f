// Package cli holds the `pome` commands: their flags and configuration, the
// control-plane client they share, and the mapping from failures to the exit
// codes of SPEC §7.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/viper"

	"github.com/pomehq/pome/rest"
)

// Exit codes (SPEC §7). ExitFail and ExitIncomplete belong to `pome run` and
// `pome grade`; they are declared here so that every command shares one list.
const (
	ExitOK            = 0
	ExitFail          = 1
	ExitOrchestration = 2
	ExitAuth          = 3
	ExitQuota         = 4
	ExitUsage         = 5
	ExitIncomplete    = 6
)

// Version is the release of this binary, set at build time with
// -ldflags "-X github.com/pomehq/pome/cmd/internal/cli.Version=v1.2.3".
var Version = "dev"

// App is one invocation of the CLI: its standard streams and the pieces tests
// replace. The zero value is not usable; set at least the three streams.
type App struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer

	// HTTPClient talks to the control plane (nil: a client without an
	// overall timeout, because `tape --follow` streams for as long as the
	// user wants).
	HTTPClient *http.Client

	// Serve runs the server for `pome serve` (nil: rest.Run). Tests replace
	// it to inspect the rest.Config a command line produces.
	Serve func(ctx context.Context, cfg rest.Config, out io.Writer) error

	// v holds the configuration resolved for the running command: flags,
	// POME_* env, config file and defaults, in that order.
	v *viper.Viper
	// configPath is the config file in effect, read or not.
	configPath string
	// fileRaw is the config file as written, for maps whose keys must keep
	// their case (viper lower-cases every key it reads).
	fileRaw map[string]any
}

// Execute runs the CLI with args (without the program name) and returns the
// process exit code.
func Execute(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	a := &App{Stdin: stdin, Stdout: stdout, Stderr: stderr}
	return a.Run(ctx, args)
}

// Run executes one command line and returns its exit code. Diagnostics go to
// a.Stderr; results go to a.Stdout.
func (a *App) Run(ctx context.Context, args []string) int {
	root := a.newRootCmd()
	root.SetArgs(args)
	cmd, err := root.ExecuteContextC(ctx)
	if err == nil {
		return ExitOK
	}
	code := exitCode(err)
	fmt.Fprintf(a.Stderr, "pome: %s\n", err)
	var h interface{ Hint() string }
	if errors.As(err, &h) && h.Hint() != "" {
		fmt.Fprintf(a.Stderr, "hint: %s\n", h.Hint())
	}
	var coded interface{ ExitCode() int }
	if !errors.As(err, &coded) && cmd != nil {
		// Errors without a code come from cobra itself: a bad flag, a
		// wrong number of arguments, an unknown command.
		fmt.Fprintf(a.Stderr, "Run '%s --help' for usage.\n", cmd.CommandPath())
	}
	return code
}

// ExitError is a failure that knows its exit code, with an optional hint
// telling the user how to fix it.
type ExitError struct {
	Code int
	Err  error
	// Fix is printed after the error as "hint: …".
	Fix string
}

func (e *ExitError) Error() string { return e.Err.Error() }

// Unwrap exposes the cause to errors.Is and errors.As.
func (e *ExitError) Unwrap() error { return e.Err }

// ExitCode is the process exit code for this failure.
func (e *ExitError) ExitCode() int { return e.Code }

// Hint tells the user how to recover, or "".
func (e *ExitError) Hint() string { return e.Fix }

// usageErrorf is a bad invocation: exit 5.
func usageErrorf(format string, args ...any) error {
	return &ExitError{Code: ExitUsage, Err: fmt.Errorf(format, args...)}
}

// exitCode maps an error to SPEC §7. Errors that carry no code of their own
// are cobra's (flag parsing, argument counts, unknown commands), because
// every command's RunE goes through runE, which types its errors.
func exitCode(err error) int {
	var c interface{ ExitCode() int }
	if errors.As(err, &c) {
		return c.ExitCode()
	}
	return ExitUsage
}

// runE adapts a command body so that an error it did not classify counts as
// an orchestration failure (exit 2) rather than as a usage error.
func runE(fn func(cmd *cobra.Command, args []string) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		err := fn(cmd, args)
		if err == nil {
			return nil
		}
		var c interface{ ExitCode() int }
		if errors.As(err, &c) {
			return err
		}
		return &ExitError{Code: ExitOrchestration, Err: err}
	}
}

// groupCmd is a command that only holds subcommands. Cobra would print help
// and exit 0 for `pome sandbox bogus`; this makes that a usage error.
func groupCmd(use, short string, children ...*cobra.Command) *cobra.Command {
	c := &cobra.Command{
		Use:   use,
		Short: short,
		Args:  cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				names := make([]string, 0, len(cmd.Commands()))
				for _, s := range cmd.Commands() {
					if s.IsAvailableCommand() {
						names = append(names, s.Name())
					}
				}
				return usageErrorf("unknown command %q for %q (expected one of: %s)",
					args[0], cmd.CommandPath(), strings.Join(names, ", "))
			}
			return cmd.Help()
		},
	}
	c.AddCommand(children...)
	return c
}
