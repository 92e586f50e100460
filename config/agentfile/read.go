package agentfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/modelgateway/gw/internal/fsutil"
)

// Read returns the file's content; a missing file is empty content with
// exists false. A directory in the way or a dangling symlink is an error that
// says what to do. Only a regular file of at most fsutil.MaxConfigSize bytes
// is read: a config that is (or links to) a named pipe, a device or a huge
// file is refused at once, naming it (a project can plant any of these).
func Read(path string) (data []byte, exists bool, err error) {
	data, err = fsutil.ReadRegular(path, fsutil.MaxConfigSize)
	if errors.Is(err, fs.ErrNotExist) {
		if li, lerr := os.Lstat(path); lerr == nil && li.Mode()&fs.ModeSymlink != 0 {
			target, _ := os.Readlink(path)
			return nil, false, fmt.Errorf("%s is a symlink to %s, which does not exist; create the target or remove the link", path, target)
		}
		return nil, false, nil
	}
	var nr *fsutil.NotRegularError
	var tl *fsutil.TooLargeError
	if errors.As(err, &nr) || errors.As(err, &tl) {
		return nil, false, err // names the file, why, and what to do
	}
	if err != nil {
		return nil, false, fmt.Errorf("cannot read %s: %w", path, err)
	}
	return data, true, nil
}

// ReadAll reads files in order (nil for a missing one); exists is true when at least one is there. The
// first file that cannot be read stops it.
func ReadAll(files []string) (srcs [][]byte, exists bool, err error) {
	srcs = make([][]byte, len(files))
	for i, p := range files {
		data, ok, err := Read(p)
		if err != nil {
			return nil, false, err
		}
		srcs[i], exists = data, exists || ok
	}
	return srcs, exists, nil
}
