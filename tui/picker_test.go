package tui

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// The spec's eight models; one outside the subscription.
func testItems() []PickItem {
	return []PickItem{
		{ID: "vendor-a/model-a-opus-4.6", Name: "Model A Opus 4.6", Context: 200_000},
		{ID: "vendor-a/model-a-opus-4.5-thinking", Name: "Model A Opus 4.5 Thinking", Context: 200_000},
		{ID: "vendor-a/model-a-sonnet-4.6", Name: "Model A Sonnet 4.6", Context: 1_000_000},
		{ID: "vendor-a/model-a-sonnet-4.5", Name: "Model A Sonnet 4.5", Context: 200_000},
		{ID: "vendor-a/model-a-sonnet-4.5-thinking", Name: "Model A Sonnet 4.5 Thinking", Context: 200_000},
		{ID: "vendor-a/model-a-haiku-4.5", Name: "Model A Haiku 4.5", Context: 200_000},
		{ID: "vendor-b/model-b-3-flash-preview", Name: "Model B 3 Flash Preview", Context: 1_048_576},
		{ID: "vendor-b/model-b-3-pro-preview", Name: "Model B 3 Pro Preview", Context: 1_048_576, Disabled: true, Reason: "not in your subscription"},
	}
}

func newTestPicker(multi bool, w, h int) *picker {
	m := newPicker(PickOptions{Title: "Pick models for OpenCode", Items: testItems(), Multi: multi}, false)
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	return m
}

// Keys as bubbletea delivers them.
var (
	kUp    = tea.KeyPressMsg{Code: tea.KeyUp}
	kDown  = tea.KeyPressMsg{Code: tea.KeyDown}
	kEnter = tea.KeyPressMsg{Code: tea.KeyEnter}
	kEsc   = tea.KeyPressMsg{Code: tea.KeyEscape}
	kSpace = tea.KeyPressMsg{Code: tea.KeySpace, Text: " "}
	kTab   = tea.KeyPressMsg{Code: tea.KeyTab}
	kBack  = tea.KeyPressMsg{Code: tea.KeyBackspace}
	kCtrlC = tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl}
	kCtrlN = tea.KeyPressMsg{Code: 'n', Mod: tea.ModCtrl}
	kCtrlP = tea.KeyPressMsg{Code: 'p', Mod: tea.ModCtrl}
	kCtrlU = tea.KeyPressMsg{Code: 'u', Mod: tea.ModCtrl}
)

func typed(s string) []tea.Msg {
	var msgs []tea.Msg
	for _, r := range s {
		msgs = append(msgs, tea.KeyPressMsg{Code: r, Text: string(r)})
	}
	return msgs
}

// send delivers messages and reports whether the picker asked to quit.
func send(t *testing.T, m *picker, msgs ...tea.Msg) (quit bool) {
	t.Helper()
	for _, msg := range msgs {
		if quit {
			t.Fatalf("message %v sent after the picker quit", msg)
		}
		_, cmd := m.Update(msg)
		if cmd != nil {
			if _, ok := cmd().(tea.QuitMsg); ok {
				quit = true
			}
		}
	}
	return quit
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	if strings.Contains(got, "\x1b") {
		t.Fatalf("view with colour disabled contains escape sequences: %q", got)
	}
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./tui -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("view differs from %s (run go test ./tui -update after checking)\n--- got ---\n%s\n--- want ---\n%s", path, got, want)
	}
}

func view(m *picker) string { return m.View().Content }

func checkWidth(t *testing.T, v string, w int) {
	t.Helper()
	for _, l := range strings.Split(v, "\n") {
		if ansi.StringWidth(l) > w {
			t.Errorf("line wider than %d columns: %q", w, l)
		}
	}
}

func TestPickerView_Single(t *testing.T) {
	m := newTestPicker(false, 80, 20)
	golden(t, "single_initial", view(m))
	checkWidth(t, view(m), 80)
}

// Wide enough: the reason stands on the row. Narrower rows leave it out and the status line says it when
// the row is highlighted (TestPicker_DisabledCannotBePicked).
func TestPickerView_WideShowsReason(t *testing.T) {
	m := newTestPicker(true, 110, 20)
	golden(t, "multi_wide", view(m))
	if !strings.Contains(view(m), "1M ctx  not in your subscription") {
		t.Errorf("the reason is not on the disabled row:\n%s", view(m))
	}
}

