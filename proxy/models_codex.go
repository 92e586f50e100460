package proxy

import (
	"net/http"

	"github.com/modelgateway/gw/api"
	"github.com/modelgateway/gw/config/agents"
)

// Codex fetches its model catalog from the model_catalog_url of gw's
// provider (…/v1/codex/models?client_version=…), which gw init agent and gw
// run point at gw serve: gw serve answers it itself, from the account's
// list and gw's catalogue, so that Codex knows each model's context window
// and offers its apply_patch tool. The route is the agent's
// (agents.ServeRouter), given in Options.ModelRoutes.

func (h *Handler) serveCodexCatalog(w http.ResponseWriter, r *http.Request, c *call, rt *agents.ServeRoute) {
	e := &c.entry
	listed, ok := h.listModels(w, r, c)
	if !ok {
		return
	}
	joined := api.JoinCatalog(listed)
	var models []agents.Model
	for _, id := range api.SubscribedIDs(joined) {
		m, _ := agents.ModelFor(id, joined)
		models = append(models, m)
	}
	b, err := rt.Answer(models)
	if err != nil {
		e.status = writeErrorAs(w, c.route.proto, http.StatusInternalServerError, "internal", err.Error())
		return
	}
	writeJSON(w, c, b)
}
