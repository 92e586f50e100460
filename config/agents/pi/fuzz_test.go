package pi

import (
	"testing"

	"github.com/modelgateway/gw/config/agents/agentstest"
)

// FuzzMergeModels: any models.json is merged with what gw does not own kept (and a second merge is a
// no-op), or refused, with the input untouched.
func FuzzMergeModels(f *testing.F) {
	agentstest.FuzzMerge(f, MergeModels, agentstest.JSONOwns(ownedModels...))
}
