package proxy

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"net"
	"net/http"
	"runtime"
	"testing"

	"github.com/modelgateway/gw/proxy/relay"
	"github.com/modelgateway/gw/standin"
)

// BenchmarkBodyMemory: what a request body costs gw serve in memory, as a
// ratio to the body's size, on each route: bodies of 1 and 16 MiB it
// accepts (translated and sent to a service answering from memory), and
// bodies past the 64 MiB limit it refuses: with their length said, chunked,
// and a 1 MB gzip bomb (the ratio is then to the limit). Chat completions
// are passed through as they come, unread, and are the baseline. peak/body is the
// highest live heap above the heap before the request (sampled every
// millisecond, the collector running as in gw serve), alloc/body all that
// was allocated; both per byte of body.
func BenchmarkBodyMemory(b *testing.B) {
	gw := memGateway(b, standin.New(standin.Options{}), "POST", "/v1/chat/completions", chatBody(sonnet, false))
	limit := int(relay.DefaultLimits.Request)
	var zb bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&zb, gzip.BestCompression)
	_, _ = zw.Write(bytes.Repeat([]byte(" "), 1<<30))
	_ = zw.Close()
	bomb := zb.Bytes()
	all := testRoutes
	for _, rt := range all {
		for _, c := range []struct {
			name string
			size int
			how  string
		}{
			{"1MiB", 1 << 20, "length"},
			{"16MiB", 16 << 20, "length"},
			{"16MiB-chunked", 16 << 20, "chunked"},
			{"over-limit", limit + 1<<10, "length"},
			{"over-limit-chunked", limit + 1<<10, "chunked"},
			{"gzip-bomb", limit, "gzip"},
		} {
			b.Run(rt.path[4:]+"/"+c.name, func(b *testing.B) {
				body := bomb
				if c.how != "gzip" {
					body = paddedBody(b, rt, c.size)
				}
				ctx := context.WithValue(context.Background(), http.LocalAddrContextKey,
					&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8787})
				var peak, alloc uint64
				n := 0
				for b.Loop() {
					req, _ := http.NewRequestWithContext(ctx, "POST", "http://127.0.0.1:8787"+rt.path, nil)
					req.Header.Set("Authorization", "Bearer "+testToken)
					req.Header.Set("Content-Type", "application/json")
					req.Body = io.NopCloser(bytes.NewReader(body))
					req.ContentLength = int64(len(body))
					switch c.how {
					case "chunked":
						req.ContentLength = -1
					case "gzip":
						req.Header.Set("Content-Encoding", "gzip")
					}
					w := &countingWriter{discardWriter: discardWriter{h: http.Header{}}}
					var m0, m1 runtime.MemStats
					runtime.GC()
					runtime.ReadMemStats(&m0)
					stop := make(chan struct{})
					peakc := heapPeak(stop)
					gw.ServeHTTP(w, req)
					close(stop)
					p := <-peakc
					runtime.ReadMemStats(&m1)
					want := http.StatusOK
					if (c.size > limit || c.how == "gzip") && rt.proto != "chat" {
						want = 0 // refused: 400 or 413 (chat is passed through as it comes)
					}
					if (want == 0 && w.status < 400) || (want != 0 && w.status != want) {
						b.Fatalf("status %d", w.status)
					}
					if p > m0.HeapAlloc {
						peak += p - m0.HeapAlloc
					}
					alloc += m1.TotalAlloc - m0.TotalAlloc
					n++
				}
				size := float64(c.size)
				b.ReportMetric(float64(peak)/float64(n)/size, "peak/body")
				b.ReportMetric(float64(alloc)/float64(n)/size, "alloc/body")
				b.ReportMetric(float64(peak)/float64(n)/(1<<20), "peak-MiB")
			})
		}
	}
}
