package sandbox

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"strings"

	"github.com/vigiles/action/pkg/evidence"
)

// The init's result read from its pipe.
//
// The result is one JSON object, its write record among its fields. Read
// whole and then decoded, its bytes (up to maxResult) were held beside the
// list made of them, and were most of the broker's peak for a large
// record. readResult decodes the record's list as it reads it instead, an
// entry at a time, and keeps the rest of the result, small, as JSON with
// null in the list's place. The init writes writesCount and writesBytes
// before the list, so that the list and its arena are made once, at their
// size.

// rawResult is the init's result as readResult read it.
type rawResult struct {
	// doc is the result's JSON, with null in place of the write record's
	// list where that was decoded apart (listed).
	doc    []byte
	writes []evidence.Write
	listed bool
	err    error // the list could not be decoded
}

// errDuplicateWrites is readResult's error for a result with another write
// record after the one decoded, which encoding/json would have taken.
var errDuplicateWrites = errors.New("the result has more than one write record")

// errMalformedList is readResult's error for a write record's list that
// is no JSON list.
var errMalformedList = errors.New("the write record's list is malformed")

// decode decodes the result into ir.
func (r *rawResult) decode(ir *initResult) error {
	if r.err != nil {
		return r.err
	}
	if err := json.Unmarshal(r.doc, ir); err != nil {
		return err
	}
	if r.listed {
		ir.Writes = r.writes
	}
	return nil
}

// readResult reads the init's result from r, to its end. Past maxResult
// bytes and the newline the init writes after them it drops what it read,
// and says so (tooLarge).
func readResult(r io.Reader) (res rawResult, tooLarge bool) {
	lr := &io.LimitedReader{R: r, N: maxResult + 2}
	br := bufio.NewReaderSize(lr, 64<<10)
	s := resultScanner{br: br}
	err := s.scan()
	io.Copy(io.Discard, br) // what follows a malformed list
	if lr.N <= 0 {
		// Drained, so that an init that wrote too much is not blocked
		// until the backstop kills it.
		io.Copy(io.Discard, r)
		return rawResult{}, true
	}
	res = rawResult{doc: s.doc, writes: s.writes, listed: s.listed}
	var le listError
	if errors.As(err, &le) {
		res.err = le.err
	}
	// Any other error ended the reading (the pipe's end, EOF): what was
	// read is decoded, or found malformed, as it is.
	return res, false
}

// listError is an error of the write record's list, not of the reading.
type listError struct{ err error }

func (e listError) Error() string { return e.err.Error() }

// resultScanner copies the result's JSON into doc, but for the write
// record's list, which it decodes.
type resultScanner struct {
	br     *bufio.Reader
	doc    []byte
	writes []evidence.Write
	listed bool
	// count and size are writesCount and writesBytes, once read.
	count, size int
	elem        []byte // the entry being read
}

// scan reads the object and what follows it (only space, or the
// decoding of doc fails).
func (s *resultScanner) scan() error {
	depth := 0
	for {
		c, err := s.br.ReadByte()
		if err != nil {
			return err
		}
		switch c {
		case '{', '[':
			depth++
		case '}', ']':
			depth--
		case '"':
			// Kept though the pipe ended inside it: a result cut short
			// there is malformed, never the shorter document before it.
			str, err := s.readString()
			s.doc = append(s.doc, str...)
			if err != nil {
				return err
			}
			if depth != 1 {
				continue
			}
			if err := s.field(str); err != nil {
				return err
			}
			continue
		}
		s.doc = append(s.doc, c)
	}
}

// readString reads a JSON string whose opening quote was read, and returns
// it with its quotes, as it was written.
func (s *resultScanner) readString() ([]byte, error) {
	str := []byte{'"'}
	for {
		c, err := s.br.ReadByte()
		if err != nil {
			return str, err
		}
		str = append(str, c)
		switch c {
		case '\\':
			c, err := s.br.ReadByte()
			if err != nil {
				return str, err
			}
			str = append(str, c)
		case '"':
			return str, nil
		}
	}
}

