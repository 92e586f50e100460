package root

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/modelgateway/gw/cmd/cmdutil"
	"github.com/modelgateway/gw/internal/autostart"
	"github.com/modelgateway/gw/keychain"
	"github.com/modelgateway/gw/standin"
)

var updateScripts = flag.Bool("update", false, "rewrite the expected output in testdata/script from the actual output")

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){"gw": gwTestMain, "gw-squatter": squatterMain})
}

// gwTestMain is gw as the scripts run it: the real command tree with two substitutions. The OS keychain is
// replaced by a fake kept in a file under the script's work dir ($GW_TEST_KEYRING); the real keychain is
// exercised by TestRealKeychain_LoginStoresKeyInSecretService instead. And what keeps gw serve running
// (gw's login service) is asked of systemd as on Linux, whatever the platform the tests run on: systemctl
// on the script's PATH and XDG_RUNTIME_DIR, which a script sets only to stand in a service manager, so
// that the goldens of doctor, statusline and gw init agent are the same on Linux, macOS and Windows.
// (launchd and the Task Scheduler are tested in internal/autostart and cmd/service.)
func gwTestMain() {
	f := cmdutil.NewFactory("test", os.Getenv("GW_TEST_DEFAULT_BASE_URL"))
	f.LoginService = func(ctx context.Context) cmdutil.LoginService { return f.LoginServiceOn(ctx, autostart.Linux) }
	// GW_TEST_KEYRING=os keeps the real OS keychain (scripts that run gw inside scripts/with-keyring.sh).
	if path := os.Getenv("GW_TEST_KEYRING"); path != "os" {
		f.Keyring = func() keychain.Store { return fakeKeyring{path: path} }
	}
	os.Exit(int(Run(context.Background(), f, os.Args[1:])))
}

// TestScripts_FakeKeychain runs the scripts of every command with the OS keychain replaced by a file fake, so
// that scripts can run in parallel and break the keychain on purpose.
func TestScripts_FakeKeychain(t *testing.T) {
	testscript.Run(t, scriptParams("testdata/script"))
}

// TestScripts_RealKeychain runs the scripts that use the real OS keychain (gnome-keyring under its own
// D-Bus session, started by scripts/with-keyring.sh inside the script).
func TestScripts_RealKeychain(t *testing.T) {
	testscript.Run(t, scriptParams("testdata/script-realkeychain"))
}

func scriptParams(dir string) testscript.Params {
	return testscript.Params{
		Dir:                 dir,
		UpdateScripts:       *updateScripts,
		RequireExplicitExec: true,
		Condition:           scriptCondition,
		Setup: func(e *testscript.Env) error {
			repo, err := filepath.Abs("../..")
			if err != nil {
				return err
			}
			e.Setenv("REPO", repo)
			e.Setenv("HOME", filepath.Join(e.WorkDir, "home"))
			e.Setenv("XDG_CONFIG_HOME", filepath.Join(e.WorkDir, "home", ".config"))
			e.Setenv("XDG_STATE_HOME", filepath.Join(e.WorkDir, "home", ".local", "state"))
			e.Setenv("GW_TEST_KEYRING", filepath.Join(e.WorkDir, "fake-keyring.json"))
			e.Setenv("NO_COLOR", "1")
			e.Setenv("FULL_KEY", standin.DemoKeyFull)
			e.Setenv("BROKE_KEY", standin.DemoKeyNoBalance)
			e.Setenv("PARTIAL_KEY", standin.DemoKeyPartial)
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"fakegw":         cmdFakeGW,
			"nofilecontains": cmdNoFileContains,
			"keyring":        cmdKeyring,
			"exits":          cmdExits,
			"waitserve":      cmdWaitServe,
			"httpreq":        cmdHTTPReq,
			"cpenv":          cmdCpEnv,
			"hostile":        cmdHostile,
			"scrub":          cmdScrub,
			"json":           cmdJSON,
			"nested":         cmdNested,
			"agentpid":       cmdAgentPID,
			"squat":          cmdSquat,
			"unescape":       cmdUnescape,
			"gwpath":         cmdGWPath,
			"freeport":       cmdFreePort,
			"unitcmd":        cmdUnitCmd,
			"busenv":         cmdBusEnv,
			"ondemand":       cmdOnDemand,
		},
	}
}

