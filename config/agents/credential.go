package agents

import (
	"strings"
)

// CredentialCommander is an agent that asks a command for its key before its first request and again
// later, as the agent chooses (Claude Code's apiKeyHelper after a 401, Codex's [model_providers.<id>.auth]
// every refresh interval, pi's "!…" apiKey before each request). gw init
// agent gives it gw's credential command (Declaration.Credential), which makes sure gw serve answers and
// prints the local token, so that gw serve starts when the agent does and the file holds no token. An
// agent that lacks it gets the local token written where it reads its key.
type CredentialCommander interface {
	CredentialHook() CredentialHook
}

// CredentialHook is how an agent runs its credential command.
type CredentialHook struct {
	// Setting names it in the agent's config, for messages: "apiKeyHelper".
	Setting string
	// Shell: the agent runs the setting as one command line through the system's shell (sh, or cmd.exe on
	// Windows), so gw writes it quoted for that shell (CommandLine); otherwise it runs the program with its
	// arguments as they are.
	Shell bool
}

// CredentialCommand is gw's credential command: the gw binary by its absolute path, and the arguments that
// make it print the local token once gw serve answers (gw auth token --serve).
type CredentialCommand struct {
	Path string
	Args []string
}

// CredentialArgs are the arguments of gw's credential command.
var CredentialArgs = []string{"auth", "token", "--serve"}

// CommandLine is c as one command line for the shell of goos (runtime.GOOS): on Windows cmd.exe, each word
// in double quotes where it needs them (a Windows path holds no double quote); elsewhere a POSIX shell,
// each word in single quotes where it needs them.
func (c CredentialCommand) CommandLine(goos string) string {
	words := append([]string{c.Path}, c.Args...)
	for i, w := range words {
		words[i] = shellQuote(w, goos)
	}
	return strings.Join(words, " ")
}

func shellQuote(w, goos string) string {
	plain := w != "" && strings.IndexFunc(w, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:\\", r))
	}) < 0
	switch {
	case plain && (goos == "windows" || !strings.Contains(w, "\\")):
		return w
	case goos == "windows":
		return `"` + w + `"`
	}
	return "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
}

// IsCredentialCommand reports whether a command line an agent's config holds is gw's credential command
// (of any gw binary): what doctor and a merge recognise as gw's own.
func IsCredentialCommand(line string) bool {
	return strings.HasSuffix(strings.TrimSpace(line), " "+strings.Join(CredentialArgs, " "))
}

// CredentialProgram is the program a command line of CommandLine's runs, its quotes removed ("" when the
// line is not quoted as CommandLine quotes): for gw doctor, which checks that gw is still there.
func CredentialProgram(line string) string {
	line = strings.TrimSpace(line)
	switch {
	case strings.HasPrefix(line, "'"): // sh: 'a'\''b' is a'b
		var b strings.Builder
		rest := line[1:]
		for {
			i := strings.IndexByte(rest, '\'')
			if i < 0 {
				return ""
			}
			b.WriteString(rest[:i])
			rest = rest[i+1:]
			if !strings.HasPrefix(rest, `\''`) {
				return b.String()
			}
			b.WriteByte('\'')
			rest = rest[3:]
		}
	case strings.HasPrefix(line, `"`):
		if i := strings.IndexByte(line[1:], '"'); i >= 0 {
			return line[1 : i+1]
		}
		return ""
	}
	p, _, _ := strings.Cut(line, " ")
	return p
}
