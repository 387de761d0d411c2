package runner

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"
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
	// lone is, for a key whose escapes leave a surrogate unpaired
	// ("\ud800"), the key's UTF-16 code units: JSON.parse keeps them,
	// so such keys are one key only when their units are the same, but
	// Key has each unpaired surrogate as U+FFFD, as encoding/json
	// decodes it. "" for any other key.
	lone string
}

// ident is the member's key as JSON.parse tells keys apart: two members
// are one key (the last read, the others ignored) when their idents are
// equal.
func (m jmember) ident() string {
	if m.lone != "" {
		return m.lone
	}
	return m.Key
}

// loneSurrogates returns, for the raw text of a JSON string (its quotes
// included, its escapes valid), its UTF-16 code units written out when
// an escape leaves a surrogate unpaired, and "" otherwise. The result
// starts with a byte that no UTF-8 text holds, so it equals no Key.
func loneSurrogates(raw []byte) string {
	if !bytes.Contains(raw, []byte(`\u`)) {
		return ""
	}
	var units []uint16
	s := raw[1 : len(raw)-1]
	for i := 0; i < len(s); {
		if s[i] != '\\' {
			r, n := utf8.DecodeRune(s[i:])
			units = utf16.AppendRune(units, r)
			i += n
			continue
		}
		if s[i+1] != 'u' {
			c := s[i+1] // \" \\ \/ as they are
			switch c {
			case 'b':
				c = '\b'
			case 'f':
				c = '\f'
			case 'n':
				c = '\n'
			case 'r':
				c = '\r'
			case 't':
				c = '\t'
			}
			units = append(units, uint16(c))
			i += 2
			continue
		}
		u, _ := strconv.ParseUint(string(s[i+2:i+6]), 16, 16)
		units = append(units, uint16(u))
		i += 6
	}
	lone := false
	for i := 0; i < len(units); i++ {
		switch u := units[i]; {
		case utf16.IsSurrogate(rune(u)) && u < 0xdc00 && i+1 < len(units) && units[i+1] >= 0xdc00 && units[i+1] <= 0xdfff:
			i++ // a pair
		case utf16.IsSurrogate(rune(u)):
			lone = true
		}
	}
	if !lone {
		return ""
	}
	var b strings.Builder
	b.WriteByte(0xff)
	for _, u := range units {
		fmt.Fprintf(&b, "%04x", u)
	}
	return b.String()
}

// repeats returns, in order, each member of the object n whose key (as
// JSON.parse tells keys apart: ident) a member before it has, with the
// first member of that key; nil for anything but an object.
func (n *jnode) repeats() (again, first []*jmember) {
	if n == nil || n.Kind != jsonObject {
		return nil, nil
	}
	seen := make(map[string]int, len(n.Members))
	for i := range n.Members {
		m := &n.Members[i]
		if j, ok := seen[m.ident()]; ok {
			again, first = append(again, m), append(first, &n.Members[j])
			continue
		}
		seen[m.ident()] = i
	}
	return again, first
}

// get returns the last member named key (JSON's usual last-wins rule).
func (n *jnode) get(key string) *jnode {
	if n == nil || n.Kind != jsonObject {
		return nil
	}
	var v *jnode
	for i := range n.Members {
		if n.Members[i].Key == key && n.Members[i].lone == "" {
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
		if n.Members[i].Key == key && n.Members[i].lone == "" {
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
// making sense. Deep says that it stops at maxJSONDepth, vigiles' bound,
// not at a mistake: JSON sets no bound on nesting.
type JSONSyntaxError struct {
	Line, Col int
	Msg       string
	Deep      bool
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
		return nil, &JSONSyntaxError{Line: p.line, Col: p.col, Msg: fmt.Sprintf("nesting deeper than %d levels", maxJSONDepth), Deep: true}
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
		kstart := p.off
		key, err := p.str()
		if err != nil {
			return nil, err
		}
		lone := loneSurrogates(p.data[kstart:p.off])
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
		n.Members = append(n.Members, jmember{Key: key, KeyPos: kp, Value: v, lone: lone})
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
