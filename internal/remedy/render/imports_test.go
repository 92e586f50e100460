package render

import (
	"go/build"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/modelgateway/gw"

// A remedy is data and its renderer is given where the key and the base URL came from (remedy.Source): neither
// package reaches into the packages that keep them, directly or through another package of gw, tests included.
func TestRenderKnowsNoStore(t *testing.T) {
	for _, pkg := range []string{module + "/internal/remedy", module + "/internal/remedy/render"} {
		for _, dep := range moduleDeps(t, pkg) {
			for _, store := range []string{module + "/keychain", module + "/config"} {
				if dep == store || strings.HasPrefix(dep, store+"/") {
					t.Errorf("%s imports %s: give the renderer the source as a remedy.Source instead", pkg, dep)
				}
			}
		}
	}
}

// moduleDeps lists the packages of this module that pkg imports, directly or not; the tests' imports of pkg
// itself count too.
func moduleDeps(t *testing.T, pkg string) []string {
	t.Helper()
	var out []string
	var walk func(p string, tests bool)
	walk = func(p string, tests bool) {
		bp, err := build.Import(p, ".", 0)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		imps := bp.Imports
		if tests {
			imps = slices.Concat(imps, bp.TestImports, bp.XTestImports)
		}
		for _, imp := range imps {
			if !strings.HasPrefix(imp, module+"/") || slices.Contains(out, imp) || imp == pkg {
				continue
			}
			out = append(out, imp)
			walk(imp, false)
		}
	}
	walk(pkg, true)
	if len(out) == 0 && strings.HasSuffix(pkg, "/render") {
		t.Fatalf("found no imports of %s; the walk is broken", pkg)
	}
	return out
}
