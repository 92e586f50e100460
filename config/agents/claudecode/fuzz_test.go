package claudecode

import (
	"testing"

	"github.com/modelgateway/gw/config/agents/agentstest"
)

// FuzzMerge: any input is merged with what gw does not own kept (and a
// second merge is a no-op), or refused as unparsable or conflicting, with
// the input untouched.
func FuzzMerge(f *testing.F) { agentstest.FuzzMerge(f, Merge, agentstest.JSONOwns("/env")) }