func TestPickerView_Multi(t *testing.T) {
	m := newTestPicker(true, 80, 20)
	send(t, m, kDown, kDown, kSpace, kDown, kSpace)
	golden(t, "multi_toggled", view(m))
}

func TestPicker_SingleEnterPicksHighlighted(t *testing.T) {
	m := newTestPicker(false, 80, 20)
	if !send(t, m, kDown, kDown, kEnter) {
		t.Fatal("enter did not end the picker")
	}
	if m.err != nil || !slices.Equal(m.result, []string{"vendor-a/model-a-sonnet-4.6"}) {
		t.Errorf("result = %v, %v; want the third model", m.result, m.err)
	}
	if strings.TrimSpace(view(m)) != "" {
		t.Errorf("the picker's last frame is not blank: %q", view(m))
	}
}

func TestPicker_MoveKeys(t *testing.T) {
	m := newTestPicker(false, 80, 20)
	send(t, m, kCtrlN, tea.KeyPressMsg{Code: 'j', Text: "j"}, kDown, kCtrlP, tea.KeyPressMsg{Code: 'k', Text: "k"}, kUp, kUp)
	if i, _ := m.current(); i != 0 {
		t.Fatalf("after 3 down and 4 up (clamped), cursor on item %d, want 0", i)
	}
	send(t, m, kDown, kDown, kDown)
	send(t, m, kEnter)
	if !slices.Equal(m.result, []string{"vendor-a/model-a-sonnet-4.5"}) {
		t.Errorf("result = %v", m.result)
	}
}

func TestPicker_FilterByNameAndID(t *testing.T) {
	m := newTestPicker(false, 80, 20)
	send(t, m, typed("SONNET 4.5")...)
	golden(t, "filter_name", view(m))
	if len(m.visible) != 2 {
		t.Fatalf("filter %q shows %d models, want 2", m.filter, len(m.visible))
	}

	m = newTestPicker(false, 80, 20)
	send(t, m, typed("vendor-b/")...)
	if len(m.visible) != 2 || m.items[m.visible[0]].ID != "vendor-b/model-b-3-flash-preview" {
		t.Fatalf("filtering by id: visible = %v", m.visible)
	}
	send(t, m, kEnter)
	if !slices.Equal(m.result, []string{"vendor-b/model-b-3-flash-preview"}) {
		t.Errorf("result = %v", m.result)
	}
}

func TestPicker_PasteFilters(t *testing.T) {
	m := newTestPicker(false, 80, 20)
	send(t, m, tea.PasteMsg{Content: "vendor-a/model-a-haiku-4.5\n"})
	if m.filter != "vendor-a/model-a-haiku-4.5" || len(m.visible) != 1 {
		t.Fatalf("after pasting an id: filter %q, %d visible", m.filter, len(m.visible))
	}
	send(t, m, kEnter)
	if !slices.Equal(m.result, []string{"vendor-a/model-a-haiku-4.5"}) {
		t.Errorf("result = %v", m.result)
	}
}

func TestPicker_JKAreLettersWhileFiltering(t *testing.T) {
	m := newTestPicker(false, 80, 20)
	send(t, m, typed("thin")...)
	send(t, m, typed("k")...) // "think": a letter now, not "up"
	if m.filter != "think" {
		t.Fatalf("filter = %q, want %q", m.filter, "think")
	}
	if len(m.visible) != 2 {
		t.Errorf("%d models match \"think\", want 2", len(m.visible))
	}
	// "/" starts a filter that begins with j or k.
	m = newTestPicker(false, 80, 20)
	send(t, m, typed("/k")...)
	if m.filter != "k" {
		t.Errorf("after \"/k\" filter = %q, want \"k\"", m.filter)
	}
}

func TestPicker_BackspaceAndClear(t *testing.T) {
	m := newTestPicker(false, 80, 20)
	send(t, m, typed("haikux")...)
	if len(m.visible) != 0 {
		t.Fatalf("\"haikux\" should match nothing, got %d", len(m.visible))
	}
	golden(t, "filter_nomatch", view(m))
	if send(t, m, kEnter) {
		t.Fatal("enter with nothing matching must not end the picker")
	}
	send(t, m, kBack)
	if len(m.visible) != 1 {
		t.Fatalf("after backspace \"haiku\" matches %d, want 1", len(m.visible))
	}
	send(t, m, kCtrlU)
	if m.filter != "" || len(m.visible) != 8 {
		t.Errorf("ctrl+u: filter %q, %d visible; want all 8", m.filter, len(m.visible))
	}
}

