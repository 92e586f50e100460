// Package initcmd groups the commands that set up coding tools.
package initcmd

import (
	"github.com/spf13/cobra"

	"github.com/modelgateway/gw/cmd/cmdutil"
	"github.com/modelgateway/gw/cmd/initcmd/agent"
	"github.com/modelgateway/gw/cmd/initcmd/editor"
	"github.com/modelgateway/gw/config/agents/all"
)

// agentList names the agents gw init agent configures (config/agents/all), in parentheses, wrapped under the
// description it follows.
func agentList() string {
	const indent = "                   "
	return cmdutil.Wrap(cmdutil.ListWords(all.Displays(all.Configurable())), 100, indent)
}

// NewCmdInit attaches the init subcommands.
func NewCmdInit(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "init <command>",
		Short: "Set up a coding tool to use the gateway",
		Long: `Set up a coding tool to use the gateway:

  gw init agent    writes the gateway and your models into a coding agent's own config
` + agentList() + `
  gw init editor   prints the Cursor settings (hosted base URL, key, model ids)`,
	}
	cmd.AddCommand(agent.NewCmdAgent(f, nil))
	cmd.AddCommand(editor.NewCmdEditor(f, nil))
	return cmd
}
