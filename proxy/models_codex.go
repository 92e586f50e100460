package proxy

import (
	"fmt"
	"net/http"

	"github.com/modelgateway/gw/api"
	"github.com/modelgateway/gw/config/agents"
	"github.com/modelgateway/gw/proxy/relay"
)

// Codex fetches its model catalog from the model_catalog_url of gw's
// provider (…/v1/codex/models?client_version=…), which gw init agent and gw
// run point at gw serve: gw serve answers it itself, from the account's
// list and gw's catalogue, so that Codex knows each model's context window
// and offers its apply_patch tool. The route is the agent's
// (agents.ServeRouter), given in Options.ModelRoutes.

// maxCodexCatalog bounds Codex's catalog: the first models the account
// lists, far more than its picker shows; the log says when the list was cut.
const maxCodexCatalog = 500

func (h *Handler) serveCodexCatalog(w http.ResponseWriter, r *http.Request, c *call, rt *agents.ServeRoute) {
	e := &c.entry
	listed, ok := h.listModels(w, r, c)
	if !ok {
		return
	}
	// One pass over the list, each entry made from its own model (not a
	// search of the list per id), and at most maxCodexCatalog of them: every
	// entry carries gw's instructions, so a list of tens of thousands would
	// make an answer of tens of MiB.
	var models []agents.Model
	subscribed := 0
	for _, jm := range api.JoinCatalog(listed) {
		if !jm.InSubscription {
			continue
		}
		if subscribed++; len(models) < maxCodexCatalog {
			m, _ := agents.ModelFor(jm.ID, []api.JoinedModel{jm})
			models = append(models, m)
		}
	}
	if subscribed > maxCodexCatalog {
		e.note = relay.JoinNote(e.note, fmt.Sprintf("catalog=first_%d_of_%d", maxCodexCatalog, subscribed))
	}
	b, err := rt.Answer(models)
	writeJSON(w, c, b, err)
}
