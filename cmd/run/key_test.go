//go:build unix

package run

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/modelgateway/gw/cmd/cmdutil"
	"github.com/modelgateway/gw/cmd/cmdutil/cmdtest"
	"github.com/modelgateway/gw/config"
	"github.com/modelgateway/gw/standin"
)

// gw run's own gw serve, as gw run wires it, uses a key gw auth login stores (through the factory's
// keychain, a fake here) from its next request, well within the few seconds it would otherwise keep the old
// one, and after gw auth logout refuses the next request itself.
func TestRunOwnServePicksUpLoginAtTheNextRequest_FakeKeychain(t *testing.T) {
	e := cmdtest.New(t)
	e.StartService(t, standin.Options{})
	var opts *RunOptions
	cmd := NewCmdRun(e.Factory, func(_ context.Context, o *RunOptions) error { opts = o; return nil })
	cmd.SetArgs([]string{"qwen-code"})
	cmd.SetOut(io.Discard)
	cmd.SetErr(io.Discard)
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	kr := e.Factory.Keychain(t.Context())
	if err := kr.Set(cmdutil.Profile, standin.DemoKeyFull); err != nil {
		t.Fatal(err)
	}
	srv, err := serve(t.Context(), opts, config.File{Port: freePort(t)}, t.TempDir(), "qwen-code")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.stop()
	models := func() (int, string) {
		t.Helper()
		req, _ := http.NewRequestWithContext(t.Context(), "GET", "http://"+srv.addr+"/v1/models", nil)
		req.Header.Set("Authorization", "Bearer "+srv.token)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	if status, body := models(); status != 200 || !strings.Contains(body, "vendor-a/model-a-opus-4.6") {
		t.Fatalf("with the full account's key: %d %s", status, body)
	}
	if err := kr.Set(cmdutil.Profile, standin.DemoKeyPartial); err != nil { // gw auth login
		t.Fatal(err)
	}
	if status, body := models(); status != 200 || strings.Contains(body, "vendor-a/model-a-opus-4.6") {
		t.Errorf("the request after gw auth login with the partial account's key: %d %s", status, body)
	}
	if err := kr.Delete(cmdutil.Profile); err != nil { // gw auth logout
		t.Fatal(err)
	}
	if status, body := models(); status != 401 || !strings.Contains(body, "no key stored") {
		t.Errorf("the request after gw auth logout: %d %s", status, body)
	}
}
