package api

import (
	"slices"
	"testing"
)

func TestJoinCatalog_ServiceIsTheAuthority(t *testing.T) {
	// An id the service lists but the catalogue does not know is listed as available, named by its id;
	// catalogue models the service does not list follow, marked as outside the subscription.
	got := JoinCatalog([]Model{{ID: "vendor-c/new-model"}, {ID: "vendor-a/model-a-haiku-4.5"}, {ID: "vendor-c/new-model"}})
	if len(got) != 9 {
		t.Fatalf("got %d entries", len(got))
	}
	if got[0].ID != "vendor-c/new-model" || got[0].Name != "vendor-c/new-model" || !got[0].InSubscription || got[0].InCatalogue {
		t.Errorf("unknown listed model: %+v", got[0])
	}
	if got[1].Name != "Model A Haiku 4.5" || got[1].Context != 200000 || !got[1].InSubscription {
		t.Errorf("catalogue model: %+v", got[1])
	}
	for _, e := range got[2:] {
		if e.InSubscription || e.ID == "vendor-a/model-a-haiku-4.5" {
			t.Errorf("unlisted catalogue model: %+v", e)
		}
	}
	if ids := SubscribedIDs(got); !slices.Equal(ids, []string{"vendor-c/new-model", "vendor-a/model-a-haiku-4.5"}) {
		t.Errorf("SubscribedIDs = %v", ids)
	}
}
