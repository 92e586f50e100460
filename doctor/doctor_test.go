package doctor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelgateway/gw/api"
	"github.com/modelgateway/gw/api/apitest"

	"github.com/modelgateway/gw/config"
	"github.com/modelgateway/gw/keychain"
	"github.com/modelgateway/gw/standin"
)

func TestRun_AllWell(t *testing.T) {
	s := startStandin(t, standin.Options{})
	in := input(s.BaseURL, standin.DemoKeyFull)
	in.Models = []string{"vendor-a/model-a-opus-4.6", "vendor-b/model-b-3-pro-preview"}
	var reported []string
	in.OnCheck = func(c Check) { reported = append(reported, c.ID) }
	rep := runDoctor(t, in)
	if !rep.OK {
		t.Fatalf("not ok:\n%s", dump(rep))
	}
	if len(reported) != len(rep.Checks) {
		t.Errorf("OnCheck saw %v, the report has %d checks", reported, len(rep.Checks))
	}
	for _, id := range []string{IDConfig, IDBaseURL, IDDNS, IDTCP, IDHTTP, IDKey, IDModels, IDKeychain,
		"model:vendor-a/model-a-opus-4.6", "model:vendor-b/model-b-3-pro-preview"} {
		wantStatus(t, rep, id, Pass)
	}
	// Plain http to a loopback stand-in: TLS does not apply; no agent config or proxy address was given.
	for _, id := range []string{IDTLS, IDAgentConfig, IDProxy} {
		wantStatus(t, rep, id, Skip)
	}
	if k := get(t, rep, IDKey); !strings.Contains(k.Detail, keychain.Mask(standin.DemoKeyFull)) {
		t.Errorf("key detail %q does not show the masked key", k.Detail)
	}
	if m := get(t, rep, IDModels); !strings.Contains(m.Detail, "8 available") {
		t.Errorf("models detail %q does not count the 8 models", m.Detail)
	}
}

func TestRun_AllWellOverTLS(t *testing.T) {
	s, pool := startStandinTLS(t, standin.Options{})
	in := input(s.BaseURL, standin.DemoKeyFull)
	in.Network.RootCAs = pool
	rep := runDoctor(t, in)
	if !rep.OK {
		t.Fatalf("not ok:\n%s", dump(rep))
	}
	c := wantStatus(t, rep, IDTLS, Pass)
	// The issuer by its short name only: the detail is one line, and the organisation adds nothing there.
	if !strings.Contains(c.Detail, `certificate issued by "localhost", valid until `) || !strings.Contains(c.Detail, "TLS 1.3") {
		t.Errorf("tls detail %q does not name the version and the issuer", c.Detail)
	}
}

// A base URL pasted with a password and a query is shown with both hidden, the query as "?…" like the
// problem list beside it.
func TestRun_BaseURLSecretsHidden(t *testing.T) {
	in := input("http://127.0.0.1:1/v1", "")
	in.BaseURL = "http://user:hunter2@127.0.0.1:1/v1/?token=abc123"
	rep := runDoctor(t, in)
	c := get(t, rep, IDBaseURL)
	if strings.Contains(c.Cause, "hunter2") || strings.Contains(c.Cause, "abc123") {
		t.Fatalf("base URL cause shows a secret: %q", c.Cause)
	}
	if want := `the base URL "http://user:xxxxx@127.0.0.1:1/v1/?…" (from the config file)`; !strings.HasPrefix(c.Cause, want) {
		t.Errorf("base URL cause %q, want it to start %q", c.Cause, want)
	}
}

func TestRun_WrongKey(t *testing.T) {
	for _, d := range standin.Dialects() {
		t.Run(d, func(t *testing.T) {
			s := startStandin(t, standin.Options{Dialect: d})
			in := input(s.BaseURL, "sk-wrong-0000000000")
			rep := runDoctor(t, in)
			c := wantFail(t, in, rep, IDKey, "key rejected", msgKey, nil, "gw auth login")
			if strings.Contains(c.Cause, "balance is exhausted") && !strings.Contains(c.Cause, "either") {
				t.Errorf("a wrong key is reported as an exhausted balance: %q", c.Cause)
			}
			wantStatus(t, rep, IDHTTP, Pass)
			wantStatus(t, rep, IDModels, Skip)
		})
	}
}

