package runner

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"

	"github.com/vigiles/action/pkg/report"
)

// RuleSkillShell names a shell command a skill's or command's markdown
// embeds: an inline !`cmd` or a ```! block, which Claude Code runs with
// the Bash tool when the skill or command is invoked (by the user, or by
// Claude itself, as its frontmatter allows), before the text reaches the
// model, and puts its output in place of the line (code.claude.com/docs
// skills.md, "Inject dynamic context"). vigiles does not run it.
const RuleSkillShell = "discovery/skill-shell"

// ServerSkillShell is the kind (Server.Kind) of such a shell line: its
// Name is the file's markdown kind ("skill" or "command"), its Type its
// form (shellFormInline, shellFormBlock), its Command the command
// as written, Location where it begins. A baseline keeps it apart from
// the servers (Baseline.SkillShells).
const ServerSkillShell = "skill-shell"

// The forms of a shell line (Server.Type), as a baseline keeps them: an
// inline !`cmd`, or a ```! block.
const (
	shellFormInline = "inline"
	shellFormBlock  = "block"
)

// skillShellBlock finds a markdown's ```! blocks as Claude Code's
// preprocessor does (its BLOCK_PATTERN, /```!\s*\n?([\s\S]*?)\n?```/g):
// on the text as it is, fenced code and inline code spans no exception.
var skillShellBlock = lazyRE("(?s)```!" + `[ \t]*\r?\n?(.*?)` + "```")

// inlineShells finds the inline !`cmd` lines of body as Claude Code's
// INLINE_PATTERN, /(?<=^|\s)!`([^`]+)`/gm, does, on the text as it is
// (a ```! block no exception: it scans the two apart): the "!" at the
// start of body or after whitespace (JavaScript's \s, which holds every
// line break), and the command whatever runs up to the next backtick,
// line breaks too. A "!" after anything else (the "!" of a code span
// `!`, a `$!`) is not one. Each is the command's start and end in body.
// Go's regexp has no lookbehind, so this walks the text as the
// JavaScript engine does: a "!`" refused moves one byte on.
func inlineShells(body []byte) [][2]int {
	var out [][2]int
	for i := 0; i < len(body); {
		j := bytes.Index(body[i:], []byte("!`"))
		if j < 0 {
			break
		}
		at := i + j
		if r, _ := utf8.DecodeLastRune(body[:at]); at > 0 && !isJSSpace(r) {
			i = at + 1
			continue
		}
		end := bytes.IndexByte(body[at+2:], '`')
		if end < 0 {
			break // no backtick closes this one, nor any after it
		}
		if end == 0 {
			i = at + 1 // "!``": [^`]+ wants one byte at least
			continue
		}
		out = append(out, [2]int{at + 2, at + 2 + end})
		i = at + 2 + end + 1
	}
	return out
}

