package standin

import (
	"encoding/json"
	"fmt"
)

// cacheControl is Anthropic's cache breakpoint as OpenRouter and LiteLLM
// accept it over chat completions: {"type":"ephemeral","ttl":"5m"|"1h"}.
type cacheControl struct {
	Type string `json:"type"`
	TTL  string `json:"ttl,omitempty"`
}

// contentPart is one part of a message's content array.
type contentPart struct {
	Type         string          `json:"type"`
	Text         string          `json:"text"`
	ImageURL     json.RawMessage `json:"image_url"`
	File         json.RawMessage `json:"file"`
	CacheControl *cacheControl   `json:"cache_control"`
}

// Breakpoint is a cache_control marker as it reached the stand-in.
type Breakpoint struct {
	Where string // "tools[2]", "messages[0].content[1]" or "messages[3]" (on the message)
	TTL   string // "5m" or "1h" ("5m" when the marker named none)
}

const maxBreakpoints = 4 // Anthropic's limit

// parts returns the message's content as parts: a string is one text part.
func (m chatMessage) parts() []contentPart {
	var s string
	if json.Unmarshal(m.Content, &s) == nil {
		if s == "" {
			return nil
		}
		return []contentPart{{Type: "text", Text: s}}
	}
	var parts []contentPart
	_ = json.Unmarshal(m.Content, &parts)
	return parts
}

// segments cuts the prompt of req into the pieces the cache model reads,
// tools first (Anthropic's order), and lists its breakpoints. Tokens follow
// the stand-in's estimate (4 bytes a token) with 3 more per message, so
// prompt_tokens is the sum over the segments. A malformed or excess
// cache_control is refused as Anthropic refuses it.
func segments(req chatRequest) ([]Segment, []Breakpoint, error) {
	var segs []Segment
	var bps []Breakpoint
	mark := func(where string, cc *cacheControl) (string, error) {
		if cc == nil {
			return "", nil
		}
		if cc.Type != "ephemeral" {
			return "", fmt.Errorf("%s.cache_control.type: %q is not allowed; use \"ephemeral\"", where, cc.Type)
		}
		ttl := cc.TTL
		switch ttl {
		case "":
			ttl = "5m"
		case "5m", "1h":
		default:
			return "", fmt.Errorf("%s.cache_control.ttl: %q is not allowed; use \"5m\" or \"1h\"", where, cc.TTL)
		}
		bps = append(bps, Breakpoint{Where: where, TTL: ttl})
		return ttl, nil
	}
	for i, t := range req.Tools {
		where := fmt.Sprintf("tools[%d]", i)
		bp, err := mark(where, t.CacheControl)
		if err != nil {
			return nil, nil, err
		}
		desc := t.Function.Name + "\x00" + t.Function.Description + "\x00" + string(t.Function.Parameters)
		segs = append(segs, Segment{Key: "tool\x00" + desc, Tokens: tokens(desc), Breakpoint: bp})
	}
	for i, m := range req.Messages {
		first := len(segs)
		for j, p := range m.parts() {
			where := fmt.Sprintf("messages[%d].content[%d]", i, j)
			bp, err := mark(where, p.CacheControl)
			if err != nil {
				return nil, nil, err
			}
			var key string
			n := 0
			switch p.Type {
			case "text":
				key, n = p.Text, tokens(p.Text)
			case "image_url":
				key, n = string(p.ImageURL), imageTokens
			case "file":
				key, n = string(p.File), imageTokens
			default:
				key, n = p.Type, 1
			}
			segs = append(segs, Segment{Key: m.Role + "\x00" + p.Type + "\x00" + m.ToolCallID + "\x00" + key, Tokens: n, Breakpoint: bp})
		}
		for _, c := range m.ToolCalls {
			call := c.Function.Name + "\x00" + c.Function.Arguments
			segs = append(segs, Segment{Key: "call\x00" + c.ID + "\x00" + call, Tokens: tokens(call)})
		}
		if len(segs) == first {
			segs = append(segs, Segment{Key: m.Role + "\x00empty"})
		}
		segs[first].Tokens += 3
		segs[first].Key = "message\x00" + segs[first].Key
		if m.CacheControl != nil {
			bp, err := mark(fmt.Sprintf("messages[%d]", i), m.CacheControl)
			if err != nil {
				return nil, nil, err
			}
			segs[len(segs)-1].Breakpoint = bp
		}
	}
	if len(bps) > maxBreakpoints {
		return nil, nil, fmt.Errorf("a maximum of %d blocks with cache_control may be provided; found %d", maxBreakpoints, len(bps))
	}
	return segs, bps, nil
}

// imageTokens is what an image or file part counts, whatever its size.
const imageTokens = 256

// promptTokens is the sum over the segments.
func promptTokens(segs []Segment) int {
	n := 0
	for _, s := range segs {
		n += s.Tokens
	}
	return n
}

// EstimateTokens is the stand-in's token estimate of s: one token per 4
// bytes, rounded up. Benchmarks count a native API's prompt with it, so that
// both sides of a comparison are counted alike.
func EstimateTokens(s string) int { return tokens(s) }
