package root

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
)

// cmdNested writes a config nested a million levels deep: PREFIX, then OPEN and a newline a million
// times (2 MB for "[", under gw's 4 MiB read cap).
//
//	nested [-prefix P] FILE OPEN
func cmdNested(ts *testscript.TestScript, neg bool, args []string) {
	fl := flag.NewFlagSet("nested", flag.ContinueOnError)
	prefix := fl.String("prefix", "", `written before the brackets (\n: a newline)`)
	if err := fl.Parse(args); err != nil || neg || fl.NArg() != 2 {
		ts.Fatalf("usage: nested [-prefix P] FILE OPEN")
	}
	path := ts.MkAbs(fl.Arg(0))
	ts.Check(os.MkdirAll(filepath.Dir(path), 0o755))
	data := append([]byte(strings.ReplaceAll(*prefix, `\n`, "\n")), bytes.Repeat([]byte(fl.Arg(1)+"\n"), 1_000_000)...)
	ts.Check(os.WriteFile(path, data, 0o644))
}
