package render

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strings"
	"testing"

	"github.com/modelgateway/gw/internal/remedy"
)

// actions lists every Action constant declared in package remedy, read from its source, so that an action
// added there without words here fails this test.
func actions(t *testing.T) []remedy.Action {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "../remedy.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []remedy.Action
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, s := range g.Specs {
			v := s.(*ast.ValueSpec)
			if id, ok := v.Type.(*ast.Ident); !ok || id.Name != "Action" {
				continue
			}
			for _, val := range v.Values {
				out = append(out, remedy.Action(strings.Trim(val.(*ast.BasicLit).Value, `"`)))
			}
		}
	}
	if len(out) < 40 {
		t.Fatalf("found %d actions in remedy.go; the parse is broken", len(out))
	}
	return out
}

// The sources as keychain and cmdutil give them (keychain.Source.Fix, cmdutil.BaseURLSource).
var (
	baseEnv   = remedy.Source{Kind: remedy.FromEnv, Name: "GW_BASE_URL"}
	baseFlag  = remedy.Source{Kind: remedy.FromFlag, Name: "--base-url"}
	baseStore = remedy.Source{Kind: remedy.FromStore}
	keyEnv    = remedy.Source{Kind: remedy.FromEnv, Name: "GW_API_KEY"}
	keyFile   = remedy.Source{Kind: remedy.FromFile}
	keyStore  = remedy.Source{Kind: remedy.FromStore}
)

var contexts = []Context{
	{},
	{Where: Command, BaseURL: baseEnv, Key: keyEnv},
	{Where: Command, BaseURL: baseFlag, Key: keyFile},
	{Where: Doctor, BaseURL: baseStore, Key: keyStore},
	{Where: Doctor, BaseURL: remedy.Source{Kind: remedy.FromFlag}}, // a source that does not name itself
	{Where: Serve},
}

// Every action has words of its own in every context: none falls through to its bare name, none reads
// "run: gw doctor" to someone reading gw doctor's report, and none says two things in brackets in a row.
func TestText_EveryAction(t *testing.T) {
	for _, a := range actions(t) {
		for _, c := range contexts {
			r := remedy.Remedy{Do: a, Value: "VALUE", Also: "ALSO"}
			got := Text(r, c)
			if got == "" || got == strings.ReplaceAll(string(a), "_", " ") {
				t.Errorf("%s in %+v: no words (%q)", a, c, got)
			}
			if c.Where == Doctor && strings.Contains(got, "run: gw doctor") {
				t.Errorf("%s in doctor's report: %q sends the reader to gw doctor", a, got)
			}
			if strings.Contains(got, ") (") {
				t.Errorf("%s in %+v: %q has two brackets in a row", a, c, got)
			}
		}
	}
}

func TestText_Zero(t *testing.T) {
	if got := Text(remedy.Remedy{}, Context{}); got != "" {
		t.Errorf("a zero remedy says %q", got)
	}
	if got := Text(remedy.Remedy{Do: "from_a_newer_library"}, Context{}); got != "from a newer library" {
		t.Errorf("an unknown action says %q", got)
	}
}

// GW_BASE_URL and --base-url override the config file gw auth login writes: setting the base URL says to
// change the one in use.
func TestText_BaseURLFollowsItsSource(t *testing.T) {
	const u = "https://gw.example/v1"
	for _, tc := range []struct {
		r    remedy.Remedy
		src  remedy.Source
		want string
	}{
		{remedy.Remedy{Do: remedy.SetBaseURL, Value: u}, baseEnv, "run: export GW_BASE_URL=" + u},
		{remedy.Remedy{Do: remedy.SetBaseURL, Value: u}, baseFlag, "run again with --base-url " + u},
		{remedy.Remedy{Do: remedy.SetBaseURL, Value: u}, baseStore, "run: gw auth login --base-url " + u},
		{remedy.Remedy{Do: remedy.SetBaseURL, Value: u}, baseStore, "run: gw auth login --base-url " + u},
		{remedy.Remedy{Do: remedy.SetBaseURL}, remedy.Source{}, "run: gw auth login --base-url <the service's address from the dashboard, ending in /v1>"},
		{remedy.Remedy{Do: remedy.UseDefaultBaseURL, Value: u}, baseEnv, "run: export GW_BASE_URL=" + u},
		{remedy.Remedy{Do: remedy.UseDefaultBaseURL, Value: u}, baseFlag, "run without --base-url to use " + u},
		{remedy.Remedy{Do: remedy.CheckHostPort}, baseEnv,
			"check the host and port of the base URL; run: export GW_BASE_URL=<the service's address from the dashboard, ending in /v1>"},
	} {
		if got := Text(tc.r, Context{BaseURL: tc.src}); got != tc.want {
			t.Errorf("%s from %+v:\n got %q\nwant %q", tc.r.Do, tc.src, got, tc.want)
		}
	}
}

