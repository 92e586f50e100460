package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/modelgateway/gw/protocol/translate"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelgateway/gw/protocol/anthropic"
	"github.com/modelgateway/gw/protocol/chat"
	"github.com/modelgateway/gw/protocol/responses"
)

// modes are the benchmarks beyond main.go's, chosen by the first argument:
// -translate (the translated protocols, claude-code-router and the
// scheduler setting; translate.go) and, internal, its client in a process
// of its own, -stream-load (sched.go).
var modes = map[string]func(context.Context, []string, io.Writer) error{
	"-translate":   translateMain,
	"-stream-load": streamLoadMain,
}

// proto is the API a client speaks to the proxy: chat completions passed
// through, or one that gw serve translates onto them.
type proto string

const (
	protoChat      proto = "chat"
	protoMessages  proto = "messages"
	protoResponses proto = "responses"
)

// benchModel is the model every request asks for (the stand-in lists it).
const benchModel = "vendor-a/model-a-sonnet-4.5"

func (p proto) path() string {
	switch p {
	case protoMessages:
		return "/messages"
	case protoResponses:
		return "/responses"
	}
	return "/chat/completions"
}

// smallBody is a one-line question in protocol p, as an agent's first turn
// would be without its tools and instructions.
func smallBody(p proto, stream bool) []byte {
	switch p {
	case protoMessages:
		return fmt.Appendf(nil, `{"model":%q,"max_tokens":4096,"stream":%t,"messages":[{"role":"user","content":"hi"}]}`, benchModel, stream)
	case protoResponses:
		return fmt.Appendf(nil, `{"model":%q,"stream":%t,"store":false,"input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]}]}`, benchModel, stream)
	}
	opts := ""
	if stream {
		opts = `"stream_options":{"include_usage":true},`
	}
	return fmt.Appendf(nil, `{"model":%q,"stream":%t,%s"messages":[{"role":"user","content":"hi"}]}`, benchModel, stream, opts)
}

// Recorded agent requests (the translators' golden inputs): a Claude Code
// turn after a tool round trip, and a Codex turn.
const (
	claudeCodeRequest = "protocol/anthropic/testdata/claude-code/tool-round-trip/request-2.json"
	codexRequest      = "protocol/responses/testdata/codex/request2.json"
)

// agentBodies reads the recorded requests under repo and makes, for each,
// the chat-completions request gw's translator sends for it: the same
// conversation passed through, to compare the translation with.
func agentBodies(repo string) (claude, claudeChat, codex, codexChat []byte, err error) {
	if claude, err = os.ReadFile(filepath.Join(repo, claudeCodeRequest)); err != nil {
		return nil, nil, nil, nil, fmt.Errorf("reading a recorded Claude Code request (run from the repository's root, or set -repo): %w", err)
	}
	if codex, err = os.ReadFile(filepath.Join(repo, codexRequest)); err != nil {
		return nil, nil, nil, nil, fmt.Errorf("reading a recorded Codex request (run from the repository's root, or set -repo): %w", err)
	}
	cr, _, aerr := anthropic.ParseRequest(&translate.Request{Body: claude}, benchEnv())
	if aerr != nil {
		return nil, nil, nil, nil, fmt.Errorf("%s: %s", claudeCodeRequest, aerr.Message)
	}
	xr, _, rerr := responses.ParseRequest(&translate.Request{Body: codex}, benchEnv())
	if rerr != nil {
		return nil, nil, nil, nil, fmt.Errorf("%s: %v", codexRequest, rerr)
	}
	if claudeChat, err = chatBody(cr); err != nil {
		return nil, nil, nil, nil, err
	}
	codexChat, err = chatBody(xr)
	return claude, claudeChat, codex, codexChat, err
}

func chatBody(r *chat.Request) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	err := enc.Encode(r)
	return buf.Bytes(), err
}

