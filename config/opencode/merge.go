package opencode

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/tailscale/hujson"
)

const (
	// ProviderID is the key of our provider in OpenCode's "provider" map.
	// It must not start with "openai": OpenCode retries 404s from such
	// providers forever.
	ProviderID = "gw"
	// NPM is the AI SDK package OpenCode loads for an OpenAI-compatible
	// provider.
	NPM = "@ai-sdk/openai-compatible"
	// Schema is written into a new config so editors can validate it.
	Schema = "https://opencode.ai/config.json"
)

const bom = "\uFEFF"

// Model is one model we declare to OpenCode.
type Model struct {
	ID        string // exactly as the service lists it, e.g. "vendor-a/model-a-opus-4.6"
	Name      string // display name
	Context   int    // context window in tokens; OpenCode compacts relative to it
	Output    int    // maximum output tokens
	Reasoning bool   // OpenCode then sends reasoning_effort
	// Attachment: the model accepts images and PDFs.
	Attachment bool
}

// Provider is what we write under provider.<ID>.
type Provider struct {
	ID      string // ProviderID unless a caller has a reason
	Name    string // display name
	BaseURL string
	// APIKey is written verbatim: the local token in proxy mode, or
	// "{env:GW_API_KEY}" in direct mode. Never the real key.
	APIKey string
	Models []Model
}

// MergeOptions are the optional edits.
type MergeOptions struct {
	// Model and SmallModel, when set, are ids from Provider.Models written
	// as "<provider>/<id>" into "model" and "small_model".
	Model, SmallModel string
}

// Result is the outcome of a merge.
type Result struct {
	Data    []byte   // the new file content
	Changed bool     // Data differs from the input
	Created bool     // the provider did not exist before
	Added   []string // model ids added
	Removed []string // model ids removed (no longer in the subscription)
	Updated []string // model ids whose settings we corrected
	// Warnings are things the user should know that we did not change,
	// e.g. "model" pointing at a model we just removed.
	Warnings []string
}

// ParseError is a config that cannot be parsed. The file is left alone.
type ParseError struct {
	Line, Column int
	Msg          string
}

func (e *ParseError) Error() string {
	return fmt.Sprintf("line %d, column %d: %s", e.Line, e.Column, e.Msg)
}

// ConflictError is a config that parses but that we will not edit
// automatically (a duplicate key, a value of the wrong type). The file is
// left alone and Msg says what to fix.
type ConflictError struct{ Msg string }

func (e *ConflictError) Error() string { return e.Msg }

var hujsonPos = regexp.MustCompile(`^hujson: line (\d+), column (\d+): (.*)$`)

// Validate checks p before anything is written.
func (p Provider) Validate() error {
	switch {
	case p.ID == "":
		return errors.New("provider id is empty")
	case strings.HasPrefix(strings.ToLower(p.ID), "openai"):
		return fmt.Errorf("provider id %q starts with \"openai\"; OpenCode retries errors from such providers forever", p.ID)
	case p.BaseURL == "":
		return errors.New("provider base URL is empty")
	case p.APIKey == "":
		return errors.New("provider API key setting is empty")
	case len(p.Models) == 0:
		return errors.New("no models to write: OpenCode silently drops a provider without models")
	}
	seen := map[string]bool{}
	for _, m := range p.Models {
		switch {
		case m.ID == "":
			return errors.New("a model has an empty id")
		case seen[m.ID]:
			return fmt.Errorf("model %q is listed twice", m.ID)
		case m.Context <= 0 || m.Output <= 0:
			return fmt.Errorf("model %q has no context/output limit; OpenCode's auto-compaction needs both", m.ID)
		}
		seen[m.ID] = true
	}
	return nil
}

func (p Provider) has(id string) bool {
	return slices.ContainsFunc(p.Models, func(m Model) bool { return m.ID == id })
}

