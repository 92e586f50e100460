package api_test

import (
	"context"
	"errors"
	"testing"

	"github.com/modelgateway/gw/api"
	"github.com/modelgateway/gw/standin"
)

// Probe asks for one token; the answer tells whether the key may use the model now.
func TestProbe_AgainstStandin(t *testing.T) {
	cases := []struct {
		name, key, model string
		opts             standin.Options
		cond             api.Condition
		kind             api.Kind
	}{
		{"served", standin.DemoKeyFull, "vendor-a/model-a-haiku-4.5", standin.Options{}, "", ""},
		{"balance exhausted, models listed anyway", standin.DemoKeyNoBalance, "vendor-a/model-a-haiku-4.5",
			standin.Options{ModelsIgnoreBalance: true, BalanceStatus: 403}, api.KeyRejected, api.KindNoBalance},
		{"outside the plan, 400", standin.DemoKeyPartial, "vendor-a/model-a-opus-4.6",
			standin.Options{ModelStatus: 400, Dialect: standin.DialectLiteLLM}, api.UnknownModel, api.KindNotSubscribed},
		{"misspelled, 404", standin.DemoKeyFull, "vendor-a/model-a-opus-4-6",
			standin.Options{Dialect: standin.DialectText}, api.UnknownModel, api.KindMisspelled},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := standin.Start(tc.opts)
			t.Cleanup(s.Close)
			err := api.NewClient(s.BaseURL, tc.key, s.Client()).Probe(context.Background(), tc.model)
			if tc.cond == "" {
				if err != nil {
					t.Fatalf("Probe: %v", err)
				}
				seen := s.Seen()
				if len(seen) != 1 || seen[0].Path != "/v1/chat/completions" || seen[0].Model != tc.model || seen[0].Stream {
					t.Errorf("the service saw %+v, want one unstreamed chat request for %s", seen, tc.model)
				}
				return
			}
			var ae *api.Error
			if !errors.As(err, &ae) || ae.Condition != tc.cond || ae.Kind != tc.kind {
				t.Fatalf("Probe error %#v, want %s/%s", err, tc.cond, tc.kind)
			}
		})
	}
}
