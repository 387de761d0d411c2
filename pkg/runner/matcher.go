package runner

import (
	"errors"
	"fmt"
	"path"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"unicode"

	"github.com/vigiles/action/pkg/sandbox"
)

// ErrUnsupportedMatcher marks a matcher vigiles cannot evaluate as Claude
// Code's JavaScript engine does: syntax it accepts and Go's RE2 does not
// (lookaround, backreferences), or syntax RE2 reads otherwise than it
// (goOnlySyntax). Such a matcher is treated as matching everything, so
// that a hook cannot hide from an audit behind syntax vigiles does not
// understand.
var ErrUnsupportedMatcher = errors.New("regular-expression syntax vigiles cannot evaluate as Claude Code does")

// Matcher is a compiled Claude Code matcher.
type Matcher struct {
	all   bool
	exact []string
	re    *regexp.Regexp
	// invalid matchers never match.
	invalid bool
	// tools says the matcher is a tool event's: a tool's earlier names
	// (legacyToolNames) select it too.
	tools bool
}

// legacyToolNames holds, by a tool's name, the names it had before
// (Agent was Task until Claude Code 2.1.63): a tool event's matcher that
// names one, exactly or by a regular expression, selects the tool, as
// Claude Code resolves the alias (resolveToolNameAlias,
// getBuiltinLegacyToolNames), and the call's tool_name is the current
// one.
var legacyToolNames = map[string][]string{"Agent": {"Task"}}

// currentToolName is the name Claude Code calls the tool name names now
// (Task is Agent), name itself where it is no earlier name.
func currentToolName(name string) string {
	for cur, old := range legacyToolNames {
		if slices.Contains(old, name) {
			return cur
		}
	}
	return name
}

// plainMatcher reports whether a matcher has only the characters (letters,
// digits, '_', '-', space, ',' and '|') that Claude Code compares as an
// exact name or a list of exact names.
func plainMatcher(s string) bool {
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '-', r == '|', r == ',', r == ' ':
		default:
			return false
		}
	}
	return true
}

// CompileMatcher compiles a matcher as Claude Code applies it (hooks.md,
// "Matcher patterns"): "", "*" and ".*" match everything; a string of
// letters, digits, '_', '-', spaces, ',' and '|' is an exact name or a
// list of exact names separated by '|' or ',' with optional whitespace
// around each ("Edit, Write" selects Edit and Write, not MultiEdit);
// anything else is an unanchored regular expression. An invalid regex
// returns an error and a Matcher that never matches.
//
// FileChanged and StopFailure keep the narrower exact set of letters,
// digits, '_' and '|': see compileMatcherFor.
func CompileMatcher(s string) (*Matcher, error) {
	return compileMatcher(s, false)
}

// compileMatcherFor compiles the matcher of a hook of event.
func compileMatcherFor(event, s string) (*Matcher, error) {
	m, err := compileMatcher(s, event == FileChanged || event == StopFailure)
	m.tools = knownEvents[event].Tool
	return m, err
}

// matchesAll says whether s is a matcher Claude Code reads as matching
// everything: "", "*" or ".*".
func matchesAll(s string) bool { return s == "" || s == "*" || s == ".*" }

func compileMatcher(s string, narrow bool) (*Matcher, error) {
	if matchesAll(s) {
		return &Matcher{all: true}, nil
	}
	if narrow && !strings.ContainsAny(s, "-, ") && plainMatcher(s) {
		return &Matcher{exact: strings.Split(s, "|")}, nil
	}
	if !narrow && plainMatcher(s) {
		var names []string
		for _, n := range strings.FieldsFunc(s, func(r rune) bool { return r == '|' || r == ',' }) {
			if n = strings.TrimSpace(n); n != "" {
				names = append(names, n)
			}
		}
		return &Matcher{exact: names}, nil
	}
	if tok := goOnlySyntax(s); tok != "" {
		// RE2 takes it, and JavaScript, in which Claude Code applies
		// matchers, reads it otherwise or rejects it: which calls it
		// selects there is not known here. An audit runs the hook for
		// every call, as for lookaround.
		return &Matcher{all: true}, fmt.Errorf("matcher %q: %w (it uses %s, which JavaScript, where Claude Code applies matchers, reads otherwise or rejects)", s, ErrUnsupportedMatcher, tok)
	}
	re, err := regexp.Compile(jsIdentityEscapes(s))
	if err != nil {
		var se *syntax.Error
		if errors.As(err, &se) && jsMayAccept(se.Code, s) {
			return &Matcher{all: true}, fmt.Errorf("matcher %q: %w (%v)", s, ErrUnsupportedMatcher, err)
		}
		return &Matcher{invalid: true}, fmt.Errorf("compiling matcher %q: %w", s, err)
	}
	return &Matcher{re: re}, nil
}