func TestPicker_DisabledCannotBePicked(t *testing.T) {
	m := newTestPicker(false, 80, 20)
	send(t, m, typed("pro")...)
	if quit := send(t, m, kEnter); quit {
		t.Fatalf("enter on a disabled model ended the picker with %v", m.result)
	}
	golden(t, "disabled_notice", view(m))
	if !strings.Contains(view(m), "cannot be chosen: not in your subscription") {
		t.Error("the reason is not shown")
	}
	// Merely highlighting it explains why too.
	m = newTestPicker(false, 80, 20)
	send(t, m, kUp, kDown, kDown, kDown, kDown, kDown, kDown, kDown, kDown)
	if !strings.Contains(view(m), "vendor-b/model-b-3-pro-preview cannot be chosen: not in your subscription") {
		t.Errorf("highlighting a disabled model does not say why:\n%s", view(m))
	}

	m = newTestPicker(true, 80, 20)
	send(t, m, typed("pro")...)
	send(t, m, kSpace)
	if slices.Contains(m.toggled, true) {
		t.Error("space toggled a disabled model")
	}
	if send(t, m, kEnter) {
		t.Errorf("multi: enter on a disabled model with nothing toggled ended the picker with %v", m.result)
	}
}

func TestPicker_DisabledPreselectedIsIgnored(t *testing.T) {
	items := testItems()
	items[7].Selected = true
	items[0].Selected = true
	m := newPicker(PickOptions{Items: items, Multi: true}, false)
	send(t, m, kEnter)
	if !slices.Equal(m.result, []string{"vendor-a/model-a-opus-4.6"}) {
		t.Errorf("result = %v, want only the enabled pre-selected model", m.result)
	}
}

func TestPicker_MultiResults(t *testing.T) {
	m := newTestPicker(true, 80, 20)
	// Toggle the 7th, then the 1st and untoggle nothing: result is in list order, not toggle order.
	send(t, m, kDown, kDown, kDown, kDown, kDown, kDown, kSpace, kUp, kUp, kUp, kUp, kUp, kUp, kSpace)
	if !send(t, m, kEnter) {
		t.Fatal("enter did not end the picker")
	}
	want := []string{"vendor-a/model-a-opus-4.6", "vendor-b/model-b-3-flash-preview"}
	if !slices.Equal(m.result, want) {
		t.Errorf("result = %v, want %v", m.result, want)
	}

	// Toggled items hidden by the filter still count.
	m = newTestPicker(true, 80, 20)
	send(t, m, kSpace)
	send(t, m, typed("haiku")...)
	send(t, m, kTab, kEnter)
	want = []string{"vendor-a/model-a-opus-4.6", "vendor-a/model-a-haiku-4.5"}
	if !slices.Equal(m.result, want) {
		t.Errorf("result = %v, want %v", m.result, want)
	}

	// Nothing toggled: the highlighted one.
	m = newTestPicker(true, 80, 20)
	send(t, m, kDown, kEnter)
	if !slices.Equal(m.result, []string{"vendor-a/model-a-opus-4.5-thinking"}) {
		t.Errorf("result = %v", m.result)
	}

	// Space twice untoggles.
	m = newTestPicker(true, 80, 20)
	send(t, m, kSpace, kSpace, kDown, kEnter)
	if !slices.Equal(m.result, []string{"vendor-a/model-a-opus-4.5-thinking"}) {
		t.Errorf("result = %v", m.result)
	}
}

func TestPicker_SpaceTypesInSingleSelect(t *testing.T) {
	m := newTestPicker(false, 80, 20)
	send(t, m, typed("opus 4.5")...)
	if m.filter != "opus 4.5" || len(m.visible) != 1 {
		t.Errorf("filter %q shows %d, want \"opus 4.5\" showing 1", m.filter, len(m.visible))
	}
}