// An exhausted balance, answered with each status gateways use, in each dialect — whether the service
// refuses the model list too or lists models whatever the balance (then the one-token request finds it).
func TestRun_ExhaustedBalance(t *testing.T) {
	for _, d := range standin.Dialects() {
		for _, status := range []int{401, 402, 403, 429} {
			for _, listAnyway := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s/%d/list-anyway=%v", d, status, listAnyway), func(t *testing.T) {
					s := startStandin(t, standin.Options{Dialect: d, BalanceStatus: status, ModelsIgnoreBalance: listAnyway})
					in := input(s.BaseURL, standin.DemoKeyNoBalance)
					in.Models = []string{"vendor-a/model-a-haiku-4.5"}
					rep := runDoctor(t, in)
					wantFail(t, in, rep, IDKey, "key rejected", msgKey, []string{"balance is exhausted", fmt.Sprint(status)}, "top up")
					if listAnyway {
						wantStatus(t, rep, IDModels, Pass) // the list came; the model ids are still checked against it
						wantStatus(t, rep, "model:vendor-a/model-a-haiku-4.5", Pass)
					}
				})
			}
		}
	}
}

// Without the probe, a gateway that lists models whatever the balance cannot show an empty one.
func TestRun_NoProbe(t *testing.T) {
	s := startStandin(t, standin.Options{ModelsIgnoreBalance: true})
	in := input(s.BaseURL, standin.DemoKeyNoBalance)
	in.NoProbe = true
	in.Models = []string{"vendor-a/model-a-haiku-4.5"}
	rep := runDoctor(t, in)
	wantStatus(t, rep, IDKey, Pass)
	wantStatus(t, rep, "model:vendor-a/model-a-haiku-4.5", Pass)
	for _, seen := range s.Seen() {
		if seen.Path == "/v1/chat/completions" {
			t.Errorf("a chat request was sent with NoProbe: %+v", seen)
		}
	}
}

// listsEverything is a gateway that lists the whole catalogue to every key but refuses a model outside the
// plan when it is used (in front of the stand-in, which does the refusing).
func listsEverything(t *testing.T, o standin.Options) string {
	t.Helper()
	s := standin.New(o)
	t.Cleanup(s.Close)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/models" && r.Header.Get("Authorization") != "" {
			var data []map[string]string
			for _, id := range standin.ModelIDs() {
				data = append(data, map[string]string{"id": id, "object": "model"})
			}
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data})
			return
		}
		s.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/v1"
}

// A model outside the subscription that the list does not reveal: the one-token request is refused with
// 404 or 400 in each dialect, and the check says the model is not in the subscription.
func TestRun_ModelOutsideSubscriptionListedAnyway(t *testing.T) {
	for _, d := range standin.Dialects() {
		for _, status := range []int{404, 400} {
			t.Run(fmt.Sprintf("%s/%d", d, status), func(t *testing.T) {
				base := listsEverything(t, standin.Options{Dialect: d, ModelStatus: status})
				in := input(base, standin.DemoKeyPartial)
				in.Models = []string{"vendor-a/model-a-opus-4.6", "vendor-a/model-a-haiku-4.5"}
				rep := runDoctor(t, in)
				wantFail(t, in, rep, "model:vendor-a/model-a-opus-4.6", "unknown model", msgModel,
					[]string{"spelled right", fmt.Sprint(status), "not in this account's subscription"}, "gw models")
				wantStatus(t, rep, "model:vendor-a/model-a-haiku-4.5", Pass)
			})
		}
	}
}

// A gateway that answers an empty balance exactly like a wrong key: still the seed's "key rejected", and the
// cause quotes what the service said.
func TestRun_ExhaustedBalanceHidden(t *testing.T) {
	for _, d := range standin.Dialects() {
		t.Run(d, func(t *testing.T) {
			s := startStandin(t, standin.Options{Dialect: d, HideBalanceCause: true})
			in := input(s.BaseURL, standin.DemoKeyNoBalance)
			rep := runDoctor(t, in)
			wantFail(t, in, rep, IDKey, "key rejected", msgKey, []string{"401", "refused the key"}, "gw auth login")
		})
	}
}

// A bare 401 says nothing about why: the cause says it may be the key or the balance.
func TestRun_KeyRefusedWithoutReason(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "Unauthorized", http.StatusUnauthorized)
	}))
	t.Cleanup(srv.Close)
	in := input(srv.URL+"/v1", "sk-some-key-1234")
	rep := runDoctor(t, in)
	wantStatus(t, rep, IDHTTP, Pass)
	wantFail(t, in, rep, IDKey, "key rejected", msgKey, []string{"either the key is wrong or the account's balance is exhausted"}, "check the balance")
}

