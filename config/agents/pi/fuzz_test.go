package pi

import (
	"testing"

	"github.com/modelgateway/gw/config/agents/agentstest"
)

// FuzzMergeModels: any models.json is merged with what gw does not own kept (and a second merge is a
// no-op), or refused, with the input untouched.
func FuzzMergeModels(f *testing.F) {
	agentstest.Seeds(f)
	f.Fuzz(func(t *testing.T, src []byte) {
		res, err := agentstest.MergeOnce(t, MergeModels, src, agentstest.Decl())
		if err == nil {
			agentstest.JSONKept(t, src, res.Data, ownedModels...)
		}
	})
}
