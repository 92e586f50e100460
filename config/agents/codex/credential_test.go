package codex

import (
	"strings"
	"testing"

	"github.com/modelgateway/gw/config/agents"
	"github.com/modelgateway/gw/config/agents/agentstest"
)

// TestMerge_CredentialCommand: with gw's credential command Codex's provider gets [model_providers.gw.auth]
// (the command, its arguments, a time-out and a refresh) and no token, also over a config an older gw
// wrote with the token in it, whose other settings stay; doctor reads it back as gw's command.
func TestMerge_CredentialCommand(t *testing.T) {
	old, err := Merge([]byte("# mine\nmodel_reasoning_effort = \"high\"\n"), agentstest.Decl())
	if err != nil {
		t.Fatal(err)
	}
	for name, src := range map[string][]byte{"new": nil, "older gw's, with the token": old.Data} {
		t.Run(name, func(t *testing.T) {
			res, err := agentstest.MergeOnce(t, Merge, src, agentstest.CredentialDecl())
			if err != nil {
				t.Fatal(err)
			}
			out := string(res.Data)
			for _, want := range []string{"[model_providers.gw.auth]\n", `command = "/opt/gw dir/gw"`, `args = ["auth", "token", "--serve"]`,
				"timeout_ms = 15000", "refresh_interval_ms = 60000"} {
				if !strings.Contains(out, want) {
					t.Errorf("missing %s:\n%s", want, out)
				}
			}
			if strings.Contains(out, agentstest.Token) || strings.Contains(out, "experimental_bearer_token") {
				t.Errorf("the token is still written:\n%s", out)
			}
			if src != nil && !strings.Contains(out, "# mine\nmodel_reasoning_effort = \"high\"\n") {
				t.Errorf("the user's settings were lost:\n%s", out)
			}
			in, err := Inspect(res.Data)
			if err != nil || in.KeyKind != agents.KeyCommand || !in.GwCommand || agents.CredentialProgram(in.KeyCommand) != "/opt/gw dir/gw" {
				t.Errorf("Inspect = %+v, %v", in, err)
			}
		})
	}
}
