package proxy

import (
	"encoding/json"
	"fmt"
	"net"
	"path/filepath"

	"github.com/modelgateway/gw/config"

	"github.com/modelgateway/gw/internal/fsutil"
)

// StateName is the file in gw's state directory where a running gw serve
// says where it listens, so that gw doctor finds it when it runs on a port
// other than the configured one (gw serve --port 0). gw serve removes it
// when it stops.
const StateName = "serve.json"

// maxStateSize caps what is read of the state file: it holds one address.
const maxStateSize = 4 << 10

// State is what the state file says.
type State struct {
	Addr string `json:"addr"` // host:port where a local client reaches gw serve
	PID  int    `json:"pid"`
}

// ReadState reads the state file in stateDir (a regular file, never through
// a link). A missing file is an error for which errors.Is(err,
// fs.ErrNotExist) holds: no gw serve said it is running.
func ReadState(stateDir string) (State, error) {
	path := filepath.Join(stateDir, StateName)
	b, err := fsutil.ReadOwn(path, maxStateSize)
	if err != nil {
		return State{}, err
	}
	var s State
	if err := json.Unmarshal(b, &s); err != nil || s.Addr == "" {
		return State{}, fmt.Errorf("%s does not say where gw serve listens", path)
	}
	// gw serve notes a loopback address, where only a process of this
	// machine listens; any other could take the local token elsewhere.
	if host, port, err := net.SplitHostPort(s.Addr); err != nil || port == "" || !config.IsLoopbackHost(host) {
		return State{}, fmt.Errorf("%s names %q, not a loopback address: gw does not send the local token there", path, clip(s.Addr))
	}
	return s, nil
}

// writeState records s in stateDir and returns the function that removes
// the file again, unless another gw serve has replaced it since.
func writeState(stateDir string, s State) (remove func(), err error) {
	path := filepath.Join(stateDir, StateName)
	b, err := json.Marshal(s)
	if err != nil {
		return nil, err
	}
	if err := fsutil.WriteOwn(path, append(b, '\n'), 0o600); err != nil {
		return nil, err
	}
	return func() {
		// Only what this gw serve wrote: not a file another one wrote
		// since, nor a link planted in its place.
		if now, err := ReadState(stateDir); err == nil && now == s {
			_ = fsutil.Remove(path)
		}
	}, nil
}

// clip bounds text from a file for a message.
func clip(s string) string {
	if len(s) > 100 {
		return s[:100] + "…"
	}
	return s
}
