package autostart

// BackgroundFlag is the flag of gw serve that the Windows logon task adds: gw serve started there lets go of
// the console window Windows opens for it (DetachConsole), writes what it has to say to its request log
// instead of a terminal, and starts serving again when it fails.
//
// Why gw detaches itself rather than being started windowless. gw is a console program, so Windows gives
// the task's gw.exe a console window of its own, and closing that window would stop gw serve. Two ways
// out were weighed:
//
//   - conhost.exe --headless gw.exe serve: no window at all, but the flag is undocumented and Microsoft
//     calls it unsupported (it broke in a Windows Insider build, microsoft/terminal#13914); conhost does
//     not exit with its program's exit code (microsoft/terminal#17178); and the task would run conhost,
//     not gw, so the Task Scheduler's state and schtasks /End would concern conhost rather than gw serve.
//   - FreeConsole, a documented call: gw.exe stays the task's process (schtasks /Query says whether gw
//     serve runs, schtasks /End stops it), and once it is no longer attached to the console, closing that
//     window cannot stop it. The cost is a window shown for a moment at logon. Where Windows Terminal is
//     the default terminal, an older Terminal may leave its window open until gw exits
//     (microsoft/terminal#14416); closing it then does not stop gw serve either.
//
// gw uses the second. gw detaches only when it is the console's one process: a console it shares (gw serve
// --background typed in a terminal) is the user's, and stays attached.
const BackgroundFlag = "--background"

// detachConsole frees the process's console when it is the only process attached to it. processes counts
// them (0 when the process has no console); free detaches.
func detachConsole(processes func() (int, error), free func() error) (bool, error) {
	n, err := processes()
	if err != nil || !ownsConsole(n) {
		return false, err
	}
	return true, free()
}

// ownsConsole: a console with this one process attached was made for it (by Windows, for the task), not
// shared with a shell the user typed into.
func ownsConsole(processes int) bool { return processes == 1 }

// DetachConsole lets go of the console window Windows opened for gw, so that closing it cannot stop gw, when
// gw is the only process attached to it; its standard input, output and error then lead nowhere. It says
// whether it detached. On other platforms it does nothing.
func DetachConsole() (bool, error) { return detachConsole(consoleProcesses, freeConsole) }
