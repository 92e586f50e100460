package main

import (
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/modelgateway/gw/standin"
)

const usageText = `usage: gw-standin [flags]

Serves a stand-in of the hosted Model Gateway Service on a local port.
Prints "base_url=<URL>" on stdout once listening; stops on SIGINT or SIGTERM.

flags:
`

// Exit codes.
const (
	exitOK    = 0
	exitError = 1
	exitUsage = 2
)

type config struct {
	addr, dialect, fault, accounts, certOut string
	reasoning                               string
	balanceStatus, modelStatus              int
	contextTokens                           int
	tls, http2, hideBalance                 bool
	modelsIgnoreBalance                     bool
	idleTimeout                             time.Duration
	costCents                               int64
	chunks, chunkSize                       int
}

func parse(args []string, stderr io.Writer) (config, standin.Options, error) {
	var c config
	fs := flag.NewFlagSet("gw-standin", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, usageText)
		fs.PrintDefaults()
	}
	fs.StringVar(&c.addr, "addr", "127.0.0.1:0", "address to listen on; port 0 picks a free port")
	fs.StringVar(&c.dialect, "dialect", standin.DialectOpenAI, "shape of error bodies: "+strings.Join(standin.Dialects(), ", "))
	fs.StringVar(&c.fault, "fault", "none", "misbehaviour: none, slow-headers[:2s], slow-stream[:200ms], reset[:N], 429[:1s], 500, 502, 503[:1s], 529[:1s], overflow[:N], hang; add @/models or @/chat/completions to limit it")
	fs.StringVar(&c.reasoning, "reasoning", "", "reasoning dialect of the models that reason (-thinking, vendor-b): "+strings.Join(standin.ReasoningDialects(), ", ")+", optionally +redacted; default: reasoning_content, and gemini for vendor-b")
	fs.IntVar(&c.contextTokens, "context-tokens", 0, "context window: longer prompts get the dialect's context-length error (0: no limit)")
	fs.IntVar(&c.balanceStatus, "balance-status", 402, "HTTP status for an exhausted balance: 401, 402, 403 or 429")
	fs.IntVar(&c.modelStatus, "model-status", 404, "HTTP status for an unknown model or one outside the plan: 400 or 404")
	fs.BoolVar(&c.hideBalance, "hide-balance-cause", false, "answer an exhausted balance exactly like a wrong key")
	fs.BoolVar(&c.modelsIgnoreBalance, "models-ignore-balance", false, "list models even when the balance is exhausted")
	fs.Int64Var(&c.costCents, "cost-cents", 0, "cents taken from the balance per chat completion")
	fs.IntVar(&c.chunks, "chunks", 0, "content deltas per streamed answer (0: one per word)")
	fs.IntVar(&c.chunkSize, "chunk-size", 16, "bytes per content delta when --chunks is set")
	fs.BoolVar(&c.tls, "tls", false, "serve HTTPS with a fresh self-signed certificate (needs --cert-out)")
	fs.BoolVar(&c.http2, "http2", false, "with --tls: offer HTTP/2 as well as HTTP/1.1 (ALPN h2)")
	fs.DurationVar(&c.idleTimeout, "idle-timeout", 0, "close a connection idle for this long, as a load balancer does (0: keep it)")
	fs.StringVar(&c.certOut, "cert-out", "", "with --tls: write the certificate clients must trust (PEM) to this file")
	fs.StringVar(&c.accounts, "accounts", "", "JSON file with a list of {\"key\",\"balance_cents\",\"plan\"}; default: the demo accounts")
	if err := fs.Parse(args); err != nil {
		return c, standin.Options{}, err
	}
	if fs.NArg() > 0 {
		return c, standin.Options{}, fmt.Errorf("unexpected argument %q; gw-standin takes only flags", fs.Arg(0))
	}

	o := standin.Options{
		Dialect:             c.dialect,
		BalanceStatus:       c.balanceStatus,
		ModelStatus:         c.modelStatus,
		HideBalanceCause:    c.hideBalance,
		ModelsIgnoreBalance: c.modelsIgnoreBalance,
		CostCents:           c.costCents,
		ContentChunks:       c.chunks,
		ChunkSize:           c.chunkSize,
		Reasoning:           c.reasoning,
		ContextTokens:       c.contextTokens,
		HTTP2:               c.http2,
		IdleTimeout:         c.idleTimeout,
	}
	var err error
	switch {
	case !slices.Contains(standin.Dialects(), c.dialect):
		return c, o, fmt.Errorf("--dialect %q: use one of %s", c.dialect, strings.Join(standin.Dialects(), ", "))
	case !slices.Contains([]int{401, 402, 403, 429}, c.balanceStatus):
		return c, o, fmt.Errorf("--balance-status %d: use 401, 402, 403 or 429", c.balanceStatus)
	case c.modelStatus != 400 && c.modelStatus != 404:
		return c, o, fmt.Errorf("--model-status %d: use 400 or 404", c.modelStatus)
	case c.costCents < 0 || c.chunks < 0 || c.chunkSize < 1 || c.contextTokens < 0:
		return c, o, errors.New("--cost-cents, --chunks and --context-tokens must be ≥ 0, --chunk-size ≥ 1")
	case c.tls && c.certOut == "":
		return c, o, errors.New("--tls needs --cert-out FILE: clients must be given the self-signed certificate to trust")
	case !c.tls && c.certOut != "":
		return c, o, errors.New("--cert-out is only used with --tls")
	case !c.tls && c.http2:
		return c, o, errors.New("--http2 needs --tls: HTTP/2 is offered in the TLS handshake")
	case c.idleTimeout < 0:
		return c, o, errors.New("--idle-timeout must be ≥ 0")
	}
	if c.reasoning != "" {
		if err := standin.CheckReasoning(c.reasoning); err != nil {
			return c, o, fmt.Errorf("--reasoning: %w", err)
		}
	}
	if o.Fault, err = standin.ParseFault(c.fault); err != nil {
		return c, o, fmt.Errorf("--fault: %w", err)
	}
	if c.accounts != "" {
		data, err := os.ReadFile(c.accounts)
		if err != nil {
			return c, o, fmt.Errorf("--accounts: %w", err)
		}
		if o.Accounts, err = standin.ParseAccounts(data); err != nil {
			return c, o, fmt.Errorf("--accounts %s: %w", c.accounts, err)
		}
	}
	return c, o, nil
}

