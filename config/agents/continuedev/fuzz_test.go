package continuedev

import (
	"testing"

	"github.com/modelgateway/gw/config/agents/agentstest"
)

// FuzzMerge: any input is merged with the lines gw does not own kept (and a
// second merge is a no-op), or refused, with the input untouched.
func FuzzMerge(f *testing.F) { agentstest.FuzzMerge(f, Merge, kept) }
