package autostart

import (
	"encoding/xml"
	"path/filepath"
	"strings"
)

// launchAgent is a LaunchAgent: launchd starts it in the user's GUI login session (gui/UID), where the
// login keychain is unlocked, at load and at every login, and again when it exits with a failure.
func launchAgent(s Spec) Unit {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<!-- ` + markerText + sumPlace + ` -->
<!-- gw serve at login: the localhost /v1 proxy for coding agents. It writes each request to gw's request
     log. The API key is in no file: gw serve reads it from the login keychain, which is unlocked in the
     GUI session this agent runs in. gw leaves an edited file alone. -->
<plist version="1.0">
<dict>
	<key>Label</key>
	<string>` + LaunchLabel + `</string>
	<key>ProgramArguments</key>
	<array>
`)
	for _, a := range s.Args() {
		b.WriteString("\t\t<string>" + xmlText(a) + "</string>\n")
	}
	b.WriteString("\t</array>\n")
	if len(s.Env) > 0 {
		b.WriteString("\t<key>EnvironmentVariables</key>\n\t<dict>\n")
		for _, kv := range s.Env {
			k, v, _ := strings.Cut(kv, "=")
			b.WriteString("\t\t<key>" + xmlText(k) + "</key>\n\t\t<string>" + xmlText(v) + "</string>\n")
		}
		b.WriteString("\t</dict>\n")
	}
	b.WriteString(`	<key>RunAtLoad</key>
	<true/>
	<key>KeepAlive</key>
	<dict>
		<key>SuccessfulExit</key>
		<false/>
	</dict>
	<key>LimitLoadToSessionType</key>
	<string>Aqua</string>
	<key>ProcessType</key>
	<string>Background</string>
	<key>ThrottleInterval</key>
	<integer>5</integer>
</dict>
</plist>
`)
	return Unit{
		Name:  LaunchLabel,
		Path:  filepath.Join(s.Home, "Library", "LaunchAgents", LaunchLabel+".plist"),
		Text:  b.String(),
		Needs: "a GUI login session (launchd's gui/UID domain), where the login keychain that holds the key is unlocked",
	}
}

func xmlText(s string) string {
	var b strings.Builder
	_ = xml.EscapeText(&b, []byte(s))
	return b.String()
}
