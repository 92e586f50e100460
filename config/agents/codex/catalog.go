package codex

import (
	_ "embed"
	"encoding/json"
	"strings"

	"github.com/modelgateway/gw/config/agents"
)

// CatalogPath is where gw serve answers Codex's model catalog, under its
// base URL (…/v1/codex/models). [model_providers.gw]'s model_catalog_url
// names it: Codex (0.169.0, 0.171.0) fetches a provider's model_catalog_url (with the
// provider's key and ?client_version=) and takes each model's context
// window, tools and instructions from it, for that provider only, where
// model_catalog_json would replace the catalog of every provider. A model
// Codex finds in no catalog gets "fallback metadata", which offers no
// apply_patch tool (checked).
const CatalogPath = "/codex/models"

// CatalogURL is the model_catalog_url of a provider at baseURL (…/v1).
func CatalogURL(baseURL string) string {
	return strings.TrimSuffix(baseURL, "/") + CatalogPath
}

// instructions are the base instructions of every model of the catalog:
// Codex requires each entry to carry its own (it refuses a catalog without
// them), and sends them as the first message of every request. They are
// gw's, written for Codex's tools.
//
//go:embed instructions.md
var instructions string

// catalogEntry is one model of Codex's catalog (ModelInfo), with the fields
// Codex 0.169.0 and 0.171.0 require and those gw sets; Codex fills in the rest.
type catalogEntry struct {
	Slug                       string           `json:"slug"`
	DisplayName                string           `json:"display_name"`
	Description                string           `json:"description"`
	ContextWindow              int              `json:"context_window"`
	BaseInstructions           string           `json:"base_instructions"`
	ApplyPatchToolType         string           `json:"apply_patch_tool_type"`
	ShellType                  string           `json:"shell_type"`
	Visibility                 string           `json:"visibility"`
	SupportedInAPI             bool             `json:"supported_in_api"`
	Priority                   int              `json:"priority"`
	InputModalities            []string         `json:"input_modalities"`
	DefaultReasoningLevel      *string          `json:"default_reasoning_level"`
	SupportedReasoningLevels   []reasoningLevel `json:"supported_reasoning_levels"`
	SupportsReasoningSummaries bool             `json:"supports_reasoning_summaries"`
	SupportVerbosity           bool             `json:"support_verbosity"`
	TruncationPolicy           truncation       `json:"truncation_policy"`
	SupportsParallelToolCalls  bool             `json:"supports_parallel_tool_calls"`
	ExperimentalSupportedTools []string         `json:"experimental_supported_tools"`
	PreferWebsockets           bool             `json:"prefer_websockets"`
}

type reasoningLevel struct {
	Effort      string `json:"effort"`
	Description string `json:"description"`
}

type truncation struct {
	Mode  string `json:"mode"`
	Limit int    `json:"limit"`
}

// Catalog is Codex's model catalog of models: each id with its context
// window, images where the model takes them, reasoning efforts where it
// reasons, and the apply_patch tool ("freeform", the only kind Codex
// 0.171.0 knows: a custom tool with a grammar, which gw serve offers the
// service as a function taking the patch as its one string argument, with
// the grammar in its description).
func Catalog(models []agents.Model) ([]byte, error) {
	entries := make([]catalogEntry, 0, len(models))
	for i, m := range models {
		e := catalogEntry{
			Slug: m.ID, DisplayName: m.Name, Description: m.Name + " through gw", ContextWindow: m.Context,
			BaseInstructions: instructions, ApplyPatchToolType: "freeform", ShellType: "shell_command",
			Visibility: "list", SupportedInAPI: true, Priority: i + 1, InputModalities: []string{"text"},
			SupportedReasoningLevels:  []reasoningLevel{},
			TruncationPolicy:          truncation{Mode: "tokens", Limit: 10_000},
			SupportsParallelToolCalls: true, ExperimentalSupportedTools: []string{},
		}
		if m.Attachment {
			e.InputModalities = append(e.InputModalities, "image")
		}
		if m.Reasoning {
			medium := "medium"
			e.DefaultReasoningLevel, e.SupportsReasoningSummaries = &medium, true
			e.SupportedReasoningLevels = []reasoningLevel{
				{"low", "Fast responses with lighter reasoning"},
				{"medium", "Balances speed and reasoning depth"},
				{"high", "Greater reasoning depth for complex problems"},
			}
		}
		entries = append(entries, e)
	}
	return json.Marshal(struct {
		Models []catalogEntry `json:"models"`
	}{entries})
}