// skillShells names the shell lines of the skill's or command's markdown
// text (valid UTF-8) at rel, read in ctx: those of its body (after a
// closed frontmatter; the whole text where none is, or where a BOM
// opens it), each a Server of
// kind ServerSkillShell of its plugin's or its project's, counted against
// maxServers. The frontmatter's allowed-tools entries that name Bash,
// which pre-approve the line (skills.md, "Pre-approve tools for a
// skill"), are kept with it (Server.Allowed). For markdown a manifest or
// a marketplace entry carries inline (a command's "content"), rel is the
// declaration file and pin the string, where each line is placed.
func (c *claudeDisc) skillShells(ctx hookCtx, rel string, text []byte, kind fmKind, pin *jpos) {
	if kind == fmAgent {
		return
	}
	body, off := text, 0
	fm, _, state := splitFrontmatter(text)
	if bytes.HasPrefix(text, []byte("\xef\xbb\xbf")) {
		// Claude Code reads no frontmatter after a BOM (splitFrontmatter
		// allows one, as reading hooks there too runs more): its text
		// is then the body, and runs.
		state = fmNone
	}
	if state == fmClosed {
		off = cap(text) - cap(fm) + len(fm) + len("---")
		body = text[off:]
	}
	type shell struct {
		at, end int
		form    string
	}
	var found []shell
	for _, m := range skillShellBlock().FindAllSubmatchIndex(body, -1) {
		found = append(found, shell{m[2], m[3], shellFormBlock})
	}
	for _, m := range inlineShells(body) {
		found = append(found, shell{m[0], m[1], shellFormInline})
	}
	if len(found) == 0 {
		return
	}
	var rules []string
	var set shellSet
	if state == fmClosed {
		root := shellFrontmatter(fm) // read once: megabytes take seconds
		rules = bashRules(root)
		set = shellSettings(root)
	}
	unread := shellFrontmatterRead(rules, set.names)
	if unread != "" {
		rules, set.names = nil, nil
	}
	what := "skill"
	if kind == fmCommand {
		what = "command"
	}
	var got []*Server
	first := map[[2]string]*Server{} // by form and command
	for _, f := range found {
		// Claude Code runs the command cut by JavaScript's trim(), whose
		// white space is not Go's (U+0085 is none, U+FEFF is): cut as
		// it is, what a baseline compares is what runs.
		cmd := strings.TrimFunc(string(body[f.at:f.end]), isJSSpace)
		if cmd == "" {
			continue
		}
		at := off + f.at
		line := bytes.Count(text[:at], []byte("\n")) + 1
		// In characters, as the JSON and YAML parsers count a column
		// (and SARIF's columnKind says): not bytes.
		col := utf8.RuneCount(text[bytes.LastIndexByte(text[:at], '\n')+1:at]) + 1
		loc := report.Location{File: rel, Line: line, Column: col}
		if pin != nil {
			loc = c.loc(rel, *pin)
		}
		if !c.countServer(loc) {
			return
		}
		if sv := first[[2]string{f.form, cmd}]; sv != nil {
			// The same line again: one finding names every place.
			sv.Again = append(sv.Again, loc)
			continue
		}
		sv := &Server{Kind: ServerSkillShell, Name: what, Type: f.form, Command: cmd, Location: loc, Allowed: bashRuleFor(rules, cmd), BashRules: rules,
			Shell: set.shell, Arguments: argumentsIn(set.names, cmd), InvokedBy: set.invokedBy(cmd), Invokers: set.invokers(), Unread: unread}
		first[[2]string{f.form, cmd}] = sv
		got = append(got, sv)
	}
	if ctx.isPlugin {
		c.addServers(ctx, got, ctx.entryName == "")
		return
	}
	root := ctx.projectDir
	if root == "" {
		root = c.dir
	}
	c.addProjectServers(root, ctx.plugin, got)
}

// maxShellEntries bounds the allowed-tools entries that name Bash, and
// the arguments' names, of a frontmatter that vigiles matches against
// each of its shell lines, and maxShellEntryBytes their total length:
// matching costs their size times the lines (up to maxServers), which a
// frontmatter of megabytes of them made hours. A skill has a few.
const (
	maxShellEntries    = 256
	maxShellEntryBytes = 16 << 10
)

// shellFrontmatterRead is why the Bash rules and the argument names of a
// frontmatter are more than vigiles matches against its shell lines
// (maxShellEntries, maxShellEntryBytes), "" where they are not. Past
// them it matches none: whether they pre-approve a line, or fill it, is
// not told, and no baseline accepts the line (Server.Unread).
func shellFrontmatterRead(rules, names []string) string {
	for _, l := range []struct {
		what  string
		items []string
	}{{"allowed-tools entries that name Bash", rules}, {"argument names", names}} {
		size := 0
		for _, e := range l.items {
			size += len(e)
		}
		if len(l.items) > maxShellEntries || size > maxShellEntryBytes {
			return fmt.Sprintf("its frontmatter declares %d %s (%d bytes), more than the %d (%d bytes) vigiles matches against a shell line", len(l.items), l.what, size, maxShellEntries, maxShellEntryBytes)
		}
	}
	return ""
}

// shellFrontmatter is the mapping the frontmatter fm holds, read as
// Claude Code reads it: where YAML refuses it, again with its values
// quoted (decodeFrontmatter), as the hooks are read
// (claudeDisc.frontmatter); nil where neither reading is a mapping.
func shellFrontmatter(fm []byte) *yaml.Node {
	doc, _, _, err := decodeFrontmatter(fm)
	if err != nil || doc == nil || len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return nil
	}
	return doc.Content[0]
}

