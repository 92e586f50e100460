package proxy

import (
	"bufio"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"net/netip"
	"os"
	"strconv"
	"strings"

	"github.com/modelgateway/gw/internal/fsutil"
)

// listener is a TCP socket in LISTEN state, as /proc/net/tcp{,6} shows it:
// the address it is bound to, the user who owns it and its inode.
type listener struct {
	addr  netip.Addr
	uid   int
	inode string
}

// listeners are the sockets listening on port (every user's: /proc/net
// shows them all).
func listeners(port int) []listener {
	var out []listener
	for _, f := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		out = appendListeners(out, f, port)
	}
	return out
}

// appendListeners adds the sockets in LISTEN state (0A) on port in the
// table at path. A line is "sl local rem st queues timer retr uid timeout
// inode …"; addresses are hex words in the machine's byte order.
func appendListeners(out []listener, path string, port int) []listener {
	f, _, err := fsutil.OpenRegular(path)
	if err != nil {
		return out
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 10 || fields[3] != "0A" {
			continue
		}
		hexAddr, hexPort, ok := strings.Cut(fields[1], ":")
		if !ok {
			continue
		}
		if p, err := strconv.ParseUint(hexPort, 16, 32); err != nil || int(p) != port {
			continue
		}
		uid, err := strconv.Atoi(fields[7])
		if err != nil {
			continue
		}
		out = append(out, listener{addr: procAddr(hexAddr), uid: uid, inode: fields[9]})
	}
	return out
}

// procAddr decodes an address of /proc/net/tcp{,6}: 32-bit words, each
// printed as a number in the machine's byte order. The zero Addr when it
// does not decode.
func procAddr(s string) netip.Addr {
	raw, err := hex.DecodeString(s)
	if err != nil || len(raw) != 4 && len(raw) != 16 {
		return netip.Addr{}
	}
	b := make([]byte, len(raw))
	for i := 0; i < len(raw); i += 4 {
		binary.NativeEndian.PutUint32(b[i:], binary.BigEndian.Uint32(raw[i:]))
	}
	a, _ := netip.AddrFromSlice(b)
	return a.Unmap()
}

// portHolder names the process listening on a TCP port, and its user when
// that is not this user: "python3 (pid 42) of user nobody (uid 65534)". A
// process of another user is seen only by root; its user always is. ""
// when nothing listens.
func portHolder(port int) string {
	ls := listeners(port)
	if len(ls) == 0 {
		return ""
	}
	l := ls[0]
	for _, x := range ls {
		if x.uid != os.Getuid() {
			l = x // the stranger is the one to name
			break
		}
	}
	return holderName(processOf(l.inode), l.uid)
}

// foreignHolder names the holder of a socket listening on port for ip (or
// for every address) that belongs to another user than this one; "" when
// there is none. A connection to ip:port would reach that user's process.
func foreignHolder(ip netip.Addr, port int) string {
	for _, l := range listeners(port) {
		if l.uid != os.Getuid() && (l.addr.IsUnspecified() || l.addr == ip.Unmap()) {
			return holderName(processOf(l.inode), l.uid)
		}
	}
	return ""
}

// processOf finds the process holding the socket with the given inode:
// "name (pid N)", or "" when no process gw may inspect holds it.
func processOf(inode string) string {
	want := "socket:[" + inode + "]"
	pids, _ := fsutil.ReadDirNames("/proc")
	for _, pid := range pids {
		if pid[0] < '0' || pid[0] > '9' {
			continue
		}
		fds, _ := fsutil.ReadDirNames("/proc/" + pid + "/fd")
		for _, fd := range fds {
			if link, err := os.Readlink("/proc/" + pid + "/fd/" + fd); err != nil || link != want {
				continue
			}
			comm, _ := fsutil.ReadHead("/proc/"+pid+"/comm", 256)
			if name := strings.TrimSpace(string(comm)); name != "" {
				return fmt.Sprintf("%s (pid %s)", name, pid)
			}
			return "pid " + pid
		}
	}
	return ""
}