// field looks at the string str read at the object's top level: a key
// where a colon follows. The key writesCount or writesBytes gives a
// size; the key writes has its list decoded.
func (s *resultScanner) field(str []byte) error {
	if err := s.space(); err != nil {
		return err
	}
	if c, err := s.br.ReadByte(); err != nil || c != ':' {
		if err == nil {
			s.br.UnreadByte()
		}
		return err
	}
	s.doc = append(s.doc, ':')
	if err := s.space(); err != nil {
		return err
	}
	var key string
	if json.Unmarshal(str, &key) != nil {
		return nil // malformed: encoding/json says so
	}
	switch {
	case key == "writesCount" || key == "writesBytes":
		var n int
		c, err := s.br.Peek(1)
		if err != nil || c[0] < '0' || c[0] > '9' {
			return nil
		}
		for {
			c, err := s.br.ReadByte()
			if err != nil {
				return err
			}
			if c < '0' || c > '9' {
				s.br.UnreadByte()
				break
			}
			s.doc = append(s.doc, c)
			if n < maxResult {
				n = n*10 + int(c-'0')
			}
		}
		if key == "writesCount" {
			s.count = min(n, maxResult)
		} else {
			s.size = min(n, maxResult)
		}
		return nil
	case s.listed && strings.EqualFold(key, "writes"):
		return listError{errDuplicateWrites}
	case key != "writes":
		return nil
	}
	if c, err := s.br.Peek(1); err != nil || c[0] != '[' {
		return nil // null, or no list: encoding/json decodes it
	}
	s.br.ReadByte()
	s.doc = append(s.doc, "null"...)
	s.listed = true
	return s.list()
}

// space copies the JSON space that comes next into doc.
func (s *resultScanner) space() error {
	for {
		c, err := s.br.ReadByte()
		if err != nil {
			return err
		}
		if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			return s.br.UnreadByte()
		}
		s.doc = append(s.doc, c)
	}
}

// minWriteEntry is the shortest entry of the list the init writes, with
// the comma after it: evidence.Write always writes a path and an op.
const minWriteEntry = `{"path":"","op":""},`

// list decodes the write record's list whose '[' was read, an entry at a
// time. A command can make a million entries; decoded by encoding/json,
// each would be a string for its path, its op and its kind, and the list
// would grow by doubling, so that a million files cost the broker
// hundreds of MiB (docs/performance.md, "A write record of a million
// files"). Here the list is made at the size the init gave, and each
// entry decoded by evidence.DecodeWrite, as encoding/json would decode
// it: one as the init writes it (a flat object of plain strings) with
// its path, link target and renamed-from path strings of one arena,
// which they all share, its op and kind the package's constants.
func (s *resultScanner) list() error {
	// The sizes the init gave, trusted no further than the bytes a
	// result may hold: each entry the init writes takes
	// {"path":"","op":""} and a comma at least. (Two bytes each, the
	// most a count could ask was 3 GiB of entries, made before a byte of
	// the list was read.)
	ws := make([]evidence.Write, 0, min(s.count, maxResult/len(minWriteEntry)))
	str := newArena(s.size).str
	defer func() { s.writes = ws }()
	for first := true; ; first = false {
		s.discardSpace()
		c, err := s.br.Peek(1)
		if err != nil {
			return err
		}
		if c[0] == ']' && first {
			s.br.ReadByte()
			return nil
		}
		if err := s.readElem(); err != nil {
			return err
		}
		w, err := evidence.DecodeWrite(s.elem, str)
		if err != nil {
			return listError{err}
		}
		ws = append(ws, w)
		s.discardSpace()
		switch c, err := s.br.ReadByte(); {
		case err != nil:
			return err
		case c == ']':
			return nil
		case c != ',':
			return listError{errMalformedList}
		}
	}
}

func (s *resultScanner) discardSpace() {
	for {
		c, err := s.br.ReadByte()
		if err != nil {
			return
		}
		if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			s.br.UnreadByte()
			return
		}
	}
}

// readElem reads one value of the list into elem: an object or a list to
// its closing bracket, a string to its closing quote, anything else to
// the next comma, bracket or space.
func (s *resultScanner) readElem() error {
	s.elem = s.elem[:0]
	depth, inString := 0, false
	for {
		c, err := s.br.ReadByte()
		if err != nil {
			return err
		}
		switch {
		case inString:
			switch c {
			case '\\':
				s.elem = append(s.elem, c)
				if c, err = s.br.ReadByte(); err != nil {
					return err
				}
			case '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			depth++
		case c == '}' || c == ']':
			if depth == 0 {
				return s.br.UnreadByte()
			}
			depth--
		case depth == 0 && (c == ',' || c == ' ' || c == '\t' || c == '\n' || c == '\r'):
			return s.br.UnreadByte()
		}
		s.elem = append(s.elem, c)
		if depth == 0 && !inString && (c == '}' || c == ']' || c == '"') {
			return nil
		}
	}
}

// arena holds the strings of one write list in one allocation: grown at
// first to hold them all, what str returned before stays valid and
// unchanged as it is written on (strings.Builder never writes over its
// bytes), and a list past that size only grows it anew.
type arena struct{ b strings.Builder }

func newArena(size int) *arena {
	a := &arena{}
	a.b.Grow(size)
	return a
}

// str returns v as a string of the arena.
func (a *arena) str(v []byte) string {
	if len(v) == 0 {
		return ""
	}
	start := a.b.Len()
	a.b.Write(v)
	return a.b.String()[start:]
}
