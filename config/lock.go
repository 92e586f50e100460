package config

import (
	"fmt"

	"github.com/modelgateway/gw/internal/fsutil"
)

// lock takes an exclusive lock that other gw processes honour for the
// config file at path, so that a read-modify-write (Update) is not lost to
// another one running at the same time: gw serve and gw init agent started
// together must not each create a different local token. The lock is a
// hidden file beside the config, never opened through a link; unlock
// releases it (the file stays).
func lock(path string) (unlock func(), err error) {
	l, err := fsutil.Acquire(fsutil.LockPath(path))
	if err != nil {
		return nil, fmt.Errorf("cannot lock %s: %w", path, err)
	}
	return l.Release, nil
}
