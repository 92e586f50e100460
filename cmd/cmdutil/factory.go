package cmdutil

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelgateway/gw/api"
	"github.com/modelgateway/gw/cmd/build"
	"github.com/modelgateway/gw/config"
	"github.com/modelgateway/gw/internal/remedy"
	"github.com/modelgateway/gw/keychain"
	"github.com/modelgateway/gw/tui"
)

// Profile is the keychain account; profiles beyond the default are not offered yet.
const Profile = keychain.DefaultAccount

// Factory carries every dependency a command needs. Commands take what they use from it; tests replace the
// functions. Nothing here is global: root.Main builds one per run.
type Factory struct {
	IOStreams *tui.IOStreams
	Getenv    func(string) string
	WorkDir   func() (string, error)

	// Version is the binary's version string (for the User-Agent and `gw version`).
	Version string
	// DefaultBaseURL is the canonical base URL built into the binary ("" when the build has none).
	DefaultBaseURL string

	// Keyring returns the OS keychain store (tests substitute a fake).
	Keyring func() keychain.Store
	// KeychainInstall is the command that installs the OS keychain this machine lacks, given its failure
	// (keychain.SetupCommand; "" when nothing is missing; nil, as in tests: never).
	KeychainInstall func(error) string
	// Transport is the one HTTP transport to the hosted service, shared by every command.
	Transport func() http.RoundTripper
	// LoginService says what keeps gw serve running on this machine: LoginServiceOn this platform (nil, as
	// in tests that build a Factory: not asked; the command scripts ask as on Linux wherever they run).
	LoginService func(context.Context) LoginService

	// keyMarkWarned: the command has said it could not write the key-changed file (keyChanged).
	keyMarkWarned atomic.Bool
}

// BuildInfo is what `gw version` and `gw --version` print: the build's details with this factory's version
// and default base URL, the ones every other command uses, so the two cannot disagree with each other or
// with the User-Agent.
func (f *Factory) BuildInfo() build.Details {
	d := build.Info()
	d.Version = f.Version
	d.DefaultBaseURL = f.DefaultBaseURL
	return d
}

// Paths resolves the config and state directories.
func (f *Factory) Paths() (config.Paths, error) { return config.ResolvePaths(f.Getenv) }

// Config loads the config file. A file that does not parse is an error (it is never rewritten).
func (f *Factory) Config() (config.File, config.Paths, error) {
	p, err := f.Paths()
	if err != nil {
		return config.File{}, p, err
	}
	c, err := config.Load(p.File())
	return c, p, err
}

// FileStore is the insecure file store (used only when the user chose --insecure-storage, or to find a key
// stored that way earlier). A key stored or removed through it reaches a running gw serve at its next
// request (KeyStamp).
func (f *Factory) FileStore() (keychain.Store, error) {
	p, err := f.Paths()
	if err != nil {
		return nil, err
	}
	return f.markChanges(keychain.NewFile(p.CredentialsFile())), nil
}

// Keychain is the OS keychain for one command: every call the command makes on it, naming the backend
// included, shares one deadline (keychain.Session), so a keychain that does not answer costs the command one
// time-out, not one per call. A key stored or removed through it reaches a running gw serve at its next
// request (KeyStamp).
func (f *Factory) Keychain(ctx context.Context) keychain.Store {
	return f.markChanges(keychain.Session(ctx, f.Keyring()))
}

// KeyOptions are the variants of gw's one key policy (Key).
type KeyOptions struct {
	// Keychain is the OS keychain to ask; nil: a session of this command's (Keychain(ctx)), whose calls share
	// one deadline. gw doctor passes its own session, which also names the backend.
	Keychain keychain.Store
	// Process asks the process's keychain store (Keyring()) instead, each call with the store's own
	// time-out: gw serve asks again for as long as it runs (Serving).
	Process bool
	// AsIs returns the keychain package's errors as they are (wrapping keychain.ErrNotFound when there is no
	// key), for callers that report them themselves (gw doctor, gw serve). Without it, a missing or unreadable
	// key is a *NoKeyError (exit 4) whose message says why and what to do, and an OS keychain that failed while
	// the key came from the file is said on stderr, unless the user chose the file (--insecure-storage): then
	// the keychain is not theirs to fix.
	AsIs bool
}

// Key is gw's one key policy: GW_API_KEY › the OS keychain › the insecure file, the last only while the
// config says the user chose --insecure-storage (a file left behind is never picked up silently). Every
// command and gw serve find the key through it, with the variants of KeyOptions.
func (f *Factory) Key(ctx context.Context, o KeyOptions) (keychain.Resolved, error) {
	kr := o.Keychain
	switch {
	case kr != nil:
	case o.Process:
		kr = f.Keyring()
	default:
		kr = f.Keychain(ctx)
	}
	insecure := f.insecureStorage()
	var file keychain.Store
	if insecure {
		var err error
		if file, err = f.FileStore(); err != nil {
			return keychain.Resolved{}, err
		}
	}
	r, err := keychain.Resolve(f.Getenv, kr, file, Profile)
	if o.AsIs {
		return r, err
	}
	switch {
	case err == nil:
		if r.Warning != nil && !(insecure && r.Source == keychain.SourceFile) {
			fmt.Fprintf(f.IOStreams.ErrOut, "! %v\n", r.Warning)
		}
		return r, nil
	case errors.Is(err, keychain.ErrNotFound):
		if insecure {
			return r, storedInFile(&NoKeyError{Msg: "no API key stored", Fix: remedy.Remedy{Do: remedy.Login}})
		}
		// Said on one line, as gw's first message to a new user (a warning of gw init editor quotes it).
		return r, &NoKeyError{Msg: "no API key stored: run gw auth login (or set GW_API_KEY)"}
	case f.Getenv(keychain.EnvVar) != "":
		return r, err // GW_API_KEY is set but unusable: its own message says so
	case insecure:
		// Resolve reports the keychain's failure when the file had no key either; a failing file is the
		// user's to fix, so it is returned as it is.
		if _, ferr := file.Get(Profile); errors.Is(ferr, keychain.ErrNotFound) {
			return r, storedInFile(&NoKeyError{Msg: "no API key stored", Fix: remedy.Remedy{Do: remedy.Login}})
		}
		return r, err
	default:
		// Only the OS keychain was asked, and it failed: there is no key gw can use.
		return r, &NoKeyError{Msg: "no API key: the OS keychain could not be read: " + err.Error(), Fix: f.KeychainRemedy(err)}
	}
}

