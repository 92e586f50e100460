package proxy

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"time"

	"github.com/modelgateway/gw/config"
	"github.com/modelgateway/gw/internal/remedy"
)

// Errors of Probe, for gw doctor's proxy check, gw run and gw serve.
var (
	ErrNotRunning    = errors.New("gw serve is not running")
	ErrNotGwServe    = errors.New("something other than gw serve answers")
	ErrTokenRejected = errors.New("gw serve refuses the local token")
	// ErrStranger: another user's process listens on the address.
	ErrStranger = errors.New("another user's process holds the port")
	// ErrNotLoopback: the address is not on this machine's loopback
	// interface, where only a gw serve of this machine can be.
	ErrNotLoopback = errors.New("not a loopback address")
)

// Probe checks that this install's gw serve answers on addr (host:port,
// a loopback address) without sending it the local token: the listener
// must prove that it knows token (HelloPath), and on Linux the socket
// listening there must belong to this user. So a stranger that listened
// first on gw serve's port learns nothing, and the caller may then send
// the token there or point an agent at it. The errors name the process
// (and its user) holding the port when the system tells, and carry what
// to do as a remedy.
func Probe(ctx context.Context, addr, token string) error {
	return probe(ctx, addr, token, "1")
}

// probeQuiet marks a probe that gw serve does not write to its request log.
const probeQuiet = "quiet"

// ProbeQuietly is Probe that gw serve leaves out of its request log: for
// gw statusline, which probes at every turn of the agent.
func ProbeQuietly(ctx context.Context, addr, token string) error {
	return probe(ctx, addr, token, probeQuiet)
}

func probe(ctx context.Context, addr, token, mark string) error {
	host, portText, err := net.SplitHostPort(addr)
	port, perr := strconv.Atoi(portText)
	if err != nil || perr != nil || !config.IsLoopbackHost(host) {
		return remedy.With(fmt.Errorf("%w: gw serve's address %q is not on this machine's loopback interface; gw sends the local token only there",
			ErrNotLoopback, addr), remedy.Remedy{Do: remedy.RestartServe})
	}
	ips := []netip.Addr{netip.AddrFrom4([4]byte{127, 0, 0, 1}), netip.IPv6Loopback()} // localhost: either
	if ip, err := netip.ParseAddr(host); err == nil {
		ips = []netip.Addr{ip}
	}
	for _, ip := range ips {
		if who := foreignHolder(ip, port); who != "" {
			return strangerError(addr, who)
		}
	}

	nonce := make([]byte, 32)
	_, _ = rand.Read(nonce)
	var reached string // the address the connection reached, as the server sees it
	dialer := &net.Dialer{}
	tr := &http.Transport{Proxy: nil, DisableKeepAlives: true,
		DialContext: func(ctx context.Context, network, a string) (net.Conn, error) {
			c, err := dialer.DialContext(ctx, network, a)
			if err == nil {
				reached = canonAddr(c.RemoteAddr())
			}
			return c, err
		}}
	defer tr.CloseIdleConnections()
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+HelloPath+"?nonce="+hex.EncodeToString(nonce), nil)
	if err != nil {
		return fmt.Errorf("probing %s: %w", addr, err)
	}
	req.Header.Set(ProbeHeader, mark)
	res, err := tr.RoundTrip(req)
	if err != nil {
		return remedy.With(fmt.Errorf("%w on %s: %v", ErrNotRunning, addr, err), remedy.Remedy{Do: remedy.StartServe})
	}
	defer res.Body.Close()
	held := func() string { // looked up only for a failure: it reads every process's descriptors
		if who := portHolder(port); who != "" {
			return " (held by " + who + ")"
		}
		return ""
	}
	raw, _ := io.ReadAll(io.LimitReader(res.Body, 4<<10))
	var hello helloAnswer
	_ = json.Unmarshal(raw, &hello)
	if hello.Proof == "" {
		var eb errorBody
		if json.Unmarshal(raw, &eb) != nil || eb.Error.Type != "gw_error" {
			return remedy.With(fmt.Errorf("%w on %s (HTTP %d)%s; gw sent it nothing", ErrNotGwServe, addr, res.StatusCode, held()),
				remedy.Remedy{Do: remedy.FreePort, Value: addr})
		}
		// gw serve's error shape without a proof: a gw serve from before
		// the proof, or something copying its errors.
		return remedy.With(fmt.Errorf("%w on %s: it answers as gw serve but cannot prove it holds this install's local token%s; gw sent it nothing",
			ErrTokenRejected, addr, held()), remedy.Remedy{Do: remedy.RestartServe})
	}
	got, err := hex.DecodeString(hello.Proof)
	if err != nil || reached == "" || !hmac.Equal(got, helloProof(token, nonce, reached)) {
		return remedy.With(fmt.Errorf("%w on %s: it was started with another local token, or is another program posing as gw serve%s; gw sent it nothing",
			ErrTokenRejected, addr, held()), remedy.Remedy{Do: remedy.RestartServe})
	}
	return nil
}

// strangerError says that another user's process holds addr, and what to
// do.
func strangerError(addr, who string) error {
	return remedy.With(fmt.Errorf("%w: %s is held by %s, not by your gw serve; gw sent it nothing (no local token, no agent pointed there)",
		ErrStranger, addr, who), remedy.Remedy{Do: remedy.FreePort, Value: addr})
}
