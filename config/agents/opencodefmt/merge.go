package opencodefmt

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/tailscale/hujson"

	"github.com/modelgateway/gw/config/agents"
	"github.com/modelgateway/gw/config/jsonc"
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

// Model is one model declared to OpenCode: Context is what it compacts relative to, Reasoning makes it
// send reasoning_effort.
type Model = agents.Model

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
	// Schema is the "$schema" written into a new file; "" is OpenCode's.
	// Kilo, a fork of OpenCode with the same format, has its own.
	Schema string
}

// Result is the outcome of a merge; its Warnings are the settings that stop OpenCode from using what was
// written ("model" naming a model just removed, "disabled_providers").
type Result = agents.Result

// ParseError is a config that cannot be parsed (line and column). The file
// is left alone.
type ParseError = jsonc.ParseError

// ConflictError is a config that parses but that we will not edit
// automatically (a duplicate key, a value of the wrong type). The file is
// left alone and Msg says what to fix.
type ConflictError = jsonc.ConflictError

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
	_, err := agents.CheckModels(p.Models, "; OpenCode's auto-compaction needs both")
	return err
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

	f, err := jsonc.Parse(src, jsonc.HuJSON)
	if err != nil {
		return Result{}, err
	}
	top, err := f.Top("OpenCode")
	if err != nil {
		return Result{}, err
	}
	d := &f.Doc
	fresh := f.Fresh
	schema := opts.Schema
	if schema == "" {
		schema = Schema
	}

	res := Result{}
	if fresh {
		if err := d.Insert(top, "$schema", schema); err != nil {
			return Result{}, err
		}
	}
	if err := mergeProvider(d, top, p, &res); err != nil {
		return Result{}, err
	}
	for _, kv := range []struct{ key, id string }{{"model", opts.Model}, {"small_model", opts.SmallModel}} {
		if kv.id == "" {
			continue
		}
		if _, err := d.Apply(top, jsonc.Want{Fields: []jsonc.Field{{Key: kv.key, Val: p.ID + "/" + kv.id}}}); err != nil {
			return Result{}, err
		}
	}
	res.Warnings = append(res.Warnings, warnings(d, top, p)...)
	res.Warnings = append(res.Warnings, listWarnings(d, top, p)...)

	out := f.Pack()
	if err := checkOutput(out, p); err != nil {
		return Result{}, err
	}
	res.Data = out
	res.Changed = !bytes.Equal(out, src)
	return res, nil
}

func modelFields(m Model) jsonc.Want {
	input := []string{"text"}
	if m.Attachment {
		input = []string{"text", "image", "pdf"}
	}
	o := jsonc.Want{Fields: []jsonc.Field{
		{Key: "name", Val: m.Name, OnlyIfMissing: true},
		{Key: "limit", Val: jsonc.Want{Inline: true, Fields: []jsonc.Field{
			{Key: "context", Val: m.Context},
			{Key: "output", Val: m.Output},
		}}},
		{Key: "tool_call", Val: true},
		{Key: "attachment", Val: m.Attachment},
		{Key: "modalities", Val: jsonc.Want{Inline: true, Fields: []jsonc.Field{
			{Key: "input", Val: input},
			{Key: "output", Val: []string{"text"}},
		}}},
	}, Container: true}
	if m.Reasoning {
		o.Fields = append(o.Fields, jsonc.Field{Key: "reasoning", Val: true})
	} else {
		// With reasoning set OpenCode sends reasoning_effort, which a
		// non-reasoning model may reject.
		o.Drop = []string{"reasoning"}
	}
	return o
}

func providerFields(p Provider, withModels bool) jsonc.Want {
	o := jsonc.Want{Container: true, Fields: []jsonc.Field{
		{Key: "npm", Val: NPM},
		{Key: "name", Val: p.Name, OnlyIfMissing: true},
		{Key: "options", Val: jsonc.Want{Container: true, Fields: []jsonc.Field{
			{Key: "baseURL", Val: p.BaseURL},
			{Key: "apiKey", Val: p.APIKey},
		}}},
	}}
	if withModels {
		models := jsonc.Want{Container: true}
		for _, m := range p.Models {
			models.Fields = append(models.Fields, jsonc.Field{Key: m.ID, Val: modelFields(m)})
		}
		o.Fields = append(o.Fields, jsonc.Field{Key: "models", Val: models})
	}
	return o
}

