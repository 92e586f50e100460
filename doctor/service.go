package doctor

import (
	"cmp"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/url"
	"slices"
	"strings"
	"sync"

	"github.com/modelgateway/gw/api"
	"github.com/modelgateway/gw/config"
	"github.com/modelgateway/gw/internal/remedy"
	"github.com/modelgateway/gw/keychain"
)

// baseURL is the outcome of the base_url check that the network checks build on.
type baseURL struct {
	check Check
	// target is the URL the network checks use: the given one, or the corrected one when the given one is
	// malformed in a way that has a safe correction (so the report still says whether the rest works).
	target    *url.URL
	corrected bool
	// differs is set when a well-formed base URL is not the canonical one; the check's final status waits
	// for the http check (see finishBaseURL).
	differs bool
}

// walkService runs the chain base_url → dns → tcp → tls → http → key → models → model:<id>. Each step needs
// the one before it; a step whose predecessor failed is skipped with the reason.
func (r *run) walkService(ctx context.Context, agentReady <-chan struct{}) {
	bu := r.checkBaseURL()
	if bu.target == nil {
		r.set(bu.check)
		why := "there is no usable base URL (see base_url)"
		if bu.check.Status == Skip {
			why = "the base URL is not known: the config file cannot be read (see config)"
		}
		for _, id := range []string{IDDNS, IDTCP, IDTLS, IDHTTP} {
			r.set(skipped(id, why))
		}
		r.set(r.keyWithoutService(why))
		r.set(skipped(IDModels, why))
		r.modelChecks(ctx, agentReady, nil, nil, why, false)
		return
	}
	u := bu.target
	via := ""
	if bu.corrected {
		via = "checked with the corrected base URL " + u.Redacted()
	}

	dns := r.checkDNS(ctx, u)
	r.set(withDetail(dns, via))

	var tcp Check
	if dns.Status == Fail {
		tcp = skipped(IDTCP, "the host name did not resolve (see dns)")
	} else {
		tcp = r.checkTCP(ctx, u)
	}
	r.set(tcp)

	var tlsc Check
	switch {
	case u.Scheme != "https":
		tlsc = skipped(IDTLS, "not used: the base URL is plain http")
	case tcp.Status != Pass && tcp.Status != Warn:
		tlsc = skipped(IDTLS, "no TCP connection (see "+culprit(dns, tcp)+")")
	default:
		tlsc = r.checkTLS(ctx, u)
	}
	r.set(tlsc)

	var httpc Check
	var open []api.Model // the list the service gave without a key (an open service)
	// The checks the HTTP request depends on; a TLS check that does not apply (plain http, or a proxy tunnel)
	// blocks nothing.
	path := []Check{dns, tcp}
	if tlsc.Status != Skip || tcp.Status == Fail || tcp.Status == Skip {
		path = append(path, tlsc)
	}
	if f := firstFailed(path...); f != "" {
		httpc = skipped(IDHTTP, "the service cannot be reached (see "+f+")")
	} else {
		httpc, open = r.checkHTTP(ctx, u)
	}
	r.set(withDetail(httpc, via))
	r.set(r.finishBaseURL(bu, append(path, httpc)))

	var key Check
	var models []api.Model
	switch {
	case r.in.KeyErr != nil || r.in.Key.Key == "":
		key = r.keyWithoutService("")
	case httpc.Status == Fail || httpc.Status == Skip:
		key = skipped(IDKey, "the service did not answer (see "+culprit(append(path, httpc)...)+")")
	default:
		key, models = r.checkKey(ctx, u)
	}
	r.set(key)

	var mc Check
	var available []string
	switch {
	case models != nil:
		mc, available = checkModels(models)
	case key.Status == Fail && r.in.Key.Key == "" && open != nil:
		// No key, but the service lists models without one: still worth checking the ids against it.
		mc, available = checkModels(open)
	default:
		mc = skipped(IDModels, "the service did not give the model list (see "+culprit(append(path, httpc, key)...)+")")
	}
	r.set(mc)
	why := ""
	if mc.Status == Skip {
		why = "the model list is not available (see " + culprit(append(path, httpc, key, mc)...) + ")"
	}
	// Probing each model only tells more when a request with the key works at all.
	probe := !r.in.NoProbe && (key.Status == Pass || key.Status == Warn)
	r.modelChecks(ctx, agentReady, u, available, why, probe)
}

