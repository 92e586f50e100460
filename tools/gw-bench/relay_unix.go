//go:build unix

package main

import (
	"context"
	"io"
	"net"
	"os"
	"syscall"
)

// serveBlockingRelay is the byte relay without Go's network poller: each
// direction of a connection is a thread blocked in read(2), which the
// kernel wakes when bytes arrive, then write(2). No event loop, no HTTP: the
// least a proxy process that sleeps between requests can add.
func serveBlockingRelay(ctx context.Context, upstream string, out io.Writer) error {
	return relayServe(ctx, out, func(c net.Conn) { relayBlocking(c, upstream) })
}

func relayBlocking(c net.Conn, upstream string) {
	defer c.Close()
	u, err := net.Dial("tcp", upstream)
	if err != nil {
		return
	}
	defer u.Close()
	// Copies of the descriptors, switched to blocking mode: reads then wait
	// in the kernel, not in Go's poller.
	cf, err := c.(*net.TCPConn).File()
	if err != nil {
		return
	}
	defer cf.Close()
	uf, err := u.(*net.TCPConn).File()
	if err != nil {
		return
	}
	defer uf.Close()
	if syscall.SetNonblock(int(cf.Fd()), false) != nil || syscall.SetNonblock(int(uf.Fd()), false) != nil {
		return
	}
	done := make(chan struct{})
	go func() { copyBlocking(uf, cf); close(done) }()
	copyBlocking(cf, uf)
	<-done
}

// copyBlocking copies src to dst until src ends, then ends dst's writing side.
func copyBlocking(dst, src *os.File) {
	buf := make([]byte, 64<<10)
	defer func() { _ = syscall.Shutdown(int(dst.Fd()), syscall.SHUT_WR) }()
	for {
		n, err := syscall.Read(int(src.Fd()), buf)
		if n <= 0 || err != nil {
			return
		}
		for p := buf[:n]; len(p) > 0; {
			m, err := syscall.Write(int(dst.Fd()), p)
			if err != nil {
				return
			}
			p = p[m:]
		}
	}
}