func mergeProvider(d *jsonc.Doc, top jsonc.ObjRef, p Provider, res *Result) error {
	pi, err := d.Find(top, "provider")
	if err != nil {
		return err
	}
	if pi < 0 {
		res.Created = true
		res.Added = modelIDs(p)
		return d.Insert(top, "provider", jsonc.Want{Container: true, Fields: []jsonc.Field{{Key: p.ID, Val: providerFields(p, true)}}})
	}
	pv := &top.Obj.Members[pi].Value
	provs, ok := pv.Value.(*hujson.Object)
	if !ok {
		return &ConflictError{Msg: fmt.Sprintf("\"provider\" at %s is %s, not an object; fix it by hand", d.At(pv), jsonc.KindName(pv))}
	}
	pref := jsonc.ObjRef{Obj: provs, Indent: d.IndentOf(top, pi), Path: "provider"}
	gi, err := d.Find(pref, p.ID)
	if err != nil {
		return err
	}
	if gi < 0 {
		res.Created = true
		res.Added = modelIDs(p)
		return d.Insert(pref, p.ID, providerFields(p, true))
	}
	gv := &provs.Members[gi].Value
	gobj, ok := gv.Value.(*hujson.Object)
	if !ok {
		return &ConflictError{Msg: fmt.Sprintf("\"provider.%s\" at %s is %s, not an object; fix or remove it by hand", p.ID, d.At(gv), jsonc.KindName(gv))}
	}
	gref := jsonc.ObjRef{Obj: gobj, Indent: d.IndentOf(pref, gi), Path: "provider." + p.ID}
	if _, err := d.Apply(gref, providerFields(p, false)); err != nil {
		return err
	}

	mi, err := d.Find(gref, "models")
	if err != nil {
		return err
	}
	if mi < 0 {
		res.Added = modelIDs(p)
		return d.Insert(gref, "models", providerFields(p, true).Fields[3].Val)
	}
	mv := &gobj.Members[mi].Value
	mobj, ok := mv.Value.(*hujson.Object)
	if !ok {
		return &ConflictError{Msg: fmt.Sprintf("\"provider.%s.models\" at %s is %s, not an object; fix or remove it by hand", p.ID, d.At(mv), jsonc.KindName(mv))}
	}
	mref := jsonc.ObjRef{Obj: mobj, Indent: d.IndentOf(gref, mi), Path: gref.Path + ".models"}

	// Drop models no longer offered, last first so indexes stay valid.
	seen := map[string]bool{}
	for i := range mobj.Members {
		name := jsonc.MemberName(mobj.Members[i])
		if seen[name] {
			return &ConflictError{Msg: fmt.Sprintf("model %q appears twice in %q (%s); remove one of them", name, mref.Path, d.At(&mobj.Members[i].Name))}
		}
		seen[name] = true
	}
	for i := len(mobj.Members) - 1; i >= 0; i-- {
		name := jsonc.MemberName(mobj.Members[i])
		if !p.has(name) {
			res.Removed = append([]string{name}, res.Removed...)
			d.Remove(mref, i)
		}
	}
	for _, m := range p.Models {
		i, err := d.Find(mref, m.ID)
		if err != nil {
			return err
		}
		if i < 0 {
			if err := d.Insert(mref, m.ID, modelFields(m)); err != nil {
				return err
			}
			res.Added = append(res.Added, m.ID)
			continue
		}
		cur := &mobj.Members[i].Value
		eo, ok := cur.Value.(*hujson.Object)
		if !ok {
			return &ConflictError{Msg: fmt.Sprintf("model %q at %s is %s, not an object; fix or remove it by hand", m.ID, d.At(cur), jsonc.KindName(cur))}
		}
		changed, err := d.Apply(jsonc.ObjRef{Obj: eo, Indent: d.IndentOf(mref, i), Path: mref.Path + "." + m.ID}, modelFields(m))
		if err != nil {
			return err
		}
		if changed {
			res.Updated = append(res.Updated, m.ID)
		}
	}
	return nil
}

func modelIDs(p Provider) []string {
	ids := make([]string, len(p.Models))
	for i, m := range p.Models {
		ids[i] = m.ID
	}
	return ids
}

// warnings reports settings that would stop OpenCode from using what we wrote.
func warnings(d *jsonc.Doc, top jsonc.ObjRef, p Provider) []string {
	var out []string
	for _, key := range []string{"model", "small_model"} {
		i, _ := d.Find(top, key)
		if i < 0 {
			continue
		}
		l, ok := top.Obj.Members[i].Value.Value.(hujson.Literal)
		if !ok || l.Kind() != '"' {
			continue
		}
		ref := l.String()
		if id, ok := strings.CutPrefix(ref, p.ID+"/"); ok && !p.has(id) {
			out = append(out, fmt.Sprintf("%q is %q, which is not among the models you chose, so OpenCode cannot use it; pick one of them with --default", key, ref))
		}
	}
	if i, _ := d.Find(top, "disabled_providers"); i >= 0 {
		if list, ok := jsonc.StringList(top.Obj.Members[i].Value); ok && slices.Contains(list, p.ID) {
			out = append(out, fmt.Sprintf("\"disabled_providers\" contains %q, so OpenCode ignores it; remove it from that list", p.ID))
		}
	}
	if i, _ := d.Find(top, "enabled_providers"); i >= 0 {
		if list, ok := jsonc.StringList(top.Obj.Members[i].Value); ok && !slices.Contains(list, p.ID) {
			out = append(out, fmt.Sprintf("\"enabled_providers\" does not contain %q, so OpenCode ignores it; add it to that list", p.ID))
		}
	}
	return out
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
		if pi.BaseURL != p.BaseURL || !agents.SameIDs(pi.Models, modelIDs(p)) {
			return fmt.Errorf("internal error: merged config does not hold the expected provider; nothing was written")
		}
		return nil
	}
	return fmt.Errorf("internal error: merged config lacks provider %q; nothing was written", p.ID)
}

// listWarnings: a hand-written whitelist/blacklist in our provider hides
// models from OpenCode even though they are declared.
func listWarnings(d *jsonc.Doc, top jsonc.ObjRef, p Provider) []string {
	g := (&hujson.Value{Value: top.Obj}).Find("/provider/" + jsonPointerEscape(p.ID))
	if g == nil {
		return nil
	}
	var out []string
	if w := g.Find("/whitelist"); w != nil {
		if list, ok := jsonc.StringList(*w); ok {
			for _, m := range p.Models {
				if !slices.Contains(list, m.ID) {
					out = append(out, fmt.Sprintf("\"provider.%s.whitelist\" does not list %q, so OpenCode hides it; add it or remove the whitelist", p.ID, m.ID))
				}
			}
		}
	}
	if b := g.Find("/blacklist"); b != nil {
		if list, ok := jsonc.StringList(*b); ok {
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
