package runner

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"unicode/utf8"
)

// jsonKind is the kind of a parsed JSON value.
type jsonKind int

const (
	jsonNull jsonKind = iota
	jsonBool
	jsonNumber
	jsonString
	jsonArray
	jsonObject
)

func (k jsonKind) String() string {
	switch k {
	case jsonBool:
		return "a boolean"
	case jsonNumber:
		return "a number"
	case jsonString:
		return "a string"
	case jsonArray:
		return "an array"
	case jsonObject:
		return "an object"
	}
	return "null"
}

// jpos is a place in a JSON file: byte offset and 1-based line and column
// (the column counts runes, as editors do).
type jpos struct {
	Off, Line, Col int
}

// jnode is one JSON value with the position where it starts. Objects keep
// their members in file order, so duplicate keys are visible.
type jnode struct {
	Kind    jsonKind
	Pos     jpos
	Str     string
	Num     float64
	Bool    bool
	Members []jmember
	Elems   []*jnode
}

type jmember struct {
	Key    string
	KeyPos jpos
	Value  *jnode
}

// get returns the last member named key (JSON's usual last-wins rule).
func (n *jnode) get(key string) *jnode {
	if n == nil || n.Kind != jsonObject {
		return nil
	}
	var v *jnode
	for i := range n.Members {
		if n.Members[i].Key == key {
			v = n.Members[i].Value
		}
	}
	return v
}

// member returns the last member named key with its key position.
func (n *jnode) member(key string) (jmember, bool) {
	var m jmember
	ok := false
	if n == nil || n.Kind != jsonObject {
		return m, false
	}
	for i := range n.Members {
		if n.Members[i].Key == key {
			m, ok = n.Members[i], true
		}
	}
	return m, ok
}

// toValue converts the node into the plain Go values encoding/json would
// produce (map[string]any, []any, float64, string, bool, nil).
func (n *jnode) toValue() any {
	if n == nil {
		return nil
	}
	switch n.Kind {
	case jsonBool:
		return n.Bool
	case jsonNumber:
		return n.Num
	case jsonString:
		return n.Str
	case jsonArray:
		out := make([]any, len(n.Elems))
		for i, e := range n.Elems {
			out[i] = e.toValue()
		}
		return out
	case jsonObject:
		out := make(map[string]any, len(n.Members))
		for _, m := range n.Members {
			out[m.Key] = m.Value.toValue()
		}
		return out
	}
	return nil
}

// JSONSyntaxError is a JSON file that does not parse, with where it stops
// making sense.
type JSONSyntaxError struct {
	Line, Col int
	Msg       string
}

func (e *JSONSyntaxError) Error() string {
	return fmt.Sprintf("line %d, column %d: %s", e.Line, e.Col, e.Msg)
}

// maxJSONDepth bounds nesting so that hostile files cannot exhaust the
// stack.
const maxJSONDepth = 256

// parseJSON parses one JSON document, tracking the position of every value
// and key. It accepts exactly RFC 8259 JSON (plus a leading UTF-8 BOM) and
// returns a *JSONSyntaxError for anything else.
func parseJSON(data []byte) (*jnode, error) {
	p := &jparser{data: data, line: 1, col: 1}
	if len(data) >= 3 && data[0] == 0xEF && data[1] == 0xBB && data[2] == 0xBF {
		p.off = 3
	}
	p.skipSpace()
	if p.off >= len(p.data) {
		return nil, p.errf("empty file: want a JSON object")
	}
	n, err := p.value(0)
	if err != nil {
		return nil, err
	}
	p.skipSpace()
	if p.off < len(p.data) {
		return nil, p.errf("unexpected %s after the end of the JSON value", p.describe())
	}
	return n, nil
}

type jparser struct {
	data      []byte
	off       int
	line, col int
}

func (p *jparser) pos() jpos { return jpos{p.off, p.line, p.col} }

func (p *jparser) errf(format string, args ...any) error {
	return &JSONSyntaxError{Line: p.line, Col: p.col, Msg: fmt.Sprintf(format, args...)}
}

func (p *jparser) describe() string {
	if p.off >= len(p.data) {
		return "end of file"
	}
	r, _ := utf8.DecodeRune(p.data[p.off:])
	return strconv.QuoteRune(r)
}

// advance moves over n bytes, keeping line and column.
func (p *jparser) advance(n int) {
	end := p.off + n
	for p.off < end {
		c := p.data[p.off]
		if c == '\n' {
			p.line++
			p.col = 1
			p.off++
			continue
		}
		if c < utf8.RuneSelf {
			p.off++
		} else {
			_, size := utf8.DecodeRune(p.data[p.off:])
			p.off += size
		}
		p.col++
	}
}

func (p *jparser) skipSpace() {
	for p.off < len(p.data) {
		switch p.data[p.off] {
		case ' ', '\t', '\r', '\n':
			p.advance(1)
		default:
			return
		}
	}
}

