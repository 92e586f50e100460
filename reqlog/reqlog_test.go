package reqlog

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

func TestLogFieldsCannotForgeALine(t *testing.T) {
	cases := map[string]string{
		"/v1/models":                 "/v1/models",
		"vendor-é/modèle":            "vendor-é/modèle",
		"":                           `""`,
		"/v1/x status=200":           `"/v1/x status=200"`,
		"a=b":                        `"a=b"`,
		"new\nline":                  `"new\nline"`,
		"tab\t":                      `"tab\t"`,
		"del\x7f":                    `"del\x7f"`,
		"nbsp\u00a0":                 `"nbsp\u00a0"`,
		`quote"`:                     `"quote\""`,
		strings.Repeat("m", 300):     strings.Repeat("m", 200) + "…",
		"é" + strings.Repeat(" ", 2): `"é  "`,
	}
	for in, want := range cases {
		if got := string(AppendField(nil, in)); got != want {
			t.Errorf("%q: got %s, want %s", in, got, want)
		}
	}
}

// A line written is read back as it was written, whatever the client put
// in the fields it controls.
func TestLineRoundTrip(t *testing.T) {
	zone := time.FixedZone("", 3600)
	at := time.Date(2026, 11, 21, 6, 5, 37, 998_000_000, zone)
	for _, e := range []Entry{
		{Time: at, Method: "POST", Path: "/v1/messages", Agent: "claude-code", Model: "vendor-a/model-a-sonnet-4.5", Status: 200,
			Dur: 3 * time.Second, HasUsage: true, Input: 1200, Cached: 1000, Output: 34, Reasoning: 12, Proto: "messages", Stream: true},
		{Time: at.UTC(), Method: "GET", Path: "/x y=1 status=500", Status: 404, Dur: time.Millisecond, Proto: "chat", Note: "refused=not_found", Count: 37},
		{Time: at, Method: "POST", Path: "/v1/responses", Agent: "codex", Model: "a \"b\" model=c", Status: 401, Condition: KeyRejected,
			Dur: 1234567 * time.Nanosecond, Proto: "responses", Note: "rejected=wrong_key"},
		{Time: at, Method: "POST", Path: "/v1/chat/completions", Model: "m", Status: 200, HasUsage: true, Input: 0, Output: 0, Proto: "chat"},
	} {
		line := Append(nil, &e)
		if strings.Count(string(line), "\n") != 1 {
			t.Fatalf("not one line: %q", line)
		}
		var p Parser
		var got Entry
		if !p.Parse(line[:len(line)-1], &got) {
			t.Fatalf("not parsed: %s", line)
		}
		want := e
		want.Dur = e.Dur.Round(time.Microsecond)
		if !got.Time.Equal(want.Time) || got.Time.Format(TimeLayout) != want.Time.Format(TimeLayout) {
			t.Errorf("time: got %v, want %v", got.Time, want.Time)
		}
		got.Time, want.Time = time.Time{}, time.Time{}
		if got != want {
			t.Errorf("line %s\nread back as %+v\nwant         %+v", line, got, want)
		}
	}
}

// What gw serve writes besides request lines, and lines cut short, are not
// requests.
func TestParseRefusesWhatIsNotARequestLine(t *testing.T) {
	for _, line := range []string{
		"",
		"gw serve: 3 request log lines dropped: the disk did not keep up",
		"2026-11-21T06:05:37.998+01:00 POST /v1/messages status=200 dur=3s prompt_tok",
		"2026-11-21T06:05:37.998+01:00",
		"2026-13-21T06:05:37.998+01:00 POST /v1/messages status=200 dur=3s proto=chat stream=false",
		"2026-11-21T06:05:37.998+01:0 POST /v1/messages status=200 dur=3s proto=chat stream=false",
		"2026-11-21T06:05:37.998Z POST /v1/messages status=2x0 dur=3s proto=chat stream=false",
		"2026-11-21T06:05:37.998Z POST",
		`2026-11-21T06:05:37.998Z POST "/v1/mess`,
	} {
		var p Parser
		var e Entry
		if p.Parse([]byte(line), &e) {
			t.Errorf("%q parsed as a request: %+v", line, e)
		}
	}
}