// Display names contain spaces: once a filter is typed, space is part of it in the multi picker too, and
// tab toggles.
func TestPicker_SpaceTypesIntoFilterInMulti(t *testing.T) {
	items := testItems()
	for i := range 7 {
		items[i].Selected = true
	}
	m := newPicker(PickOptions{Items: items, Multi: true}, false)
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 20})
	send(t, m, typed("sonnet 4.5")...)
	if m.filter != "sonnet 4.5" {
		t.Fatalf("filter = %q, want %q", m.filter, "sonnet 4.5")
	}
	if !slices.Equal(m.toggled, []bool{true, true, true, true, true, true, true, false}) {
		t.Fatalf("typing a space changed the selection: %v", m.toggled)
	}
	var shown []string
	for _, i := range m.visible {
		shown = append(shown, m.items[i].ID)
	}
	if want := []string{"vendor-a/model-a-sonnet-4.5", "vendor-a/model-a-sonnet-4.5-thinking"}; !slices.Equal(shown, want) {
		t.Fatalf("\"sonnet 4.5\" shows %v, want %v", shown, want)
	}
	v := view(m)
	if !strings.Contains(v, "Filter: sonnet 4.5_") || !strings.Contains(v, "2 of 8 · 7 selected") {
		t.Errorf("view after typing \"sonnet 4.5\":\n%s", v)
	}
	if !strings.Contains(v, "tab toggle") || strings.Contains(v, "space") {
		t.Errorf("while a filter is typed the help line must offer tab, not space, for toggling:\n%s", v)
	}

	// Tab toggles the highlighted model while filtering, and never types.
	send(t, m, kTab)
	if m.filter != "sonnet 4.5" || m.toggled[3] {
		t.Errorf("tab: filter %q, sonnet 4.5 toggled %v; want the filter unchanged and the model unticked", m.filter, m.toggled[3])
	}

	// With the filter cleared space toggles again, and the help says both keys do.
	send(t, m, kCtrlU)
	if !strings.Contains(view(m), "space/tab toggle") {
		t.Errorf("with an empty filter the help does not offer space:\n%s", view(m))
	}
	send(t, m, kSpace)
	if m.filter != "" || !m.toggled[3] {
		t.Errorf("space with an empty filter: filter %q, toggled %v; want it to toggle", m.filter, m.toggled[3])
	}
}

func TestPicker_EscAndCtrlC(t *testing.T) {
	m := newTestPicker(true, 80, 20)
	send(t, m, kSpace)
	if !send(t, m, kEsc) {
		t.Fatal("esc did not end the picker")
	}
	if !errors.Is(m.err, ErrCancelled) || m.result != nil {
		t.Errorf("esc: %v, %v; want ErrCancelled and no result", m.result, m.err)
	}

	m = newTestPicker(false, 80, 20)
	send(t, m, typed("son")...)
	if !send(t, m, kCtrlC) {
		t.Fatal("ctrl+c did not end the picker")
	}
	if !errors.Is(m.err, ErrInterrupted) || m.result != nil {
		t.Errorf("ctrl+c: %v, %v; want ErrInterrupted", m.result, m.err)
	}
	if errors.Is(ErrInterrupted, ErrCancelled) {
		t.Error("interrupt and cancel must be distinguishable")
	}
}

func TestPickerView_NarrowTruncates(t *testing.T) {
	m := newTestPicker(true, 40, 20)
	v := view(m)
	checkWidth(t, v, 40)
	golden(t, "narrow_40", v)

	// Growing again shows the full lines.
	send(t, m, tea.WindowSizeMsg{Width: 100, Height: 20})
	if !strings.Contains(view(m), "vendor-a/model-a-sonnet-4.5-thinking") {
		t.Error("after widening, ids are still cut")
	}
}

// rowTexts returns the list rows of a view, without the cursor and the checkbox.
func rowTexts(m *picker) []string {
	lines := strings.Split(view(m), "\n")
	var rows []string
	for _, l := range lines[2 : 2+len(m.visible)] {
		l = strings.TrimPrefix(strings.TrimPrefix(l, "> "), "  ")
		if m.multi {
			l = l[4:]
		}
		rows = append(rows, l)
	}
	return rows
}

