package proxy

import (
	"errors"
	"fmt"
	"net"
	"strconv"
)

// PortInUseError says that the address gw serve should listen on is taken,
// and by which process when the operating system tells.
type PortInUseError struct {
	Addr   string
	Holder string // e.g. `gw (pid 4242)`; "" when unknown
	Err    error
}

func (e *PortInUseError) Error() string {
	by := ""
	if e.Holder != "" {
		by = " by " + e.Holder
	}
	return fmt.Sprintf("%s is already in use%s; stop that process or pick another port with --port (--port 0 chooses a free one)", e.Addr, by)
}

func (e *PortInUseError) Unwrap() error { return e.Err }

// Listen listens on addr (host:port; port 0 picks a free one). Listening is
// separate from serving so the caller can print the bound address first.
func Listen(addr string) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if err == nil {
		return ln, nil
	}
	if isAddrInUse(err) {
		pe := &PortInUseError{Addr: addr, Err: err}
		if _, p, serr := net.SplitHostPort(addr); serr == nil {
			if port, perr := strconv.Atoi(p); perr == nil {
				pe.Holder = portHolder(port)
			}
		}
		return nil, pe
	}
	var oe *net.OpError
	if errors.As(err, &oe) && oe.Err != nil {
		return nil, fmt.Errorf("cannot listen on %s: %v", addr, oe.Err)
	}
	return nil, fmt.Errorf("cannot listen on %s: %w", addr, err)
}
