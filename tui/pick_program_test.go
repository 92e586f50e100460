package tui

import (
	"errors"
	"slices"
	"testing"
)

// Runs the whole bubbletea program over Pick's streams, with keystrokes written as a terminal would send
// them. The streams are buffers marked as terminals: the real-terminal check is the tmux test.
func TestPick_ScriptedKeystrokes(t *testing.T) {
	tests := []struct {
		name  string
		multi bool
		keys  string
		want  []string
		err   error
	}{
		{"filter and enter", false, "flash\r", []string{"vendor-b/model-b-3-flash-preview"}, nil},
		{"arrow keys", false, "\x1b[B\x1b[B\r", []string{"vendor-a/model-a-sonnet-4.6"}, nil},
		{"multi toggle", true, " \x1b[B\x1b[B \r", []string{"vendor-a/model-a-opus-4.6", "vendor-a/model-a-sonnet-4.6"}, nil},
		{"ctrl-c", false, "son\x03", nil, ErrInterrupted},
		{"esc", true, " \x1b", nil, ErrCancelled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ios, in, out, errOut := Test()
			ios.SetStdinTTY(true)
			ios.SetStderrTTY(true)
			in.WriteString(tt.keys)
			got, err := Pick(ios, PickOptions{Title: "Pick", Items: testItems(), Multi: tt.multi})
			if !errors.Is(err, tt.err) || !slices.Equal(got, tt.want) {
				t.Fatalf("Pick = %v, %v; want %v, %v", got, err, tt.want, tt.err)
			}
			if out.Len() != 0 {
				t.Errorf("the picker wrote to stdout: %q", out.String())
			}
			if errOut.Len() == 0 {
				t.Error("the picker wrote nothing on stderr")
			}
		})
	}
}
