// Tests of install.sh: a real gw build, packed the way the release packs it,
// served over HTTP on 127.0.0.1 and installed by the script with the system's
// sh, curl/wget and tar. TestInstall_GoreleaserDist does the same with the
// archives of a goreleaser snapshot (scripts/release-check.sh sets GW_DIST_DIR).
package scripts_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

const (
	testVersion = "9.9.9-test"
	testCommit  = "0123456789abcdef0123456789abcdef01234567"
	testDate    = "2026-11-21T10:00:00Z"
	testBaseURL = "https://gateway.example.com/v1"
)

func platform() string { return runtime.GOOS + "/" + runtime.GOARCH }

func TestInstall(t *testing.T) {
	requireTools(t)
	rel := makeRelease(t)
	srv := serve(t, rel.dir, nil)

	t.Run("default prefix, not on PATH", func(t *testing.T) {
		home := t.TempDir()
		res := runInstall(t, []string{"HOME=" + home, "SHELL=/bin/bash"}, "--url", srv.URL)
		res.wantExit(t, 0)
		bindir := filepath.Join(home, ".local", "bin")
		rc := "~/.bashrc"
		if runtime.GOOS == "darwin" {
			rc = "~/.bash_profile"
		}
		want := "Downloading gw " + testVersion + " for " + platform() + " from " + srv.URL + "\n" +
			"Installed " + bindir + "/gw\n" +
			"gw version 9.9.9-test (commit 0123456, built 2026-11-21)\n" +
			"default base URL: " + testBaseURL + "\n" +
			"\n" +
			bindir + " is not on your PATH. Add it:\n" +
			"  echo 'export PATH=\"$HOME/.local/bin:$PATH\"' >> " + rc + "\n" +
			"then open a new terminal.\n" +
			"\n" +
			"Next: gw auth login\n"
		if res.stdout != want {
			t.Errorf("stdout:\n%s\nwant:\n%s", res.stdout, want)
		}
		if res.stderr != "" {
			t.Errorf("stderr: %q, want nothing", res.stderr)
		}
		out := runGW(t, filepath.Join(bindir, "gw"), "version", "--json")
		var v struct {
			Version        string `json:"version"`
			Commit         string `json:"commit"`
			DefaultBaseURL string `json:"default_base_url"`
		}
		if err := json.Unmarshal([]byte(out), &v); err != nil || v.Version != testVersion || v.Commit != testCommit || v.DefaultBaseURL != testBaseURL {
			t.Errorf("installed gw version --json = %s (err %v); want version %s, commit %s, base URL %s", out, err, testVersion, testCommit, testBaseURL)
		}
		for _, f := range []string{"share/bash-completion/completions/gw", "share/zsh/site-functions/_gw", "share/fish/vendor_completions.d/gw.fish"} {
			if fi, err := os.Stat(filepath.Join(home, ".local", f)); err != nil || fi.Size() == 0 {
				t.Errorf("completion %s not installed: %v", f, err)
			}
		}
	})

	// The script is POSIX sh: it must run the same under each shell a system may call sh.
	for _, shell := range [][]string{{"dash"}, {"bash", "--posix"}, {"busybox", "sh"}} {
		t.Run("upgrade in place with "+shell[0]+", on PATH", func(t *testing.T) {
			if _, err := exec.LookPath(shell[0]); err != nil {
				t.Skipf("%s not installed", shell[0])
			}
			prefix := t.TempDir()
			bindir := filepath.Join(prefix, "bin")
			writeFile(t, filepath.Join(bindir, "gw"), "#!/bin/sh\necho old gw\n", 0o755)
			res := runInstallWith(t, shell, []string{"PATH=" + bindir + string(os.PathListSeparator) + os.Getenv("PATH")},
				"--prefix", prefix, "--url="+srv.URL, "--version", "v"+testVersion)
			res.wantExit(t, 0)
			if strings.Contains(res.stdout, "not on your PATH") {
				t.Errorf("stdout asks to change PATH although %s is on it:\n%s", bindir, res.stdout)
			}
			if got := runGW(t, filepath.Join(bindir, "gw"), "version"); !strings.HasPrefix(got, "gw version 9.9.9-test ") {
				t.Errorf("after upgrade, gw version = %q; want the new build", got)
			}
		})
	}

	t.Run("from a local directory", func(t *testing.T) {
		prefix := t.TempDir()
		res := runInstall(t, nil, "--prefix", prefix, "--url", rel.dir)
		res.wantExit(t, 0)
		if _, err := os.Stat(filepath.Join(prefix, "bin", "gw")); err != nil {
			t.Errorf("gw not installed: %v", err)
		}
	})

	t.Run("unknown version", func(t *testing.T) {
		prefix := t.TempDir()
		res := runInstall(t, nil, "--prefix", prefix, "--url", srv.URL, "--version", "1.0.0")
		res.wantExit(t, 1)
		archive := "gw_1.0.0_" + strings.ReplaceAll(platform(), "/", "_") + ".tar.gz"
		want := "install.sh: error: " + srv.URL + "/checksums.txt lists no " + archive +
			": is 1.0.0 a released version with a " + platform() + " build?\n"
		if res.stderr != want {
			t.Errorf("stderr:\n%s\nwant:\n%s", res.stderr, want)
		}
		assertNotInstalled(t, prefix)
	})

	t.Run("no release at the URL", func(t *testing.T) {
		empty := serve(t, t.TempDir(), nil)
		prefix := t.TempDir()
		res := runInstall(t, nil, "--prefix", prefix, "--url", empty.URL+"/")
		res.wantExit(t, 1)
		if want := "install.sh: error: could not download " + empty.URL + "/checksums.txt ("; !strings.HasPrefix(res.stderr, want) {
			t.Errorf("stderr:\n%s\nwant it to start with:\n%s", res.stderr, want)
		}
		if _, err := exec.LookPath("curl"); err == nil && !strings.Contains(res.stderr, "404") {
			t.Errorf("stderr does not name the HTTP status: %s", res.stderr)
		}
		assertNotInstalled(t, prefix)
	})

	t.Run("bad option", func(t *testing.T) {
		res := runInstall(t, nil, "--prefx", "/tmp/x")
		res.wantExit(t, 1)
		if want := "install.sh: error: unknown option '--prefx'; see --help\n"; res.stderr != want {
			t.Errorf("stderr = %q, want %q", res.stderr, want)
		}
		res = runInstall(t, nil, "--prefix")
		res.wantExit(t, 1)
		if want := "install.sh: error: --prefix needs a value; see --help\n"; res.stderr != want {
			t.Errorf("stderr = %q, want %q", res.stderr, want)
		}
	})
}

