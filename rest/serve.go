package rest

import (
	"context"
	"errors"
	"io"
)

// Run builds the server from cfg, prints the generated team key to out when
// no team is configured, and serves on cfg.Addr until ctx is done.
func Run(ctx context.Context, cfg Config, out io.Writer) error {
	return errors.New("rest.Run: not wired yet")
}