// scriptCondition answers [realkeychain]: whether a real Secret Service can be started here. When the
// test command demands the real parts (GW_REQUIRE_REAL_KEYCHAIN=1), a missing tool fails the script
// instead of skipping it.
func scriptCondition(cond string) (bool, error) {
	if cond == "root" { // the script may act as other users
		return os.Getuid() == 0, nil
	}
	if cond != "realkeychain" {
		return false, fmt.Errorf("unknown condition %q", cond)
	}
	for _, tool := range []string{"dbus-daemon", "gnome-keyring-daemon", "secret-tool"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("GW_REQUIRE_REAL_KEYCHAIN") == "1" {
				return false, fmt.Errorf("%s not found, and GW_REQUIRE_REAL_KEYCHAIN=1 (install: apt-get install -y dbus gnome-keyring libsecret-tools)", tool)
			}
			return false, nil
		}
	}
	return true, nil
}

// cmdFakeGW starts the stand-in of the service for the rest of the script and points GW_BASE_URL at it.
//
//	fakegw [-dialect D] [-balance-status N] [-model-status N] [-fault F] [-tls]
//	       [-hide-balance-cause] [-models-ignore-balance] [-accounts FILE]
//
// The flags are standin.Options (see its package doc). It also sets $FAKEGW (the server's root URL, without
// /v1), $FAKEGW_HOSTPORT and $FAKEGW_PORT.
func cmdFakeGW(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("unsupported: ! fakegw")
	}
	fl := flag.NewFlagSet("fakegw", flag.ContinueOnError)
	dialect := fl.String("dialect", "", "error body dialect")
	balance := fl.Int("balance-status", 0, "status for an exhausted balance")
	model := fl.Int("model-status", 0, "status for an unknown model")
	fault := fl.String("fault", "", "fault mode")
	useTLS := fl.Bool("tls", false, "serve TLS with a self-signed certificate")
	hide := fl.Bool("hide-balance-cause", false, "answer an exhausted balance exactly like a wrong key")
	ignore := fl.Bool("models-ignore-balance", false, "list models even when the balance is exhausted")
	accounts := fl.String("accounts", "", "JSON file of accounts (default: the demo accounts)")
	if err := fl.Parse(args); err != nil {
		ts.Fatalf("fakegw: %v", err)
	}
	opts := standin.Options{
		Accounts:            standin.DefaultAccounts(),
		Dialect:             *dialect,
		BalanceStatus:       *balance,
		ModelStatus:         *model,
		HideBalanceCause:    *hide,
		ModelsIgnoreBalance: *ignore,
	}
	if *accounts != "" {
		accts, err := standin.ParseAccounts([]byte(ts.ReadFile(*accounts)))
		if err != nil {
			ts.Fatalf("fakegw: %s: %v", *accounts, err)
		}
		opts.Accounts = accts
	}
	if *fault != "" {
		fa, err := standin.ParseFault(*fault)
		if err != nil {
			ts.Fatalf("fakegw: %v", err)
		}
		opts.Fault = fa
	}
	h := standin.New(opts)
	var srv *httptest.Server
	if *useTLS {
		srv = httptest.NewTLSServer(h)
	} else {
		srv = httptest.NewServer(h)
	}
	ts.Defer(srv.Close)
	ts.Setenv("GW_BASE_URL", srv.URL+"/v1")
	ts.Setenv("FAKEGW", srv.URL)
	hostport := srv.Listener.Addr().String()
	ts.Setenv("FAKEGW_HOSTPORT", hostport)
	_, port, _ := net.SplitHostPort(hostport)
	ts.Setenv("FAKEGW_PORT", port)
}

