package root

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
)

// scrubVars are the values that change from run to run, in the order cmdScrub replaces them (a value
// containing another first).
var scrubVars = []string{"WORK", "SERVE_HOSTPORT", "FAKEGW_HOSTPORT"}

// localToken is gw serve's local token, made afresh in every run.
var localToken = regexp.MustCompile(`gw-local-[0-9a-f]{32}`)

// unitChecksum is the checksum in the marker line of a file gw service install writes: of a text that holds
// the run's paths.
var unitChecksum = regexp.MustCompile(`(Written by gw service install; gw service uninstall removes it\. checksum )[0-9a-f]{16}`)

// cmdScrub rewrites the last command's stdout and stderr for a golden comparison: the work directory, the
// stand-in's and gw serve's host:port become $WORK, $FAKEGW_HOSTPORT and $SERVE_HOSTPORT, and a local
// token gw-local-$TOKEN. Then `cmp stdout want.txt` compares what a person reads, and `go test -update`
// rewrites want.txt in the script. -var NAME also replaces the value of the script's variable NAME (a
// port the script chose). Given a FILE, scrub makes its content the stdout to compare (and the stderr
// empty).
//
//	scrub [-var NAME]... [FILE]
func cmdScrub(ts *testscript.TestScript, neg bool, args []string) {
	var extra []string
	for len(args) >= 2 && args[0] == "-var" {
		extra, args = append(extra, args[1]), args[2:]
	}
	if neg || len(args) > 1 {
		ts.Fatalf("usage: scrub [-var NAME]... [FILE]")
	}
	stdout, stderr := ts.ReadFile("stdout"), ts.ReadFile("stderr")
	if len(args) == 1 {
		stdout, stderr = ts.ReadFile(args[0]), ""
	}
	fmt.Fprint(ts.Stdout(), scrub(ts, stdout, extra...))
	fmt.Fprint(ts.Stderr(), scrub(ts, stderr, extra...))
}

func scrub(ts *testscript.TestScript, s string, extra ...string) string {
	for _, name := range slices.Concat(scrubVars, extra) {
		if v := ts.Getenv(name); v != "" {
			s = strings.ReplaceAll(s, v, "$"+name)
		}
	}
	if filepath.Separator != '/' {
		// A path under the work directory is written with slashes, as the goldens have it.
		s = slashWorkPaths(s)
	}
	s = unitChecksum.ReplaceAllString(s, "${1}$$SUM")
	return localToken.ReplaceAllString(s, "gw-local-$$TOKEN")
}

// workPath is a path under the script's work directory once scrub wrote it $WORK (up to a space, a quote,
// a colon or a closing bracket).
var workPath = regexp.MustCompile(`\$WORK[^\s'":)\]]*`)

