package pi

import (
	"runtime"
	"strings"
	"testing"

	"github.com/modelgateway/gw/config/agents"
	"github.com/modelgateway/gw/config/agents/agentstest"
)

// TestMerge_CredentialCommand: with gw's credential command pi's provider gets "apiKey": "!<gw> auth token
// --serve" instead of the token, and doctor reads it back as gw's command.
func TestMerge_CredentialCommand(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the command line is quoted for cmd.exe there")
	}
	res, err := agent{}.Merge([][]byte{nil, nil}, agentstest.CredentialDecl())
	if err != nil {
		t.Fatal(err)
	}
	out := string(res[0].Data)
	if !strings.Contains(out, `"apiKey": "!'/opt/gw dir/gw' auth token --serve"`) || strings.Contains(out, agentstest.Token) {
		t.Errorf("models.json:\n%s", out)
	}
	in, err := agent{}.Inspect([][]byte{res[0].Data, res[1].Data})
	if err != nil || in.KeyKind != agents.KeyCommand || !in.GwCommand {
		t.Errorf("Inspect = %+v, %v", in, err)
	}
}
