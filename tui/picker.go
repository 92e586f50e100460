package tui

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"

	"github.com/modelgateway/gw/internal/safetext"
	"github.com/modelgateway/gw/internal/tokens"
)

var (
	// ErrNoTTY: the picker needs a terminal on stdin and stderr; the caller asks for a flag instead.
	ErrNoTTY = errors.New("no terminal to show the picker on")
	// ErrCancelled: the user pressed Esc.
	ErrCancelled = errors.New("cancelled")
	// ErrInterrupted: the user pressed Ctrl-C (or the process got SIGINT).
	ErrInterrupted = errors.New("interrupted")
)

// PickItem is one model offered by the picker.
type PickItem struct {
	ID      string
	Name    string // display name; the id is shown when empty
	Context int    // context window in tokens; 0 when unknown
	// Disabled items are shown dimmed with Reason and cannot be chosen.
	Disabled bool
	Reason   string
	// Selected pre-toggles the item in a multi-select picker (e.g. the models already configured); in a
	// single-select one, the cursor starts on it, so that enter takes it.
	Selected bool
	// Note is shown after an item that can be chosen, where there is room (e.g. an agent's state).
	Note string
}

// PickOptions describes one picker.
type PickOptions struct {
	Title string
	Items []PickItem
	Multi bool // choose any number with tab (or space while the filter is empty); otherwise enter chooses the highlighted item
}

// Pick lets the user choose models and returns their ids in the order of Items. It draws on ios.ErrOut and
// reads ios.In so that the caller can print the result on stdout. It returns ErrNoTTY without drawing
// anything when there is no terminal to prompt on, ErrCancelled on Esc and ErrInterrupted on Ctrl-C.
func Pick(ios *IOStreams, o PickOptions) ([]string, error) {
	if !ios.CanPromptOnStderr() {
		return nil, ErrNoTTY
	}
	if len(o.Items) == 0 {
		return nil, errors.New("no models to pick from")
	}
	color := ios.StderrColorEnabled()
	opts := []tea.ProgramOption{tea.WithInput(ios.In), tea.WithOutput(ios.ErrOut)}
	if !color {
		opts = append(opts, tea.WithColorProfile(colorprofile.Ascii))
	}
	m := newPicker(o, color)
	_, err := tea.NewProgram(m, opts...).Run()
	if m.done {
		// The last frame was blank and the cursor rests on its bottom line: go back to where the picker
		// began and erase, so that the terminal looks as it did before.
		if h := m.frameHeight(); h > 1 {
			fmt.Fprintf(ios.ErrOut, "\r\x1b[%dA\x1b[J", h-1)
		}
	}
	if errors.Is(err, tea.ErrInterrupted) {
		return nil, ErrInterrupted
	}
	if err != nil {
		return nil, fmt.Errorf("running the picker: %w", err)
	}
	return m.result, m.err
}

// keymap holds every key the picker understands; the same bindings drive Update and the help line.
type keymap struct {
	Up, Down    key.Binding
	VimUp       key.Binding // k and j move only while no filter is being typed
	VimDown     key.Binding
	Toggle      key.Binding // tab: never text, so it toggles while a filter is typed
	SpaceToggle key.Binding // space toggles only while the filter is empty; otherwise it is part of the filter
	Confirm     key.Binding
	Cancel      key.Binding
	Interrupt   key.Binding
	Backspace   key.Binding
	ClearFilter key.Binding
	StartFilter key.Binding
}

func newKeymap(multi bool) keymap {
	km := keymap{
		Up:          key.NewBinding(key.WithKeys("up", "ctrl+p"), key.WithHelp("↑/k", "up")),
		Down:        key.NewBinding(key.WithKeys("down", "ctrl+n"), key.WithHelp("↓/j", "down")),
		VimUp:       key.NewBinding(key.WithKeys("k")),
		VimDown:     key.NewBinding(key.WithKeys("j")),
		Toggle:      key.NewBinding(key.WithKeys("tab"), key.WithHelp("space/tab", "toggle")),
		SpaceToggle: key.NewBinding(key.WithKeys("space")),
		Confirm:     key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "confirm")),
		Cancel:      key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "cancel")),
		Interrupt:   key.NewBinding(key.WithKeys("ctrl+c")),
		Backspace:   key.NewBinding(key.WithKeys("backspace", "ctrl+h")),
		ClearFilter: key.NewBinding(key.WithKeys("ctrl+u"), key.WithHelp("ctrl+u", "clear filter")),
		StartFilter: key.NewBinding(key.WithKeys("/")),
	}
	if !multi {
		km.Toggle.SetEnabled(false)
		km.SpaceToggle.SetEnabled(false)
	}
	return km
}