// newProtoRequest is body POSTed to base (…/v1) in protocol p, with the
// credentials that protocol's clients send.
func newProtoRequest(ctx context.Context, base, token string, p proto, body []byte) *http.Request {
	req, _ := http.NewRequestWithContext(ctx, "POST", base+p.path(), bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if p == protoMessages {
		req.Header.Set("X-Api-Key", token)
		req.Header.Set("Anthropic-Version", "2023-06-01")
	} else {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	return req
}

// isDelta reports whether the data of an SSE event carries one content delta
// of the answer (one chunk of the stand-in's text).
func isDelta(p proto, data []byte) bool {
	switch p {
	case protoMessages:
		return bytes.Contains(data, []byte(`"text_delta"`))
	case protoResponses:
		return bytes.Contains(data, []byte(`"response.output_text.delta"`))
	}
	i := bytes.Index(data, []byte(`"delta":{"content":"`))
	return i >= 0 && i+20 < len(data) && data[i+20] != '"'
}

// isEnd reports whether the data of an SSE event ends the answer well.
func isEnd(p proto, data []byte) bool {
	switch p {
	case protoMessages:
		return bytes.Contains(data, []byte(`"message_stop"`))
	case protoResponses:
		return bytes.Contains(data, []byte(`"response.completed"`))
	}
	return bytes.Equal(bytes.TrimSpace(data), []byte("[DONE]"))
}

// readStream reads a streamed answer in protocol p to its end, calling
// delta at each content delta; a stream that stops before its terminal
// event is an error.
func readStream(body io.Reader, p proto, delta func()) error {
	br := bufio.NewReaderSize(body, 64<<10)
	ended := false
	for {
		line, err := br.ReadSlice('\n')
		if data, ok := bytes.CutPrefix(line, []byte("data:")); ok {
			if isDelta(p, data) && delta != nil {
				delta()
			}
			if isEnd(p, data) {
				ended = true
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			// A line longer than the buffer: the rest of it is read next.
			continue
		}
		if err == io.EOF {
			if !ended {
				return errors.New("the stream ended before its terminal event")
			}
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// exchange is one request: the time to its first content delta (streams)
// and to its end.
type exchange struct{ first, total time.Duration }

// do sends one request and reads its answer whole.
func do(ctx context.Context, hc *http.Client, base, token string, p proto, body []byte, stream bool) (exchange, error) {
	t0 := time.Now()
	res, err := hc.Do(newProtoRequest(ctx, base, token, p, body))
	if err != nil {
		return exchange{}, err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(res.Body, 512))
		return exchange{}, fmt.Errorf("%s: status %d: %s", p, res.StatusCode, bytes.TrimSpace(b))
	}
	var x exchange
	if !stream {
		_, err = io.Copy(io.Discard, res.Body)
		x.total = time.Since(t0)
		x.first = x.total
		return x, err
	}
	err = readStream(res.Body, p, func() {
		if x.first == 0 {
			x.first = time.Since(t0)
		}
	})
	x.total = time.Since(t0)
	if err == nil && x.first == 0 {
		err = fmt.Errorf("%s: a stream without any content delta", p)
	}
	return x, err
}

// drive sends requests from n workers for d, after a warm-up of two
// requests each (then it calls started, if not nil), and returns every
// request's exchange.
func drive(ctx context.Context, base, token string, p proto, body []byte, stream bool, n int, d time.Duration, started func()) ([]exchange, time.Duration, error) {
	hc := client(n)
	defer hc.CloseIdleConnections()
	var wg sync.WaitGroup
	var mu sync.Mutex
	var firstErr error
	var all []exchange
	work := func(until time.Time, count int, keep bool) {
		for range n {
			wg.Go(func() {
				var mine []exchange
				for i := 0; (count == 0 || i < count) && (until.IsZero() || time.Now().Before(until)); i++ {
					x, err := do(ctx, hc, base, token, p, body, stream)
					if err != nil {
						mu.Lock()
						if firstErr == nil {
							firstErr = err
						}
						mu.Unlock()
						return
					}
					mine = append(mine, x)
				}
				if keep {
					mu.Lock()
					all = append(all, mine...)
					mu.Unlock()
				}
			})
		}
		wg.Wait()
	}
	work(time.Time{}, 2, false)
	if firstErr != nil {
		return nil, 0, firstErr
	}
	if started != nil {
		started()
	}
	t0 := time.Now()
	work(t0.Add(d), 0, true)
	return all, time.Since(t0), firstErr
}

// cpuTime is the CPU time (user and system) process pid has used, from
// /proc/PID/stat (Linux; clock ticks of 1/100 s, the USER_HZ of every Linux
// ABI).
func cpuTime(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, fmt.Errorf("/proc/%d/stat: no command name", pid)
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: %d fields", pid, len(f))
	}
	ut, err1 := strconv.ParseInt(f[11], 10, 64)
	st, err2 := strconv.ParseInt(f[12], 10, 64)
	if err := errors.Join(err1, err2); err != nil {
		return 0, err
	}
	return time.Duration(ut+st) * 10 * time.Millisecond, nil
}

// startCCR runs claude-code-router (node CLI) offline in front of upstream
// (…/v1), with a configuration of its own in a fresh HOME under tmp: one
// provider, the stand-in, routed to by default, and token as its APIKEY.
// It is stopped with the function returned, not with the target's stop.
func startCCR(ctx context.Context, node, cli, tmp, upstream, key, token string) (*target, func(), time.Duration, error) {
	home, err := os.MkdirTemp(tmp, "ccr-home-")
	if err != nil {
		return nil, nil, 0, err
	}
	port, err := freePort()
	if err != nil {
		return nil, nil, 0, err
	}
	conf := map[string]any{
		"LOG": false, "HOST": "127.0.0.1", "PORT": port, "APIKEY": token, "NON_INTERACTIVE_MODE": true,
		"Providers": []any{map[string]any{"name": "standin", "api_base_url": upstream + "/chat/completions",
			"api_key": key, "models": []string{benchModel}}},
		"Router": map[string]any{"default": "standin," + benchModel},
	}
	b, _ := json.MarshalIndent(conf, "", "  ")
	dir := filepath.Join(home, ".claude-code-router")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, nil, 0, err
	}
	if err := os.WriteFile(filepath.Join(dir, "config.json"), b, 0o600); err != nil {
		return nil, nil, 0, err
	}
	cmd := exec.CommandContext(ctx, node, cli, "start")
	// Nothing of this environment but PATH: no proxy variables, no keys.
	cmd.Env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "CI=true"}
	cmd.Dir = home
	devnull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		return nil, nil, 0, err
	}
	defer devnull.Close()
	cmd.Stdout, cmd.Stderr = devnull, devnull
	t0 := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, nil, 0, fmt.Errorf("starting claude-code-router: %w", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	stop := func() {
		_ = cmd.Process.Signal(os.Interrupt)
		select {
		case <-exited:
		case <-time.After(5 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
	}
	tg := &target{name: "claude-code-router", base: fmt.Sprintf("http://127.0.0.1:%d/v1", port), token: token, proc: cmd}
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	deadline := time.Now().Add(time.Minute)
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			return tg, stop, time.Since(t0), nil
		}
		select {
		case err := <-exited:
			return nil, nil, 0, fmt.Errorf("claude-code-router exited before listening on %s: %v", addr, err)
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			<-exited
			return nil, nil, 0, fmt.Errorf("claude-code-router did not listen on %s within a minute", addr)
		}
	}
}

// freePort is a loopback port free a moment ago.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// benchEnv is the clock and ids the translators are given here.
func benchEnv() translate.Env {
	return translate.Env{Now: time.Now, ID: func(n int) string { return strings.Repeat("0", n) }}
}
