//go:build !unix

package main

import (
	"context"
	"errors"
	"io"
)

// serveBlockingRelay needs blocking reads on socket descriptors (Unix).
func serveBlockingRelay(context.Context, string, io.Writer) error {
	return errors.New("the blocking relay runs on Unix only")
}
