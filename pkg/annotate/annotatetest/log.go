package annotatetest

import (
	"encoding/binary"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf16"
)

// Command is a workflow command as the runner reads it. Name is
// "<resume>" for the line that ends a stop-commands block and "<legacy>"
// for the old "##[" form.
type Command struct {
	Name  string
	Props map[string]string
	Data  string
}

var lineSplit = regexp.MustCompile(`\r\n|\r|\n`)

func unescapeData(s string) string {
	return strings.NewReplacer("%0D", "\r", "%0A", "\n", "%25", "%").Replace(s)
}

func unescapeProp(s string) string {
	return strings.NewReplacer("%0D", "\r", "%0A", "\n", "%3A", ":", "%2C", ",", "%25", "%").Replace(s)
}

// Commands reads a step log as actions/runner does: lines end at CR, LF
// or CRLF; a line whose first non-space characters are "::" (and that has
// a closing "::") is a command, and so is any other line holding the
// legacy "##[" anywhere (the runner looks for it with IndexOf), except
// between ::stop-commands::TOKEN and a line
// ::TOKEN:: (compared case-insensitively, as the runner does).
//
// log is read as one stream from its start: like the runner's reader
// (.NET's StreamReader, which detects byte order marks), it drops a UTF-8
// byte order mark there and decodes the whole log as UTF-16 or UTF-32 when
// it starts with one of theirs.
func Commands(log string) []Command {
	log = decodeStream(log)
	var out []Command
	stop := ""
	for _, raw := range lineSplit.Split(log, -1) {
		line := strings.TrimLeftFunc(raw, unicode.IsSpace)
		if stop != "" {
			if strings.EqualFold(strings.TrimSpace(line), "::"+stop+"::") {
				out = append(out, Command{Name: "<resume>", Data: stop})
				stop = ""
			}
			continue
		}
		// The runner tries the "::" form first; only a line that is not
		// one is searched for the legacy "##[".
		end := -1
		if strings.HasPrefix(line, "::") {
			end = strings.Index(line[2:], "::")
		}
		if end < 0 {
			if strings.Contains(line, "##[") {
				out = append(out, Command{Name: "<legacy>", Data: line})
			}
			continue
		}
		header, data := line[2:2+end], line[2+end+2:]
		name, props, _ := strings.Cut(header, " ")
		c := Command{Name: name, Data: unescapeData(data), Props: map[string]string{}}
		if props != "" {
			for _, kv := range strings.Split(props, ",") {
				k, v, _ := strings.Cut(kv, "=")
				c.Props[k] = unescapeProp(v)
			}
		}
		if name == "stop-commands" {
			stop = c.Data
		}
		out = append(out, c)
	}
	return out
}

// decodeStream reads the start of a stream as .NET's StreamReader does
// with detectEncodingFromByteOrderMarks, as the runner reads a step's
// stdout and stderr.
func decodeStream(s string) string {
	b := []byte(s)
	switch {
	case strings.HasPrefix(s, "\xef\xbb\xbf"):
		return s[3:]
	case strings.HasPrefix(s, "\x00\x00\xfe\xff"):
		return decode32(b[4:], binary.BigEndian)
	case strings.HasPrefix(s, "\xff\xfe\x00\x00"):
		return decode32(b[4:], binary.LittleEndian)
	case strings.HasPrefix(s, "\xfe\xff"):
		return decode16(b[2:], binary.BigEndian)
	case strings.HasPrefix(s, "\xff\xfe"):
		return decode16(b[2:], binary.LittleEndian)
	}
	return s
}

func decode16(b []byte, order binary.ByteOrder) string {
	u := make([]uint16, 0, len(b)/2)
	for ; len(b) >= 2; b = b[2:] {
		u = append(u, order.Uint16(b))
	}
	return string(utf16.Decode(u))
}

func decode32(b []byte, order binary.ByteOrder) string {
	var r []rune
	for ; len(b) >= 4; b = b[4:] {
		r = append(r, rune(order.Uint32(b)))
	}
	return string(r)
}