func TestRun_NoKeyStored(t *testing.T) {
	s := startStandin(t, standin.Options{})
	in := input(s.BaseURL, "")
	in.Key = keychain.Resolved{}
	in.KeyErr = fmt.Errorf("%w: GW_API_KEY is not set, nothing in Test Keychain", keychain.ErrNotFound)
	in.KeychainBackend = "Test Keychain"
	rep := runDoctor(t, in)
	wantFail(t, in, rep, IDKey, "key rejected", msgKey, []string{"no API key"}, "gw auth login")
	c := wantStatus(t, rep, IDKeychain, Fail)
	if !strings.Contains(c.Cause, "Test Keychain") {
		t.Errorf("keychain cause %q does not name the backend looked in", c.Cause)
	}
	wantStatus(t, rep, IDHTTP, Pass) // the service itself is fine
}

// With no backend name known (no keychain could be asked for one), the keychain check still says where it
// looked, and the key check still gives its own wording of the same finding.
func TestRun_NoKeyStored_UnnamedKeychain(t *testing.T) {
	s := startStandin(t, standin.Options{})
	in := input(s.BaseURL, "")
	in.Key = keychain.Resolved{}
	rep := runDoctor(t, in)
	c := wantStatus(t, rep, IDKeychain, Fail)
	if want := "no key is stored: GW_API_KEY is not set and the OS keychain has no key for gw"; c.Cause != want || fixText(in, c) != "run: gw auth login" {
		t.Errorf("keychain check: cause %q fix %q, want cause %q fix %q", c.Cause, fixText(in, c), want, "run: gw auth login")
	}
	wantFail(t, in, rep, IDKey, "key rejected", msgKey, []string{"GW_API_KEY is not set and no key is stored"}, "run: gw auth login (or set GW_API_KEY)")
}

func TestRun_BaseURLShapes(t *testing.T) {
	s := startStandin(t, standin.Options{})
	canon := s.BaseURL // http://127.0.0.1:PORT/v1
	root := strings.TrimSuffix(canon, "/v1")
	cases := []struct {
		name, given, problem string
	}{
		{"missing /v1", root, "does not end in /v1"},
		{"trailing slash", canon + "/", "trailing slash"},
		{"pasted /v1/chat/completions", canon + "/chat/completions", "/chat/completions"},
		{"pasted /v1/models", canon + "/models", "/models"},
		{"whitespace", " " + canon + "\n", "whitespace"},
		{"non-http scheme", "ftp" + strings.TrimPrefix(canon, "http"), `scheme "ftp"`},
	}
	for _, src := range []config.Source{config.SourceFlag, config.SourceEnv, config.SourceConfig} {
		for _, tc := range cases {
			t.Run(string(src)+"/"+tc.name, func(t *testing.T) {
				in := input(tc.given, standin.DemoKeyFull)
				in.CanonicalURL, in.BaseURLSource = canon, src
				rep := runDoctor(t, in)
				fixed := canon
				if tc.name == "non-http scheme" {
					fixed = "https" + strings.TrimPrefix(canon, "http")
				}
				c := wantFail(t, in, rep, IDBaseURL, "service unreachable", msgUnreachable, []string{tc.problem}, fixed)
				switch src {
				case config.SourceFlag:
					if !strings.Contains(fixText(in, c), "--base-url") {
						t.Errorf("fix %q does not say to change the flag", fixText(in, c))
					}
				case config.SourceEnv:
					if !strings.Contains(fixText(in, c), "GW_BASE_URL=") {
						t.Errorf("fix %q does not say to change GW_BASE_URL", fixText(in, c))
					}
				case config.SourceConfig:
					if !strings.Contains(fixText(in, c), "gw auth login --base-url") {
						t.Errorf("fix %q does not say to log in with the right URL", fixText(in, c))
					}
				}
				if tc.name != "non-http scheme" {
					// The rest is checked with the corrected URL, so the report still says the key works.
					h := wantStatus(t, rep, IDHTTP, Pass)
					if !strings.Contains(h.Detail, "corrected base URL") {
						t.Errorf("http detail %q does not say the corrected URL was used", h.Detail)
					}
					wantStatus(t, rep, IDKey, Pass)
				}
			})
		}
	}
}

