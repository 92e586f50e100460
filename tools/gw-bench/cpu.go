package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"
)

// floorName is the CPU section's row of the plain ReverseProxy: the least
// any proxy here costs.
const floorName = "plain ReverseProxy, chat passed through (floor: copies bytes, no translation)"

// agentRequests are the recorded agents' turns and the chat request gw's
// translator makes of each.
type agentRequests struct{ claude, claudeChat, codex, codexChat []byte }

// cpuRoutes are the proxies in front of one stand-in whose CPU per request
// is measured.
type cpuRoutes struct {
	floor, chat, messages, responses route
	ccr                              *route // nil: claude-code-router is not measured
}

// newCPURoutes picks them from routesTo's routes (direct, gw serve's chat,
// Messages and Responses, then claude-code-router when measured).
func newCPURoutes(rs []route, floor route) cpuRoutes {
	r := cpuRoutes{floor: floor, chat: rs[1], messages: rs[2], responses: rs[3]}
	if len(rs) > 4 {
		r.ccr = &rs[4]
	}
	return r
}

// cpuAnswer is one answer length and the proxies in front of the stand-in
// that answers with it.
type cpuAnswer struct {
	deltas int
	routes cpuRoutes
}

// cpuCell is one path's request in one answer length: its CPU per request
// in each round and the requests it answered.
type cpuCell struct {
	answer, req string
	r           route
	body        []byte
	cpu         []time.Duration
	count       int
}

// cpuGroup is one answer length and request: its cells in the table's
// order, and those the ratios are taken to.
type cpuGroup struct {
	answer, req      string
	cells            []*cpuCell
	floor, pass      *cpuCell
	messages, viaCCR *cpuCell // nil where not measured
}

// cpuGroups are the table's groups: for each answer length, the one-line
// question in every protocol, the Claude Code turn as Messages and as chat,
// the Codex turn as Responses and as chat; the floor and gw serve passing
// chat through get the chat request.
func cpuGroups(answers []cpuAnswer, a agentRequests) []*cpuGroup {
	var gs []*cpuGroup
	for _, an := range answers {
		ans := fmt.Sprintf("%d deltas", an.deltas)
		rs := an.routes
		group := func(req string, chatBody []byte) *cpuGroup {
			g := &cpuGroup{answer: ans, req: req}
			g.floor = g.add(rs.floor, chatBody)
			g.pass = g.add(rs.chat, chatBody)
			return g
		}
		small := group("one-line question", smallBody(protoChat, true))
		small.messages = small.add(rs.messages, smallBody(protoMessages, true))
		small.add(rs.responses, smallBody(protoResponses, true))
		claude := group(fmt.Sprintf("Claude Code turn (%d KB; as chat %d KB)", len(a.claude)>>10, len(a.claudeChat)>>10), a.claudeChat)
		claude.messages = claude.add(rs.messages, a.claude)
		codex := group(fmt.Sprintf("Codex turn (%d KB; as chat %d KB)", len(a.codex)>>10, len(a.codexChat)>>10), a.codexChat)
		codex.add(rs.responses, a.codex)
		if rs.ccr != nil {
			small.viaCCR = small.add(*rs.ccr, smallBody(protoMessages, true))
			claude.viaCCR = claude.add(*rs.ccr, a.claude)
		}
		gs = append(gs, small, claude, codex)
	}
	return gs
}

func (g *cpuGroup) add(r route, body []byte) *cpuCell {
	ce := &cpuCell{answer: g.answer, req: g.req, r: r, body: body}
	g.cells = append(g.cells, ce)
	return ce
}

// cpuSection measures each proxy's CPU time per request answered, every
// request the same answer, unpaced: all cells interleaved, rotated each
// round, each warmed up before it is timed (drive).
func cpuSection(ctx context.Context, c tconfig, out io.Writer, a agentRequests, answers []cpuAnswer) error {
	groups := cpuGroups(answers, a)
	var cells []*cpuCell
	for _, g := range groups {
		cells = append(cells, g.cells...)
	}
	for round := range c.rounds {
		for _, ce := range rotateAny(cells, round) {
			pid := ce.r.tg.proc.Process.Pid
			var c0 time.Duration
			var cerr error
			xs, _, err := drive(ctx, ce.r.tg.base, ce.r.tg.token, ce.r.p, ce.body, true, c.cpuConc,
				c.cpuDuration/time.Duration(c.rounds), func() { c0, cerr = cpuTime(pid) })
			if err != nil {
				return fmt.Errorf("CPU, %s, %s, %s: %w", ce.answer, ce.req, ce.r.name, err)
			}
			c1, err := cpuTime(pid)
			if err = errors.Join(cerr, err); err != nil {
				return fmt.Errorf("CPU time of %s: %w", ce.r.name, err)
			}
			ce.cpu = append(ce.cpu, (c1-c0)/time.Duration(max(len(xs), 1)))
			ce.count += len(xs)
		}
	}
	writeCPUTable(out, c, groups)
	return nil
}

