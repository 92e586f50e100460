package proxy

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net"
	"net/http"
	"net/netip"

	"github.com/modelgateway/gw/protocol/translate"
	"github.com/modelgateway/gw/reqlog"
)

// HelloPath is where gw serve proves that it is this install's gw serve
// before a client of gw (gw run, gw doctor, a second gw serve) sends it the
// local token or points an agent at it. The client sends a random nonce;
// gw serve answers with a MAC of the nonce and of the address the client
// reached it on, keyed by the local token. Only a process that knows the
// token can answer, and the answer gives the token away to nobody: a
// stranger listening first on gw serve's port (another user's process)
// cannot answer, nor pass the question on to a gw serve listening
// elsewhere, since the address is in the MAC. It needs no token, so it
// passes only the browser and Host checks.
const HelloPath = "/gw/hello"

// CodeBadHello: a hello without a nonce gw serve can answer.
const CodeBadHello = "bad_hello"

// helloLabel binds a proof to its use: gw serve proving itself to a client.
const helloLabel = "gw serve hello v1: gw serve proves it holds the local token\x00"

// Bounds of the nonce, in bytes.
const (
	minNonce = 16
	maxNonce = 64
)

type helloAnswer struct {
	Service string `json:"service"` // "gw serve"
	Proof   string `json:"proof"`   // hex HMAC-SHA256
}

// helloProof is HMAC-SHA256(token, label || nonce || 0 || addr), addr being
// the address the client connected to as host:port.
func helloProof(token string, nonce []byte, addr string) []byte {
	m := hmac.New(sha256.New, []byte(token))
	m.Write([]byte(helloLabel))
	m.Write(nonce)
	m.Write([]byte{0})
	m.Write([]byte(addr))
	return m.Sum(nil)
}

// canonAddr writes an address the same way on both ends: an IPv4 address
// mapped into IPv6 as IPv4. "" when a is not an IP address with a port.
func canonAddr(a net.Addr) string {
	if a == nil {
		return ""
	}
	ap, err := netip.ParseAddrPort(a.String())
	if err != nil {
		return ""
	}
	return netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port()).String()
}

// hello answers a client of gw asking gw serve to prove itself.
func (h *Handler) hello(w http.ResponseWriter, r *http.Request, e *entry) {
	e.note = "hello"
	if r.Header.Get(ProbeHeader) != "" {
		e.note = "probe" // gw's own, as gw doctor and gw run send it
		// gw statusline's, asked at every turn of Claude Code: a line
		// each would bury the requests.
		e.quiet = r.Header.Get(ProbeHeader) == probeQuiet
	}
	if h.refusedSender(w, r, e, false) {
		return
	}
	nonce, err := hex.DecodeString(r.URL.Query().Get("nonce"))
	local, _ := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	addr := canonAddr(local)
	if r.Method != http.MethodGet || err != nil || len(nonce) < minNonce || len(nonce) > maxNonce || addr == "" {
		e.status = http.StatusBadRequest
		writeError(w, e.status, CodeBadHello, "gw serve's hello takes GET "+HelloPath+"?nonce=<32 to 128 hex digits>")
		return
	}
	b, _ := json.Marshal(helloAnswer{Service: "gw serve", Proof: hex.EncodeToString(helloProof(h.filter.localToken, nonce, addr))})
	e.status = writeAnswer(w, translate.JSON(http.StatusOK, "application/json", append(b, '\n')))
}

// refusedSender answers a request the filter refuses for its sender (a web
// page, a Host that is not this machine's), closing the connection; bare is
// checkSender's.
func (h *Handler) refusedSender(w http.ResponseWriter, r *http.Request, e *entry, bare bool) bool {
	ref := h.filter.checkSender(r, bare)
	if ref == nil {
		return false
	}
	w.Header().Set("Connection", "close")
	e.note, e.quiet = "refused="+ref.code, false
	e.status = writeErrorAs(w, nil, ref.status, ref.code, ref.message)
	return true
}

// isClientProbe: a client asking, without a token, whether anything answers
// at its base URL (Claude Code's HEAD /api/hello at start). A request that
// carries a key is a request, and goes through the filter.
func isClientProbe(r *http.Request) bool {
	return (r.Method == http.MethodHead || r.Method == http.MethodGet) && reqlog.IsProbePath(r.URL.Path) &&
		r.Header.Get("Authorization") == "" && r.Header.Get("X-Api-Key") == "" && r.Header.Get("X-Goog-Api-Key") == ""
}

// answerProbe says that gw serve answers, and nothing more: no token was
// sent, so nothing of the account or the service is told. It is logged as a
// probe, which gw usage does not count and gw logs shows only when asked.
func (h *Handler) answerProbe(w http.ResponseWriter, r *http.Request, e *entry) {
	e.note = "probe"
	// Claude Code's base URL has no /v1: a refused Host names it so.
	if h.refusedSender(w, r, e, true) {
		return
	}
	var body []byte
	if r.Method == http.MethodGet {
		body = []byte("gw serve\n")
	}
	e.status = writeAnswer(w, translate.JSON(http.StatusOK, "text/plain; charset=utf-8", body))
}
