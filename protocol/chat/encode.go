package chat

import (
	"bytes"
	"unicode/utf8"

	jsonv1 "github.com/go-json-experiment/json/v1"
)

// AppendString appends s to dst as a JSON string, escaped exactly as
// encoding/json's Encoder with SetEscapeHTML(false) escapes it: quote,
// backslash and control characters, U+2028 and U+2029, and invalid UTF-8
// as \ufffd. The translators write their events of every delta with it
// rather than through reflection; TestAppendStringMatchesEncodingJSON and
// FuzzAppendString hold it to encoding/json.
func AppendString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if b := s[i]; b < utf8.RuneSelf {
			if b >= 0x20 && b != '"' && b != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '\\', '"':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[b>>4], hex[b&0xF])
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		if c == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if c == '\u2028' || c == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[c&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// Encode is v as JSON the way every body gw serve writes is: HTML
// characters (<, >, &) as they are, not escaped, ended by a newline, as
// encoding/json's Encoder with SetEscapeHTML(false) writes it.
func Encode(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := jsonv1.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
