package api_test

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelgateway/gw/api"
	"github.com/modelgateway/gw/standin"
)

// The project's stand-in of the service answers in every gateway dialect it
// knows, with every status gateways use; the one classification must name
// the same condition and cause in all of them.
func TestClassify_AgainstStandin(t *testing.T) {
	type scenario struct {
		name       string
		key, model string // model "" → GET /models
		opts       func(*standin.Options)
		cond       api.Condition
		kinds      []api.Kind // accepted kinds (some dialects cannot say which)
	}
	scenarios := []scenario{
		{name: "missing key", key: "", cond: api.KeyRejected, kinds: []api.Kind{api.KindWrongKey}},
		{name: "wrong key", key: "sk-gw-demo-wrong-0000", cond: api.KeyRejected, kinds: []api.Kind{api.KindWrongKey, api.KindKeyOrBalance}},
		{name: "wrong base path", key: standin.DemoKeyFull, cond: api.ServiceUnreachable, kinds: []api.Kind{api.KindBaseURL}},
		{name: "unknown model", key: standin.DemoKeyFull, model: "vendor-a/model-a-sonet-4.5", cond: api.UnknownModel, kinds: []api.Kind{api.KindMisspelled}},
		{name: "unknown model 400", key: standin.DemoKeyFull, model: "vendor-a/model-a-sonet-4.5", opts: func(o *standin.Options) { o.ModelStatus = 400 },
			cond: api.UnknownModel, kinds: []api.Kind{api.KindMisspelled}},
		{name: "not in plan", key: standin.DemoKeyPartial, model: "vendor-a/model-a-opus-4.6", cond: api.UnknownModel, kinds: []api.Kind{api.KindNotSubscribed}},
		{name: "hidden balance cause", key: standin.DemoKeyNoBalance, opts: func(o *standin.Options) { o.HideBalanceCause = true },
			cond: api.KeyRejected, kinds: []api.Kind{api.KindKeyOrBalance, api.KindWrongKey}},
	}
	for _, st := range []int{0, 401, 402, 403, 429} {
		scenarios = append(scenarios, scenario{name: fmt.Sprintf("no balance %d", st), key: standin.DemoKeyNoBalance,
			opts: func(o *standin.Options) { o.BalanceStatus = st }, cond: api.KeyRejected, kinds: []api.Kind{api.KindNoBalance}})
	}

	for _, d := range standin.Dialects() {
		for _, sc := range scenarios {
			t.Run(d+"/"+sc.name, func(t *testing.T) {
				o := standin.Options{Dialect: d}
				if sc.opts != nil {
					sc.opts(&o)
				}
				srv := httptest.NewServer(standin.New(o))
				defer srv.Close()
				base := srv.URL + "/v1"
				if sc.name == "wrong base path" {
					base = srv.URL + "/api/v1"
				}
				c := api.NewClient(base, sc.key, srv.Client())
				var e *api.Error
				if sc.model == "" {
					_, err := c.Models(context.Background())
					if !errors.As(err, &e) {
						t.Fatalf("want *api.Error, got %v", err)
					}
				} else {
					// Probe is the chat request gw doctor makes: one token, classified.
					err := c.Probe(context.Background(), sc.model)
					if !errors.As(err, &e) {
						t.Fatalf("want *api.Error, got %v", err)
					}
				}
				if e == nil {
					t.Fatal("no error")
				}
				if sc.key != "" && strings.Contains(e.Error(), sc.key) {
					t.Errorf("key in %q", e.Error())
				}
				ok := false
				for _, k := range sc.kinds {
					ok = ok || e.Kind == k
				}
				if e.Condition != sc.cond || !ok {
					t.Errorf("got %q/%q, want %q/%v: %v", e.Condition, e.Kind, sc.cond, sc.kinds, e)
				}
			})
		}
	}
}
