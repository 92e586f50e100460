package proxy

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
)

// MaxHeaderBytes bounds the request line and headers of a request gw serve
// reads (net/http's default is 1 MiB): an agent's headers are a few hundred
// bytes, and each open connection may hold this much.
const MaxHeaderBytes = 64 << 10

// net/http answers a request it cannot read (a missing Host, a malformed
// line, headers over MaxHeaderBytes, an unknown Transfer-Encoding) itself,
// in plain text, before any handler runs, and offers no hook to change that
// answer. Clients of gw serve read its errors in the OpenAI JSON shape, so
// the connection is wrapped: a write made while no handler is serving the
// connection can only be such an answer (see errorConn.Write), and is
// rewritten into that shape. A change of net/http's format makes
// TestHostileClientServerErrorsAreJSON fail, not a client misread gw.
type errorListener struct{ net.Listener }

func (l errorListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &errorConn{Conn: c}, nil
}

// errorConn is a connection of gw serve. serving is true from the start of a
// handler until net/http has written its whole response and gone back to
// reading (http.StateIdle); both happen on the connection's one goroutine,
// in that order, so a write while serving is false is net/http's own.
type errorConn struct {
	net.Conn
	serving atomic.Bool
}

// connCtx is the context key of the *errorConn a request came in on.
type connCtx struct{}

func withConn(ctx context.Context, c net.Conn) context.Context {
	if ec, ok := c.(*errorConn); ok {
		return context.WithValue(ctx, connCtx{}, ec)
	}
	return ctx
}

// markServing is called at the start of every handler.
func markServing(r *http.Request) {
	if ec, ok := r.Context().Value(connCtx{}).(*errorConn); ok {
		ec.serving.Store(true)
	}
}

// connState ends a connection's serving once its response is written.
func connState(c net.Conn, s http.ConnState) {
	if ec, ok := c.(*errorConn); ok && s == http.StateIdle {
		ec.serving.Store(false)
	}
}

func (c *errorConn) Write(p []byte) (int, error) {
	if c.serving.Load() {
		return c.Conn.Write(p)
	}
	if b, ok := jsonServerError(p); ok {
		if _, err := c.Conn.Write(b); err != nil {
			return 0, err
		}
		return len(p), nil
	}
	return c.Conn.Write(p)
}

// CloseWrite lets net/http half-close the connection after a 431, as it does
// on a bare TCP connection, so the client reads the answer before the close.
func (c *errorConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

// CodeBadRequest and CodeHeadersTooLarge are the codes of net/http's own
// answers as gw serve rewrites them.
const (
	CodeBadRequest      = "bad_request"
	CodeHeadersTooLarge = "headers_too_large"
)

// jsonServerError turns net/http's plain-text answer p ("HTTP/1.1 400 Bad
// Request\r\n…\r\n\r\n400 Bad Request: missing required Host header") into
// the same status with an OpenAI-shaped JSON body, or reports false when p
// is not such an answer.
func jsonServerError(p []byte) ([]byte, bool) {
	const proto = "HTTP/1.1 "
	head, text, ok := bytes.Cut(p, []byte("\r\n\r\n"))
	if !ok || !bytes.HasPrefix(head, []byte(proto)) || len(head) < len(proto)+3 {
		return nil, false
	}
	status, err := strconv.Atoi(string(head[len(proto) : len(proto)+3]))
	if err != nil || status < 400 || status > 599 {
		return nil, false
	}
	code, msg := CodeBadRequest, ""
	if status == http.StatusRequestHeaderFieldsTooLarge {
		code = CodeHeadersTooLarge
		msg = "request refused: its request line and headers are larger than the " +
			strconv.Itoa(MaxHeaderBytes>>10) + " KiB gw serve accepts"
	} else {
		// What net/http says after the status ("missing required Host
		// header"); it never echoes the client's bytes.
		detail := strings.TrimSpace(string(text))
		detail = strings.TrimPrefix(detail, strconv.Itoa(status)+" "+http.StatusText(status))
		detail = strings.TrimSpace(strings.TrimPrefix(detail, ":"))
		switch {
		case status == http.StatusExpectationFailed:
			detail = "gw serve understands no Expect header but Expect: 100-continue"
		case detail == "":
			detail = "gw serve could not read it as an HTTP/1.1 request"
		}
		msg = strings.ToLower(http.StatusText(status)) + ": " + detail
	}
	body, _ := json.Marshal(errorBody{Error: errorDetail{Message: msg, Type: "gw_error", Code: code}})
	body = append(body, '\n')
	var b bytes.Buffer
	b.WriteString(proto + strconv.Itoa(status) + " " + http.StatusText(status) + "\r\n" +
		"Content-Type: application/json\r\nCache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\n" +
		"Connection: close\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n")
	b.Write(body)
	return b.Bytes(), true
}
