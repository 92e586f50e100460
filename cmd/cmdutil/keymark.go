package cmdutil

import (
	"fmt"

	"github.com/modelgateway/gw/config"
	"github.com/modelgateway/gw/keychain"
)

// KeyStamp is the key-changed file's stamp (config.KeyChangedStamp) in the shape gw serve's key cache
// watches it (proxy.KeyStamp): every store of the key and every removal gw makes rewrites the file (the
// stores of Keychain and FileStore do), so a running gw serve, gw run's own included, reads the key again at
// its next request and otherwise serves the key it has without waiting for the keychain. ok is false when
// the file cannot be looked at; the result is nil when gw's directories cannot be found.
func (f *Factory) KeyStamp() func() ([4]uint64, bool) {
	p, err := f.Paths()
	if err != nil {
		return nil
	}
	path := p.KeyChangedFile()
	return func() ([4]uint64, bool) {
		s, err := config.KeyChangedStamp(path)
		return s, err == nil
	}
}

// markChanges is s with every change gw makes through it written down in the key-changed file: after a Set
// that succeeded and a Delete that removed a key. The keychain package knows nothing of gw's directories;
// this is where the stores are made.
func (f *Factory) markChanges(s keychain.Store) keychain.Store { return &markingStore{Store: s, f: f} }

type markingStore struct {
	keychain.Store
	f *Factory
}

func (s *markingStore) Set(account, key string) error {
	err := s.Store.Set(account, key)
	if err == nil {
		s.f.keyChanged()
	}
	return err
}

func (s *markingStore) Delete(account string) error {
	err := s.Store.Delete(account)
	if err == nil {
		s.f.keyChanged()
	}
	return err
}

// keyChanged rewrites the key-changed file. Failing to is no failure of the command (the key is stored or
// removed): a running gw serve then learns of the change only as it learns of one made by other tools,
// from the request after its next, which the warning says, once per command.
func (f *Factory) keyChanged() {
	p, err := f.Paths()
	if err == nil {
		err = config.MarkKeyChanged(p.KeyChangedFile())
	}
	if err == nil || f.IOStreams == nil || !f.keyMarkWarned.CompareAndSwap(false, true) {
		return
	}
	fmt.Fprintf(f.IOStreams.ErrOut, "! A running gw serve may use the previous key for one more request: %v\n", err)
}
