package cmdutil

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/modelgateway/gw/api"
	"github.com/modelgateway/gw/config"
	"github.com/modelgateway/gw/internal/remedy"
	"github.com/modelgateway/gw/keychain"
	"github.com/modelgateway/gw/tui"
)

// The TUI's own errors have their exit codes here, wrapped or not, so no command maps them by hand.
func TestExitCodeFor(t *testing.T) {
	for _, tt := range []struct {
		name string
		err  error
		want ExitCode
	}{
		{"nil", nil, ExitOK},
		{"plain", errors.New("the service accepts keys: invalid argument"), ExitError},
		{"flag", FlagErrorf("unknown flag: --x"), ExitUsage},
		{"wrapped flag", fmt.Errorf("gw models: %w", FlagErrorf("bad")), ExitUsage},
		{"no key", &NoKeyError{Msg: "no API key stored"}, ExitAuth},
		{"declined", ErrCancel, ExitCancel},
		{"esc in a picker", tui.ErrCancelled, ExitCancel},
		{"esc, wrapped", fmt.Errorf("choosing models: %w", tui.ErrCancelled), ExitCancel},
		{"ctrl-c in a picker or prompt", tui.ErrInterrupted, ExitInterrupted},
		{"ctrl-c, wrapped", fmt.Errorf("reading the key: %w", tui.ErrInterrupted), ExitInterrupted},
		{"silent", ErrSilent, ExitError},
	} {
		if got := ExitCodeFor(tt.err); got != tt.want {
			t.Errorf("%s: ExitCodeFor(%v) = %d, want %d", tt.name, tt.err, got, tt.want)
		}
	}
}

// Every error that carries a remedy is printed with its fix on a line of its own, said for where the base
// URL and the key came from (WithFixFrom); an error without one is printed as it is.
func TestErrorWithFix(t *testing.T) {
	refused := &api.Error{Condition: api.ServiceUnreachable, Kind: api.KindRefused, Cause: "the connection was refused",
		Fix: remedy.Remedy{Do: remedy.CheckHostPort}}
	wrongKey := &api.Error{Condition: api.KeyRejected, Kind: api.KindWrongKey, Cause: "the service refused the key",
		Fix: remedy.Remedy{Do: remedy.NewKey}}
	for name, tc := range map[string]struct {
		err  error
		want string
	}{
		"no remedy": {errors.New("disk full"), "disk full"},
		"base URL from GW_BASE_URL": {WithFixFrom(fmt.Errorf("listing: %w", refused), config.SourceEnv, keychain.SourceKeychain),
			"listing: unable to connect to API: the connection was refused\n" +
				"fix: check the host and port of the base URL; run: export GW_BASE_URL=<the service's address from the dashboard, ending in /v1>"},
		"base URL from --base-url": {WithFixFrom(refused, config.SourceFlag, ""),
			"unable to connect to API: the connection was refused\n" +
				"fix: check the host and port of the base URL; run again with --base-url <the service's address from the dashboard, ending in /v1>"},
		"key from the insecure file": {WithFixFrom(wrongKey, config.SourceDefault, keychain.SourceFile),
			"API key invalid or unauthorized: the service refused the key\n" +
				"fix: create a new key on the dashboard and run: gw auth login --insecure-storage " +
				"(if the key is right, check the balance: some services refuse an empty account the same way)"},
		"key from GW_API_KEY": {WithFixFrom(wrongKey, config.SourceConfig, keychain.SourceEnv),
			"API key invalid or unauthorized: the service refused the key\n" +
				"fix: create a new key on the dashboard and set GW_API_KEY to it, or run: unset GW_API_KEY (gw then uses the stored key); " +
				"if the key is right, check the balance: some services refuse an empty account the same way"},
		"sources not known": {refused,
			"unable to connect to API: the connection was refused\n" +
				"fix: check the host and port of the base URL; run: gw auth login --base-url <the service's address from the dashboard, ending in /v1>"},
		"a keychain that failed": {&keychain.TimeoutError{Op: "reading the key", Backend: "Secret Service", Timeout: 3 * time.Second},
			"Secret Service did not answer within 3s while reading the key (is it locked or not running?)\n" +
				"fix: start or unlock the OS keychain (on Linux without a desktop, start a Secret Service: gnome-keyring-daemon --unlock --components=secrets, in a D-Bus session), then run: gw auth login; on a machine without one, run: gw auth login --insecure-storage (or set GW_API_KEY)"},
	} {
		if got := ErrorWithFix(tc.err); got != tc.want {
			t.Errorf("%s:\n got %q\nwant %q", name, got, tc.want)
		}
	}
}

// A command that stopped before writing says so once, last, under the fix; the error keeps its exit code and
// its remedy however it is wrapped, and an error that did not say so gets no such line.
func TestErrorWithFix_NothingChanged(t *testing.T) {
	bad := remedy.With(errors.New("--models: vendor-a/model-a-sonet-4.5 is not a model of your account"),
		remedy.Remedy{Do: remedy.UseID, Value: "vendor-a/model-a-sonnet-4.5"})
	for name, tc := range map[string]struct {
		err  error
		want string
		code ExitCode
	}{
		"with a fix": {NothingChanged(bad),
			"--models: vendor-a/model-a-sonet-4.5 is not a model of your account\n" +
				"fix: use the exact id: vendor-a/model-a-sonnet-4.5\n" +
				"(nothing was changed)", ExitError},
		"words of a library as the fix": {NothingChanged(remedy.With(errors.New("opencode.json: the provider \"gw\" is disabled"),
			remedy.Remedy{Do: remedy.Say, Value: "remove \"gw\" from disabled_providers, then run again"})),
			"opencode.json: the provider \"gw\" is disabled\n" +
				"fix: remove \"gw\" from disabled_providers, then run again\n" +
				"(nothing was changed)", ExitError},
		"wrapped, usage error": {fmt.Errorf("gw init agent: %w", NothingChanged(FlagErrorf("--default x is not among the models being added"))),
			"gw init agent: --default x is not among the models being added\n(nothing was changed)", ExitUsage},
		"without a fix": {NothingChanged(errors.New("no model chosen")), "no model chosen\n(nothing was changed)", ExitError},
		"not said": {bad, "--models: vendor-a/model-a-sonet-4.5 is not a model of your account\n" +
			"fix: use the exact id: vendor-a/model-a-sonnet-4.5", ExitError},
	} {
		if got := ErrorWithFix(tc.err); got != tc.want {
			t.Errorf("%s:\n got %q\nwant %q", name, got, tc.want)
		}
		if got := ExitCodeFor(tc.err); got != tc.code {
			t.Errorf("%s: exit %d, want %d", name, got, tc.code)
		}
	}
	if NothingChanged(nil) != nil {
		t.Error("NothingChanged(nil) is an error")
	}
}
