package tui

// ColorScheme paints short strings for one output stream: the checklist marks and a few emphases.
// With colour disabled every method returns its input unchanged, so plain output stays readable.
type ColorScheme struct {
	enabled bool
}

// ColorScheme returns the scheme for stdout, where commands print their reports.
func (s *IOStreams) ColorScheme() *ColorScheme { return &ColorScheme{enabled: s.ColorEnabled()} }

// Enabled reports whether the scheme adds colour.
func (c *ColorScheme) Enabled() bool { return c.enabled }

// The 16 basic ANSI colours: every terminal has them and they follow the user's theme.
const (
	sgrReset  = "\x1b[0m"
	sgrBold   = "\x1b[1m"
	sgrRed    = "\x1b[31m"
	sgrGreen  = "\x1b[32m"
	sgrYellow = "\x1b[33m"
	sgrGray   = "\x1b[90m"
)

func (c *ColorScheme) paint(sgr, t string) string {
	if !c.enabled || t == "" {
		return t
	}
	return sgr + t + sgrReset
}

func (c *ColorScheme) Bold(t string) string   { return c.paint(sgrBold, t) }
func (c *ColorScheme) Red(t string) string    { return c.paint(sgrRed, t) }
func (c *ColorScheme) Green(t string) string  { return c.paint(sgrGreen, t) }
func (c *ColorScheme) Yellow(t string) string { return c.paint(sgrYellow, t) }
func (c *ColorScheme) Gray(t string) string   { return c.paint(sgrGray, t) }

// Marks used in checklists (gw doctor, gw auth status).
const (
	MarkSuccess = "✓"
	MarkWarning = "!"
	MarkFailure = "✗"
	MarkSkip    = "-"
)

func (c *ColorScheme) SuccessIcon() string { return c.Green(MarkSuccess) }
func (c *ColorScheme) WarningIcon() string { return c.Yellow(MarkWarning) }
func (c *ColorScheme) FailureIcon() string { return c.Red(MarkFailure) }
func (c *ColorScheme) SkipIcon() string    { return c.Gray(MarkSkip) }