// Merge writes p into the OpenCode config src and returns the new content.
// Everything outside the members we own is kept byte for byte. On any error
// nothing is produced, so the caller leaves the file untouched.
func Merge(src []byte, p Provider, opts MergeOptions) (Result, error) {
	if err := p.Validate(); err != nil {
		return Result{}, err
	}
	for _, id := range []string{opts.Model, opts.SmallModel} {
		if id != "" && !p.has(id) {
			return Result{}, fmt.Errorf("default model %q is not among the models being written", id)
		}
	}

	body := bytes.Clone(src) // the parse tree aliases its input; never touch src
	hasBOM := bytes.HasPrefix(body, []byte(bom))
	if hasBOM {
		body = body[len(bom):]
	}
	d := &doc{nl: "\n", unit: "  "}
	if crlf := bytes.Count(body, []byte("\r\n")); crlf > 0 && 2*crlf >= bytes.Count(body, []byte("\n")) {
		d.nl = "\r\n" // the file's prevailing line ending
	}

	root, fresh, addedNL, err := parseDoc(body, d.nl)
	if err != nil {
		return Result{}, err
	}
	d.src = body
	rootObj, ok := root.Value.(*hujson.Object)
	if !ok {
		return Result{}, &ConflictError{Msg: fmt.Sprintf("the config is %s, not a JSON object; OpenCode expects {...} at the top", kindName(&root))}
	}
	if ind, ok := firstIndent(rootObj); ok {
		d.unit = ind
	}
	top := objRef{obj: rootObj, root: true}

	res := Result{}
	if fresh {
		if err := d.insert(top, "$schema", Schema); err != nil {
			return Result{}, err
		}
	}
	if err := d.mergeProvider(top, p, &res); err != nil {
		return Result{}, err
	}
	for _, kv := range []struct{ key, id string }{{"model", opts.Model}, {"small_model", opts.SmallModel}} {
		if kv.id == "" {
			continue
		}
		if _, err := d.apply(top, obj{fields: []field{{key: kv.key, val: p.ID + "/" + kv.id}}}); err != nil {
			return Result{}, err
		}
	}
	res.Warnings = append(res.Warnings, d.warnings(top, p)...)
	res.Warnings = append(res.Warnings, d.listWarnings(top, p)...)

	out := root.Pack()
	if addedNL {
		out = bytes.TrimSuffix(out, []byte("\n"))
	}
	if hasBOM {
		out = cat([]byte(bom), out)
	}
	if err := checkOutput(out, p); err != nil {
		return Result{}, err
	}
	res.Data = out
	res.Changed = !bytes.Equal(out, src)
	return res, nil
}

// parseDoc parses the config. An empty file, or one holding only comments,
// becomes a new object after those comments.
func parseDoc(body []byte, nl string) (root hujson.Value, fresh, addedNL bool, err error) {
	if hujson.Extra(body).IsValid() {
		v, _ := hujson.Parse([]byte("{}"))
		if len(bytes.TrimSpace(body)) > 0 {
			pre := body
			if !bytes.HasSuffix(pre, []byte("\n")) {
				pre = cat(pre, []byte(nl))
			}
			v.BeforeExtra = pre
		}
		v.AfterExtra = []byte(nl)
		return v, true, false, nil
	}
	root, err = hujson.Parse(body)
	if err != nil && !bytes.HasSuffix(body, []byte("\n")) {
		// A line comment at the very end without a newline is fine for
		// OpenCode but not for hujson; parse with one and take it off again.
		if v, err2 := hujson.Parse(cat(body, []byte("\n"))); err2 == nil {
			return v, false, true, nil
		}
	}
	if err != nil {
		if m := hujsonPos.FindStringSubmatch(err.Error()); m != nil {
			line, _ := strconv.Atoi(m[1])
			col, _ := strconv.Atoi(m[2])
			return root, false, false, &ParseError{Line: line, Column: col, Msg: m[3]}
		}
		return root, false, false, &ParseError{Line: 1, Column: 1, Msg: err.Error()}
	}
	return root, false, false, nil
}

// firstIndent is the indentation of the top-level members, which is the
// file's indentation unit.
func firstIndent(o *hujson.Object) (string, bool) {
	for _, m := range o.Members {
		if ind, ok := lineIndent(m.Name.BeforeExtra); ok && ind != "" {
			return ind, true
		}
	}
	return "", false
}

func modelFields(m Model) obj {
	input := []string{"text"}
	if m.Attachment {
		input = []string{"text", "image", "pdf"}
	}
	o := obj{fields: []field{
		{key: "name", val: m.Name, onlyIfMissing: true},
		{key: "limit", val: obj{inline: true, fields: []field{
			{key: "context", val: m.Context},
			{key: "output", val: m.Output},
		}}},
		{key: "tool_call", val: true},
		{key: "attachment", val: m.Attachment},
		{key: "modalities", val: obj{inline: true, fields: []field{
			{key: "input", val: input},
			{key: "output", val: []string{"text"}},
		}}},
	}, container: true}
	if m.Reasoning {
		o.fields = append(o.fields, field{key: "reasoning", val: true})
	} else {
		// With reasoning set OpenCode sends reasoning_effort, which a
		// non-reasoning model may reject.
		o.drop = []string{"reasoning"}
	}
	return o
}