// run serves until ctx is done; it returns the exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	c, o, err := parse(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	if err != nil {
		fmt.Fprintln(stderr, "gw-standin:", err)
		return exitUsage
	}

	ln, err := net.Listen("tcp", c.addr)
	if err != nil {
		fmt.Fprintln(stderr, "gw-standin:", err)
		return exitError
	}
	if ip := ln.Addr().(*net.TCPAddr).IP; !ip.IsLoopback() {
		fmt.Fprintf(stderr, "gw-standin: warning: listening on %s, reachable from other machines\n", ln.Addr())
	}
	scheme := "http"
	s := standin.New(o)
	srv := &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: c.idleTimeout}
	if c.tls {
		cert, certPEM, err := standin.SelfSignedCert()
		if err == nil {
			err = os.WriteFile(c.certOut, certPEM, 0o644)
		}
		if err != nil {
			ln.Close()
			fmt.Fprintln(stderr, "gw-standin: --cert-out:", err)
			return exitError
		}
		srv.TLSConfig = standin.TLSConfig(cert, c.http2)
		ln = tls.NewListener(ln, srv.TLSConfig)
		scheme = "https"
	}

	host := ln.Addr().String()
	if a := ln.Addr().(*net.TCPAddr); a.IP.IsUnspecified() {
		host = net.JoinHostPort("127.0.0.1", fmt.Sprint(a.Port))
	}
	fmt.Fprintf(stdout, "base_url=%s://%s/v1\n", scheme, host)
	describe(stderr, c, o)

	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		fmt.Fprintln(stderr, "gw-standin:", err)
		return exitError
	case <-ctx.Done():
	}
	s.Close() // release hanging and slow handlers so shutdown can finish
	shutCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutCtx); err != nil {
		srv.Close()
	}
	<-served
	fmt.Fprintln(stderr, "gw-standin: stopped")
	return exitOK
}

// describe tells the person running the stand-in what it serves.
func describe(w io.Writer, c config, o standin.Options) {
	if c.accounts == "" {
		fmt.Fprintln(w, "demo keys:")
		fmt.Fprintf(w, "  %-22s all 8 models, balance 100.00\n", standin.DemoKeyFull)
		fmt.Fprintf(w, "  %-22s all 8 models, balance exhausted\n", standin.DemoKeyNoBalance)
		fmt.Fprintf(w, "  %-22s %s, balance 100.00\n", standin.DemoKeyPartial, strings.Join(standin.PartialPlan(), ", "))
	} else {
		fmt.Fprintf(w, "%d accounts from %s\n", len(o.Accounts), c.accounts)
	}
	fmt.Fprintf(w, "dialect %s, fault %s", c.dialect, o.Fault)
	if c.reasoning != "" {
		fmt.Fprintf(w, ", reasoning %s", c.reasoning)
	}
	if c.contextTokens > 0 {
		fmt.Fprintf(w, ", context window %d tokens", c.contextTokens)
	}
	if c.tls {
		fmt.Fprintf(w, ", certificate in %s", c.certOut)
		if c.http2 {
			fmt.Fprint(w, ", HTTP/2 offered")
		}
	}
	if c.idleTimeout > 0 {
		fmt.Fprintf(w, ", idle connections closed after %s", c.idleTimeout)
	}
	fmt.Fprintln(w)
}
