package agents

import "github.com/modelgateway/gw/api"

// Limits for a model the service lists but gw's catalogue does not know:
// small enough that an agent compacts early rather than late.
const (
	FallbackContext = 128_000
	FallbackOutput  = 16_384
)

// ModelFor describes a listed model to an agent: from gw's catalogue, else
// with the service's context length (or FallbackContext) and a conservative
// output limit; known is false then, and the caller says the limits were
// guessed.
func ModelFor(id string, listed []api.JoinedModel) (m Model, known bool) {
	if c, ok := api.LookupModel(id); ok {
		return Model{ID: id, Name: c.Name, Context: c.Context, Output: c.Output, Reasoning: c.Reasoning, Attachment: c.Attachment}, true
	}
	m = Model{ID: id, Name: id, Context: FallbackContext, Output: FallbackOutput}
	for _, e := range listed {
		if e.ID == id {
			if e.Name != "" {
				m.Name = e.Name
			}
			if e.Context > 0 {
				m.Context = e.Context
				m.Output = min(FallbackOutput, e.Context/4)
			}
		}
	}
	return m, false
}
