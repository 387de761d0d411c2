package evidence

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
)

// UnmarshalWrites decodes b, the JSON of a write record's list, into
// what encoding/json decodes it into as a []Write: nil for null, an empty
// list for [], and an error for what is not JSON or not such a list. A
// list of a million entries (a hook that made a million files) decoded
// by encoding/json grows by half again and again, and each entry is a
// string for its path, its op and its kind, parsed a second time by
// Write's UnmarshalJSON: gigabytes allocated, several times the list
// held (docs/performance.md, "Through vigiles merge"). Here the list is
// made once at its length, and an entry as vigiles writes it (a flat
// object of plain strings, plainEntry) is read directly: a string for
// its path, its op and kind the package's constants. Any other entry
// (an escape, pathBytes, null, another key) goes to Write's own
// UnmarshalJSON, as encoding/json would send it, and anything but a
// list of valid JSON to encoding/json itself.
func UnmarshalWrites(b []byte) ([]Write, error) {
	b = bytes.TrimLeft(b, " \t\r\n")
	if len(b) == 0 || b[0] != '[' || !json.Valid(b) {
		var ws []Write
		err := json.Unmarshal(b, &ws)
		return ws, err
	}
	ws := make([]Write, 0, countElements(b))
	for e := range elements(b) {
		w, ok := plainEntry(e)
		if !ok {
			if err := w.UnmarshalJSON(e); err != nil {
				return nil, err
			}
		}
		ws = append(ws, w)
	}
	return ws, nil
}

// countElements is the number of elements of the valid JSON list b.
func countElements(b []byte) int {
	n := 0
	for range elements(b) {
		n++
	}
	return n
}

// elements yields each element of the valid JSON list b, as its bytes.
func elements(b []byte) func(yield func([]byte) bool) {
	return func(yield func([]byte) bool) {
		i := skipSpace(b, 1)
		for i < len(b) && b[i] != ']' {
			end := valueEnd(b, i)
			if !yield(b[i:end]) {
				return
			}
			i = skipSpace(b, end)
			if i < len(b) && b[i] == ',' {
				i = skipSpace(b, i+1)
			}
		}
	}
}

// valueEnd is the index past the valid JSON value that starts at b[i].
func valueEnd(b []byte, i int) int {
	depth := 0
	for ; i < len(b); i++ {
		switch c := b[i]; {
		case c == '"':
			for i++; b[i] != '"'; i++ {
				if b[i] == '\\' {
					i++
				}
			}
			if depth == 0 {
				return i + 1
			}
		case c == '{' || c == '[':
			depth++
		case c == '}' || c == ']':
			if depth == 0 {
				return i // the end of the list: a literal ended here
			}
			depth--
			if depth == 0 {
				return i + 1
			}
		case depth == 0 && (c == ',' || c == ' ' || c == '\t' || c == '\r' || c == '\n'):
			return i // a literal's end
		}
	}
	return i
}

// plainEntry reads e as an object whose keys are a Write's and whose
// values are strings, each with no escape and valid UTF-8 (strings whose
// bytes are what they decode to), as encoding/json would decode it, or
// says false for anything else. A key given twice is read as
// encoding/json reads it: the last one counts.
func plainEntry(e []byte) (Write, bool) {
	var w Write
	if len(e) < 2 || e[0] != '{' {
		return w, false
	}
	i := skipSpace(e, 1)
	if i < len(e) && e[i] == '}' {
		return w, true
	}
	for {
		key, next, ok := plainString(e, i)
		if !ok {
			return w, false
		}
		i = skipSpace(e, next)
		if i >= len(e) || e[i] != ':' {
			return w, false
		}
		val, next, ok := plainString(e, skipSpace(e, i+1))
		if !ok {
			return w, false
		}
		switch string(key) {
		case "path":
			w.Path = string(val)
		case "op":
			w.Op = Op(known(val))
		case "kind":
			w.Kind = known(val)
		case "target":
			w.Target = string(val)
		case "was":
			w.Was = known(val)
		case "from":
			w.From = string(val)
		default:
			return w, false // pathBytes, or a key encoding/json matches another way
		}
		i = skipSpace(e, next)
		switch {
		case i < len(e) && e[i] == '}':
			return w, true
		case i < len(e) && e[i] == ',':
			i = skipSpace(e, i+1)
		default:
			return w, false
		}
	}
}

// known is v as one of the words an op or a kind is written with,
// without allocating, or else as a string of its own.
func known(v []byte) string {
	for _, s := range [...]string{string(OpCreate), string(OpModify), string(OpDelete), "file", "dir", "symlink", "other"} {
		if string(v) == s {
			return s
		}
	}
	return string(v)
}

// plainString reads the JSON string at e[i]: its bytes between the
// quotes and the index past it, or false where there is none, or it has
// an escape or bytes that are not UTF-8 (which encoding/json would decode
// to something else), or a control character (which it refuses).
func plainString(e []byte, i int) (s []byte, next int, ok bool) {
	if i >= len(e) || e[i] != '"' {
		return nil, 0, false
	}
	end := bytes.IndexByte(e[i+1:], '"')
	if end < 0 {
		return nil, 0, false
	}
	s = e[i+1 : i+1+end]
	for _, c := range s {
		if c == '\\' || c < 0x20 {
			return nil, 0, false
		}
	}
	if !utf8.Valid(s) {
		return nil, 0, false
	}
	return s, i + end + 2, true
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}
