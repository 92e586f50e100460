package doctor

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"strings"

	"github.com/modelgateway/gw/internal/remedy"
	"github.com/modelgateway/gw/keychain"
	"github.com/modelgateway/gw/proxy"
)

// checkConfig reports the config file: a file that does not parse is a failure (gw never rewrites it).
func (r *run) checkConfig() Check {
	in := r.in
	if in.ConfigErr != nil {
		fix, ok := remedy.Of(in.ConfigErr)
		if !ok {
			fix = remedy.Remedy{Do: remedy.FixConfigFile, Value: in.ConfigPath}
		}
		return Check{ID: IDConfig, Status: Fail, Cause: in.ConfigErr.Error(), Fix: fix}
	}
	if in.ConfigPath == "" {
		return Check{ID: IDConfig, Status: Pass, Detail: "no config file in use"}
	}
	if _, err := os.Stat(in.ConfigPath); errors.Is(err, fs.ErrNotExist) {
		return Check{ID: IDConfig, Status: Pass, Detail: in.ConfigPath + " does not exist yet", Note: remedy.Remedy{Do: remedy.SaveConfig}}
	} else if err != nil {
		return Check{ID: IDConfig, Status: Fail, Cause: "the config file cannot be read: " + err.Error(),
			Fix: remedy.Remedy{Do: remedy.CheckPermissions, Value: in.ConfigPath}}
	}
	return Check{ID: IDConfig, Status: Pass, Detail: in.ConfigPath}
}