func providerFields(p Provider, withModels bool) obj {
	o := obj{container: true, fields: []field{
		{key: "npm", val: NPM},
		{key: "name", val: p.Name, onlyIfMissing: true},
		{key: "options", val: obj{container: true, fields: []field{
			{key: "baseURL", val: p.BaseURL},
			{key: "apiKey", val: p.APIKey},
		}}},
	}}
	if withModels {
		models := obj{container: true}
		for _, m := range p.Models {
			models.fields = append(models.fields, field{key: m.ID, val: modelFields(m)})
		}
		o.fields = append(o.fields, field{key: "models", val: models})
	}
	return o
}

func (d *doc) mergeProvider(top objRef, p Provider, res *Result) error {
	pi, err := d.find(top, "provider")
	if err != nil {
		return err
	}
	if pi < 0 {
		res.Created = true
		res.Added = modelIDs(p)
		return d.insert(top, "provider", obj{container: true, fields: []field{{key: p.ID, val: providerFields(p, true)}}})
	}
	pv := &top.obj.Members[pi].Value
	provs, ok := pv.Value.(*hujson.Object)
	if !ok {
		return &ConflictError{Msg: fmt.Sprintf("\"provider\" at %s is %s, not an object; fix it by hand", d.at(pv), kindName(pv))}
	}
	pref := objRef{obj: provs, indent: d.indentOf(top, pi), path: "provider"}
	gi, err := d.find(pref, p.ID)
	if err != nil {
		return err
	}
	if gi < 0 {
		res.Created = true
		res.Added = modelIDs(p)
		return d.insert(pref, p.ID, providerFields(p, true))
	}
	gv := &provs.Members[gi].Value
	gobj, ok := gv.Value.(*hujson.Object)
	if !ok {
		return &ConflictError{Msg: fmt.Sprintf("\"provider.%s\" at %s is %s, not an object; fix or remove it by hand", p.ID, d.at(gv), kindName(gv))}
	}
	gref := objRef{obj: gobj, indent: d.indentOf(pref, gi), path: "provider." + p.ID}
	if _, err := d.apply(gref, providerFields(p, false)); err != nil {
		return err
	}

	mi, err := d.find(gref, "models")
	if err != nil {
		return err
	}
	if mi < 0 {
		res.Added = modelIDs(p)
		return d.insert(gref, "models", providerFields(p, true).fields[3].val)
	}
	mv := &gobj.Members[mi].Value
	mobj, ok := mv.Value.(*hujson.Object)
	if !ok {
		return &ConflictError{Msg: fmt.Sprintf("\"provider.%s.models\" at %s is %s, not an object; fix or remove it by hand", p.ID, d.at(mv), kindName(mv))}
	}
	mref := objRef{obj: mobj, indent: d.indentOf(gref, mi), path: gref.path + ".models"}

	// Drop models no longer offered, last first so indexes stay valid.
	seen := map[string]bool{}
	for i := range mobj.Members {
		name := memberName(mobj.Members[i])
		if seen[name] {
			return &ConflictError{Msg: fmt.Sprintf("model %q appears twice in %q (%s); remove one of them", name, mref.path, d.at(&mobj.Members[i].Name))}
		}
		seen[name] = true
	}
	for i := len(mobj.Members) - 1; i >= 0; i-- {
		name := memberName(mobj.Members[i])
		if !p.has(name) {
			res.Removed = append([]string{name}, res.Removed...)
			d.remove(mref, i)
		}
	}
	for _, m := range p.Models {
		i, err := d.find(mref, m.ID)
		if err != nil {
			return err
		}
		if i < 0 {
			if err := d.insert(mref, m.ID, modelFields(m)); err != nil {
				return err
			}
			res.Added = append(res.Added, m.ID)
			continue
		}
		cur := &mobj.Members[i].Value
		eo, ok := cur.Value.(*hujson.Object)
		if !ok {
			return &ConflictError{Msg: fmt.Sprintf("model %q at %s is %s, not an object; fix or remove it by hand", m.ID, d.at(cur), kindName(cur))}
		}
		changed, err := d.apply(objRef{obj: eo, indent: d.indentOf(mref, i), path: mref.path + "." + m.ID}, modelFields(m))
		if err != nil {
			return err
		}
		if changed {
			res.Updated = append(res.Updated, m.ID)
		}
	}
	return nil
}