func TestRun_HTTPWhereHTTPSWasConfigured(t *testing.T) {
	s, pool := startStandinTLS(t, standin.Options{})
	https := s.BaseURL
	http := "http" + strings.TrimPrefix(https, "https")
	for _, tc := range []struct{ name, configured, canonical string }{
		{"config file says https", https, ""},
		{"canonical is https", "", https},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := input(http, standin.DemoKeyFull)
			in.BaseURLSource, in.ConfigBaseURL, in.CanonicalURL = config.SourceEnv, tc.configured, tc.canonical
			in.Network.RootCAs = pool
			rep := runDoctor(t, in)
			wantFail(t, in, rep, IDBaseURL, "service unreachable", msgUnreachable, []string{"uses http", "unencrypted"}, "GW_BASE_URL="+https)
			wantStatus(t, rep, IDTLS, Pass) // checked on the https URL
			wantStatus(t, rep, IDKey, Pass)
		})
	}
}

// A base URL other than the canonical one: a warning while a service answers there (a staging gateway), the
// seed's "base address differs" failure when nothing does — unless the user asked for it on the command line.
func TestRun_BaseURLDiffersFromCanonical(t *testing.T) {
	s := startStandin(t, standin.Options{})
	canonical := "https://gateway.example/v1"
	dead := "http://" + apitest.ClosedAddr(t) + "/v1"
	cases := []struct {
		name, base string
		src        config.Source
		want       Status
	}{
		{"staging in GW_BASE_URL answers", s.BaseURL, config.SourceEnv, Warn},
		{"staging in the config answers", s.BaseURL, config.SourceConfig, Warn},
		{"asked for with --base-url", dead, config.SourceFlag, Warn},
		{"config points at nothing", dead, config.SourceConfig, Fail},
		{"GW_BASE_URL points at nothing", dead, config.SourceEnv, Fail},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			in := input(tc.base, standin.DemoKeyFull)
			in.BaseURLSource, in.CanonicalURL, in.ConfigBaseURL = tc.src, canonical, ""
			rep := runDoctor(t, in)
			if tc.want == Fail {
				fix := "gw auth login --base-url " + canonical
				if tc.src == config.SourceEnv {
					fix = "run: export GW_BASE_URL=" + canonical
				}
				c := wantFail(t, in, rep, IDBaseURL, "service unreachable", msgUnreachable, []string{"differs from the service's address " + canonical, "see tcp"}, fix)
				// The connection that failed has the same one thing to do, not another way to set the base URL.
				if tcp := get(t, rep, IDTCP); fixText(in, tcp) != fixText(in, c) {
					t.Errorf("tcp's fix %q, base_url's %q: want one fix", fixText(in, tcp), fixText(in, c))
				}
				return
			}
			c := wantStatus(t, rep, IDBaseURL, Warn)
			if !strings.Contains(c.Cause, canonical) || c.Condition != "" {
				t.Errorf("warning %+v should name %s and carry no condition", c, canonical)
			}
		})
	}
}

func TestRun_DNSFailure(t *testing.T) {
	s := startStandin(t, standin.Options{})
	port := s.HTTP.Listener.Addr().(*net.TCPAddr).Port
	resolver := apitest.FakeDNS(t, apitest.Hosts(map[string]string{"gateway.test": "127.0.0.1"}))

	base := fmt.Sprintf("http://gateway.invalid:%d/v1", port)
	in := input(base, standin.DemoKeyFull)
	in.Network.Resolver = resolver
	rep := runDoctor(t, in)
	wantFail(t, in, rep, IDDNS, "service unreachable", msgUnreachable, []string{`"gateway.invalid"`, "does not exist"}, "host name")
	for _, id := range []string{IDTCP, IDHTTP, IDKey, IDModels} {
		if c := wantStatus(t, rep, id, Skip); !strings.Contains(c.Cause, "dns") {
			t.Errorf("%s skipped without pointing at dns: %q", id, c.Cause)
		}
	}

	// The same resolver finds a name it knows, and the whole path then works through it.
	in = input(fmt.Sprintf("http://gateway.test:%d/v1", port), standin.DemoKeyFull)
	in.Network.Resolver = resolver
	rep = runDoctor(t, in)
	if !rep.OK {
		t.Fatalf("known name does not work:\n%s", dump(rep))
	}
	if c := get(t, rep, IDDNS); !strings.Contains(c.Detail, "127.0.0.1") {
		t.Errorf("dns detail %q does not show the address", c.Detail)
	}
}

