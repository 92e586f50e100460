package main

import (
	"strings"
	"testing"
	"time"
)

// The CPU table, from given per-round times: the floor has a row for every
// request, passing the chat request through; the floor and gw serve's
// Messages rows are divided by claude-code-router's; and a line per
// Messages cell says whether a tenth of claude-code-router is below the
// floor.
func TestCPUTableComparesFloorAndMessagesWithClaudeCodeRouter(t *testing.T) {
	r := func(name string, p proto) route { return route{name, &target{name: name}, p} }
	ccr := r("claude-code-router, Messages → chat", protoMessages)
	routes := cpuRoutes{floor: r(floorName, protoChat), chat: r("gw serve, chat passed through", protoChat),
		messages: r("gw serve, Messages → chat", protoMessages), responses: r("gw serve, Responses → chat", protoResponses), ccr: &ccr}
	a := agentRequests{claude: []byte("claude"), claudeChat: []byte("claude as chat"), codex: []byte("codex"), codexChat: []byte("codex as chat")}
	groups := cpuGroups([]cpuAnswer{{24, routes}}, a)
	us := func(n ...int) []time.Duration {
		var d []time.Duration
		for _, x := range n {
			d = append(d, time.Duration(x)*time.Microsecond)
		}
		return d
	}
	// One-line question: the floor at 0.12× claude-code-router (a tenth is
	// below it), gw serve's Messages at 0.14×. Claude Code turn: the floor
	// at 0.02×, gw serve's Messages at 0.05×.
	times := map[string]map[string][]time.Duration{
		"one-line question": {floorName: us(120, 120, 120), "gw serve, chat passed through": us(240, 240, 240),
			"gw serve, Messages → chat": us(140, 140, 140), "gw serve, Responses → chat": us(300, 300, 300), ccr.name: us(1000, 1000, 1000)},
		"Claude Code turn (0 KB; as chat 0 KB)": {floorName: us(100, 100, 100), "gw serve, chat passed through": us(150, 150, 150),
			"gw serve, Messages → chat": us(250, 250, 250), ccr.name: us(5000, 5000, 5000)},
		"Codex turn (0 KB; as chat 0 KB)": {floorName: us(100, 100, 100), "gw serve, chat passed through": us(200, 200, 200),
			"gw serve, Responses → chat": us(400, 400, 400)},
	}
	for _, g := range groups {
		for _, ce := range g.cells {
			ce.cpu, ce.count = times[g.req][ce.r.name], 10
			if ce.cpu == nil {
				t.Errorf("unexpected cell: %s, %s", g.req, ce.r.name)
			}
		}
	}
	var b strings.Builder
	writeCPUTable(&b, tconfig{cpuConc: 4, cpuDuration: time.Second, rounds: 3}, groups)
	report := b.String()
	for _, row := range []string{
		"| 24 deltas | one-line question | " + floorName + " | 10 | 120 µs | 0.50× [0.50 – 0.50] | 0.12× [0.12 – 0.12] |",
		"| 24 deltas | one-line question | gw serve, chat passed through | 10 | 240 µs | – | – |",
		"| 24 deltas | one-line question | gw serve, Messages → chat | 10 | 140 µs | 0.58× [0.58 – 0.58] | 0.14× [0.14 – 0.14] |",
		"| 24 deltas | one-line question | gw serve, Responses → chat | 10 | 300 µs | 1.25× [1.25 – 1.25] | – |",
		"| 24 deltas | one-line question | claude-code-router, Messages → chat | 10 | 1.00 ms | 4.17× [4.17 – 4.17] | – |",
		"| 24 deltas | Claude Code turn (0 KB; as chat 0 KB) | " + floorName + " | 10 | 100 µs | 0.67× [0.67 – 0.67] | 0.02× [0.02 – 0.02] |",
		"| 24 deltas | Claude Code turn (0 KB; as chat 0 KB) | gw serve, Messages → chat | 10 | 250 µs | 1.67× [1.67 – 1.67] | 0.05× [0.05 – 0.05] |",
		"| 24 deltas | Codex turn (0 KB; as chat 0 KB) | " + floorName + " | 10 | 100 µs | 0.50× [0.50 – 0.50] | – |",
		"| 24 deltas | Codex turn (0 KB; as chat 0 KB) | gw serve, Responses → chat | 10 | 400 µs | 2.00× [2.00 – 2.00] | – |",
		"- 24 deltas, one-line question: floor ÷ claude-code-router 0.12× [0.12 – 0.12] (medians: the floor 120 µs, a tenth of claude-code-router 100 µs): **a tenth of claude-code-router is below the floor**, in 3 of 3 rounds below it; gw serve, Messages → chat 0.14× [0.14 – 0.14]",
		"- 24 deltas, Claude Code turn (0 KB; as chat 0 KB): floor ÷ claude-code-router 0.02× [0.02 – 0.02] (medians: the floor 100 µs, a tenth of claude-code-router 500 µs): a tenth of claude-code-router is above the floor, in 0 of 3 rounds below it; gw serve, Messages → chat 0.05× [0.05 – 0.05]",
	} {
		if !strings.Contains(report, row+"\n") {
			t.Errorf("no line %q", row)
		}
	}
	if strings.Contains(report, "Codex turn (0 KB; as chat 0 KB): a tenth") {
		t.Error("a floor line for the Codex turn, which claude-code-router does not translate")
	}
	if t.Failed() {
		t.Logf("report:\n%s", report)
	}
}

// Without claude-code-router, no ratio to it and no line about the floor.
func TestCPUTableWithoutClaudeCodeRouter(t *testing.T) {
	r := func(name string, p proto) route { return route{name, &target{name: name}, p} }
	routes := cpuRoutes{floor: r(floorName, protoChat), chat: r("gw serve, chat passed through", protoChat),
		messages: r("gw serve, Messages → chat", protoMessages), responses: r("gw serve, Responses → chat", protoResponses)}
	groups := cpuGroups([]cpuAnswer{{24, routes}}, agentRequests{})
	for _, g := range groups {
		for _, ce := range g.cells {
			ce.cpu, ce.count = []time.Duration{time.Millisecond}, 1
		}
	}
	var b strings.Builder
	writeCPUTable(&b, tconfig{cpuConc: 4, cpuDuration: time.Second, rounds: 1}, groups)
	report := b.String()
	if strings.Contains(report, "a tenth of claude-code-router (") || strings.Contains(report, "× [1.00 – 1.00] | 1.00×") {
		t.Errorf("claude-code-router compared though not measured:\n%s", report)
	}
	if !strings.Contains(report, "| 24 deltas | one-line question | "+floorName+" | 1 | 1.00 ms | 1.00× [1.00 – 1.00] | – |\n") {
		t.Errorf("no floor row:\n%s", report)
	}
}
