package config

import (
	"fmt"
	"os"
	"path/filepath"
)

// lock takes an exclusive lock that other gw processes honour for the
// config file at path, so that a read-modify-write (Update) is not lost to
// another one running at the same time: gw serve and gw init agent started
// together must not each create a different local token. The lock is a
// hidden file beside the config; unlock releases it (the file stays).
func lock(path string) (unlock func(), err error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("cannot create %s: %w", dir, OSReason(err))
	}
	name := filepath.Join(dir, "."+filepath.Base(path)+".lock")
	f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("cannot lock %s: %w", path, OSReason(err))
	}
	if err := lockFile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("cannot lock %s: %w", path, err)
	}
	return func() { _ = unlockFile(f); _ = f.Close() }, nil
}