// goOnlySyntax returns the first piece of regular expression syntax in s
// that Go's RE2 reads one way and JavaScript another, or not at all ("" for
// none): \z \A \Q…\E, POSIX classes, \x{…}, Unicode classes (\p, \P,
// literal letters to a JavaScript regex without the u flag), (?P<name>)
// and inline flags.
func goOnlySyntax(s string) string {
	for _, t := range []string{`\z`, `\A`, `\Q`, `\E`, `\C`, "[[:", `\x{`, `\p`, `\P`, "(?P<", "(?i", "(?s", "(?m", "(?U", "(?-"} {
		if strings.Contains(s, t) {
			return t
		}
	}
	return ""
}

// jsIdentityEscapes rewrites each escaped letter that JavaScript, where
// Claude Code applies matchers (a RegExp without the u flag), reads as the
// letter itself, and that RE2 reads otherwise or rejects, as that letter:
// `B\ash` selects Bash there (RE2's \a is a bell), `Wr\ite` Write (RE2
// rejects \i). The letters JavaScript gives a meaning (\d, \w, \b, \x,
// …), and those goOnlySyntax already answers for, are left as they are.
//
// Outside a class, JavaScript's [^] is any character and [] none, where
// RE2 reads a ']' there as the class's own: they are rewritten so.
func jsIdentityEscapes(s string) string {
	var b strings.Builder
	inClass := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '[' && !inClass && strings.HasPrefix(s[i:], "[^]"):
			b.WriteString(`(?s:.)`)
			i += 2
			continue
		case c == '[' && !inClass && strings.HasPrefix(s[i:], "[]"):
			b.WriteString(`[^\x00-\x{10FFFF}]`)
			i++
			continue
		case c == '[' && !inClass:
			inClass = true
		case c == ']' && inClass:
			inClass = false
		}
		if c != '\\' || i+1 == len(s) {
			b.WriteByte(c)
			continue
		}
		n, rest := s[i+1], s[i+2:]
		i++
		letter := n >= 'a' && n <= 'z' || n >= 'A' && n <= 'Z'
		switch {
		case n == 'u' && len(rest) >= 4 && isHex(rest[:4]):
			// \uHHHH, a code unit: RE2 spells it \x{HHHH}.
			b.WriteString(`\x{` + rest[:4] + "}")
			i += 4
		case n == 'c' && len(rest) >= 1 && (rest[0] >= 'a' && rest[0] <= 'z' || rest[0] >= 'A' && rest[0] <= 'Z'):
			// \cX, a control character.
			fmt.Fprintf(&b, `\x{%x}`, rest[0]%32)
			i++
		case n == 'c':
			// A \c before no letter is a backslash and a c.
			b.WriteString(`\\c`)
		case n == 'u' || n == 'x' && !(len(rest) >= 2 && isHex(rest[:2])) && !strings.HasPrefix(rest, "{") || n == 'k' && !strings.HasPrefix(rest, "<"):
			b.WriteByte(n)
		case letter && !strings.ContainsRune("bBdDfkrnsStvwWxAzpPQEC", rune(n)):
			b.WriteByte(n)
		default:
			b.WriteByte(c)
			b.WriteByte(n)
		}
	}
	return b.String()
}

