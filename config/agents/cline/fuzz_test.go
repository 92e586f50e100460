package cline

import (
	"testing"

	"github.com/modelgateway/gw/config/agents/agentstest"
)

// FuzzMerge: any providers.json or models.json is merged with what gw does
// not own kept (and a second merge is a no-op), or refused, with the input
// untouched.
func FuzzMerge(f *testing.F) {
	agentstest.Seeds(f, "corpus", "models")
	f.Fuzz(func(t *testing.T, src []byte) {
		if res, err := agentstest.MergeOnce(t, providersMerge, src, agentstest.Decl()); err == nil {
			agentstest.JSONKept(t, src, res.Data, "/providers/openai-compatible", "/lastUsedProvider", "/version", "/modes")
		}
		if res, err := agentstest.MergeOnce(t, modelsMerge, src, agentstest.Decl()); err == nil {
			agentstest.JSONKept(t, src, res.Data, "/providers/openai-compatible", "/version")
		}
	})
}
