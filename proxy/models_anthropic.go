package proxy

import (
	"cmp"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/modelgateway/gw/api"
	"github.com/modelgateway/gw/internal/remedy"
	"github.com/modelgateway/gw/internal/remedy/render"
)

// Anthropic's client libraries (and Claude Code) list models with GET
// /v1/models and an anthropic-version header, and read the answer in
// Anthropic's shape: {data: [{type: "model", id, display_name, created_at}],
// has_more, first_id, last_id}, paged by limit, after_id and before_id; GET
// /v1/models/{id} is one such model.
// gw serve answers such a request itself from the account's list, with the
// catalogue's display names; without the header the request passes through
// to the service as before.

// Anthropic's page sizes: 20 unless asked, at most 1000.
const (
	anthropicModelsPage    = 20
	anthropicModelsPageMax = 1000
)

// anthropicModel is one entry of Anthropic's model list.
type anthropicModel struct {
	Type        string `json:"type"`
	ID          string `json:"id"`
	DisplayName string `json:"display_name"`
	CreatedAt   string `json:"created_at"`
}

type anthropicModelList struct {
	Data    []anthropicModel `json:"data"`
	HasMore bool             `json:"has_more"`
	FirstID *string          `json:"first_id"`
	LastID  *string          `json:"last_id"`
}

func (h *Handler) serveAnthropicModels(w http.ResponseWriter, r *http.Request, c *call) {
	e := &c.entry
	if id, one := strings.CutPrefix(r.URL.Path, "/v1/models/"); one {
		h.serveAnthropicModel(w, r, c, id)
		return
	}
	limit, err := pageLimit(r.URL.Query().Get("limit"))
	if err != nil {
		e.status = writeErrorAs(w, c.route.proto, http.StatusBadRequest, "invalid_request", err.Error())
		return
	}
	listed, ok := h.listModels(w, r, c)
	if !ok {
		return
	}
	all := make([]anthropicModel, len(listed))
	for i, m := range listed {
		all[i] = toAnthropic(m)
	}
	page, more := pageOf(all, r.URL.Query().Get("after_id"), r.URL.Query().Get("before_id"), limit)
	list := anthropicModelList{Data: page, HasMore: more}
	if len(page) > 0 {
		list.FirstID, list.LastID = &page[0].ID, &page[len(page)-1].ID
	}
	b, err := json.Marshal(list)
	writeJSON(w, c, b, err)
}

// serveAnthropicModel answers GET /v1/models/{id}: the model when the
// account lists it, else Anthropic's not_found_error.
func (h *Handler) serveAnthropicModel(w http.ResponseWriter, r *http.Request, c *call, id string) {
	listed, ok := h.listModels(w, r, c)
	if !ok {
		return
	}
	for _, m := range listed {
		if m.ID == id {
			b, err := json.Marshal(toAnthropic(m))
			writeJSON(w, c, b, err)
			return
		}
	}
	fix := remedy.Remedy{Do: remedy.ListModels}
	if closest := api.ClosestID(id, modelIDs(listed)); closest != "" {
		fix = remedy.Remedy{Do: remedy.UseID, Value: closest}
	}
	msg := "model: " + strconv.Quote(id) + " is not among the account's models; " + render.Text(fix, render.Context{Where: render.Serve})
	c.entry.status = writeErrorAs(w, c.route.proto, http.StatusNotFound, "not_found", msg)
}

func modelIDs(listed []api.Model) []string {
	ids := make([]string, len(listed))
	for i, m := range listed {
		ids[i] = m.ID
	}
	return ids
}

func toAnthropic(m api.Model) anthropicModel {
	return anthropicModel{Type: "model", ID: m.ID, DisplayName: displayName(m), CreatedAt: time.Unix(m.Created, 0).UTC().Format(time.RFC3339)}
}

// displayName: the catalogue's name for the id, else the service's, else the id.
func displayName(m api.Model) string {
	if c, ok := api.LookupModel(m.ID); ok {
		return c.Name
	}
	return cmp.Or(m.Name, m.ID)
}

func pageLimit(s string) (int, error) {
	if s == "" {
		return anthropicModelsPage, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > anthropicModelsPageMax {
		return 0, errors.New("limit must be a number from 1 to 1000")
	}
	return n, nil
}

// pageOf is the page of at most limit models after afterID (or before
// beforeID, the last ones before it), and whether more follow in that
// direction. An id that is not listed gives an empty page.
func pageOf(all []anthropicModel, afterID, beforeID string, limit int) ([]anthropicModel, bool) {
	index := func(id string) int {
		for i, m := range all {
			if m.ID == id {
				return i
			}
		}
		return -1
	}
	switch {
	case beforeID != "":
		end := index(beforeID)
		if end < 0 {
			return []anthropicModel{}, false
		}
		start := max(0, end-limit)
		return all[start:end], start > 0
	case afterID != "":
		i := index(afterID)
		if i < 0 {
			return []anthropicModel{}, false
		}
		all = all[i+1:]
	}
	if len(all) > limit {
		return all[:limit], true
	}
	return all, false
}

// listModels lists the account's models with the key of c; when the service
// refuses, it answers the client with the service's status in the shape of
// c's protocol, and ok is false.
func (h *Handler) listModels(w http.ResponseWriter, r *http.Request, c *call) (listed []api.Model, ok bool) {
	client := api.NewClient(h.upstream.String(), c.key, api.NewHTTPClient(h.transport, 0))
	listed, err := client.Models(r.Context())
	if err == nil {
		return listed, true
	}
	status := http.StatusBadGateway
	var ae *api.Error
	if errors.As(err, &ae) && ae.Status >= 400 {
		status = ae.Status
	}
	// api's errors do not hold the key; checked all the same, as everything relayed.
	msg := err.Error()
	if c.scrub.contains(msg) {
		msg = "the service refused to list the models (" + strconv.Itoa(status) + ")"
	}
	c.entry.status = writeErrorAs(w, c.route.proto, status, "upstream_error", msg)
	return nil, false
}

// writeJSON answers 200 with b, or 500 with err, the failure to make b.
func writeJSON(w http.ResponseWriter, c *call, b []byte, err error) {
	if err != nil {
		c.entry.status = writeErrorAs(w, c.route.proto, http.StatusInternalServerError, "internal", err.Error())
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(b)
	c.entry.status = http.StatusOK
}
