// Package capio reads what someone else sends — a client's request body,
// the service's stream, a compressed log file — up to a bound, and never
// holds more than the bound to find out that it went past it.
//
// The request bodies of gw serve's translated routes and the service's
// streams answering them (proxy/relay), and the request log's compressed
// files (reqlog), read through it; gw's other bounded reads (a file, a
// whole answer, an error body, the model list) use io.LimitReader.
package capio

import (
	"bytes"
	"errors"
	"fmt"
	"io"
)

// Reader reads R up to N bytes. A read past them fails with Err (which must
// not be nil), unless R ends exactly there: a body of exactly N bytes is
// read whole.
type Reader struct {
	R   io.Reader
	N   int64 // bytes left
	Err error
}

func (c *Reader) Read(p []byte) (int, error) {
	if c.N <= 0 {
		var one [1]byte
		for {
			n, err := c.R.Read(one[:])
			if n > 0 {
				return 0, c.Err
			}
			if err != nil || len(p) == 0 {
				return 0, err
			}
		}
	}
	if int64(len(p)) > c.N {
		p = p[:c.N]
	}
	n, err := c.R.Read(p)
	c.N -= int64(n)
	return n, err
}

// chunk bounds the pieces ReadAll reads a body of unknown length in.
const (
	firstChunk = 32 << 10
	lastChunk  = 4 << 20
)

// ReadAll reads r to its end. A body longer than limit fails with tooLarge,
// and costs at most limit+1 bytes to find out; size is the length r says it
// has (an HTTP Content-Length; -1 or 0: unknown): larger than limit is
// refused at once without a read. A body of the length said ends in one
// allocation of its size, grown as its bytes arrive (so a length said and
// not sent costs what was sent, not what was said): about 1.5 times its
// size at most. A body of unknown length is read in pieces growing to
// 4 MiB, then joined: about twice its size at most.
func ReadAll(r io.Reader, size, limit int64, tooLarge error) ([]byte, error) {
	if size > limit {
		return nil, tooLarge
	}
	if size > 0 {
		b := make([]byte, 0, min(size, firstChunk))
		for {
			if len(b) == cap(b) {
				nb := make([]byte, len(b), min(size, 2*int64(cap(b))))
				copy(nb, b)
				b = nb
			}
			n, err := r.Read(b[len(b):cap(b)])
			b = b[:len(b)+n]
			if int64(len(b)) == size {
				break
			}
			if errors.Is(err, io.EOF) {
				return nil, io.ErrUnexpectedEOF // shorter than it said: cut off
			}
			if err != nil {
				return nil, err
			}
		}
		var one [1]byte
		for {
			m, err := r.Read(one[:])
			if m > 0 {
				// Longer than it said: the rest in pieces.
				rest, err := ReadAll(io.MultiReader(bytes.NewReader(one[:1]), r), 0, limit-size, tooLarge)
				if err != nil {
					return nil, err
				}
				return append(b, rest...), nil
			}
			if errors.Is(err, io.EOF) {
				return b, nil
			}
			if err != nil {
				return nil, err
			}
		}
	}
	var chunks [][]byte
	var total int64
	next := int64(firstChunk)
	for {
		c := make([]byte, min(next, limit+1-total))
		n, err := io.ReadFull(r, c)
		total += int64(n)
		if total > limit {
			return nil, tooLarge
		}
		if n > 0 {
			chunks = append(chunks, c[:n])
		}
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		next = min(next*2, lastChunk)
	}
	switch len(chunks) {
	case 0:
		return []byte{}, nil
	case 1:
		return chunks[0], nil
	}
	out := make([]byte, 0, total)
	for _, c := range chunks {
		out = append(out, c...)
	}
	return out, nil
}

// Size is a bound of n bytes as gw's messages name it: in the largest unit that says it exactly (4 MiB,
// 64 KiB, 1000 bytes).
func Size(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
