package token

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/modelgateway/gw/cmd/cmdutil"
	"github.com/modelgateway/gw/config"
	"github.com/modelgateway/gw/internal/autostart"
	"github.com/modelgateway/gw/internal/fsutil"
	"github.com/modelgateway/gw/internal/remedy"
	"github.com/modelgateway/gw/proxy"
)

// How long gw auth token --serve waits: for a gw serve it started to answer, and for another gw auth
// token --serve that is starting one (which waits at most startWait itself).
const (
	startWait = 5 * time.Second
	lockWait  = startWait + 5*time.Second
	pollEvery = 20 * time.Millisecond
)

// StartLock is the lock file, in gw's config directory, that one gw auth token --serve at a time holds
// from finding no gw serve on the port to the one it started answering: two agents starting at once
// start one gw serve.
const StartLock = ".serve-start.lock"

// Started is a gw serve that gw auth token --serve started: Exited yields, once it has ended, what it said
// on its way out (its standard error, as gw prints errors).
type Started struct {
	Exited <-chan string
}

// StartServe starts gw serve for port, detached; the default is startDetached.
type StartServe func(ctx context.Context, port int) (Started, error)

// serveTokenRun is gw auth token --serve: it makes sure this install's gw serve answers on the configured
// port, starting one when none does, and prints the local token. Any failure is one line (the agent that
// ran it shows it), and nothing is printed on standard output then.
func serveTokenRun(ctx context.Context, opts *TokenOptions) error {
	token, err := ensureServe(ctx, opts)
	if err != nil {
		return cmdutil.OneLine(err)
	}
	_, err = fmt.Fprintln(opts.IO.Out, token)
	return err
}

// ensureServe returns the local token once this install's gw serve answers on the configured port.
func ensureServe(ctx context.Context, opts *TokenOptions) (string, error) {
	cfg, paths, err := opts.Config()
	if err != nil {
		return "", err
	}
	token := cfg.LocalToken
	if token == "" {
		if token, err = config.EnsureLocalToken(paths.File()); err != nil {
			return "", fmt.Errorf("creating the local token for gw serve: %w", err)
		}
	}
	port := cfg.ServePort()
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	// The port is this install's gw serve's (it proved it knows the token without being sent it), or
	// nothing listens there; anything else gets neither the token nor, since the agent is not given it,
	// the agent's requests.
	up := func() (bool, error) {
		err := opts.Probe(ctx, addr, token)
		if errors.Is(err, proxy.ErrNotRunning) {
			return false, nil
		}
		if fix, ok := remedy.Of(err); ok && fix.Do == remedy.FreePort {
			// The agents' configs name the port: gw serve moves with them.
			err = remedy.With(err, remedy.Remedy{Do: remedy.MovePort, Value: fix.Value})
		}
		return err == nil, err
	}
	if ok, err := up(); ok || err != nil {
		return tokenIf(token, err)
	}

	unlock, err := acquire(filepath.Join(paths.ConfigDir, StartLock), opts.lockWait())
	if err != nil {
		return "", err
	}
	defer unlock()
	if ok, err := up(); ok || err != nil { // another one started it while this one waited
		return tokenIf(token, err)
	}
	// What would keep gw serve from serving the agent, said now rather than by a gw serve that then
	// refuses every request.
	if _, src, err := opts.ResolveBaseURL(""); err != nil {
		return "", cmdutil.WithFixFrom(err, src, "")
	}
	if _, err := opts.Key(ctx, cmdutil.KeyOptions{}); err != nil {
		return "", err
	}
	started, err := opts.Start(ctx, port)
	if err != nil {
		return "", fmt.Errorf("cannot start gw serve: %w", err)
	}
	wait := time.NewTimer(opts.startWait())
	defer wait.Stop()
	tick := time.NewTicker(pollEvery)
	defer tick.Stop()
	for {
		if ok, err := up(); ok || err != nil {
			return tokenIf(token, err)
		}
		select {
		case said := <-started.Exited:
			if ok, err := up(); ok || err != nil {
				return tokenIf(token, err) // another gw serve won the port, and it is ours
			}
			return "", stoppedError(addr, said)
		case <-wait.C:
			return "", remedy.With(fmt.Errorf("gw serve, started for the agent, did not answer on %s within %s", addr, opts.startWait()),
				remedy.Remedy{Do: remedy.Say, Value: "see why in gw logs, or run gw serve in a terminal"})
		case <-ctx.Done():
			return "", ctx.Err()
		case <-tick.C:
		}
	}
}

// tokenIf is the token when err is nil, nothing otherwise.
func tokenIf(token string, err error) (string, error) {
	if err != nil {
		return "", err
	}
	return token, nil
}

// stoppedError is a gw serve that ended before answering; said is what it printed (gw's "gw: …" and
// "fix: …" lines).
func stoppedError(addr, said string) error {
	said = strings.TrimPrefix(strings.TrimSpace(said), "gw: ")
	if said == "" {
		return remedy.With(fmt.Errorf("gw serve, started for the agent, stopped before answering on %s", addr),
			remedy.Remedy{Do: remedy.Say, Value: "see why in gw logs, or run gw serve in a terminal"})
	}
	return fmt.Errorf("gw serve could not start: %s", strings.ReplaceAll(said, "\n", "; "))
}

func (o *TokenOptions) startWait() time.Duration {
	if o.StartWait > 0 {
		return o.StartWait
	}
	return startWait
}

func (o *TokenOptions) lockWait() time.Duration {
	if o.LockWait > 0 {
		return o.LockWait
	}
	return lockWait
}

// acquire takes the lock at path, waiting at most wait.
func acquire(path string, wait time.Duration) (unlock func(), err error) {
	l, err := fsutil.AcquireWithin(path, wait)
	if errors.Is(err, fsutil.ErrLockBusy) {
		return nil, remedy.With(fmt.Errorf("another gw has been starting gw serve for over %s (it holds %s)", wait, path),
			remedy.Remedy{Do: remedy.Say, Value: "see why in gw logs, or run gw serve in a terminal"})
	}
	if err != nil {
		return nil, fmt.Errorf("cannot lock %s: %w", path, err)
	}
	return l.Release, nil
}

// startDetached starts this gw binary as gw serve --on-demand --port port, in a session of its own, with
// no terminal and nothing of the agent's: standard input from the null device, standard output to it,
// standard error to a pipe read until gw serve ends or this command does. It is not waited for: it
// outlives the agent.
func startDetached(exe func() (string, error), environ []string, dir string) StartServe {
	return func(ctx context.Context, port int) (Started, error) {
		path, err := exe()
		if err != nil {
			return Started{}, fmt.Errorf("cannot find the gw binary: %w", err)
		}
		null, err := os.Open(os.DevNull)
		if err != nil {
			return Started{}, err
		}
		defer null.Close()
		r, w, err := os.Pipe()
		if err != nil {
			return Started{}, err
		}
		defer w.Close()
		cmd := exec.Command(path, "serve", "--on-demand", "--port", strconv.Itoa(port))
		cmd.Env, cmd.Dir = environ, dir
		cmd.Stdin, cmd.Stdout, cmd.Stderr = null, null, w
		autostart.Detach(cmd)
		if err := cmd.Start(); err != nil {
			r.Close()
			return Started{}, err
		}
		exited := make(chan string, 1)
		go func() {
			defer r.Close()
			var said bytes.Buffer
			_, _ = io.Copy(&said, bufio.NewReader(io.LimitReader(r, 4<<10)))
			_ = cmd.Wait()
			exited <- said.String()
		}()
		return Started{Exited: exited}, nil
	}
}
