package droid

import (
	"testing"

	"github.com/modelgateway/gw/config/agents/agentstest"
)

// FuzzMerge: any input is merged with what gw does not own kept (and a second merge is a no-op), or
// refused, with the input untouched.
func FuzzMerge(f *testing.F) {
	agentstest.Seeds(f)
	f.Fuzz(func(t *testing.T, src []byte) {
		res, err := agentstest.MergeOnce(t, Merge, src, agentstest.Decl())
		if err == nil {
			agentstest.JSONKept(t, src, res.Data, owned...)
		}
	})
}
