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
	FaultServerError FaultKind = "5xx"          // answer Status (500, 502 or 503) with a body
	FaultHang        FaultKind = "hang"         // never answer; return only when the client goes away or the server closes
)

// Fault is the misbehaviour applied to requests. The zero Fault is none.
type Fault struct {
	Kind   FaultKind
	Delay  time.Duration // slow-headers (default 2s), slow-stream (default 200ms)
	After  int           // reset: SSE events written before the cut
	Status int           // 5xx: 500 (default), 502 (an nginx HTML page), 503 (with Retry-After)
	Path   string        // only requests whose path ends in Path (e.g. "/models", "/chat/completions"); "" = all
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
//	none | slow-headers[:DURATION] | slow-stream[:DURATION] | reset[:EVENTS] | 500 | 502 | 503 | hang
//
// optionally followed by "@PATH-SUFFIX" to limit it to some requests, e.g.
// "reset:3@/chat/completions" or "503@/models".
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
		return Fault{}, fmt.Errorf("fault %q: %s; use none, slow-headers[:2s], slow-stream[:200ms], reset[:N], 500, 502, 503 or hang", s, why)
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
	case "500", "502", "503", string(FaultServerError):
		f.Kind = FaultServerError
		f.Status = 500
		if name != string(FaultServerError) {
			f.Status, _ = strconv.Atoi(name)
		}
		if hasArg {
			return bad("a status takes no argument")
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