func writeCPUTable(out io.Writer, c tconfig, groups []*cpuGroup) {
	fmt.Fprintf(out, "\n## CPU per request (%d concurrent streams, %s per cell over %d interleaved rounds)\n\n",
		c.cpuConc, c.cpuDuration, c.rounds)
	fmt.Fprintln(out, "The proxy process's CPU time (user + system, /proc/PID/stat) over the requests it answered in a cell, ÷ their number; "+
		"answers streamed of that many content deltas of 32 bytes; medians of the rounds, ratios the median of the per-round ratios [lowest – highest round]. "+
		"The agents' turns are requests recorded from Claude Code and Codex; \"as chat\" is the request gw's translator makes of each, passed through. "+
		"The floor is a plain httputil.ReverseProxy (Go's defaults, a process of its own) passing the same chat request through: "+
		"it neither translates nor logs nor checks a token, so no proxy costs less here. "+
		"\"÷ claude-code-router\" is shown for gw serve's Messages rows and for the floor: where the floor's is above 0.10×, "+
		"a tenth of claude-code-router is below what any proxy costs here.")
	fmt.Fprintln(out)
	fmt.Fprintln(out, "| answer | request | path | requests | CPU per request | ÷ chat passed through | ÷ claude-code-router |")
	fmt.Fprintln(out, "|---|---|---|---|---|---|---|")
	for _, g := range groups {
		for _, ce := range g.cells {
			vsPass, vsCCR := "–", "–"
			if ce != g.pass {
				vsPass = fmtSpread(ratios(ce.cpu, g.pass.cpu))
			}
			if g.viaCCR != nil && (ce == g.floor || ce == g.messages) {
				vsCCR = fmtSpread(ratios(ce.cpu, g.viaCCR.cpu))
			}
			fmt.Fprintf(out, "| %s | %s | %s | %d | %s | %s | %s |\n", g.answer, g.req, ce.r.name, ce.count, fmtDur(pct(ce.cpu, 50)), vsPass, vsCCR)
		}
	}
	var lines []string
	for _, g := range groups {
		if g.viaCCR != nil && g.messages != nil {
			lines = append(lines, fmt.Sprintf("- %s, %s: %s\n", g.answer, g.req, floorVerdict(g.floor.cpu, g.messages.cpu, g.viaCCR.cpu)))
		}
	}
	if len(lines) == 0 {
		return
	}
	fmt.Fprintln(out, "\nA tenth of claude-code-router's CPU per request against the floor, for each Messages cell:")
	fmt.Fprintln(out)
	for _, l := range lines {
		fmt.Fprint(out, l)
	}
}

// floorVerdict says whether a tenth of claude-code-router's CPU per
// request (ccr, per round) is below the floor's, by the median of the
// per-round ratios floor ÷ claude-code-router, and where gw serve's
// Messages → chat (gw) stands.
func floorVerdict(floor, gw, ccr []time.Duration) string {
	fr := ratios(floor, ccr)
	above := 0
	for _, r := range fr {
		if r > 0.1 {
			above++
		}
	}
	verdict := "a tenth of claude-code-router is above the floor"
	if median(fr) > 0.1 {
		verdict = "**a tenth of claude-code-router is below the floor**"
	}
	return fmt.Sprintf("floor ÷ claude-code-router %s (medians: the floor %s, a tenth of claude-code-router %s): %s, in %d of %d rounds below it; gw serve, Messages → chat %s",
		fmtSpread(fr), fmtDur(pct(floor, 50)), fmtDur(pct(ccr, 50)/10), verdict, above, len(fr), fmtSpread(ratios(gw, ccr)))
}
