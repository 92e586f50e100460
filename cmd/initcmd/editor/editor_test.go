package editor

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/modelgateway/gw/cmd/cmdutil/cmdtest"
	"github.com/modelgateway/gw/standin"
)

func TestNewCmdEditor_Flags(t *testing.T) {
	e := cmdtest.New(t)
	var got *EditorOptions
	cmd := NewCmdEditor(e.Factory, func(_ context.Context, o *EditorOptions) error { got = o; return nil })
	cmd.SetArgs([]string{"--json", "--base-url", "https://gateway.example.com/v1"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if !got.JSON || got.BaseURL != "https://gateway.example.com/v1" {
		t.Fatalf("options = %+v", got)
	}
	cmd = NewCmdEditor(e.Factory, func(context.Context, *EditorOptions) error { return nil })
	cmd.SetArgs([]string{"cursor"})
	cmd.SetErr(e.ErrOut)
	if err := cmd.Execute(); err == nil {
		t.Fatal("an argument was accepted")
	}
}

func TestEditorRun_Text(t *testing.T) {
	e := cmdtest.New(t)
	e.StartService(t, standin.Options{})
	e.Vars["GW_API_KEY"] = standin.DemoKeyPartial
	if err := editorRun(context.Background(), options(e)); err != nil {
		t.Fatal(err)
	}
	service := e.Vars["GW_BASE_URL"]
	want := `Set up Cursor for the Model Gateway Service:

1. Open Cursor Settings → Models → API Keys.
2. In "OpenAI API Key", paste your API key and turn it on. Copy the key with:
     gw auth token | pbcopy                      (macOS)
     gw auth token | xclip -selection clipboard  (Linux)
     gw auth token | clip                        (Windows)
3. Turn on "Override OpenAI Base URL" and enter:
     $SERVICE
   Use this hosted address, not gw serve's http://127.0.0.1: Cursor sends requests from its
   own servers, which cannot reach localhost on your machine.
4. Add each model of your subscription as a custom model (Models → + Add model), spelled exactly:
     vendor-a/model-a-sonnet-4.5
     vendor-a/model-a-haiku-4.5
     vendor-b/model-b-3-flash-preview
5. If Cursor reports an error, run: gw doctor
`
	if got := strings.ReplaceAll(e.Out.String(), service, "$SERVICE"); got != want {
		t.Errorf("stdout:\n%s\nwant:\n%s", got, want)
	}
	// The stand-in runs on loopback, which is exactly what Cursor cannot reach: gw says so.
	wantErr := "warning: the base URL $SERVICE is on this machine; Cursor's servers cannot reach it, so use the service's hosted address instead\n"
	if got := strings.ReplaceAll(e.ErrOut.String(), service, "$SERVICE"); got != wantErr {
		t.Errorf("stderr:\n%s\nwant:\n%s", got, wantErr)
	}
	if strings.Contains(e.Out.String()+e.ErrOut.String(), standin.DemoKeyPartial) {
		t.Fatal("the key was printed")
	}
}

func TestEditorRun_JSONWithoutKeyFallsBackToCatalogue(t *testing.T) {
	e := cmdtest.New(t)
	e.Vars["GW_BASE_URL"] = "https://gateway.example.com/v1"
	if err := editorRun(context.Background(), withJSON(options(e), true)); err != nil {
		t.Fatal(err)
	}
	var s Setup
	if err := json.Unmarshal(e.Out.Bytes(), &s); err != nil {
		t.Fatalf("%v\n%s", err, e.Out)
	}
	if s.Editor != "cursor" || s.BaseURL != "https://gateway.example.com/v1" || s.KeyCommand != "gw auth token" || s.ModelsFrom != "catalogue" || len(s.Models) != 8 || len(s.Steps) != 5 {
		t.Fatalf("setup = %+v", s)
	}
	if len(s.Warnings) != 1 || !strings.Contains(s.Warnings[0], "no API key stored: run gw auth login") {
		t.Fatalf("warnings = %q", s.Warnings)
	}
	if e.ErrOut.Len() != 0 {
		t.Fatalf("--json wrote to stderr: %s", e.ErrOut)
	}
}

func TestIsLocal(t *testing.T) {
	var local []string
	for _, u := range []string{"http://127.0.0.1:8787/v1", "http://localhost/v1", "http://[::1]:9/v1", "http://192.168.1.5/v1", "https://gateway.example.com/v1", "https://api.localhost.example/v1"} {
		if isLocal(u) {
			local = append(local, u)
		}
	}
	if !slices.Equal(local, []string{"http://127.0.0.1:8787/v1", "http://localhost/v1", "http://[::1]:9/v1", "http://192.168.1.5/v1"}) {
		t.Fatalf("local = %q", local)
	}
}

// The text output and --json are rendered from the same steps: a script
// reading "steps" sees as many as a person reading the numbered list.
// Without the account's list, the text asks for the models the user uses.
func TestEditorRun_TextAndJSONListTheSameSteps(t *testing.T) {
	run := func(js bool) *cmdtest.Env {
		e := cmdtest.New(t)
		e.Vars["GW_BASE_URL"] = "https://gateway.example.com/v1"
		if err := editorRun(context.Background(), withJSON(options(e), js)); err != nil {
			t.Fatal(err)
		}
		return e
	}
	var s Setup
	if err := json.Unmarshal(run(true).Out.Bytes(), &s); err != nil {
		t.Fatal(err)
	}
	text := run(false).Out.String()
	var numbered []string
	for _, l := range strings.Split(text, "\n") {
		if len(l) > 2 && l[0] >= '1' && l[0] <= '9' && l[1] == '.' {
			numbered = append(numbered, l)
		}
	}
	if len(numbered) != len(s.Steps) {
		t.Fatalf("text has %d steps, --json %d:\n%s\n%q", len(numbered), len(s.Steps), text, s.Steps)
	}
	if !strings.Contains(text, "4. Add the models you use as custom models") || !strings.Contains(text, "     vendor-b/model-b-3-pro-preview\n") {
		t.Fatalf("catalogue wording or models missing:\n%s", text)
	}
}

// options are gw init editor's dependencies from the test environment: the real ones, on a fake keychain and
// the stand-in of the service.
func options(e *cmdtest.Env) *EditorOptions {
	return &EditorOptions{IO: e.IO, ResolveBaseURL: e.Factory.BaseURL, Models: e.Factory.ListModels}
}

func withJSON(o *EditorOptions, js bool) *EditorOptions { o.JSON = js; return o }
