package responses

import (
	"bytes"
	"container/list"
	"fmt"
	"github.com/modelgateway/gw/protocol/translate"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"

	json "github.com/go-json-experiment/json/v1"
	"github.com/modelgateway/gw/internal/capio"
	"github.com/modelgateway/gw/protocol/chat"
)

// Store keeps the responses gw serve answered, in memory, so that within one
// gw serve the Responses API's state works as it does on OpenAI's service:
// a request with store true (the API's default) is kept with its input and
// output items, GET /v1/responses/{id} returns it, and a later request can
// continue it with previous_response_id or name its items with
// item_reference. It is bounded in count and in bytes: past either bound the
// response used least recently is forgotten, and a request naming it is
// refused with a message saying why. store false keeps nothing. What a
// request becomes once its previous_response_id and item references are
// resolved is bounded like a body gw serve receives (LimitBuilt): counted
// while it is resolved, and refused with a 400 before it is built.
//
// A Store does no I/O and reads no clock; it is safe for concurrent use. A
// nil *Store keeps nothing and refuses every previous_response_id and
// item_reference.
type Store struct {
	maxCount int
	maxBytes int64
	maxBuilt int64 // what a request may become once its references are resolved

	mu    sync.Mutex
	bytes int64
	lru   *list.List               // of *stored, most recently used first
	byID  map[string]*list.Element // response id → its element
	items map[string]keptItem      // item id → the item and the response that holds it
}

// keptItem is one item of a kept response, found by its id without a
// search: a request naming it many times costs a map look-up each.
type keptItem struct {
	in  *stored
	raw json.RawMessage
}

// The bounds gw serve keeps its responses within by default.
const (
	DefaultStoreResponses = 1000
	DefaultStoreBytes     = 64 << 20
	// DefaultMaxBuilt bounds the request a previous_response_id or
	// item_references make, as gw serve bounds the bodies it receives.
	DefaultMaxBuilt = 64 << 20
)

// stored is one kept response.
type stored struct {
	id, prev string
	input    []json.RawMessage // the items its request added (references resolved)
	output   []json.RawMessage // its output items
	response []byte            // the response object, as GET returns it
	size     int64
}

// perItem and perResponse are what the Store's maps and lists cost beyond
// the bytes of the JSON, counted against the byte bound.
const (
	perItem     = 64
	perResponse = 256
)

// NewStore keeps at most maxResponses responses and maxBytes bytes of them;
// a bound of 0 or less takes the default.
func NewStore(maxResponses int, maxBytes int64) *Store {
	if maxResponses <= 0 {
		maxResponses = DefaultStoreResponses
	}
	if maxBytes <= 0 {
		maxBytes = DefaultStoreBytes
	}
	return &Store{maxCount: maxResponses, maxBytes: maxBytes, maxBuilt: DefaultMaxBuilt, lru: list.New(),
		byID: map[string]*list.Element{}, items: map[string]keptItem{}}
}

// LimitBuilt bounds the request a previous_response_id and item references
// make once resolved (0 or less: DefaultMaxBuilt); gw serve gives it the
// bound of the bodies it receives. A request past it is refused before it
// is built. It returns st, and is called before st is used.
func (st *Store) LimitBuilt(n int64) *Store {
	if n <= 0 {
		n = DefaultMaxBuilt
	}
	st.maxBuilt = n
	return st
}