// Nothing answers at a base URL from GW_BASE_URL or --base-url: the fix is about that variable or flag, not
// gw auth login, whose saved base URL they override.
func TestRun_RefusedPortFixFollowsTheSource(t *testing.T) {
	addr := apitest.ClosedAddr(t)
	for src, want := range map[config.Source]string{
		config.SourceEnv:    "run: export GW_BASE_URL=<the service's address from the dashboard, ending in /v1>",
		config.SourceFlag:   "run again with --base-url <the service's address from the dashboard, ending in /v1>",
		config.SourceConfig: "run: gw auth login --base-url <the service's address from the dashboard, ending in /v1>",
	} {
		in := input("http://"+addr+"/v1", standin.DemoKeyFull)
		in.BaseURLSource, in.CanonicalURL = src, ""
		rep := runDoctor(t, in)
		c := wantStatus(t, rep, IDTCP, Fail)
		if !strings.HasSuffix(fixText(in, c), want) {
			t.Errorf("source %s: fix %q, want it to end in %q", src, fixText(in, c), want)
		}
		if src != config.SourceConfig && strings.Contains(fixText(in, c), "gw auth login") {
			t.Errorf("source %s: fix %q says to log in, which %s overrides", src, fixText(in, c), src)
		}
	}
}

func TestRun_RefusedPort(t *testing.T) {
	addr := apitest.ClosedAddr(t)
	in := input("http://"+addr+"/v1", standin.DemoKeyFull)
	rep := runDoctor(t, in)
	wantStatus(t, rep, IDDNS, Pass)
	wantFail(t, in, rep, IDTCP, "service unreachable", msgUnreachable, []string{addr, "refused"}, "gw auth login --base-url")
	for _, id := range []string{IDHTTP, IDKey, IDModels} {
		wantStatus(t, rep, id, Skip)
	}
}

func TestRun_TLSFailure(t *testing.T) {
	t.Run("untrusted stand-in certificate", func(t *testing.T) {
		s, _ := startStandinTLS(t, standin.Options{})
		in := input(s.BaseURL, standin.DemoKeyFull) // the system roots do not trust it
		rep := runDoctor(t, in)
		wantFail(t, in, rep, IDTLS, "service unreachable", msgUnreachable, []string{`issued by "localhost" (gw stand-in)`, "does not trust"}, "root certificate")
		wantStatus(t, rep, IDHTTP, Skip)
	})
	t.Run("untrusted httptest certificate", func(t *testing.T) {
		srv := httptest.NewTLSServer(standin.New(standin.Options{}))
		t.Cleanup(srv.Close)
		in := input(srv.URL+"/v1", standin.DemoKeyFull)
		rep := runDoctor(t, in)
		wantFail(t, in, rep, IDTLS, "service unreachable", msgUnreachable, []string{"Acme Co"}, "root certificate")
	})
	t.Run("https to a plain http port", func(t *testing.T) {
		s := startStandin(t, standin.Options{})
		base := "https" + strings.TrimPrefix(s.BaseURL, "http")
		in := input(base, standin.DemoKeyFull)
		rep := runDoctor(t, in)
		wantFail(t, in, rep, IDTLS, "service unreachable", msgUnreachable, []string{"does not speak TLS"}, "scheme")
	})
}

func TestRun_TimeOut(t *testing.T) {
	s := startStandin(t, standin.Options{Fault: standin.Fault{Kind: standin.FaultHang}})
	in := input(s.BaseURL, standin.DemoKeyFull)
	in.StepTimeout = 300 * time.Millisecond
	rep := runDoctor(t, in)
	wantStatus(t, rep, IDTCP, Pass)
	c := wantFail(t, in, rep, IDHTTP, "service unreachable", msgUnreachable, nil, "network")
	if !strings.Contains(c.Cause, "in time") && !strings.Contains(c.Cause, "within the time") && !strings.Contains(c.Cause, "timed out") {
		t.Errorf("http cause %q does not say it timed out", c.Cause)
	}
	wantStatus(t, rep, IDKey, Skip)
}

