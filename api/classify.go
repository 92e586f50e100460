package api

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/modelgateway/gw/internal/remedy"
)

// ClassifyResponse maps an HTTP answer of the service (or of whatever stands
// at the base URL) to an *Error. model is the id the request asked for, ""
// when none (GET /models). It returns nil for 2xx answers that carry no
// error. Only the first 64 KiB of body are read. The service's message is
// scrubbed of secret-looking tokens; use (*Client).classifyResponse to scrub
// the client's key as well.
func ClassifyResponse(status int, header http.Header, body []byte, model string) *Error {
	return classify(status, header, body, model, "", "")
}

// serviceError is what could be read from an error body, whatever its dialect.
type serviceError struct {
	codes   []string // code, type, status fields, lower-case
	numeric int      // a numeric code (OpenRouter 402, LiteLLM "401"), 0 if none
	message string   // the service's words
	html    bool     // the body is an HTML page
	json    bool     // the body is JSON
	hasErr  bool     // the JSON has a top-level "error" field
}

func (s serviceError) code() string {
	if len(s.codes) > 0 {
		return s.codes[0]
	}
	if s.numeric != 0 {
		return strconv.Itoa(s.numeric)
	}
	return ""
}

// maxMessage caps the service's words that are searched for what the refusal is about: real messages are a
// line or two, and the searches cost in proportion.
const maxMessage = 8 << 10

func parseErrorBody(body []byte) serviceError {
	var se serviceError
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 {
		return se
	}
	var v any
	if json.Unmarshal(trimmed, &v) == nil {
		se.json = true
		if m, ok := v.(map[string]any); ok {
			se.hasErr = m["error"] != nil && m["error"] != false
		}
		se.collect(v, 0)
	} else if looksHTML(trimmed) {
		se.html = true
		se.message = htmlTitle(trimmed)
	} else {
		se.message = string(trimmed[:min(len(trimmed), maxMessage)])
	}
	if len(se.message) > maxMessage {
		se.message = se.message[:maxMessage]
	}
	return se
}

// collect walks the dialects seen in the wild:
// OpenAI/new-api/one-api/LiteLLM {"error":{"message","type","param","code"}},
// OpenRouter {"error":{"code":402,"message","metadata":{"raw"}}},
// Anthropic {"type":"error","error":{"type","message"}},
// Google {"error":{"code":429,"status":"RESOURCE_EXHAUSTED","message"}},
// flat {"message","code"}, FastAPI {"detail":…}, {"error":"text"},
// {"errors":[{"message"}]} and bare strings.
func (se *serviceError) collect(v any, depth int) {
	if depth > 4 {
		return
	}
	switch t := v.(type) {
	case string:
		se.message = cmp.Or(se.message, t)
	case []any:
		for _, e := range t {
			se.collect(e, depth+1)
		}
	case map[string]any:
		if e, ok := t["error"]; ok && e != nil {
			se.collect(e, depth+1)
		}
		for _, k := range []string{"code", "error_code", "type", "status", "reason"} {
			switch c := t[k].(type) {
			case string:
				c = strings.ToLower(strings.TrimSpace(c))
				if n, err := strconv.Atoi(c); err == nil && n >= 100 && n < 600 {
					if se.numeric == 0 {
						se.numeric = n
					}
				} else if c != "" && c != "error" && c != "none" && c != "null" {
					se.codes = append(se.codes, c)
				}
			case float64:
				if n := int(c); c == float64(n) && n >= 100 && n < 600 && se.numeric == 0 {
					se.numeric = n
				}
			}
		}
		for _, k := range []string{"message", "msg", "error_msg", "error_message", "detail", "description", "errors", "error_description"} {
			if m, ok := t[k]; ok && m != nil {
				if s, ok := m.(string); ok {
					se.message = cmp.Or(se.message, s)
				} else {
					se.collect(m, depth+1)
				}
			}
		}
		// OpenRouter puts the upstream provider's words in metadata.raw.
		if md, ok := t["metadata"].(map[string]any); ok {
			if raw, ok := md["raw"].(string); ok && raw != "" && !strings.Contains(se.message, raw) {
				se.message = strings.TrimSpace(se.message + " (" + raw + ")")
			}
		}
	}
}

func looksHTML(b []byte) bool {
	head := strings.ToLower(string(b[:min(len(b), 512)]))
	return strings.HasPrefix(head, "<!doctype html") || strings.HasPrefix(head, "<html") ||
		strings.Contains(head, "<head") || strings.Contains(head, "<body") || strings.Contains(head, "<title")
}

var titleRE = regexp.MustCompile(`(?is)<title[^>]*>(.*?)</title>`)

func htmlTitle(b []byte) string {
	if m := titleRE.FindSubmatch(b); m != nil {
		return strings.TrimSpace(string(m[1]))
	}
	return ""
}

