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
// made once at its length, and each entry decoded by DecodeWrite, as the
// broker decodes the list it reads from the init's pipe: a string for
// its path, its op and kind the package's constants. Anything but a list
// of valid JSON goes to encoding/json itself.
func UnmarshalWrites(b []byte) ([]Write, error) {
	b = bytes.TrimLeft(b, " \t\r\n")
	if len(b) == 0 || b[0] != '[' || !json.Valid(b) {
		var ws []Write
		err := json.Unmarshal(b, &ws)
		return ws, err
	}
	ws := make([]Write, 0, countElements(b))
	for e := range elements(b) {
		w, err := DecodeWrite(e, newString)
		if err != nil {
			return nil, err
		}
		ws = append(ws, w)
	}
	return ws, nil
}

// newString is v as a string of its own.
func newString(v []byte) string { return string(v) }

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

// DecodeWrite decodes e, one entry of a write record's list, as Write's
// UnmarshalJSON does. An entry as vigiles writes it (a flat object of
// plain strings, plainFields) is read directly, its strings (a path, a
// link's target, a renamed file's old path, an op or kind of no known
// word) made by str, which returns a string holding v's bytes (the
// broker's pipe gives an arena's, shared by the whole list), and a known
// op or kind as the package's constant, allocating nothing. str is given
// nothing of an entry that is not plain: that goes to Write's own
// UnmarshalJSON, as encoding/json would send it.
func DecodeWrite(e []byte, str func(v []byte) string) (Write, error) {
	var w Write
	var f [maxWriteFields][2][]byte
	k, ok := plainFields(e, &f)
	if !ok {
		err := w.UnmarshalJSON(e)
		return w, err
	}
	// In order, so that of a key given twice the last counts, as
	// encoding/json reads it.
	for _, kv := range f[:k] {
		v := kv[1]
		switch string(kv[0]) {
		case "path":
			w.Path = str(v)
		case "op":
			w.Op = Op(known(v, str))
		case "kind":
			w.Kind = known(v, str)
		case "target":
			w.Target = str(v)
		case "was":
			w.Was = known(v, str)
		case "from":
			w.From = str(v)
		}
	}
	return w, nil
}

// maxWriteFields is the most fields a plain entry has: path, op, kind,
// target, was, from. One with more (a key given twice) is not plain.
const maxWriteFields = 6

// plainFields reads e as an object of at most maxWriteFields fields whose
// keys are those of a Write and whose values are strings, each with no
// escape and valid UTF-8: strings whose bytes are what they decode to.
// It puts each key and value in f and says how many, or false for
// anything else (pathBytes, null, a key encoding/json matches another
// way).
func plainFields(e []byte, f *[maxWriteFields][2][]byte) (int, bool) {
	if len(e) < 2 || e[0] != '{' {
		return 0, false
	}
	i := skipSpace(e, 1)
	if i < len(e) && e[i] == '}' {
		return 0, true
	}
	k := 0
	for {
		key, next, ok := plainString(e, i)
		if !ok || k == maxWriteFields {
			return 0, false
		}
		switch string(key) {
		case "path", "op", "kind", "target", "was", "from":
		default:
			return 0, false
		}
		i = skipSpace(e, next)
		if i >= len(e) || e[i] != ':' {
			return 0, false
		}
		val, next, ok := plainString(e, skipSpace(e, i+1))
		if !ok {
			return 0, false
		}
		f[k] = [2][]byte{key, val}
		k++
		i = skipSpace(e, next)
		switch {
		case i < len(e) && e[i] == '}':
			return k, true
		case i < len(e) && e[i] == ',':
			i = skipSpace(e, i+1)
		default:
			return 0, false
		}
	}
}

// known is v as one of the words an op or a kind is written with,
// without allocating, or else as str gives it.
func known(v []byte, str func([]byte) string) string {
	for _, s := range [...]string{string(OpCreate), string(OpModify), string(OpDelete), "file", "dir", "symlink", "other"} {
		if string(v) == s {
			return s
		}
	}
	return str(v)
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