// helpLines are the help line from fullest to shortest; View shows the first that fits the terminal. Esc
// is in every one: it is the way out.
func (k keymap) helpLines() [][]key.Binding {
	move := key.NewBinding(key.WithHelp("↑/↓", "move"))
	clear := k.ClearFilter
	clear.SetHelp("ctrl+u", "clear")
	tab := k.Toggle // tab toggles whether or not a filter is typed
	tab.SetHelp("tab", "toggle")
	return [][]key.Binding{
		{k.Up, k.Down, k.Toggle, k.Confirm, k.Cancel, k.ClearFilter},
		{move, k.Toggle, k.Confirm, k.Cancel, clear},
		{move, k.Toggle, k.Confirm, k.Cancel},
		{tab, k.Confirm, k.Cancel},
		{k.Confirm, k.Cancel},
		{k.Cancel},
	}
}

type pickerStyles struct {
	title, cursor, selected, disabled, filter, placeholder, status, notice lipgloss.Style
}

func newStyles(color bool) pickerStyles {
	if !color {
		// Plain text: the markers ("> ", "[x]") and the reason text carry the meaning on their own.
		p := lipgloss.NewStyle()
		return pickerStyles{p, p, p, p, p, p, p, p}
	}
	return pickerStyles{
		title:       lipgloss.NewStyle().Bold(true),
		cursor:      lipgloss.NewStyle().Foreground(lipgloss.Color("6")).Bold(true),
		selected:    lipgloss.NewStyle().Foreground(lipgloss.Color("2")),
		disabled:    lipgloss.NewStyle().Foreground(lipgloss.Color("8")).Faint(true),
		filter:      lipgloss.NewStyle().Foreground(lipgloss.Color("6")),
		placeholder: lipgloss.NewStyle().Foreground(lipgloss.Color("8")),
		status:      lipgloss.NewStyle().Foreground(lipgloss.Color("8")),
		notice:      lipgloss.NewStyle().Foreground(lipgloss.Color("3")),
	}
}

// picker is the bubbletea model. Everything it shows is derived from these fields, so tests drive it
// with messages and compare View.
type picker struct {
	title   string
	items   []PickItem // as shown: control characters escaped
	ids     []string   // the items' ids as given, which the picker returns
	multi   bool
	toggled []bool

	filter    string
	filtering bool  // true once the user started typing a filter: k and j are then letters
	visible   []int // indexes into items that match the filter
	cursor    int   // index into visible
	offset    int   // first visible row shown

	width, height int
	notice        string

	keys   keymap
	help   help.Model
	styles pickerStyles

	done   bool
	result []string
	err    error
}

func newPicker(o PickOptions, color bool) *picker {
	// The items come from the service's list: shown with their control characters escaped, returned as
	// they are.
	items := make([]PickItem, len(o.Items))
	ids := make([]string, len(o.Items))
	for i, it := range o.Items {
		ids[i] = it.ID
		it.ID, it.Name, it.Reason = safetext.Line(it.ID), safetext.Line(it.Name), safetext.Line(it.Reason)
		items[i] = it
	}
	m := &picker{
		title:   o.Title,
		items:   items,
		ids:     ids,
		multi:   o.Multi,
		toggled: make([]bool, len(o.Items)),
		keys:    newKeymap(o.Multi),
		help:    help.New(),
		styles:  newStyles(color),
	}
	if o.Multi {
		for i, it := range o.Items {
			m.toggled[i] = it.Selected && !it.Disabled
		}
	}
	if !color {
		m.help.Styles = help.Styles{}
	}
	m.applyFilter()
	if !o.Multi {
		// One to choose: enter takes the item offered as the choice (Selected), not merely the first.
		for i, it := range o.Items {
			if it.Selected && !it.Disabled {
				m.cursor = slices.Index(m.visible, i)
				break
			}
		}
	}
	return m
}

