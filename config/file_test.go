package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/modelgateway/gw/internal/remedy"
)

func TestLoad_MissingFileIsZero(t *testing.T) {
	f, err := Load(filepath.Join(t.TempDir(), "nope", "config.json"))
	if err != nil || f != (File{}) {
		t.Fatalf("Load(missing) = %+v, %v; want zero, nil", f, err)
	}
}

func TestSaveLoad_RoundTripPermsAndDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "gw")
	path := filepath.Join(dir, "config.json")
	want := File{BaseURL: "https://gw.example.com/v1", LocalToken: "gw-local-x", Port: 9000, InsecureStorage: true}
	if err := Save(path, want); err != nil {
		t.Fatal(err)
	}
	got, err := Load(path)
	if err != nil || got != want {
		t.Fatalf("Load = %+v, %v; want %+v", got, err, want)
	}
	if runtime.GOOS == "windows" {
		return
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Errorf("file mode %o, want 600", st.Mode().Perm())
	}
	if st, _ := os.Stat(dir); st.Mode().Perm() != 0o700 {
		t.Errorf("dir mode %o, want 700", st.Mode().Perm())
	}
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	// The lock file that orders gw processes stays; no temporary file does.
	if !slices.Equal(names, []string{".config.json.lock", "config.json"}) {
		t.Errorf("directory holds %q, want only config.json and its lock (no temp files left)", names)
	}
}

func TestSave_KeepsUnknownFieldsAndDropsClearedOnes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.json")
	orig := `{"base_url":"https://a/v1","port":9000,"future_setting":{"nested":[1,2]},"theme":"dark"}`
	if err := os.WriteFile(path, []byte(orig), 0o600); err != nil {
		t.Fatal(err)
	}
	err := Update(path, func(f *File) error {
		f.BaseURL = "https://b/v1"
		f.Port = 0
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	if m["base_url"] != "https://b/v1" || m["theme"] != "dark" || m["future_setting"] == nil {
		t.Errorf("after Update: %s", data)
	}
	if _, ok := m["port"]; ok {
		t.Errorf("port cleared to 0 should be gone: %s", data)
	}
}

func TestLoadSave_BrokenFileIsReportedAndUntouched(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.json")
	orig := []byte("{\n  \"base_url\": \"https://a/v1\",\n  \"port\": 80,,\n}\n")
	if err := os.WriteFile(path, orig, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Load(path)
	var pe *ParseError
	if !errors.As(err, &pe) {
		t.Fatalf("Load error = %v, want *ParseError", err)
	}
	if pe.Line != 3 || pe.Column != 14 {
		t.Errorf("position %d:%d, want 3:14", pe.Line, pe.Column)
	}
	msg := err.Error()
	for _, want := range []string{path + ":3:14", "has not changed it"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q lacks %q", msg, want)
		}
	}
	// What to do is the error's remedy, not words in its message (a report shows both: once is enough).
	if r, ok := remedy.Of(err); !ok || r.Do != remedy.FixConfigFile || strings.Contains(msg, "by hand") {
		t.Errorf("remedy %+v (%v), message %q: want the remedy to fix the file, apart from the message", r, ok, msg)
	}
	if err := Save(path, File{BaseURL: "https://b/v1"}); err == nil {
		t.Error("Save over a broken file succeeded; want it refused")
	}
	if err := Update(path, func(*File) error { return nil }); err == nil {
		t.Error("Update of a broken file succeeded")
	}
	if _, err := EnsureLocalToken(path); err == nil {
		t.Error("EnsureLocalToken on a broken file succeeded")
	}
	after, _ := os.ReadFile(path)
	if !bytes.Equal(after, orig) {
		t.Errorf("file changed:\n%s", after)
	}
	if st, _ := os.Stat(path); runtime.GOOS != "windows" && st.Mode().Perm() != 0o644 {
		t.Errorf("mode changed to %o", st.Mode().Perm())
	}
}

func TestLoad_WrongTypeNamesFieldAndPosition(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.json")
	os.WriteFile(path, []byte("{\n\"port\": \"8080\"\n}"), 0o600)
	_, err := Load(path)
	if err == nil || !strings.Contains(err.Error(), `"port" should be a int`) || !strings.Contains(err.Error(), ":2:") {
		t.Errorf("err = %v", err)
	}
	os.WriteFile(path, []byte(`[1]`), 0o600)
	if _, err := Load(path); err == nil || !strings.Contains(err.Error(), "JSON object") {
		t.Errorf("top-level array: err = %v", err)
	}
	os.WriteFile(path, []byte(`{"port": 70000}`), 0o600)
	if _, err := Load(path); err == nil || !strings.Contains(err.Error(), "out of range") {
		t.Errorf("port 70000: err = %v", err)
	}
	os.WriteFile(path, []byte("{\"base_url\": \"x\""), 0o600)
	if _, err := Load(path); err == nil || !strings.Contains(err.Error(), ":1:16") {
		t.Errorf("truncated: err = %v", err)
	}
}

func TestLoad_BlankFileIsZero(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.json")
	os.WriteFile(path, []byte(" \n"), 0o600)
	if f, err := Load(path); err != nil || f != (File{}) {
		t.Errorf("Load(blank) = %+v, %v", f, err)
	}
}

func TestSave_FollowsSymlink(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symlinks need privileges on Windows")
	}
	dir := t.TempDir()
	real := filepath.Join(dir, "dotfiles", "gw.json")
	os.MkdirAll(filepath.Dir(real), 0o700)
	os.WriteFile(real, []byte(`{}`), 0o600)
	link := filepath.Join(dir, "config.json")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	if err := Save(link, File{Port: 1234}); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Lstat(link); st.Mode()&os.ModeSymlink == 0 {
		t.Error("the symlink was replaced by a regular file")
	}
	if f, _ := Load(real); f.Port != 1234 {
		t.Errorf("target not updated: %+v", f)
	}
}

