// Package render is the one place a remedy becomes words. It is told where the reader is (a command's "fix:"
// line, gw doctor's report, gw serve's answer to an agent) and where the base URL and the key came from, as
// values (remedy.Source): GW_BASE_URL and --base-url override the config file that gw auth login writes, and
// GW_API_KEY overrides the stored key, so a fix for those says to change them, not to log in again. It never
// reads a store itself: it imports neither keychain nor config (TestRenderKnowsNoStore).
package render

import (
	"cmp"
	"strings"

	"github.com/modelgateway/gw/internal/remedy"
)

// Where is who reads the fix.
type Where int

const (
	Command Where = iota // a command's "fix:" line
	Doctor               // gw doctor's report: the reader is running gw doctor already
	Serve                // gw serve's answer, which an agent shows its user
)

// Context is what the words depend on besides the remedy.
type Context struct {
	Where Where
	// BaseURL is where the base URL came from (zero when not known: said as for the config file).
	BaseURL remedy.Source
	// Key is where the key came from, or where it would be kept (remedy.FromFile when the user chose
	// --insecure-storage); zero when not known.
	Key remedy.Source
}

// dashboardURL stands for a base URL gw does not know.
const dashboardURL = "<the service's address from the dashboard, ending in /v1>"

// Text is the remedy in words; "" for a zero remedy.
func Text(r remedy.Remedy, c Context) string {
	if r.IsZero() {
		return ""
	}
	s := c.action(r)
	if r.In != "" {
		s += " (in " + r.In + "), or run: gw init agent to rewrite the provider's models to your subscription's exact ids"
	}
	if len(r.Then) == 0 {
		return s
	}
	then := make([]string, 0, len(r.Then))
	for _, t := range r.Then {
		if t := Text(t, c); t != "" {
			then = append(then, t)
		}
	}
	if s == "" {
		return strings.Join(then, "; ")
	}
	if r.Do == remedy.CheckPaste {
		return s + "; if they match, " + strings.Join(then, "; ")
	}
	if r.Do == remedy.InitAgentGlobal {
		return s + ", or " + strings.Join(then, "; ")
	}
	return strings.Join(append([]string{s}, then...), "; ")
}

