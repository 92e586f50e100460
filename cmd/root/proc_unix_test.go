//go:build unix

package root

import (
	"os"
	"strconv"
	"strings"
	"syscall"
)

// processRunning: pid exists and is not a zombie.
func processRunning(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true // no /proc: kill's answer is all there is
	}
	// The state follows the command name in parentheses, which may itself hold ") ".
	s := string(stat)
	i := strings.LastIndex(s, ") ")
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}

func killProcess(pid int) { _ = syscall.Kill(pid, syscall.SIGKILL) }
