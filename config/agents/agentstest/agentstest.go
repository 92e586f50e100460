// Package agentstest holds what the agent config writers' tests share: a
// subscription to declare, the corpus-and-golden runner, and checks that a
// merge kept what it does not own.
package agentstest

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tailscale/hujson"

	"github.com/modelgateway/gw/config/agents"
	"github.com/modelgateway/gw/config/jsonc"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// Token is the local token the tests declare.
const Token = "gw-local-0123456789abcdef0123456789abcdef"

// CredentialDecl is Decl with gw's credential command (gw auth token --serve) at a path with a space,
// as gw init agent declares it for an agents.CredentialCommander.
func CredentialDecl() agents.Declaration {
	d := Decl()
	d.Credential = &agents.CredentialCommand{Path: "/opt/gw dir/gw", Args: agents.CredentialArgs}
	return d
}

// Decl is a subscription of three models, one reasoning, through gw serve.
func Decl() agents.Declaration {
	return agents.Declaration{
		Mode:    agents.Proxy,
		BaseURL: "http://127.0.0.1:8787/v1",
		Token:   Token,
		Models: []agents.Model{
			{ID: "vendor-a/model-a-opus-4.6", Name: "Model A Opus 4.6", Context: 200000, Output: 32000, Reasoning: true, Attachment: true},
			{ID: "vendor-a/model-a-sonnet-4.6", Name: "Model A Sonnet 4.6", Context: 200000, Output: 64000, Attachment: true},
			{ID: "vendor-b/model-b-3-flash-preview", Name: "Model B 3 Flash Preview", Context: 1048576, Output: 65536, Attachment: true},
		},
		Default: "vendor-a/model-a-opus-4.6",
		Small:   "vendor-b/model-b-3-flash-preview",
	}
}

// DirectDecl is Decl reaching the service directly.
func DirectDecl() agents.Declaration {
	d := Decl()
	d.Mode, d.Token, d.BaseURL = agents.Direct, "", "https://api.example.com/v1"
	return d
}

// Merger merges a declaration into one file's content.
type Merger func(src []byte, d agents.Declaration) (agents.Result, error)

// Corpus merges Decl (or decls[name]) into every file of testdata/corpus.
// Each is either merged — the input untouched, a second merge a no-op, and
// check satisfied — or refused with a parse or conflict error. The output
// and a summary are compared with testdata/golden (-update rewrites them).
func Corpus(t *testing.T, merge Merger, decls map[string]agents.Declaration, check func(t *testing.T, src []byte, res agents.Result)) {
	t.Helper()
	CorpusIn(t, "corpus", merge, decls, check)
}

// CorpusIn is Corpus for testdata/<dir>; the golden files of a directory
// other than "corpus" are in testdata/golden/<dir>.
func CorpusIn(t *testing.T, dir string, merge Merger, decls map[string]agents.Declaration, check func(t *testing.T, src []byte, res agents.Result)) {
	t.Helper()
	prefix := ""
	if dir != "corpus" {
		prefix = dir + "/"
	}
	entries, err := os.ReadDir(filepath.Join("testdata", dir))
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) < 8 {
		t.Fatalf("corpus has %d fixtures, want at least 8", len(entries))
	}
	for _, e := range entries {
		name := e.Name()
		t.Run(name, func(t *testing.T) {
			src, err := os.ReadFile(filepath.Join("testdata", dir, name))
			if err != nil {
				t.Fatal(err)
			}
			d, ok := decls[name]
			if !ok {
				d = Decl()
			}
			res, err := MergeOnce(t, merge, src, d)
			var summary strings.Builder
			if err != nil {
				fmt.Fprintf(&summary, "refused: %v\n", err)
			} else {
				if check != nil {
					check(t, src, res)
				}
				fmt.Fprintf(&summary, "changed: %v\ncreated: %v\nadded: %s\nremoved: %s\nupdated: %s\n",
					res.Changed, res.Created, strings.Join(res.Added, " "), strings.Join(res.Removed, " "), strings.Join(res.Updated, " "))
				for _, w := range res.Warnings {
					fmt.Fprintf(&summary, "warning: %s\n", w)
				}
			}
			Golden(t, prefix+name+".txt", []byte(summary.String()))
			if err == nil {
				Golden(t, prefix+name, res.Data)
			}
		})
	}
}