func (c Context) action(r remedy.Remedy) string {
	v := r.Value
	switch r.Do {
	case "":
		return ""

	// The API key.
	case remedy.NewKey:
		const balance = "if the key is right, check the balance: some services refuse an empty account the same way"
		if c.Key.Kind == remedy.FromEnv {
			return "create a new key on the dashboard and " + c.storeNewKey() + "; " + balance
		}
		return "create a new key on the dashboard and " + c.storeNewKey() + " (" + balance + ")"
	case remedy.CheckBalance:
		return "check the balance on the dashboard; if it is positive, create a new key and " + c.storeNewKey()
	case remedy.TopUp:
		return "top up the account's balance on the dashboard, then retry (the key itself is fine)"
	case remedy.Login:
		return "run: " + c.login() + " (or set " + remedy.EnvKey + ")"
	case remedy.StoreKey:
		return "run: " + c.login()
	case remedy.FixEnvKey:
		return "set " + remedy.EnvKey + " to the key exactly as the dashboard shows it, or unset it to use the stored key"
	case remedy.CheckPaste:
		return "check it for a paste error first: compare its start, end and length with the key on the dashboard, and paste it again"

	// Where the key is kept.
	case remedy.RepairKeychain:
		return c.repairKeychain(v)
	case remedy.RetryKeychain:
		return "start or unlock the OS keychain, then " + c.again()
	case remedy.FixCredentials:
		return "delete " + v + " and run: gw auth login --insecure-storage"
	case remedy.ProtectKeyFile:
		return "run: chmod 600 " + v + " (and consider the key leaked: create a new one)"
	case remedy.FixConfigFile:
		return "fix the file by hand, or move it away and run: gw auth login"
	case remedy.CheckPermissions:
		return "check the permissions of " + v
	case remedy.SaveConfig:
		return "nothing saved; gw auth login creates it"

	// The base URL.
	case remedy.SetBaseURL:
		return c.setBaseURL(v)
	case remedy.UseDefaultBaseURL:
		if c.BaseURL.Kind == remedy.FromFlag && c.BaseURL.Name != "" {
			return "run without " + c.BaseURL.Name + " to use " + v
		}
		return c.setBaseURL(v)
	case remedy.CheckHostName:
		return "check the host name in the base URL for typos; " + c.setBaseURL(v)
	case remedy.CheckScheme:
		return "check the scheme and port of the base URL (https:// for the hosted service); " + c.setBaseURL(v)
	case remedy.CheckHostPort:
		return "check the host and port of the base URL; " + c.setBaseURL(v)
	case remedy.CheckRedirect:
		return "check the base URL (gw never follows a redirect with the key); " + c.setBaseURL(v)
	case remedy.CheckCertHost:
		return "check the host name in the base URL; if it is right, a proxy or firewall is intercepting the connection"
	case remedy.CheckTLSPath:
		return "check the base URL; if it is right, a proxy or firewall is interfering with TLS" + c.doctorTail(" — run: gw doctor")

	// The network.
	case remedy.CheckNetwork:
		return "check the network connection (Wi-Fi, VPN, DNS)" + c.doctorTail(", then run: gw doctor")
	case remedy.RetryNetwork:
		return "check the network connection and retry" + c.doctorTail("; if it keeps failing, run: gw doctor")
	case remedy.RetryCut:
		return "retry; if it keeps happening, a firewall or proxy is cutting the connection" + c.doctorTail(" — run: gw doctor")
	case remedy.RetryStream:
		return "retry" + c.doctorTail("; if it keeps happening, run: gw doctor")
	case remedy.NetworkHangs:
		return "check the network connection (a VPN, firewall or proxy may be swallowing connections), then run gw doctor again"
	case remedy.TrustRoot:
		if v == "" {
			return "if your network inspects TLS, install its root certificate in the system trust store" + c.doctorTail(", then run: gw doctor")
		}
		return "if your network inspects TLS (issuer " + v + "), install its root certificate in the system trust store (on Linux, SSL_CERT_FILE may point at it)" +
			c.doctorTail(", then run: gw doctor")
	case remedy.CheckClock:
		return "check this machine's clock; if it is right, the service's certificate has expired — report it to the service"
	case remedy.NetworkPortal:
		return "something between this machine and the service (a proxy, firewall or captive portal) is redirecting its requests: " +
			"sign in to the network's portal if there is one, or check the proxy settings (HTTPS_PROXY), then retry; gw never follows a redirect with the key"

	// An HTTP proxy in between.
	case remedy.ProxyCredentials:
		return "set the proxy's credentials in HTTPS_PROXY (http://user:password@proxy:port)"
	case remedy.AllowThroughProxy:
		return "ask the proxy's administrator to allow " + v + ", or add it to NO_PROXY if it is reachable directly"
	case remedy.FixProxySetting:
		return "correct or unset HTTPS_PROXY (hosts listed in NO_PROXY are reached directly)"
	case remedy.StartProxy:
		return "start the proxy, or correct or unset HTTPS_PROXY (hosts listed in NO_PROXY are reached directly)"
	case remedy.CheckProxyEnv:
		return "check HTTPS_PROXY and NO_PROXY (or unset them if no proxy is needed)"

	// The service's answer.
	case remedy.Wait:
		if v == "" {
			return "wait a minute and retry; lower the number of parallel requests if it keeps happening"
		}
		return "wait " + v + " and retry"
	case remedy.RetryLater:
		return "retry in a moment" + c.doctorTail("; if it keeps failing, run: gw doctor")
	case remedy.CorrectRequest:
		return "correct the request as the service's message says" + c.doctorTail("; run: gw doctor to check the setup")
	case remedy.RunAgain:
		return c.again()
	case remedy.RunDoctor:
		if c.Where == Doctor {
			return "retry; if it keeps failing, check the network path to the service shown by the checks above"
		}
		return "run: gw doctor"

	// Model ids.
	case remedy.UseID:
		return "use the exact id: " + v
	case remedy.TrimID:
		return "use the exact id, without the whitespace: " + v
	case remedy.ListModels:
		return "run: gw models (and use an id exactly as listed there)"
	case remedy.SetModel:
		return "set the model id (run: gw models to list them)"
	case remedy.OtherModel:
		s := "pick one of the account's models (run: gw models) or upgrade the plan on the dashboard"
		if v != "" {
			s = "use a model the account has, such as " + v + " (run: gw models), or upgrade the plan on the dashboard"
		}
		if r.Also != "" {
			s += " to use " + r.Also
		}
		return s
	case remedy.CheckSubscription:
		return "check the account's subscription on the dashboard"
	case remedy.SetClaudeModels:
		return "set ANTHROPIC_MODEL, ANTHROPIC_DEFAULT_OPUS_MODEL, ANTHROPIC_DEFAULT_SONNET_MODEL and " +
			"ANTHROPIC_DEFAULT_HAIKU_MODEL to ids listed by gw models (e.g. vendor-a/model-a-sonnet-4.5)"

	// gw serve.
	case remedy.StartServe:
		return "run: gw serve (and keep it running while the agent works)"
	case remedy.RestartServe:
		return "restart gw serve so it uses this install's local token"
	case remedy.UseLocalToken:
		return "gw auth status shows the token, gw init agent --mode proxy writes it into the agent config"
	case remedy.StartServeDetached:
		return "start gw serve so that it keeps running after this shell: " + v + " (nothing here can start it at login)"
	case remedy.InstallService:
		return "to have gw serve start at login and restart when it fails, run: gw service install"
	case remedy.FreePort:
		return "stop the program on " + v + ", or run gw serve --port N on a free port and re-run gw init agent"
	case remedy.ListenHere:
		return "give --listen an IP address of this machine (127.0.0.1 for this machine only, 0.0.0.0 for every address)"
	case remedy.ServeOnConfiguredPort:
		return "restart gw serve without --port (it then listens on " + v + "), or point the agents at port " +
			r.Also + ": gw init agent --port " + r.Also

	// The coding agent's config.
	case remedy.SetUpAgent:
		return "to use the service from " + cmp.Or(r.Agent.Display, "a coding agent") + ", run: " + initAgent(r.Agent)
	case remedy.InitAgent:
		return "run: " + initAgent(r.Agent)
	case remedy.InitAgentBaseURL:
		return "run: " + initAgent(r.Agent) + " (it rewrites the address and keeps the rest of the file)"
	case remedy.InitAgentProviderURL:
		return "run: " + initAgent(r.Agent) + " (it rewrites the provider's baseURL and keeps the rest of the file)"
	case remedy.InitAgentProxy:
		return "run: " + initAgent(r.Agent) + " --mode proxy (the file then holds only gw serve's local token)"
	case remedy.InitAgentFor:
		if r.Agent.Name == "" {
			return "run: gw init agent --agent NAME for the agent you use"
		}
		return "run: " + initAgent(r.Agent)
	case remedy.InitAgentToken:
		return "run: " + initAgent(r.Agent) + " (it writes gw serve's current local token)"
	case remedy.InitAgentModels:
		if v == "" {
			return "run: " + initAgent(r.Agent) + " (it adds the models and sets the default)"
		}
		return "run: " + initAgent(r.Agent) + " --models " + v + " --default " + r.Also
	case remedy.InitAgentGlobal:
		return "run: " + initAgent(r.Agent) + " without --project"
	case remedy.InitAgentDirect:
		return "for the service itself, run: " + initAgent(r.Agent) + " --mode direct"
	case remedy.RunAgent:
		return "run: gw run " + cmp.Or(r.Agent.Name, "AGENT")
	case remedy.AgentVersion:
		s := "if " + cmp.Or(r.Agent.Display, "the agent") + " ignores gw's entry, run " + initAgent(r.Agent) + " again"
		if v != "" {
			s += ", or install " + v
		}
		return s
	case remedy.FixAgentFile:
		return "fix " + v + " by hand (" + cmp.Or(r.Agent.Display, "the agent") + " cannot read it either), then run: " + initAgent(r.Agent)

	case remedy.Say:
		return v
	}
	// An action this renderer does not know yet (a newer library): its name says more than nothing.
	return strings.ReplaceAll(string(r.Do), "_", " ")
}