// firstFailed names the first of the checks that failed or was skipped, "" when none did.
func firstFailed(cs ...Check) string {
	for _, c := range cs {
		if c.Status == Fail || c.Status == Skip {
			return c.ID
		}
	}
	return ""
}

// culprit names the check a later one points at: the first that failed or was skipped, else the last one.
func culprit(cs ...Check) string {
	if f := firstFailed(cs...); f != "" {
		return f
	}
	if len(cs) > 0 {
		return cs[len(cs)-1].ID
	}
	return ""
}

func withDetail(c Check, d string) Check {
	if d == "" {
		return c
	}
	if c.Detail == "" {
		c.Detail = d
	} else {
		c.Detail += "; " + d
	}
	return c
}

// redactURL hides a password or query in a URL before it is printed. Not config's unexported redact: that
// one writes the query as "?xxxxx", while doctor's causes sit next to config's problem text, which calls a
// query "?…"; the password is "xxxxx" in both (url.URL.Redacted).
func redactURL(raw string) string {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || (u.User == nil && u.RawQuery == "") {
		return raw
	}
	if u.RawQuery != "" {
		u.RawQuery = "…"
	}
	return u.Redacted()
}

func unreachable(c Check) Check {
	c.Status = Fail
	c.Condition = string(api.ServiceUnreachable)
	c.Message = api.ServiceUnreachable.Message()
	return c
}

// checkBaseURL validates the base URL's shape. The seed's "base address differs from {base_url}" shows up
// here in every form a user produces: a missing /v1, a trailing slash, a pasted endpoint path, whitespace, a
// scheme that is not http(s), http where https was configured, or another address altogether.
func (r *run) checkBaseURL() baseURL {
	in := r.in
	c := Check{ID: IDBaseURL}
	raw := in.BaseURL
	if in.ConfigErr != nil && in.BaseURLSource != config.SourceFlag && in.BaseURLSource != config.SourceEnv {
		// The base URL would have come from the file that did not load: "none configured" or the built-in
		// default would both be wrong about what the user set. The config check names the fault.
		return baseURL{check: skipped(IDBaseURL, "the config file cannot be read; see the config check")}
	}
	if raw == "" {
		c.Cause = "no base URL: none given with --base-url, " + config.EnvBaseURL + " or the config file, and this build has no default"
		c.Fix = remedy.Remedy{Do: remedy.SetBaseURL}
		return baseURL{check: unreachable(c)}
	}
	src := in.BaseURLSource.From()
	var bp *config.BaseURLProblem
	if _, err := config.ValidateBaseURL(raw); err != nil {
		if !errors.As(err, &bp) {
			c.Cause = fmt.Sprintf("the base URL %q (%s) cannot be used: %v", redactURL(raw), src, err)
			c.Fix = remedy.Remedy{Do: remedy.SetBaseURL}
			return baseURL{check: unreachable(c)}
		}
	} else {
		// Only a well-formed URL can be a downgrade of the configured or canonical https one.
		for _, https := range []string{in.ConfigBaseURL, in.CanonicalURL} {
			if err := config.CheckScheme(https, raw); err != nil {
				errors.As(err, &bp)
				break
			}
		}
	}
	if bp != nil {
		c.Cause = fmt.Sprintf("the base URL %q (%s) %s", redactURL(raw), src, bp.Problem)
		c.Fix = remedy.Remedy{Do: remedy.SetBaseURL, Value: bp.Fixed}
		if bp.Fixed == "" {
			return baseURL{check: unreachable(c)}
		}
		u, err := url.Parse(bp.Fixed)
		if err != nil {
			return baseURL{check: unreachable(c)}
		}
		return baseURL{check: unreachable(c), target: u, corrected: true}
	}

	u, err := url.Parse(raw)
	if err != nil { // ValidateBaseURL accepted it, so this does not happen; stay safe anyway
		c.Cause = fmt.Sprintf("the base URL %q (%s) does not parse: %v", redactURL(raw), src, err)
		c.Fix = remedy.Remedy{Do: remedy.SetBaseURL}
		return baseURL{check: unreachable(c)}
	}
	c.Status = Pass
	c.Detail = fmt.Sprintf("%s (%s)", u.Redacted(), src)
	if in.CanonicalURL != "" && raw != in.CanonicalURL {
		return baseURL{check: c, target: u, differs: true}
	}
	if u.Scheme == "http" && !config.IsLoopbackHost(u.Hostname()) {
		c.Status = Warn
		c.Cause = "the base URL uses plain http to a remote host: the API key travels unencrypted"
		c.Fix = remedy.Remedy{Do: remedy.SetBaseURL, Value: "https://" + u.Host + u.EscapedPath()}
	}
	return baseURL{check: c, target: u}
}

