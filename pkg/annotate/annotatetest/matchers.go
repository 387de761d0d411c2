package annotatetest

import (
	"regexp"
	"strings"
	"unicode"
)

// Issue is an annotation the runner makes of a plain line of a step's
// output through a problem matcher (actions/runner OutputManager), not
// through a workflow command. Line and Column are as the pattern caught
// them, "" when it caught none.
type Issue struct {
	Owner                                   string
	File, Line, Column, Severity, Code, Msg string
	// Text is the line that completed the match.
	Text string
}

// pattern is one line of a problem matcher; a group index 0 takes nothing.
type pattern struct {
	re                                      *regexp.Regexp
	file, line, column, severity, code, msg int
	loop                                    bool
}

// problemMatcher is one registered matcher: one pattern, or several that
// must match lines in a row. It keeps the lines matched so far, as the
// runner's IssueMatcher does.
type problemMatcher struct {
	owner    string
	patterns []pattern
	state    []*Issue // state[i]: what patterns[0..i] caught, line by line
}

// The problem matchers the setup actions most workflows start with
// register for the whole job (copied from each action's repository):
//
//   - go: actions/setup-go matchers.json, v2.1.5 onwards (v3–v7). It is
//     anchored, but ".+" takes any start of a line, so any line holding
//     ".go:" and a space after it matches.
//   - go, v2.0.2–v2.1.4: the same with a path that starts with "/", "./"
//     or "../".
//   - go, unanchored: an earlier form from setup-go's history (commit
//     0a62a73), never tagged, kept as the loosest of the three.
//   - tsc, eslint-stylish, eslint-compact: actions/setup-node .github/.
//   - python: actions/setup-python .github/python.json.
//
// The three forms of "go" never stand together in a job (a matcher
// registered under an owner replaces the last); here they do, so that a
// line none of them takes is safe whichever setup-go a workflow pins.
// actions/setup-dotnet's csc matcher uses a lookbehind Go cannot compile;
// it keys on "(line,col): error CS1234:" as tsc does on "TS1234:".
func newMatchers() []*problemMatcher {
	one := func(owner, re string, file, line, column, severity, code, msg int) *problemMatcher {
		return &problemMatcher{owner: owner, patterns: []pattern{{re: ecma(re), file: file, line: line, column: column, severity: severity, code: code, msg: msg}}}
	}
	ms := []*problemMatcher{
		one("go", `^\s*(.+\.go):(?:(\d+):(\d+):)? (.*)`, 1, 2, 3, 0, 0, 4),
		one("go (v2.0.2–v2.1.4)", `^\s*(\.{0,2}[\/\\].+\.go):(?:(\d+):(\d+):)? (.*)`, 1, 2, 3, 0, 0, 4),
		one("go (unanchored)", `((?:\.{0,2}\/|\.{0,2}\\)(?:.+\.go)):(?:(\d+):(\d+):)? (.*)`, 1, 2, 3, 0, 0, 4),
		one("tsc", `^([^\s].*)[\(:](\d+)[,:](\d+)(?:\):\s+|\s+-\s+)(error|warning|info)\s+TS(\d+)\s*:\s*(.*)$`, 1, 2, 3, 4, 5, 6),
		one("eslint-compact", `^(.+):\sline\s(\d+),\scol\s(\d+),\s([Ee]rror|[Ww]arning|[Ii]nfo)\s-\s(.+)\s\((.+)\)$`, 1, 2, 3, 4, 6, 5),
		{owner: "eslint-stylish", patterns: []pattern{
			{re: ecma(`^\s*([^\s].*)$`), file: 1},
			{re: ecma(`^\s+(\d+):(\d+)\s+(error|warning|info)\s+(.*)\s\s+(.*)$`), line: 1, column: 2, severity: 3, msg: 4, code: 5, loop: true},
		}},
		{owner: "python", patterns: []pattern{
			{re: ecma(`^\s*File\s\"(.*)\",\sline\s(\d+),\sin\s(.*)$`), file: 1, line: 2},
			{re: ecma(`^\s*raise\s(.*)\(\'(.*)\'\)$`), msg: 2},
		}},
	}
	for _, m := range ms {
		m.reset()
	}
	return ms
}

// ecma compiles a pattern as the runner does (.NET, RegexOptions.ECMAScript)
// in Go's syntax. The one construct of these patterns that means something
// else in Go is \s: ECMAScript's takes \v too.
func ecma(re string) *regexp.Regexp {
	var b strings.Builder
	inClass := false
	for i := 0; i < len(re); i++ {
		c := re[i]
		if c == '\\' && i+1 < len(re) {
			switch {
			case re[i+1] == 's' && inClass:
				b.WriteString(`\t\n\v\f\r `)
			case re[i+1] == 's':
				b.WriteString(`[\t\n\v\f\r ]`)
			default:
				b.WriteString(re[i : i+2])
			}
			i++
			continue
		}
		switch c {
		case '[':
			inClass = true
		case ']':
			inClass = false
		}
		b.WriteByte(c)
	}
	return regexp.MustCompile(b.String())
}

