package agents_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/modelgateway/gw/config/agents"
)

// A merge's output that does not read back as gw's models under gw's base URL is never written: the
// check says so, whatever the order of the models.
func TestCheckMerged(t *testing.T) {
	d := agents.Declaration{BaseURL: "http://127.0.0.1:8787/v1", Models: []agents.Model{{ID: "a"}, {ID: "b"}}}
	if err := d.CheckMerged("the merged config", agents.Inspection{BaseURL: d.BaseURL, Models: []string{"b", "a"}}, nil); err != nil {
		t.Errorf("the same models in another order: %v", err)
	}
	for what, c := range map[string]struct {
		in  agents.Inspection
		err error
	}{
		"does not parse":           {err: errors.New("line 1")},
		"another base URL":         {in: agents.Inspection{BaseURL: "http://127.0.0.1:9/v1", Models: []string{"a", "b"}}},
		"a model missing":          {in: agents.Inspection{BaseURL: d.BaseURL, Models: []string{"a"}}},
		"a model gw did not write": {in: agents.Inspection{BaseURL: d.BaseURL, Models: []string{"a", "b", "c"}}},
	} {
		err := d.CheckMerged("the merged config", c.in, c.err)
		if err == nil || !strings.Contains(err.Error(), "the merged config") || !strings.HasSuffix(err.Error(), "nothing was written") {
			t.Errorf("%s: %v, want an error naming the merged config that says nothing was written", what, err)
		}
	}
}
