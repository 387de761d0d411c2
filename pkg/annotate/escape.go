package annotate

import (
	"fmt"
	"path"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/vigiles/action/internal/textcut"
)

// messageCut is a finding's message, then its evidence on a line of its
// own where there is any, cut to max characters in all: the evidence keeps
// what the message leaves, and at least a third where both are long, so
// that a long one never crowds the message out; each is cut in its middle
// (textcut.Middle). clean makes each safe first (before the cut, which then
// holds: what it writes may be longer). Each line of the evidence after
// its first starts with rawMark, as a hook's lines do in the raw hook
// logs and the text report's evidence lines with "|": the evidence may be
// a hook's output, whose lines must not read as vigiles' own words below
// the message ("vigiles: no finding of this hook's is new").
func messageCut(msg, evidence string, limit int, clean func(string) string) string {
	msg = clean(msg)
	if evidence == "" {
		return textcut.Middle(msg, limit)
	}
	ev := clean("\nevidence: " + evidence)
	ev = "\n" + strings.ReplaceAll(ev[1:], "\n", "\n"+rawMark)
	evMax := min(utf8.RuneCountInString(ev), max(limit/3, limit-utf8.RuneCountInString(msg)))
	return textcut.Middle(msg, limit-evMax) + textcut.Middle(ev, evMax)
}

// CutHost returns the host name (or name:port) h shortened to at most max
// characters by dropping its start, behind a visible marker: what names a
// host is at its end (the domain a name is under, the port), so a long name
// cut from the end would show as the benign name it begins with
// (api.github.com.xxxx….evil.test). Invalid UTF-8 is replaced first.
func CutHost(h string, max int) string {
	h = strings.ToValidUTF8(h, "\uFFFD")
	n := utf8.RuneCountInString(h)
	if n <= max {
		return h
	}
	const marker = "(cut) …"
	drop := n - max + utf8.RuneCountInString(marker)
	for i := range h {
		if drop == 0 {
			return marker + h[i:]
		}
		drop--
	}
	return marker
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

// OneLine is oneLine for callers outside this package: error messages
// that may quote untrusted text, printed as one line of a log.
func OneLine(s string) string { return oneLine(s) }

// oneLine replaces every control character (CR and LF included) with a
// space, so a value can never start a new log or markdown line, and every
// format character (bidi overrides, zero-width joiners and spaces) with
// U+FFFD, so a value cannot display as something else ("Trojan Source").
func oneLine(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || r == '\u2028' || r == '\u2029' {
			return ' '
		}
		if unicode.Is(unicode.Cf, r) {
			return '\uFFFD'
		}
		return r
	}, s)
}

// InertLine makes one line that vigiles prints outside a stop-commands
// block unable to act as a workflow command: the runner takes a line
// whose first non-space characters are "::" as a command, and the legacy
// "##[" anywhere in a line. A line starting with "::" gets a visible "·"
// in front; each "##[" becomes "#·#[". A line starting with a byte order
// mark gets the "·" as well (see byteOrderMark). A line starting with
// "[command]", which the log viewer shows as a command the step ran,
// starts "[·command]" (noCommandTags). Text without those is unchanged.
func InertLine(s string) string {
	s = noCommandTags(noLogTags(s))
	if byteOrderMark(s) || strings.HasPrefix(strings.TrimLeftFunc(s, unicode.IsSpace), "::") {
		s = "·" + s
	}
	return s
}

// byteOrderMark reports whether s starts with a byte order mark that the
// runner's reader of a step's stdout and stderr (.NET's StreamReader with
// detectEncodingFromByteOrderMarks) acts on at the start of the stream:
// UTF-8's is dropped, so "\uFEFF::error::x" there is the command
// "::error::x"; UTF-16's and UTF-32's make it decode the whole stream in
// that encoding, where no line looks like a command to a reader of UTF-8.
// A line is not known to be the first of its stream, so every line that
// starts with one is marked: the "·" in front keeps the stream from
// starting with a byte order mark.
func byteOrderMark(s string) bool {
	for _, bom := range []string{"\xef\xbb\xbf", "\xfe\xff", "\xff\xfe", "\x00\x00\xfe\xff"} {
		if strings.HasPrefix(s, bom) {
			return true
		}
	}
	return false
}