// MergeOnce merges and checks the guarantees every writer gives: the input
// is not modified, a refusal is a parse or conflict error, line endings and
// a byte-order mark are kept, and merging the result again changes nothing.
func MergeOnce(t testing.TB, merge Merger, src []byte, d agents.Declaration) (agents.Result, error) {
	t.Helper()
	orig := bytes.Clone(src)
	res, err := merge(src, d)
	if !bytes.Equal(src, orig) {
		t.Fatal("Merge modified its input")
	}
	if err != nil {
		var pe *agents.ParseError
		var ce *agents.ConflictError
		if !errors.As(err, &pe) && !errors.As(err, &ce) {
			t.Fatalf("refused for a reason other than a parse error or a conflict: %v", err)
		}
		if res.Data != nil {
			t.Fatal("a refused merge returned data")
		}
		return res, err
	}
	if res.Changed != !bytes.Equal(res.Data, src) {
		t.Errorf("Changed is %v, but the data %s", res.Changed, map[bool]string{true: "differs", false: "is the same"}[!bytes.Equal(res.Data, src)])
	}
	if bytes.HasPrefix(src, []byte(jsonc.BOM)) != bytes.HasPrefix(res.Data, []byte(jsonc.BOM)) {
		t.Error("byte-order mark not preserved")
	}
	if n := bytes.Count(src, []byte("\n")); n > 0 && bytes.Count(src, []byte("\r\n")) == n {
		if bytes.Count(res.Data, []byte("\n")) != bytes.Count(res.Data, []byte("\r\n")) {
			t.Errorf("CRLF file gained bare LF line endings:\n%q", res.Data)
		}
	}
	again, err := merge(res.Data, d)
	if err != nil {
		t.Fatalf("merging the result again failed: %v\n%s", err, res.Data)
	}
	if again.Changed || !bytes.Equal(again.Data, res.Data) {
		t.Errorf("merging the result again changed it:\n%s\n---\n%s", res.Data, again.Data)
	}
	if len(again.Added)+len(again.Removed)+len(again.Updated) > 0 {
		t.Errorf("merging the result again reported changes: %+v", again)
	}
	return res, nil
}

// Golden compares data with testdata/golden/name (-update rewrites it).
func Golden(t testing.TB, name string, data []byte) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run the test with -update to create it)", err)
	}
	if !bytes.Equal(data, want) {
		t.Errorf("%s differs from the golden file:\n--- got\n%s\n--- want\n%s", name, data, want)
	}
}

// FuzzMerge fuzzes merge from the seeds of testdata/corpus: any input is merged with what gw does not own
// kept (kept checks it) and a second merge a no-op, or refused, the input untouched (MergeOnce).
func FuzzMerge(f *testing.F, merge Merger, kept func(t *testing.T, src, out []byte)) {
	Seeds(f)
	f.Fuzz(func(t *testing.T, src []byte) {
		if res, err := MergeOnce(t, merge, src, Decl()); err == nil {
			kept(t, src, res.Data)
		}
	})
}

// JSONOwns is FuzzMerge's check for a JSON(C) file of which gw owns the members at owned (JSONKept).
func JSONOwns(owned ...string) func(t *testing.T, src, out []byte) {
	return func(t *testing.T, src, out []byte) { JSONKept(t, src, out, owned...) }
}

// Seeds adds every file of testdata/corpus (or the directories named) to a
// fuzz test's seed corpus.
func Seeds(f *testing.F, dirs ...string) {
	if len(dirs) == 0 {
		dirs = []string{"corpus"}
	}
	var files []string
	for _, d := range dirs {
		m, _ := filepath.Glob(filepath.Join("testdata", d, "*"))
		files = append(files, m...)
	}
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
}

