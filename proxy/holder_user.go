package proxy

import (
	"fmt"
	"os"
	"os/user"
	"strconv"
)

// holderName is how a message names the process holding a port: the
// process when known, and its user when that is not this user.
func holderName(process string, uid int) string {
	if uid == os.Getuid() || uid < 0 {
		return process
	}
	who := fmt.Sprintf("uid %d", uid)
	if u, err := user.LookupId(strconv.Itoa(uid)); err == nil && u.Username != "" {
		who = fmt.Sprintf("%s (uid %d)", u.Username, uid)
	}
	if process == "" {
		return "a process of user " + who
	}
	return process + " of user " + who
}
