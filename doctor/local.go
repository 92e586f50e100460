package doctor

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"

	"github.com/modelgateway/gw/keychain"
	"github.com/modelgateway/gw/proxy"
)

// checkConfig reports the config file: a file that does not parse is a failure (gw never rewrites it).
func (r *run) checkConfig() Check {
	in := r.in
	if in.ConfigErr != nil {
		return Check{ID: IDConfig, Status: Fail,
			Cause: in.ConfigErr.Error(),
			Fix:   "fix the file by hand, or move it away and run: gw auth login"}
	}
	if in.ConfigPath == "" {
		return Check{ID: IDConfig, Status: Pass, Detail: "no config file in use"}
	}
	if _, err := os.Stat(in.ConfigPath); errors.Is(err, fs.ErrNotExist) {
		return Check{ID: IDConfig, Status: Pass, Detail: in.ConfigPath + " does not exist yet (nothing saved; gw auth login creates it)"}
	} else if err != nil {
		return Check{ID: IDConfig, Status: Fail, Cause: "the config file cannot be read: " + err.Error(),
			Fix: "check the permissions of " + in.ConfigPath}
	}
	return Check{ID: IDConfig, Status: Pass, Detail: in.ConfigPath}
}

// checkKeychain says which backend holds the key (never the key itself; the masked form only).
func (r *run) checkKeychain() Check {
	in := r.in
	c := Check{ID: IDKeychain}
	if in.KeyErr != nil || in.Key.Key == "" {
		c.Status = Fail
		switch {
		case in.noKeyStored():
			c.Cause, c.Fix = noKey(IDKeychain, in.KeychainBackend)
		case in.Getenv != nil && in.Getenv(keychain.EnvVar) != "":
			c.Cause = "the key could not be read: " + in.KeyErr.Error()
			c.Fix = "set GW_API_KEY to the key exactly as the dashboard shows it, or unset it to use the stored key"
		case in.KeychainHint != "":
			c.Cause = "the key could not be read: " + in.KeyErr.Error()
			c.Fix = in.KeychainHint + "; then run: gw auth login; or set GW_API_KEY, or store the key in a file with: gw auth login --insecure-storage"
		default:
			c.Cause = "the key could not be read: " + in.KeyErr.Error()
			c.Fix = "unlock the keychain and retry, or set GW_API_KEY, or store the key in a file with: gw auth login --insecure-storage"
		}
		return c
	}
	masked := keychain.Mask(in.Key.Key)
	switch in.Key.Source {
	case keychain.SourceFile:
		c.Status = Warn
		c.Detail = masked + " in " + in.Key.Backend
		c.Cause = "the key is kept in a plain file (stored with --insecure-storage): anyone who can read your files can use it"
		c.Fix = "once an OS keychain is available, run: gw auth login (it stores the key there)"
	case keychain.SourceEnv:
		c.Status = Pass
		c.Detail = masked + " from the environment variable GW_API_KEY (overrides any stored key)"
	default:
		c.Status = Pass
		c.Detail = masked + " in " + in.Key.Backend
	}
	if in.Key.Warning != nil {
		c.Status = Warn
		if in.Key.Source == keychain.SourceFile {
			// The user chose the file: the keychain's failure is why, not news to act on first.
			c.Cause += "; the OS keychain is not usable here: " + keychain.Reason(in.Key.Warning)
			if in.KeychainHint != "" {
				c.Fix = in.KeychainHint + "; then run: gw auth login (it stores the key there)"
			}
		} else {
			c.Cause = "the OS keychain failed, so the key came from the next source: " + in.Key.Warning.Error()
			c.Fix = "unlock or repair the OS keychain, then run: gw auth login"
		}
	}
	return c
}

