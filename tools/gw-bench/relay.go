package main

import (
	"context"
	"fmt"
	"io"
	"net"
)

// serveRelay copies bytes between each client connection and a connection
// to upstream (host:port), nothing else: the cheapest hop a Go proxy can
// add with the standard network stack (on Linux io.Copy between TCP
// connections splices in the kernel). serveBlockingRelay is the same
// without Go's poller.
func serveRelay(ctx context.Context, upstream string, out io.Writer) error {
	return relayServe(ctx, out, func(c net.Conn) {
		defer c.Close()
		u, err := net.Dial("tcp", upstream)
		if err != nil {
			return
		}
		defer u.Close()
		go func() { _, _ = io.Copy(u, c); _ = u.(*net.TCPConn).CloseWrite() }()
		_, _ = io.Copy(c, u)
	})
}

// relayServe listens on a free loopback port, prints it as the benchmark
// expects, and hands each connection to relay until ctx ends.
func relayServe(ctx context.Context, out io.Writer, relay func(net.Conn)) error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	go func() { <-ctx.Done(); _ = ln.Close() }()
	fmt.Fprintf(out, "listening on http://%s/v1\n", ln.Addr())
	for {
		c, err := ln.Accept()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		go relay(c)
	}
}

// blockingRelay is the name of the serveBlockingRelay path.
const blockingRelay = "byte relay, blocking reads (floor)"