// bashRules are the allowed-tools entries of the frontmatter's mapping
// root (shellFrontmatter; nil for none) that name the Bash tool (Bash,
// or Bash(…)), in order: a string of entries parted by commas or
// spaces, or a list of them.
func bashRules(root *yaml.Node) []string {
	if root == nil {
		return nil
	}
	var entries []string
	for i := 0; i+1 < len(root.Content); i += 2 {
		if keyNode(root.Content[i]).Value != "allowed-tools" {
			continue
		}
		v := root.Content[i+1]
		switch v.Kind {
		case yaml.ScalarNode:
			entries = toolEntries(v.Value)
		case yaml.SequenceNode:
			entries = nil
			for _, e := range v.Content {
				if e.Kind == yaml.ScalarNode {
					entries = append(entries, toolEntries(e.Value)...)
				}
			}
		}
	}
	var out []string
	for _, e := range entries {
		if e == "Bash" || strings.HasPrefix(e, "Bash(") && strings.HasSuffix(e, ")") {
			out = append(out, e)
		}
	}
	return out
}

// shellSet is what of a frontmatter changes how the same shell line
// runs (shellSettings).
type shellSet struct {
	// shell is the frontmatter's shell, as written, "" where it is
	// absent or "bash", Claude Code's default ("powershell" runs the
	// lines with PowerShell).
	shell string
	// names are the names its arguments declares (a string of names
	// parted by spaces, or a list of them), whose $name Claude Code
	// replaces with the invocation's argument at that place before it
	// runs the lines.
	names []string
	// userOnly is disable-model-invocation a YAML true: Claude itself
	// cannot invoke the skill, so the user alone chooses its arguments.
	userOnly bool
	// claudeOnly is user-invocable a YAML false: the skill is off the
	// user's / menu, and Claude alone invokes it (skills.md, "Control who
	// invokes a skill").
	claudeOnly bool
}

// shellArgument finds an argument Claude Code fills in a shell line
// before the shell reads it: $ARGUMENTS (and $ARGUMENTS[N]) or $N.
var shellArgument = lazyRE(`\$(ARGUMENTS|[0-9])`)

// invokedBy is "user" where only the user may invoke the skill and the
// shell line cmd holds an argument Claude Code fills in (shellArgument,
// or one of set.names), so that who may invoke it is who chooses what
// the line runs; "" otherwise (a line without one runs the same
// whoever invokes it).
func (set shellSet) invokedBy(cmd string) string {
	if set.userOnly && (shellArgument().MatchString(cmd) || argumentsIn(set.names, cmd) != "") {
		return "user"
	}
	return ""
}

// Invokers of a shell line (Server.Invokers): who its frontmatter lets
// invoke the skill or command it is in (skills.md, "Control who invokes
// a skill"), "" for the user and Claude alike.
const (
	invokersUser    = "user"    // disable-model-invocation: true
	invokersClaude  = "claude"  // user-invocable: false
	invokersNeither = "neither" // both
)

// invokers is who set lets invoke the skill or command (Server.Invokers).
func (set shellSet) invokers() string {
	switch {
	case set.userOnly && set.claudeOnly:
		return invokersNeither
	case set.userOnly:
		return invokersUser
	case set.claudeOnly:
		return invokersClaude
	}
	return ""
}

// shellSettings reads the keys of the frontmatter's mapping root
// (shellFrontmatter; nil for none) that change how the same shell line
// runs (skills.md, "Frontmatter reference"): shell, arguments,
// disable-model-invocation and user-invocable (shellSet). The last of a
// key given twice counts, as for bashRules.
func shellSettings(root *yaml.Node) (set shellSet) {
	if root == nil {
		return set
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		v := root.Content[i+1]
		switch keyNode(root.Content[i]).Value {
		case "shell":
			set.shell = ""
			if v.Kind == yaml.ScalarNode && v.Value != "bash" {
				set.shell = v.Value
			}
		case "disable-model-invocation":
			// A YAML true only: a string "true" may not be one to
			// Claude Code, and Claude then invoking the skill is the
			// reading that accepts less.
			var b bool
			set.userOnly = v.Kind == yaml.ScalarNode && v.ShortTag() == "!!bool" && v.Decode(&b) == nil && b
		case "user-invocable":
			// A YAML false only, as for disable-model-invocation: the
			// reading where the user may invoke it too accepts less.
			b := true
			set.claudeOnly = v.Kind == yaml.ScalarNode && v.ShortTag() == "!!bool" && v.Decode(&b) == nil && !b
		case "arguments":
			names := []string(nil)
			switch v.Kind {
			case yaml.ScalarNode:
				names = strings.Fields(v.Value)
			case yaml.SequenceNode:
				for _, e := range v.Content {
					if e.Kind == yaml.ScalarNode {
						names = append(names, strings.Fields(e.Value)...)
					}
				}
			}
			set.names = names
		}
	}
	return set
}

