package claudecode

import (
	"runtime"
	"strings"
	"testing"

	"github.com/modelgateway/gw/config/agents"
	"github.com/modelgateway/gw/config/agents/agentstest"
)

// TestMerge_CredentialCommand: with gw's credential command Claude Code's settings get apiKeyHelper (gw's
// command for the shell) and no ANTHROPIC_AUTH_TOKEN, which would win over it, also over settings an older
// gw wrote with the token, whose other settings stay; doctor reads it back as gw's command.
func TestMerge_CredentialCommand(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the command line is quoted for cmd.exe there (TestCommandLine)")
	}
	old, err := Merge([]byte(`{"model": "x", "env": {"FOO": "1"}}`), agentstest.Decl())
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
			if !strings.Contains(out, `"apiKeyHelper": "'/opt/gw dir/gw' auth token --serve"`) {
				t.Errorf("no apiKeyHelper:\n%s", out)
			}
			if strings.Contains(out, agentstest.Token) || strings.Contains(out, EnvAuthToken) {
				t.Errorf("the token is still written:\n%s", out)
			}
			if src != nil && (!strings.Contains(out, `"FOO": "1"`) || !strings.Contains(out, `"model": "x"`)) {
				t.Errorf("the user's settings were lost:\n%s", out)
			}
			if len(res.Warnings) != 0 {
				t.Errorf("warnings %q", res.Warnings)
			}
			in, err := Inspect(res.Data)
			if err != nil || in.KeyKind != agents.KeyCommand || !in.GwCommand {
				t.Errorf("Inspect = %+v, %v", in, err)
			}
		})
	}
}

// TestMerge_UsersOwnHelperKept: an apiKeyHelper of the user's own is left as it is, with the token written
// as before (and the warning that it is there).
func TestMerge_UsersOwnHelperKept(t *testing.T) {
	res, err := agentstest.MergeOnce(t, Merge, []byte(`{"apiKeyHelper": "~/bin/key.sh"}`), agentstest.CredentialDecl())
	if err != nil {
		t.Fatal(err)
	}
	if out := string(res.Data); !strings.Contains(out, `"apiKeyHelper": "~/bin/key.sh"`) || !strings.Contains(out, agentstest.Token) {
		t.Errorf("merged:\n%s", out)
	}
}

// TestCommandLine: gw's credential command as a shell line, quoted where it needs to be, for sh and cmd.exe.
func TestCommandLine(t *testing.T) {
	for _, c := range []struct{ goos, path, want string }{
		{"linux", "/usr/local/bin/gw", "/usr/local/bin/gw auth token --serve"},
		{"darwin", "/Users/a b/it's/gw", `'/Users/a b/it'\''s/gw' auth token --serve`},
		{"linux", "/home/x/$HOME;rm/gw", `'/home/x/$HOME;rm/gw' auth token --serve`},
		{"windows", `C:\Program Files\gw\gw.exe`, `"C:\Program Files\gw\gw.exe" auth token --serve`},
		{"windows", `C:\gw\gw.exe`, `C:\gw\gw.exe auth token --serve`},
	} {
		got := agents.CredentialCommand{Path: c.path, Args: agents.CredentialArgs}.CommandLine(c.goos)
		if got != c.want {
			t.Errorf("%s %q: %s, want %s", c.goos, c.path, got, c.want)
		}
		if !agents.IsCredentialCommand(got) {
			t.Errorf("%s not recognised as gw's", got)
		}
		if p := agents.CredentialProgram(got); p != c.path {
			t.Errorf("the program of %s: %q, want %q", got, p, c.path)
		}
	}
}
