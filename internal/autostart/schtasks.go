package autostart

import "strings"

// taskOwnedText is in the Description of the task gw registers: the Task Scheduler keeps the description but
// not the file's comments, so this is how gw knows a registered task of that name is its own.
const taskOwnedText = "Written by gw service install"

// TaskFile is the name of the task's XML in gw's config directory.
const TaskFile = "gw-serve-task.xml"

// logonTask is a task of the Task Scheduler that starts at the user's logon, in the user's session
// (InteractiveToken: it holds the user's logon credentials, which Credential Manager needs), and has no
// time limit. It runs gw serve --background, which lets go of the console window Windows opens for it and
// starts serving again when serving fails: the Task Scheduler's RestartOnFailure retries only a task
// that failed to start, not a program that exited with an error ([MS-TSCH] 2.5.4.2), so it covers gw.exe
// failing to start (Count is at most 255 there). schtasks /Create /XML reads the file as UTF-16, as
// Windows exports it.
func logonTask(s Spec) Unit {
	user := xmlText(s.User)
	args := s.argsFor(Windows)[1:]
	for i, a := range args {
		args[i] = windowsArg(a)
	}
	text := `<?xml version="1.0" encoding="UTF-16"?>
<!-- ` + markerText + sumPlace + ` -->
<Task version="1.2" xmlns="http://schemas.microsoft.com/windows/2004/02/mit/task">
  <RegistrationInfo>
    <Author>gw</Author>
    <Description>gw serve at logon: the localhost /v1 proxy for coding agents, with no console window (it lets go of the one Windows opens, so closing that cannot stop it). It writes each request, and what it has to say, to gw's request log (gw logs), and starts serving again when serving fails. The API key is in no file: gw serve reads it from Credential Manager in your logon session. ` + taskOwnedText + `; gw service uninstall removes it.</Description>
  </RegistrationInfo>
  <Triggers>
    <LogonTrigger>
      <Enabled>true</Enabled>
      <UserId>` + user + `</UserId>
    </LogonTrigger>
  </Triggers>
  <Principals>
    <Principal id="Author">
      <UserId>` + user + `</UserId>
      <LogonType>InteractiveToken</LogonType>
      <RunLevel>LeastPrivilege</RunLevel>
    </Principal>
  </Principals>
  <Settings>
    <MultipleInstancesPolicy>IgnoreNew</MultipleInstancesPolicy>
    <DisallowStartIfOnBatteries>false</DisallowStartIfOnBatteries>
    <StopIfGoingOnBatteries>false</StopIfGoingOnBatteries>
    <AllowHardTerminate>true</AllowHardTerminate>
    <StartWhenAvailable>true</StartWhenAvailable>
    <RunOnlyIfNetworkAvailable>false</RunOnlyIfNetworkAvailable>
    <AllowStartOnDemand>true</AllowStartOnDemand>
    <Enabled>true</Enabled>
    <Hidden>false</Hidden>
    <RunOnlyIfIdle>false</RunOnlyIfIdle>
    <ExecutionTimeLimit>PT0S</ExecutionTimeLimit>
    <Priority>7</Priority>
    <RestartOnFailure>
      <Interval>PT1M</Interval>
      <Count>255</Count>
    </RestartOnFailure>
  </Settings>
  <Actions Context="Author">
    <Exec>
      <Command>` + xmlText(s.Exe) + `</Command>
      <Arguments>` + xmlText(strings.Join(args, " ")) + `</Arguments>
    </Exec>
  </Actions>
</Task>
`
	return Unit{
		Name:  TaskName,
		Path:  strings.TrimRight(s.TaskDir, `\/`) + `\` + TaskFile,
		Text:  strings.ReplaceAll(text, "\n", "\r\n"),
		Needs: "your logon session (the task runs only while you are logged on), where Credential Manager holds the key",
	}
}

// windowsArg quotes a for a Windows command line (the rules CommandLineToArgvW reads).
func windowsArg(a string) string {
	if a != "" && !strings.ContainsAny(a, " \t\"") {
		return a
	}
	var b strings.Builder
	b.WriteByte('"')
	slashes := 0
	for _, r := range a {
		switch r {
		case '\\':
			slashes++
			continue
		case '"':
			b.WriteString(strings.Repeat(`\`, 2*slashes+1))
		default:
			b.WriteString(strings.Repeat(`\`, slashes))
		}
		slashes = 0
		b.WriteRune(r)
	}
	b.WriteString(strings.Repeat(`\`, 2*slashes))
	b.WriteByte('"')
	return b.String()
}
