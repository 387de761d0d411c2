package exact

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// String is a string that JSON carries exactly.
type String string

// Strings is a list of strings that JSON carries exactly. A []string is
// assignable to it and it to a []string.
type Strings []string

// Files maps a path to its content; JSON carries the paths exactly, as a
// list of {"path","content"} sorted by path (an object's keys, being JSON
// strings, could not hold them). A map[string][]byte is assignable to it.
type Files map[string][]byte

// notText is a value that is not UTF-8, as JSON holds it.
type notText struct {
	Bytes []byte `json:"bytes"`
}

func (s String) MarshalJSON() ([]byte, error) { return appendString(nil, string(s)) }

func (s *String) UnmarshalJSON(b []byte) error {
	v, err := parseString(b)
	*s = String(v)
	return err
}

func appendString(b []byte, s string) ([]byte, error) {
	var e []byte
	var err error
	if utf8.ValidString(s) {
		e, err = json.Marshal(s)
	} else {
		e, err = json.Marshal(notText{Bytes: []byte(s)})
	}
	return append(b, e...), err
}

func parseString(b []byte) (string, error) {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '{' {
		var n notText
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&n); err != nil {
			return "", err
		}
		if n.Bytes == nil {
			return "", fmt.Errorf(`exact: {"bytes"} without its bytes`)
		}
		return string(n.Bytes), nil
	}
	var s string
	err := json.Unmarshal(b, &s)
	return s, err
}

func (l Strings) MarshalJSON() ([]byte, error) {
	if l == nil {
		return []byte("null"), nil
	}
	if !slices.ContainsFunc(l, notUTF8) {
		return json.Marshal([]string(l))
	}
	b := []byte{'['}
	for i, s := range l {
		if i > 0 {
			b = append(b, ',')
		}
		var err error
		if b, err = appendString(b, s); err != nil {
			return nil, err
		}
	}
	return append(b, ']'), nil
}

func (l *Strings) UnmarshalJSON(b []byte) error {
	var raw []String
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	if raw == nil {
		*l = nil
		return nil
	}
	out := make(Strings, len(raw))
	for i, s := range raw {
		out[i] = string(s)
	}
	*l = out
	return nil
}

type file struct {
	Path    String `json:"path"`
	Content []byte `json:"content"`
}

func (f Files) MarshalJSON() ([]byte, error) {
	if f == nil {
		return []byte("null"), nil
	}
	l := make([]file, 0, len(f))
	for p, c := range f {
		l = append(l, file{String(p), c})
	}
	slices.SortFunc(l, func(a, b file) int { return strings.Compare(string(a.Path), string(b.Path)) })
	return json.Marshal(l)
}

func (f *Files) UnmarshalJSON(b []byte) error {
	var l []file
	if err := json.Unmarshal(b, &l); err != nil {
		return err
	}
	if l == nil {
		*f = nil
		return nil
	}
	m := make(Files, len(l))
	for _, e := range l {
		if _, dup := m[string(e.Path)]; dup {
			return fmt.Errorf("exact: file %q listed twice", e.Path)
		}
		m[string(e.Path)] = e.Content
	}
	*f = m
	return nil
}

func notUTF8(s string) bool { return !utf8.ValidString(s) }
