package egress

import (
	"encoding/binary"
	"errors"
	"fmt"
	"iter"
	"strings"
)

// ErrBadDNS is wrapped by every error parseQuery returns.
var ErrBadDNS = errors.New("malformed dns query")

// dnsQuestion is the first question of a DNS query as the stub sees it
// (moreQuestions yields the others).
type dnsQuestion struct {
	ID    uint16
	Flags uint16
	// Name is the question name in presentation form, lower case, without
	// the trailing dot ("." for the root); every byte outside [a-z0-9-_*]
	// inside a label (a dot, a quote, a newline, non-ASCII...) is written
	// \DDD as in RFC 1035 §5.1, so it is printable ASCII and unambiguous.
	Name string
	// LDH reports whether every label is plain letters, digits, '-' and
	// '_' (only such names can match the allowlist).
	LDH   bool
	Type  uint16
	Class uint16
	// Raw is the question section as sent (name, type, class), for echoing
	// in an answer; nil when the name used compression.
	Raw []byte
}

// dnsMaxPointers bounds compression pointers followed in one name.
const dnsMaxPointers = 16

// parseQuery parses the header and first question of a DNS message. It
// accepts compression pointers (bounded) and rejects responses, messages
// without a question and names longer than 255 wire bytes. On an error, ID
// and Flags are set where the message holds a header, and Name holds what
// could be read of the first question's name (the labels before the one
// that is no label), for the record of a malformed query.
func parseQuery(b []byte) (dnsQuestion, error) {
	var q dnsQuestion
	if len(b) < 12 {
		return q, fmt.Errorf("%d bytes, shorter than a header: %w", len(b), ErrBadDNS)
	}
	q.ID = binary.BigEndian.Uint16(b[0:2])
	q.Flags = binary.BigEndian.Uint16(b[2:4])
	if q.Flags&0x8000 != 0 {
		return q, fmt.Errorf("a response, not a query: %w", ErrBadDNS)
	}
	if binary.BigEndian.Uint16(b[4:6]) == 0 {
		return q, fmt.Errorf("no question: %w", ErrBadDNS)
	}
	name, ldh, end, err := readName(b, 12)
	q.Name = name
	if err != nil {
		return q, err
	}
	if len(b) < end+4 {
		return q, fmt.Errorf("question truncated: %w", ErrBadDNS)
	}
	q.LDH = ldh
	q.Type = binary.BigEndian.Uint16(b[end : end+2])
	q.Class = binary.BigEndian.Uint16(b[end+2 : end+4])
	if b[end-1] == 0 && (end-12 == 1 || b[end-2]&0xc0 != 0xc0) { // conservative: no pointer was used
		q.Raw = b[12 : end+4]
	}
	return q, nil
}

// moreQuestions yields the questions after the first of the query b (one
// parseQuery accepted), one at a time, so that a message packed with
// compressed names never becomes a slice of long names. It stops at the
// question count or at the first question it cannot read (what follows is
// not a question). Only Name, LDH, Type and Class are set.
func moreQuestions(b []byte) iter.Seq[dnsQuestion] {
	return func(yield func(dnsQuestion) bool) {
		if len(b) < 12 {
			return
		}
		count := int(binary.BigEndian.Uint16(b[4:6]))
		if count < 2 {
			return
		}
		off := 12
		for i := 0; i < count; i++ {
			name, ldh, end, err := readName(b, off)
			if err != nil || len(b) < end+4 {
				return
			}
			off = end + 4
			if i == 0 {
				continue
			}
			q := dnsQuestion{Name: name, LDH: ldh,
				Type: binary.BigEndian.Uint16(b[end : end+2]), Class: binary.BigEndian.Uint16(b[end+2 : end+4])}
			if !yield(q) {
				return
			}
		}
	}
}

// readName reads a (possibly compressed) name at off and returns its
// presentation form and the offset just after it in the original message.
// On an error the name is what could be read before it ("" when nothing
// could), never reported LDH.
func readName(b []byte, off int) (string, bool, int, error) {
	var sb strings.Builder
	ldh := true
	end := -1
	wire := 0
	for ptrs := 0; ; {
		if off >= len(b) {
			return sb.String(), false, 0, fmt.Errorf("name runs past the message: %w", ErrBadDNS)
		}
		l := int(b[off])
		switch {
		case l == 0:
			if end < 0 {
				end = off + 1
			}
			if wire+1 > 255 {
				return sb.String(), false, 0, fmt.Errorf("name longer than 255 bytes: %w", ErrBadDNS)
			}
			if sb.Len() == 0 {
				// The root: "." as in presentation form, not an empty
				// host that names nothing in the record.
				return ".", false, end, nil
			}
			return sb.String(), ldh, end, nil
		case l&0xc0 == 0xc0:
			if off+1 >= len(b) {
				return sb.String(), false, 0, fmt.Errorf("pointer truncated: %w", ErrBadDNS)
			}
			if ptrs++; ptrs > dnsMaxPointers {
				return sb.String(), false, 0, fmt.Errorf("too many compression pointers: %w", ErrBadDNS)
			}
			if end < 0 {
				end = off + 2
			}
			off = int(binary.BigEndian.Uint16(b[off:off+2]) & 0x3fff)
		case l&0xc0 != 0:
			return sb.String(), false, 0, fmt.Errorf("label type %#x: %w", l&0xc0, ErrBadDNS)
		default:
			if off+1+l > len(b) {
				return sb.String(), false, 0, fmt.Errorf("label runs past the message: %w", ErrBadDNS)
			}
			if wire += 1 + l; wire > 255 {
				return sb.String(), false, 0, fmt.Errorf("name longer than 255 bytes: %w", ErrBadDNS)
			}
			if sb.Len() > 0 {
				sb.WriteByte('.')
			}
			for _, c := range b[off+1 : off+1+l] {
				if !writeNameByte(&sb, c) {
					ldh = false
				}
			}
			off += 1 + l
		}
	}
}

// writeNameByte writes one byte of a label in the record's form of a name
// (dnsQuestion.Name): an ASCII letter lowered, a digit, '-', '_' or '*' as
// it is, any other byte as \DDD. It reports whether the byte is a letter,
// digit, '-' or '_'.
func writeNameByte(sb *strings.Builder, c byte) bool {
	if c >= 'A' && c <= 'Z' {
		c += 'a' - 'A'
	}
	switch {
	case c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_':
		sb.WriteByte(c)
		return true
	case c == '*':
		sb.WriteByte(c)
	default:
		fmt.Fprintf(sb, "\\%03d", c)
	}
	return false
}

// hostText writes a host name a proxy request gave (its labels separated
// by dots) as the DNS stub writes the same name asked of it, so that a
// destination reads the same whichever way it was seen, and holds no space,
// comma or parenthesis that a report listing hosts could take for its own
// text. Of a longer name (a DNS name has at most 255 bytes) the first
// maxRecorded bytes are written.
func hostText(s string) string {
	var sb strings.Builder
	for i := 0; i < len(s) && i < maxRecorded; i++ {
		if s[i] == '.' {
			sb.WriteByte('.')
			continue
		}
		writeNameByte(&sb, s[i])
	}
	return sb.String()
}
