package chat

import (
	"errors"
	"io"
	"strings"
	"testing"
)

func TestStreamReadsEventsUntilDone(t *testing.T) {
	in := ": keep-alive\n\nevent: x\ndata: {\"a\":1}\n\ndata:{\"b\":\ndata: 2}\n\ndata: [DONE]\n\ndata: {\"after\":1}\n\n"
	s := NewStream(strings.NewReader(in))
	var got []string
	for {
		d, err := s.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, string(d))
	}
	if strings.Join(got, "|") != `{"a":1}|{"b":`+"\n"+`2}` {
		t.Fatalf("events %q", got)
	}
}

func TestStreamCutBeforeDoneIsUnexpectedEOF(t *testing.T) {
	s := NewStream(strings.NewReader("data: {\"a\":1}\n\n"))
	if _, err := s.Next(); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Next(); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("err %v, want unexpected EOF", err)
	}
}

func TestStreamRefusesHugeEvent(t *testing.T) {
	s := NewStream(io.MultiReader(strings.NewReader("data: "), strings.NewReader(strings.Repeat("x", MaxEventSize+10))))
	if _, err := s.Next(); !errors.Is(err, ErrEventTooLarge) {
		t.Fatalf("err %v, want ErrEventTooLarge", err)
	}
}