// A corrupted download must be refused and must leave an installed gw alone.
func TestInstall_CorruptArchive(t *testing.T) {
	requireTools(t)
	rel := makeRelease(t)
	var corrupted []byte
	srv := serve(t, rel.dir, func(name string, b []byte) []byte {
		if strings.HasSuffix(name, ".tar.gz") {
			b = bytes.Clone(b)
			b[len(b)/2] ^= 0xff
			corrupted = b
		}
		return b
	})
	prefix := t.TempDir()
	old := "#!/bin/sh\necho old gw\n"
	writeFile(t, filepath.Join(prefix, "bin", "gw"), old, 0o755)

	res := runInstall(t, nil, "--prefix", prefix, "--url", srv.URL)
	res.wantExit(t, 1)
	want := "install.sh: error: checksum mismatch for " + rel.archive + ": checksums.txt says " + rel.sum +
		", the download is " + sha256hex(corrupted) + "; the file is corrupt or was tampered with, so nothing was installed\n"
	if res.stderr != want {
		t.Errorf("stderr:\n%s\nwant:\n%s", res.stderr, want)
	}
	if b, err := os.ReadFile(filepath.Join(prefix, "bin", "gw")); err != nil || string(b) != old {
		t.Errorf("the installed gw was changed by a refused install (err %v)", err)
	}
}