// finishBaseURL settles a base URL that differs from the canonical one. Asked for on the command line, it is
// a warning. Coming from GW_BASE_URL or the config file it is a warning while the service answers there (a
// staging or self-hosted gateway), and the seed's "base address differs" failure when it does not.
func (r *run) finishBaseURL(bu baseURL, path []Check) Check {
	httpc := path[len(path)-1]
	c := bu.check
	if !bu.differs {
		return c
	}
	in := r.in
	canon := in.CanonicalURL
	fix := remedy.Remedy{Do: remedy.UseDefaultBaseURL, Value: canon}
	base := fmt.Sprintf("the base URL %s (%s) differs from the service's address %s", redactURL(in.BaseURL), in.BaseURLSource.From(), canon)
	if in.BaseURLSource == config.SourceFlag || httpc.Status == Pass || httpc.Status == Warn {
		c.Status = Warn
		c.Cause = base + "; used as asked"
		if in.BaseURLSource != config.SourceFlag {
			c.Cause = base + "; a service answers there, so it is taken as intended"
		}
		c.Fix = fix
		return c
	}
	c = unreachable(c)
	c.Cause = base + " and the service cannot be reached there (see " + culprit(path...) + ")"
	c.Fix = fix
	return c
}

// hostPort is the host and port the connection goes to: the proxy's when one applies, else the service's.
func (r *run) hostPort(u *url.URL) (host, port string, viaProxy *url.URL) {
	if p, err := proxyFor(r.in.Getenv, u); err == nil && p != nil {
		return p.Hostname(), cmp.Or(p.Port(), map[string]string{"https": "443", "socks5": "1080"}[p.Scheme], "80"), p
	}
	if u.Scheme == "http" {
		return u.Hostname(), cmp.Or(u.Port(), "80"), nil
	}
	return u.Hostname(), cmp.Or(u.Port(), "443"), nil
}

func (r *run) checkDNS(ctx context.Context, u *url.URL) Check {
	host, _, proxy := r.hostPort(u)
	what := host
	if proxy != nil {
		what = "the proxy " + host
	}
	if ip := net.ParseIP(host); ip != nil {
		return Check{ID: IDDNS, Status: Pass, Detail: what + " is an IP address: nothing to look up"}
	}
	ctx, cancel := r.step(ctx)
	defer cancel()
	addrs, err := r.resolver().LookupHost(ctx, host)
	if err != nil {
		c := r.transportCheck(IDDNS, api.ClassifyTransport(err))
		if proxy != nil {
			c.Cause = "the HTTP proxy's host cannot be resolved: " + c.Cause
			c.Fix = remedy.Remedy{Do: remedy.FixProxySetting}
		}
		return c
	}
	return Check{ID: IDDNS, Status: Pass, Detail: fmt.Sprintf("%s resolves to %s", what, strings.Join(addrs, ", "))}
}

