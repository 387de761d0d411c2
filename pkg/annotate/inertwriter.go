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

// InertLines writes text made inert exactly as InertText makes it, as it
// comes, for text too big to hold whole (a report listing a million
// writes): it holds back the line being written until its end, whatever
// its length, and the lines it has made inert until they fill
// inertLinesBatch or Close writes them, so the writer under it is given
// whole lines only, in few writes (a terminal's colonWriter then sees no
// Colon cut in two). Unlike InertWriter it is not for a command's live
// output: nothing reaches w before its batch fills. It is not safe for
// concurrent use.
type InertLines struct {
	w    io.Writer
	line []byte // the current line, not yet ended
	out  []byte // whole lines made inert, not yet written
	err  error
}

// inertLinesBatch is what InertLines holds of whole lines before writing.
const inertLinesBatch = 64 << 10

func NewInertLines(w io.Writer) *InertLines { return &InertLines{w: w} }

func (l *InertLines) Write(p []byte) (int, error) {
	if l.err != nil {
		return 0, l.err
	}
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexAny(p, "\r\n")
		if i < 0 {
			l.line = append(l.line, p...)
			break
		}
		l.line = append(l.line, p[:i]...)
		l.out = append(append(l.out, InertLine(string(l.line))...), p[i])
		l.line = l.line[:0]
		p = p[i+1:]
	}
	if len(l.out) >= inertLinesBatch {
		l.flush()
	}
	return n, l.err
}

// Close writes what is held: the lines made inert, and the last line if
// it had no end.
func (l *InertLines) Close() error {
	if len(l.line) > 0 {
		l.out = append(l.out, InertLine(string(l.line))...)
		l.line = l.line[:0]
	}
	l.flush()
	return l.err
}

func (l *InertLines) flush() {
	if len(l.out) == 0 || l.err != nil {
		return
	}
	_, l.err = l.w.Write(l.out)
	l.out = l.out[:0]
}