func memberName(m hujson.ObjectMember) string {
	if l, ok := m.Name.Value.(hujson.Literal); ok {
		return l.String()
	}
	return ""
}

func modelIDs(p Provider) []string {
	ids := make([]string, len(p.Models))
	for i, m := range p.Models {
		ids[i] = m.ID
	}
	return ids
}

// warnings reports settings that would stop OpenCode from using what we wrote.
func (d *doc) warnings(top objRef, p Provider) []string {
	var out []string
	for _, key := range []string{"model", "small_model"} {
		i, _ := d.find(top, key)
		if i < 0 {
			continue
		}
		l, ok := top.obj.Members[i].Value.Value.(hujson.Literal)
		if !ok || l.Kind() != '"' {
			continue
		}
		ref := l.String()
		if id, ok := strings.CutPrefix(ref, p.ID+"/"); ok && !p.has(id) {
			out = append(out, fmt.Sprintf("%q is %q, which is not among the models you chose, so OpenCode cannot use it; pick one of them with --default", key, ref))
		}
	}
	if i, _ := d.find(top, "disabled_providers"); i >= 0 {
		if list, ok := stringList(top.obj.Members[i].Value); ok && slices.Contains(list, p.ID) {
			out = append(out, fmt.Sprintf("\"disabled_providers\" contains %q, so OpenCode ignores it; remove it from that list", p.ID))
		}
	}
	if i, _ := d.find(top, "enabled_providers"); i >= 0 {
		if list, ok := stringList(top.obj.Members[i].Value); ok && !slices.Contains(list, p.ID) {
			out = append(out, fmt.Sprintf("\"enabled_providers\" does not contain %q, so OpenCode ignores it; add it to that list", p.ID))
		}
	}
	return out
}

func stringList(v hujson.Value) ([]string, bool) {
	c := v.Clone()
	c.Standardize()
	var list []string
	if err := json.Unmarshal(c.Pack(), &list); err != nil {
		return nil, false
	}
	return list, true
}

// checkOutput re-reads what we produced: a last guard so that a bug here
// can never write a file OpenCode would reject or that lacks our provider.
func checkOutput(out []byte, p Provider) error {
	sum, err := ReadModels(out)
	if err != nil {
		return fmt.Errorf("internal error: merged config does not parse (%v); nothing was written", err)
	}
	for _, pi := range sum.Providers {
		if pi.ID != p.ID {
			continue
		}
		if pi.BaseURL != p.BaseURL || !sameSet(pi.Models, modelIDs(p)) {
			return fmt.Errorf("internal error: merged config does not hold the expected provider; nothing was written")
		}
		return nil
	}
	return fmt.Errorf("internal error: merged config lacks provider %q; nothing was written", p.ID)
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

// listWarnings: a hand-written whitelist/blacklist in our provider hides
// models from OpenCode even though they are declared.
func (d *doc) listWarnings(top objRef, p Provider) []string {
	g := (&hujson.Value{Value: top.obj}).Find("/provider/" + jsonPointerEscape(p.ID))
	if g == nil {
		return nil
	}
	var out []string
	if w := g.Find("/whitelist"); w != nil {
		if list, ok := stringList(*w); ok {
			for _, m := range p.Models {
				if !slices.Contains(list, m.ID) {
					out = append(out, fmt.Sprintf("\"provider.%s.whitelist\" does not list %q, so OpenCode hides it; add it or remove the whitelist", p.ID, m.ID))
				}
			}
		}
	}
	if b := g.Find("/blacklist"); b != nil {
		if list, ok := stringList(*b); ok {
			for _, m := range p.Models {
				if slices.Contains(list, m.ID) {
					out = append(out, fmt.Sprintf("\"provider.%s.blacklist\" lists %q, so OpenCode hides it", p.ID, m.ID))
				}
			}
		}
	}
	return out
}

func jsonPointerEscape(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}
