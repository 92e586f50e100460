package api

import "testing"

// With the stand-in's catalogue as the service lists it (the most capable first), the cheapest model is the
// Haiku (flash ties it later in the list), the balanced default a Sonnet, never an Opus or a thinking one.
func TestCheapestAndBalanced(t *testing.T) {
	ids := []string{"vendor-a/model-a-opus-4.6", "vendor-a/model-a-opus-4.5-thinking", "vendor-a/model-a-sonnet-4.6",
		"vendor-a/model-a-sonnet-4.5", "vendor-a/model-a-sonnet-4.5-thinking", "vendor-a/model-a-haiku-4.5",
		"vendor-b/model-b-3-flash-preview", "vendor-b/model-b-3-pro-preview"}
	if got := Cheapest(ids); got != "vendor-a/model-a-haiku-4.5" {
		t.Errorf("Cheapest = %s", got)
	}
	if got := Balanced(ids); got != "vendor-a/model-a-sonnet-4.6" {
		t.Errorf("Balanced = %s", got)
	}
	if got := Balanced([]string{"vendor-a/model-a-opus-4.6", "vendor-b/model-b-3-flash-preview"}); got != "vendor-b/model-b-3-flash-preview" {
		t.Errorf("Balanced without a middle model = %s, want the cheapest", got)
	}
	if got := Cheapest([]string{"vendor-a/model-a-sonnet-4.5-thinking", "vendor-a/model-a-sonnet-4.5"}); got != "vendor-a/model-a-sonnet-4.5" {
		t.Errorf("Cheapest of a thinking and a plain Sonnet = %s", got)
	}
	if Cheapest(nil) != "" || Balanced(nil) != "" {
		t.Error("a model out of no models")
	}
}
