// Package remedy is what to do about a failure, as data: an action and the values it needs (a new key, top up
// the balance, set the base URL to X, use the id Y, start gw serve, install a keychain with this command…).
// Library packages (api, config, keychain, doctor) return remedies and hold no sentences of the command line;
// package remedy/render is the one place a remedy becomes words, for where the reader is (a command, gw doctor's
// report, gw serve's answer to an agent) and where the base URL and the key came from (Source, a value the
// packages that know the stores make: keychain.Source.Fix, config.Source.Fix).
//
// A failure knows what to do as data. Say carries a plain instruction that names no gw command (edit this
// file). The reader's context decides the words: SetBaseURL(X) is "run: export GW_BASE_URL=X", "run again with
// --base-url X" or "run: gw auth login --base-url X" for where the base URL came from; NewKey says to set or
// unset GW_API_KEY when the key came from it; Login and RepairKeychain know a key kept in the file the user
// chose. Commands print a remedy through cmdutil.ErrorWithFix (root.Run does, for every failure); gw auth
// status and gw doctor call render.Text for their reports; the protocol translators say an api.Error's fix to
// an agent's user ("send the request again", not "run the command again").
//
// Neither this package nor render imports a store (keychain, config) or a command: TestRenderKnowsNoStore.
package remedy

// Action is what the user does. The names are stable (a machine-readable answer may carry them).
type Action string

