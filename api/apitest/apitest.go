// Package apitest holds test doubles of the network around the service, for the tests of the packages that
// use api. Only tests import it.
package apitest

import (
	"context"
	"net"
	"strings"
	"testing"

	"golang.org/x/net/dns/dnsmessage"
)

// Answer decides the reply to a query for name: an IPv4 address for an A query (nil: no address), and the
// response code.
type Answer func(name string) (ip net.IP, rcode dnsmessage.RCode)

// Hosts resolves the names in hosts to their IPv4 addresses; every other name does not exist (NXDOMAIN).
func Hosts(hosts map[string]string) Answer {
	return func(name string) (net.IP, dnsmessage.RCode) {
		if ip, ok := hosts[name]; ok {
			return net.ParseIP(ip), dnsmessage.RCodeSuccess
		}
		return nil, dnsmessage.RCodeNameError
	}
}

// Every answers every query with rcode and no address (e.g. SERVFAIL, NXDOMAIN).
func Every(rcode dnsmessage.RCode) Answer {
	return func(string) (net.IP, dnsmessage.RCode) { return nil, rcode }
}

// Loopback resolves every name to 127.0.0.1.
func Loopback() Answer {
	return func(string) (net.IP, dnsmessage.RCode) { return net.IPv4(127, 0, 0, 1), dnsmessage.RCodeSuccess }
}

// FakeDNS serves DNS on a loopback UDP port, replying as answer says, until the test ends; the resolver it
// returns asks only this server. Tests then get the same DNS failures whether or not the machine is online.
func FakeDNS(t testing.TB, answer Answer) *net.Resolver {
	t.Helper()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pc.Close() })
	go func() {
		buf := make([]byte, 1500)
		for {
			n, from, err := pc.ReadFrom(buf)
			if err != nil {
				return
			}
			if msg, ok := reply(buf[:n], answer); ok {
				_, _ = pc.WriteTo(msg, from)
			}
		}
	}()
	addr := pc.LocalAddr().String()
	return &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "udp", addr)
	}}
}

func reply(query []byte, answer Answer) ([]byte, bool) {
	var p dnsmessage.Parser
	h, err := p.Start(query)
	if err != nil {
		return nil, false
	}
	q, err := p.Question()
	if err != nil {
		return nil, false
	}
	ip, rcode := answer(strings.TrimSuffix(q.Name.String(), "."))
	b := dnsmessage.NewBuilder(nil, dnsmessage.Header{ID: h.ID, Response: true, Authoritative: true, RecursionDesired: h.RecursionDesired, RCode: rcode})
	_ = b.StartQuestions()
	_ = b.Question(q)
	_ = b.StartAnswers()
	if ip4 := ip.To4(); ip4 != nil && rcode == dnsmessage.RCodeSuccess && q.Type == dnsmessage.TypeA {
		var a [4]byte
		copy(a[:], ip4)
		_ = b.AResource(dnsmessage.ResourceHeader{Name: q.Name, Class: dnsmessage.ClassINET, TTL: 60}, dnsmessage.AResource{A: a})
	}
	msg, err := b.Finish()
	return msg, err == nil
}

// ClosedAddr is a loopback host:port nothing listens on: a port that was just released, for "connection
// refused". (Only tests do this; gw itself listens on port 0 and reports what it got.)
func ClosedAddr(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}