// Len is the number of responses kept and the bytes they take.
func (st *Store) Len() (responses int, bytes int64) {
	if st == nil {
		return 0, 0
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.lru.Len(), st.bytes
}

// Turn is what Expand learned of a request, for Record to keep its answer.
type Turn struct {
	Store    bool              // keep the answer: store true or absent
	Previous string            // the previous_response_id it continued, "" when none
	Input    []json.RawMessage // its own input items, references resolved (kept only when Store)
}

// Parse is ParseRequest for gw serve with a Store: previous_response_id and
// item references are resolved first (Expand), the response object says
// which response it continues and whether it is stored, and turn is what
// Record needs once the answer is complete.
func (st *Store) Parse(req *translate.Request, env translate.Env) (*chat.Request, Meta, Turn, *translate.Error) {
	// A request with store: false that ParseRequest accepts continues no
	// response and references no item (it refuses both), so the Store has
	// nothing to do with it: it is read once, not twice (every Codex turn;
	// a tenth of what translating a recorded one costs).
	if saysStoreFalse(req.Body) {
		if creq, meta, perr := ParseRequest(req, env); perr == nil && meta.notStored {
			return creq, meta, Turn{}, nil
		}
	}
	expanded, turn, meta, err := st.expand(req.Body)
	if err != nil {
		return nil, meta, turn, err
	}
	r := *req
	r.Body = expanded
	creq, meta, perr := ParseRequest(&r, env)
	if perr != nil {
		return nil, meta, turn, perr
	}
	meta.echo.Store = turn.Store // false without a Store: nothing can be retrieved
	meta.echo.Previous = turn.Previous
	return creq, meta, turn, nil
}

// saysStoreFalse reports whether body may hold "store": false, for Parse to
// try ParseRequest alone; a wrong guess costs a second reading, not a
// different result.
func saysStoreFalse(body []byte) bool {
	for rest := body; ; {
		i := bytes.Index(rest, []byte(`"store"`))
		if i < 0 {
			return false
		}
		rest = bytes.TrimLeft(rest[i+len(`"store"`):], " \t\r\n")
		if len(rest) > 0 && rest[0] == ':' && bytes.HasPrefix(bytes.TrimLeft(rest[1:], " \t\r\n"), []byte("false")) {
			return true
		}
	}
}

// Expand resolves a Responses request body's previous_response_id (the
// conversation so far: each earlier response's input and output items, oldest
// first, before the request's own input) and its item_reference input items
// (the items they name) against the responses kept. The body it returns has
// neither, so ParseRequest translates it like any other; a body without them
// is returned as it is. A response or item that is not kept is a 400 naming
// it and saying what to do. A body that cannot be read is returned unchanged,
// for ParseRequest to refuse with its own words.
func (st *Store) Expand(body []byte) ([]byte, Turn, *translate.Error) {
	b, turn, _, err := st.expand(body)
	return b, turn, err
}

func (st *Store) expand(body []byte) ([]byte, Turn, Meta, *translate.Error) {
	var top struct {
		Model    string          `json:"model"`
		Stream   bool            `json:"stream"`
		Store    *bool           `json:"store"`
		Previous json.RawMessage `json:"previous_response_id"`
		Input    json.RawMessage `json:"input"`
	}
	turn := Turn{Store: true}
	if json.Unmarshal(body, &top) != nil {
		return body, Turn{}, Meta{}, nil
	}
	meta := Meta{Model: top.Model, Stream: top.Stream}
	if top.Store != nil {
		turn.Store = *top.Store
	}
	if st == nil {
		turn.Store = false
	}
	var prev string
	if len(top.Previous) > 0 && string(top.Previous) != "null" {
		if json.Unmarshal(top.Previous, &prev) != nil {
			return body, Turn{}, meta, nil // ParseRequest names the wrong type
		}
	}
	refs := bytes.Contains(top.Input, []byte(`item_reference`))
	if prev == "" && !refs && !turn.Store {
		return body, turn, meta, nil
	}

	// The request's own items.
	var own []json.RawMessage
	var s string
	switch {
	case len(top.Input) == 0 || string(top.Input) == "null":
	case json.Unmarshal(top.Input, &s) == nil:
		own = []json.RawMessage{mustJSON(userText(s))}
	case json.Unmarshal(top.Input, &own) != nil:
		return body, Turn{}, meta, nil // ParseRequest says what input must be
	}
	// What the request becomes is counted as it is resolved, before it is
	// built: a few kilobytes naming one large item many times must not
	// make gw serve build (and send) what it would refuse to receive.
	built := int64(len(body))
	if refs {
		resolved := make([]json.RawMessage, len(own))
		copy(resolved, own)
		for i, raw := range resolved {
			var ref struct {
				Type string `json:"type"`
				ID   string `json:"id"`
			}
			if json.Unmarshal(raw, &ref) != nil || ref.Type != "item_reference" {
				continue
			}
			param := fmt.Sprintf("input[%d].id", i)
			if ref.ID == "" {
				return nil, Turn{}, meta, badRequest(param, "missing; an item_reference names the id of an item of an earlier response")
			}
			it, ok := st.item(ref.ID)
			if !ok {
				return nil, Turn{}, meta, st.notFound(param, "item_not_found", "item", ref.ID)
			}
			resolved[i] = it
			if built += int64(len(it)) - int64(len(raw)); st.tooBig(built) {
				return nil, Turn{}, meta, st.builtTooLarge("input")
			}
		}
		own = resolved
	}
	if turn.Store {
		turn.Input = own
	}
	if prev == "" && !refs {
		return body, turn, meta, nil
	}

	var all []json.RawMessage
	if prev != "" {
		turn.Previous = prev
		hist, err := st.history(prev)
		if err != nil {
			return nil, Turn{}, meta, err
		}
		for _, raw := range hist {
			if built += int64(len(raw)) + 1; st.tooBig(built) {
				return nil, Turn{}, meta, st.builtTooLarge("previous_response_id")
			}
		}
		all = append(hist, own...)
	} else {
		all = own
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(body, &m) != nil {
		return body, Turn{}, meta, nil
	}
	delete(m, "previous_response_id")
	m["input"] = mustJSON(all)
	return mustJSON(m), turn, meta, nil
}

func (st *Store) tooBig(n int64) bool { return st != nil && n > st.maxBuilt }

// builtTooLarge is the 400 for a request whose references would make it
// larger than gw serve accepts.
func (st *Store) builtTooLarge(param string) *translate.Error {
	what := "the items it names with item_reference"
	if param == "previous_response_id" {
		what = "the conversation its previous_response_id continues"
	}
	e := badRequest(param, "with %s the request would be larger than %s, gw serve's limit for one request; reference fewer items, or start a new conversation",
		what, capio.Size(st.maxBuilt))
	e.Code = "request_too_large"
	return e
}

// userItem is a user message input item of text, as the API lists a
// string input (and a compaction its output).
type userItem struct {
	Type    string     `json:"type"`
	Role    string     `json:"role"`
	Content []textPart `json:"content"`
}

func userText(s string) userItem {
	return userItem{Type: "message", Role: "user", Content: []textPart{{Type: "input_text", Text: s}}}
}

// notFound is the 400 for a response or item that is not kept.
func (st *Store) notFound(param, code, what, id string) *translate.Error {
	e := badRequest(param, "%s %q was not found: %s; start the conversation again, or send the whole input (with store: false)", what, clipID(id), st.keeps())
	e.Code = code
	return e
}

// keeps says what the Store keeps, for the messages of what it does not.
func (st *Store) keeps() string {
	if st == nil {
		return "gw serve keeps no responses"
	}
	return fmt.Sprintf("gw serve keeps the last %d responses (up to %d MiB) in memory, forgets them when it restarts, and keeps none sent with store: false", st.maxCount, st.maxBytes>>20)
}

// clipID keeps a hostile id from being echoed back whole.
func clipID(id string) string {
	if len(id) > 100 {
		return id[:100] + "…"
	}
	return id
}

// history is the conversation up to and including response id: the input
// and output items of it and of every response before it, oldest first.
// Every response of the chain counts as used.
func (st *Store) history(id string) ([]json.RawMessage, *translate.Error) {
	if st == nil {
		return nil, st.notFound("previous_response_id", "previous_response_not_found", "previous response", id)
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	var chain []*list.Element
	for cur := id; cur != "" && len(chain) <= st.lru.Len(); {
		el, ok := st.byID[cur]
		if !ok {
			if cur == id {
				return nil, st.notFound("previous_response_id", "previous_response_not_found", "previous response", id)
			}
			e := badRequest("previous_response_id", "response %q continues %q, which was not found: %s; start the conversation again, or send the whole input (with store: false)", clipID(id), clipID(cur), st.keeps())
			e.Code = "previous_response_not_found"
			return nil, e
		}
		chain = append(chain, el)
		cur = el.Value.(*stored).prev
	}
	var out []json.RawMessage
	for i := len(chain) - 1; i >= 0; i-- {
		s := chain[i].Value.(*stored)
		out = append(out, s.input...)
		out = append(out, s.output...)
		st.lru.MoveToFront(chain[i])
	}
	return out, nil
}

// item is the kept item with the id.
func (st *Store) item(id string) (json.RawMessage, bool) {
	if st == nil {
		return nil, false
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	it, ok := st.items[id]
	if !ok {
		return nil, false
	}
	st.lru.MoveToFront(st.byID[it.in.id])
	return it.raw, true
}

func itemID(raw json.RawMessage) string {
	var it struct {
		ID string `json:"id"`
	}
	_ = json.Unmarshal(raw, &it)
	return it.ID
}

// Record keeps a finished response: turn is what Expand (or Parse) said of
// its request, response the response object as the client got it (what
// FromResponse returns, or StreamWriter.Response after End). Nothing is kept
// for a request with store false, a response still in progress or one larger
// than the Store's byte bound; responses used least recently are forgotten
// to stay within the bounds.
func (st *Store) Record(turn Turn, response []byte) {
	if st == nil || !turn.Store || len(response) == 0 {
		return
	}
	var r struct {
		ID     string            `json:"id"`
		Status string            `json:"status"`
		Output []json.RawMessage `json:"output"`
	}
	if json.Unmarshal(response, &r) != nil || r.ID == "" || r.Status == "in_progress" || r.Status == "queued" {
		return
	}
	s := &stored{id: r.ID, prev: turn.Previous, input: turn.Input, output: r.Output, response: bytes.Clone(response)}
	s.size = perResponse + int64(len(s.response)+len(s.id)+len(s.prev))
	for _, list := range [][]json.RawMessage{s.input, s.output} {
		for _, raw := range list {
			s.size += perItem + int64(len(raw))
		}
	}
	// Output items are found before input items of the same id.
	type idItem struct {
		id  string
		raw json.RawMessage
	}
	ids := make([]idItem, 0, len(s.input)+len(s.output))
	for _, list := range [][]json.RawMessage{s.input, s.output} {
		for _, raw := range list {
			if id := itemID(raw); id != "" {
				ids = append(ids, idItem{id, raw})
			}
		}
	}

	st.mu.Lock()
	defer st.mu.Unlock()
	if el, ok := st.byID[s.id]; ok {
		st.remove(el)
	}
	if s.size > st.maxBytes {
		return
	}
	st.byID[s.id] = st.lru.PushFront(s)
	st.bytes += s.size
	for _, it := range ids {
		st.items[it.id] = keptItem{s, it.raw}
	}
	for st.lru.Len() > st.maxCount || st.bytes > st.maxBytes {
		st.remove(st.lru.Back())
	}
}

// remove forgets one response and the items only it holds. st.mu is held.
func (st *Store) remove(el *list.Element) {
	s := st.lru.Remove(el).(*stored)
	delete(st.byID, s.id)
	st.bytes -= s.size
	for _, list := range [][]json.RawMessage{s.input, s.output} {
		for _, raw := range list {
			if id := itemID(raw); id != "" && st.items[id].in == s {
				delete(st.items, id)
			}
		}
	}
}

// Answer answers the Responses API's requests about kept responses:
// GET /v1/responses/{id}, GET /v1/responses/{id}/input_items (limit, order,
// after) and DELETE /v1/responses/{id}; POST …/cancel is refused (gw serve
// runs nothing in the background). ok is false for any other path, which is
// not the Store's to answer (POST /v1/responses). The body is JSON, an error
// in OpenAI's shape for a response that is not kept (404) or a wrong method
// (405).
func (st *Store) Answer(method string, u *url.URL) (status int, body []byte, ok bool) {
	rest, found := strings.CutPrefix(u.Path, "/v1/responses/")
	if !found || rest == "" {
		return 0, nil, false
	}
	id, sub, _ := strings.Cut(rest, "/")
	if id == "" {
		return 0, nil, false
	}
	var want string
	switch sub {
	case "":
		if method == http.MethodDelete {
			want = method
		} else {
			want = http.MethodGet
		}
	case "input_items":
		want = http.MethodGet
	case "cancel":
		if method != http.MethodPost {
			return http.StatusMethodNotAllowed, errorJSON("/v1/responses/{id}/cancel takes POST, not "+method, "invalid_request_error", "", "method_not_allowed"), true
		}
		return http.StatusBadRequest, errorJSON("only a response created with background: true can be cancelled, and gw serve runs none in the background", "invalid_request_error", "", ""), true
	default:
		return 0, nil, false
	}
	if method != want && !(method == http.MethodHead && want == http.MethodGet) {
		return http.StatusMethodNotAllowed, errorJSON(u.Path+" takes "+want+", not "+method, "invalid_request_error", "", "method_not_allowed"), true
	}
	if st != nil {
		st.mu.Lock()
		defer st.mu.Unlock()
	}
	var el *list.Element
	if st != nil {
		el = st.byID[id]
	}
	if el == nil {
		return http.StatusNotFound, errorJSON(fmt.Sprintf("response %q was not found: %s", clipID(id), st.keeps()), "invalid_request_error", "", ""), true
	}
	s := el.Value.(*stored)
	switch {
	case method == http.MethodDelete:
		st.remove(el)
		return http.StatusOK, mustJSON(map[string]any{"id": s.id, "object": "response", "deleted": true}), true
	case sub == "":
		st.lru.MoveToFront(el)
		// Clipped: a caller that appends (jsonAnswer's newline) copies
		// rather than writing into the kept response, which other
		// requests read at the same time.
		return http.StatusOK, s.response[:len(s.response):len(s.response)], true
	}
	return st.inputItems(s, u.Query())
}

// inputItems is a page of the input items of a kept response: the items the
// model was given, the earlier responses' included. st.mu is held.
func (st *Store) inputItems(s *stored, q url.Values) (int, []byte, bool) {
	limit := 20
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 100 {
			return http.StatusBadRequest, errorJSON("limit: must be a number from 1 to 100", "invalid_request_error", "limit", "invalid_request"), true
		}
		limit = n
	}
	order := q.Get("order")
	switch order {
	case "":
		order = "desc"
	case "asc", "desc":
	default:
		return http.StatusBadRequest, errorJSON(`order: must be "asc" or "desc"`, "invalid_request_error", "order", "invalid_request"), true
	}
	var chain []*stored
	for cur := s; cur != nil && len(chain) <= st.lru.Len(); {
		chain = append(chain, cur)
		el := st.byID[cur.prev]
		if cur.prev == "" || el == nil {
			break
		}
		cur = el.Value.(*stored)
	}
	var items []json.RawMessage
	for i := len(chain) - 1; i >= 0; i-- {
		items = append(items, chain[i].input...)
		if i > 0 {
			items = append(items, chain[i].output...)
		}
	}
	if order == "desc" {
		for i, j := 0, len(items)-1; i < j; i, j = i+1, j-1 {
			items[i], items[j] = items[j], items[i]
		}
	}
	if after := q.Get("after"); after != "" {
		for i, raw := range items {
			if itemID(raw) == after {
				items = items[i+1:]
				break
			}
		}
	}
	more := len(items) > limit
	items = items[:min(limit, len(items))]
	page := struct {
		Object  string            `json:"object"`
		Data    []json.RawMessage `json:"data"`
		FirstID *string           `json:"first_id"`
		LastID  *string           `json:"last_id"`
		HasMore bool              `json:"has_more"`
	}{Object: "list", Data: items, HasMore: more}
	if page.Data == nil {
		page.Data = []json.RawMessage{}
	}
	if len(items) > 0 {
		if first := itemID(items[0]); first != "" {
			page.FirstID = &first
		}
		if last := itemID(items[len(items)-1]); last != "" {
			page.LastID = &last
		}
	}
	return http.StatusOK, mustJSON(page), true
}

// Response is the response object of the stream's terminal event
// (response.completed, response.incomplete or response.failed), as the
// client got it, for Store.Record; nil before End.
func (s *StreamWriter) Response() []byte {
	if s.done == nil {
		return nil
	}
	return mustJSON(s.done)
}