// isHex says whether s is all hexadecimal digits.
func isHex(s string) bool {
	for _, r := range s {
		if !strings.ContainsRune("0123456789abcdefABCDEF", r) {
			return false
		}
	}
	return true
}

// jsMayAccept guesses whether a regex RE2 rejects (with the error code)
// may be valid JavaScript, where Claude Code applies it as a RegExp
// without the u flag: lookaround, named groups in JS form and
// backreferences; any escape RE2 refuses once jsIdentityEscapes has
// rewritten the letters (\8 and \9 are digits there, \3 with fewer groups
// an octal code, [\b] a backspace, [a-\d] a class of a, '-' and digits:
// JavaScript refuses no escape but a trailing backslash, which RE2 names
// otherwise); a repetition count above RE2's 1000 (x{1001}, or counts
// whose product passes it), which JavaScript refuses only where its
// least count is above its most (x{2,1}); and an expression that nests
// deeper or is larger than RE2 takes, which JavaScript takes.
func jsMayAccept(code syntax.ErrorCode, s string) bool {
	switch code {
	case syntax.ErrInvalidEscape, syntax.ErrNestingDepth, syntax.ErrLarge:
		return true
	case syntax.ErrInvalidRepeatSize:
		return !reversedRepeat(s)
	case syntax.ErrInvalidPerlOp, syntax.ErrInvalidNamedCapture:
		for _, t := range []string{"(?=", "(?!", "(?<=", "(?<!", `\1`, `\2`, `\k<`} {
			if strings.Contains(s, t) {
				return true
			}
		}
	}
	return false
}

// reversedRepeat says whether s holds a repetition {n,m} whose least
// count n is above its most m, which JavaScript refuses as RE2 does.
func reversedRepeat(s string) bool {
	for i := strings.IndexByte(s, '{'); i >= 0; i = strings.IndexByte(s, '{') {
		s = s[i+1:]
		lo, rest, ok := strings.Cut(s, ",")
		hi, _, closed := strings.Cut(rest, "}")
		if !ok || !closed || lo == "" || hi == "" || strings.Trim(lo, "0123456789") != "" || strings.Trim(hi, "0123456789") != "" {
			continue
		}
		if a, b := strings.TrimLeft(lo, "0"), strings.TrimLeft(hi, "0"); len(a) > len(b) || len(a) == len(b) && a > b {
			return true
		}
	}
	return false
}

// Match reports whether the matcher selects name (or, a tool event's,
// one of its earlier names).
func (m *Matcher) Match(name string) bool {
	if m.tools && slices.ContainsFunc(legacyToolNames[name], m.match) {
		return true
	}
	return m.match(name)
}

// match reports whether the matcher selects name as written.
func (m *Matcher) match(name string) bool {
	switch {
	case m.invalid:
		return false
	case m.all:
		return true
	case m.re != nil:
		return m.re.MatchString(name)
	}
	for _, e := range m.exact {
		if e == name {
			return true
		}
	}
	return false
}

// Names returns the exact names of a plain matcher (nil otherwise).
func (m *Matcher) Names() []string { return m.exact }

// Example returns a value a regular-expression matcher selects, built
// from the expression: its literal text, the first alternative of each
// choice, the first character of each class, a repetition's least count,
// and "example" for any run of any character (mcp__memory__.* gives
// mcp__memory__example); "" for a matcher that is no regular expression,
// or where what is built is empty or not selected.
func (m *Matcher) Example() string {
	if m.re == nil {
		return ""
	}
	re, err := syntax.Parse(m.re.String(), syntax.Perl)
	if err != nil {
		return ""
	}
	var b strings.Builder
	var gen func(r *syntax.Regexp)
	anyChar := func(r *syntax.Regexp) bool {
		return r.Op == syntax.OpAnyChar || r.Op == syntax.OpAnyCharNotNL
	}
	gen = func(r *syntax.Regexp) {
		switch r.Op {
		case syntax.OpLiteral:
			b.WriteString(string(r.Rune))
		case syntax.OpCharClass:
			if c, ok := classExample(r.Rune); ok {
				b.WriteRune(c)
			}
		case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
			b.WriteByte('x')
		case syntax.OpCapture:
			gen(r.Sub[0])
		case syntax.OpConcat:
			for _, sub := range r.Sub {
				gen(sub)
			}
		case syntax.OpAlternate:
			gen(r.Sub[0])
		case syntax.OpStar, syntax.OpPlus:
			if anyChar(r.Sub[0]) {
				b.WriteString("example")
			} else if r.Op == syntax.OpPlus {
				gen(r.Sub[0])
			}
		case syntax.OpRepeat:
			for i := 0; i < r.Min; i++ {
				gen(r.Sub[0])
			}
		}
	}
	gen(re)
	if x := b.String(); x != "" && m.Match(x) {
		return x
	}
	return ""
}