func (r *run) checkTCP(ctx context.Context, u *url.URL) Check {
	host, port, proxy := r.hostPort(u)
	ctx, cancel := r.step(ctx)
	defer cancel()
	conn, err := r.dial(ctx, "tcp", net.JoinHostPort(host, port))
	if err != nil {
		c := r.transportCheck(IDTCP, classify(u.Scheme, net.JoinHostPort(host, port), err))
		if proxy != nil {
			c.Cause = "the HTTP proxy " + proxy.Redacted() + " cannot be reached: " + c.Cause
			c.Fix = remedy.Remedy{Do: remedy.StartProxy}
		}
		return withDetail(c, proxyNote(r.in.Getenv, u))
	}
	defer conn.Close()
	c := Check{ID: IDTCP, Status: Pass, Detail: "connected to " + conn.RemoteAddr().String()}
	return withDetail(c, proxyNote(r.in.Getenv, u))
}

// checkTLS makes a handshake of its own, to name the presented certificate and its issuer. Through a proxy
// the handshake happens inside the proxy's tunnel; the http check covers it then.
func (r *run) checkTLS(ctx context.Context, u *url.URL) Check {
	host, port, proxy := r.hostPort(u)
	if proxy != nil {
		return skipped(IDTLS, "the connection goes through the proxy "+proxy.Redacted()+"; the http check covers TLS inside it")
	}
	ctx, cancel := r.step(ctx)
	defer cancel()
	raw, err := r.dial(ctx, "tcp", net.JoinHostPort(host, port))
	if err != nil {
		return r.transportCheck(IDTLS, classify(u.Scheme, net.JoinHostPort(host, port), err))
	}
	defer raw.Close()
	conn := tls.Client(raw, &tls.Config{ServerName: host, RootCAs: r.in.Network.RootCAs, NextProtos: []string{"h2", "http/1.1"}, MinVersion: tls.VersionTLS12})
	if err := conn.HandshakeContext(ctx); err != nil {
		c := r.transportCheck(IDTLS, classify(u.Scheme, net.JoinHostPort(host, port), err))
		var cve *tls.CertificateVerificationError
		if errors.As(err, &cve) && len(cve.UnverifiedCertificates) > 0 {
			cert := cve.UnverifiedCertificates[0]
			if iss := issuer(cert); !strings.Contains(c.Cause, iss) {
				c.Cause += fmt.Sprintf(" (the certificate presented for %s was issued by %s)", host, iss)
			}
		}
		return c
	}
	st := conn.ConnectionState()
	d := tls.VersionName(st.Version)
	if len(st.PeerCertificates) > 0 {
		cert := st.PeerCertificates[0]
		d += fmt.Sprintf(", certificate issued by %s, valid until %s", issuer(cert), cert.NotAfter.UTC().Format("2006-01-02"))
	}
	return Check{ID: IDTLS, Status: Pass, Detail: d}
}

// transportCheck is the failed check of a connection doctor made itself (not through api.Client, which says
// as much on its own): where a base URL other than the service's published one explains the failure, the
// remedy is to go back to that one, as the base_url check says.
func (r *run) transportCheck(id string, e *api.Error) Check {
	if canon := r.in.CanonicalURL; canon != "" && r.in.BaseURL != canon && e.ExplainedByBaseURL() {
		e.Fix = remedy.Remedy{Do: remedy.UseDefaultBaseURL, Value: canon}
	}
	return fromAPI(id, e)
}

// classify is the one classification of transport failures, told which URL was being reached so that its
// cause names the host.
func classify(scheme, addr string, err error) *api.Error {
	return api.ClassifyTransport(&url.Error{Op: "Get", URL: scheme + "://" + addr, Err: err})
}

// issuer names a certificate's issuer the way people know it: common name, else organisation. Shorter than
// api's issuer ("CN" (Org, …)), which names the authority in a failure: doctor puts this in a one-line
// pass detail, and appends it to a failure's cause only when the cause does not already contain it.
func issuer(c *x509.Certificate) string {
	switch {
	case c.Issuer.CommonName != "":
		return fmt.Sprintf("%q", c.Issuer.CommonName)
	case len(c.Issuer.Organization) > 0:
		return fmt.Sprintf("%q", c.Issuer.Organization[0])
	}
	return c.Issuer.String()
}