// The id is what the user picks: it stays whole while it fits (the context column and then the names give
// way first), and when it cannot fit, the rows still tell the models apart. Esc stays in the help line.
func TestPickerView_NarrowKeepsIDs(t *testing.T) {
	for _, tc := range []struct {
		multi    bool
		width    int
		wholeIDs bool
		names    bool
	}{
		{true, 80, true, true},
		{false, 80, true, true},
		{false, 60, true, true},
		{true, 60, true, true}, // without the context column
		{false, 40, true, false},
		{true, 42, true, false},
		{true, 40, false, false},
		{true, 30, false, false},
		{false, 30, false, false},
		{true, 20, false, false}, // too narrow to tell every id apart; still no wider than the terminal
	} {
		m := newTestPicker(tc.multi, tc.width, 20)
		v := view(m)
		checkWidth(t, v, tc.width)
		rows := rowTexts(m)
		seen := map[string]bool{}
		for i, r := range rows {
			it := m.items[i]
			if seen[r] && tc.width >= 30 {
				t.Errorf("multi=%v width %d: two rows read %q:\n%s", tc.multi, tc.width, r, v)
			}
			seen[r] = true
			if tc.wholeIDs && !strings.Contains(r, it.ID) {
				t.Errorf("multi=%v width %d: the id %s is cut: %q", tc.multi, tc.width, it.ID, r)
			}
			if hasCtx := strings.Contains(r, " ctx"); hasCtx != (tc.width == 80) {
				t.Errorf("multi=%v width %d: context shown = %v: %q", tc.multi, tc.width, hasCtx, r)
			}
			if hasName := strings.Contains(r, "Model "); hasName != tc.names {
				t.Errorf("multi=%v width %d: name shown = %v, want %v: %q", tc.multi, tc.width, hasName, tc.names, r)
			}
		}
		if !strings.Contains(v, "esc cancel") {
			t.Errorf("multi=%v width %d: the help line lost \"esc cancel\":\n%s", tc.multi, tc.width, v)
		}
		if tc.multi && tc.width >= 40 && !strings.Contains(v, "tab toggle") {
			t.Errorf("multi=%v width %d: the help line does not say how to toggle:\n%s", tc.multi, tc.width, v)
		}
	}
}

func TestPickerView_ScrollKeepsCursorVisible(t *testing.T) {
	m := newTestPicker(false, 80, 8) // room for 3 rows (the last line stays free)
	for range 6 {
		send(t, m, kDown)
	}
	v := view(m)
	golden(t, "scrolled", v)
	if !strings.Contains(v, "> Model A Haiku") && !strings.Contains(v, "> Model B 3 Flash") {
		t.Errorf("cursor row not visible:\n%s", v)
	}
	if got := strings.Count(v, "\n") + 1; got > 7 {
		t.Errorf("view has %d lines, terminal has 7", got)
	}
	if strings.Contains(v, "Opus 4.6") {
		t.Errorf("first row should have scrolled away:\n%s", v)
	}
	// Shrinking the terminal keeps the cursor visible too.
	send(t, m, tea.WindowSizeMsg{Width: 80, Height: 5})
	if i, _ := m.current(); !strings.Contains(view(m), m.items[i].Name) {
		t.Errorf("after shrinking, the highlighted %q is not shown:\n%s", m.items[i].Name, view(m))
	}
	// Back to the top.
	send(t, m, kUp, kUp, kUp, kUp, kUp, kUp)
	if !strings.Contains(view(m), "> Model A Opus 4.6") {
		t.Errorf("scrolling up did not bring back the first row:\n%s", view(m))
	}
}

func TestPickerView_Color(t *testing.T) {
	o := PickOptions{Items: testItems()}
	plain := newPicker(o, false).View().Content
	colored := newPicker(o, true).View().Content
	if strings.Contains(plain, "\x1b[") {
		t.Error("colour disabled, yet the view has escape sequences")
	}
	if !strings.Contains(colored, "\x1b[") {
		t.Error("colour enabled, yet the view has no styling")
	}
	if ansi.Strip(colored) != plain {
		t.Errorf("colour must not change the text:\n%s\nvs\n%s", ansi.Strip(colored), plain)
	}
}

func TestPick_NoTTY(t *testing.T) {
	ios, _, out, errOut := Test()
	_, err := Pick(ios, PickOptions{Items: testItems()})
	if !errors.Is(err, ErrNoTTY) {
		t.Fatalf("err = %v, want ErrNoTTY", err)
	}
	if out.Len()+errOut.Len() != 0 {
		t.Error("Pick drew something without a terminal")
	}
	// Stdout piped (x=$(gw models --pick)) is fine; GW_NO_PROMPT is not.
	ios, _, _, _ = TestWithEnv(env("GW_NO_PROMPT", "1"))
	ios.SetStdinTTY(true)
	ios.SetStderrTTY(true)
	if _, err := Pick(ios, PickOptions{Items: testItems()}); !errors.Is(err, ErrNoTTY) {
		t.Errorf("GW_NO_PROMPT=1: err = %v, want ErrNoTTY", err)
	}
}