// JSONKept checks that a JSON(C) merge kept every top-level member other
// than the owned ones byte for byte and in order, and every comment outside
// the owned members' values. owned are JSON pointers ("/env",
// "/provider/gw"); a pointer's parent members other than it are checked too.
func JSONKept(t testing.TB, src, out []byte, owned ...string) {
	t.Helper()
	body := bytes.TrimPrefix(src, []byte(jsonc.BOM))
	if hujson.Extra(body).IsValid() {
		if len(bytes.TrimSpace(body)) > 0 && !bytes.HasPrefix(bytes.TrimPrefix(out, []byte(jsonc.BOM)), body) {
			t.Error("leading comments of an otherwise empty file not preserved")
		}
		return
	}
	a, _, _, err := jsonc.ParseValue(bytes.Clone(body), "\n")
	if err != nil {
		t.Fatalf("source does not parse: %v", err)
	}
	b, _, _, err := jsonc.ParseValue(bytes.Clone(bytes.TrimPrefix(out, []byte(jsonc.BOM))), "\n")
	if err != nil {
		t.Fatalf("output does not parse: %v\n%s", err, out)
	}
	if !bytes.Equal(a.BeforeExtra, b.BeforeExtra) || !bytes.Equal(a.AfterExtra, b.AfterExtra) {
		t.Errorf("text around the top-level value changed")
	}
	// Every object on the way to an owned value keeps its other members.
	parents := map[string]map[string]bool{}
	for _, p := range owned {
		parts := strings.Split(strings.TrimPrefix(p, "/"), "/")
		for i := range parts {
			parent := "/" + strings.Join(parts[:i], "/")
			if i == 0 {
				parent = ""
			}
			if parents[parent] == nil {
				parents[parent] = map[string]bool{}
			}
			parents[parent][parts[i]] = true
		}
	}
	for parent, own := range parents {
		av, bv := a.Find(parent), b.Find(parent)
		if av == nil || bv == nil {
			continue
		}
		ao, ok1 := av.Value.(*hujson.Object)
		bo, ok2 := bv.Value.(*hujson.Object)
		if !ok1 || !ok2 {
			continue
		}
		if err := sameMembers(ao, bo, own, parent+"/"); err != nil {
			t.Error(err)
		}
	}
	ac, bc := comments(&a, owned), comments(&b, owned)
	if !slices.Equal(ac, bc) {
		t.Errorf("comments outside gw's entries changed:\nbefore %q\nafter  %q", ac, bc)
	}
}

func sameMembers(a, b *hujson.Object, owned map[string]bool, where string) error {
	keep := func(o *hujson.Object) []hujson.ObjectMember {
		var out []hujson.ObjectMember
		for _, m := range o.Members {
			if !owned[jsonc.MemberName(m)] {
				out = append(out, m)
			}
		}
		return out
	}
	am, bm := keep(a), keep(b)
	if len(am) != len(bm) {
		return fmt.Errorf("%s: %d members of the user's became %d", where, len(am), len(bm))
	}
	for i := range am {
		name := jsonc.MemberName(am[i])
		if jsonc.MemberName(bm[i]) != name {
			return fmt.Errorf("%s%s moved or was renamed to %s", where, name, jsonc.MemberName(bm[i]))
		}
		x, y := am[i].Value, bm[i].Value
		x.BeforeExtra, x.AfterExtra, y.BeforeExtra, y.AfterExtra = nil, nil, nil, nil
		if !bytes.Equal(x.Pack(), y.Pack()) {
			return fmt.Errorf("%s%s changed: %q -> %q", where, name, x.Pack(), y.Pack())
		}
	}
	return nil
}

// comments lists every comment in v outside the owned values.
func comments(v *hujson.Value, owned []string) []string {
	var skip []*hujson.Value
	for _, p := range owned {
		if s := v.Find(p); s != nil {
			skip = append(skip, s)
		}
	}
	var out []string
	extra := func(e hujson.Extra) {
		for _, line := range strings.Split(string(e), "\n") {
			if l := strings.TrimSpace(line); strings.HasPrefix(l, "//") || strings.HasPrefix(l, "/*") {
				out = append(out, l)
			}
		}
	}
	var walk func(v *hujson.Value)
	walk = func(v *hujson.Value) {
		if slices.Contains(skip, v) {
			return
		}
		extra(v.BeforeExtra)
		extra(v.AfterExtra)
		switch c := v.Value.(type) {
		case *hujson.Object:
			for i := range c.Members {
				extra(c.Members[i].Name.BeforeExtra)
				extra(c.Members[i].Name.AfterExtra)
				walk(&c.Members[i].Value)
			}
			extra(c.AfterExtra)
		case *hujson.Array:
			for i := range c.Elements {
				walk(&c.Elements[i])
			}
			extra(c.AfterExtra)
		}
	}
	walk(v)
	return out
}