// checkHTTP asks for the model list without a key: a service that answers (with the list, or by asking for
// a key) is there; anything else says what is in the way.
func (r *run) checkHTTP(ctx context.Context, u *url.URL) (Check, []api.Model) {
	ctx, cancel := r.step(ctx)
	defer cancel()
	models, err := r.client(u.String(), "").Models(ctx)
	note := proxyNote(r.in.Getenv, u)
	if err == nil {
		return withDetail(Check{ID: IDHTTP, Status: Pass,
			Detail: fmt.Sprintf("GET %s/models answered with %d models without a key", u.Redacted(), len(models))}, note), models
	}
	ae := asAPI(err)
	if ae.Condition == api.KeyRejected {
		return withDetail(Check{ID: IDHTTP, Status: Pass,
			Detail: fmt.Sprintf("GET %s/models answered HTTP %d: the service asks for a key, as it should", u.Redacted(), ae.Status)}, note), nil
	}
	return withDetail(fromAPI(IDHTTP, ae), note), nil
}

// keyWithoutService reports the key when the service cannot be asked: a missing key is a failure on its own.
func (r *run) keyWithoutService(why string) Check {
	in := r.in
	if in.KeyErr != nil || in.Key.Key == "" {
		c := Check{ID: IDKey, Status: Fail,
			Condition: string(api.KeyRejected), Message: api.KeyRejected.Message()}
		switch {
		case in.noKeyStored():
			c.Cause, c.Fix = noKey(IDKey, "")
		default:
			c.Cause = "the API key could not be read: " + in.KeyErr.Error()
			c.Fix = in.keyStoreRemedy() // the key storage check's: one problem, one fix

		}
		return c
	}
	return skipped(IDKey, why)
}

func (r *run) checkKey(ctx context.Context, u *url.URL) (Check, []api.Model) {
	sctx, cancel := r.step(ctx)
	defer cancel()
	cl := r.client(u.String(), r.in.Key.Key)
	models, err := cl.Models(sctx)
	if err != nil {
		return fromAPI(IDKey, asAPI(err)), nil
	}
	c := Check{ID: IDKey, Status: Pass,
		Detail: fmt.Sprintf("the service accepted the key %s (%s)", keychain.Mask(r.in.Key.Key), r.keyOrigin())}
	if r.in.NoProbe || len(models) == 0 {
		return c, models
	}
	// Many gateways list models whatever the balance: only a request shows an exhausted one.
	pctx, cancel := r.step(ctx)
	defer cancel()
	// A list that ignores the subscription offers models the key cannot use: try a few, the cheapest
	// first (a token of a small model costs least).
	ids := make([]string, len(models))
	for i, m := range models {
		ids[i] = m.ID
	}
	slices.SortStableFunc(ids, func(a, b string) int { return api.CostRank(a) - api.CostRank(b) })
	var probe string
	for _, id := range ids[:min(3, len(ids))] {
		probe = id
		if err = cl.Probe(pctx, probe); err == nil || asAPI(err).Condition != api.UnknownModel {
			break
		}
	}
	if err != nil {
		ae := asAPI(err)
		f := fromAPI(IDKey, ae)
		f.Detail = "the model list was given; a one-token request to " + probe + " " + probeOutcome(ae)
		if ae.Condition == api.KeyRejected || ae.Condition == api.ServiceUnreachable {
			return f, models
		}
		// A rate limit or a server error on the test request: the key itself is fine.
		f.Status, f.Condition, f.Message = Warn, "", ""
		return f, models
	}
	c.Detail += "; a one-token request to " + probe + " was answered"
	return c, models
}

