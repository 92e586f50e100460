package keychain

import (
	"errors"
	"fmt"
	"strings"

	"github.com/modelgateway/gw/internal/remedy"
)

// Service is the keychain item's service name; the account is the profile name.
const Service = "gw"

// DefaultAccount is the profile used until gw grows profiles.
const DefaultAccount = "default"

// EnvVar overrides every stored key. It is never written anywhere. Its name is the one the fixes say
// (remedy.EnvKey).
const EnvVar = remedy.EnvKey

// ErrNotFound is returned (wrapped) by every Store when no key is stored for
// the account, and by Resolve when no source has a key.
var ErrNotFound = errors.New("no key stored")

// Source says where a key came from.
type Source string

const (
	SourceEnv      Source = "env"
	SourceKeychain Source = "keychain"
	SourceFile     Source = "file"
)

// Fix is s as a fix names it (render.Context's Key): the renderer knows no keychain.
func (s Source) Fix() remedy.Source {
	switch s {
	case SourceEnv:
		return remedy.Source{Kind: remedy.FromEnv, Name: EnvVar}
	case SourceFile:
		return remedy.Source{Kind: remedy.FromFile}
	case SourceKeychain:
		return remedy.Source{Kind: remedy.FromStore}
	}
	return remedy.Source{}
}

// Store keeps one key per account.
type Store interface {
	Get(account string) (string, error)
	Set(account, key string) error
	Delete(account string) error
	Backend() string // human name, e.g. "Secret Service (gnome-keyring)"
}

// Resolved is the key gw will use and where it came from.
type Resolved struct {
	Key     string
	Source  Source
	Backend string // "environment variable GW_API_KEY", or the Store's Backend()
	// Warning is a store that failed before the one that answered (e.g. the OS
	// keychain timed out and the file had the key). Show it; do not ignore it.
	Warning error
}

// Resolve finds the key: GW_API_KEY › os › file. os and file may be nil (the
// file store is only passed when the user opted into insecure storage).
// An OS keychain failure other than not-found does not stop the search: it is
// returned as Resolved.Warning when the file has the key, and as the error
// when nothing has one. A file that cannot be used (others can read it, it is damaged) is the error on
// its own, with its fix. When no source has a key the error wraps ErrNotFound.
func Resolve(getenv func(string) string, os Store, file Store, account string) (Resolved, error) {
	if v := getenv(EnvVar); v != "" {
		key, err := Sanitize(v)
		if err != nil {
			return Resolved{}, remedy.With(fmt.Errorf("%s is set but unusable: %w", EnvVar, err), remedy.Remedy{Do: remedy.FixEnvKey})
		}
		return Resolved{Key: key, Source: SourceEnv, Backend: "environment variable " + EnvVar}, nil
	}
	var osErr error
	looked := []string{EnvVar + " is not set"}
	for _, c := range []struct {
		store Store
		src   Source
	}{{os, SourceKeychain}, {file, SourceFile}} {
		if isNil(c.store) {
			continue
		}
		key, err := c.store.Get(account)
		switch {
		case err == nil:
			return Resolved{Key: key, Source: c.src, Backend: c.store.Backend(), Warning: osErr}, nil
		case errors.Is(err, ErrNotFound):
			looked = append(looked, "nothing in "+c.store.Backend())
		case c.src == SourceKeychain:
			osErr = err
		default:
			// The user chose the file (--insecure-storage): what is wrong with it, and its fix (chmod 600
			// for a file others can read), is the answer; the keychain's failure is not theirs to fix then.
			return Resolved{}, err
		}
	}
	if osErr != nil {
		return Resolved{}, osErr
	}
	return Resolved{}, remedy.With(fmt.Errorf("%w: %s", ErrNotFound, strings.Join(looked, ", ")), remedy.Remedy{Do: remedy.Login})
}

// isNil also catches a typed nil pointer inside the interface.
func isNil(s Store) bool {
	if s == nil {
		return true
	}
	switch v := s.(type) {
	case *osStore:
		return v == nil
	case *fileStore:
		return v == nil
	case *session:
		return v == nil
	}
	return false
}
