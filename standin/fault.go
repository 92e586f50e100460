package standin

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// FaultKind names a way the service can misbehave.
type FaultKind string

const (
	FaultNone        FaultKind = ""
	FaultSlowHeaders FaultKind = "slow-headers" // wait Delay before answering at all
	FaultSlowStream  FaultKind = "slow-stream"  // wait Delay between SSE events
	FaultReset       FaultKind = "reset"        // cut the TCP connection (RST) after After SSE events; non-streamed answers are cut before the headers
	FaultServerError FaultKind = "5xx"          // answer Status (429, 500, 502, 503 or 529) with a body
	FaultHang        FaultKind = "hang"         // never answer; return only when the client goes away or the server closes
	// FaultOverflow refuses a chat request with the dialect's context-length
	// error (400), as if the prompt exceeded the window; streamed answers
	// with After > 0 send After events first, then the error as an SSE event
	// (no [DONE]), as gateways do when the overflow shows mid-stream.
	FaultOverflow FaultKind = "overflow"
)

// Fault is the misbehaviour applied to requests. The zero Fault is none.
type Fault struct {
	Kind   FaultKind
	Delay  time.Duration // slow-headers (default 2s), slow-stream (default 200ms)
	After  int           // reset: SSE events written before the cut
	Status int           // 5xx: 500 (default), 502 (an nginx HTML page), 429, 503 and 529 (with Retry-After)
	// RetryAfter is sent with 429, 503 and 529 as Retry-After (whole
	// seconds, rounded up) and retry-after-ms; 0 means 1s.
	RetryAfter time.Duration
	Path       string // only requests whose path ends in Path (e.g. "/models", "/chat/completions"); "" = all
}

func (f Fault) applies(path string) bool {
	return f.Kind != FaultNone && (f.Path == "" || strings.HasSuffix(path, f.Path))
}

func (f Fault) delay() time.Duration {
	switch {
	case f.Delay > 0:
		return f.Delay
	case f.Kind == FaultSlowHeaders:
		return 2 * time.Second
	default:
		return 200 * time.Millisecond
	}
}

// retries: the status asks the client to retry after a delay.
func (f Fault) retries() bool {
	return f.Status == 429 || f.Status == 503 || f.Status == 529
}

func (f Fault) retryAfter() time.Duration {
	if f.RetryAfter > 0 {
		return f.RetryAfter
	}
	return time.Second
}

func (f Fault) status() int {
	if f.Status == 0 {
		return 500
	}
	return f.Status
}

// String gives the form ParseFault reads.
func (f Fault) String() string {
	var s string
	switch f.Kind {
	case FaultNone:
		return "none"
	case FaultSlowHeaders, FaultSlowStream:
		s = string(f.Kind) + ":" + f.delay().String()
	case FaultReset:
		s = string(f.Kind) + ":" + strconv.Itoa(f.After)
	case FaultServerError:
		s = strconv.Itoa(f.status())
		if f.RetryAfter > 0 {
			s += ":" + f.RetryAfter.String()
		}
	case FaultOverflow:
		s = string(f.Kind)
		if f.After > 0 {
			s += ":" + strconv.Itoa(f.After)
		}
	default:
		s = string(f.Kind)
	}
	if f.Path != "" {
		s += "@" + f.Path
	}
	return s
}

// ParseFault reads a fault as given to gw-standin --fault:
//
//	none | slow-headers[:DURATION] | slow-stream[:DURATION] | reset[:EVENTS] | 500 | 502 | hang
//	429[:RETRY-AFTER] | 503[:RETRY-AFTER] | 529[:RETRY-AFTER] | overflow[:EVENTS]
//
// optionally followed by "@PATH-SUFFIX" to limit it to some requests, e.g.
// "reset:3@/chat/completions", "503@/models" or "429:2s@/chat/completions".
func ParseFault(s string) (Fault, error) {
	var f Fault
	spec, path, hasPath := strings.Cut(strings.TrimSpace(s), "@")
	if hasPath {
		if path == "" || !strings.HasPrefix(path, "/") {
			return Fault{}, fmt.Errorf("fault %q: the part after @ must be a path suffix such as /models or /chat/completions", s)
		}
		f.Path = path
	}
	name, arg, hasArg := strings.Cut(spec, ":")
	bad := func(why string) (Fault, error) {
		return Fault{}, fmt.Errorf("fault %q: %s; use none, slow-headers[:2s], slow-stream[:200ms], reset[:N], 429[:1s], 500, 502, 503[:1s], 529[:1s], overflow[:N] or hang", s, why)
	}
	switch name {
	case "", "none":
		if hasArg || hasPath {
			return bad("none takes no argument")
		}
		return Fault{}, nil
	case string(FaultSlowHeaders), string(FaultSlowStream):
		f.Kind = FaultKind(name)
		if hasArg {
			d, err := time.ParseDuration(arg)
			if err != nil || d <= 0 {
				return bad("the delay must be a positive duration such as 500ms or 3s")
			}
			f.Delay = d
		}
	case string(FaultReset):
		f.Kind = FaultReset
		f.After = 2
		if hasArg {
			n, err := strconv.Atoi(arg)
			if err != nil || n < 0 {
				return bad("the event count must be a whole number ≥ 0")
			}
			f.After = n
		}
	case "429", "500", "502", "503", "529", string(FaultServerError):
		f.Kind = FaultServerError
		f.Status = 500
		if name != string(FaultServerError) {
			f.Status, _ = strconv.Atoi(name)
		}
		if hasArg {
			if !f.retries() {
				return bad("only 429, 503 and 529 take an argument, the Retry-After delay")
			}
			d, err := time.ParseDuration(arg)
			if err != nil || d <= 0 {
				return bad("the Retry-After delay must be a positive duration such as 1s or 1500ms")
			}
			f.RetryAfter = d
		}
	case string(FaultOverflow):
		f.Kind = FaultOverflow
		if hasArg {
			n, err := strconv.Atoi(arg)
			if err != nil || n < 0 {
				return bad("the event count must be a whole number ≥ 0")
			}
			f.After = n
		}
	case string(FaultHang):
		f.Kind = FaultHang
		if hasArg {
			return bad("hang takes no argument")
		}
	default:
		return bad("unknown fault " + strconv.Quote(name))
	}
	return f, nil
}
