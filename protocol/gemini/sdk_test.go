package gemini

import (
	"context"
	"encoding/json"
	"github.com/modelgateway/gw/proxy/relay/relaytest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelgateway/gw/api/apitest"
	"github.com/modelgateway/gw/standin"
)

// genaiDir is where the pinned @google/genai is installed (its
// node_modules): GW_GENAI_DIR, or .cache/genai as scripts/test.sh keeps it.
func genaiDir(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("runs Node with @google/genai")
	}
	dir := os.Getenv("GW_GENAI_DIR")
	if dir == "" {
		dir, _ = filepath.Abs(filepath.Join("..", "..", ".cache", "genai"))
	}
	_, err := os.Stat(filepath.Join(dir, "node_modules", "@google", "genai", "package.json"))
	_, nodeErr := exec.LookPath("node")
	if err != nil || nodeErr != nil {
		msg := "@google/genai is not installed; install: npm install --prefix .cache/genai @google/genai@1.30.0 (the version Gemini CLI " + geminiCLIVersion + " bundles)"
		if os.Getenv("GW_REQUIRE_SDKS") == "1" {
			t.Fatal(msg + " (GW_REQUIRE_SDKS=1)")
		}
		t.Skip(msg)
	}
	return dir
}

// sdkResult is what testdata/sdk/genai.mjs prints.
type sdkResult struct {
	Text   string         `json:"text"`
	Finish string         `json:"finish"`
	Chunks int            `json:"chunks"`
	Usage  map[string]int `json:"usageMetadata"`
	U      map[string]int `json:"usage"`
	Calls  []struct {
		ID   string         `json:"id"`
		Name string         `json:"name"`
		Args map[string]any `json:"args"`
	} `json:"calls"`
	Signed      bool   `json:"signed"` // the call's part carried a thoughtSignature
	Answer      string `json:"answer"`
	TotalTokens int    `json:"totalTokens"`
	NoError     bool   `json:"noError"`
	Error       *struct {
		Name    string `json:"name"`
		Status  int    `json:"status"`
		Message string `json:"message"`
	} `json:"error"`
}

func runSDK(t *testing.T, dir, base, model, scenario string) sdkResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", filepath.Join("testdata", "sdk", "genai.mjs"))
	cmd.Env = append(os.Environ(), "GENAI_DIR="+dir, "BASE_URL="+base, "MODEL="+model, "SCENARIO="+scenario)
	out, err := cmd.Output()
	var res sdkResult
	if jerr := json.Unmarshal(out, &res); err != nil || jerr != nil {
		t.Fatalf("%s: %v %v\n%s", scenario, err, jerr, out)
	}
	return res
}

// TestGenAISDK: the official @google/genai client reads gw serve's Gemini
// API as it reads Google's: a stream with its text, finish reason and
// usage; a function call and the answer to its response; countTokens; and
// errors, whole and inside a stream, as ApiErrors with the spec's message.
func TestGenAISDK(t *testing.T) {
	dir := genaiDir(t)
	svc := relaytest.StartService(t, standin.Options{})
	gw := startGateway(t, relaytest.UpstreamTo(svc.BaseURL, standin.DemoKeyFull, svc.Client()))
	const model = "vendor-b/model-b-3-flash-preview"

	t.Run("Stream", func(t *testing.T) {
		r := runSDK(t, dir, gw, model, "stream")
		if r.Error != nil || r.Text != standin.Greeting(model) || r.Finish != "STOP" || r.Chunks < 3 ||
			r.U["promptTokenCount"] == 0 || r.U["candidatesTokenCount"] == 0 || r.U["totalTokenCount"] == 0 {
			t.Errorf("%+v", r)
		}
	})
	t.Run("Tools", func(t *testing.T) {
		r := runSDK(t, dir, gw, model, "tools")
		if r.Error != nil || len(r.Calls) != 1 || r.Calls[0].Name != "read_file" || r.Calls[0].Args["file_path"] != "notes.txt" || r.Calls[0].ID == "" {
			t.Fatalf("calls %+v", r)
		}
		if !r.Signed {
			t.Errorf("the call reached the client without the service's thought signature: %+v", r)
		}
		if !strings.Contains(r.Answer, "Tool result received: «PINEAPPLE-42»") || r.U["totalTokenCount"] == 0 {
			t.Errorf("answer %+v", r)
		}
	})
	t.Run("CountTokens", func(t *testing.T) {
		if r := runSDK(t, dir, gw, model, "count"); r.Error != nil || r.TotalTokens < 5 {
			t.Errorf("%+v", r)
		}
	})
	errs := []struct {
		name, scenario, key, base, model, want string
		status                                 int
	}{
		{"WrongKey", "error", "sk-wrong", svc.BaseURL, model, "API key invalid or unauthorized: ", 401},
		{"MisspelledModel", "error", standin.DemoKeyFull, svc.BaseURL, "vendor-b/model-b-3-flash-previw", "model not found / invalid model: ", 400},
		{"Unreachable", "error", standin.DemoKeyFull, "http://" + apitest.ClosedAddr(t) + "/v1", model, "unable to connect to API: ", 400},
		{"UnreachableStream", "streamError", standin.DemoKeyFull, "http://" + apitest.ClosedAddr(t) + "/v1", model, "unable to connect to API: ", 400},
	}
	for _, e := range errs {
		t.Run(e.name, func(t *testing.T) {
			gw := startGateway(t, relaytest.UpstreamTo(e.base, e.key, svc.Client()))
			r := runSDK(t, dir, gw, e.model, e.scenario)
			if r.Error == nil || r.Error.Name != "ApiError" || r.Error.Status != e.status || !strings.Contains(r.Error.Message, e.want) || !strings.Contains(r.Error.Message, " — ") {
				t.Errorf("got %+v, want an ApiError %d saying %q and the fix", r.Error, e.status, e.want)
			}
		})
	}
	// A stream that breaks off fails in the client, never ends as if
	// complete. @google/genai reads gw's error object as an ApiError only
	// when it comes in a read of its own; when it arrives with the events
	// before it, the client fails with its "Incomplete JSON segment" error
	// instead (which Gemini CLI retries).
	t.Run("StreamBreaksOff", func(t *testing.T) {
		broken := relaytest.StartService(t, standin.Options{Fault: standin.Fault{Kind: standin.FaultReset, After: 3}})
		gw := startGateway(t, relaytest.UpstreamTo(broken.BaseURL, standin.DemoKeyFull, broken.Client()))
		r := runSDK(t, dir, gw, model, "streamError")
		switch {
		case r.Error == nil:
			t.Errorf("a broken stream read as complete: %+v", r)
		case r.Error.Name == "ApiError" && (r.Error.Status != 502 || !strings.Contains(r.Error.Message, "broke off")):
			t.Errorf("got %+v", r.Error)
		case r.Error.Name != "ApiError" && !strings.Contains(r.Error.Message, "Incomplete JSON segment"):
			t.Errorf("got %+v", r.Error)
		}
		t.Logf("the client failed with %+v", r.Error)
	})
}
