package root

import (
	"encoding/pem"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/modelgateway/gw/standin"
)

// cmdHostile starts a hostile service for the rest of the script (the "hostile service" set: what a wrong base
// URL, a captive portal or a malicious server in between answers) and points GW_BASE_URL at it.
//
//	hostile redirect [-status N]
//	    an https server answering every request with N (301) and a Location on a plain-http server on the same
//	    host (the same path, with a query that must never be printed). That server is the stand-in, so a
//	    client that followed the redirect would be told its key works. Sets SSL_CERT_FILE (gw trusts the https
//	    server's certificate), $HOSTILE_TARGET (the plain-http server's root URL) and $HOSTILE_LOG (a file the
//	    plain-http server appends a line to for every request it gets; absent while none came).
//	hostile hugebody [-status N] [-size BYTES]
//	    an http server answering every request with N (401) and a body of BYTES (100 MB), streamed, that
//	    starts like an error saying the key is invalid.
func cmdHostile(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) == 0 {
		ts.Fatalf("usage: hostile redirect [-status N] | hostile hugebody [-status N] [-size BYTES]")
	}
	fl := flag.NewFlagSet("hostile "+args[0], flag.ContinueOnError)
	status := fl.Int("status", 0, "the status of every answer")
	size := fl.Int64("size", 100<<20, "the size of the body (hugebody)")
	if err := fl.Parse(args[1:]); err != nil {
		ts.Fatalf("hostile: %v", err)
	}
	switch args[0] {
	case "redirect":
		if *status == 0 {
			*status = http.StatusMovedPermanently
		}
		logPath := ts.MkAbs("hostile-target.log")
		var mu sync.Mutex
		up := standin.New(standin.Options{Accounts: standin.DefaultAccounts()})
		target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			f, err := os.OpenFile(logPath, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
			if err == nil {
				fmt.Fprintf(f, "%s %s authorization=%v\n", r.Method, r.URL.Path, r.Header.Get("Authorization") != "")
				f.Close()
			}
			mu.Unlock()
			up.ServeHTTP(w, r)
		}))
		ts.Defer(target.Close)
		ts.Defer(up.Close)
		srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Location", target.URL+r.URL.Path+"?sig=hostile-query-secret")
			w.WriteHeader(*status)
		}))
		ts.Defer(srv.Close)
		cert := filepath.Join(ts.MkAbs("."), "hostile-ca.pem")
		ts.Check(os.WriteFile(cert, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o600))
		ts.Setenv("SSL_CERT_FILE", cert)
		ts.Setenv("GW_BASE_URL", srv.URL+"/v1")
		ts.Setenv("HOSTILE_TARGET", target.URL)
		ts.Setenv("HOSTILE_LOG", logPath)
	case "hugebody":
		if *status == 0 {
			*status = http.StatusUnauthorized
		}
		chunk := []byte(strings.Repeat(`{"error":{"message":"Invalid API key. `, 1<<10))
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(*status)
			for n := int64(0); n < *size; n += int64(len(chunk)) {
				if _, err := w.Write(chunk); err != nil {
					return
				}
			}
		}))
		ts.Defer(srv.Close)
		ts.Setenv("GW_BASE_URL", srv.URL+"/v1")
	default:
		ts.Fatalf("hostile: unknown service %q", args[0])
	}
}
