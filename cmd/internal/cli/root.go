package cli

import (
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// commands lists every top-level command. It is an explicit list rather than
// init() registration so that the set of commands reads in one place; adding
// a command is its own file plus one line here.
func (a *App) commands() []*cobra.Command {
	return []*cobra.Command{
		a.newServeCmd(),
		a.newLoginCmd(), a.newLogoutCmd(),
		a.newSandboxCmd(),
		a.newTapeCmd(),
		a.newStateCmd(),
		a.newChecksCmd(),
		a.newTasksCmd(), a.newRunCmd(), a.newGradeCmd(), a.newEvalCmd(), a.newInspectCmd(), a.newFixPromptCmd(), a.newInitCmd(), a.newDoctorCmd(), a.newDemoCmd(), a.newDemoAgentCmd(),
		a.newTwinsCmd(), a.newTwinCmd(),
		a.newUsageCmd(),
		a.newVersionCmd(),
	}
}

func (a *App) newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   "pome",
		Short: "Digital twins of SaaS APIs for testing agents",
		Long: "pome runs digital twins of GitHub, Slack, Stripe, Gmail and Linear inside sandboxes\n" +
			"(`pome serve`) and talks to a Pome server's control plane. Offline, with no\n" +
			"server, account, key or model: `demo` (a bundled task, its agent and an\n" +
			"embedded server), `twin start|status|new-seed` (one twin in the foreground),\n" +
			"and `init`, `inspect`, `fix-prompt` and `eval` (a project folder and its runs).",
		SilenceErrors: true,
		SilenceUsage:  true,
		// Loading here, once the command line is parsed, lets flags of the
		// command that actually runs take part in the precedence order.
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			return a.loadConfig(cmd)
		},
	}
	root.SetIn(a.Stdin)
	root.SetOut(a.Stdout)
	root.SetErr(a.Stderr)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error {
		// Left untyped on purpose: exitCode treats it as usage (5), and Run
		// then points at --help.
		return err
	})

	pf := root.PersistentFlags()
	pf.String("config", "", "config file (default $XDG_CONFIG_HOME/pome/config.yaml or ~/.config/pome/config.yaml; env POME_CONFIG)")
	pf.String("server", "", "Pome server URL (env POME_SERVER, default "+defaultServer+")")
	pf.String("api-key", "", "team API key pme_… (env POME_API_KEY)")
	bindKey(pf, "server", keyServer)
	bindKey(pf, "api-key", keyAPIKey)

	root.AddCommand(a.commands()...)
	return root
}

// configKeyAnnotation marks a flag as the command-line source of a config
// key; loadConfig binds the flags of the running command that carry it.
const configKeyAnnotation = "pome_config_key"

// bindKey declares that flag name sets config key. Several commands may bind
// flags to the same key (e.g. --session on tape and state); only the running
// command's flags are bound, so they do not overwrite each other.
func bindKey(fs *pflag.FlagSet, name, key string) {
	if err := fs.SetAnnotation(name, configKeyAnnotation, []string{key}); err != nil {
		// Only reachable with a flag name that was never declared: a bug.
		panic(err)
	}
}