// classExample is the character of a class (its ranges, lo and hi in
// pairs) that Example builds a value with: the first, in this order, of a
// lower-case letter, a digit, an upper-case letter, '_', '-' (the
// characters of the names Claude Code gives its tools, MCP tools
// included), another printable ASCII character, a printable one; never a
// control character, which no name Claude Code sends holds ([^a-z] gave
// mcp__\x00).
func classExample(ranges []rune) (rune, bool) {
	for _, want := range [][2]rune{{'a', 'z'}, {'0', '9'}, {'A', 'Z'}, {'_', '_'}, {'-', '-'}, {'!', '~'}} {
		for i := 0; i+1 < len(ranges); i += 2 {
			if lo, hi := max(ranges[i], want[0]), min(ranges[i+1], want[1]); lo <= hi {
				return lo, true
			}
		}
	}
	for i := 0; i+1 < len(ranges); i += 2 {
		for c := max(ranges[i], 0xa1); c <= ranges[i+1] && c < ranges[i]+0x1000; c++ {
			if unicode.IsPrint(c) {
				return c, true
			}
		}
	}
	return 0, false
}

// rule is a permission rule: Tool or Tool(specifier).
type rule struct {
	tool string
	spec string
	has  bool
}

var errBadRule = errors.New("want a permission rule such as Bash(git *) or Edit(*.ts)")

// parseRule parses permission-rule syntax as the `if` field uses it.
func parseRule(s string) (rule, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return rule{}, errBadRule
	}
	i := strings.IndexByte(s, '(')
	if i < 0 {
		if strings.ContainsAny(s, ") \t") {
			return rule{}, errBadRule
		}
		return rule{tool: s}, nil
	}
	if !strings.HasSuffix(s, ")") || i == 0 {
		return rule{}, errBadRule
	}
	return rule{tool: s[:i], spec: s[i+1 : len(s)-1], has: true}, nil
}

// parseIf parses a handler's `if` as Claude Code reads its rule: the
// tool by its current name (currentToolName), so Task(Explore) is
// Agent(Explore), as a matcher's Task selects Agent.
func parseIf(cond string) (rule, error) {
	r, err := parseRule(cond)
	r.tool = currentToolName(r.tool)
	return r, err
}

// IfMatches evaluates a handler's `if` condition against a tool call in
// cwd, the directory the session (and the hook) runs in. Claude Code
// evaluates `if` only on tool events; on other events a handler with an
// `if` never runs, so IfMatches returns false there. An unparsable
// condition never matches.
func IfMatches(cond, event, tool, cwd string, input map[string]any) bool {
	if cond == "" {
		return true
	}
	if !IsToolEvent(event) {
		return false
	}
	r, err := parseIf(cond)
	if err != nil || r.tool != tool && (r.has || !mcpServerRuleMatch(r.tool, tool)) {
		return false
	}
	if !r.has || r.spec == "*" || r.spec == "" {
		return true
	}
	str := func(k string) string { s, _ := input[k].(string); return s }
	switch tool {
	case "Bash":
		return bashRuleMatch(r.spec, str("command"))
	case "Read", "Edit", "Write", "MultiEdit", "NotebookEdit":
		p := str("file_path")
		if p == "" {
			p = str("notebook_path")
		}
		return pathRuleMatch(r.spec, p, cwd)
	case "Glob", "Grep":
		return pathRuleMatch(r.spec, str("path"), cwd)
	case "WebFetch":
		u := str("url")
		if d, ok := strings.CutPrefix(r.spec, "domain:"); ok {
			return hostMatch(d, urlHost(u))
		}
		return wildcard(r.spec, u)
	case "WebSearch":
		return wildcard(r.spec, str("query"))
	case "PowerShell":
		// As hooks.md's PowerShell(Remove-Item *): the command, '*' a
		// wildcard.
		spec := r.spec
		if p, ok := strings.CutSuffix(spec, ":*"); ok {
			spec = p + "*"
		}
		return wildcard(spec, str("command"))
	case "Agent":
		// Agent(Explore): the subagent type (sub-agents.md).
		return wildcard(r.spec, str("subagent_type"))
	case "Skill":
		// Skill(commit), Skill(plugin:*), Skill(review-pr *): the
		// skill's name, or its name and arguments, '*' a wildcard, as
		// permission rules name skills.
		return wildcard(r.spec, str("skill")) || wildcard(r.spec, strings.TrimSpace(str("skill")+" "+str("args")))
	}
	return false
}

