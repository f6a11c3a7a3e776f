package cli

import "github.com/spf13/cobra"

func (a *App) newTasksCmd() *cobra.Command { return &cobra.Command{Use: "tasks", Hidden: true} }
