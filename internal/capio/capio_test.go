package capio

import (
	"bytes"
	"errors"
	"io"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"
)

var errBig = errors.New("too large")

// TestReader: a body of exactly the bound is read whole; one byte more fails
// with the reader's error.
func TestReader(t *testing.T) {
	for _, c := range []struct {
		in   string
		fail bool
	}{{"12345", false}, {"123456", true}, {"", false}} {
		b, err := io.ReadAll(&Reader{R: iotest.OneByteReader(strings.NewReader(c.in)), N: 5, Err: errBig})
		if c.fail != errors.Is(err, errBig) || (!c.fail && string(b) != c.in) {
			t.Errorf("%q: %q, %v", c.in, b, err)
		}
	}
}

// TestReadAll: a body past the limit is refused, at once when its length
// says so (nothing is read); of unknown length after at most limit+1
// bytes; a body under it is returned whole, whatever its length says.
func TestReadAll(t *testing.T) {
	const limit = 100 << 10
	big := bytes.Repeat([]byte("x"), limit+1)
	if _, err := ReadAll(iotest.ErrReader(errors.New("read")), limit+1, limit, errBig); !errors.Is(err, errBig) {
		t.Errorf("a length past the limit: %v, want refused unread", err)
	}
	if _, err := ReadAll(bytes.NewReader(big), -1, limit, errBig); !errors.Is(err, errBig) {
		t.Errorf("past the limit, length unknown: %v", err)
	}
	if _, err := ReadAll(bytes.NewReader(big), 10, limit, errBig); !errors.Is(err, errBig) {
		t.Errorf("past the limit, length said short: %v", err)
	}
	if _, err := ReadAll(strings.NewReader("abc"), 10, limit, errBig); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("shorter than its length: %v", err)
	}
	for _, size := range []int64{-1, 0, limit} {
		b, err := ReadAll(iotest.HalfReader(bytes.NewReader(big[:limit])), size, limit, errBig)
		if err != nil || !bytes.Equal(b, big[:limit]) {
			t.Errorf("exactly the limit, length %d: %d bytes, %v", size, len(b), err)
		}
	}
}

// TestReadAllLengthSaidNotSent: a body that says 64 MiB and sends a few bytes costs what it sent (and
// the first piece), not what it said.
func TestReadAllLengthSaidNotSent(t *testing.T) {
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	_, err := ReadAll(strings.NewReader("abc"), 64<<20, 64<<20, errBig)
	runtime.ReadMemStats(&m1)
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("cut off: %v", err)
	}
	if alloc := m1.TotalAlloc - m0.TotalAlloc; alloc > 1<<20 {
		t.Errorf("3 bytes sent of 64 MiB said: %d KiB allocated", alloc>>10)
	}
}

// A bound is named in the largest unit that says it exactly.
func TestSize(t *testing.T) {
	for n, want := range map[int64]string{4 << 20: "4 MiB", 64 << 10: "64 KiB", 1536 << 10: "1536 KiB", 1000: "1000 bytes", 0: "0 bytes", 1<<20 + 1: "1048577 bytes"} {
		if got := Size(n); got != want {
			t.Errorf("Size(%d) = %q, want %q", n, got, want)
		}
	}
}