// codeMeaning reads an exact error code or type (lower-case).
type codeMeaning int

const (
	codeUnknown codeMeaning = iota
	codeBalance
	codeKey
	codeModel
	codeRate
)

func meaningOf(code string) codeMeaning {
	switch code {
	case "insufficient_quota", "insufficient_balance", "insufficient_funds", "insufficient_credits",
		"insufficient_user_quota", "billing_hard_limit_reached", "billing_not_active", "payment_required",
		"budget_exceeded", "credit_balance_too_low", "quota_exhausted", "pre_consume_token_quota_failed",
		"insufficient_account_balance", "account_balance_insufficient", "balance_insufficient":
		return codeBalance
	case "invalid_api_key", "incorrect_api_key", "invalid_key", "invalid_token", "token_invalid",
		"authentication_error", "auth_error", "unauthenticated", "invalid_authentication", "api_key_invalid",
		"missing_api_key", "invalid_x_api_key", "token_expired", "key_revoked", "api_key_expired":
		return codeKey
	case "model_not_found", "invalid_model", "model_not_available", "model_not_allowed",
		"key_model_access_denied", "team_model_access_denied", "unsupported_model", "model_not_supported",
		"no_available_channel", "model_unavailable", "unknown_model":
		return codeModel
	case "rate_limit_exceeded", "rate_limit_error", "too_many_requests", "resource_exhausted",
		"rate_limited", "requests_limit_exceeded":
		return codeRate
	}
	return codeUnknown
}

// Words, matched on the lower-cased code, type and message together.
var (
	balanceWords = regexp.MustCompile(`insufficient[ _-]*(balance|funds|credit|quota|account)|\bbalance\b|\bcredits?\b|\bbilling\b|\bpayment|\bquota\b|\bbudget\b|top[ -]?up|余额|额度|欠费`)
	rateWords    = regexp.MustCompile(`rate[ _-]?limit|too many requests|per (minute|second|hour|day)|requests per|tokens per|\brpm\b|\btpm\b|slow down|concurren`)
	modelWords   = regexp.MustCompile(`model[ _-]?not[ _-]?found|invalid[ _-]model|not a valid model|unknown model|no such model|model_not|unsupported model|(not|isn't) (in|part of|included in) (your |the |this )?(plan|subscription)|subscription does not|access (to )?(this |the )?model|(not allowed|not permitted|no permission|forbidden) to (use|access|call) (this |the )?model|can only access models|no available channel|no endpoints found for|(not|isn't) available (on|in) (your |the |this )?(plan|subscription)|无可用渠道|模型.*(不存在|不可用|无权)|不支持.*模型`)
	keyWords     = regexp.MustCompile(`(invalid|incorrect|wrong|bad|malformed|unknown|expired|revoked|disabled)[ _-]*(api[ _-]*)?(key|token)|\btoken (has )?expired|\btoken is (invalid|not valid|revoked|disabled)|\bno (api )?key\b|missing[ _-]*(api[ _-]*)?(key|token|authorization|bearer)|authentication|\bunauthenticated\b|x-api-key|invalid authorization|\bunauthori[sz]ed\b|not authori[sz]ed|无效的令牌|令牌.*(无效|过期|不存在|禁用)|未提供令牌|no auth credentials|invalid credentials|credentials? (not found|missing|invalid)|not authenticated|no authorization`)
	// Within one clause: "The model `x` does not exist", "key abc is invalid".
	modelNear    = regexp.MustCompile(`\bmodel\b.*\b(does not exist|doesn't exist|not found|not available|unavailable|not allowed|not supported|not exist|is not valid|invalid)`)
	keyNear      = regexp.MustCompile(`\b(api[ _-]?)?key\b.*\b(invalid|not valid|incorrect|expired|revoked|disabled|not found|does not exist|missing|required)`)
	clauseEnd    = regexp.MustCompile(`[.;!?](\s|$)`)
	refusalWords = regexp.MustCompile(`not found|does not exist|not available|unavailable|not allowed|invalid|not a valid|unknown|not supported|no access|do not have access`)
	bareReason   = regexp.MustCompile(`^(\d{3}\s*)?(unauthori[sz]ed|forbidden|payment required|not found|bad request|error|access denied)\.?$`)
)

// topics are what an answer is about, read from its codes and words.
type topics struct {
	balance, key, model, rate bool
}

