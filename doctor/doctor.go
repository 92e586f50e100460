package doctor

import (
	"context"
	"crypto/x509"
	"net"
	"net/http"
	"time"

	"github.com/modelgateway/gw/config"
	"github.com/modelgateway/gw/config/agents"
	"github.com/modelgateway/gw/internal/remedy"
	"github.com/modelgateway/gw/keychain"
)

// Status is the outcome of one check.
type Status string

const (
	Pass Status = "pass"
	Warn Status = "warn" // works, but something deserves attention; does not make the report fail
	Fail Status = "fail"
	Skip Status = "skip" // could not run because an earlier check failed (Cause says which)
)

// Stable check ids (model checks are "model:" + the id).
const (
	IDConfig      = "config"
	IDBaseURL     = "base_url"
	IDDNS         = "dns"
	IDTCP         = "tcp"
	IDTLS         = "tls"
	IDHTTP        = "http"
	IDKey         = "key"
	IDModels      = "models"
	IDAgentConfig = "agent_config"
	IDProxy       = "proxy"
	IDKeychain    = "keychain"
	ModelIDPrefix = "model:"
)

// Check is the result of one check. Condition and Message are set only on failures that match one of the
// service's documented error conditions; Cause says what exactly was found and Fix the one thing to do, as
// data: the printer says it in words (render.Text, for gw doctor's reader and where the base URL and the key
// came from).
type Check struct {
	ID        string
	Title     string
	Status    Status
	Condition string
	Message   string
	Cause     string
	Fix       remedy.Remedy
	Detail    string // what was checked or found, on any status
	// Note is what would change a detail that needs no fix (no config file yet: what creates it), said after it.
	Note remedy.Remedy
}

// Report is every check in a stable order. OK is false when at least one check failed.
type Report struct {
	OK     bool
	Checks []Check
}

// Get returns the check with the given id.
func (r Report) Get(id string) (Check, bool) {
	for _, c := range r.Checks {
		if c.ID == id {
			return c, true
		}
	}
	return Check{}, false
}

// AgentFiles are one agent's config files of one scope, in the order its Files gives them.
type AgentFiles struct {
	Agent agents.Agent // an agents.ConfigWriter
	Files []string
	// Installed is the agent's version installed on PATH, when it tells it cheaply ("" otherwise).
	Installed string
}

// Input is everything Run needs, resolved by the caller. Nothing here is read from the process environment
// by Run itself except through Getenv, so tests drive Run without the CLI.
type Input struct {
	// BaseURL is the effective base URL exactly as given (not trimmed or corrected) and BaseURLSource where it
	// came from.
	BaseURL       string
	BaseURLSource config.Source
	// CanonicalURL is the service's address built into the binary; "" when the build has none.
	CanonicalURL string

	// ConfigPath is the config file; ConfigErr the error loading it (nil when it loaded or does not exist).
	// ConfigBaseURL is the base URL saved in it, used to notice http where https was configured.
	ConfigPath    string
	ConfigErr     error
	ConfigBaseURL string

	// Key is the resolved API key and where it came from, or KeyErr the error resolving it (wrapping
	// keychain.ErrNotFound when there is none). KeychainBackend names the OS keychain gw would use.
	Key             keychain.Resolved
	KeyErr          error
	KeychainBackend string
	KeychainInstall string // the command that installs the OS keychain this machine lacks (keychain.SetupCommand), "" when none

	// Models are the ids given with --model.
	Models []string
	// Agents are the coding agents' config files to read, global and project; missing files are fine (an
	// agent whose files are all missing is left out of the report, and when none is found the check says
	// which agents it looked for).
	Agents []AgentFiles

	// NoProbe skips the one-token chat requests that test the balance and each listed model id (listing
	// models costs nothing but says little about the balance; each probe may cost a token).
	NoProbe bool

	// ProxyAddr is where `gw serve` listens ("127.0.0.1:8787"); LocalToken the token it accepts.
	ProxyAddr  string
	LocalToken string
	// RunningProxyAddr is where a gw serve of this install said it listens (proxy.ReadState), "" when
	// none did: one started with --port answers there, not on ProxyAddr.
	RunningProxyAddr string
	// StartServeLine is the line that starts gw serve so that it outlives the shell, where the platform
	// cannot start it at login (no service manager for this user here); "" where gw service install can.
	StartServeLine string

	// Version goes into the User-Agent of the requests.
	Version string

	// Getenv reads HTTPS_PROXY, HTTP_PROXY and NO_PROXY (nil: none set).
	Getenv func(string) string

	// Network lets tests point DNS and dialing at loopback servers; zero value: the system's.
	Network Network

	// Timeout bounds the whole run (default 15 s); StepTimeout each network step (default 5 s).
	Timeout     time.Duration
	StepTimeout time.Duration

	// OnCheck, if set, is called as each check finishes (serialised), e.g. to update a spinner.
	OnCheck func(Check)
}

// Network is how doctor reaches the service. Every field is optional.
type Network struct {
	// Resolver answers the dns check and resolves names for every connection.
	Resolver *net.Resolver
	// Dial opens TCP connections (for the tcp, tls and HTTP checks).
	Dial func(ctx context.Context, network, addr string) (net.Conn, error)
	// RootCAs replaces the system trust store (tests serving their own certificate).
	RootCAs *x509.CertPool
	// HTTPClient replaces the client built from the above (api.NewTransport with Dial and RootCAs).
	HTTPClient *http.Client
}

// DefaultTimeout bounds the whole run: the command answers within it even when the network hangs.
const DefaultTimeout = 15 * time.Second

// DefaultStepTimeout bounds each network step.
const DefaultStepTimeout = 5 * time.Second
