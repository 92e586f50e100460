package run

import (
	"errors"
	"os"
	"os/exec"
	"os/signal"
)

// runChild runs the agent to its end and returns its exit status. The console sends ctrl-c to every
// process attached to it, the agent included: gw only keeps it from ending gw first.
func runChild(cmd *exec.Cmd) (int, error) {
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, os.Interrupt)
	defer signal.Stop(sigs)
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	err := cmd.Wait()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode(), nil
	}
	return 0, err
}
