package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/modelgateway/gw/internal/fsutil"
)

// KeyChangedFile is the file gw rewrites whenever it stores or removes the API key (gw auth login, gw auth
// logout), so that a running gw serve reads the key again at its next request rather than waiting for the
// keychain on every request after a pause. It holds no secret: only the words of keyChangedText.
//
// It is in the config directory, beside config.json and the insecure credentials file, not in the state
// directory: every gw process of the user already has to agree on the config directory (the local token
// agents present, insecure_storage, which says where the key is looked up), so a gw serve started by hand,
// by gw run or at login watches the very file gw auth login writes. The state directory holds what may be
// lost (logs), and a gw serve run with another one would still find the key but never learn it changed.
func (p Paths) KeyChangedFile() string { return filepath.Join(p.ConfigDir, "key-changed") }

const keyChangedText = "gw rewrites this file whenever it stores or removes your API key, so that a running gw serve\n" +
	"reads the key again. It holds no secret.\n"

// MarkKeyChanged rewrites path (KeyChangedFile) atomically, with mode 0600, never through a link; missing
// directories are created 0700. Each rewrite is a new file (a rename over the old one), so its stamp
// (KeyChangedStamp) changes even where the file system keeps coarse times.
func MarkKeyChanged(path string) error {
	return fsutil.WriteOwn(path, []byte(keyChangedText), 0o600)
}

// KeyChangedStamp is path's fingerprint as one lstat sees it (modification time, size, and the file's
// identity: inode and device where the system has them): it differs after MarkKeyChanged. A missing file
// has a stamp too, the zero one. Anything other than a regular file there, or a file that cannot be looked
// at, is an error: the caller cannot tell whether the key changed.
func KeyChangedStamp(path string) ([4]uint64, error) {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return [4]uint64{}, nil
	}
	if err != nil {
		return [4]uint64{}, err
	}
	if !fi.Mode().IsRegular() {
		return [4]uint64{}, fmt.Errorf("%s is not a regular file", path)
	}
	ino, dev := fileID(fi)
	return [4]uint64{uint64(fi.ModTime().UnixNano()), uint64(fi.Size()) + 1, ino, dev}, nil
}
