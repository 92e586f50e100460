package standin

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// BenchmarkStream measures a streamed answer of 1000 events of 64 bytes,
// each flushed: the baseline a proxy in front of the stand-in is compared to.
func BenchmarkStream(b *testing.B) {
	rs := Start(Options{ContentChunks: 1000, ChunkSize: 64})
	defer rs.Close()
	c := rs.Client()
	body := chatBody("vendor-a/model-a-haiku-4.5", true)
	b.ReportAllocs()
	for b.Loop() {
		req, _ := http.NewRequest("POST", rs.BaseURL+"/chat/completions", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+DemoKeyFull)
		resp, err := c.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		n, err := io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != 200 {
			b.Fatalf("status %d, %v", resp.StatusCode, err)
		}
		b.SetBytes(n)
	}
	b.ReportMetric(1003, "events/op")
}