// probeOutcome says in a few words what became of a one-token request that failed: only an HTTP answer
// is a refusal; a request that never got one timed out, was cut off or went unanswered (the cause says why).
func probeOutcome(ae *api.Error) string {
	switch {
	case ae.Status >= 500:
		return fmt.Sprintf("failed with HTTP %d", ae.Status)
	case ae.Status != 0:
		return fmt.Sprintf("was refused with HTTP %d", ae.Status)
	case ae.Kind == api.KindTimeout:
		return "timed out without an answer"
	case ae.Kind == api.KindReset:
		return "was cut off before an answer"
	case ae.Kind == api.KindCanceled:
		return "was cancelled before an answer"
	}
	return "got no answer"
}

// asAPI is err as the one classification's *api.Error.
func asAPI(err error) *api.Error {
	var ae *api.Error
	if errors.As(err, &ae) {
		return ae
	}
	return api.ClassifyTransport(err)
}

func (r *run) keyOrigin() string {
	if r.in.Key.Backend != "" {
		return "from " + r.in.Key.Backend
	}
	return "from " + string(r.in.Key.Source)
}

// checkModels reports the list of models the key may use.
func checkModels(models []api.Model) (Check, []string) {
	ids := make([]string, 0, len(models))
	for _, m := range models {
		ids = append(ids, m.ID)
	}
	if len(ids) == 0 {
		return Check{ID: IDModels, Status: Warn,
			Cause: "the service lists no models for this key: the subscription includes none",
			Fix:   remedy.Remedy{Do: remedy.CheckSubscription}}, ids
	}
	c := Check{ID: IDModels, Status: Pass, Detail: fmt.Sprintf("%d available: %s", len(ids), strings.Join(ids, ", "))}
	var missing []string
	for _, e := range api.Catalog() {
		if !slices.Contains(ids, e.ID) {
			missing = append(missing, e.ID)
		}
	}
	if len(missing) > 0 {
		c.Detail += "; not in this subscription: " + strings.Join(missing, ", ")
	}
	return c, ids
}

// modelChecks checks each model id from --model and the agent configs against the list the service gave.
// why is set when there is no list.
func (r *run) modelChecks(ctx context.Context, agentReady <-chan struct{}, u *url.URL, available []string, why string, probe bool) {
	select {
	case <-agentReady:
	case <-ctx.Done():
	}
	r.mu.Lock()
	ids := append([]string(nil), r.modelIDs...)
	r.mu.Unlock()
	var wg sync.WaitGroup
	for _, id := range ids {
		cid := ModelIDPrefix + id
		if why != "" {
			r.set(skipped(cid, why))
			continue
		}
		if e := api.ModelError(id, available); e != nil {
			r.set(r.inAgentConfig(id, fromAPI(cid, e)))
			continue
		}
		if !probe {
			r.set(Check{ID: cid, Status: Pass, Detail: "listed by the service for this key"})
			continue
		}
		wg.Go(func() { r.set(r.probeModel(ctx, u, id)) })
	}
	wg.Wait()
}

// inAgentConfig names the OpenCode config a failing model id came from, and the fix that rewrites it.
func (r *run) inAgentConfig(id string, c Check) Check {
	if c.Status != Fail || slices.Contains(r.in.Models, id) {
		return c
	}
	r.mu.Lock()
	path := r.agent.modelFrom[id]
	r.mu.Unlock()
	if path == "" || c.Condition != string(api.UnknownModel) {
		return c
	}
	c.Cause += " (named in " + path + ")"
	c.Fix.In = path
	return c
}

// probeModel asks for a one-token answer from a listed model: a service may list a model it will not serve
// to this key (a list that ignores the subscription).
func (r *run) probeModel(ctx context.Context, u *url.URL, id string) Check {
	ctx, cancel := r.step(ctx)
	defer cancel()
	cid := ModelIDPrefix + id
	if err := r.client(u.String(), r.in.Key.Key).Probe(ctx, id); err != nil {
		ae := asAPI(err)
		c := fromAPI(cid, ae)
		c.Detail = "listed by the service, but a one-token request " + probeOutcome(ae)
		return r.inAgentConfig(id, c)
	}
	return Check{ID: cid, Status: Pass, Detail: "listed by the service and answers a one-token request"}
}
