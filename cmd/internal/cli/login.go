package cli

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
)

func (a *App) newLoginCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "login --server URL [--api-key KEY]",
		Short: "Verify a team API key and save it with the server URL",
		Long: "Verify a team API key against the server and save both to the config file\n" +
			"(mode 0600), keeping every other setting in it. Without --api-key (or\n" +
			"POME_API_KEY) the key is read from standard input.",
		Args: cobra.NoArgs,
		RunE: runE(func(cmd *cobra.Command, _ []string) error {
			server, err := normalizeServer(a.v.GetString(keyServer))
			if err != nil {
				return err
			}
			key := strings.TrimSpace(a.v.GetString(keyAPIKey))
			if key == "" {
				if key, err = a.readKey(); err != nil {
					return err
				}
			}
			c := &Client{BaseURL: server, APIKey: key, HTTPClient: a.HTTPClient}
			u, err := c.Usage(cmd.Context())
			if err != nil {
				return err
			}
			if err := writeConfigKeys(a.configPath, kv{keyServer, server}, kv{keyAPIKey, key}); err != nil {
				return fmt.Errorf("saving the config file: %w", err)
			}
			fmt.Fprintf(a.Stdout, "Logged in to %s as team %s.\n", server, orDash(u.Team))
			fmt.Fprintf(a.Stderr, "Saved server and API key to %s.\n", a.configPath)
			return nil
		}),
	}
}

// readKey reads one line from standard input, so that a key can be piped in
// instead of landing in shell history.
func (a *App) readKey() (string, error) {
	var line string
	var err error
	if a.Stdin != nil {
		fmt.Fprint(a.Stderr, "Team API key (pme_…): ")
		line, err = bufio.NewReader(a.Stdin).ReadString('\n')
	}
	key := strings.TrimSpace(line)
	if key == "" {
		if err != nil && !errors.Is(err, io.EOF) {
			return "", err
		}
		return "", &ExitError{Code: ExitUsage, Err: errors.New("no API key given"),
			Fix: "pass --api-key pme_…, set POME_API_KEY, or type the key the server printed at start"}
	}
	return key, nil
}

func (a *App) newLogoutCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "logout",
		Short: "Remove the saved API key from the config file",
		Long: "Removes api_key from the config file, keeping every other setting (the server\n" +
			"included). The key itself stays valid on the server: remove it from the\n" +
			"server's keys (POME_API_KEYS, the config's teams:, or its --key-file) to revoke it.",
		Args: cobra.NoArgs,
		RunE: runE(func(cmd *cobra.Command, _ []string) error {
			removed, err := deleteConfigKey(a.configPath, keyAPIKey)
			if err != nil {
				return err
			}
			if removed {
				fmt.Fprintf(a.Stdout, "Removed the API key from %s.\n", a.configPath)
			} else {
				fmt.Fprintf(a.Stdout, "No API key is saved in %s.\n", a.configPath)
			}
			fmt.Fprintln(a.Stderr, "The key is not revoked on the server; remove it from the server's keys to revoke it.")
			if os.Getenv("POME_API_KEY") != "" {
				fmt.Fprintln(a.Stderr, "POME_API_KEY is still set in this shell and still supplies a key.")
			}
			return nil
		}),
	}
}
