//go:build !unix

package reqlog

import "errors"

func mkfifo(string) error { return errors.New("no named pipes") }
