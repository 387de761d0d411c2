package runner

import (
	"bytes"
	"errors"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// decodeYAML decodes the first YAML document of data into a node tree
// (nil for an empty stream) and returns the start of a second document
// when there is one. err is yaml.v3's syntax error, from either.
func decodeYAML(data []byte) (doc, second *yaml.Node, err error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var d yaml.Node
	if err := dec.Decode(&d); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, nil, nil
		}
		return nil, nil, err
	}
	var d2 yaml.Node
	if err := dec.Decode(&d2); err != nil {
		if errors.Is(err, io.EOF) {
			return &d, nil, nil
		}
		return &d, nil, err
	}
	return &d, &d2, nil
}

// yamlWhereRE is the place yaml.v3 puts at the front of a syntax error
// (after "yaml: "), its zero-based line in the group.
var yamlWhereRE = lazyRE(`^line (\d+): `)

// yamlSearchMax is the largest file whose syntax error is placed by the
// search below (about 20 decodes of up to the whole file).
const yamlSearchMax = 256 << 10

// yamlSyntaxError turns yaml.v3's syntax error into a ConfigError at the
// line where the text stops being valid YAML.
//
// yaml.v3 gives the place only in its text, and for most parser errors
// ("did not find expected key", "did not find expected ',' or ']'") the
// "line N" there is the zero-based line of the enclosing construct's
// start, not where the mistake is: a misindented key on line 5 inside a
// list that starts on line 2 says "line 1". So the line is found by
// decoding prefixes of the file: it is the first line whose addition
// makes the prefix fail with the very error of the whole file (a binary
// search over the lines: the empty prefix decodes, the whole file fails,
// so there is always such a line, found in about log2(lines) decodes).
// The column is the line's first character that is not a space.
func yamlSyntaxError(file string, data []byte, err error) *ConfigError {
	msg := err.Error()
	text := strings.TrimPrefix(msg, "yaml: ")
	where := yamlWhereRE().FindStringSubmatch(text)
	e := &ConfigError{File: file, Msg: "not valid YAML: " + strings.TrimPrefix(text, yamlWhereRE().FindString(text))}
	switch {
	case strings.Contains(text, yamlBadEscape):
		// A regular expression in double quotes ("\d+", "deny\.json"):
		// yaml.v3 names neither the quotes nor the fix.
		e.Msg += ` (in double quotes a backslash starts an escape, \n or \": write a value that holds a backslash, a regular expression's \d, in single quotes, '\d+', or double it, "\\d+")`
	case strings.Contains(text, yamlOpenQuote):
		// The line found below is the one the quote opens on.
		e.Msg += " (a quoted value that starts on this line is never closed)"
	}
	if len(data) > yamlSearchMax {
		// Each decode of the search reads up to the whole file; for a
		// file this large, yaml.v3's own place (zero-based) is enough.
		if where != nil {
			n, _ := strconv.Atoi(where[1])
			e.Line, e.Column = n+1, 1
			e.Msg += " (at the construct that starts here, or after it)"
		}
		return e
	}
	// ends[k] is the end of line k+1 (after its newline).
	var ends []int
	for i := 0; i < len(data); i++ {
		if data[i] == '\n' {
			ends = append(ends, i+1)
		}
	}
	if len(data) > 0 && data[len(data)-1] != '\n' {
		ends = append(ends, len(data))
	}
	fails := func(k int) bool {
		if k == len(ends) {
			return true
		}
		_, _, perr := decodeYAML(data[:ends[k-1]])
		return perr != nil && perr.Error() == msg
	}
	lo, hi := 0, len(ends) // fails(lo) is false (nothing decodes to nothing), fails(hi) true
	if hi == 0 {
		return e
	}
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		if fails(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	start := 0
	if hi > 1 {
		start = ends[hi-2]
	}
	line := data[start:ends[hi-1]]
	indent := len(line) - len(bytes.TrimLeft(line, " "))
	e.Line, e.Column = hi, utf8.RuneCount(line[:indent])+1
	if indent < len(line) && line[indent] == '\t' && strings.Contains(text, yamlNoToken) {
		// yaml.v3 says only that no token starts there.
		e.Msg += " (a tab: YAML indents with spaces)"
	}
	return e
}

// yamlBadEscape and yamlOpenQuote are yaml.v3's errors for a backslash
// in double quotes that starts no escape YAML has, and for a quoted value
// the file ends in.
const (
	yamlBadEscape = "found unknown escape character"
	yamlOpenQuote = "found unexpected end of stream"
)

// yamlNoToken is yaml.v3's error for a character no token may start
// with, a tab among them where it indents a line.
const yamlNoToken = "found character that cannot start any token"
