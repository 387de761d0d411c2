package sandbox

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode/utf8"

	"github.com/vigiles/action/pkg/evidence"
)

// writeList is the write record in the init's result, as the broker
// decodes it. A command can make a million entries; decoded by
// encoding/json, each would be a string for its path, its op and its
// kind, and the list would grow by doubling, so that a million files cost
// the broker hundreds of MiB (docs/performance.md, "A write record of a
// million files"). UnmarshalJSON reads the entries the init writes (a flat
// object of plain strings) itself: the list made once at its length, the
// paths, link targets and renamed-from paths in one string they all
// share, and the ops and kinds the package's constants. Anything else (a
// string with an escape, pathBytes for a name that is not UTF-8, a key
// of another form) is decoded by evidence.Write's own UnmarshalJSON, as
// encoding/json would, so that the list is the same either way. Encoding
// is encoding/json's: a writeList is written as a []evidence.Write.
type writeList []evidence.Write

// maxWriteFields is the most fields an entry of the plain form has: path,
// op, kind, target, was, from.
const maxWriteFields = 6

// UnmarshalJSON decodes b, valid JSON (encoding/json checked the whole
// result before it calls this).
func (l *writeList) UnmarshalJSON(b []byte) error {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '[' {
		// null (nil, as encoding/json leaves it), or no list: an error
		// of encoding/json's own.
		var ws []evidence.Write
		if err := json.Unmarshal(b, &ws); err != nil {
			return err
		}
		*l = ws
		return nil
	}
	// The first pass counts the entries and the bytes of their strings;
	// the second fills a list and an arena of just that size.
	n, size := 0, 0
	err := eachElement(b, i, func(e []byte) error {
		n++
		var f [maxWriteFields][2][]byte
		if k, ok := plainFields(e, &f); ok {
			for _, kv := range f[:k] {
				if inArena(kv[0], kv[1]) {
					size += len(kv[1])
				}
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	ws := make([]evidence.Write, 0, n)
	var arena strings.Builder
	arena.Grow(size)
	// str returns v as a string of the arena. The arena was grown to hold
	// every string of the list, so what it returned before stays valid
	// and unchanged as it is written on (strings.Builder never writes over
	// its bytes).
	str := func(v []byte) string {
		if len(v) == 0 {
			return ""
		}
		start := arena.Len()
		arena.Write(v)
		return arena.String()[start:]
	}
	err = eachElement(b, i, func(e []byte) error {
		var f [maxWriteFields][2][]byte
		k, ok := plainFields(e, &f)
		if !ok {
			var w evidence.Write
			if err := w.UnmarshalJSON(e); err != nil {
				return err
			}
			ws = append(ws, w)
			return nil
		}
		var w evidence.Write
		for _, kv := range f[:k] {
			v := kv[1]
			switch string(kv[0]) {
			case "path":
				w.Path = str(v)
			case "op":
				w.Op = evidence.Op(known(v, str))
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
		ws = append(ws, w)
		return nil
	})
	if err != nil {
		return err
	}
	*l = ws
	return nil
}

// inArena says whether the value v of the key key of a plain entry is
// kept in the arena: a path, a target, a from, and an op or a kind that
// is none of the known words.
func inArena(key, v []byte) bool {
	switch string(key) {
	case "op", "kind", "was":
		return known(v, nil) == ""
	}
	return true
}

// known is v as one of the words an op or a kind is written with, without
// allocating, or else as str gives it ("" for a nil str).
func known(v []byte, str func([]byte) string) string {
	for _, s := range [...]string{
		string(evidence.OpCreate), string(evidence.OpModify), string(evidence.OpDelete),
		"file", "dir", "symlink", "other",
	} {
		if string(v) == s {
			return s
		}
	}
	if str == nil {
		return ""
	}
	return str(v)
}

// eachElement calls f with each element of the JSON array that starts at
// b[i].
func eachElement(b []byte, i int, f func(e []byte) error) error {
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == ']' {
		return nil
	}
	for i < len(b) {
		end := skipValue(b, i)
		if err := f(b[i:end]); err != nil {
			return err
		}
		i = skipSpace(b, end)
		if i >= len(b) || b[i] != ',' {
			return nil
		}
		i = skipSpace(b, i+1)
	}
	return nil
}

// plainFields reads e as an object of at most maxWriteFields fields whose
// keys are those of a Write and whose values are strings, each with no
// escape and valid UTF-8: strings whose bytes are what they decode to.
// It puts each key and value in f and says how many, or false for
// anything else.
func plainFields(e []byte, f *[maxWriteFields][2][]byte) (int, bool) {
	if len(e) < 2 || e[0] != '{' {
		return 0, false
	}
	i := skipSpace(e, 1)
	if e[i] == '}' {
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

// plainString reads the JSON string at e[i]: its bytes between the
// quotes and the index past it, or false where there is none, or it has an
// escape or bytes that are not UTF-8 (which encoding/json would decode to
// something else).
func plainString(e []byte, i int) (s []byte, next int, ok bool) {
	if i >= len(e) || e[i] != '"' {
		return nil, 0, false
	}
	end := bytes.IndexByte(e[i+1:], '"')
	if end < 0 {
		return nil, 0, false
	}
	s = e[i+1 : i+1+end]
	if bytes.IndexByte(s, '\\') >= 0 || !utf8.Valid(s) {
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

// skipValue returns the index past the JSON value, valid, that starts at
// b[i].
func skipValue(b []byte, i int) int {
	depth, inString := 0, false
	for ; i < len(b); i++ {
		c := b[i]
		switch {
		case inString:
			switch c {
			case '\\':
				i++
			case '"':
				inString = false
				if depth == 0 {
					return i + 1
				}
			}
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			depth++
		case c == '}' || c == ']':
			depth--
			if depth == 0 {
				return i + 1
			}
			if depth < 0 {
				return i // the end of the list: a literal before it
			}
		case depth == 0 && (c == ',' || c == ' ' || c == '\t' || c == '\n' || c == '\r'):
			return i // the end of a number or a literal
		}
	}
	return i
}