// Serving is key, gw's one key policy (Factory.Key), in the shape gw serve's key cache reads it again when
// the key changed (KeyStamp) and every few seconds in the background (proxy.KeyFrom): the key and where it
// came from, so a key the service refuses is named with its source; asked of the process's keychain store (KeyOptions.Process), with the keychain's errors as they are
// (gw serve says them itself).
func Serving(key func(context.Context, KeyOptions) (keychain.Resolved, error)) func(context.Context) (string, keychain.Source, error) {
	return func(ctx context.Context) (string, keychain.Source, error) {
		r, err := key(ctx, KeyOptions{Process: true, AsIs: true})
		return r.Key, r.Source, err
	}
}

// storedInFile: the user keeps the key in the insecure file, so storing one is gw auth login --insecure-storage.
func storedInFile(err error) error { return WithFixFrom(err, "", keychain.SourceFile) }

// KeychainRemedy is what to do about a failure of the OS keychain: make it work (first installing it where
// KeychainInstall names what is missing), or keep the key in a file.
func (f *Factory) KeychainRemedy(err error) remedy.Remedy {
	r := remedy.Remedy{Do: remedy.RepairKeychain}
	if f.KeychainInstall != nil && err != nil {
		r.Value = f.KeychainInstall(err)
	}
	return r
}

// insecureStorage says whether the user chose the insecure file store (gw auth login --insecure-storage).
func (f *Factory) insecureStorage() bool {
	c, _, err := f.Config()
	return err == nil && c.InsecureStorage
}

// BaseURL resolves the base URL by precedence (flag › GW_BASE_URL › config › build default) and validates it.
// The error names the exact problem, where the value came from, and the corrected value; a bad --base-url
// is a usage error.
func (f *Factory) BaseURL(flag string) (string, config.Source, error) {
	v, src, err := f.baseURL(flag)
	if err != nil && src == config.SourceFlag {
		err = &FlagError{Err: err}
	}
	return v, src, err
}

func (f *Factory) baseURL(flag string) (string, config.Source, error) {
	c, _, err := f.Config()
	if err != nil {
		return "", "", err
	}
	v, src := config.ResolveBaseURL(flag, f.Getenv(config.EnvBaseURL), c.BaseURL, f.DefaultBaseURL)
	if v == "" {
		return "", "", errors.New("no base URL configured: run gw auth login --base-url URL (the service's address, ending in /v1)")
	}
	if _, err := config.ValidateBaseURL(v); err != nil {
		return v, src, fmt.Errorf("%w (%s)", err, src.From())
	}
	// An override that downgrades the configured (or built-in) https address to http would send the key in
	// the clear: refuse it rather than quietly follow it.
	for _, trusted := range []string{c.BaseURL, f.DefaultBaseURL} {
		if err := config.CheckScheme(trusted, v); err != nil {
			return v, src, fmt.Errorf("%w (%s)", err, src.From())
		}
	}
	return v, src, nil
}

// HTTPClient is a client of the service on the shared transport with an overall time-out (0 = none). It
// never follows a redirect (api.NewHTTPClient): the request carries the key.
func (f *Factory) HTTPClient(timeout time.Duration) *http.Client {
	return api.NewHTTPClient(f.Transport(), timeout)
}

// APIClient is the one client of the hosted service.
func (f *Factory) APIClient(baseURL, key string, timeout time.Duration) *api.Client {
	c := api.NewClient(baseURL, key, f.HTTPClient(timeout))
	c.Version = f.Version
	c.Canonical = f.DefaultBaseURL
	return c
}

// NewFactory builds the production factory.
func NewFactory(version, defaultBaseURL string) *Factory {
	ios := tui.System(os.Getenv)
	// One transport per process, made on first use: its connection pool is what makes requests cheap.
	transport := sync.OnceValue(func() http.RoundTripper { return api.NewTransport(api.TransportOptions{}) })
	// One keychain store per process: it remembers its backend's name and lets only one call hang at a time.
	keyring := sync.OnceValue(func() keychain.Store { return keychain.NewOS(keychain.DefaultTimeout) })
	f := &Factory{
		IOStreams:       ios,
		Getenv:          os.Getenv,
		WorkDir:         os.Getwd,
		Version:         version,
		DefaultBaseURL:  defaultBaseURL,
		Keyring:         keyring,
		KeychainInstall: keychain.SetupCommand,
		Transport:       transport,
	}
	f.LoginService = func(ctx context.Context) LoginService { return f.LoginServiceOn(ctx, runtime.GOOS) }
	return f
}
