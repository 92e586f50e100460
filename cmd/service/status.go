package service

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/modelgateway/gw/cmd/cmdutil"
	"github.com/modelgateway/gw/internal/autostart"
	"github.com/modelgateway/gw/internal/safetext"
	"github.com/modelgateway/gw/proxy"
)

// StatusOptions holds the flags of `gw service status`.
type StatusOptions struct {
	*Options
	JSON bool
}

// Status is what `gw service status --json` prints.
type Status struct {
	Platform string `json:"platform"`
	// Name is the unit's name, the LaunchAgent's label or the task's name; File where its file is.
	Name string `json:"name"`
	File string `json:"file"`
	// Installed: gw's own file is there (Owner "gw", or "edited" when it was changed since). Owner "other"
	// is a file of that name gw did not write.
	Installed bool   `json:"installed"`
	Owner     string `json:"owner,omitempty"`
	// Current: the file is what gw service install writes now (this gw binary, the config's port).
	Current bool `json:"current"`
	// Running is whether the platform runs it, State the platform's word for that (or why it could not be
	// asked).
	Running bool   `json:"running"`
	State   string `json:"state,omitempty"`
	// Address is gw serve's configured address; Answering whether this install's gw serve answers there
	// (as gw doctor's proxy check asks), Problem why not.
	Address   string `json:"address"`
	Answering bool   `json:"answering"`
	Problem   string `json:"problem,omitempty"`
	// Fix is what to do when it does not answer.
	Fix     string `json:"fix,omitempty"`
	Command string `json:"command"`
}

// NewCmdStatus binds the flags; runF replaces the run in flag-parsing tests.
func NewCmdStatus(f *cmdutil.Factory, runF func(context.Context, *StatusOptions) error) *cobra.Command {
	opts := &StatusOptions{Options: defaults(f)}
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Show whether gw serve is set to start at login, runs, and answers",
		Long: `Show whether gw service install set gw serve to start at login, whether the platform runs it, and
whether this install's gw serve answers on the configured port (asked as gw doctor asks: it must prove
it holds this install's local token). Exits 0 when all three hold, 1 otherwise.`,
		Example: `  gw service status
  gw service status --json`,
		Args: cobra.NoArgs,
		RunE: cmdutil.RunE(runF, statusRun, opts),
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the status as JSON")
	return cmd
}

func statusRun(ctx context.Context, opts *StatusOptions) error {
	s, err := opts.setup()
	if err != nil {
		return err
	}
	u := s.mgr.Unit
	st, err := s.mgr.State(ctx)
	if err != nil {
		return err
	}
	rep := Status{
		Platform: u.Platform, Name: u.Name, File: u.Path,
		Installed: st.Owner == autostart.Ours || st.Owner == autostart.Edited,
		Current:   st.Current, Running: st.Running, State: st.Detail,
		Address: net.JoinHostPort("127.0.0.1", strconv.Itoa(s.cfg.ServePort())),
		Command: commandLine(u),
	}
	rep.Owner = map[autostart.Owner]string{autostart.Ours: "gw", autostart.Edited: "edited", autostart.Foreign: "other"}[st.Owner]
	err = proxy.Probe(ctx, rep.Address, s.cfg.LocalToken)
	switch {
	case err == nil:
		rep.Answering = true
	case errors.Is(err, proxy.ErrNotRunning) && !rep.Installed:
		rep.Problem, rep.Fix = err.Error(), "run: gw service install"
	case errors.Is(err, proxy.ErrNotRunning):
		rep.Problem, rep.Fix = err.Error(), "see what gw serve said when it stopped: "+u.Inspect()
	default:
		rep.Problem, rep.Fix = err.Error(), cmdutil.FixFor(err)
	}
	notRunning := errors.Is(err, proxy.ErrNotRunning)
	if opts.JSON {
		if err := cmdutil.WriteJSON(opts.IO.Out, rep); err != nil {
			return err
		}
	} else {
		show(opts, rep, notRunning)
	}
	if !rep.Installed || !rep.Running || !rep.Answering {
		return cmdutil.ErrSilent
	}
	return nil
}

func show(opts *StatusOptions, rep Status, notRunning bool) {
	// What the service manager says (its state, a unit someone else wrote) is shown with its control
	// characters escaped.
	out := safetext.NewWriter(opts.IO.Out)
	defer out.Flush()
	switch rep.Owner {
	case "gw":
		fmt.Fprintf(out, "At login: ✓ set up (%s)\n", rep.File)
		if !rep.Current {
			fmt.Fprintf(out, "  note: it does not start what gw service install writes now (%s); run gw service install to update it\n", rep.Command)
		}
	case "edited":
		fmt.Fprintf(out, "At login: ✓ set up (%s, changed since gw wrote it)\n", rep.File)
	case "other":
		fmt.Fprintf(out, "At login: ✗ %s is there, but gw did not write it\n", rep.File)
	default:
		fmt.Fprintf(out, "At login: ✗ not set up\n")
	}
	switch {
	case rep.Installed && rep.Running:
		fmt.Fprintf(out, "Runs:     ✓ %s\n", rep.State)
	case rep.Installed:
		fmt.Fprintf(out, "Runs:     ✗ %s\n", rep.State)
	}
	switch {
	case rep.Answering:
		fmt.Fprintf(out, "Answers:  ✓ gw serve answers on %s\n", rep.Address)
	case notRunning:
		fmt.Fprintf(out, "Answers:  ✗ nothing answers on %s\n", rep.Address)
	default:
		fmt.Fprintf(out, "Answers:  ✗ %s\n", rep.Problem)
	}
	if rep.Fix != "" {
		fmt.Fprintf(out, "  fix: %s\n", rep.Fix)
	}
}
