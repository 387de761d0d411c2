package annotate

import (
	"bytes"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"
)

// InertWriter passes a command's own output through to a workflow step's
// log as it comes, each line made inert as InertLine makes it: a line the
// runner would read as a workflow command ("::" first, or "##[" anywhere)
// is shown, marked, and not run, and one the log viewer would show as a
// command the step ran ("[command]" first) is marked. It holds back at most one line (up to
// inertMaxLine bytes) until its end arrives; Close writes what is left.
// It is for one stream; it is not safe for concurrent use.
type InertWriter struct {
	w    io.Writer
	line []byte // the current line, not yet written
	mid  bool   // the start of the current line was written already (a long line)
	err  error
}

// inertMaxLine bounds what is held back of one line; a longer line is
// written in parts, "##[" made inert across them.
const inertMaxLine = 64 << 10

func NewInertWriter(w io.Writer) *InertWriter { return &InertWriter{w: w} }

func (iw *InertWriter) Write(p []byte) (int, error) {
	if iw.err != nil {
		return 0, iw.err
	}
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexAny(p, "\r\n")
		if i < 0 {
			iw.line = append(iw.line, p...)
			if len(iw.line) > inertMaxLine {
				// Write all but the last two bytes, which may begin a
				// "##[" (made inert over the whole, so one that spans
				// the cut is caught; the inert form ends in the same
				// two bytes as the original).
				keep := len(iw.line) - 2
				iw.emit(string(iw.line), "", true)
				iw.line = append(iw.line[:0], iw.line[keep:]...)
				iw.mid = true
			}
			break
		}
		iw.line = append(iw.line, p[:i]...)
		iw.emit(string(iw.line), string(p[i]), false)
		iw.line, iw.mid = iw.line[:0], false
		p = p[i+1:]
	}
	return n, iw.err
}

// emit writes the current line, held so far, made inert, and end, its
// terminator; partial: more of the line is to come, and the last two
// bytes are held back.
func (iw *InertWriter) emit(line, end string, partial bool) {
	var out string
	switch {
	case iw.mid: // its start, where "::" counts, is written already
		out = noLogTags(line)
	case partial && mayBecomeCommand(line):
		out = "·" + noLogTags(line)
	default:
		out = InertLine(line)
	}
	if partial {
		out = out[:len(out)-2]
	}
	if _, err := io.WriteString(iw.w, out+end); err != nil && iw.err == nil {
		iw.err = err
	}
}

// mayBecomeCommand reports whether the start of a line, whose rest is to
// come, could still turn out to be "::" after the spaces the runner trims:
// nothing but spaces yet, a single ':', or a rune cut at the end that may
// decode to a space.
func mayBecomeCommand(start string) bool {
	t := strings.TrimLeftFunc(start, unicode.IsSpace)
	return t == "" || t == ":" || !utf8.FullRuneInString(t)
}

// Close writes the last line if it had no end.
func (iw *InertWriter) Close() error {
	if len(iw.line) > 0 {
		iw.emit(string(iw.line), "", false)
		iw.line = iw.line[:0]
	}
	return iw.err
}