// checkProxy asks whether `gw serve` answers on its address with this install's token. Not running is only a
// failure when an agent config sends its requests there.
func (r *run) checkProxy(ctx context.Context, agentReady <-chan struct{}) Check {
	in := r.in
	if in.ProxyAddr == "" {
		return skipped(IDProxy, "no address for gw serve is known")
	}
	ctx, cancel := r.step(ctx)
	defer cancel()
	err := proxy.Probe(ctx, in.ProxyAddr, in.LocalToken)
	select {
	case <-agentReady:
	case <-ctx.Done():
	}
	r.mu.Lock()
	users := r.agent.proxyUsers
	r.mu.Unlock()

	if err == nil {
		return Check{ID: IDProxy, Status: Pass, Detail: "gw serve answers on " + in.ProxyAddr + " and accepts this install's local token"}
	}
	c := Check{ID: IDProxy, Cause: err.Error()}
	if elsewhere := r.proxyElsewhere(ctx, err); elsewhere != "" {
		return elsewhereCheck(c, in.ProxyAddr, elsewhere, users)
	}
	switch {
	case errors.Is(err, proxy.ErrNotRunning) && len(users) == 0:
		return Check{ID: IDProxy, Status: Pass, Detail: "gw serve is not running on " + in.ProxyAddr + "; no agent config found here uses it"}
	case errors.Is(err, proxy.ErrNotRunning):
		c = unreachable(c)
		c.Cause = fmt.Sprintf("%s sends requests to gw serve at %s, but nothing answers there", users[0], in.ProxyAddr)
		c.Fix = "run: gw serve (and keep it running while the agent works)"
	case errors.Is(err, proxy.ErrTokenRejected):
		c.Status = Fail
		if len(users) == 0 {
			c.Status = Warn
		}
		c.Fix = "restart gw serve so it uses this install's local token"
	case errors.Is(err, proxy.ErrNotGwServe):
		c.Status = Fail
		if len(users) == 0 {
			c.Status = Warn
		}
		c.Fix = fmt.Sprintf("stop the program on %s, or run gw serve --port N on a free port and re-run gw init agent", in.ProxyAddr)
	default:
		c.Status = Warn
		c.Fix = "run: gw serve"
	}
	if c.Status == Fail && len(users) > 0 && c.Condition == "" {
		c = unreachable(c)
	}
	return c
}

// noKeyStored reports, once the key is known to be missing, whether that is simply because there is none
// (GW_API_KEY unset, nothing stored) rather than because a store could not be read.
func (in *Input) noKeyStored() bool {
	return in.KeyErr == nil || errors.Is(in.KeyErr, keychain.ErrNotFound)
}

// noKey is the cause and fix for "there is no key at all", in the one wording both the keychain check and
// the key check use: the keychain check names the store it asked (backend, "" for the OS keychain), the key
// check says what a missing key means for the service.
func noKey(id, backend string) (cause, fix string) {
	if id == IDKeychain {
		if backend == "" {
			backend = "the OS keychain"
		}
		return fmt.Sprintf("no key is stored: GW_API_KEY is not set and %s has no key for gw", backend), "run: gw auth login"
	}
	return "no API key: GW_API_KEY is not set and no key is stored, so the service would refuse every request",
		"run: gw auth login (or set GW_API_KEY)"
}

// proxyElsewhere is the address of this install's gw serve when nothing answers on the configured one but
// the gw serve that said where it runs (gw serve --port) answers there with this install's token.
func (r *run) proxyElsewhere(ctx context.Context, err error) string {
	at := r.in.RunningProxyAddr
	if !errors.Is(err, proxy.ErrNotRunning) || at == "" || at == r.in.ProxyAddr {
		return ""
	}
	if proxy.Probe(ctx, at, r.in.LocalToken) != nil {
		return "" // gone since (killed before it could remove its note), or another install's
	}
	return at
}

// elsewhereCheck: gw serve runs, but not on the port gw's config names, where gw init agent points agents.
func elsewhereCheck(c Check, configured, running string, users []string) Check {
	_, cport, _ := net.SplitHostPort(configured)
	_, rport, _ := net.SplitHostPort(running)
	if len(users) == 0 {
		return Check{ID: IDProxy, Status: Pass, Detail: fmt.Sprintf(
			"gw serve runs on %s, not on the configured port %s; no agent config found here uses it", running, cport)}
	}
	c = unreachable(c)
	c.Cause = fmt.Sprintf("%s sends requests to gw serve at %s, but gw serve runs on %s (started with --port)", users[0], configured, running)
	c.Fix = fmt.Sprintf("restart gw serve without --port (it then listens on %s), or point the agents at port %s: gw init agent --port %s", cport, rport, rport)
	return c
}
