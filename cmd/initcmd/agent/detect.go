package agent

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/modelgateway/gw/api"
	"github.com/modelgateway/gw/cmd/cmdutil"
	"github.com/modelgateway/gw/config/agentfile"
	"github.com/modelgateway/gw/config/agents"
	"github.com/modelgateway/gw/config/agents/all"
	"github.com/modelgateway/gw/tui"
)

// found is one agent as gw init agent finds it on this machine: its command on PATH, its config files,
// and what they hold.
type found struct {
	agent writer
	bin   string // the command's path; "": not on PATH
	// files exist; state is the config's state ("not configured", "configured (3 models)",
	// "configured: other port", …) or why there is none for the scope.
	files bool
	state string
	// noScope: the agent has no config for the scope asked for (--project).
	noScope bool
}

// chooseAgent is --agent, or the agent the user picks from the ones found here.
func chooseAgent(opts *AgentOptions, baseURL string, entries []api.JoinedModel) (writer, error) {
	if opts.Agent != "" {
		return lookup(opts.Agent)
	}
	cfg, _, err := opts.Config()
	if err != nil {
		return writer{}, err
	}
	expect := agents.Expect{ProxyPort: cfg.ServePort(), LocalToken: cfg.LocalToken,
		ServiceURLs: []string{baseURL, opts.DefaultBaseURL}, Subscribed: api.SubscribedIDs(entries)}
	list := detect(opts, expect)
	var items []tui.PickItem
	for _, d := range list {
		it := tui.PickItem{ID: d.agent.Name, Name: d.agent.Display, Note: d.state}
		if d.noScope {
			it.Disabled, it.Reason, it.Note = true, d.state, ""
		}
		items = append(items, it)
	}
	title := "Agent to point at gw (enter chooses)"
	if opts.Project {
		title = "Agent whose project config to write (enter chooses)"
	}
	ids, err := opts.Pick(opts.IO, tui.PickOptions{Title: title, Items: items})
	if errors.Is(err, tui.ErrNoTTY) {
		return writer{}, cmdutil.FlagErrorf("--agent required when not running interactively: one of %s", strings.Join(all.Names(all.Configurable()), ", "))
	}
	if err != nil {
		return writer{}, err
	}
	if len(ids) == 0 {
		return writer{}, cmdutil.NothingChanged(errors.New("no agent chosen"))
	}
	a, _ := lookup(ids[0])
	return a, nil
}

// detect lists every supported agent, the ones found here first (on PATH or with a config file), each
// with the state of its config for the scope.
func detect(opts *AgentOptions, expect agents.Expect) []found {
	project := opts.Project
	wd, _ := opts.WorkDir()
	env := agents.Place{Getenv: opts.Getenv, WorkDir: wd}
	scope := agents.Global
	if project {
		scope = agents.Project
	}
	var here, rest []found
	for _, ag := range all.Configurable() {
		a, _ := lookup(ag.Info().Name)
		d := found{agent: a, bin: lookPath(a.Binary, opts.Getenv("PATH"))}
		files, err := a.Files(scope, env)
		if err != nil && project {
			d.noScope, d.state = true, "no project config"
		} else if err != nil {
			d.state = "config not found: " + err.Error()
		} else {
			d.files, d.state = inspect(a, files, expect)
		}
		if !d.noScope && d.bin == "" {
			if d.files {
				d.state += "; not on PATH"
			} else {
				d.state = "not installed (" + a.Install + ")"
			}
		}
		if d.bin != "" || d.files {
			here = append(here, d)
		} else {
			rest = append(rest, d)
		}
	}
	return append(here, rest...)
}

// inspect reads an agent's config files and says what state they are in.
func inspect(a writer, files []string, expect agents.Expect) (exists bool, state string) {
	srcs, exists, err := agentfile.ReadAll(files)
	if err != nil {
		return true, "config unreadable"
	}
	if !exists {
		return false, "not configured"
	}
	in, err := a.Inspect(srcs)
	if err != nil {
		var pe *agents.ParseError
		if errors.As(err, &pe) {
			return true, "config does not parse"
		}
		return true, "config unreadable"
	}
	return true, in.State(expect)
}

// lookPath finds an executable named bin in the directories of path (the factory's PATH, so that tests
// choose what is installed).
func lookPath(bin, path string) string {
	names := []string{bin}
	if runtime.GOOS == "windows" {
		names = []string{bin + ".exe", bin + ".cmd", bin + ".bat"}
	}
	for _, dir := range filepath.SplitList(path) {
		if dir == "" {
			continue
		}
		for _, n := range names {
			p := filepath.Join(dir, n)
			fi, err := os.Stat(p)
			if err != nil || errors.Is(err, fs.ErrNotExist) || !fi.Mode().IsRegular() {
				continue
			}
			if runtime.GOOS == "windows" || fi.Mode().Perm()&0o111 != 0 {
				return p
			}
		}
	}
	return ""
}