func TestEnsureLocalToken_CreatedOnceAndKept(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.json")
	os.WriteFile(path, []byte(`{"base_url":"https://a/v1"}`), 0o600)
	tok, err := EnsureLocalToken(path)
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`^gw-local-[0-9a-f]{32}$`).MatchString(tok) {
		t.Errorf("token %q has the wrong shape", tok)
	}
	again, err := EnsureLocalToken(path)
	if err != nil || again != tok {
		t.Errorf("second call = %q, %v; want the same token %q", again, err, tok)
	}
	f, _ := Load(path)
	if f.LocalToken != tok || f.BaseURL != "https://a/v1" {
		t.Errorf("file = %+v", f)
	}
	other, _ := EnsureLocalToken(filepath.Join(t.TempDir(), "config.json"))
	if other == tok {
		t.Error("two installs got the same token")
	}
}

func TestUpdate_ErrorWritesNothing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.json")
	boom := errors.New("boom")
	if err := Update(path, func(f *File) error { f.Port = 1; return boom }); !errors.Is(err, boom) {
		t.Fatalf("err = %v", err)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Error("file written although fn failed")
	}
}

func TestLineCol(t *testing.T) {
	data := []byte("{\n  \"a\": x\n}")
	tests := []struct {
		offset, line, col int
	}{
		{0, 1, 1},
		{-3, 1, 1},
		{bytes.IndexByte(data, 'x'), 2, 8},
		{len(data) - 1, 3, 1},
		{len(data) + 10, 3, 2}, // past the end: just after the last byte
	}
	for _, tt := range tests {
		if l, c := LineCol(data, tt.offset); l != tt.line || c != tt.col {
			t.Errorf("LineCol(%d) = %d:%d, want %d:%d", tt.offset, l, c, tt.line, tt.col)
		}
	}
}

// Commands started together (gw serve and gw init agent) end up with one local token: without the lock each
// read "no token", made its own and saved it, and gw serve went on refusing the token the agent was given.
func TestEnsureLocalTokenConcurrent(t *testing.T) {
	path := filepath.Join(t.TempDir(), "gw", "config.json")
	const n = 16
	tokens := make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			tok, err := EnsureLocalToken(path)
			if err != nil {
				t.Error(err)
			}
			tokens[i] = tok
		})
	}
	wg.Wait()
	saved, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	for i, tok := range tokens {
		if tok != saved.LocalToken {
			t.Fatalf("command %d got token %q, but the config holds %q", i, tok, saved.LocalToken)
		}
	}
}

func TestServePort_ConfiguredElseDefault(t *testing.T) {
	if got := (File{}).ServePort(); got != 8787 {
		t.Errorf("no port configured: ServePort = %d, want 8787", got)
	}
	if got := (File{Port: 9000}).ServePort(); got != 9000 {
		t.Errorf("port 9000 configured: ServePort = %d, want 9000", got)
	}
}