// argumentsIn is, of the argument names, those the shell line cmd holds
// as $name or ${name} (a $name followed by more letters counts too: what
// Claude Code takes for the name is not vigiles' to guess), sorted, once
// each, parted by spaces; "" for none.
func argumentsIn(names []string, cmd string) string {
	var in []string
	for _, n := range names {
		if strings.Contains(cmd, "$"+n) || strings.Contains(cmd, "${"+n) {
			in = append(in, n)
		}
	}
	slices.Sort(in)
	return strings.Join(slices.Compact(in), " ")
}

// bashRuleFor is the first of rules that matches the shell line cmd, ""
// for none, as Claude Code's permission rules read (permissions.md,
// "Bash"): Bash, Bash() and Bash(*) match any command; Bash(x) matches
// x exactly, where a * matches any text, and a trailing " *" (or the
// older ":*") x alone too. The line is tried as written and with its
// quote characters taken out, as a quoted path ("$DIR/run.sh" args)
// reads as its words; a compound line (a && b) is matched whole, not
// part by part.
func bashRuleFor(rules []string, cmd string) string {
	bare := strings.NewReplacer(`"`, "", "'", "").Replace(cmd)
	for _, r := range rules {
		pat := strings.TrimSuffix(strings.TrimPrefix(r, "Bash("), ")")
		if r == "Bash" {
			pat = "*"
		}
		if p, ok := strings.CutSuffix(pat, ":*"); ok {
			pat = p + " *"
		}
		for _, c := range []string{cmd, bare} {
			if pat == "" || ruleMatch(pat, c) {
				return r
			}
			if p, ok := strings.CutSuffix(pat, " *"); ok && ruleMatch(p, c) {
				return r
			}
		}
	}
	return ""
}

// ruleMatch says whether s is pat, where each * of pat stands for any
// text (slashes and spaces too).
func ruleMatch(pat, s string) bool {
	parts := strings.Split(pat, "*")
	if len(parts) == 1 {
		return pat == s
	}
	if !strings.HasPrefix(s, parts[0]) {
		return false
	}
	s = s[len(parts[0]):]
	last := parts[len(parts)-1]
	for _, p := range parts[1 : len(parts)-1] {
		i := strings.Index(s, p)
		if i < 0 {
			return false
		}
		s = s[i+len(p):]
	}
	return len(s) >= len(last) && strings.HasSuffix(s, last)
}

// toolEntries parts a string of tool rules at commas and at spaces
// outside parentheses (Bash(git status:*) is one).
func toolEntries(s string) []string {
	var out []string
	depth, start := 0, 0
	for i, r := range s {
		switch {
		case r == '(':
			depth++
		case r == ')' && depth > 0:
			depth--
		case depth == 0 && (r == ',' || r == ' ' || r == '\t'):
			if t := strings.TrimSpace(s[start:i]); t != "" {
				out = append(out, t)
			}
			start = i + 1
		}
	}
	if t := strings.TrimSpace(s[start:]); t != "" {
		out = append(out, t)
	}
	return out
}

// skillShellOff is the settings file (of files, the local one over the
// other) that sets disableSkillShellExecution true, "" for none: Claude
// Code then puts a message in place of each shell line of a user's,
// project's or plugin's skill or command and runs none of them (settings.md,
// "Available settings").
func skillShellOff(files []settingsFile) string {
	return boolTrueIn(files, "disableSkillShellExecution")
}