// GW_API_KEY overrides the stored key: a new key goes there (or the variable goes), not into gw auth login;
// the note about the balance is said once, not in a second pair of brackets.
func TestText_KeyFollowsItsSource(t *testing.T) {
	wrong := remedy.Remedy{Do: remedy.NewKey}
	if got, want := Text(wrong, Context{Key: keyStore}),
		"create a new key on the dashboard and run: gw auth login (if the key is right, check the balance: some services refuse an empty account the same way)"; got != want {
		t.Errorf("keychain:\n got %q\nwant %q", got, want)
	}
	if got, want := Text(wrong, Context{Key: keyEnv}),
		"create a new key on the dashboard and set GW_API_KEY to it, or run: unset GW_API_KEY (gw then uses the stored key); if the key is right, check the balance: some services refuse an empty account the same way"; got != want {
		t.Errorf("GW_API_KEY:\n got %q\nwant %q", got, want)
	}
	if got := Text(wrong, Context{Key: keyFile}); !strings.Contains(got, "run: gw auth login --insecure-storage") {
		t.Errorf("file: %q does not store the new key where the user keeps it", got)
	}
	if got := Text(remedy.Remedy{Do: remedy.Login}, Context{Key: keyFile}); got != "run: gw auth login --insecure-storage (or set GW_API_KEY)" {
		t.Errorf("login into the chosen file: %q", got)
	}
}

// A failing keychain: what to install first where nothing provides one; where the key is already in the file
// the user chose, only how to move it to the keychain (not the file they already use).
func TestText_RepairKeychain(t *testing.T) {
	install := remedy.Remedy{Do: remedy.RepairKeychain, Value: "sudo apt install gnome-keyring"}
	for _, tc := range []struct {
		r    remedy.Remedy
		key  remedy.Source
		want string
	}{
		{remedy.Remedy{Do: remedy.RepairKeychain}, remedy.Source{},
			"start or unlock the OS keychain (on Linux without a desktop, start a Secret Service: gnome-keyring-daemon --unlock --components=secrets, in a D-Bus session), then run: gw auth login; on a machine without one, run: gw auth login --insecure-storage (or set GW_API_KEY)"},
		{install, remedy.Source{},
			"install a Secret Service, the Linux keychain (none is installed here): sudo apt install gnome-keyring; then run: gw auth login; where you cannot install one, run: gw auth login --insecure-storage (or set GW_API_KEY)"},
		{remedy.Remedy{Do: remedy.RepairKeychain}, keyFile,
			"once an OS keychain is available, run: gw auth login (it stores the key there)"},
		{install, keyFile,
			"install a Secret Service, the Linux keychain (none is installed here): sudo apt install gnome-keyring; then run: gw auth login (it stores the key there)"},
	} {
		if got := Text(tc.r, Context{Key: tc.key}); got != tc.want {
			t.Errorf("%q from %+v:\n got %q\nwant %q", tc.r.Value, tc.key, got, tc.want)
		}
	}
}

// The reader of gw doctor's report is running gw doctor: fixes end before "run: gw doctor".
func TestText_Doctor(t *testing.T) {
	for _, tc := range []struct {
		a             remedy.Action
		command, doct string
	}{
		{remedy.RetryLater, "retry in a moment; if it keeps failing, run: gw doctor", "retry in a moment"},
		{remedy.CheckNetwork, "check the network connection (Wi-Fi, VPN, DNS), then run: gw doctor", "check the network connection (Wi-Fi, VPN, DNS)"},
		{remedy.RunDoctor, "run: gw doctor", "retry; if it keeps failing, check the network path to the service shown by the checks above"},
		{remedy.CorrectRequest, "correct the request as the service's message says; run: gw doctor to check the setup", "correct the request as the service's message says"},
	} {
		r := remedy.Remedy{Do: tc.a}
		if got := Text(r, Context{Where: Command}); got != tc.command {
			t.Errorf("%s in a command: %q, want %q", tc.a, got, tc.command)
		}
		if got := Text(r, Context{Where: Doctor}); got != tc.doct {
			t.Errorf("%s in doctor: %q, want %q", tc.a, got, tc.doct)
		}
	}
}