// TestRun_TCPTimeOut_BlockingDialer: loopback cannot drop a SYN, so a dialer that waits for its deadline
// stands in for a firewall that swallows connections.
func TestRun_TCPTimeOut_BlockingDialer(t *testing.T) {
	in := input("https://192.0.2.1/v1", standin.DemoKeyFull)
	in.StepTimeout = 200 * time.Millisecond
	in.Network.Dial = func(ctx context.Context, network, addr string) (net.Conn, error) {
		<-ctx.Done()
		return nil, &net.OpError{Op: "dial", Net: network, Err: ctx.Err()}
	}
	rep := runDoctor(t, in)
	c := wantFail(t, in, rep, IDTCP, "service unreachable", msgUnreachable, []string{"timed out"}, "network")
	if !strings.Contains(c.Cause, "192.0.2.1:443") && !strings.Contains(c.Cause, "the service") {
		t.Errorf("tcp cause %q does not say where it connected", c.Cause)
	}
}

// TestRun_AnswersWhenADialHangs_BlockingDialer: a dialer that ignores its deadline (as a stuck system call
// would) must not hold the report back.
func TestRun_AnswersWhenADialHangs_BlockingDialer(t *testing.T) {
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	in := input("https://192.0.2.1/v1", standin.DemoKeyFull)
	in.Timeout = 600 * time.Millisecond
	in.Network.Dial = func(context.Context, string, string) (net.Conn, error) {
		<-release
		return nil, errors.New("released")
	}
	rep := runDoctor(t, in)
	wantFail(t, in, rep, IDTCP, "service unreachable", msgUnreachable, []string{"did not finish within 600ms"}, "network")
	for _, id := range []string{IDTLS, IDHTTP, IDKey, IDModels} {
		wantStatus(t, rep, id, Fail)
	}
	wantStatus(t, rep, IDConfig, Pass)   // the checks that did finish are reported as they are
	wantStatus(t, rep, IDKeychain, Pass) //
}

func TestRun_MisspelledModel(t *testing.T) {
	for _, d := range standin.Dialects() {
		t.Run(d, func(t *testing.T) {
			s := startStandin(t, standin.Options{Dialect: d})
			in := input(s.BaseURL, standin.DemoKeyFull)
			in.Models = []string{"vendor-a/model-a-opus-4-6", "model-a-sonnet-4.5", "vendor-a/model-a-haiku-4.5"}
			rep := runDoctor(t, in)
			wantFail(t, in, rep, "model:vendor-a/model-a-opus-4-6", "unknown model", msgModel,
				[]string{"not spelled", "vendor-a/model-a-opus-4.6"}, "vendor-a/model-a-opus-4.6")
			wantFail(t, in, rep, "model:model-a-sonnet-4.5", "unknown model", msgModel,
				[]string{"not spelled", "vendor-a/model-a-sonnet-4.5"}, "vendor-a/model-a-sonnet-4.5")
			wantStatus(t, rep, "model:vendor-a/model-a-haiku-4.5", Pass)
		})
	}
}

func TestRun_ModelOutsideSubscription(t *testing.T) {
	for _, d := range standin.Dialects() {
		t.Run(d, func(t *testing.T) {
			s := startStandin(t, standin.Options{Dialect: d})
			in := input(s.BaseURL, standin.DemoKeyPartial)
			in.Models = []string{"vendor-a/model-a-opus-4.6", "vendor-a/model-a-haiku-4.5"}
			rep := runDoctor(t, in)
			c := wantFail(t, in, rep, "model:vendor-a/model-a-opus-4.6", "unknown model", msgModel,
				[]string{"spelled right", "not in this account's subscription"}, "upgrade the plan")
			if strings.Contains(c.Cause, "not spelled") {
				t.Errorf("a real id outside the plan is called misspelled: %q", c.Cause)
			}
			wantStatus(t, rep, "model:vendor-a/model-a-haiku-4.5", Pass)
			if m := get(t, rep, IDModels); !strings.Contains(m.Detail, "not in this subscription: vendor-a/model-a-opus-4.6") {
				t.Errorf("models detail %q does not list what the plan lacks", m.Detail)
			}
		})
	}
}

func TestRun_ServiceErrors(t *testing.T) {
	t.Run("nothing at /models (404)", func(t *testing.T) {
		srv := httptest.NewServer(http.NotFoundHandler())
		t.Cleanup(srv.Close)
		in := input(srv.URL+"/v1", standin.DemoKeyFull)
		rep := runDoctor(t, in)
		wantFail(t, in, rep, IDHTTP, "service unreachable", msgUnreachable, []string{"404"}, "--base-url")
	})
	t.Run("server error", func(t *testing.T) {
		s := startStandin(t, standin.Options{Fault: standin.Fault{Kind: standin.FaultServerError, Status: 500}})
		rep := runDoctor(t, input(s.BaseURL, standin.DemoKeyFull))
		c := wantStatus(t, rep, IDHTTP, Fail)
		if c.Condition != "" || !strings.Contains(c.Cause, "500") {
			t.Errorf("a server error is not one of the seed's conditions and should say 500: %+v", c)
		}
	})
}