// slashWorkPaths writes the paths under $WORK in s with slashes, not Windows' backslashes.
func slashWorkPaths(s string) string {
	return workPath.ReplaceAllStringFunc(s, func(p string) string { return strings.ReplaceAll(p, `\`, "/") })
}

// cmdJSON checks a value in the JSON the last command printed on stdout.
//
//	json PATH [WANT]           the value at PATH exists (and is WANT)
//	json -re PATH REGEXP       the value at PATH, as text, matches REGEXP
//	! json PATH [WANT]         there is no value at PATH (or it is not WANT)
//
// PATH is field names joined by dots; [N] is an array's element N, [field=value] the first element of an
// array of objects whose field is value (as text), and # an array's length: checks[id=key].status,
// models[0].id, models.#. WANT is a string value as it is (no quotes); any other value in JSON: true, 3,
// null, or an object, which matches when every field it names has that value (other fields are not
// looked at). Text in the value matches either as it is or scrubbed as cmdScrub does, so WANT may say
// $WORK and $FAKEGW_HOSTPORT inside single quotes.
func cmdJSON(ts *testscript.TestScript, neg bool, args []string) {
	re := len(args) > 0 && args[0] == "-re"
	if re {
		args = args[1:]
	}
	if len(args) < 1 || len(args) > 2 || (re && len(args) != 2) {
		ts.Fatalf("usage: json [-re] PATH [WANT]")
	}
	var doc any
	if err := json.Unmarshal([]byte(ts.ReadFile("stdout")), &doc); err != nil {
		ts.Fatalf("json: stdout is not JSON: %v", err)
	}
	got, err := jsonAt(doc, args[0])
	if len(args) == 1 {
		switch {
		case err != nil && !neg:
			ts.Fatalf("json: %v", err)
		case err == nil && neg:
			ts.Fatalf("json: %s is there: %s", args[0], jsonText(got))
		}
		return
	}
	if err != nil {
		if !neg {
			ts.Fatalf("json: %v", err)
		}
		return
	}
	var ok bool
	var why string
	if re {
		r := regexp.MustCompile(args[1])
		ok = r.MatchString(jsonText(got)) || r.MatchString(scrub(ts, jsonText(got)))
	} else if ok, why = jsonMatches(got, args[1], nil); !ok {
		ok, why = jsonMatches(got, args[1], func(s string) string { return scrub(ts, s) })
	}
	switch {
	case !ok && !neg && why != "":
		ts.Fatalf("json: %s: %s", args[0], why)
	case !ok && !neg:
		ts.Fatalf("json: %s is %s; want %s", args[0], jsonText(got), args[1])
	case ok && neg:
		ts.Fatalf("json: %s is %s", args[0], jsonText(got))
	}
}

// jsonAt finds the value at path in doc.
func jsonAt(doc any, path string) (any, error) {
	v := doc
	where := ""
	for path != "" {
		var step string
		if path[0] == '[' {
			end := strings.IndexByte(path, ']')
			if end < 0 {
				return nil, fmt.Errorf("%q: a [ without ]", path)
			}
			step, path = path[:end+1], path[end+1:]
		} else {
			end := strings.IndexAny(path, ".[")
			if end < 0 {
				end = len(path)
			}
			step, path = path[:end], path[end:]
		}
		path = strings.TrimPrefix(path, ".")
		here := strings.TrimPrefix(where+"."+step, ".")
		switch {
		case step == "#":
			arr, ok := v.([]any)
			if !ok {
				return nil, fmt.Errorf("%s is not an array", where)
			}
			v = float64(len(arr))
		case strings.HasPrefix(step, "["):
			arr, ok := v.([]any)
			if !ok {
				return nil, fmt.Errorf("%s is not an array", where)
			}
			sel := step[1 : len(step)-1]
			field, value, isFilter := strings.Cut(sel, "=")
			if !isFilter {
				n, err := strconv.Atoi(sel)
				if err != nil || n < 0 || n >= len(arr) {
					return nil, fmt.Errorf("%s has no element %s (it has %d)", where, sel, len(arr))
				}
				v = arr[n]
				break
			}
			i := slices.IndexFunc(arr, func(e any) bool {
				o, ok := e.(map[string]any)
				return ok && o[field] != nil && jsonText(o[field]) == value
			})
			if i < 0 {
				return nil, fmt.Errorf("%s has no element whose %s is %q", where, field, value)
			}
			v = arr[i]
		default:
			o, ok := v.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("%s is not an object", cmp.Or(where, "the document"))
			}
			if v, ok = o[step]; !ok {
				return nil, fmt.Errorf("%s is not there", here)
			}
		}
		where = here
	}
	return v, nil
}

// jsonMatches: got is want, a string as it is or any other value in JSON; an object in want matches when
// got has each of its fields with that value. why names the first field that differs.
// With scrub, got's text is scrubbed first.
func jsonMatches(got any, want string, scrub func(string) string) (ok bool, why string) {
	text := func(v any) string {
		if scrub == nil {
			return jsonText(v)
		}
		return scrub(jsonText(v))
	}
	var w any
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		w = want // a plain string
	}
	if _, isString := got.(string); isString {
		if ws, ok := w.(string); ok {
			return text(got) == ws, ""
		}
		return text(got) == want, ""
	}
	wo, wantObject := w.(map[string]any)
	if o, ok := got.(map[string]any); ok && wantObject {
		for _, k := range slices.Sorted(maps.Keys(wo)) {
			gv, there := o[k]
			if !there {
				return false, fmt.Sprintf("field %s is not there", k)
			}
			if text(gv) != jsonText(wo[k]) {
				return false, fmt.Sprintf("field %s is %s (not %s)", k, text(gv), jsonText(wo[k]))
			}
		}
		return true, ""
	}
	return text(got) == jsonText(w), ""
}

// jsonText is a string as it is, anything else in compact JSON.
func jsonText(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// rawByte is <1b> (a byte) or <u9b> (a character) in the source of cmdUnescape.
var rawByte = regexp.MustCompile(`<(u?)([0-9a-f]{2,4})>`)

// cmdUnescape writes DST as SRC with each <hh> made the byte 0xhh and each <uhhhh> the character U+hhhh:
// the control characters a hostile file holds, which a script cannot hold itself.
//
//	unescape SRC DST
func cmdUnescape(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: unescape SRC DST")
	}
	out := rawByte.ReplaceAllStringFunc(ts.ReadFile(args[0]), func(m string) string {
		g := rawByte.FindStringSubmatch(m)
		n, _ := strconv.ParseUint(g[2], 16, 32)
		if g[1] == "u" {
			return string(rune(n))
		}
		return string([]byte{byte(n)})
	})
	if err := os.WriteFile(ts.MkAbs(args[1]), []byte(out), 0o600); err != nil {
		ts.Fatalf("unescape: %v", err)
	}
}
