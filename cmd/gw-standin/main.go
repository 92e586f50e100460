// Command gw-standin serves the stand-in of the hosted Model Gateway Service
// on a local port, for demos, benchmarks and manual tests of gw.
//
// It prints exactly one line to stdout, base_url=<URL>, once it is listening,
// and the demo keys to stderr; it stops on SIGINT or SIGTERM.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
