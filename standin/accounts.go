package standin

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// The demo keys of DefaultAccounts. They open nothing but a stand-in, so they
// may be written down in the README and in test scripts.
const (
	DemoKeyFull      = "sk-gw-demo-full"      // all 8 models, positive balance
	DemoKeyNoBalance = "sk-gw-demo-nobalance" // all 8 models, balance exhausted
	DemoKeyPartial   = "sk-gw-demo-partial"   // 3 models, positive balance
)

// Account is one account of the stand-in, reached by its key.
type Account struct {
	Key          string   `json:"key"`
	BalanceCents int64    `json:"balance_cents"`
	Plan         []string `json:"plan,omitempty"` // model ids; nil = all 8 models
}

// ModelIDs returns the 8 model ids of the spec, in the spec's order. It is
// kept here rather than taken from package api so the stand-in stays an
// independent picture of the service that api is tested against.
func ModelIDs() []string {
	return []string{
		"vendor-a/model-a-opus-4.6",
		"vendor-a/model-a-opus-4.5-thinking",
		"vendor-a/model-a-sonnet-4.6",
		"vendor-a/model-a-sonnet-4.5",
		"vendor-a/model-a-sonnet-4.5-thinking",
		"vendor-a/model-a-haiku-4.5",
		"vendor-b/model-b-3-flash-preview",
		"vendor-b/model-b-3-pro-preview",
	}
}

// PartialPlan is the plan of DemoKeyPartial.
func PartialPlan() []string {
	return []string{
		"vendor-a/model-a-sonnet-4.5",
		"vendor-a/model-a-haiku-4.5",
		"vendor-b/model-b-3-flash-preview",
	}
}

// DefaultAccounts returns the demo accounts: DemoKeyFull, DemoKeyNoBalance
// and DemoKeyPartial.
func DefaultAccounts() []Account {
	return []Account{
		{Key: DemoKeyFull, BalanceCents: 10_000},
		{Key: DemoKeyNoBalance, BalanceCents: 0},
		{Key: DemoKeyPartial, BalanceCents: 10_000, Plan: PartialPlan()},
	}
}

// planModels returns the ids the account may use, in the spec's order.
func (a Account) planModels() []string {
	all := ModelIDs()
	if a.Plan == nil {
		return all
	}
	return slices.DeleteFunc(all, func(id string) bool { return !slices.Contains(a.Plan, id) })
}

// ParseAccounts reads a JSON list of accounts, as written by hand for
// --accounts:
//
//	[{"key": "sk-test-1", "balance_cents": 500, "plan": ["vendor-a/model-a-haiku-4.5"]}]
//
// Every key must be non-empty and unique, and every plan entry one of ModelIDs.
func ParseAccounts(data []byte) ([]Account, error) {
	var accts []Account
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&accts); err != nil {
		return nil, fmt.Errorf("accounts: want a JSON list of {\"key\", \"balance_cents\", \"plan\"}: %w", err)
	}
	if err := ValidateAccounts(accts); err != nil {
		return nil, err
	}
	return accts, nil
}

// ValidateAccounts reports the first account that cannot be served.
func ValidateAccounts(accts []Account) error {
	known := ModelIDs()
	seen := map[string]bool{}
	for i, a := range accts {
		switch {
		case a.Key == "":
			return fmt.Errorf("accounts[%d]: empty key; give every account a \"key\"", i)
		case strings.ContainsAny(a.Key, " \t\r\n"):
			return fmt.Errorf("accounts[%d]: key contains whitespace; keys are sent as \"Authorization: Bearer <key>\"", i)
		case seen[a.Key]:
			return fmt.Errorf("accounts[%d]: key used by an earlier account; keys must be unique", i)
		}
		seen[a.Key] = true
		for _, id := range a.Plan {
			if !slices.Contains(known, id) {
				return fmt.Errorf("accounts[%d]: plan model %q is not one of the service's ids (%s)", i, id, strings.Join(known, ", "))
			}
		}
	}
	return nil
}