// uname is faked because this machine has one OS and one CPU; everything else is real.
func TestInstall_UnsupportedPlatform_FakeUname(t *testing.T) {
	requireTools(t)
	tests := []struct{ s, m, want string }{
		{"Linux", "riscv64", "install.sh: error: no gw release for CPU architecture 'riscv64' (there are builds for amd64 and arm64); build from source with: go install github.com/modelgateway/gw/cmd/gw@latest\n"},
		{"FreeBSD", "amd64", "install.sh: error: no gw release for operating system 'FreeBSD' (there are builds for Linux, macOS and Windows); build from source with: go install github.com/modelgateway/gw/cmd/gw@latest\n"},
		{"MINGW64_NT-10.0-19045", "x86_64", "install.sh: error: this installer is for Linux and macOS; on Windows run 'scoop install gw' or download the zip from https://github.com/modelgateway/gw/releases\n"},
	}
	for _, tt := range tests {
		t.Run(tt.s+"/"+tt.m, func(t *testing.T) {
			fake := t.TempDir()
			writeFile(t, filepath.Join(fake, "uname"), fmt.Sprintf("#!/bin/sh\ncase $1 in -s) echo %s ;; -m) echo %s ;; esac\n", tt.s, tt.m), 0o755)
			prefix := t.TempDir()
			res := runInstall(t, []string{"PATH=" + fake + string(os.PathListSeparator) + os.Getenv("PATH")},
				"--prefix", prefix, "--url", "http://127.0.0.1:9/unused")
			res.wantExit(t, 1)
			if res.stderr != tt.want {
				t.Errorf("stderr:\n%s\nwant:\n%s", res.stderr, tt.want)
			}
			assertNotInstalled(t, prefix)
		})
	}
}

// The archives of a goreleaser snapshot (dist/), served on 127.0.0.1.
func TestInstall_GoreleaserDist(t *testing.T) {
	dist := os.Getenv("GW_DIST_DIR")
	if dist == "" {
		t.Skip("GW_DIST_DIR not set; scripts/release-check.sh runs this after a snapshot build")
	}
	requireTools(t)
	var meta struct {
		Version string `json:"version"`
		Commit  string `json:"commit"` // "none" when git could not tell (no remote)
	}
	b, err := os.ReadFile(filepath.Join(dist, "metadata.json"))
	if err != nil {
		t.Fatalf("reading goreleaser's metadata: %v", err)
	}
	if err := json.Unmarshal(b, &meta); err != nil || meta.Version == "" {
		t.Fatalf("dist/metadata.json has no version (err %v)", err)
	}

	srv := serve(t, dist, nil)
	prefix := t.TempDir()
	res := runInstall(t, nil, "--prefix", prefix, "--url", srv.URL)
	res.wantExit(t, 0)
	got := runGW(t, filepath.Join(prefix, "bin", "gw"), "version")
	if !strings.HasPrefix(got, "gw version "+meta.Version+" (") {
		t.Errorf("installed gw version:\n%s\nwant version %s and its build date", got, meta.Version)
	}
	if len(meta.Commit) >= 7 && meta.Commit != "none" && !strings.Contains(got, "(commit "+meta.Commit[:7]+", ") {
		t.Errorf("installed gw version:\n%s\nwant commit %s", got, meta.Commit[:7])
	}
	if u := os.Getenv("GW_DEFAULT_BASE_URL"); u != "" && !strings.Contains(got, "default base URL: "+u+"\n") {
		t.Errorf("installed gw version:\n%s\nwant default base URL %s", got, u)
	}
	t.Logf("installed from dist/:\n%s", got)

	bad := serve(t, dist, func(name string, b []byte) []byte {
		if strings.HasSuffix(name, ".tar.gz") {
			b = bytes.Clone(b)
			b[len(b)/2] ^= 0xff
		}
		return b
	})
	prefix = t.TempDir()
	res = runInstall(t, nil, "--prefix", prefix, "--url", bad.URL)
	res.wantExit(t, 1)
	if !strings.Contains(res.stderr, "checksum mismatch for gw_"+meta.Version+"_") {
		t.Errorf("a corrupted archive was not refused with a checksum error; stderr:\n%s", res.stderr)
	}
	assertNotInstalled(t, prefix)
}

type release struct {
	dir     string // checksums.txt and the archive, as on a release page
	archive string // gw_<version>_<os>_<arch>.tar.gz
	sum     string
}