func (m *picker) Init() tea.Cmd { return nil }

func (m *picker) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.scroll()
	case tea.KeyPressMsg:
		return m.key(msg)
	case tea.PasteMsg:
		// A pasted id filters like typed text; a trailing newline from the clipboard is not part of it.
		if t := strings.Join(strings.Fields(msg.Content), " "); t != "" {
			m.notice = ""
			m.filtering = true
			m.setFilter(m.filter + t)
		}
	}
	return m, nil
}

func (m *picker) key(msg tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	m.notice = ""
	k := m.keys
	switch {
	case key.Matches(msg, k.Interrupt):
		return m.finish(nil, ErrInterrupted)
	case key.Matches(msg, k.Cancel):
		return m.finish(nil, ErrCancelled)
	case key.Matches(msg, k.Confirm):
		return m.confirm()
	case key.Matches(msg, k.Up), !m.filtering && key.Matches(msg, k.VimUp):
		m.move(-1)
	case key.Matches(msg, k.Down), !m.filtering && key.Matches(msg, k.VimDown):
		m.move(1)
	case m.multi && key.Matches(msg, k.Toggle), m.multi && m.filter == "" && key.Matches(msg, k.SpaceToggle):
		// Display names contain spaces, so once a filter is typed a space belongs to it.
		m.toggle()
	case key.Matches(msg, k.Backspace):
		if m.filter == "" {
			m.filtering = false
			break
		}
		r := []rune(m.filter)
		m.setFilter(string(r[:len(r)-1]))
	case key.Matches(msg, k.ClearFilter):
		m.setFilter("")
	case !m.filtering && key.Matches(msg, k.StartFilter):
		// "/" lets a filter start with k or j.
		m.filtering = true
	case msg.Text != "" && msg.Mod&^tea.ModShift == 0:
		m.filtering = true
		m.setFilter(m.filter + msg.Text)
	}
	return m, nil
}

func (m *picker) finish(result []string, err error) (tea.Model, tea.Cmd) {
	m.done, m.result, m.err = true, result, err
	return m, tea.Quit
}

func (m *picker) current() (int, bool) {
	if len(m.visible) == 0 {
		return 0, false
	}
	return m.visible[m.cursor], true
}

func (m *picker) confirm() (tea.Model, tea.Cmd) {
	if m.multi {
		var ids []string
		for i, on := range m.toggled {
			if on {
				ids = append(ids, m.ids[i])
			}
		}
		if len(ids) > 0 {
			return m.finish(ids, nil)
		}
	}
	i, ok := m.current()
	if !ok {
		m.notice = "nothing matches the filter"
		return m, nil
	}
	if m.items[i].Disabled {
		m.notice = m.unavailable(i)
		return m, nil
	}
	return m.finish([]string{m.ids[i]}, nil)
}

func (m *picker) toggle() {
	i, ok := m.current()
	if !ok {
		return
	}
	if m.items[i].Disabled {
		m.notice = m.unavailable(i)
		return
	}
	m.toggled[i] = !m.toggled[i]
}

func (m *picker) unavailable(i int) string {
	it := m.items[i]
	if it.Reason == "" {
		return it.ID + " cannot be chosen"
	}
	return it.ID + " cannot be chosen: " + it.Reason
}

func (m *picker) move(d int) {
	if len(m.visible) == 0 {
		return
	}
	m.cursor = min(max(m.cursor+d, 0), len(m.visible)-1)
	m.scroll()
}

func (m *picker) setFilter(f string) {
	m.filter = f
	m.applyFilter()
}

func (m *picker) applyFilter() {
	// Keep the highlighted item if it still matches, so narrowing the list does not lose the user's place.
	prev, hadPrev := m.current()
	words := strings.Fields(strings.ToLower(m.filter))
	m.visible = m.visible[:0]
	m.cursor = 0
	for i, it := range m.items {
		if matches(it, words) {
			if hadPrev && i == prev {
				m.cursor = len(m.visible)
			}
			m.visible = append(m.visible, i)
		}
	}
	m.offset = 0
	m.scroll()
}