func (p *jparser) value(depth int) (*jnode, error) {
	if depth > maxJSONDepth {
		return nil, p.errf("nesting deeper than %d levels", maxJSONDepth)
	}
	if p.off >= len(p.data) {
		return nil, p.errf("unexpected end of file: want a value")
	}
	start := p.pos()
	switch c := p.data[p.off]; {
	case c == '{':
		return p.object(start, depth)
	case c == '[':
		return p.array(start, depth)
	case c == '"':
		s, err := p.str()
		if err != nil {
			return nil, err
		}
		return &jnode{Kind: jsonString, Pos: start, Str: s}, nil
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number(start)
	case c == 't':
		return p.literal(start, "true", &jnode{Kind: jsonBool, Bool: true})
	case c == 'f':
		return p.literal(start, "false", &jnode{Kind: jsonBool})
	case c == 'n':
		return p.literal(start, "null", &jnode{Kind: jsonNull})
	}
	return nil, p.errf("unexpected %s: want a value", p.describe())
}

func (p *jparser) literal(start jpos, word string, n *jnode) (*jnode, error) {
	if len(p.data)-p.off < len(word) || string(p.data[p.off:p.off+len(word)]) != word {
		return nil, p.errf("unexpected %s: want a value", p.describe())
	}
	p.advance(len(word))
	n.Pos = start
	return n, nil
}

func (p *jparser) number(start jpos) (*jnode, error) {
	i := p.off
	d := p.data
	if i < len(d) && d[i] == '-' {
		i++
	}
	switch {
	case i < len(d) && d[i] == '0':
		i++
	case i < len(d) && d[i] >= '1' && d[i] <= '9':
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
	default:
		p.advance(i - p.off)
		return nil, p.errf("malformed number")
	}
	if i < len(d) && d[i] == '.' {
		i++
		if i >= len(d) || d[i] < '0' || d[i] > '9' {
			p.advance(i - p.off)
			return nil, p.errf("malformed number: want a digit after the decimal point")
		}
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		if i >= len(d) || d[i] < '0' || d[i] > '9' {
			p.advance(i - p.off)
			return nil, p.errf("malformed number: want a digit in the exponent")
		}
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
	}
	text := string(d[p.off:i])
	f, err := strconv.ParseFloat(text, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return nil, p.errf("malformed number %q", text)
	}
	p.advance(i - p.off)
	return &jnode{Kind: jsonNumber, Pos: start, Num: f}, nil
}

// str reads a JSON string at the current offset. It finds the closing quote
// itself and lets encoding/json decode the escapes, which it does exactly.
func (p *jparser) str() (string, error) {
	d := p.data
	i := p.off + 1
	for {
		if i >= len(d) {
			return "", p.errf("unterminated string")
		}
		c := d[i]
		if c == '"' {
			break
		}
		if c < 0x20 {
			p.advance(i - p.off)
			return "", p.errf("control character %#02x in string: escape it", c)
		}
		if c == '\\' {
			i++
			if i >= len(d) {
				return "", p.errf("unterminated string")
			}
		}
		i++
	}
	raw := d[p.off : i+1]
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", p.errf("malformed string: %v", err)
	}
	if !utf8.Valid(raw) {
		return "", p.errf("string is not valid UTF-8")
	}
	p.advance(i + 1 - p.off)
	return s, nil
}

func (p *jparser) object(start jpos, depth int) (*jnode, error) {
	n := &jnode{Kind: jsonObject, Pos: start}
	p.advance(1)
	p.skipSpace()
	if p.off < len(p.data) && p.data[p.off] == '}' {
		p.advance(1)
		return n, nil
	}
	for {
		p.skipSpace()
		if p.off >= len(p.data) || p.data[p.off] != '"' {
			return nil, p.errf("unexpected %s: want a quoted member name", p.describe())
		}
		kp := p.pos()
		key, err := p.str()
		if err != nil {
			return nil, err
		}
		p.skipSpace()
		if p.off >= len(p.data) || p.data[p.off] != ':' {
			return nil, p.errf("unexpected %s after member name %q: want ':'", p.describe(), key)
		}
		p.advance(1)
		p.skipSpace()
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		n.Members = append(n.Members, jmember{Key: key, KeyPos: kp, Value: v})
		p.skipSpace()
		if p.off >= len(p.data) {
			return nil, p.errf("unexpected end of file: want ',' or '}'")
		}
		switch p.data[p.off] {
		case ',':
			p.advance(1)
			continue
		case '}':
			p.advance(1)
			return n, nil
		}
		return nil, p.errf("unexpected %s: want ',' or '}'", p.describe())
	}
}

func (p *jparser) array(start jpos, depth int) (*jnode, error) {
	n := &jnode{Kind: jsonArray, Pos: start}
	p.advance(1)
	p.skipSpace()
	if p.off < len(p.data) && p.data[p.off] == ']' {
		p.advance(1)
		return n, nil
	}
	for {
		p.skipSpace()
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		n.Elems = append(n.Elems, v)
		p.skipSpace()
		if p.off >= len(p.data) {
			return nil, p.errf("unexpected end of file: want ',' or ']'")
		}
		switch p.data[p.off] {
		case ',':
			p.advance(1)
			continue
		case ']':
			p.advance(1)
			return n, nil
		}
		return nil, p.errf("unexpected %s: want ',' or ']'", p.describe())
	}
}