// cmdExits runs a command like exec (its output is then checked with stdout/stderr) and fails unless it
// exits with the given status: the exit codes are part of gw's contract.
//
//	exits N CMD [ARGS...]
func cmdExits(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exits N CMD [ARGS...]")
	}
	want, err := strconv.Atoi(args[0])
	ts.Check(err)
	code := 0
	if err := ts.Exec(args[1], args[2:]...); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("%s: %v", args[1], err)
		}
		code = ee.ExitCode()
	}
	if code != want {
		ts.Fatalf("%s exited with %d, want %d", strings.Join(args[1:], " "), code, want)
	}
}

// cmdNoFileContains fails when any file below the given directories contains the string.
//
//	nofilecontains STRING DIR...
func cmdNoFileContains(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: nofilecontains STRING DIR...")
	}
	needle := []byte(args[0])
	for _, dir := range args[1:] {
		root := ts.MkAbs(dir)
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			if err != nil || d.IsDir() {
				return err
			}
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			if strings.Contains(string(b), string(needle)) {
				ts.Fatalf("%s contains the key", path)
			}
			return nil
		})
		ts.Check(err)
	}
}

// cmdKeyring inspects or breaks the fake keychain.
//
//	keyring get ACCOUNT      prints the stored key (to stdout, for cmp/stdout)
//	keyring break            makes every later call fail, as a missing Secret Service does
func cmdKeyring(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) == 0 {
		ts.Fatalf("usage: keyring get ACCOUNT | keyring break")
	}
	k := fakeKeyring{path: ts.Getenv("GW_TEST_KEYRING")}
	switch args[0] {
	case "get":
		v, err := k.Get(args[1])
		if neg {
			if err == nil {
				ts.Fatalf("keyring has a key for %s", args[1])
			}
			return
		}
		ts.Check(err)
		fmt.Fprintln(ts.Stdout(), v)
	case "break":
		ts.Check(os.WriteFile(k.path, []byte("broken"), 0o600))
	default:
		ts.Fatalf("keyring: unknown subcommand %q", args[0])
	}
}

// fakeKeyring is the test binary's stand-in for the OS keychain: a JSON file outside the config dirs.
// The content "broken" makes every call fail like an unreachable Secret Service.
type fakeKeyring struct{ path string }

func (k fakeKeyring) load() (map[string]string, error) {
	b, err := os.ReadFile(k.path)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]string{}, nil
	}
	if err != nil {
		return nil, err
	}
	if string(b) == "broken" {
		return nil, errors.New("the name org.freedesktop.secrets was not provided by any .service files")
	}
	m := map[string]string{}
	return m, json.Unmarshal(b, &m)
}

func (k fakeKeyring) Get(account string) (string, error) {
	m, err := k.load()
	if err != nil {
		return "", err
	}
	v, ok := m[account]
	if !ok {
		return "", keychain.ErrNotFound
	}
	return v, nil
}

func (k fakeKeyring) Set(account, key string) error {
	m, err := k.load()
	if err != nil {
		return err
	}
	m[account] = key
	b, _ := json.Marshal(m)
	return os.WriteFile(k.path, b, 0o600)
}

func (k fakeKeyring) Delete(account string) error {
	m, err := k.load()
	if err != nil {
		return err
	}
	if _, ok := m[account]; !ok {
		return keychain.ErrNotFound
	}
	delete(m, account)
	b, _ := json.Marshal(m)
	return os.WriteFile(k.path, b, 0o600)
}

func (k fakeKeyring) Backend() string { return "fake keychain (tests)" }

