package login

import (
	"context"
	"errors"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/modelgateway/gw/cmd/cmdutil"
	"github.com/modelgateway/gw/cmd/cmdutil/cmdtest"
	"github.com/modelgateway/gw/config"
	"github.com/modelgateway/gw/keychain"
	"github.com/modelgateway/gw/standin"
)

func TestNewCmdLogin_Flags(t *testing.T) {
	tests := []struct {
		args    []string
		want    LoginOptions
		wantErr string
	}{
		{args: nil, want: LoginOptions{}},
		{args: []string{"--with-key"}, want: LoginOptions{WithKey: true}},
		{args: []string{"--base-url", "https://g.example/v1", "--insecure-storage"}, want: LoginOptions{BaseURL: "https://g.example/v1", InsecureStorage: true}},
		{args: []string{"extra"}, wantErr: "takes no arguments\nTo give the key without the prompt, pipe it: gw auth login --with-key < key.txt"},
		{args: []string{"--with-key", "extra"}, wantErr: "takes no arguments\n--with-key takes no value: it reads the key from standard input."},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			e := cmdtest.New(t)
			var got *LoginOptions
			cmd := NewCmdLogin(e.Factory, func(_ context.Context, o *LoginOptions) error { got = o; return nil })
			cmd.SetArgs(tt.args)
			cmd.SetOut(e.Out)
			cmd.SetErr(e.ErrOut)
			err := cmd.Execute()
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || cmdutil.ExitCodeFor(err) != cmdutil.ExitUsage {
					t.Fatalf("err = %v, want usage error %q", err, tt.wantErr)
				}
				if strings.Contains(err.Error(), "extra") {
					t.Errorf("the refused argument is echoed: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.BaseURL != tt.want.BaseURL || got.WithKey != tt.want.WithKey || got.InsecureStorage != tt.want.InsecureStorage {
				t.Errorf("options = %+v, want %+v", *got, tt.want)
			}
		})
	}
}

func TestLoginRun_StoresSanitisedKeyAndBaseURL(t *testing.T) {
	e := cmdtest.New(t)
	srv := e.StartService(t, standin.Options{})
	e.In.WriteString("  'Bearer " + standin.DemoKeyFull + "'\n")

	err := loginRun(context.Background(), withKey(options(e)))
	if err != nil {
		t.Fatal(err)
	}
	want := "✓ Key sk-…full accepted by " + srv.URL + "/v1 (8 models available)\n✓ Key stored in fake keychain (tests)\n"
	if e.Out.String() != want {
		t.Errorf("stdout:\n%s\nwant:\n%s", e.Out, want)
	}
	if e.ErrOut.String() != "" {
		t.Errorf("stderr: %q", e.ErrOut)
	}
	if k, _ := e.Keyring.Get(cmdutil.Profile); k != standin.DemoKeyFull {
		t.Errorf("keychain holds %q", k)
	}
	paths, _ := e.Factory.Paths()
	c, err := config.Load(paths.File())
	if err != nil || c.BaseURL != srv.URL+"/v1" || !strings.HasPrefix(c.LocalToken, "gw-local-") {
		t.Errorf("config = %+v, %v", c, err)
	}
	b, _ := os.ReadFile(paths.File())
	if strings.Contains(string(b), standin.DemoKeyFull) {
		t.Error("the config file contains the key")
	}
}

func TestLoginRun_RefusedKeyStoresNothing(t *testing.T) {
	e := cmdtest.New(t)
	e.StartService(t, standin.Options{})
	e.In.WriteString("sk-not-a-key-of-the-service\n")

	err := loginRun(context.Background(), withKey(options(e)))
	if err == nil || !strings.HasPrefix(cmdutil.ErrorWithFix(err), "nothing stored: API key invalid or unauthorized: ") || !strings.Contains(cmdutil.ErrorWithFix(err), "\nfix: ") {
		t.Fatalf("err = %v", err)
	}
	if strings.Contains(cmdutil.ErrorWithFix(err), "sk-not-a-key-of-the-service") {
		t.Error("the error repeats the key")
	}
	if _, err := e.Keyring.Get(cmdutil.Profile); !errors.Is(err, keychain.ErrNotFound) {
		t.Errorf("keychain: %v", err)
	}
}

// A mistyped key is shown masked, with a paste error as the first thing to check: a new key from the
// dashboard would not help someone who drops a character each time they paste.
func TestLoginRun_MistypedKeyIsShownMaskedWithPasteAdvice(t *testing.T) {
	e := cmdtest.New(t)
	e.StartService(t, standin.Options{})
	e.In.WriteString("sk-gw-demo-parital\n")

	err := loginRun(context.Background(), withKey(options(e)))
	if err == nil {
		t.Fatal("a mistyped key was accepted")
	}
	_, rest, _ := strings.Cut(cmdutil.ErrorWithFix(err), "\n")
	want := "key tried: sk-…ital (18 characters)\n" +
		"fix: check it for a paste error first: compare its start, end and length with the key on the dashboard, and paste it again; " +
		"if they match, create a new key on the dashboard and run: gw auth login"
	if !strings.HasPrefix(rest, want) {
		t.Errorf("after the first line:\n%s\nwant it to start:\n%s", rest, want)
	}
	if strings.Contains(cmdutil.ErrorWithFix(err), "parital") {
		t.Error("the error shows the key beyond its masked form")
	}
}

