package annotate

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// cut returns s shortened to at most max characters (runes), ending in a
// visible marker when it was cut. Invalid UTF-8 is replaced first, so the
// result is always valid UTF-8.
func cut(s string, max int) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	const marker = "… (cut)"
	keep := max - utf8.RuneCountInString(marker)
	if keep < 0 {
		keep = 0
	}
	n := 0
	for i := range s {
		if n == keep {
			return s[:i] + marker
		}
		n++
	}
	return s
}

// cutBytes returns s shortened to at most max bytes on a rune boundary,
// with a visible marker when cut.
func cutBytes(s string, max int) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if len(s) <= max {
		return s
	}
	const marker = "… (cut)"
	keep := max - len(marker)
	if keep < 0 {
		keep = 0
	}
	for keep > 0 && !utf8.RuneStart(s[keep]) {
		keep--
	}
	return s[:keep] + marker
}

// oneLine replaces every control character (CR and LF included) with a
// space, so a value can never start a new log or markdown line.
func oneLine(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || r == '\u2028' || r == '\u2029' {
			return ' '
		}
		return r
	}, s)
}

// mdEscapedRunes are replaced by numeric character references in markdown.
// Pipes would split table cells, backticks open code spans, < > & open
// HTML and entities, brackets and parentheses make links and images, the
// emphasis characters restyle text, and ':' '@' '.' are what GitHub's
// autolinking keys on (scheme://, www., user@host), so a hostile host name
// cannot become a clickable link, and '$' opens GitHub's math.
var mdEscapedRunes = map[rune]bool{
	'&': true, '<': true, '>': true, '"': true, '\'': true,
	'|': true, '`': true, '[': true, ']': true, '(': true, ')': true,
	'*': true, '_': true, '~': true, '\\': true, '!': true, '#': true,
	':': true, '@': true, '.': true, '$': true,
}

// md makes an untrusted value safe to place anywhere inside a markdown
// line or table cell of the job summary or a check-run summary: it becomes
// one line of plain text, at most max characters, that renders as itself.
func md(s string, max int) string {
	s = oneLine(cut(s, max))
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		if mdEscapedRunes[r] {
			b.WriteString("&#")
			b.WriteString(strconv.Itoa(int(r)))
			b.WriteByte(';')
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// safeLogLine makes raw hook output safe to print inside a stop-commands
// block: valid UTF-8, no terminal escape sequences or other control
// characters (which could redraw or hide lines), tabs and newlines kept.
// CR becomes a newline, since the runner splits lines on CR as well.
func safeLogLine(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.ReplaceAll(s, "\r\n", "\n")
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\n' || r == '\t':
			return r
		case r == '\r' || r == '\u2028' || r == '\u2029':
			return '\n'
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
			return '\uFFFD'
		}
		return r
	}, s)
}