// checkKeychain says which backend holds the key (never the key itself; the masked form only).
func (r *run) checkKeychain() Check {
	in := r.in
	c := Check{ID: IDKeychain}
	if in.KeyErr != nil || in.Key.Key == "" {
		c.Status = Fail
		if in.noKeyStored() {
			c.Cause, c.Fix = noKey(IDKeychain, in.KeychainBackend)
		} else {
			c.Cause = "the key could not be read: " + in.KeyErr.Error()
			c.Fix = in.keyStoreRemedy()
		}
		return c
	}
	masked := keychain.Mask(in.Key.Key)
	switch in.Key.Source {
	case keychain.SourceFile:
		c.Status = Warn
		c.Detail = masked + " in " + in.Key.Backend
		c.Cause = "the key is kept in a plain file (stored with --insecure-storage): anyone who can read your files can use it"
		c.Fix = remedy.Remedy{Do: remedy.RepairKeychain, Value: in.KeychainInstall} // then it moves there
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
			c.Cause += "; the OS keychain is not usable here: " + in.Key.Warning.Error()
		} else {
			c.Cause = "the OS keychain failed, so the key came from the next source: " + in.Key.Warning.Error()
			c.Fix = remedy.Remedy{Do: remedy.RepairKeychain, Value: in.KeychainInstall}
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
	users, unread, onDemand := r.agent.proxyUsers, r.agent.unread, r.agent.onDemand
	r.mu.Unlock()

	if err == nil {
		return Check{ID: IDProxy, Status: Pass, Detail: "gw serve answers on " + in.ProxyAddr + " and accepts this install's local token"}
	}
	c := Check{ID: IDProxy, Cause: err.Error()}
	if elsewhere := r.proxyElsewhere(ctx, err); elsewhere != "" {
		return elsewhereCheck(c, in.ProxyAddr, elsewhere, users)
	}
	if errors.Is(err, proxy.ErrNotRunning) && len(onDemand) > 0 && len(users) == len(onDemand) && unread == 0 {
		who := onDemand[0] + " starts it when it starts (its key comes from gw auth token --serve)"
		if len(onDemand) > 1 {
			who = strings.Join(onDemand, ", ") + " start it when they start (their key comes from gw auth token --serve)"
		}
		return Check{ID: IDProxy, Status: Pass, Detail: "gw serve is not running on " + in.ProxyAddr + "; " + who}
	}
	if errors.Is(err, proxy.ErrNotRunning) && len(users) == len(onDemand) && unread > 0 {
		// The configs it could not read may send their requests there: nothing to conclude.
		return Check{ID: IDProxy, Status: Warn, Cause: fmt.Sprintf("gw serve is not running on %s; %s could not be read (see the coding agent config check) and may use it",
			in.ProxyAddr, count(unread, "agent config")), Fix: remedy.Remedy{Do: remedy.StartServe}}
	}
	// Anything but nothing on the port reaches the on-demand agents too: their credential command says it.
	// Another program on the port fails the agents that use it; with none, it is a warning.
	failIfUsed := Fail
	if len(users) == 0 {
		failIfUsed = Warn
	}
	switch {
	case errors.Is(err, proxy.ErrNotRunning) && len(users) == 0:
		return Check{ID: IDProxy, Status: Pass, Detail: "gw serve is not running on " + in.ProxyAddr + "; no agent config found here uses it"}
	case errors.Is(err, proxy.ErrNotRunning):
		c = unreachable(c)
		c.Cause = fmt.Sprintf("%s sends requests to gw serve at %s, but nothing answers there", strings.Join(users, ", "), in.ProxyAddr)
		if len(users) > 1 {
			c.Cause = fmt.Sprintf("%d agent configs send requests to gw serve at %s (%s), but nothing answers there", len(users), in.ProxyAddr, strings.Join(users, ", "))
		}
		// Most often it lived in a terminal that was closed: a login service keeps it running, else a gw
		// serve started apart from the shell.
		c.Fix = remedy.Steps(remedy.Remedy{Do: remedy.StartServe}, remedy.Remedy{Do: remedy.InstallService})
		if in.StartServeLine != "" {
			c.Fix = remedy.Remedy{Do: remedy.StartServeDetached, Value: in.StartServeLine}
		}
	case errors.Is(err, proxy.ErrStranger):
		// Another user's process: it was sent nothing, and an agent that uses the port talks to it.
		c.Status = failIfUsed
		c.Fix = remedy.Remedy{Do: remedy.FreePort, Value: in.ProxyAddr}
	case errors.Is(err, proxy.ErrNotLoopback):
		c.Status = Fail
		c.Fix = remedy.Remedy{Do: remedy.RestartServe}
	case errors.Is(err, proxy.ErrTokenRejected):
		c.Status = failIfUsed
		// In words of its own: Probe's error also says what to do, which is the fix.
		c.Cause = "gw serve refuses the local token on " + in.ProxyAddr + ": it was started with another local token"
		c.Fix = remedy.Remedy{Do: remedy.RestartServe}
	case errors.Is(err, proxy.ErrNotGwServe):
		c.Status = failIfUsed
		c.Fix = remedy.Remedy{Do: remedy.FreePort, Value: in.ProxyAddr}
	default:
		c.Status = Warn
		c.Fix = remedy.Remedy{Do: remedy.StartServe}
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

// keyStoreRemedy is what to do about a key that could not be read (not a missing one): GW_API_KEY set to
// something that is not a key, a file store's own failure (damaged, readable by others), or an OS keychain
// that failed, first installing it where it is missing.
func (in *Input) keyStoreRemedy() remedy.Remedy {
	if in.Getenv != nil && in.Getenv(keychain.EnvVar) != "" {
		return remedy.Remedy{Do: remedy.FixEnvKey}
	}
	if r, ok := remedy.Of(in.KeyErr); ok && r.Do != remedy.RepairKeychain {
		return r
	}
	return remedy.Remedy{Do: remedy.RepairKeychain, Value: in.KeychainInstall}
}

// noKey is the cause and fix for "there is no key at all", in the one wording both the keychain check and
// the key check use: the keychain check names the store it asked (backend, "" for the OS keychain), the key
// check says what a missing key means for the service.
func noKey(id, backend string) (cause string, fix remedy.Remedy) {
	if id == IDKeychain {
		backend = cmp.Or(backend, "the OS keychain")
		return fmt.Sprintf("no key is stored: %s is not set and %s has no key for gw", keychain.EnvVar, backend), remedy.Remedy{Do: remedy.StoreKey}
	}
	return "no API key: " + keychain.EnvVar + " is not set and no key is stored, so the service would refuse every request",
		remedy.Remedy{Do: remedy.Login}
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
	c.Fix = remedy.Remedy{Do: remedy.ServeOnConfiguredPort, Value: cport, Also: rport}
	return c
}