func readTopics(se serviceError, model string) topics {
	var t topics
	for _, c := range se.codes {
		switch meaningOf(c) {
		case codeBalance:
			t.balance = true
		case codeKey:
			t.key = true
		case codeModel:
			t.model = true
		case codeRate:
			t.rate = true
		}
	}
	// Anthropic's 404 for an unknown model only says "not_found_error".
	if model != "" {
		for _, c := range se.codes {
			if c == "not_found_error" && strings.Contains(se.message, model) {
				t.model = true
			}
		}
	}
	msg := strings.ToLower(se.message)
	words := msg + " " + strings.Join(se.codes, " ")
	t.balance = t.balance || balanceWords.MatchString(words)
	t.rate = t.rate || rateWords.MatchString(words)
	clauses := clauseEnd.Split(msg, -1)
	t.model = t.model || modelWords.MatchString(words) || anyMatch(modelNear, clauses) ||
		(model != "" && strings.Contains(msg, strings.ToLower(model)) && refusalWords.MatchString(msg))
	// A bare reason phrase ("Unauthorized") says nothing about which refusal it is.
	if !bareReason.MatchString(strings.TrimSpace(msg)) {
		t.key = t.key || keyWords.MatchString(words) || anyMatch(keyNear, clauses)
	}
	return t
}

func anyMatch(re *regexp.Regexp, ss []string) bool { return slices.ContainsFunc(ss, re.MatchString) }

// classify is ClassifyResponse with the client's key (scrubbed from the
// service's message), and the canonical base URL when known.
func classify(httpStatus int, header http.Header, body []byte, model, key, canonical string) *Error {
	// The words that say which refusal it is come first: a longer body is cut, so that megabytes of it (a
	// 200 that is not a model list, a caller that read more) cost no more than this much.
	body = body[:min(len(body), maxErrorBody)]
	se := parseErrorBody(body)
	msg := tidy(redact(se.message, key))
	e := &Error{Status: httpStatus, Code: tidy(redact(se.code(), key)), ServiceMessage: msg}
	about := readTopics(se, model)

	// Some gateways answer 200 with an error body; read their numeric code: status is what the answer means.
	status := httpStatus
	if (httpStatus < 300 || httpStatus == 0) && se.numeric >= 400 {
		status = se.numeric
	}
	// An error inside a stream (or a 200) without a status: its code says what it is.
	if status < 300 && se.hasErr {
		switch {
		case hasAnyCode(se.codes, codeRate):
			status = http.StatusTooManyRequests
		case slices.ContainsFunc(se.codes, func(c string) bool { return overloadedCodes[c] }):
			status = 529
		}
	}
	// quotedMessage follows a cause: ': "the service's words"', or nothing when it gave none.
	quotedMessage := ""
	if msg != "" {
		quotedMessage = ": " + quoted(msg)
	}
	codeNote := func() string {
		if e.Code != "" && e.Code != strconv.Itoa(status) {
			return " (" + e.Code + ")"
		}
		return ""
	}
	setBaseURL := remedy.Remedy{Do: remedy.SetBaseURL, Value: canonical}

	switch {
	case status >= 200 && status < 300:
		if !se.hasErr {
			return nil
		}
	case status >= 300 && status < 400:
		return redirect(status, nil, header.Get("Location"), key, canonical)
	}

	if e.Status == 0 {
		e.Status = status
	}

	// An HTML page with a refusal comes from something in front of the API
	// (firewall, captive portal, a website at the wrong address).
	if se.html && (status == 401 || status == 403 || status == 404 || status == 405 || status == 407 || status < 300) {
		e.Condition, e.Kind = ServiceUnreachable, KindBadResponse
		if status == 404 || status == 405 || status < 300 {
			e.Kind = KindBaseURL
		}
		title := ""
		if msg != "" {
			title = " titled " + quoted(msg) // msg has the key scrubbed
		}
		e.Cause = fmt.Sprintf("the server answered %d with an HTML page%s instead of the API's JSON: the base URL points at a website, or a firewall or proxy is answering in the service's place", status, title)
		e.Fix = setBaseURL
		return e
	}

	// A context overflow, whatever status it came with (400, 413, 422, 500 or inside a stream).
	switch status {
	case 401, 402, 403, 404, 407, 429:
	default:
		if tokens, limit, ok := contextOverflow(se); ok && !about.balance {
			return overflow(e, tokens, limit, model, quotedMessage)
		}
	}

	switch {
	case status == 407:
		e.Condition, e.Kind = ServiceUnreachable, KindProxy
		e.Cause = "the HTTP proxy between this machine and the service requires authentication (407)"
		e.Fix = remedy.Remedy{Do: remedy.ProxyCredentials}
		return e

	case status == 429:
		if about.balance && !(about.rate && !hasAnyCode(se.codes, codeBalance)) {
			return noBalance(e, quotedMessage)
		}
		e.Kind = KindRateLimited
		e.Cause = "the service is rate limiting this key (429)" + quotedMessage
		e.Fix = remedy.Remedy{Do: remedy.Wait}
		if ra := header.Get("Retry-After"); ra != "" {
			e.Fix.Value = retryAfter(ra)
		}
		return e

	case status >= 500:
		if about.model && hasAnyCode(se.codes, codeModel) && model != "" {
			return modelErr(e, model, quotedMessage)
		}
		e.Kind = KindServerError
		e.Cause = fmt.Sprintf("the service failed with %d %s%s", status, statusText(status), quotedMessage)
		if msg == "" {
			e.Cause += " and gave no reason"
		}
		e.Fix = remedy.Remedy{Do: remedy.RetryLater}
		return e

	case status == 402:
		return noBalance(e, quotedMessage)

	case status == 404 && model == "":
		e.Condition, e.Kind = ServiceUnreachable, KindBaseURL
		e.Cause = "the server answered 404 for the model list: nothing is served at <base URL>/models, so the base URL is not the API's address" + serverSaid(quotedMessage)
		e.Fix = setBaseURL
		return e

	case status == 405 && model == "":
		e.Condition, e.Kind = ServiceUnreachable, KindBaseURL
		e.Cause = "the server does not accept GET on <base URL>/models (405): the base URL is not the API's address"
		e.Fix = setBaseURL
		return e
	}

	// 400, 401, 403, 404 (with a model), 422 and other 4xx: read the words.
	switch {
	case about.model && model != "" && !about.balance:
		return modelErr(e, model, quotedMessage)
	case about.balance:
		return noBalance(e, quotedMessage)
	case about.model && model != "":
		return modelErr(e, model, quotedMessage)
	case about.key:
		e.Condition, e.Kind = KeyRejected, KindWrongKey
		e.Cause = fmt.Sprintf("the service refused the key as invalid (%d)%s", status, quotedMessage)
		e.Fix = remedy.Remedy{Do: remedy.NewKey}
		return e
	}

	switch status {
	case 401, 403:
		e.Condition, e.Kind = KeyRejected, KindKeyOrBalance
		e.Cause = fmt.Sprintf("the service refused the key (%d)%s: either the key is wrong or the account's balance is exhausted", status, quotedMessage)
		e.Fix = remedy.Remedy{Do: remedy.CheckBalance}
		return e
	case 404:
		// A 404 that says nothing about the model: the endpoint itself is missing.
		e.Condition, e.Kind = ServiceUnreachable, KindBaseURL
		e.Cause = "the server answered 404" + codeNote() + quotedMessage + ": the endpoint does not exist there, so the base URL is not the API's address"
		e.Fix = setBaseURL
		return e
	}
	e.Kind = KindOther
	if status < 300 {
		e.Cause = "the service answered with an error" + codeNote() + quotedMessage
	} else {
		e.Cause = fmt.Sprintf("the service rejected the request with %d %s%s%s", status, http.StatusText(status), codeNote(), quotedMessage)
	}
	e.Fix = remedy.Remedy{Do: remedy.CorrectRequest}
	return e
}

