package chat

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"strings"

	json "github.com/go-json-experiment/json/v1"
)

// BadBody names what is wrong with a client's request body that did not
// decode (err, from json.Unmarshal into the protocol's request; nil for an
// empty body), the one way every translator says it: where (line and
// column), the field and the kind it must be, what to send. api names the
// client's protocol ("Messages API"). field is the field at fault, "" for
// the body as a whole; message does not repeat it.
func BadBody(body []byte, err error, api string) (field, message string) {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case len(bytes.TrimSpace(body)) == 0:
		return "", "the request body is empty; send a " + api + " request as JSON"
	case errors.As(err, &syn) && TooDeep(err):
		line, col := lineCol(body, int(syn.Offset)-1)
		return "", fmt.Sprintf("the request body nests arrays and objects deeper than %d levels (line %d, column %d), more than any request needs; send a %s request", MaxDepth, line, col, api)
	case errors.As(err, &syn):
		line, col := lineCol(body, int(syn.Offset)-1)
		return "", fmt.Sprintf("the request body is not valid JSON (line %d, column %d: %s); send a %s request as JSON", line, col, syn.Error(), api)
	case errors.As(err, &typ) && typ.Field != "":
		return FieldPath("", typ.Field), BadField(typ, api)
	case errors.As(err, &typ):
		return "", fmt.Sprintf("the request body must be a JSON object, not %s", typ.Value)
	}
	return "", fmt.Sprintf("the request body could not be read as a %s request: %s", api, oneLine(err))
}

// BadField is what is wrong with a field of the wrong JSON kind, without
// its name: "is a JSON string where the Messages API expects an array".
func BadField(typ *json.UnmarshalTypeError, api string) string {
	return fmt.Sprintf("is a JSON %s where the %s expects %s", typ.Value, api, kindOf(typ.Type))
}

// kindOf is the JSON kind a Go type is decoded from, in words.
func kindOf(t reflect.Type) string {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil {
		return "another kind"
	}
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Uint, reflect.Uint8,
		reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
		return "a number"
	}
	return "an object"
}

// lineCol is the 1-based line and column of the byte at offset.
func lineCol(data []byte, offset int) (line, col int) {
	offset = max(0, min(offset, len(data)))
	line = 1 + bytes.Count(data[:offset], []byte("\n"))
	col = offset - bytes.LastIndexByte(data[:offset], '\n')
	return line, col
}

// oneLine is an error's words on one line, at most 200 bytes.
func oneLine(err error) string {
	s := strings.ReplaceAll(err.Error(), "\n", " ")
	if len(s) > 200 {
		s = strings.ToValidUTF8(s[:200], "") + "…"
	}
	return s
}