func TestProduct(t *testing.T) {
	for ua, want := range map[string]string{
		"claude-cli/2.1.330 (external, cli)":                           "claude-cli",
		"codex_cli_rs/0.46.0 (Ubuntu 24.4.0; x86_64) xterm-256color":   "codex_cli_rs",
		"opencode/1.18.2 ai-sdk/provider-utils/3.0.10 runtime/bun/1.3": "opencode",
		"GeminiCLI/0.9.0 (linux; x64)":                                 "geminicli",
		"curl":                                                         "curl",
		"":                                                             "",
		strings.Repeat("a", 100) + "/1":                                "",
	} {
		if got := Product(ua); got != want {
			t.Errorf("Product(%q) = %q, want %q", ua, got, want)
		}
	}
}

// A serve.log left readable by others (0644: an older gw, a hand chmod) is made 0600 when gw serve opens
// it, its lines kept and the new ones appended.
func TestWrite_ExistingLogIsMadePrivate(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no Unix permission bits")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, Name)
	if err := os.WriteFile(path, []byte("an older line\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o644); err != nil { // whatever the umask
		t.Fatal(err)
	}
	f, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write([]byte("a new line\n")); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("serve.log has mode %04o after gw serve opened it, want 0600", fi.Mode().Perm())
	}
	if b, _ := os.ReadFile(path); string(b) != "an older line\na new line\n" {
		t.Errorf("serve.log = %q", b)
	}
}

func TestParseDurReadsWhatDurationStringWrites(t *testing.T) {
	for _, d := range []time.Duration{0, 1, 999, 1500, 850 * time.Millisecond, 1234567 * time.Nanosecond, 3200 * time.Millisecond,
		125 * time.Second, 3*time.Hour + 2*time.Minute + 1500*time.Millisecond, 59*time.Minute + 59*time.Second + 999999*time.Microsecond} {
		if got := parseDur([]byte(d.String())); got != d {
			t.Errorf("parseDur(%q) = %v", d.String(), got)
		}
	}
	for _, bad := range []string{"", "x", "3", "3x", "s", "-3s", "1.5"} {
		if got := parseDur([]byte(bad)); got != 0 {
			t.Errorf("parseDur(%q) = %v, want 0", bad, got)
		}
	}
}

// TestHostileNoteForgesNothing: whatever a note holds, however it reached
// the line (a producer that did not escape its value), the line stays one
// line, carries no control character, and no note word is read back as a
// field of the line.
func TestHostileNoteForgesNothing(t *testing.T) {
	for _, note := range []string{
		"dropped=x\n2026-11-21T06:05:40.998Z POST /v1/messages status=200 dur=1s prompt_tokens=100000020 proto=chat stream=false\n",
		"dropped=tool t (x) prompt_tokens=100000020 status=500",
		"refused=\x1b]52;c;aGk=\x07 \u009b2J",
		`"prompt_tokens=7`,
		Note("dropped", "a b\n\x1b[2J") + " aborted=client_gone probe",
	} {
		line := string(Append(nil, &Entry{Time: time.Unix(0, 0), Method: "POST", Path: "/v1/messages", Status: 200,
			HasUsage: true, Input: 4, Output: 5, Proto: "messages", Note: note}))
		if strings.Count(line, "\n") != 1 || strings.ContainsAny(line, "\x1b\x07\r\u009b") {
			t.Errorf("%q: wrote %q", note, line)
		}
		var p Parser
		var e Entry
		if !p.Parse([]byte(strings.TrimSuffix(line, "\n")), &e) || e.Input != 4 || e.Status != 200 || e.Proto != "messages" {
			t.Errorf("%q: read back %+v from %q", note, e, line)
		}
	}
	if got := string(Append(nil, &Entry{Status: 200, Proto: "chat", Note: "dropped=top_k aborted=client_gone probe"})); !strings.HasSuffix(got, " dropped=top_k aborted=client_gone probe\n") {
		t.Errorf("gw's own notes changed: %q", got)
	}
}