// An exhausted balance says the key is fine: no key is shown, no paste advice given.
func TestLoginRun_NoBalanceGivesNoPasteAdvice(t *testing.T) {
	e := cmdtest.New(t)
	e.StartService(t, standin.Options{})
	e.In.WriteString(standin.DemoKeyNoBalance + "\n")

	err := loginRun(context.Background(), withKey(options(e)))
	if err == nil || strings.Contains(cmdutil.ErrorWithFix(err), "key tried") || strings.Contains(cmdutil.ErrorWithFix(err), "paste") || !strings.Contains(cmdutil.ErrorWithFix(err), "\nfix: top up") {
		t.Errorf("err = %v", err)
	}
}

func TestLoginRun_KeychainFailureDoesNotFallBackToFile(t *testing.T) {
	e := cmdtest.New(t)
	e.StartService(t, standin.Options{})
	e.Keyring.Err = errors.New("no Secret Service on the bus")
	e.In.WriteString(standin.DemoKeyFull)

	err := loginRun(context.Background(), withKey(options(e)))
	if err == nil || !strings.Contains(cmdutil.ErrorWithFix(err), "gw auth login --insecure-storage") {
		t.Fatalf("err = %v", err)
	}
	paths, _ := e.Factory.Paths()
	if _, err := os.Stat(paths.CredentialsFile()); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a credentials file was written: %v", err)
	}
}

// A keychain that fails because nothing provides it here: the fix says what to install, first.
func TestLoginRun_KeychainMissingNamesWhatToInstall_FakeKeychain(t *testing.T) {
	e := cmdtest.New(t)
	e.StartService(t, standin.Options{})
	e.Keyring.Err = &keychain.UnavailableError{Backend: "Secret Service", Err: errors.New("no D-Bus session bus")}
	e.Factory.KeychainInstall = func(error) string { return "sudo apt install gnome-keyring" }
	e.In.WriteString(standin.DemoKeyFull)

	err := loginRun(context.Background(), withKey(options(e)))
	if err == nil || !strings.Contains(cmdutil.ErrorWithFix(err), "\nfix: install a Secret Service, the Linux keychain (none is installed here): sudo apt install gnome-keyring; then run: gw auth login; where you cannot install one, run: gw auth login --insecure-storage") {
		t.Fatalf("err = %v", err)
	}
}

func TestLoginRun_NoKeyIsExit4(t *testing.T) {
	e := cmdtest.New(t)
	e.StartService(t, standin.Options{})
	err := loginRun(context.Background(), options(e))
	if cmdutil.ExitCodeFor(err) != cmdutil.ExitAuth {
		t.Fatalf("err = %v, exit %d", err, cmdutil.ExitCodeFor(err))
	}
}

// options are gw auth login's dependencies from the test environment: the real ones, on a fake keychain and
// the stand-in of the service.
func options(e *cmdtest.Env) *LoginOptions {
	f := e.Factory
	return &LoginOptions{IO: e.IO, Config: f.Config, ResolveBaseURL: f.BaseURL, API: f.APIClient,
		Keychain: f.Keychain, FileStore: f.FileStore, KeychainRemedy: f.KeychainRemedy, Getenv: f.Getenv}
}

func withKey(o *LoginOptions) *LoginOptions { o.WithKey = true; return o }

// TestLoginRun_HostileStorePathReachesTheTerminalEscaped: with --insecure-storage gw auth login names the
// file it stored the key in, under the user's XDG_CONFIG_HOME; a directory name holding an OSC 52
// clipboard write, a screen clear and an 8-bit CSI (U+009B) is shown with them escaped.
func TestLoginRun_HostileStorePathReachesTheTerminalEscaped(t *testing.T) {
	const evil = "\x1b]52;c;aGk=\x07\x1b[2J\u009b31m"
	e := cmdtest.New(t)
	e.StartService(t, standin.Options{})
	e.Vars["XDG_CONFIG_HOME"] = t.TempDir() + "/conf" + evil
	e.In.WriteString(standin.DemoKeyFull + "\n")
	o := withKey(options(e))
	o.InsecureStorage = true
	if err := loginRun(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	out := e.Out.String() + e.ErrOut.String()
	if loc := regexp.MustCompile("[\x00-\x08\x0b-\x1f\x7f\u0080-\u009f]").FindStringIndex(out); loc != nil {
		t.Errorf("a raw control character reached the terminal:\n%q", out)
	}
	if !strings.Contains(e.Out.String(), `✓ Key stored in `) || !strings.Contains(e.Out.String(), `conf\x1b]52;c;aGk=\x07\x1b[2J\u009b31m`) {
		t.Errorf("stdout does not name the file, escaped:\n%s", e.Out)
	}
}
