package status

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/modelgateway/gw/cmd/cmdutil"
	"github.com/modelgateway/gw/cmd/cmdutil/cmdtest"
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
	if err := statusRun(context.Background(), &StatusOptions{Factory: e.Factory}); err != nil {
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
	err := statusRun(context.Background(), &StatusOptions{Factory: e.Factory, JSON: true})
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