func TestText_Steps(t *testing.T) {
	paste := remedy.Remedy{Do: remedy.CheckPaste, Then: []remedy.Remedy{{Do: remedy.NewKey}}}
	want := "check it for a paste error first: compare its start, end and length with the key on the dashboard, and paste it again; " +
		"if they match, create a new key on the dashboard and run: gw auth login (if the key is right, check the balance: some services refuse an empty account the same way)"
	if got := Text(paste, Context{}); got != want {
		t.Errorf("paste:\n got %q\nwant %q", got, want)
	}
	opencode := remedy.Agent{Name: "opencode", Display: "OpenCode"}
	steps := remedy.Steps(remedy.Remedy{Do: remedy.InitAgent, Agent: opencode}, remedy.Remedy{Do: remedy.Say, Value: "remove \"gw\" from disabled_providers"})
	if got := Text(steps, Context{}); got != `run: gw init agent --agent opencode; remove "gw" from disabled_providers` {
		t.Errorf("steps: %q", got)
	}
	in := remedy.Remedy{Do: remedy.UseID, Value: "vendor-a/model-a-sonnet-4.5", In: "/p/opencode.json"}
	if got := Text(in, Context{}); got != "use the exact id: vendor-a/model-a-sonnet-4.5 (in /p/opencode.json), or run: gw init agent to rewrite the provider's models to your subscription's exact ids" {
		t.Errorf("in an agent config: %q", got)
	}
}

// The actions on an agent's config name the agent they are given (remedy.Agent), and only that one: the
// renderer holds no agent's name. Without one they say plain gw init agent.
func TestText_AgentIsTheRemedys(t *testing.T) {
	some := remedy.Agent{Name: "some-agent", Display: "Some Agent"}
	for _, a := range []remedy.Action{remedy.SetUpAgent, remedy.InitAgent, remedy.InitAgentBaseURL, remedy.InitAgentProviderURL,
		remedy.InitAgentProxy, remedy.InitAgentModels, remedy.FixAgentFile, remedy.InitAgentFor, remedy.InitAgentToken,
		remedy.InitAgentGlobal, remedy.InitAgentDirect, remedy.AgentVersion} {
		got := Text(remedy.Remedy{Do: a, Value: "VALUE", Also: "ALSO", Agent: some}, Context{})
		if !strings.Contains(got, "gw init agent --agent some-agent") {
			t.Errorf("%s for %s: %q does not name it", a, some.Name, got)
		}
		if (a == remedy.SetUpAgent || a == remedy.FixAgentFile || a == remedy.AgentVersion) && !strings.Contains(got, "Some Agent") {
			t.Errorf("%s for %s: %q does not say its name", a, some.Name, got)
		}
		none := Text(remedy.Remedy{Do: a, Value: "VALUE", Also: "ALSO"}, Context{})
		if strings.Contains(none, "--agent ") && !strings.Contains(none, "--agent NAME") {
			t.Errorf("%s without an agent: %q names one", a, none)
		}
		if !strings.Contains(none, "gw init agent") {
			t.Errorf("%s without an agent: %q does not say gw init agent", a, none)
		}
	}
	if got := Text(remedy.Remedy{Do: remedy.RunAgent, Agent: some}, Context{}); got != "run: gw run some-agent" {
		t.Errorf("RunAgent: %q", got)
	}
	if got := Text(remedy.Remedy{Do: remedy.RunAgent}, Context{}); strings.Contains(got, "some") || !strings.Contains(got, "gw run ") {
		t.Errorf("RunAgent without an agent: %q", got)
	}
	got := Text(remedy.Remedy{Do: remedy.FixAgentFile, Value: "/p/opencode.jsonc", Agent: remedy.Agent{Name: "opencode", Display: "OpenCode"}}, Context{})
	if want := "fix /p/opencode.jsonc by hand (OpenCode cannot read it either), then run: gw init agent --agent opencode"; got != want {
		t.Errorf("FixAgentFile for OpenCode:\n got %q\nwant %q", got, want)
	}
}