func TestFormatContext(t *testing.T) {
	for in, want := range map[int]string{
		0: "", 200_000: "200K ctx", 128_000: "128K ctx", 1_000_000: "1M ctx", 1_048_576: "1M ctx",
		2_000_000: "2M ctx", 1_500_000: "1.5M ctx", 999_999: "1M ctx", 8_192: "8K ctx", 500: "500 ctx",
	} {
		if got := formatContext(in); got != want {
			t.Errorf("formatContext(%d) = %q, want %q", in, got, want)
		}
	}
}

// The frame never fills the terminal: one as tall as the terminal is scrolled into the scrollback when the
// picker ends, and stays there above whatever comes next.
func TestPickerView_LeavesLastLineFree(t *testing.T) {
	for h := 6; h <= 16; h++ {
		m := newTestPicker(true, 80, h)
		if lines := strings.Count(view(m), "\n") + 1; lines >= h {
			t.Errorf("%d-line terminal: a frame of %d lines", h, lines)
		}
	}
}

// A note (an agent's state) stands after a row that can be chosen, where there is room, and is cut to fit.
func TestPickerView_NoteOnChoosableRows(t *testing.T) {
	items := []PickItem{
		{ID: "opencode", Name: "OpenCode", Note: "configured (3 models)"},
		{ID: "codex", Name: "Codex", Note: "configured: other port, plain key"},
		{ID: "cline", Name: "Cline", Disabled: true, Reason: "no project config"},
	}
	m := newPicker(PickOptions{Title: "Agent to point at gw", Items: items}, false)
	m.Update(tea.WindowSizeMsg{Width: 60, Height: 12})
	v := view(m)
	for _, want := range []string{"> OpenCode  opencode  configured (3 models)", "  Codex     codex     configured: other port, plain key", "  Cline     cline     no project config"} {
		if !strings.Contains(v, want) {
			t.Errorf("no %q in:\n%s", want, v)
		}
	}
	m.Update(tea.WindowSizeMsg{Width: 40, Height: 12})
	v = view(m)
	checkWidth(t, v, 40)
	if !strings.Contains(v, "Codex     codex     configured: other…") {
		t.Errorf("the note is not cut to the width:\n%s", v)
	}
}

// A model the service lists with an OSC 52 clipboard write and an 8-bit CSI in its id and name is shown with
// them escaped; choosing it returns its id as the service spelled it.
func TestPickerShowsHostileItemsEscaped(t *testing.T) {
	id := "vendor-x/m\x1b]52;c;aGk=\x07\u009b2J"
	m := newPicker(PickOptions{Items: []PickItem{{ID: id, Name: "N\x1b[2J", Context: 1000}}}, false)
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 20})
	v := view(m)
	if strings.Contains(v, "\x1b]52") || strings.ContainsAny(v, "\x07\u009b") || strings.Contains(v, "\x1b[2J") {
		t.Errorf("a control sequence is in the picker's view: %q", v)
	}
	if !strings.Contains(v, `vendor-x/m\x1b]52;c;aGk=\x07\u009b2J`) {
		t.Errorf("the id is not shown escaped: %q", v)
	}
	m.Update(kEnter)
	if len(m.result) != 1 || m.result[0] != id {
		t.Errorf("chose %q, want the id as listed", m.result)
	}
}

// In a single-select picker the cursor starts on the item offered as the choice, so that enter takes it
// and not the first item (the most expensive model, as the service lists them).
func TestPicker_SingleStartsOnTheSelectedItem(t *testing.T) {
	m := newPicker(PickOptions{Title: "Default model", Items: []PickItem{
		{ID: "vendor-a/model-a-opus-4.6"}, {ID: "vendor-a/model-a-sonnet-4.6", Selected: true}, {ID: "vendor-a/model-a-haiku-4.5"},
	}}, false)
	m.Update(tea.KeyPressMsg{Code: tea.KeyEnter})
	if !m.done || len(m.result) != 1 || m.result[0] != "vendor-a/model-a-sonnet-4.6" {
		t.Errorf("enter chose %v, want the selected sonnet", m.result)
	}
}