func (m *problemMatcher) reset() { m.state = make([]*Issue, len(m.patterns)-1) }

// match is the runner's IssueMatcher.Match: a single pattern matches one
// line; several match in a row, the last one looping over further lines
// when it says so.
func (m *problemMatcher) match(line string) *Issue {
	if len(m.patterns) == 1 {
		if g := m.patterns[0].re.FindStringSubmatch(line); g != nil {
			return m.patterns[0].take(nil, g, m.owner, line)
		}
		return nil
	}
	for i := len(m.patterns) - 1; i >= 0; i-- {
		var running *Issue
		if i > 0 {
			running = m.state[i-1]
			if running == nil {
				continue
			}
		}
		p, last := m.patterns[i], i == len(m.patterns)-1
		g := p.re.FindStringSubmatch(line)
		switch {
		case g != nil && last:
			m.reset()
			if p.loop {
				m.state[i-1] = running
			}
			return p.take(running, g, m.owner, line)
		case g != nil:
			m.state[i] = p.take(running, g, m.owner, line)
		case last:
			m.state[i-1] = nil
		default:
			m.state[i] = nil
		}
	}
	return nil
}

// take fills what the pattern caught into what earlier lines caught
// (which wins, as in the runner's IssueMatch).
func (p pattern) take(running *Issue, g []string, owner, line string) *Issue {
	is := Issue{Owner: owner, Text: line}
	if running != nil {
		is = *running
		is.Text = line
	}
	set := func(dst *string, i int) {
		if *dst == "" && i > 0 && i < len(g) {
			*dst = g[i]
		}
	}
	set(&is.File, p.file)
	set(&is.Line, p.line)
	set(&is.Column, p.column)
	set(&is.Severity, p.severity)
	set(&is.Code, p.code)
	set(&is.Msg, p.msg)
	return &is
}

// annotates says whether the runner makes an annotation of a match
// (OutputManager.ConvertToIssue): only with a message, and a severity of
// error (or none), warning or notice.
func (is *Issue) annotates() bool {
	if strings.TrimFunc(is.Msg, unicode.IsSpace) == "" {
		return false
	}
	switch strings.ToLower(is.Severity) {
	case "", "error", "warning", "notice":
		return true
	}
	return false
}

// registeredCommands are the workflow commands the runner processes
// (actions/runner ActionCommandManager and its extensions). A line naming
// any other is plain output, and the matchers read it.
var registeredCommands = map[string]bool{
	"stop-commands": true, "set-env": true, "set-output": true, "save-state": true, "add-mask": true,
	"add-path": true, "add-matcher": true, "remove-matcher": true, "debug": true, "warning": true,
	"error": true, "notice": true, "group": true, "endgroup": true, "echo": true,
}

// parseCommand returns the name and data of the command a line is, in the
// "::" form or the legacy "##[" one, as ActionCommand.TryParseV2 and
// TryParse read it; ok is false when the line is neither.
func parseCommand(line string) (name, data string, ok bool) {
	if t := strings.TrimLeftFunc(line, unicode.IsSpace); strings.HasPrefix(t, "::") {
		if end := strings.Index(t[2:], "::"); end >= 0 {
			name, _, _ = strings.Cut(t[2:2+end], " ")
			return name, t[2+end+2:], true
		}
	}
	if i := strings.Index(line, "##["); i >= 0 {
		if end := strings.IndexByte(line[i:], ']'); end >= 0 {
			name, _, _ = strings.Cut(line[i+3:i+end], " ")
			return name, line[i+end+1:], true
		}
	}
	return "", "", false
}

// Issues reads one stream of a step's output (stdout or stderr: the
// runner gives each its own matchers' state) as the runner does and
// returns the annotations the problem matchers listed above would make of
// it. A line the runner processes as a workflow command never reaches
// them; every other line does, those between ::stop-commands::TOKEN and
// ::TOKEN:: included: there the runner processes no command but the one
// that ends the block, and the matchers run on the rest.
func Issues(log string) []Issue {
	ms := newMatchers()
	var out []Issue
	stop := ""
	for _, line := range lineSplit.Split(decodeStream(log), -1) {
		name, data, isCmd := parseCommand(line)
		switch {
		case isCmd && stop != "" && strings.EqualFold(name, stop):
			stop = ""
			continue
		case isCmd && stop == "" && registeredCommands[strings.ToLower(name)]:
			if strings.EqualFold(name, "stop-commands") {
				stop = data
			}
			continue
		}
		for _, m := range ms {
			is := m.match(line)
			if is == nil {
				continue
			}
			for _, other := range ms {
				if other != m {
					other.reset()
				}
			}
			if is.annotates() {
				out = append(out, *is)
				break
			}
		}
	}
	return out
}
