package autostart

import (
	"errors"
	"path/filepath"
	"strings"
)

// systemdUnit is a systemd user unit, in ~/.config/systemd/user, where the user manager looks (its own
// XDG_CONFIG_HOME, which a shell's may differ from, is rarely set). The user manager starts it when the user's first session begins
// (default.target) and gives it the session bus's address (DBUS_SESSION_BUS_ADDRESS), over which gw serve asks
// the Secret Service for the key.
func systemdUnit(s Spec) Unit {
	var b strings.Builder
	b.WriteString("# " + markerText + sumPlace + "\n")
	b.WriteString(`# gw serve at login: the localhost /v1 proxy for coding agents. It writes each request to gw's
# request log. The API key is in no file: gw serve reads it from the Secret Service (gnome-keyring or
# KWallet) over the session D-Bus, whose address the user manager gives it (DBUS_SESSION_BUS_ADDRESS),
# and picks up a key stored later by itself. To change this unit, add a drop-in
# (systemctl --user edit gw.service): gw leaves an edited file alone.
[Unit]
Description=gw serve, the localhost /v1 proxy for coding agents
After=dbus.socket
# Given up after five failed starts in two minutes (say, another program on its port): gw service status says so.
StartLimitIntervalSec=120
StartLimitBurst=5

[Service]
Type=exec
`)
	for _, kv := range s.Env {
		b.WriteString("Environment=" + systemdQuote(kv, false) + "\n")
	}
	// systemd does not expand variables in the program's path, only in its arguments.
	words := make([]string, 0, 4)
	for i, a := range s.Args() {
		words = append(words, systemdQuote(a, i > 0))
	}
	b.WriteString("ExecStart=" + strings.Join(words, " ") + "\n")
	b.WriteString(`Restart=on-failure
RestartSec=5

[Install]
WantedBy=default.target
`)
	return Unit{
		Name: SystemdUnit,
		Path: filepath.Join(s.Home, ".config", "systemd", "user", SystemdUnit),
		Text: b.String(),
		Needs: "a systemd user instance (a login through systemd-logind, or loginctl enable-linger) and a Secret Service " +
			"(gnome-keyring or KWallet) on the session D-Bus that the user manager knows (DBUS_SESSION_BUS_ADDRESS, " +
			"set by dbus-user-session)",
	}
}

// systemdQuote writes a as one word of a unit file: in double quotes with C escapes when it holds anything
// but plain characters, % doubled (a specifier otherwise), and in a command line $ doubled (a variable
// otherwise).
func systemdQuote(a string, command bool) string {
	a = strings.ReplaceAll(a, "%", "%%")
	if command {
		a = strings.ReplaceAll(a, "$", "$$")
	}
	plain := a != "" && strings.IndexFunc(a, func(r rune) bool {
		return r <= ' ' || r == '"' || r == '\'' || r == '\\' || r == ';' || r >= 0x7f
	}) < 0
	if plain {
		return a
	}
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range a {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\t':
			b.WriteString(`\t`)
		case r < ' ' || r == 0x7f:
			b.WriteString(`\x`)
			b.WriteByte("0123456789abcdef"[r>>4])
			b.WriteByte("0123456789abcdef"[r&15])
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// ExecStart is the command line of the ExecStart= line in a unit gw wrote, as systemd reads it, and the
// Environment= entries; it reads only what systemdQuote writes.
func ExecStart(unit string) (args, env []string, err error) {
	for line := range strings.Lines(unit) {
		line = strings.TrimRight(line, "\r\n")
		if v, ok := strings.CutPrefix(line, "Environment="); ok {
			words, err := systemdWords(v, false)
			if err != nil {
				return nil, nil, err
			}
			env = append(env, words...)
		}
		if v, ok := strings.CutPrefix(line, "ExecStart="); ok {
			if args, err = systemdWords(v, true); err != nil {
				return nil, nil, err
			}
		}
	}
	if len(args) == 0 {
		return nil, nil, errors.New("the unit has no ExecStart= line")
	}
	return args, env, nil
}

func systemdWords(s string, command bool) ([]string, error) {
	first := true
	var words []string
	for {
		s = strings.TrimLeft(s, " \t")
		if s == "" {
			return words, nil
		}
		var w strings.Builder
		if s[0] == '"' {
			s = s[1:]
			for {
				if s == "" {
					return nil, errors.New("a quoted word does not end")
				}
				c := s[0]
				s = s[1:]
				if c == '"' {
					break
				}
				if c == '\\' && s != "" {
					switch s[0] {
					case 't':
						w.WriteByte('\t')
						s = s[1:]
					case 'x':
						if len(s) < 3 {
							return nil, errors.New("a \\x escape is cut short")
						}
						var v byte
						for _, h := range []byte(s[1:3]) {
							v = v<<4 | unhex(h)
						}
						w.WriteByte(v)
						s = s[3:]
					default:
						w.WriteByte(s[0])
						s = s[1:]
					}
					continue
				}
				w.WriteByte(c)
			}
		} else {
			end := strings.IndexAny(s, " \t")
			if end < 0 {
				end = len(s)
			}
			w.WriteString(s[:end])
			s = s[end:]
		}
		word := strings.ReplaceAll(w.String(), "%%", "%")
		if command && !first {
			word = strings.ReplaceAll(word, "$$", "$")
		}
		first = false
		words = append(words, word)
	}
}

func unhex(h byte) byte {
	switch {
	case '0' <= h && h <= '9':
		return h - '0'
	case 'a' <= h && h <= 'f':
		return h - 'a' + 10
	case 'A' <= h && h <= 'F':
		return h - 'A' + 10
	}
	return 0
}
