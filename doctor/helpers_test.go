package doctor

import (
	"context"
	"crypto/x509"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/modelgateway/gw/config"
	"github.com/modelgateway/gw/internal/remedy/render"
	"github.com/modelgateway/gw/keychain"
	"github.com/modelgateway/gw/standin"
)

// The client-visible messages, exactly as the service's specification writes them.
const (
	msgKey         = "API key invalid or unauthorized"
	msgUnreachable = "unable to connect to API"
	msgModel       = "model not found / invalid model"
)

func startStandin(t *testing.T, o standin.Options) *standin.Running {
	t.Helper()
	s := standin.Start(o)
	t.Cleanup(s.Close)
	return s
}

func startStandinTLS(t *testing.T, o standin.Options) (*standin.Running, *x509.CertPool) {
	t.Helper()
	s, err := standin.StartTLS(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(s.CertPEM) {
		t.Fatal("stand-in certificate does not parse")
	}
	return s, pool
}

// input is a working setup against base: the base URL is the canonical one, saved in the config file, and
// the key comes from the keychain.
func input(base, key string) Input {
	return Input{
		BaseURL:       base,
		BaseURLSource: config.SourceConfig,
		ConfigBaseURL: base,
		CanonicalURL:  base,
		Key:           keychain.Resolved{Key: key, Source: keychain.SourceKeychain, Backend: "Test Keychain"},
		Timeout:       10 * time.Second,
		StepTimeout:   3 * time.Second,
	}
}

// runDoctor runs the checks and verifies what holds for every report: every stable id is there, OK matches
// the statuses, and the key is nowhere in it.
func runDoctor(t *testing.T, in Input) Report {
	t.Helper()
	rep := Run(context.Background(), in)
	for _, id := range order {
		if _, ok := rep.Get(id); !ok {
			t.Errorf("report lacks check %q", id)
		}
	}
	anyFail := false
	for _, c := range rep.Checks {
		if c.Status == Fail {
			anyFail = true
		}
		if c.Status == Fail && (c.Cause == "" || c.Fix.IsZero()) {
			t.Errorf("failed check %s has no cause or fix: %+v", c.ID, c)
		}
		if c.Status == Skip && c.Cause == "" {
			t.Errorf("skipped check %s does not say why", c.ID)
		}
	}
	if rep.OK == anyFail {
		t.Errorf("ok = %v, but a failed check present = %v", rep.OK, anyFail)
	}
	js, _ := json.Marshal(rep)
	if k := in.Key.Key; len(k) > 8 && strings.Contains(string(js), k) {
		t.Errorf("the report contains the API key: %s", js)
	}
	return rep
}

func get(t *testing.T, rep Report, id string) Check {
	t.Helper()
	c, ok := rep.Get(id)
	if !ok {
		t.Fatalf("no check %q in %s", id, dump(rep))
	}
	return c
}

func dump(rep Report) string {
	b, _ := json.MarshalIndent(rep, "", "  ")
	return string(b)
}

// wantFail asserts a failure with the seed's condition and message, a cause containing every wanted part
// and a fix containing fixPart.
func wantFail(t *testing.T, in Input, rep Report, id, condition, message string, causeParts []string, fixPart string) Check {
	t.Helper()
	c := get(t, rep, id)
	if c.Status != Fail || c.Condition != condition || c.Message != message {
		t.Fatalf("%s: got status %q condition %q message %q, want fail %q %q\ncheck: %+v", id, c.Status, c.Condition, c.Message, condition, message, c)
	}
	for _, p := range causeParts {
		if !strings.Contains(c.Cause, p) {
			t.Errorf("%s: cause %q does not mention %q", id, c.Cause, p)
		}
	}
	if !strings.Contains(fixText(in, c), fixPart) {
		t.Errorf("%s: fix %q does not contain %q", id, fixText(in, c), fixPart)
	}
	if rep.OK {
		t.Errorf("report ok with a failed %s", id)
	}
	return c
}

func wantStatus(t *testing.T, rep Report, id string, st Status) Check {
	t.Helper()
	c := get(t, rep, id)
	if c.Status != st {
		t.Errorf("%s: status %q, want %q (%+v)", id, c.Status, st, c)
	}
	return c
}

// fixText is c's remedy as gw doctor's report says it for in.
func fixText(in Input, c Check) string {
	return render.Text(c.Fix, render.Context{Where: render.Doctor, BaseURL: in.BaseURLSource.Fix(), Key: in.Key.Source.Fix()})
}
