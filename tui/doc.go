// Package tui holds everything that talks to the user's terminal: the IO streams (terminal and colour
// detection, prompting, spinners) and the interactive model picker.
//
// It owns what the environment says about the terminal (GW_NO_PROMPT, NO_COLOR, TERM=dumb, CLICOLOR_FORCE,
// FORCE_COLOR are read once, in System) and never decides what a command means: esc and ctrl-c are its
// errors (ErrCancelled, ErrInterrupted), which cmdutil maps to exit codes; it never prints on stdout what is
// not the command's output (spinners and the picker draw on stderr).
//
// # The picker, and testing in a real terminal
//
// Callers call Pick and handle ErrNoTTY rather than checking a TTY themselves: the picker needs stdin and
// stderr to be terminals, not stdout, so x=$(gw models --pick) works. The picker keeps one frame height
// (bubbletea's inline renderer leaves stale lines when a frame shrinks), never fills the terminal (a
// full-height frame scrolls into the scrollback on exit) and erases itself on exit.
//
// tui/tmuxtest runs a program in a real terminal for tests (a tmux pane on a private server; environment
// through the tmux server, never argv).
//
// tui/e2e builds gw and drives gw models --pick against the stand-in and gw auth login's prompt in
// tmux (skipped with -short or without tmux).
package tui