// The actions. Value and Also are the values an action needs, as its comment says; "" when not known.
const (
	// The API key.
	NewKey       Action = "new_key"       // the service refused the key as wrong: a new one from the dashboard
	CheckBalance Action = "check_balance" // refused without saying why: the balance first, then a new key
	TopUp        Action = "top_up"        // the balance is exhausted; the key is fine
	Login        Action = "login"         // there is no key: store one (or set GW_API_KEY)
	StoreKey     Action = "store_key"     // the key store has no key: store one there
	FixEnvKey    Action = "fix_env_key"   // GW_API_KEY is set but not a usable key
	// CheckPaste: a key pasted at gw auth login was refused; a paste error first, then Then.
	CheckPaste Action = "check_paste"

	// Where the key is kept.
	RepairKeychain   Action = "repair_keychain"   // the OS keychain failed; Value: the command that installs one ("" when one is installed)
	RetryKeychain    Action = "retry_keychain"    // the OS keychain failed while a key was removed: unlock it, run the command again
	FixCredentials   Action = "fix_credentials"   // the insecure credentials file is damaged; Value: its path
	ProtectKeyFile   Action = "protect_key_file"  // the credentials file is readable by others; Value: its path
	FixConfigFile    Action = "fix_config_file"   // gw's config file does not parse; Value: its path
	CheckPermissions Action = "check_permissions" // a file cannot be read; Value: its path
	// SaveConfig: gw's config file does not exist yet, which is fine: nothing is saved, and logging in creates it.
	SaveConfig Action = "save_config"

	// The base URL. Value: the base URL to use ("" when only the dashboard knows it).
	SetBaseURL        Action = "set_base_url"
	UseDefaultBaseURL Action = "use_default_base_url" // go back to the service's published address (Value)
	CheckHostName     Action = "check_host_name"      // no such host: a typo, else SetBaseURL
	CheckScheme       Action = "check_scheme"         // no TLS on that port: the scheme and port, else SetBaseURL
	CheckHostPort     Action = "check_host_port"      // nothing listens there: the host and port, else SetBaseURL
	CheckRedirect     Action = "check_redirect"       // the base URL redirected: check it, else SetBaseURL
	CheckCertHost     Action = "check_cert_host"      // the certificate names another host
	CheckTLSPath      Action = "check_tls_path"       // the TLS handshake was refused

	// The network.
	CheckNetwork  Action = "check_network"  // no network, or no DNS server
	RetryNetwork  Action = "retry_network"  // an answer did not come in time
	RetryCut      Action = "retry_cut"      // the connection was cut before the answer
	RetryStream   Action = "retry_stream"   // the service's stream broke off or failed mid-answer
	NetworkHangs  Action = "network_hangs"  // a check of gw doctor did not finish in time
	TrustRoot     Action = "trust_root"     // a TLS-inspecting network; Value: the certificate's issuer ("" unknown)
	CheckClock    Action = "check_clock"    // the certificate is not valid now
	NetworkPortal Action = "network_portal" // the service's own address redirected: a portal or proxy in between

	// An HTTP proxy in between (HTTPS_PROXY).
	ProxyCredentials  Action = "proxy_credentials"   // the proxy asks for credentials
	AllowThroughProxy Action = "allow_through_proxy" // the proxy refused the service's host; Value: the host
	FixProxySetting   Action = "fix_proxy_setting"   // the proxy's host does not resolve
	StartProxy        Action = "start_proxy"         // nothing listens at the proxy's address
	CheckProxyEnv     Action = "check_proxy_env"     // the proxy could not connect

	// The service's answer.
	Wait           Action = "wait"            // rate limited; Value: how long ("" when the service did not say)
	RetryLater     Action = "retry_later"     // the service failed (5xx)
	CorrectRequest Action = "correct_request" // the service refused the request for a reason of its own
	RunAgain       Action = "run_again"       // cancelled before the answer
	RunDoctor      Action = "run_doctor"      // nothing more precise is known

	// Model ids. In: the agent config that names the id, when it came from one.
	UseID             Action = "use_id"             // misspelled; Value: the exact id
	TrimID            Action = "trim_id"            // pasted with whitespace; Value: the id without it
	ListModels        Action = "list_models"        // no id is close: see the list
	SetModel          Action = "set_model"          // the request names no model: set one of the listed ids
	OtherModel        Action = "other_model"        // not in the plan; Value: a close id the account has (""), Also: the id beyond the plan, when it is not the one asked for
	CheckSubscription Action = "check_subscription" // the account has no models
	// SetClaudeModels: Claude Code asked for one of its own ids (claude-…), which gw never maps behind the
	// user's back: its model settings are to name the service's ids.
	SetClaudeModels Action = "set_claude_models"

	// gw serve.
	StartServe   Action = "start_serve"   // nothing answers where an agent sends its requests
	RestartServe Action = "restart_serve" // it runs with another local token
	FreePort     Action = "free_port"     // another program holds the port; Value: the address
	// MovePort: another program holds the port an agent's credential command (gw auth token --serve) would
	// start gw serve on, which the agents' configs name; Value: the address.
	MovePort Action = "move_port"
	// ListenHere: gw serve --listen names an address that is not this machine's.
	ListenHere Action = "listen_here"
	// ServeOnConfiguredPort: gw serve runs on another port than the configured one the agents use.
	// Value: the configured port, Also: the port it runs on.
	ServeOnConfiguredPort Action = "serve_on_configured_port"
	// UseLocalToken: a client of gw serve sends its local token as its key, not the API key: where to find it.
	UseLocalToken Action = "use_local_token"
	// InstallService: have the platform start gw serve at login and restart it when it fails (gw service
	// install), said after StartServe when nothing answers.
	InstallService Action = "install_service"
	// StartServeDetached: nothing answers, and the platform cannot start gw serve at login here; Value: the
	// line that starts gw serve so that it outlives the shell.
	StartServeDetached Action = "start_serve_detached"

	// The coding agent's config. The agent is the remedy's Agent (gw init agent --agent NAME); a zero Agent
	// is no agent in particular, said as plain gw init agent.
	SetUpAgent       Action = "set_up_agent"        // no agent config yet: configure Agent
	InitAgent        Action = "init_agent"          // no provider for the service in Agent's config
	InitAgentBaseURL Action = "init_agent_base_url" // the address gw's entry in Agent's config sends requests to is wrong
	// InitAgentProviderURL: the baseURL of a provider in Agent's config (an agent that declares providers of
	// its own) is wrong.
	InitAgentProviderURL Action = "init_agent_provider_url"
	InitAgentProxy       Action = "init_agent_proxy"  // the key is written in Agent's config
	InitAgentModels      Action = "init_agent_models" // "model" names no declared model; Value: ids (comma-separated, "" none), Also: the default
	FixAgentFile         Action = "fix_agent_file"    // Agent's config file does not parse; Value: its path
	// InitAgentFor: configure Agent with gw init agent --agent; a zero Agent when no agent in particular
	// (agents are configured, none reaches the service): the one the user uses.
	InitAgentFor Action = "init_agent_for"
	// InitAgentToken: Agent's config holds a local token gw serve no longer accepts.
	InitAgentToken Action = "init_agent_token"
	// InitAgentGlobal: Agent has no project config gw writes: its global one, without --project. Then, when
	// given, are the alternatives (gw run: RunAgent).
	InitAgentGlobal Action = "init_agent_global"
	// InitAgentDirect: gw run points Agent at gw serve; the service itself is gw init agent --mode direct.
	InitAgentDirect Action = "init_agent_direct"
	// RunAgent: gw writes no config for Agent; gw run starts it pointed at gw.
	RunAgent Action = "run_agent"
	// AgentVersion: the installed Agent is another version than the one gw writes its config for; if it
	// ignores gw's entry, configure it again or install that version. Value: the package@version to install.
	AgentVersion Action = "agent_version"

	// Say is an instruction in plain words for a case of its own (edit this file): it names no gw command and
	// no environment variable, and reads the same wherever it is shown. Value: the words.
	Say Action = "say"
)