// serverSaid puts the service's quoted words in parentheses: " (the server said: "…")".
func serverSaid(quotedMessage string) string {
	if quotedMessage == "" {
		return ""
	}
	return " (the server said" + quotedMessage + ")"
}

func noBalance(e *Error, quotedMessage string) *Error {
	e.Condition, e.Kind = KeyRejected, KindNoBalance
	e.Cause = "the account's balance is exhausted"
	if e.Status != 0 {
		e.Cause += fmt.Sprintf(" (%d)", e.Status)
	}
	e.Cause += quotedMessage
	e.Fix = remedy.Remedy{Do: remedy.TopUp}
	return e
}

// modelErr decides, from the catalogue alone, whether the id is misspelled or
// a real model this account may not use. ModelError is more precise when the
// account's list is known.
func modelErr(e *Error, model, quotedMessage string) *Error {
	e.Condition = UnknownModel
	if _, ok := LookupModel(model); ok {
		e.Kind = KindNotSubscribed
		e.Cause = fmt.Sprintf("%s is spelled right but the service refused it (%d)%s: it is not in this account's subscription", quoted(model), e.Status, quotedMessage)
		e.Fix = remedy.Remedy{Do: remedy.OtherModel}
		return e
	}
	e.Kind = KindMisspelled
	e.Cause = fmt.Sprintf("the service does not know the model id %s (%d)%s", quoted(model), e.Status, quotedMessage)
	if c := ClosestID(model, nil); c != "" {
		e.Cause += "; the closest listed id is " + c
		e.Fix = remedy.Remedy{Do: remedy.UseID, Value: c}
	} else {
		e.Fix = remedy.Remedy{Do: remedy.ListModels}
	}
	return e
}

func hasAnyCode(codes []string, m codeMeaning) bool {
	return slices.ContainsFunc(codes, func(c string) bool { return meaningOf(c) == m })
}

func retryAfter(v string) string {
	if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil {
		if n == 1 {
			return "1 second"
		}
		return strconv.Itoa(n) + " seconds"
	}
	return "until " + v
}
