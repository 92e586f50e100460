package status

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelgateway/gw/api"
	"github.com/modelgateway/gw/cmd/cmdutil"
	"github.com/modelgateway/gw/cmd/cmdutil/cmdtest"
	"github.com/modelgateway/gw/keychain"
	"github.com/modelgateway/gw/standin"
)

func TestNewCmdStatus_Flags(t *testing.T) {
	e := cmdtest.New(t)
	var got *StatusOptions
	cmd := NewCmdStatus(e.Factory, func(_ context.Context, o *StatusOptions) error { got = o; return nil })
	cmd.SetArgs([]string{"--json"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if !got.JSON {
		t.Error("--json not set")
	}
}

func TestStatusRun_Good(t *testing.T) {
	e := cmdtest.New(t)
	srv := e.StartService(t, standin.Options{})
	if err := e.Keyring.Set(cmdutil.Profile, standin.DemoKeyFull); err != nil {
		t.Fatal(err)
	}
	if err := statusRun(context.Background(), options(e)); err != nil {
		t.Fatal(err)
	}
	want := regexp.MustCompile(`^Base URL:    ` + regexp.QuoteMeta(srv.URL) + `/v1 \(from env\)
API key:     sk-…full from fake keychain \(tests\)
Service:     ✓ key accepted \(8 models available\)
Local token: none yet \(gw serve or gw init agent creates one\)
$`)
	if !want.MatchString(e.Out.String()) {
		t.Errorf("stdout:\n%s", e.Out)
	}
}

func TestStatusRun_ExhaustedBalance(t *testing.T) {
	e := cmdtest.New(t)
	e.StartService(t, standin.Options{})
	e.Vars["GW_API_KEY"] = standin.DemoKeyNoBalance
	err := statusRun(context.Background(), withJSON(options(e)))
	if cmdutil.ExitCodeFor(err) != cmdutil.ExitError {
		t.Fatalf("err = %v", err)
	}
	out := e.Out.String()
	for _, want := range []string{`"key_source": "env"`, `"accepted": false`, `"condition": "key rejected"`, `"message": "API key invalid or unauthorized"`, `"fix": "`} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %s in:\n%s", want, out)
		}
	}
	if strings.Contains(out, standin.DemoKeyNoBalance) {
		t.Error("the key is printed")
	}
}

// options are gw auth status's dependencies from the test environment: the real ones, on a fake keychain and
// the stand-in of the service.
func options(e *cmdtest.Env) *StatusOptions {
	f := e.Factory
	return &StatusOptions{IO: e.IO, Config: f.Config, ResolveBaseURL: f.BaseURL, Key: f.Key, API: f.APIClient,
		KeychainRemedy: f.KeychainRemedy}
}

func withJSON(o *StatusOptions) *StatusOptions { o.JSON = true; return o }

// A key that cannot be read is the status's error, with its fix, and the service is not asked with no key.
// The key is a fake here (a keychain that fails in one particular way is what is tested); the rest is real.
func TestStatusRun_FakeKeyUnreadable(t *testing.T) {
	e := cmdtest.New(t)
	e.StartService(t, standin.Options{})
	o := withJSON(options(e))
	o.Key = func(context.Context, cmdutil.KeyOptions) (keychain.Resolved, error) {
		return keychain.Resolved{}, &keychain.TimeoutError{Op: "reading the key", Backend: "Secret Service", Timeout: time.Second}
	}
	o.API = func(string, string, time.Duration) *api.Client {
		t.Fatal("the service was asked without a key")
		return nil
	}
	if err := statusRun(context.Background(), o); cmdutil.ExitCodeFor(err) != cmdutil.ExitError {
		t.Fatalf("err = %v", err)
	}
	for _, want := range []string{`"message": "the API key could not be read"`, `"fix": "start or unlock the OS keychain (on Linux without a desktop, start a Secret Service: gnome-keyring-daemon --unlock --components=secrets, in a D-Bus session), then run: gw auth login`} {
		if !strings.Contains(e.Out.String(), want) {
			t.Errorf("missing %s in:\n%s", want, e.Out)
		}
	}
}

// What the service says is shown with its control characters escaped: an escape sequence in its error
// does not reach the terminal.
func TestShowEscapesTheServicesWords(t *testing.T) {
	var b strings.Builder
	show(&b, Report{BaseURL: "https://gw.example/v1", Error: &ErrorInfo{Message: "refused", Cause: "the service said \x1b]52;c;aGk=\x07\u009b2J"}})
	if strings.ContainsAny(b.String(), "\x1b\x07\u009b") || !strings.Contains(b.String(), `the service said \x1b]52;c;aGk=\x07\u009b2J`) {
		t.Errorf("shown: %q", b.String())
	}
}
