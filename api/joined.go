package api

import "cmp"

// JoinedModel is one model as gw shows it (gw models --json, the pickers, gw init): the service's list for
// the account joined with what the built-in catalogue knows of the id.
type JoinedModel struct {
	ID             string `json:"id"`
	Name           string `json:"name"`
	Vendor         string `json:"vendor,omitempty"`
	Context        int    `json:"context,omitempty"`
	Output         int    `json:"output,omitempty"`
	Reasoning      bool   `json:"reasoning"`
	InSubscription bool   `json:"in_subscription"` // the service lists it for this account
	InCatalogue    bool   `json:"in_catalogue"`
}

// JoinCatalog merges the service's list with the built-in catalogue: the account's models first, in the
// service's order (duplicates dropped), with the catalogue's names and limits where it knows the id; then
// the catalogue's models outside the subscription, in the catalogue's order.
func JoinCatalog(listed []Model) []JoinedModel {
	var out []JoinedModel
	seen := map[string]bool{}
	for _, m := range listed {
		if seen[m.ID] {
			continue
		}
		seen[m.ID] = true
		e := JoinedModel{ID: m.ID, Name: m.Name, Context: m.ContextLength, InSubscription: true}
		if c, ok := LookupModel(m.ID); ok {
			e.Name, e.Vendor, e.Context, e.Output, e.Reasoning, e.InCatalogue = c.Name, c.Vendor, c.Context, c.Output, c.Reasoning, true
		}
		e.Name = cmp.Or(e.Name, m.ID)
		out = append(out, e)
	}
	for _, c := range Catalog() {
		if !seen[c.ID] {
			out = append(out, JoinedModel{ID: c.ID, Name: c.Name, Vendor: c.Vendor, Context: c.Context, Output: c.Output, Reasoning: c.Reasoning, InCatalogue: true})
		}
	}
	return out
}

// SubscribedIDs is the ids of the models the account can use, in order.
func SubscribedIDs(models []JoinedModel) []string {
	var ids []string
	for _, m := range models {
		if m.InSubscription {
			ids = append(ids, m.ID)
		}
	}
	return ids
}
