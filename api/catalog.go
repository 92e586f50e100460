package api

import (
	"fmt"
	"slices"
	"strings"

	"github.com/modelgateway/gw/internal/remedy"
	"github.com/modelgateway/gw/internal/spell"
)

// CatalogEntry describes a model the service is known to offer. The service's
// own list (GET /models) is the truth for an account; the catalogue adds
// display names and limits the list does not carry.
type CatalogEntry struct {
	ID, Name, Vendor string
	Context, Output  int  // token limits: context window, maximum output
	Reasoning        bool // the model thinks before answering
	Attachment       bool // accepts files (images, PDFs) as input
	Input            []string
	OutputModalities []string
}

// Catalog returns the built-in catalogue, a fresh copy, in the spec's order.
func Catalog() []CatalogEntry {
	mk := func(id, name string, ctx, out int, reasoning bool) CatalogEntry {
		vendor, _, _ := strings.Cut(id, "/")
		return CatalogEntry{
			ID: id, Name: name, Vendor: vendor, Context: ctx, Output: out, Reasoning: reasoning,
			Attachment: true, Input: []string{"text", "image", "pdf"}, OutputModalities: []string{"text"},
		}
	}
	return []CatalogEntry{
		mk("vendor-a/model-a-opus-4.6", "Model A Opus 4.6", 1_000_000, 128_000, false),
		mk("vendor-a/model-a-opus-4.5-thinking", "Model A Opus 4.5 Thinking", 200_000, 64_000, true),
		mk("vendor-a/model-a-sonnet-4.6", "Model A Sonnet 4.6", 1_000_000, 64_000, false),
		mk("vendor-a/model-a-sonnet-4.5", "Model A Sonnet 4.5", 200_000, 64_000, false),
		mk("vendor-a/model-a-sonnet-4.5-thinking", "Model A Sonnet 4.5 Thinking", 200_000, 64_000, true),
		mk("vendor-a/model-a-haiku-4.5", "Model A Haiku 4.5", 200_000, 64_000, false),
		mk("vendor-b/model-b-3-flash-preview", "Model B 3 Flash Preview", 1_048_576, 65_536, true),
		mk("vendor-b/model-b-3-pro-preview", "Model B 3 Pro Preview", 1_048_576, 65_536, true),
	}
}

// CatalogIDs returns the catalogue's ids in the spec's order.
func CatalogIDs() []string {
	c := Catalog()
	ids := make([]string, len(c))
	for i, e := range c {
		ids[i] = e.ID
	}
	return ids
}

// LookupModel finds an id, spelled exactly, in the catalogue.
func LookupModel(id string) (CatalogEntry, bool) {
	for _, e := range Catalog() {
		if e.ID == id {
			return e, true
		}
	}
	return CatalogEntry{}, false
}

// ClosestID returns the candidate the user most likely meant by id: same id
// in another case, without or with another vendor prefix, dots for dashes,
// "preview" left out, or a few typos. candidates nil means the catalogue.
// It returns "" when nothing is close.
func ClosestID(id string, candidates []string) string {
	if candidates == nil {
		candidates = CatalogIDs()
	}
	best, _ := closest(id, candidates)
	return best
}

// noMatch is closest's score when nothing is close.
const noMatch = 1 << 30

// closest is ClosestID with its score (lower is closer; noMatch when ""), so
// that the best of two candidate lists can be told apart.
func closest(id string, candidates []string) (string, int) {
	want := normID(id)
	if want == "" {
		return "", noMatch
	}
	best, bestScore := "", noMatch
	for _, c := range candidates {
		if c == id {
			return c, -1
		}
		have := normID(c)
		score := 0
		switch {
		case have == want:
			score = 0
		case strings.TrimSuffix(have, "-preview") == strings.TrimSuffix(want, "-preview"):
			score = 1
		default:
			d := spell.Distance(want, have)
			if dp := spell.Distance(want, strings.TrimSuffix(have, "-preview")); dp < d {
				d = dp
			}
			// A short name the user typed without the family prefix
			// ("opus-4.6" for "model-a-opus-4.6").
			if len(want) >= 6 && strings.HasSuffix(have, "-"+want) {
				d = 2
			}
			if d > maxTypos(want) {
				continue
			}
			score = 10 + d*10
		}
		if score < bestScore {
			best, bestScore = c, score
		}
	}
	return best, bestScore
}

// maxTypos allows about one mistake per six characters, at least two.
func maxTypos(s string) int {
	return max(2, len(s)/6)
}

// normID lower-cases, drops the vendor prefix and spells separators as dashes.
func normID(id string) string {
	id = strings.ToLower(strings.TrimSpace(id))
	if i := strings.LastIndexByte(id, '/'); i >= 0 {
		id = id[i+1:]
	}
	return strings.Map(func(r rune) rune {
		switch r {
		case '.', '_', ' ', ':':
			return '-'
		}
		return r
	}, id)
}

// ModelError tells whether id can be used by an account whose model list is
// available: nil when it is listed; KindNotSubscribed when the id is a real
// model (in the catalogue) that the account's list lacks; KindMisspelled
// otherwise, naming the closest listed id. Ids the service lists that the
// catalogue lacks are valid.
func ModelError(id string, available []string) *Error {
	if slices.Contains(available, id) {
		return nil
	}
	e := &Error{Condition: UnknownModel}
	if _, ok := LookupModel(id); ok {
		e.Kind = KindNotSubscribed
		e.Cause = fmt.Sprintf("%s is spelled right, but it is not in this account's subscription (the account has %s)", quoted(id), countModels(len(available)))
		e.Fix = remedy.Remedy{Do: remedy.OtherModel, Value: ClosestID(id, available)}
		return e
	}
	e.Kind = KindMisspelled
	if t := strings.TrimSpace(id); t != id && t != "" && slices.Contains(available, t) {
		// Pasted with a space or newline: the id is right, the whitespace is not.
		e.Cause = fmt.Sprintf("%s has whitespace around it; ids are matched exactly", quoted(id))
		e.Fix = remedy.Remedy{Do: remedy.TrimID, Value: t}
		return e
	}
	// The model meant may be one the plan lacks: "sonet-4.6" is sonnet-4.6,
	// not the listed sonnet-4.5, so a catalogue id strictly closer than every
	// listed one is named instead of steering the user to the wrong model.
	c, score := closest(id, available)
	cat, catScore := closest(id, CatalogIDs())
	if cat != "" && catScore < score && !slices.Contains(available, cat) {
		e.Cause = fmt.Sprintf("%s is not spelled as the service lists it; the closest id is %s, which is not in this account's subscription", quoted(id), cat)
		e.Fix = remedy.Remedy{Do: remedy.OtherModel, Value: c, Also: cat}
		return e
	}
	if c != "" {
		e.Cause = fmt.Sprintf("%s is not spelled as the service lists it; the closest listed id is %s", quoted(id), c)
		e.Fix = remedy.Remedy{Do: remedy.UseID, Value: c}
		return e
	}
	e.Cause = fmt.Sprintf("%s is not a model id the service lists", quoted(id))
	e.Fix = remedy.Remedy{Do: remedy.ListModels}
	return e
}

func countModels(n int) string {
	switch n {
	case 0:
		return "no models"
	case 1:
		return "1 model"
	}
	return fmt.Sprintf("%d models", n)
}
