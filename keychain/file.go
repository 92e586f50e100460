package keychain

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"runtime"

	"github.com/modelgateway/gw/internal/fsutil"
	"github.com/modelgateway/gw/internal/remedy"
)

type fileStore struct{ path string }

// NewFile is the insecure store the user opts into with --insecure-storage: a
// JSON object {account: key} in a file of mode 0600, rewritten atomically. It
// refuses to read a file that others may read.
func NewFile(path string) Store { return &fileStore{path: path} }

func (s *fileStore) Backend() string { return "file " + s.path + " (insecure)" }

// PermissionError is a credentials file that group or others can access.
type PermissionError struct {
	Path string
	Mode fs.FileMode
}

func (e *PermissionError) Error() string {
	return fmt.Sprintf("refusing to read %s: its mode %04o lets other users read it", e.Path, e.Mode.Perm())
}

// Remedy is to make the file the user's alone (and to consider the key leaked).
func (e *PermissionError) Remedy() remedy.Remedy {
	return remedy.Remedy{Do: remedy.ProtectKeyFile, Value: e.Path}
}

// DamagedError is a credentials file that is not the JSON gw writes.
type DamagedError struct {
	Path string
	Err  error // the decoder's, which quotes at most one character, never a whole value
}

func (e *DamagedError) Error() string {
	return fmt.Sprintf("credentials file %s is damaged (%v)", e.Path, e.Err)
}

func (e *DamagedError) Unwrap() error { return e.Err }

// Remedy is to delete the file and store the key again.
func (e *DamagedError) Remedy() remedy.Remedy {
	return remedy.Remedy{Do: remedy.FixCredentials, Value: e.Path}
}

// read returns the stored keys; a missing file is an empty map. Only a
// regular file of sane size is read (fsutil.ReadRegular): a credentials path
// planted as a named pipe or a link to /dev/zero is refused at once.
func (s *fileStore) read(checkPerm bool) (map[string]string, error) {
	data, st, err := fsutil.ReadRegularInfo(s.path, fsutil.MaxConfigSize)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]string{}, nil
	}
	var nr *fsutil.NotRegularError
	var tl *fsutil.TooLargeError
	if errors.As(err, &nr) || errors.As(err, &tl) {
		return nil, err // names the file, why, and what to do
	}
	if err != nil {
		return nil, fmt.Errorf("reading the credentials file: %w", err)
	}
	// Windows has no Unix permission bits; its ACLs default to the user.
	if checkPerm && runtime.GOOS != "windows" && st.Mode().Perm()&0o077 != 0 {
		return nil, &PermissionError{Path: s.path, Mode: st.Mode()}
	}
	keys := map[string]string{}
	if len(data) == 0 {
		return keys, nil
	}
	if err := json.NewDecoder(bytes.NewReader(data)).Decode(&keys); err != nil {
		return nil, &DamagedError{Path: s.path, Err: err}
	}
	return keys, nil
}

func (s *fileStore) Get(account string) (string, error) {
	keys, err := s.read(true)
	if err != nil {
		return "", err
	}
	key, ok := keys[account]
	if !ok || key == "" {
		return "", fmt.Errorf("%w in %s for account %q", ErrNotFound, s.path, account)
	}
	return key, nil
}

// Set rewrites the file with mode 0600 — which also repairs a file whose
// permissions were too open.
func (s *fileStore) Set(account, key string) error {
	if key == "" {
		return errors.New("refusing to store an empty key")
	}
	keys, err := s.read(false)
	if err != nil {
		return err
	}
	keys[account] = key
	return s.write(keys)
}

func (s *fileStore) Delete(account string) error {
	keys, err := s.read(false)
	if err != nil {
		return err
	}
	if _, ok := keys[account]; !ok {
		return fmt.Errorf("%w in %s for account %q", ErrNotFound, s.path, account)
	}
	delete(keys, account)
	if len(keys) == 0 {
		if err := fsutil.Remove(s.path); err != nil {
			return fmt.Errorf("removing the credentials file: %w", err)
		}
		return nil
	}
	return s.write(keys)
}

func (s *fileStore) write(keys map[string]string) error {
	data, err := json.MarshalIndent(keys, "", "  ")
	if err != nil {
		return err
	}
	return fsutil.WriteAtomic(s.path, append(data, '\n'), 0o600)
}