// matches reports whether every word of the filter is in the item's name or id, so that "sonnet 4.5" finds
// both "Model A Sonnet 4.5" and "vendor-a/model-a-sonnet-4.5".
func matches(it PickItem, words []string) bool {
	name, id := strings.ToLower(it.Name), strings.ToLower(it.ID)
	for _, w := range words {
		if !strings.Contains(name, w) && !strings.Contains(id, w) {
			return false
		}
	}
	return true
}

// Lines around the list: title, filter, status, help.
const chromeLines = 4

// listHeight is the number of list rows drawn. It depends on the items and the terminal, never on the
// filter: bubbletea's inline renderer leaves stale lines behind when a frame shrinks, so the frame keeps
// one height and short lists are padded. The frame leaves the terminal's last line free: a frame as tall
// as the terminal is scrolled whole into the scrollback when the picker ends, where it stays above what
// comes next (gw init agent's second picker).
func (m *picker) listHeight() int {
	if m.height <= 0 {
		return len(m.items) // size not known yet
	}
	return max(min(m.height-chromeLines-1, len(m.items)), 1)
}

func (m *picker) frameHeight() int { return chromeLines + m.listHeight() }

// scroll keeps the cursor inside the shown window of rows.
func (m *picker) scroll() {
	h := m.listHeight()
	if m.cursor < m.offset {
		m.offset = m.cursor
	}
	if m.cursor >= m.offset+h {
		m.offset = m.cursor - h + 1
	}
	m.offset = max(min(m.offset, len(m.visible)-h), 0)
}

func (m *picker) View() tea.View {
	if m.done {
		// Leave nothing behind: the caller prints the result. (An empty view would leave the last frame
		// on the screen; a blank one of the same height overwrites it.)
		return tea.NewView(strings.Repeat("\n", m.frameHeight()-1))
	}
	var b strings.Builder
	line := func(s string) {
		if m.width > 0 {
			s = ansi.Truncate(s, m.width, "…")
		}
		b.WriteString(s)
		b.WriteByte('\n')
	}
	s := m.styles

	title := m.title
	if title == "" {
		title = "Pick a model"
	}
	line(s.title.Render(title))

	if m.filter == "" && !m.filtering {
		line("Filter: " + s.placeholder.Render("type a name or id"))
	} else {
		line("Filter: " + s.filter.Render(m.filter) + "_")
	}

	cols := m.columns()
	end := min(m.offset+m.listHeight(), len(m.visible))
	for row := m.offset; row < end; row++ {
		line(m.row(m.visible[row], row == m.cursor, cols))
	}
	for range m.listHeight() - (end - m.offset) {
		line("")
	}

	line(m.status())
	keys := m.keys
	if m.filtering {
		// k and j are letters of the filter now.
		keys.Up.SetHelp("↑", "up")
		keys.Down.SetHelp("↓", "down")
	}
	keys.ClearFilter.SetEnabled(m.filter != "")
	if m.filter != "" {
		// Space is a letter of the filter now.
		keys.Toggle.SetHelp("tab", "toggle")
	}
	b.WriteString(m.helpLine(keys))
	return tea.NewView(b.String())
}

// helpLine shortens the other hints before it would cut "esc cancel".
func (m *picker) helpLine(keys keymap) string {
	lines := keys.helpLines()
	for _, l := range lines {
		if v := m.help.ShortHelpView(l); m.width <= 0 || ansi.StringWidth(v) <= m.width {
			return v
		}
	}
	return ansi.Truncate(m.help.ShortHelpView(lines[len(lines)-1]), m.width, "…")
}

const (
	ctxWidth = 8  // "200K ctx"
	minName  = 12 // a name cut shorter than this says little; the column is dropped instead
)

// layout is how the rows use the terminal's width.
type layout struct {
	nameW int // 0: no name column
	idW   int // ids wider than this are cut
	ctx   bool
}

// columns fits the rows to the terminal. The id is what the user picks and what the configuration will
// contain, so it is cut last: the name is shortened first, then the context column goes, then the name
// column, and only then is the id cut.
func (m *picker) columns() layout {
	var nameW, idW int
	for _, it := range m.items {
		nameW = max(nameW, ansi.StringWidth(displayName(it)))
		idW = max(idW, ansi.StringWidth(it.ID))
	}
	if m.width <= 0 {
		return layout{nameW, idW, true}
	}
	room := m.width - 2 // cursor
	if m.multi {
		room -= 4 // "[x] "
	}
	if rest := room - (2 + idW + 2 + ctxWidth); rest >= min(nameW, minName) {
		return layout{min(nameW, rest), idW, true}
	}
	if rest := room - (2 + idW); rest >= min(nameW, minName) {
		return layout{min(nameW, rest), idW, false}
	}
	return layout{0, min(idW, max(room, 1)), false}
}