// noLogTags makes each "##[" of s "#·#[": the log viewer styles a line
// that starts with "##[group]", "##[error]" and the like wherever it
// stands, inside a stop-commands block and in the lines the runner writes
// for an annotation.
func noLogTags(s string) string { return strings.ReplaceAll(s, "##[", "#·#[") }

// InertText applies InertLine to every line of s, splitting as the runner
// does (at LF, CR or CRLF), and keeps the line ends.
func InertText(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for len(s) > 0 {
		i := strings.IndexAny(s, "\r\n")
		if i < 0 {
			b.WriteString(InertLine(s))
			break
		}
		b.WriteString(InertLine(s[:i]))
		b.WriteByte(s[i])
		s = s[i+1:]
	}
	return b.String()
}

// InertJSON makes JSON text printed outside a stop-commands block unable to
// act as a workflow command without changing the data it encodes: "##["
// can only stand inside a string there, where "#\u0023[" decodes to the
// same; a line of indented JSON never starts with "::".
func InertJSON(b []byte) []byte {
	return []byte(strings.ReplaceAll(string(b), "##[", "#\\u0023["))
}

// Colon is what vigiles writes for ':' in text a plugin chose, and after a
// label of its own that such text follows: U+A789 MODIFIER LETTER COLON,
// which reads as ':' and is not one to a problem matcher. See NoMatch.
const Colon = "\uA789"

// NoMatch makes untrusted text that vigiles quotes in a log line of its own
// unable to complete the shape a problem matcher looks for, by making each
// ':' of it a Colon. Problem matchers, which earlier steps of the job
// register (actions/setup-go's "go", setup-node's "tsc" and "eslint-*",
// compilers'), are regular expressions the runner applies to every line of
// a step's output that is not a workflow command, inside a stop-commands
// block too; a match becomes an annotation with the line's own text: a
// plugin named "./main.go:1:1: approved" would make an error annotation on
// main.go. Those patterns key on ':' ("x.go: ", "file:1:2:", "TS2304:",
// ": line 1, col 2").
//
// The caller owns the rest of the line: a ':' of vigiles' own right after
// untrusted text ("NAME: allowed") or right before it ("wrote: NAME") can
// still complete a pattern the text starts or ends, and setup-python's
// matcher needs no ':' at all, only a line that starts `File "…", line 1,
// in …` and one that starts "raise X('…')" after it: untrusted text must
// not start a line.
func NoMatch(s string) string { return strings.ReplaceAll(s, ":", Colon) }

// NoMatchJSON does to JSON text what NoMatch does to plain text without
// changing the data it encodes: each ':' inside a string becomes "\u003a".
// A ':' between a key and its value stays: it follows a closing quote,
// never text a plugin chose. Each format character inside a string (a
// bidi override, a zero-width one, a byte order mark) becomes its \u
// escape too, so that no name a plugin chose displays as other text, or
// reorders the line, where a terminal or a log shows the JSON; and so
// does each control character encoding/json leaves as it is, DEL and the
// C1 controls (U+0080–U+009F: U+009B is CSI, U+009D OSC, to a terminal
// that reads C1 in UTF-8), so that none acts on a terminal. b must be
// valid JSON.
func NoMatchJSON(b []byte) []byte {
	out := make([]byte, 0, len(b))
	inString, escaped := false, false
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case c == '"':
			inString = !inString
		case inString && c == ':':
			out = append(out, `\u003a`...)
			continue
		case inString && c == 0x7f:
			out = append(out, `\u007f`...)
			continue
		case inString && c >= utf8.RuneSelf:
			r, n := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError || !unicode.Is(unicode.Cf, r) && !(r >= 0x80 && r <= 0x9f) {
				break
			}
			for _, u := range utf16.Encode([]rune{r}) {
				out = fmt.Appendf(out, `\u%04x`, u)
			}
			i += n - 1
			continue
		}
		out = append(out, c)
	}
	return out
}