// mcpServer returns the server rule of a permission rule that names an
// MCP server's every tool ("mcp__github" or "mcp__github__*"), as
// "mcp__github"; "" for any other rule.
func mcpServer(ruleTool string) string {
	srv := strings.TrimSuffix(ruleTool, "__*")
	name, ok := strings.CutPrefix(srv, "mcp__")
	if !ok || name == "" || strings.Contains(name, "__") || strings.ContainsAny(name, "*()") {
		return ""
	}
	return srv
}

// mcpServerRuleMatch reports whether a rule naming an MCP server
// ("mcp__github", or "mcp__github__*") selects tool, one of that
// server's, as a permission rule does (permissions.md, "MCP"): an `if`
// of that rule runs its hook for each of the server's tools.
func mcpServerRuleMatch(ruleTool, tool string) bool {
	srv := mcpServer(ruleTool)
	rest, ok := strings.CutPrefix(tool, srv+"__")
	return srv != "" && ok && rest != ""
}

// ifTool is the tool an `if` rule names, for an audit to send: for a rule
// naming an MCP server's every tool, one tool of that server's
// (mcp__github__example), as a call Claude Code makes names one.
func ifTool(r rule) string {
	if srv := mcpServer(r.tool); srv != "" && !r.has {
		return srv + "__example"
	}
	return r.tool
}

// bashRuleMatch applies a Bash(...) specifier: '*' is a wildcard and a
// trailing ":*" means "this prefix"; compound commands match when any of
// their simple commands does, and so do the commands inside $(...) and
// backticks, as current Claude Code does (its reference's "Bash matching"
// table). Like Claude Code's, the filter fails open: a specifier that
// names more than the command (`git push *`) matches any command with a
// substitution or a $VAR, whose words it cannot know, and a command it
// cannot parse (an unclosed $( or backtick) matches every specifier.
func bashRuleMatch(spec, cmd string) bool {
	if p, ok := strings.CutSuffix(spec, ":*"); ok {
		spec = p + "*"
	}
	subs, ok := substitutions(cmd)
	if !ok || namesMoreThanCommand(spec) && expands(cmd) {
		return true
	}
	for _, c := range append([]string{cmd}, subs...) {
		for _, part := range splitCompound(c) {
			for _, w := range unwrapped(part) {
				if bashWildcard(spec, w) {
					return true
				}
			}
		}
	}
	return false
}

// bashWildcard matches a simple command against a Bash specifier as
// Claude Code's matchWildcardPattern does: '*' is any run of characters,
// and a trailing " *" that is the specifier's only wildcard may match
// nothing, so Bash(git *) matches a bare git (^git( .*)?$) and not gitk.
func bashWildcard(spec, c string) bool {
	if wildcard(spec, c) {
		return true
	}
	head, ok := strings.CutSuffix(spec, " *")
	return ok && !strings.Contains(head, "*") && head == c
}