// cutID shortens an id that does not fit from the left: ids of one vendor share their beginning and
// differ at the end ("-thinking", "-4.5" against "-4.6").
func cutID(id string, w int) string {
	if ansi.StringWidth(id) <= w {
		return id
	}
	r := []rune(id)
	for len(r) > 0 && ansi.StringWidth(string(r))+1 > w {
		r = r[1:]
	}
	return "…" + string(r)
}

func displayName(it PickItem) string {
	if it.Name == "" {
		return it.ID
	}
	return it.Name
}

func (m *picker) row(i int, highlighted bool, c layout) string {
	it := m.items[i]
	s := m.styles
	cursor := "  "
	if highlighted {
		cursor = s.cursor.Render(">") + " "
	}
	box := ""
	if m.multi {
		switch {
		case it.Disabled:
			box = "[-] "
		case m.toggled[i]:
			box = s.selected.Render("[x]") + " "
		default:
			box = "[ ] "
		}
	}
	text := pad(cutID(it.ID, c.idW), c.idW)
	if c.nameW > 0 {
		text = pad(ansi.Truncate(displayName(it), c.nameW, "…"), c.nameW) + "  " + text
	}
	cols := ansi.StringWidth(text) // a reason or note starts after the id column at least, so they line up
	if c.ctx {
		text += fmt.Sprintf("  %*s", ctxWidth, formatContext(it.Context))
	}
	text = strings.TrimRight(text, " ")
	switch {
	case it.Disabled:
		// The reason goes where there is room; the status line repeats it when the row is highlighted.
		room := m.width - ansi.StringWidth(cursor+box+pad(text, cols)) - 2
		if it.Reason != "" && (m.width <= 0 || room >= min(ansi.StringWidth(it.Reason), 12)) {
			text = pad(text, cols)
			r := it.Reason
			if m.width > 0 {
				r = ansi.Truncate(r, room, "…")
			}
			text += "  " + r
		}
		text = s.disabled.Render(text)
	default:
		note := ""
		if room := m.width - ansi.StringWidth(cursor+box+pad(text, cols)) - 2; it.Note != "" && (m.width <= 0 || room >= min(ansi.StringWidth(it.Note), 12)) {
			text = pad(text, cols)
			note = it.Note
			if m.width > 0 {
				note = ansi.Truncate(note, room, "…")
			}
			note = "  " + s.placeholder.Render(note)
		}
		if highlighted {
			text = s.cursor.Render(text)
		}
		text += note
	}
	return cursor + box + text
}

func pad(s string, w int) string {
	return s + strings.Repeat(" ", max(w-ansi.StringWidth(s), 0))
}

func (m *picker) status() string {
	s := m.styles
	if m.notice != "" {
		return s.notice.Render(m.notice)
	}
	// The row may be too narrow for the reason; say it here too.
	if i, ok := m.current(); ok && m.items[i].Disabled {
		return s.disabled.Render(m.unavailable(i))
	}
	var parts []string
	switch {
	case len(m.visible) == 0:
		parts = append(parts, "no model matches "+strconv.Quote(m.filter))
	case len(m.visible) > m.listHeight():
		parts = append(parts, fmt.Sprintf("%d–%d of %d", m.offset+1, min(m.offset+m.listHeight(), len(m.visible)), len(m.visible)))
	default:
		parts = append(parts, fmt.Sprintf("%d of %d", len(m.visible), len(m.items)))
	}
	if m.multi {
		n := 0
		for _, on := range m.toggled {
			if on {
				n++
			}
		}
		parts = append(parts, fmt.Sprintf("%d selected", n))
	}
	return s.status.Render(strings.Join(parts, " · "))
}

// formatContext writes a context size the way model lists do: 1000000 → "1M ctx", 200000 → "200K ctx".
// Zero (unknown) is empty.
func formatContext(n int) string {
	if n <= 0 {
		return ""
	}
	return tokens.Format(n) + " ctx"
}