// makeRelease builds gw for this machine with the release's -ldflags and packs
// it as .goreleaser.yaml does: gw, LICENSE and completions/ in a tar.gz.
func makeRelease(t *testing.T) release {
	t.Helper()
	build := t.TempDir()
	gw := filepath.Join(build, "gw")
	pkg := "github.com/modelgateway/gw/cmd/build."
	ldflags := "-X " + pkg + "Version=" + testVersion + " -X " + pkg + "Commit=" + testCommit +
		" -X " + pkg + "Date=" + testDate + " -X " + pkg + "DefaultBaseURL=" + testBaseURL
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags", ldflags, "-o", gw, "../cmd/gw")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/gw: %v\n%s", err, out)
	}

	files := map[string][]byte{"gw": readFile(t, gw), "LICENSE": readFile(t, "../LICENSE")}
	for shell, name := range map[string]string{"bash": "gw.bash", "zsh": "_gw", "fish": "gw.fish"} {
		files["completions/"+name] = []byte(runGW(t, gw, "completion", shell))
	}
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for name, b := range files {
		mode := int64(0o644)
		if name == "gw" {
			mode = 0o755
		}
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: mode, Size: int64(len(b)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write(b); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}

	r := release{dir: t.TempDir(), archive: "gw_" + testVersion + "_" + runtime.GOOS + "_" + runtime.GOARCH + ".tar.gz"}
	r.sum = sha256hex(buf.Bytes())
	writeFile(t, filepath.Join(r.dir, r.archive), buf.String(), 0o644)
	// Other platforms and packages sit in the same checksums.txt; the script must pick its own.
	other := "0000000000000000000000000000000000000000000000000000000000000000"
	sums := other + "  gw_" + testVersion + "_amd64.deb\n" +
		other + "  gw_" + testVersion + "_plan9_" + runtime.GOARCH + ".tar.gz\n" +
		r.sum + "  " + r.archive + "\n" +
		other + "  gw_" + testVersion + "_windows_" + runtime.GOARCH + ".zip\n"
	writeFile(t, filepath.Join(r.dir, "checksums.txt"), sums, 0o644)
	return r
}

// serve serves dir on 127.0.0.1, passing each file's bytes through alter when given.
func serve(t *testing.T, dir string, alter func(name string, b []byte) []byte) *httptest.Server {
	t.Helper()
	var h http.Handler = http.FileServer(http.Dir(dir))
	if alter != nil {
		h = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(filepath.Clean("/"+r.URL.Path))))
			if err != nil {
				http.NotFound(w, r)
				return
			}
			w.Write(alter(r.URL.Path, b))
		})
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &httptest.Server{Listener: l, Config: &http.Server{Handler: h}}
	srv.Start()
	t.Cleanup(srv.Close)
	return srv
}

type result struct {
	stdout, stderr string
	exit           int
}

func (r result) wantExit(t *testing.T, code int) {
	t.Helper()
	if r.exit != code {
		t.Fatalf("install.sh exited %d, want %d\nstdout:\n%s\nstderr:\n%s", r.exit, code, r.stdout, r.stderr)
	}
}

// runInstall runs install.sh with sh, a clean environment (PATH, HOME and
// TMPDIR from the test unless env overrides them) and args.
func runInstall(t *testing.T, env []string, args ...string) result {
	t.Helper()
	return runInstallWith(t, []string{"sh"}, env, args...)
}

func runInstallWith(t *testing.T, shell []string, env []string, args ...string) result {
	t.Helper()
	argv := append(append(append([]string{}, shell[1:]...), "install.sh"), args...)
	cmd := exec.Command(shell[0], argv...)
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "TMPDIR=" + t.TempDir()}, env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	res := result{stdout: stdout.String(), stderr: stderr.String()}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		res.exit = ee.ExitCode()
	case err != nil:
		t.Fatalf("running install.sh: %v", err)
	}
	return res
}

func runGW(t *testing.T, gw string, args ...string) string {
	t.Helper()
	cmd := exec.Command(gw, args...)
	cmd.Env = []string{"HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH")}
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", gw, strings.Join(args, " "), err, out)
	}
	return string(out)
}

func requireTools(t *testing.T) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("install.sh is for Linux and macOS")
	}
	for _, tools := range [][]string{{"sh"}, {"tar"}, {"curl", "wget"}, {"sha256sum", "shasum", "openssl"}} {
		found := false
		for _, tool := range tools {
			if _, err := exec.LookPath(tool); err == nil {
				found = true
			}
		}
		if !found {
			t.Skipf("install.sh needs one of %v", tools)
		}
	}
}

func assertNotInstalled(t *testing.T, prefix string) {
	t.Helper()
	if _, err := os.Stat(filepath.Join(prefix, "bin", "gw")); err == nil {
		t.Errorf("%s/bin/gw was installed; want nothing installed", prefix)
	}
}

func sha256hex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

func readFile(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func writeFile(t *testing.T, name, content string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
}