// unwrapped is the simple command c and, where it starts with wrappers
// Claude Code strips before it matches a Bash rule (the permissions
// reference's "Wrappers": timeout, time, nice, nohup and stdbuf, the
// builtins command and builtin, zsh's noglob, and xargs without flags),
// the command each runs, one after another: "timeout 30 nice -n 5 npm
// test" gives "nice -n 5 npm test" and "npm test". A wrapper with an
// option vigiles does not know to be one Claude Code strips (command -v,
// which runs nothing; xargs -n1) is left, as Claude Code leaves it.
func unwrapped(c string) []string {
	out := []string{c}
	for range 8 {
		f := strings.Fields(c)
		n := wrapperWords(f)
		if n == 0 || n >= len(f) {
			break
		}
		c = strings.Join(f[n:], " ")
		out = append(out, c)
	}
	return out
}

// wrapperWords is how many of the words f a leading wrapper and its
// options take (0 where f starts with none Claude Code strips).
func wrapperWords(f []string) int {
	if len(f) < 2 {
		return 0
	}
	value := func(s string) bool {
		return s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.+-") == ""
	}
	n := 1
	switch f[0] {
	case "nohup", "time", "command", "builtin", "noglob", "xargs":
		if strings.HasPrefix(f[1], "-") {
			return 0
		}
	case "nice":
		switch {
		case f[1] == "-n" && len(f) > 2 && value(f[2]):
			n = 3
		case strings.HasPrefix(f[1], "-n") && value(f[1][2:]), strings.HasPrefix(f[1], "--adjustment=") && value(f[1][13:]),
			len(f[1]) > 1 && f[1][0] == '-' && strings.Trim(f[1][1:], "0123456789") == "":
			n = 2
		case strings.HasPrefix(f[1], "-"):
			return 0
		}
	case "stdbuf":
		for n < len(f) && strings.HasPrefix(f[n], "-") {
			switch o := f[n]; {
			case (o == "-i" || o == "-o" || o == "-e") && n+1 < len(f) && value(f[n+1]):
				n += 2
			case len(o) > 2 && strings.ContainsRune("ioe", rune(o[1])) && value(o[2:]),
				strings.HasPrefix(o, "--input=") || strings.HasPrefix(o, "--output=") || strings.HasPrefix(o, "--error="):
				n++
			default:
				return 0
			}
		}
	case "timeout":
		for n < len(f) && strings.HasPrefix(f[n], "-") {
			switch o := f[n]; {
			case (o == "-s" || o == "-k") && n+1 < len(f) && value(f[n+1]):
				n += 2
			case o == "--foreground" || o == "--preserve-status" || o == "-v" || o == "--verbose",
				(strings.HasPrefix(o, "--signal=") || strings.HasPrefix(o, "--kill-after=")) && value(o[strings.IndexByte(o, '=')+1:]):
				n++
			default:
				return 0
			}
		}
		if n >= len(f) || strings.Trim(strings.TrimRight(f[n], "smhd"), "0123456789.") != "" || f[n] == "" {
			return 0
		}
		n++
	default:
		return 0
	}
	return n
}

// namesMoreThanCommand says whether a Bash specifier has a word past the
// command's own that is not only a wildcard (`git push *`, not `rm *`).
func namesMoreThanCommand(spec string) bool {
	f := strings.Fields(spec)
	return len(f) > 1 && slices.ContainsFunc(f[1:], func(w string) bool { return strings.Trim(w, "*") != "" })
}

// expands says whether cmd holds a command substitution or a variable.
func expands(cmd string) bool {
	if strings.Contains(cmd, "$(") || strings.Contains(cmd, "`") {
		return true
	}
	for i := 0; i+1 < len(cmd); i++ {
		if c := cmd[i+1]; cmd[i] == '$' && (c == '{' || c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return true
		}
	}
	return false
}