func TestRun_ConfigFileDoesNotParse(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "config.json")
	if err := os.WriteFile(path, []byte("{\"base_url\": \n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := config.Load(path)
	if err == nil {
		t.Fatal("config.Load accepted a broken file")
	}
	s := startStandin(t, standin.Options{})

	// The base URL comes from GW_BASE_URL: every other check still runs against it.
	in := input(s.BaseURL, standin.DemoKeyFull)
	in.BaseURLSource, in.ConfigBaseURL = config.SourceEnv, ""
	in.ConfigPath, in.ConfigErr = path, err
	rep := runDoctor(t, in)
	c := wantStatus(t, rep, IDConfig, Fail)
	if !strings.Contains(c.Cause, path) || c.Condition != "" {
		t.Errorf("config failure %+v should name the file and carry no condition", c)
	}
	wantStatus(t, rep, IDBaseURL, Pass)
	wantStatus(t, rep, IDKey, Pass)

	// The base URL would have come from the file (none given otherwise, no default, or the default): base_url
	// is skipped pointing at the config check, not failed as "none configured" or checked as the default.
	for _, tc := range []struct {
		base string
		src  config.Source
	}{{"", ""}, {s.BaseURL, config.SourceDefault}} {
		in := input(tc.base, standin.DemoKeyFull)
		in.BaseURLSource, in.ConfigBaseURL = tc.src, ""
		in.ConfigPath, in.ConfigErr = path, err
		rep := runDoctor(t, in)
		wantStatus(t, rep, IDConfig, Fail)
		c := wantStatus(t, rep, IDBaseURL, Skip)
		if c.Cause != "the config file cannot be read; see the config check" {
			t.Errorf("source %q: base_url cause %q", tc.src, c.Cause)
		}
		if c := wantStatus(t, rep, IDDNS, Skip); !strings.Contains(c.Cause, "(see config)") {
			t.Errorf("source %q: dns cause %q should point at the config check", tc.src, c.Cause)
		}
	}
}

func TestRun_KeyStorage(t *testing.T) {
	s := startStandin(t, standin.Options{})
	cases := []struct {
		name   string
		key    keychain.Resolved
		status Status
		detail string
	}{
		{"environment", keychain.Resolved{Key: standin.DemoKeyFull, Source: keychain.SourceEnv, Backend: "environment variable GW_API_KEY"}, Pass, "GW_API_KEY"},
		{"OS keychain", keychain.Resolved{Key: standin.DemoKeyFull, Source: keychain.SourceKeychain, Backend: "Secret Service (gnome-keyring)"}, Pass, "Secret Service (gnome-keyring)"},
		{"insecure file", keychain.Resolved{Key: standin.DemoKeyFull, Source: keychain.SourceFile, Backend: "file /tmp/x/credentials.json (insecure)"}, Warn, "credentials.json"},
		{"keychain failed, file answered", keychain.Resolved{Key: standin.DemoKeyFull, Source: keychain.SourceFile, Backend: "file c.json (insecure)", Warning: errors.New("Secret Service timed out")}, Warn, "c.json"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			in := input(s.BaseURL, "")
			in.Key = tc.key
			rep := runDoctor(t, in)
			c := wantStatus(t, rep, IDKeychain, tc.status)
			if !strings.Contains(c.Detail, tc.detail) || !strings.Contains(c.Detail, keychain.Mask(tc.key.Key)) {
				t.Errorf("detail %q should name %q and show the masked key", c.Detail, tc.detail)
			}
			if tc.status == Warn && c.Fix.IsZero() {
				t.Errorf("warning without a fix: %+v", c)
			}
		})
	}
}

