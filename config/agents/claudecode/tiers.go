package claudecode

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/modelgateway/gw/config/agents"
)

// The model classes of Claude Code's slots, by the word in a model's name.
const (
	Opus   = "opus"
	Sonnet = "sonnet"
	Haiku  = "haiku"
)

// borrow: the classes a slot takes a model of when the declared models have
// none of its own, nearest first. A missing Haiku takes the cheaper of the
// others first, since background tasks run there; a missing Opus or Sonnet
// the nearer in strength.
var borrow = map[string][]string{
	Opus:   {Sonnet, Haiku},
	Sonnet: {Opus, Haiku},
	Haiku:  {Sonnet, Opus},
}

// Slot is what one of Claude Code's model slots holds.
type Slot struct {
	Class string // Opus, Sonnet or Haiku
	Env   string // the variable naming its model
	Model agents.Model
	// From is the class the model was borrowed from when the models hold
	// none of Class; "" when the model is of Class; "default" when no
	// model of any class is declared and the slot holds the default model.
	From string
}

// ClassOf is the class of a model id: the word opus, sonnet or haiku in its
// name (after the vendor prefix, between dashes or dots), else "".
func ClassOf(id string) string {
	name := strings.ToLower(id[strings.LastIndexByte(id, '/')+1:])
	for _, w := range strings.FieldsFunc(name, func(r rune) bool { return r == '-' || r == '.' || r == '_' || r == ':' }) {
		switch w {
		case Opus, Sonnet, Haiku:
			return w
		}
	}
	return ""
}

// Slots are the Opus, Sonnet and Haiku slots for d: each the declared model
// of its class — the default model when it is of that class, else the
// newest (the highest version numbers in its name), a plain model before a
// "thinking" one — else a model borrowed from the nearest class, else the
// default model.
func Slots(d agents.Declaration) []Slot {
	def := d.DefaultModel()
	best := map[string]agents.Model{}
	for _, m := range d.Models {
		c := ClassOf(m.ID)
		if c == "" {
			continue
		}
		if b, ok := best[c]; !ok || better(m, b, def.ID) {
			best[c] = m
		}
	}
	var out []Slot
	for _, s := range []struct{ class, env string }{{Opus, EnvOpus}, {Sonnet, EnvSonnet}, {Haiku, EnvHaiku}} {
		slot := Slot{Class: s.class, Env: s.env}
		if m, ok := best[s.class]; ok {
			slot.Model = m
		} else {
			slot.Model, slot.From = def, "default"
			for _, c := range borrow[s.class] {
				if m, ok := best[c]; ok {
					slot.Model, slot.From = m, c
					break
				}
			}
		}
		out = append(out, slot)
	}
	return out
}

// better: a is preferred to b for their class.
func better(a, b agents.Model, def string) bool {
	if a.ID == def || b.ID == def {
		return a.ID == def
	}
	if c := slices.Compare(version(a.ID), version(b.ID)); c != 0 {
		return c > 0
	}
	return cmp.Compare(thinking(a.ID), thinking(b.ID)) < 0
}

// version is the numbers in a model's name, in order: 4.6 → [4 6].
func version(id string) []int {
	var v []int
	for _, w := range strings.FieldsFunc(id[strings.LastIndexByte(id, '/')+1:], func(r rune) bool { return r < '0' || r > '9' }) {
		if n, err := strconv.Atoi(w); err == nil {
			v = append(v, n)
		}
	}
	return v
}

func thinking(id string) int {
	if strings.Contains(strings.ToLower(id), "thinking") {
		return 1
	}
	return 0
}

// smallFast is the model of Claude Code's background tasks: Small when one
// was chosen, else the Haiku slot's.
func smallFast(d agents.Declaration, slots []Slot) agents.Model {
	if m, ok := d.Model(d.Small); ok {
		return m
	}
	return slots[2].Model
}

// TierNotes say what each slot holds, and why when it borrows.
func TierNotes(d agents.Declaration) []string {
	slots := Slots(d)
	title := map[string]string{Opus: "Opus", Sonnet: "Sonnet", Haiku: "Haiku"}
	var parts []string
	for _, s := range slots {
		p := fmt.Sprintf("%s %s", title[s.Class], s.Model.ID)
		switch s.From {
		case "":
		case "default":
			p += fmt.Sprintf(" (no %s-class model; the default model)", title[s.Class])
		default:
			p += fmt.Sprintf(" (no %s-class model; %s's)", title[s.Class], title[s.From])
		}
		parts = append(parts, p)
	}
	notes := []string{"Claude Code's tiers: " + strings.Join(parts, ", ")}
	bg := "background tasks: " + smallFast(d, slots).ID
	if d.Small == "" {
		bg += " (the Haiku tier; choose another with --small-model)"
	}
	return append(notes, "Claude Code's "+bg)
}