// substitutions returns the commands inside every $(...) and `...` of cmd,
// nested ones too; ok is false when one is not closed.
func substitutions(cmd string) (subs []string, ok bool) {
	for i := 0; i < len(cmd); i++ {
		var inner string
		switch {
		case strings.HasPrefix(cmd[i:], "$("):
			depth, j := 1, i+2
			for ; j < len(cmd) && depth > 0; j++ {
				switch cmd[j] {
				case '(':
					depth++
				case ')':
					depth--
				}
			}
			if depth > 0 {
				return nil, false
			}
			inner, i = cmd[i+2:j-1], j-1
		case cmd[i] == '`':
			j := strings.IndexByte(cmd[i+1:], '`')
			if j < 0 {
				return nil, false
			}
			inner, i = cmd[i+1:i+1+j], i+1+j
		default:
			continue
		}
		nested, ok := substitutions(inner)
		if !ok {
			return nil, false
		}
		subs = append(append(subs, inner), nested...)
	}
	return subs, true
}

// splitCompound splits a command line at &&, ||, ;, | and newlines (quotes
// are not interpreted: this only decides whether a hook is spawned).
func splitCompound(cmd string) []string {
	f := strings.FieldsFunc(cmd, func(r rune) bool { return r == ';' || r == '|' || r == '&' || r == '\n' })
	out := []string{strings.TrimSpace(cmd)}
	for _, p := range f {
		p = strings.TrimSpace(p)
		// Drop VAR=value prefixes.
		for {
			w, rest, ok := strings.Cut(p, " ")
			if !ok || !strings.Contains(w, "=") || strings.ContainsAny(w, "/\"'") {
				break
			}
			p = strings.TrimSpace(rest)
		}
		if p != "" {
			out = append(out, p)
		}
	}
	return out
}

// wildcard matches s against a pattern whose only metacharacter is '*'
// (any run of characters).
func wildcard(pat, s string) bool {
	parts := strings.Split(pat, "*")
	if len(parts) == 1 {
		return pat == s
	}
	if !strings.HasPrefix(s, parts[0]) {
		return false
	}
	s = s[len(parts[0]):]
	for i := 1; i < len(parts)-1; i++ {
		j := strings.Index(s, parts[i])
		if j < 0 {
			return false
		}
		s = s[j+len(parts[i]):]
	}
	return strings.HasSuffix(s, parts[len(parts)-1])
}

// pathRuleMatch applies a file specifier with gitignore-like globs: a
// pattern without '/' matches the base name; "**" spans directories;
// leading "./" or "/" are relative to the project, "//" is absolute, "~/"
// is the home directory, the sandbox's HOME, which payloads name (Claude
// Code 2.1.176 and later match Read(~/.ssh/**) so). A
// single-segment "dir/**" (or "./dir/**") matches only below cwd's dir,
// as Claude Code 2.1.214 and later apply it in an `if` ("write **/dir/**
// for any-depth matching"); a relative path is read from cwd.
//
// As a .gitignore line, which Claude Code's Read and Edit rules follow
// (the permissions reference), a pattern that matches a directory matches
// every path below it (Edit(docs) and Edit(.github/workflows) a file in
// it), and one that ends in '/' matches directories alone: a path's
// parents, never the path itself (Edit(docs/) a file in docs, not a file
// named docs). The parents looked at are those below cwd, the directory
// the rule is relative to, where p lies under it, else every one.
func pathRuleMatch(spec, p, cwd string) bool {
	if p == "" {
		return false
	}
	dirOnly := false
	if d := strings.TrimRight(spec, "/"); d != spec && d != "" && d != "/" && d != "~" && d != "." {
		spec, dirOnly = d, true
	}
	if !dirOnly && pathRuleMatchOne(spec, p, cwd) {
		return true
	}
	stop := "/"
	if !path.IsAbs(p) {
		stop = "."
	} else if strings.HasPrefix(p, strings.TrimSuffix(cwd, "/")+"/") {
		stop = path.Clean(cwd)
	}
	for d := path.Dir(p); d != stop && d != "/" && d != "." && d != p; p, d = d, path.Dir(d) {
		if pathRuleMatchOne(spec, d, cwd) {
			return true
		}
	}
	return false
}

