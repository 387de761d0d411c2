package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"
	"sync/atomic"
	"unicode/utf8"

	"golang.org/x/sys/unix"

	"github.com/vigiles/action/pkg/annotate"
	"github.com/vigiles/action/pkg/evidence"
)

// A terminalWriter passes a command's output to a terminal with every
// control a terminal would act on shown instead of sent: ESC (colours,
// cursor moves, the window title, OSC 52's clipboard writes, a switch to
// the alternate screen or to concealed text that would hide the report),
// the other C0 controls but tab, newline and carriage return, DEL, and
// the C1 controls (U+0080–U+009F, and their raw bytes outside UTF-8,
// which a terminal in an 8-bit locale takes as CSI or OSC). C0 controls
// are shown in caret notation (ESC as ^[, DEL as ^?), C1 controls as
// \u009b or \x9b. The rest, invalid UTF-8 included, passes unchanged.
//
// It holds back at most the three first bytes of a character cut by the
// end of a write; Close writes them. It is for one stream and not safe
// for concurrent use.
type terminalWriter struct {
	w    io.Writer
	held []byte
	buf  []byte
	err  error
}

func newTerminalWriter(w io.Writer) *terminalWriter { return &terminalWriter{w: w} }

func (t *terminalWriter) Write(p []byte) (int, error) {
	if t.err != nil {
		return 0, t.err
	}
	n := len(p)
	if len(t.held) > 0 {
		p = append(t.held, p...)
		t.held = nil
	}
	t.buf = t.buf[:0]
	for len(p) > 0 {
		if !utf8.FullRune(p) {
			t.held = append([]byte(nil), p...)
			break
		}
		r, size := utf8.DecodeRune(p)
		t.buf = appendShown(t.buf, r, size, p[0])
		p = p[size:]
	}
	t.write(t.buf)
	return n, t.err
}

// appendShown appends one character to b as a terminal may see it: r, of
// size bytes in the source starting with first, or its shown form when
// it is a control (isControl).
func appendShown(b []byte, r rune, size int, first byte) []byte {
	if !isControl(r, size, first) {
		if r == utf8.RuneError && size == 1 {
			return append(b, first)
		}
		return utf8.AppendRune(b, r)
	}
	switch {
	case r < 0x20:
		return append(b, '^', byte(r)+'@')
	case r == 0x7f:
		return append(b, '^', '?')
	case r == utf8.RuneError && size == 1:
		return fmt.Appendf(b, `\x%02x`, first)
	}
	return fmt.Appendf(b, `\u%04x`, r)
}

// isControl says whether the character r, of size bytes in the source
// starting with first, is one a terminal acts on: a C0 control but tab,
// newline and carriage return, DEL, a C1 control, or a raw byte of the
// C1 range outside UTF-8.
func isControl(r rune, size int, first byte) bool {
	switch {
	case r == '\t' || r == '\n' || r == '\r':
		return false
	case r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f):
		return true
	case r == utf8.RuneError && size == 1:
		return first <= 0x9f
	}
	return false
}

func (t *terminalWriter) write(b []byte) {
	if len(b) == 0 || t.err != nil {
		return
	}
	if _, err := t.w.Write(b); err != nil {
		t.err = err
	}
}

// Close writes the bytes held back, which never became a whole
// character, each as appendShown shows an invalid byte.
func (t *terminalWriter) Close() error {
	var b []byte
	for _, c := range t.held {
		b = appendShown(b, utf8.RuneError, 1, c)
	}
	t.held = nil
	t.write(b)
	return t.err
}

// termReset ends what a command's controls may have left a terminal in,
// for what follows them: ST ends a string it left open (OSC, DCS, APC),
// where a terminal would take in the text after it unshown; SI and ESC ( B
// give back the ASCII character set a SO or an ESC ( 0 switched from; SGR
// 0 ends concealed text, colours and the rest. Written before the report
// of a run whose output (controlWatch) held a control and went, as it
// was, to a pipe or a file, which a terminal may show later (cat run.log):
// there the report, which comes last, stays readable.
const termReset = "\x1b\\\x0f\x1b(B\x1b[0m"

// A controlWatch passes a command's output on unchanged and notes, in
// seen, whether it held a control a terminal acts on (isControl: what a
// terminalWriter shows instead of sending). It passes every byte on at
// once; a character cut by the end of a write is read with the next
// write's start. It is for one stream; seen may be shared.
type controlWatch struct {
	w    io.Writer
	seen *atomic.Bool
	held []byte
}

func (c *controlWatch) Write(p []byte) (int, error) {
	if !c.seen.Load() {
		b := p
		if len(c.held) > 0 {
			b = append(c.held, p...)
			c.held = nil
		}
		for len(b) > 0 {
			if !utf8.FullRune(b) {
				c.held = append([]byte(nil), b...)
				break
			}
			r, size := utf8.DecodeRune(b)
			if isControl(r, size, b[0]) {
				c.seen.Store(true)
				break
			}
			b = b[size:]
		}
	}
	return c.w.Write(p)
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	return err == nil
}

// ownText is where text of vigiles' own for people goes on w: w itself in
// a step log (GITHUB_ACTIONS=true) or wherever w is no terminal (a pipe or
// a file a later step may print), and there each annotate.Colon that
// stands for a ':' (NoMatch, labelColon, clean) stays one, so that no
// problem matcher reads a line as a compiler's error; on a terminal that
// is no step log, where no problem matcher reads, a writer that makes each
// of them a ':' again, so that a path reads and copies as itself and
// ".claude/settings.json:7:42" stays a link. A U+A789 a plugin chose is
// shown as "\ua789" in that text (clean, quote), so that it is never
// taken for a ':'. Text only: JSON holds U+A789 as data.
func ownText(w io.Writer, getenv func(string) string) io.Writer {
	if getenv("GITHUB_ACTIONS") == "true" || !isTerminal(w) {
		return w
	}
	return colonWriter{w}
}

// colonWriter writes through w with each annotate.Colon a ':'. A Colon
// that two writes split is written as it is, a lookalike: no byte is held
// back.
type colonWriter struct{ w io.Writer }

func (c colonWriter) Write(b []byte) (int, error) {
	if _, err := c.w.Write(bytes.ReplaceAll(b, []byte(annotate.Colon), []byte(":"))); err != nil {
		return 0, err
	}
	return len(b), nil
}

// shownControls is s with every character a terminal could act on, or
// that could make the text read as other text, shown instead of sent, as
// clean shows it (evidence.Escape, which both call): \u001b for ESC (an
// OSC 52 clipboard write, a title, a cursor move), \u000d for a carriage
// return that would write over the line's start, \u202e for a bidi
// override, \xff for a byte that is not UTF-8. For errors, which quote
// names a plugin or a repository chose among vigiles' own words
// (printError), and where clean differs, on purpose: line feeds and tabs
// stay (an error's lines, indented by printError, and its own layout),
// where clean shows \n and a space in a report's one-line fields; and so
// does every other character, a backslash and a ':' included, where
// clean makes a ':' an annotate.Colon for a step log (printError does
// that to the whole error there) and cleanName doubles a name's
// backslash: an error's own words and the Go quotes in them (%q, which
// names are in) read as written.
func shownControls(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for i, r := range s {
		if esc, ok := evidence.Escape(s, i, r); ok && r != '\n' && r != '\t' {
			b.WriteString(esc)
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}