// skillShellMessage is the finding's text for the shell line s.
func (s *Server) skillShellMessage() string {
	gate := "nothing in its frontmatter pre-approves it (no Bash in allowed-tools): it goes through Claude Code's Bash permission check, and runs without asking where the session's permission rules or mode allow it"
	switch {
	case s.Allowed != "":
		gate = fmt.Sprintf("its frontmatter's allowed-tools pre-approves it (%s), so it runs without asking", shownCut(s.Allowed, maxMonitorName))
	case len(s.BashRules) > 0:
		gate = fmt.Sprintf("its frontmatter's allowed-tools names Bash only as %s, none of which matches it as written: it goes through Claude Code's Bash permission check, and runs without asking where the session's permission rules or mode allow it", shownRules(s.BashRules))
	}
	tool, args := "the Bash tool", ""
	if s.Shell != "" {
		tool = fmt.Sprintf("the shell its frontmatter names, %s, not Bash", shownCut(s.Shell, maxMonitorName))
	}
	if s.Arguments != "" {
		args = fmt.Sprintf("; its frontmatter's arguments name %s, whose $name Claude Code replaces with the invocation's argument, as given, before the shell reads the line", shownCut(s.Arguments, maxMonitorName))
	}
	by := "(by the user, or by Claude itself)"
	switch s.Invokers {
	case invokersUser:
		by = "by the user (disable-model-invocation keeps Claude from invoking it)"
	case invokersClaude:
		by = "by Claude itself (user-invocable: false takes it off the user's / menu)"
	case invokersNeither:
		by = "(disable-model-invocation keeps Claude from invoking it, and user-invocable: false takes it off the user's / menu)"
	}
	switch {
	case s.InvokedBy == "user":
		args += "; the user alone chooses the arguments Claude Code puts in the line"
	case shellArgument().MatchString(s.Command) || s.Arguments != "":
		args += "; Claude itself may invoke it, with the arguments it chooses, which Claude Code puts in the line, as given, before the shell reads it"
	}
	if s.Unread != "" {
		gate = s.Unread + ": whether they pre-approve it, or put an argument in it, is not told, and no baseline keeps it"
	}
	return fmt.Sprintf("%s's %s %s embeds a shell command, which Claude Code runs with %s, unsandboxed, each time the %s is invoked %s, before the model reads it: %s%s%s; %s; vigiles does not run it, so nothing of what it does is recorded: review it by hand",
		s.owner(), s.Name, shownName(s.Location.File), tool, s.Name, by, strconv.Quote(cutBytes(s.Command, maxServerLine)), s.againAt(), args, gate)
}

// maxAgainNamed bounds the lines againAt names; the rest are counted.
const maxAgainNamed = 10

// againAt says where else the shell line's file holds the same line
// (Server.Again), "" where nowhere: " (again at lines 9, 12 and 15)",
// " (3 times in all)" where they are in one string of a declaration
// file, which gives them one place.
func (s *Server) againAt() string {
	if len(s.Again) == 0 {
		return ""
	}
	if l := s.Again[0]; l.Line == s.Location.Line && l.Column == s.Location.Column {
		return fmt.Sprintf(" (%d times in all)", len(s.Again)+1)
	}
	if len(s.Again) == 1 {
		return " (again at line " + strconv.Itoa(s.Again[0].Line) + ")"
	}
	return " (again at lines " + JoinWords(namedUpTo(len(s.Again), maxAgainNamed, func(i int) string { return strconv.Itoa(s.Again[i].Line) }), "and") + ")"
}

// shownRules names up to three of rules, each cut as a name is, and
// counts the rest.
func shownRules(rules []string) string {
	const most = 3
	var out []string
	for i, r := range rules {
		if i == most {
			out = append(out, fmt.Sprintf("%d more", len(rules)-most))
			break
		}
		out = append(out, shownCut(r, maxMonitorName))
	}
	return strings.Join(out, ", ")
}

// skillShellFinding names the shell line sv: a warning, or a notice where
// Claude Code runs none of it in a session started at proj (the work
// tree's "" for a plugin's): its plugin set false under enabledPlugins
// (off, in offIn), or disableSkillShellExecution true in that session's
// settings. A line that runs is listed with its finding (session.shells),
// which a baseline that keeps it as it is makes a notice
// (compareSkillShells).
func (s *session) skillShellFinding(sv *Server, off bool, offIn, proj string) {
	msg, sev := sv.message(""), report.SeverityWarning
	why := ""
	switch file := skillShellOff(s.settingsOf(proj).files); {
	case off:
		why = fmt.Sprintf("turned off: its plugin is set false under enabledPlugins in %s, so Claude Code does not run it while that holds; ", offIn)
	case file != "":
		why = fmt.Sprintf("turned off: disableSkillShellExecution is true in %s, so Claude Code puts a message in its place and does not run it while that holds; ", shownName(file))
	}
	if why != "" {
		sev, msg = report.SeverityNotice, why+msg
	}
	if sev == report.SeverityWarning && sv.Unread == "" {
		s.shells = append(s.shells, startedServer{sv: sv, finding: len(s.findings)})
	}
	s.findings = append(s.findings, report.Finding{Rule: RuleSkillShell, Severity: sev, Location: sv.Location, Message: msg})
	s.serverFetchedCode(sv, why)
}