// cmdWaitServe waits until a gw serve started in the background (its stdout sent to FILE) prints the address
// it listens on, and exports it: $SERVE_URL (http://HOST:PORT, without /v1), $SERVE_HOSTPORT, $SERVE_PORT;
// given ERRFILE (its stderr), it also waits for the banner gw serve writes there after the address.
//
//	waitserve FILE [ERRFILE]
func cmdWaitServe(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 || len(args) > 2 {
		ts.Fatalf("usage: waitserve FILE [ERRFILE]")
	}
	re := regexp.MustCompile(`listening on (http://(\S+:(\d+)))/v1`)
	path := ts.MkAbs(args[0])
	deadline := time.Now().Add(10 * time.Second)
	for {
		b, _ := os.ReadFile(path)
		if m := re.FindSubmatch(b); m != nil {
			ts.Setenv("SERVE_URL", string(m[1]))
			ts.Setenv("SERVE_HOSTPORT", string(m[2]))
			ts.Setenv("SERVE_PORT", string(m[3]))
			break
		}
		if time.Now().After(deadline) {
			ts.Fatalf("gw serve printed no address in %s within 10s; it has: %q", args[0], b)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if len(args) == 1 {
		return
	}
	// gw serve writes its banner to standard error after the address: the
	// script's checks of ERRFILE wait for it.
	errPath := ts.MkAbs(args[1])
	for {
		b, _ := os.ReadFile(errPath)
		if bytes.Contains(b, []byte("Ctrl-C stops.")) {
			return
		}
		if time.Now().After(deadline) {
			ts.Fatalf("gw serve printed no banner in %s within 10s; it has: %q", args[1], b)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// cmdHTTPReq sends one HTTP request, as a coding agent or a web page would, and prints the status line, the
// response headers (sorted, without Date) and the body, for stdout checks.
//
//	httpreq [-H 'Name: value']... [-d BODY] METHOD URL
//
// A Host header given with -H replaces the one taken from the URL.
func cmdHTTPReq(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("unsupported: ! httpreq")
	}
	var headers []string
	var body string
	for len(args) > 0 && strings.HasPrefix(args[0], "-") {
		if len(args) < 2 {
			ts.Fatalf("httpreq: %s needs a value", args[0])
		}
		switch args[0] {
		case "-H":
			headers = append(headers, args[1])
		case "-d":
			body = args[1]
		default:
			ts.Fatalf("httpreq: unknown flag %s", args[0])
		}
		args = args[2:]
	}
	if len(args) != 2 {
		ts.Fatalf("usage: httpreq [-H 'Name: value']... [-d BODY] METHOD URL")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, args[0], args[1], strings.NewReader(body))
	ts.Check(err)
	for _, h := range headers {
		name, value, ok := strings.Cut(h, ":")
		if !ok {
			ts.Fatalf("httpreq: header %q is not Name: value", h)
		}
		value = strings.TrimSpace(value)
		if strings.EqualFold(name, "Host") {
			req.Host = value
			continue
		}
		req.Header.Add(name, value)
	}
	tr := &http.Transport{Proxy: nil, DisableKeepAlives: true}
	res, err := (&http.Client{Transport: tr}).Do(req)
	ts.Check(err)
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	ts.Check(err)
	var out strings.Builder
	fmt.Fprintf(&out, "HTTP %d\n", res.StatusCode)
	names := slices.Sorted(maps.Keys(res.Header))
	for _, n := range names {
		if n == "Date" {
			continue
		}
		for _, v := range res.Header[n] {
			fmt.Fprintf(&out, "%s: %s\n", n, v)
		}
	}
	fmt.Fprintf(&out, "\n%s", b)
	fmt.Fprint(ts.Stdout(), out.String())
}

// cmdCpEnv copies a file, replacing $VAR and ${VAR} with the script's environment (as cmpenv reads it), for
// config files that name a port or URL known only while the script runs.
//
//	cpenv SRC DST
func cmdCpEnv(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: cpenv SRC DST")
	}
	data := os.Expand(ts.ReadFile(args[0]), ts.Getenv)
	dst := ts.MkAbs(args[1])
	ts.Check(os.MkdirAll(filepath.Dir(dst), 0o700))
	ts.Check(os.WriteFile(dst, []byte(data), 0o600))
}