// initAgent is gw init agent for a (plain gw init agent for no agent in particular).
func initAgent(a remedy.Agent) string {
	if a.Name == "" {
		return "gw init agent"
	}
	return "gw init agent --agent " + a.Name
}

// again is doing it once more, for where the reader is.
func (c Context) again() string {
	switch c.Where {
	case Doctor:
		return "run gw doctor again"
	case Serve:
		return "send the request again"
	}
	return "run the command again"
}

// doctorTail is the advice to run gw doctor, which the reader of its report is doing already.
func (c Context) doctorTail(tail string) string {
	if c.Where == Doctor {
		return ""
	}
	return tail
}

// login is the command that stores a key where the user keeps it.
func (c Context) login() string {
	if c.Key.Kind == remedy.FromFile {
		return "gw auth login --insecure-storage"
	}
	return "gw auth login"
}

// storeNewKey: GW_API_KEY overrides the stored key, so storing another changes nothing while it is set.
func (c Context) storeNewKey() string {
	if c.Key.Kind == remedy.FromEnv {
		v := cmp.Or(c.Key.Name, remedy.EnvKey)
		return "set " + v + " to it, or run: unset " + v + " (gw then uses the stored key)"
	}
	return "run: " + c.login()
}

// setBaseURL is how to use the base URL v, given where the current one came from: GW_BASE_URL and
// --base-url override the config file that gw auth login writes, so logging in again would change nothing.
func (c Context) setBaseURL(v string) string {
	if v == "" {
		v = dashboardURL
	}
	switch c.BaseURL.Kind {
	case remedy.FromEnv:
		if c.BaseURL.Name == "" {
			break // a source that does not name itself is said as the config file
		}
		return "run: export " + c.BaseURL.Name + "=" + v
	case remedy.FromFlag:
		if c.BaseURL.Name == "" {
			break
		}
		return "run again with " + c.BaseURL.Name + " " + v
	}
	return "run: gw auth login --base-url " + v
}

// repairKeychain: what makes the OS keychain work here (install is the command that installs one, "" when one
// is installed), then storing the key in it. Where the key is in the file the user chose, that is all; else the
// file is the way around a machine without a keychain.
func (c Context) repairKeychain(install string) string {
	first := "start or unlock the OS keychain (on Linux without a desktop, start a Secret Service: " +
		"gnome-keyring-daemon --unlock --components=secrets, in a D-Bus session), then run: gw auth login"
	if install != "" {
		first = "install a Secret Service, the Linux keychain (none is installed here): " + install + "; then run: gw auth login"
	}
	if c.Key.Kind == remedy.FromFile {
		if install == "" {
			return "once an OS keychain is available, run: gw auth login (it stores the key there)"
		}
		return first + " (it stores the key there)"
	}
	without := "on a machine without one"
	if install != "" {
		without = "where you cannot install one"
	}
	return first + "; " + without + ", run: gw auth login --insecure-storage (or set " + remedy.EnvKey + ")"
}