// pathRuleMatchOne applies a file specifier to the path p itself.
func pathRuleMatchOne(spec, p, cwd string) bool {
	if dir, ok := strings.CutSuffix(strings.TrimPrefix(spec, "./"), "/**"); ok && dir != "" && dir != "**" && !strings.ContainsAny(dir, "/") {
		if !path.IsAbs(p) {
			p = path.Join(cwd, p)
		}
		rest, ok := strings.CutPrefix(p, strings.TrimSuffix(cwd, "/")+"/")
		return ok && globMatch(dir+"/**", rest)
	}
	switch {
	case strings.HasPrefix(spec, "//"):
		return globMatch(spec[1:], p)
	case strings.HasPrefix(spec, "~/"):
		return globMatch(sandbox.Home+spec[1:], p)
	case !strings.Contains(spec, "/"):
		return globMatch(spec, path.Base(p)) || globMatch("**/"+spec, p)
	}
	spec = strings.TrimPrefix(strings.TrimPrefix(spec, "./"), "/")
	return globMatch("**/"+spec, p)
}

func urlHost(u string) string {
	_, rest, ok := strings.Cut(u, "://")
	if !ok {
		return ""
	}
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		rest = rest[:i]
	}
	if i := strings.LastIndexByte(rest, '@'); i >= 0 {
		rest = rest[i+1:]
	}
	if i := strings.LastIndexByte(rest, ':'); i >= 0 && !strings.Contains(rest[i:], "]") {
		rest = rest[:i]
	}
	return strings.ToLower(rest)
}

// SynthInput builds a tool_input that satisfies a handler's `if`
// condition, starting from base, so an audit runs a hook that a default
// payload would not trigger (an `if` must not hide a hook from an audit).
// It returns nil when it cannot build one.
func SynthInput(cond, tool, cwd string, base map[string]any) map[string]any {
	r, err := parseIf(cond)
	if err != nil || r.tool != tool || !r.has {
		return nil
	}
	out := copyMap(base)
	fill := func(s, with string) string { return strings.ReplaceAll(s, "*", with) }
	switch tool {
	case "Bash":
		spec := strings.TrimSuffix(r.spec, ":*")
		out["command"] = strings.TrimSpace(fill(spec, "example"))
		out["description"] = "A command the hook's if condition selects"
	case "Read", "Edit", "Write", "MultiEdit", "NotebookEdit", "Glob", "Grep":
		spec := r.spec
		var p string
		switch {
		case strings.HasPrefix(spec, "//"):
			p = spec[1:]
		case strings.HasPrefix(spec, "~/"):
			p = sandbox.Home + spec[1:]
		case !strings.Contains(spec, "/"):
			p = cwd + "/src/" + spec
		default:
			p = cwd + "/" + strings.TrimPrefix(strings.TrimPrefix(spec, "./"), "/")
		}
		if strings.HasSuffix(p, "/") {
			// A directory (Edit(docs/)): a file in it.
			p += "example"
		}
		p = strings.ReplaceAll(p, "**", "src")
		p = fill(p, "example")
		p = strings.NewReplacer("?", "x", "[", "", "]", "").Replace(p)
		key := "file_path"
		switch tool {
		case "Glob", "Grep":
			key = "path"
		case "NotebookEdit":
			key = "notebook_path"
		}
		out[key] = path.Clean(p)
	case "WebFetch":
		if d, ok := strings.CutPrefix(r.spec, "domain:"); ok {
			out["url"] = "https://" + strings.TrimPrefix(d, "*.") + "/"
			if strings.HasPrefix(d, "*.") {
				out["url"] = "https://www." + d[2:] + "/"
			}
		} else {
			out["url"] = fill(r.spec, "example")
		}
	case "PowerShell":
		out["command"] = strings.TrimSpace(fill(strings.TrimSuffix(r.spec, ":*"), "example"))
	case "Agent":
		out["subagent_type"] = fill(r.spec, "example")
	case "Skill":
		name, args, _ := strings.Cut(r.spec, " ")
		out["skill"], out["args"] = fill(name, "example"), strings.TrimSpace(fill(args, "example"))
	case "WebSearch":
		out["query"] = fill(r.spec, "example")
	default:
		return nil
	}
	return out
}
