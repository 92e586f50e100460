// Package auth groups the commands that manage the API key.
package auth

import (
	"github.com/spf13/cobra"

	"github.com/modelgateway/gw/cmd/auth/login"
	"github.com/modelgateway/gw/cmd/auth/logout"
	"github.com/modelgateway/gw/cmd/auth/status"
	"github.com/modelgateway/gw/cmd/auth/token"
	"github.com/modelgateway/gw/cmd/cmdutil"
)

// NewCmdAuth attaches the auth subcommands.
func NewCmdAuth(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "auth <command>",
		Short: "Store, check and remove your API key",
	}
	cmd.AddCommand(login.NewCmdLogin(f, nil))
	cmd.AddCommand(status.NewCmdStatus(f, nil))
	cmd.AddCommand(logout.NewCmdLogout(f, nil))
	cmd.AddCommand(token.NewCmdToken(f, nil))
	return cmd
}