// With the key in the file the user chose (--insecure-storage) and no usable keychain, the warning is about
// the plain file; it does not tell the user to do what they did (store the key in a file) or to repair a
// keychain first.
func TestRun_KeyStorage_FileChosenNoKeychain(t *testing.T) {
	s := startStandin(t, standin.Options{})
	in := input(s.BaseURL, "")
	in.Key = keychain.Resolved{Key: standin.DemoKeyFull, Source: keychain.SourceFile, Backend: "file c.json (insecure)",
		Warning: &keychain.UnavailableError{Backend: "Secret Service", Err: errors.New("no D-Bus session bus")}}
	c := wantStatus(t, runDoctor(t, in), IDKeychain, Warn)
	if !strings.Contains(c.Cause, "plain file") || !strings.Contains(c.Cause, "Secret Service is not usable: no D-Bus session bus") {
		t.Errorf("cause %q should say the key is in a plain file and why the keychain is not used", c.Cause)
	}
	if strings.Contains(c.Cause, "store the key in a file instead") || strings.Contains(fixText(in, c), "repair") {
		t.Errorf("advice the user already followed, or cannot: cause %q fix %q", c.Cause, fixText(in, c))
	}
	if fixText(in, c) != "once an OS keychain is available, run: gw auth login (it stores the key there)" {
		t.Errorf("fix %q", fixText(in, c))
	}
}

// A one-token request that hangs is not a refusal: the key's note says it timed out.
func TestRun_ProbeTimesOut(t *testing.T) {
	s := startStandin(t, standin.Options{Fault: standin.Fault{Kind: standin.FaultHang, Path: "/chat/completions"}})
	in := input(s.BaseURL, standin.DemoKeyFull)
	in.StepTimeout = 300 * time.Millisecond
	rep := runDoctor(t, in)
	wantStatus(t, rep, IDHTTP, Pass)
	c := wantFail(t, in, rep, IDKey, "service unreachable", msgUnreachable, []string{"no answer in time"}, "network")
	if !strings.Contains(c.Detail, "timed out") || strings.Contains(c.Detail, "refused") {
		t.Errorf("key detail %q: want it to say the one-token request timed out, not that it was refused", c.Detail)
	}
}

// probeOutcome is shared by the key's note and each model's check: only an HTTP answer is a refusal.
func TestProbeOutcome(t *testing.T) {
	for _, tc := range []struct {
		err  *api.Error
		want string
	}{
		{&api.Error{Status: 403, Condition: api.KeyRejected}, "was refused with HTTP 403"},
		{&api.Error{Status: 503}, "failed with HTTP 503"},
		{&api.Error{Condition: api.ServiceUnreachable, Kind: api.KindTimeout}, "timed out without an answer"},
		{&api.Error{Condition: api.ServiceUnreachable, Kind: api.KindReset}, "was cut off before an answer"},
		{&api.Error{Condition: api.ServiceUnreachable, Kind: api.KindOther}, "got no answer"},
	} {
		if got := probeOutcome(tc.err); got != tc.want {
			t.Errorf("probeOutcome(status %d, kind %q) = %q, want %q", tc.err.Status, tc.err.Kind, got, tc.want)
		}
	}
}

// A check's cause says what is wrong and its fix what to do, once: a config file that does not parse and a
// keychain that fails carry their remedy apart from their message, so no cause repeats the advice of its fix.
func TestRun_CausesDoNotRepeatTheirFix(t *testing.T) {
	s := startStandin(t, standin.Options{})
	for name, set := range map[string]func(*Input){
		"config does not parse": func(in *Input) {
			in.ConfigErr = &config.ParseError{Path: "/home/u/.config/gw/config.json", Line: 3, Column: 1, Err: errors.New("invalid character '}'")}
		},
		"keychain timed out": func(in *Input) {
			in.Key, in.KeyErr = keychain.Resolved{}, &keychain.TimeoutError{Op: "reading the key", Backend: "Secret Service", Timeout: 3 * time.Second}
		},
		"keychain unusable": func(in *Input) {
			in.Key, in.KeyErr = keychain.Resolved{}, &keychain.UnavailableError{Backend: "Secret Service", Err: errors.New("no D-Bus session bus")}
		},
	} {
		t.Run(name, func(t *testing.T) {
			in := input(s.BaseURL, standin.DemoKeyFull)
			set(&in)
			for _, c := range runDoctor(t, in).Checks {
				for _, advice := range []string{"gw auth login", "insecure-storage", "by hand", "run:"} {
					if strings.Contains(c.Cause, advice) {
						t.Errorf("%s: cause %q gives advice (%q); the fix is %q", c.ID, c.Cause, advice, fixText(in, c))
					}
				}
			}
		})
	}
}
