package config

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"reflect"
	"strings"

	"github.com/modelgateway/gw/internal/fsutil"
	"github.com/modelgateway/gw/internal/remedy"
)

// DefaultPort is where `gw serve` listens unless told otherwise.
const DefaultPort = 8787

// LocalTokenPrefix starts every token `gw serve` accepts from local clients.
const LocalTokenPrefix = "gw-local-"

// File is the content of config.json. Keys gw does not know are kept on disk
// when Save rewrites the file (see Save), so a newer gw's settings survive an
// older gw.
type File struct {
	BaseURL         string `json:"base_url,omitempty"`
	LocalToken      string `json:"local_token,omitempty"`
	Port            int    `json:"port,omitempty"`
	InsecureStorage bool   `json:"insecure_storage,omitempty"`
}

// ServePort is the port gw serve listens on (and agents are pointed at): the configured one, else
// DefaultPort.
func (f File) ServePort() int {
	if f.Port != 0 {
		return f.Port
	}
	return DefaultPort
}

// ParseError is a config file that is not valid JSON (or has a field of the
// wrong type). The file is left as it is.
type ParseError struct {
	Path         string
	Line, Column int // 1-based; 0 when unknown
	Err          error
}

func (e *ParseError) Error() string {
	where := e.Path
	if e.Line > 0 {
		where = fmt.Sprintf("%s:%d:%d", e.Path, e.Line, e.Column)
	}
	return fmt.Sprintf("config file %s: %s (gw has not changed it)", where, describeJSONError(e.Err))
}

func (e *ParseError) Unwrap() error { return e.Err }

// Remedy is to fix the file by hand, or move it away and log in again.
func (e *ParseError) Remedy() remedy.Remedy {
	return remedy.Remedy{Do: remedy.FixConfigFile, Value: e.Path}
}

// Load reads the config file. A missing (or blank) file is the zero File.
func Load(path string) (File, error) {
	var f File
	_, err := readObject(path, &f)
	if err != nil {
		return File{}, err
	}
	if f.Port < 0 || f.Port > 65535 {
		return File{}, fmt.Errorf("config file %s: port %d is out of range (1-65535); fix it or remove the \"port\" line", path, f.Port)
	}
	return f, nil
}

// readObject decodes path into dst and also returns every top-level key as raw
// JSON, so Save can write back what it does not know. A missing file yields
// (nil, nil) and leaves dst untouched.
func readObject(path string, dst any) (map[string]json.RawMessage, error) {
	data, err := fsutil.ReadRegular(path, fsutil.MaxConfigSize)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	var nr *fsutil.NotRegularError
	var tl *fsutil.TooLargeError
	if errors.As(err, &nr) || errors.As(err, &tl) {
		return nil, err // names the file, why, and what to do
	}
	if err != nil {
		return nil, fmt.Errorf("reading config file: %w", err)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, nil
	}
	if off := JSONDepth(data, MaxDepth); off >= 0 {
		pe := &ParseError{Path: path, Err: errTooDeep}
		pe.Line, pe.Column = LineCol(data, off)
		return nil, pe
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, parseError(path, data, err)
	}
	if err := json.Unmarshal(data, dst); err != nil {
		return nil, parseError(path, data, err)
	}
	return raw, nil
}

func parseError(path string, data []byte, err error) error {
	pe := &ParseError{Path: path, Err: err}
	var off int64 = -1
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		off = se.Offset
	case errors.As(err, &te):
		off = te.Offset
	}
	if off >= 0 {
		// encoding/json's offset counts the bytes read, so the offending
		// byte is the one before it.
		off = min(off, int64(len(data)))
		if off > 0 {
			off--
		}
		pe.Line, pe.Column = LineCol(data, int(off))
	}
	return pe
}

// LineCol is the 1-based line and column of the byte at index offset in
// data, as editors show them (columns count bytes). An offset past the end
// is the position just after the last byte; a negative one is 1:1. Shared
// by gw's config parse errors and the positions in OpenCode config
// conflicts, so both count lines and columns the same way.
func LineCol(data []byte, offset int) (line, col int) {
	offset = max(0, min(offset, len(data)))
	line = 1 + bytes.Count(data[:offset], []byte("\n"))
	col = 1 + offset - (bytes.LastIndexByte(data[:offset], '\n') + 1)
	return line, col
}

// errTooDeep is a config file nested deeper than MaxDepth.
var errTooDeep = errors.New(TooDeepMsg)

func describeJSONError(err error) string {
	if errors.Is(err, errTooDeep) {
		return TooDeepMsg
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		if te.Field != "" {
			return fmt.Sprintf("%q should be a %s, not a JSON %s", te.Field, te.Type.Kind(), te.Value)
		}
		return fmt.Sprintf("the file should hold a JSON object, not a JSON %s", te.Value)
	}
	return "not valid JSON: " + err.Error()
}

// Save writes f to path atomically (mode 0600, directory 0700). Keys in the
// existing file that File does not know are kept; known keys are written from
// f (and dropped when empty). An existing file that does not parse is left
// untouched and reported.
func Save(path string, f File) error {
	unlock, err := lock(path)
	if err != nil {
		return err
	}
	defer unlock()
	return save(path, f)
}

// save is Save with the lock held.
func save(path string, f File) error {
	var old File
	raw, err := readObject(path, &old)
	if err != nil {
		return err
	}
	if raw == nil {
		raw = map[string]json.RawMessage{}
	}
	known, err := json.Marshal(f)
	if err != nil {
		return err
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(known, &fields); err != nil {
		return err
	}
	for _, name := range jsonNames(reflect.TypeOf(f)) {
		delete(raw, name)
	}
	for k, v := range fields {
		raw[k] = v
	}
	out, err := json.MarshalIndent(raw, "", "  ")
	if err != nil {
		return err
	}
	return fsutil.WriteAtomic(path, append(out, '\n'), 0o600)
}

func jsonNames(t reflect.Type) []string {
	var names []string
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if name != "" && name != "-" {
			names = append(names, name)
		}
	}
	return names
}

// Update loads the file, lets fn change it and saves it. Nothing is written
// when fn returns an error or changes nothing.
func Update(path string, fn func(*File) error) error {
	unlock, err := lock(path)
	if err != nil {
		return err
	}
	defer unlock()
	f, err := Load(path)
	if err != nil {
		return err
	}
	before := f
	if err := fn(&f); err != nil {
		return err
	}
	if f == before {
		if _, err := os.Stat(path); err == nil {
			return nil
		}
	}
	return save(path, f)
}

// EnsureLocalToken returns the per-install token that local clients present
// to `gw serve`, creating and saving it the first time.
func EnsureLocalToken(path string) (string, error) {
	var tok string
	err := Update(path, func(f *File) error {
		if f.LocalToken == "" {
			t, err := NewLocalToken()
			if err != nil {
				return err
			}
			f.LocalToken = t
		}
		tok = f.LocalToken
		return nil
	})
	return tok, err
}

// NewLocalToken makes a fresh "gw-local-" + 32 hex characters token.
func NewLocalToken() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("generating the local token: %w", err)
	}
	return LocalTokenPrefix + hex.EncodeToString(b[:]), nil
}
