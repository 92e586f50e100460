package proxy

import (
	"net/http"
	"strings"
	"testing"
)

// BenchmarkScrubHeaders scrubs the headers of a typical answer, as gw serve
// does for every answer, 2xx included: "meaning" is the scrubber, which reads
// every spelling of the key; "spelling" the baseline, a search for the key
// as it is, which is what finding the key costs at the least.
func BenchmarkScrubHeaders(b *testing.B) {
	h := http.Header{
		"Content-Type":  {"text/event-stream; charset=utf-8"},
		"Cache-Control": {"no-cache"},
		"X-Request-Id":  {"req_8f3a9c2b1d4e5f6a7b8c9d0e"},
		"Date":          {"Thu, 26 Nov 2026 03:17:40 GMT"},
		"Server":        {"cloudflare"},
		"Set-Cookie":    {"__cf_bm=abcdefghijklmnopqrstuvwxyz0123456789; path=/; expires=Thu, 26-Nov-26 03:47:40 GMT; domain=.example.com; HttpOnly; Secure; SameSite=None"},
	}
	b.Run("meaning", func(b *testing.B) {
		s := newScrubber(realKey)
		b.ReportAllocs()
		for b.Loop() {
			s.header(h)
		}
	})
	b.Run("spelling", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for name, vv := range h {
				if strings.Contains(name, realKey) {
					b.Fatal("found")
				}
				for _, v := range vv {
					if strings.Contains(v, realKey) {
						b.Fatal("found")
					}
				}
			}
		}
	})
}

// BenchmarkScrubErrorBody scrubs a 64 KiB JSON error body without the key,
// against the baseline of searching it for the key as it is.
func BenchmarkScrubErrorBody(b *testing.B) {
	body := []byte(`{"error":{"message":"` + strings.Repeat(`the service said \"no\" at /v1/chat/completions; see https://example.com/docs?x=1&y=%20 `, 700) + `"}}`)
	b.Run("meaning", func(b *testing.B) {
		s := newScrubber(realKey)
		b.SetBytes(int64(len(body)))
		for b.Loop() {
			s.scrub(body)
		}
	})
	b.Run("spelling", func(b *testing.B) {
		b.SetBytes(int64(len(body)))
		for b.Loop() {
			if strings.Contains(string(body), realKey) {
				b.Fatal("found")
			}
		}
	})
}