// treePath returns p as a path inside the repository (one line, relative,
// cleaned), or false for an empty path, an absolute one, or one that
// climbs out of the tree: such a path names nothing GitHub can show, and
// may reveal the runner's layout. The path returned is the one checked:
// uncleaned, ".///host/x" would pass the check and still become the
// SARIF uri "//host/x" once its "./" is trimmed. A path that one line
// cannot hold as it is (a control or format character in a name, invalid
// UTF-8) is false too: flattened, it could name another file (".claude/q\nq"
// shown as ".claude/q q", a benign file beside it), where the annotation
// would land while the file the finding is about had none.
func treePath(p string) (string, bool) {
	if oneLine(p) != p || strings.ContainsRune(p, '\\') {
		// A backslash too: a reader that takes it for Windows'
		// separator would land ..\..\x on another file.
		return "", false
	}
	p = strings.TrimPrefix(p, "./")
	if p == "" || path.IsAbs(p) {
		return "", false
	}
	c := path.Clean(p)
	if c == "." || c == ".." || strings.HasPrefix(c, "../") {
		return "", false
	}
	return c, true
}

// anchorFile is where a finding without a file of its own is placed: def
// where it is a path inside the repository, else the policy file's usual
// name, so that a policy read from outside the repository (an absolute
// config input) never becomes an annotation's file or a SARIF uri.
func anchorFile(def string) string {
	if p, ok := treePath(def); ok {
		return p
	}
	return ".vigiles.yml"
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
	rs := []rune(oneLine(textcut.Middle(s, max)))
	var b strings.Builder
	b.Grow(len(rs))
	hexRun := 0
	for i, r := range rs {
		// GitHub also links "GH-123" and a commit's hash (seven hex
		// digits or more) in the text it renders: a zero-width space
		// after "GH" and inside every run of hex digits keeps them text.
		if isHexDigit(r) {
			if hexRun == 6 {
				b.WriteString("&#8203;")
				hexRun = 0
			}
			hexRun++
		} else {
			hexRun = 0
		}
		if r == '-' && i >= 2 && unicode.ToUpper(rs[i-2]) == 'G' && unicode.ToUpper(rs[i-1]) == 'H' {
			b.WriteString("&#8203;")
		}
		if mdEscapedRunes[r] {
			b.WriteString("&#")
			b.WriteString(strconv.Itoa(int(r)))
			b.WriteByte(';')
			if r == '@' || r == '#' || r == ':' && opensShortcode(rs[i+1:]) {
				// GitHub links @user and #123, and draws :name: as an
				// emoji, in the text it renders, after character
				// references are decoded: a zero-width space after the
				// sign keeps it text.
				b.WriteString("&#8203;")
			}
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// opensShortcode reports whether rest, what follows a ':', would make it
// open an emoji shortcode (:rocket:, :+1:, :100:): a name, then another
// ':', or a name not all digits at the value's end, where the text placed
// after it may begin with one (a run's outcome, then ": " and its
// reason). A port at the end (host:443) is left as it is.
func opensShortcode(rest []rune) bool {
	digits := true
	for i, r := range rest {
		switch {
		case '0' <= r && r <= '9':
		case 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || r == '_' || r == '+' || r == '-':
			digits = false
		case r == ':':
			return i > 0
		default:
			return false
		}
	}
	return len(rest) > 0 && !digits
}

func isHexDigit(r rune) bool {
	return '0' <= r && r <= '9' || 'a' <= r && r <= 'f' || 'A' <= r && r <= 'F'
}

// safeLogLine makes raw hook output safe to print inside a stop-commands
// block: valid UTF-8, no terminal escape sequences or other control
// characters (which could redraw or hide lines), no format characters
// (which could make text display as other text), tabs and newlines kept.
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
		case unicode.Is(unicode.Cf, r): // bidi overrides, zero-width characters
			return '\uFFFD'
		}
		return r
	}, s)
}