// Remedy is one thing to do.
type Remedy struct {
	Do    Action
	Value string // the value the action needs
	Also  string // a second value, for the actions that take one
	// In is the agent config file the change goes into (a model id named there), "" when none.
	In string
	// Agent is the coding agent whose config the change is about (the actions on an agent's config); zero
	// when none in particular.
	Agent Agent
	// Then are further steps, said after this one (for CheckPaste: what to do when the key was pasted right).
	Then []Remedy
}

// Agent is a coding agent as a fix names it: its gw init agent --agent name ("opencode") and the name its
// users know it by ("OpenCode"). config/agents' Agent.Remedy makes it; the renderer holds no agent's name.
type Agent struct {
	Name    string
	Display string
}

// IsZero reports whether r says nothing to do.
func (r Remedy) IsZero() bool { return r.Do == "" && len(r.Then) == 0 }

// Steps is one remedy of several steps, in order; zero ones are left out.
func Steps(rs ...Remedy) Remedy {
	var out Remedy
	for _, r := range rs {
		switch {
		case r.IsZero():
		case out.IsZero():
			out = r
		default:
			out.Then = append(out.Then, r)
		}
	}
	return out
}

// Carrier is an error that knows its remedy.
type Carrier interface {
	error
	Remedy() Remedy
}

// Of is the remedy of the first error in err's chain (depth first, as errors.As looks) that carries one.
func Of(err error) (Remedy, bool) {
	if err == nil {
		return Remedy{}, false
	}
	if c, ok := err.(Carrier); ok {
		if r := c.Remedy(); !r.IsZero() {
			return r, true
		}
	}
	switch u := err.(type) {
	case interface{ Unwrap() error }:
		return Of(u.Unwrap())
	case interface{ Unwrap() []error }:
		for _, e := range u.Unwrap() {
			if r, ok := Of(e); ok {
				return r, true
			}
		}
	}
	return Remedy{}, false
}

// With is err with r as its remedy.
func With(err error, r Remedy) error {
	if err == nil {
		return nil
	}
	return &withRemedy{err: err, fix: r}
}

type withRemedy struct {
	err error
	fix Remedy
}

func (e *withRemedy) Error() string  { return e.err.Error() }
func (e *withRemedy) Unwrap() error  { return e.err }
func (e *withRemedy) Remedy() Remedy { return e.fix }
