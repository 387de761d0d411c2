package runner

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"

	"github.com/vigiles/action/pkg/report"
)

// Skills, agents and commands may declare hooks in the YAML frontmatter
// of their markdown file (cut as Claude Code cuts it: splitFrontmatter),
// under "hooks:", in the shape of a hooks file's "hooks" object.
// Claude Code runs them while the skill, agent or command is active;
// vigiles runs them as hooks of their plugin (or of the project), like
// any other. A plugin's agent is the exception: Claude Code ignores its
// hooks, which vigiles lists and does not run (pluginAgentIgnored).
//
// Where they are, relative to a plugin root, or to the project under
// .claude/:
const (
	claudeSkills          = "skills"   // <name>/SKILL.md
	claudeAgents          = "agents"   // *.md, below too
	claudeCommands        = "commands" // *.md, below too: a directory namespaces a command
	claudeProjectSkills   = ".claude/skills"
	claudeProjectAgents   = ".claude/agents"
	claudeProjectCommands = ".claude/commands"
	claudeSkillFile       = "SKILL.md"
)

// fmKind is what a markdown file that declares hooks is.
type fmKind int

const (
	fmSkill fmKind = iota
	// fmAgent: Claude Code runs an agent's Stop hooks as SubagentStop,
	// when the agent itself stops.
	fmAgent
	// fmCommand: Claude Code registers a command's hooks as it does a
	// skill's (for the session, once the command is invoked; "once"
	// honoured): its Stop is the session's Stop.
	fmCommand
)

// componentKinds are the manifest fields that name markdown files with
// hooks, and what the files they name are.
var componentKinds = []struct {
	field string
	kind  fmKind
}{{claudeSkills, fmSkill}, {claudeAgents, fmAgent}, {claudeCommands, fmCommand}}

// maxFrontmatterValues bounds the values the hooks of one frontmatter
// become, aliases expanded: a frontmatter that grows by aliasing (a
// "billion laughs") stops here with a finding, having cost at most this.
const maxFrontmatterValues = 100_000

// maxComponentDepth bounds how far below an agents or commands directory
// vigiles looks (deeper is a finding, not a silent skip).
const maxComponentDepth = 16

// maxComponentFiles bounds the markdown files one discovery reads below
// skills, agents and commands directories (a SKILL.md, an agent, a
// command), so that a repository of millions of them cannot keep an audit
// reading for hours; past it nothing more is read there, and that is a
// finding, not a silent skip.
const maxComponentFiles = 10000

// countComponent counts p, a markdown file a walk of a skills, agents or
// commands directory is about to read, against maxComponentFiles. It
// reports whether p may be read; the first file past the bound is the
// finding, and the walks stop at their tops once it is passed, so it is
// said once.
func (c *claudeDisc) countComponent(p string) bool {
	if c.mdFiles++; c.mdFiles <= maxComponentFiles {
		return true
	}
	rel, _ := relTo(c.dir, p)
	c.bound(report.Location{File: rel},
		"%s: more than %d markdown files lie below the repository's skills, agents and commands directories, more than vigiles reads; Claude Code reads them all, so the hooks this one and those after it may declare are not read", rel, maxComponentFiles)
	return false
}

// pluginComponents reads the frontmatter of a plugin's skills, agents and
// commands: those in the default directories, and those at the paths its
// manifest names ("skills", "agents", "commands"). Claude Code has read
// such paths both in addition to the default directories and in their
// place; an audit reads both.
func (c *claudeDisc) pluginComponents(ctx hookCtx, manifest *jnode, manifestRel string) {
	c.skillsDir(ctx, filepath.Join(ctx.pluginRoot, claudeSkills), false)
	c.mdDir(ctx, filepath.Join(ctx.pluginRoot, claudeAgents), fmAgent)
	c.mdDir(ctx, filepath.Join(ctx.pluginRoot, claudeCommands), fmCommand)
	if manifest != nil {
		c.componentPaths(ctx, manifest, manifestRel, "")
	}
	// A plugin with a SKILL.md at its root, no skills directory and no
	// "skills" field is a single-skill plugin: Claude Code loads that
	// SKILL.md as its skill (plugins-reference.md, "Path behavior
	// rules").
	_, hasField := manifest.member(claudeSkills)
	if sk := filepath.Join(ctx.pluginRoot, claudeSkillFile); !hasField && !c.exists(filepath.Join(ctx.pluginRoot, claudeSkills)) && c.present(sk, false) && c.countComponent(sk) {
		c.markdown(ctx, sk, fmSkill)
	}
}

// skillsDirMarket is the marketplace part of a skills-directory plugin's
// ID (plugins-reference.md, "Skills-directory plugins").
const skillsDirMarket = "skills-dir"

// isSkillsDirID says whether the plugin ID id (name@marketplace) is a
// skills-directory plugin's.
func isSkillsDirID(id string) bool { return strings.HasSuffix(id, "@"+skillsDirMarket) }

// projectComponents reads the frontmatter of the project's skills, agents
// and commands (.claude/skills, .claude/agents, .claude/commands under
// root). Their hooks are the project's, as those of its settings are: no
// CLAUDE_PLUGIN_ROOT, and root is their project directory.
func (c *claudeDisc) projectComponents(root, name string) {
	ctx := hookCtx{plugin: name, pluginRoot: root, projectDir: root}
	c.skillsDir(ctx, filepath.Join(root, claudeProjectSkills), false)
	// A folder of the skills directory that holds a plugin manifest is a
	// plugin, <name>@skills-dir, loaded in place with its hooks, skills,
	// agents and commands (plugins-reference.md, "Skills-directory
	// plugins").
	if real, ok := c.componentDir(filepath.Join(root, claudeProjectSkills)); ok {
		if ents, err := os.ReadDir(real); err == nil {
			for _, e := range ents {
				sub := filepath.Join(root, claudeProjectSkills, e.Name())
				isDir := e.IsDir()
				if !isDir && e.Type()&fs.ModeSymlink != 0 {
					// A linked entry, which Claude Code follows
					// (skills.md): the plugin is the directory it
					// leads to in the repository, read once however
					// it is reached (one that leads out is the skills
					// walk's finding).
					if r, fi, err := beneath(c.dir, c.dirReal, sub); err == nil && fi.IsDir() {
						if rr, err := filepath.Rel(c.dirReal, r); err == nil {
							sub, isDir = filepath.Join(c.dir, rr), true
						}
					}
				}
				if isDir && c.present(filepath.Join(sub, claudePluginJSON), false) {
					c.plugin(sub, "", nil, "", report.Location{})
					// Its ID is <name>@skills-dir: only a key of that
					// ID turns it off (a key of another marketplace is
					// another plugin), and its data directory is
					// named after it.
					if rel, err := relTo(c.dir, sub); err == nil {
						name := orDefault(c.seenPlugin[rel], e.Name())
						if c.out.Markets == nil {
							c.out.Markets = map[string][]string{}
						}
						if !slices.Contains(c.out.Markets[name], skillsDirMarket) {
							c.out.Markets[name] = append(c.out.Markets[name], skillsDirMarket)
						}
						c.installed(rel, name+"@"+skillsDirMarket)
					}
				}
			}
		}
	}
	c.mdDir(ctx, filepath.Join(root, claudeProjectAgents), fmAgent)
	c.mdDir(ctx, filepath.Join(root, claudeProjectCommands), fmCommand)
}

// componentPaths reads the "skills", "agents" and "commands" of a manifest
// or a marketplace entry: a path or a list of paths, relative to the
// plugin root, each a directory or a markdown file; "commands" may also be
// an object of commands (commandMap). prefix begins the ids of hooks the
// declaration itself carries ("plugins[name]." for a marketplace entry).
func (c *claudeDisc) componentPaths(ctx hookCtx, decl *jnode, declFile, prefix string) {
	for _, ck := range componentKinds {
		kind := ck.field
		m, ok := decl.member(kind)
		if !ok {
			continue
		}
		switch v := m.Value; {
		case v.Kind == jsonString:
			c.componentPath(ctx, kind, declFile, v)
		case v.Kind == jsonArray:
			for _, e := range v.Elems {
				if e.Kind != jsonString {
					c.find(RuleWrongType, report.SeverityError, c.loc(declFile, e.Pos), "%q entries: want a path string, found %s", kind, e.Kind)
					continue
				}
				c.componentPath(ctx, kind, declFile, e)
			}
		case v.Kind == jsonObject && ck.kind == fmCommand:
			c.commandMap(ctx, declFile, prefix, v)
		case ck.kind == fmCommand:
			c.find(RuleWrongType, report.SeverityError, c.loc(declFile, v.Pos), "%q: want a path, a list of paths or an object of commands, found %s", kind, v.Kind)
		default:
			c.find(RuleWrongType, report.SeverityError, c.loc(declFile, v.Pos), "%q: want a path or a list of paths, found %s", kind, v.Kind)
		}
	}
}

func (c *claudeDisc) componentPath(ctx hookCtx, kind, declFile string, v *jnode) {
	p := expandVars(v.Str, ctx.pluginRoot, c.dir)
	if !filepath.IsAbs(p) {
		p = filepath.Join(ctx.pluginRoot, p)
	}
	p = filepath.Clean(p)
	loc := c.loc(declFile, v.Pos)
	fk := fmSkill
	for _, ck := range componentKinds {
		if ck.field == kind {
			fk = ck.kind
		}
	}
	if c.escapesPlugin(ctx, declFile, v, kind+" path", p) {
		return
	}
	// As for a hooks path: outside the repository, neither read nor probed.
	_, fi, err := beneath(c.dir, c.dirReal, p)
	switch {
	case errors.Is(err, ErrOutsideTree):
		c.find(RuleOutsideTree, report.SeverityError, loc, "%s", outsideMessage(fmt.Sprintf("%s path %q", kind, v.Str), "", err))
	case err != nil:
		c.find(RuleMissingFile, report.SeverityError, loc, "%s path %q not found (resolved against the plugin root)%s", kind, v.Str, c.manifestDirHint(ctx, v.Str))
	case fi.IsDir() && fk == fmSkill:
		c.skillsDir(ctx, p, true)
	case fi.IsDir():
		c.mdDir(ctx, p, fk)
	case strings.HasSuffix(p, ".md"):
		c.markdown(ctx, p, fk)
	default:
		c.find(RuleMalformed, report.SeverityError, loc, "%s path %q is neither a directory nor a .md file", kind, v.Str)
	}
}

// commandMap reads a "commands" object, Claude Code's other form of the
// field: each member a command, whose markdown is at "source" (a path, as
// above) or inline in "content".
func (c *claudeDisc) commandMap(ctx hookCtx, declFile, prefix string, v *jnode) {
	// Claude Code parses with JSON.parse: of a command named twice, only
	// the last is read, so the earlier ones never run. vigiles reads the
	// last alone too (its hooks keep the id they would have alone) and
	// says so at each later name, as for any other key given twice.
	c.repeatedKeysLosing(declFile, v, "commands", "the command declared before, and its hooks, never run")
	last := map[string]int{}
	for i, m := range v.Members {
		last[m.ident()] = i
	}
	for i, m := range v.Members {
		if last[m.ident()] != i {
			continue
		}
		cmd := m.Value
		if cmd.Kind != jsonObject {
			c.find(RuleWrongType, report.SeverityError, c.loc(declFile, cmd.Pos), "commands[%s]: want an object with \"source\" or \"content\", found %s", m.Key, cmd.Kind)
			continue
		}
		c.repeatedKeys(declFile, cmd, fmt.Sprintf("%scommands[%s]", prefix, m.Key), "source", "content")
		if s, ok := cmd.member("source"); ok {
			if s.Value.Kind != jsonString {
				c.find(RuleWrongType, report.SeverityError, c.loc(declFile, s.Value.Pos), "commands[%s].source: want a path string, found %s", m.Key, s.Value.Kind)
			} else {
				c.componentPath(ctx, claudeCommands, declFile, s.Value)
			}
		}
		if t, ok := cmd.member("content"); ok {
			if t.Value.Kind != jsonString {
				c.find(RuleWrongType, report.SeverityError, c.loc(declFile, t.Value.Pos), "commands[%s].content: want a markdown string, found %s", m.Key, t.Value.Kind)
			} else {
				c.inlineCommand(ctx, declFile, fmt.Sprintf("%scommands[%s].", prefix, m.Key), t.Value)
			}
		}
	}
}

// inlineCommand reads the hooks in the frontmatter of a command whose
// markdown a manifest or a marketplace entry carries inline (a "content"
// string), and names the shell lines of its body (skillShells). Its lines are not the file's, so every hook and finding is
// placed at the string, and ids name the declaration file and the path
// of the string ("…/plugin.json#commands[fmt].hooks.Stop[0].hooks[0]").
func (c *claudeDisc) inlineCommand(ctx hookCtx, declFile, prefix string, v *jnode) {
	text := bytes.ToValidUTF8([]byte(v.Str), []byte("\uFFFD"))
	c.skillShells(ctx, declFile, text, fmCommand, &v.Pos)
	fm, first, state := splitFrontmatter(text)
	switch {
	case state == fmNone:
		return
	case state == fmOpen:
		if mayKeyHooks(fm) {
			c.find(RuleMalformed, report.SeverityWarning, c.loc(declFile, v.Pos),
				"%scontent: the frontmatter of this inline command is never closed (no \"---\" follows it), so Claude Code reads none of it and runs none of the hooks it seems to declare", prefix)
		}
		return
	}
	ctx.file = declFile
	ctx.inlineDecl = fmt.Sprintf("(inline markdown, sha256 %x)", sha256.Sum256([]byte(v.Str)))
	c.frontmatter(ctx, fm, fmPlace{off: first - 1, pin: &v.Pos, prefix: prefix + "hooks."})
}

// skillsDir reads <dir>/<name>/SKILL.md for every entry of dir, and
// dir/SKILL.md too when a manifest names dir itself (named). An entry
// that is a symbolic link is looked through as a directory on the way
// to a declaration file is (beneath: only while it stays inside the
// repository); a SKILL.md that is itself a link is not followed.
func (c *claudeDisc) skillsDir(ctx hookCtx, dir string, named bool) {
	if c.mdFiles > maxComponentFiles {
		return
	}
	real, ok := c.componentDir(dir)
	if !ok {
		return
	}
	if sk := filepath.Join(dir, claudeSkillFile); named && c.present(sk, false) {
		if !c.countComponent(sk) {
			return
		}
		c.markdown(ctx, sk, fmSkill)
	}
	ents, err := os.ReadDir(real)
	if err != nil {
		c.unreadDir(dir, err)
	}
	for _, e := range ents {
		if !e.IsDir() && e.Type()&fs.ModeSymlink == 0 {
			continue
		}
		if sk := filepath.Join(dir, e.Name(), claudeSkillFile); c.present(sk, false) {
			if !c.countComponent(sk) {
				return
			}
			c.markdown(ctx, sk, fmSkill)
		}
	}
}

// mdDir reads every *.md file (the suffix in any case, as Claude Code's
// walk of a plugin's directory matches it) in an agents or a commands
// directory and in every directory below it, dot-directories and
// node_modules too: Claude Code skips neither (a plugin's it walks with a
// plain readdir, the project's .claude/agents and .claude/commands with
// ripgrep --hidden --no-ignore --follow), and a hook it runs from there
// must not go unread. Below the project's directories a symbolic link to
// a directory is followed, as --follow does, while it stays inside the
// repository (a finding where it leads out), each real directory once;
// below a plugin's, as there, it is not. A file that is a symbolic link
// is read where it leads while that stays inside the repository
// (readDecl: a finding where it leads out, a warning where it leads
// nowhere). A directory more than maxComponentDepth
// below is not read, and that is a finding: Claude Code would read it.
// Below a plugin's agents directory, the directories on the way name the
// agent's type (agentNS), as Claude Code names it.
func (c *claudeDisc) mdDir(ctx hookCtx, dir string, kind fmKind) {
	c.mdWalk(ctx, dir, kind, 0, map[string]bool{})
}

func (c *claudeDisc) mdWalk(ctx hookCtx, dir string, kind fmKind, depth int, seen map[string]bool) {
	if c.mdFiles > maxComponentFiles {
		return
	}
	real, ok := c.componentDir(dir)
	if !ok || seen[real] {
		return
	}
	seen[real] = true
	ents, err := os.ReadDir(real)
	if err != nil {
		c.unreadDir(dir, err)
	}
	for _, e := range ents {
		if c.mdFiles > maxComponentFiles {
			return // past the bound, which was said once where it was passed
		}
		name := e.Name()
		p := filepath.Join(dir, name)
		isDir := e.IsDir()
		if !isDir && e.Type()&fs.ModeSymlink != 0 {
			// Followed as ripgrep --follow does: a link that leads out
			// goes to componentDir, which says so and reads nothing.
			// Below a plugin's too: installing it copies the target of
			// a link to elsewhere in its marketplace in the link's place
			// (plugins-reference.md, "Share files within a marketplace
			// with symlinks"), so the installed plugin holds it. A link
			// to a directory of the plugin's own stays a link there,
			// which Claude Code's walk of a plugin does not follow.
			real, fi, err := beneath(c.dir, c.dirReal, p)
			isDir = errors.Is(err, ErrOutsideTree) || err == nil && fi.IsDir()
			if isDir && err == nil && ctx.isPlugin {
				if root, _, rerr := beneath(c.dir, c.dirReal, ctx.pluginRoot); rerr == nil && (real == root || strings.HasPrefix(real, root+string(filepath.Separator))) {
					isDir = false
				}
			}
		}
		switch {
		case isDir && depth >= maxComponentDepth:
			rel, _ := relTo(c.dir, p)
			c.find(RuleMalformed, report.SeverityError, report.Location{File: rel},
				"%s is more than %d directories below the agents or commands directory, deeper than vigiles looks; Claude Code reads the markdown files there, so the hooks they may declare are not read: move them up", rel, maxComponentDepth)
		case isDir:
			sub := ctx
			sub.agentNS += name + ":"
			c.mdWalk(sub, p, kind, depth+1, seen)
		case strings.EqualFold(filepath.Ext(name), ".md"):
			if !c.countComponent(p) {
				return
			}
			c.markdown(ctx, p, kind)
		}
	}
}

// componentDir looks a skills, agents or commands directory up inside the
// repository: its real path, and whether it is a directory there. One
// that a link leads out of the repository is a finding, and so is one a
// link leads nowhere (deadLink).
func (c *claudeDisc) componentDir(dir string) (string, bool) {
	real, fi, err := beneath(c.dir, c.dirReal, dir)
	if errors.Is(err, ErrOutsideTree) {
		rel, _ := relTo(c.dir, dir)
		c.find(RuleOutsideTree, report.SeverityError, report.Location{File: rel}, "%s", outsideMessage(shownName(rel), rel, err))
		return "", false
	}
	if c.deniedOnWay(err) {
		return "", false
	}
	if err != nil {
		c.deadLink(dir, err, true)
		return "", false
	}
	if !fi.IsDir() {
		return "", false
	}
	return real, true
}

// Where a file's frontmatter stands.
const (
	fmNone   = iota // the file does not start with a "---" line
	fmOpen          // it does, and no "---" follows
	fmClosed        // a frontmatter
)

// splitFrontmatter returns a file's frontmatter as Claude Code cuts it
// (its FRONTMATTER_REGEX, /^---\s*\n([\s\S]*?)---\s*\n?/, on the file
// read as UTF-8): the file starts with "---", then whitespace (JavaScript's
// \s: Unicode spaces, form feeds and blank lines too) up to a line break,
// and the text runs from after the last line break of that whitespace to
// the first "---" after it, wherever that is: inside a line ("a---b", a
// markdown table's "|---|"), or a "----" line, closes it. A reading
// stricter than Claude Code's would leave a hook it runs unread (an
// opening "---\f"), or call a frontmatter closed by "----" never closed.
// A UTF-8 BOM before the first "---" is allowed (Claude Code then reads no
// frontmatter: reading it too runs more, never less). firstLine is the
// file line its text starts on. For fmOpen the text is the rest of the
// file.
func splitFrontmatter(data []byte) (fm []byte, firstLine, state int) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if !bytes.HasPrefix(data, []byte("---")) {
		return nil, 0, fmNone
	}
	lastNL := -1
	for i := 3; i < len(data); {
		r, n := utf8.DecodeRune(data[i:])
		if !isJSSpace(r) {
			break
		}
		if r == '\n' {
			lastNL = i
		}
		i += n
	}
	if lastNL < 0 {
		return nil, 0, fmNone
	}
	rest := data[lastNL+1:]
	firstLine = bytes.Count(data[:lastNL+1], []byte("\n")) + 1
	if end := bytes.Index(rest, []byte("---")); end >= 0 {
		return rest[:end], firstLine, fmClosed
	}
	return rest, firstLine, fmOpen
}

// isJSSpace says whether r is in JavaScript's \s.
func isJSSpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ', 0xa0, 0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000, 0xfeff:
		return true
	}
	return r >= 0x2000 && r <= 0x200a
}

// decodeFrontmatter reads the frontmatter fm as Claude Code does: as
// YAML, and where that fails, again with its values quoted
// (quoteProblematicValues), whose reading then counts (retried). err is
// the first reading's where neither takes it.
func decodeFrontmatter(fm []byte) (doc, second *yaml.Node, retried bool, err error) {
	doc, second, err = decodeYAML(fm)
	if err != nil {
		if d, s2, rerr := decodeYAML(quoteProblematicValues(fm)); rerr == nil {
			return d, s2, true, nil
		}
	}
	return doc, second, false, err
}

// quoteProblematicValues is what Claude Code retries a frontmatter with
// when it is not YAML (its function of that name): each line that is a
// simple "key: value" at the top level, whose value is not quoted and
// holds a character YAML reads as syntax, gets the value in double
// quotes. Lines keep their numbers.
func quoteProblematicValues(fm []byte) []byte {
	lines := strings.Split(string(fm), "\n")
	for i, line := range lines {
		m := fmSimpleKeyRE().FindStringSubmatch(line)
		if m == nil {
			continue
		}
		key, value := m[1], m[2]
		if (strings.HasPrefix(value, `"`) && strings.HasSuffix(value, `"`)) || (strings.HasPrefix(value, "'") && strings.HasSuffix(value, "'")) {
			continue
		}
		if fmSpecialRE().MatchString(value) {
			value = strings.ReplaceAll(strings.ReplaceAll(value, `\`, `\\`), `"`, `\"`)
			lines[i] = key + `: "` + value + `"`
		}
	}
	return []byte(strings.Join(lines, "\n"))
}

var (
	// fmSimpleKeyRE is Claude Code's /^([a-zA-Z_-]+):\s+(.+)$/ on one
	// line: JavaScript's \s, and a "." that matches no CR (a CRLF line
	// never matches).
	fmSimpleKeyRE = lazyRE(`^([a-zA-Z_-]+):[\t\n\v\f\r \x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}\x{feff}]+([^\n\r\x{2028}\x{2029}]+)$`)
	// fmSpecialRE is Claude Code's YAML_SPECIAL_CHARS.
	fmSpecialRE = lazyRE("[{}\\[\\]*&#!|>%@`]|: ")
)

// mentionsHooks says whether a frontmatter mentions hooks at all: the
// word anywhere, or a backslash (a double-quoted key may write it with
// escapes, "hoo\x6bs"). A frontmatter vigiles cannot read that does not is
// no finding (a skill's description with a stray colon declares no hook
// either way); one that does is looked at closer (mayKeyHooks).
func mentionsHooks(fm []byte) bool {
	return bytes.Contains(fm, []byte("hooks")) || bytes.IndexByte(fm, '\\') >= 0
}

// mayKeyHooks says whether a frontmatter vigiles cannot read as YAML may
// still spell a "hooks" key, for a parser that takes what yaml.v3 refuses
// (Claude Code's is a JavaScript one) or a mistake of vigiles' own. Text
// that is not YAML has no tree to look at, so this looks at the places
// where a YAML mapping key can begin, at any depth, and says yes, failing
// closed, wherever the word or an escape could be one:
//
//   - "hooks" as a whole plain, single-quoted or double-quoted scalar at a
//     key's start (mayStartKey: the start of a line after its indentation or
//     a byte order mark;
//     after a block indicator "- " or "? ", which covers explicit keys and
//     a collection as a key, which a parser may turn into a string of its
//     own making; after a "{" or "["; after a "," once a "[" or "{" came before it; after
//     properties, tags such as !!str and anchors), and followed by what may
//     end a key (hooksKeyEnds: a ":", the end of its line, as an explicit
//     key or a block scalar's line may, or a "," "}" or "]" in a flow
//     collection), or, for a quoted one, by anything;
//   - a double-quoted scalar at a key's start that holds a backslash: its
//     escapes may spell the word, or join it across lines;
//   - an alias or a merge key ("<<") at a key's start, where the word or a
//     backslash is anywhere in the text: the node it names may be defined
//     where no key is ("name: &k hooks").
//
// What is left is prose: the word inside a value ("description: … and
// hooks"), in a comment, or inside a longer scalar ("pre-hooks:", "use
// hooks: …", whose key is the whole scalar); no YAML reading makes a key
// "hooks" of it. A line of a multi-line value that begins with the word and
// a colon is taken for a key (text alone cannot tell the two apart).
func mayKeyHooks(fm []byte) bool {
	flow := bytes.IndexAny(fm, "[{")
	word := []byte("hooks")
	// Each look back from a place is bounded by its line, but a long line
	// of places ("xhooksxhooks…", "!a\" !a\" …") would make the looks
	// quadratic in the text: past this many steps in all, the answer is
	// yes (failing closed), so hostile text costs linear time.
	budget := 64*len(fm) + 1<<16
	for off := 0; ; {
		if budget < 0 {
			return true
		}
		i := bytes.Index(fm[off:], word)
		if i < 0 {
			break
		}
		i += off
		off = i + 1
		start, end, quoted := i, i+len(word), false
		if i > 0 && (fm[i-1] == '"' || fm[i-1] == '\'') {
			if end >= len(fm) || fm[end] != fm[i-1] {
				continue
			}
			start, end, quoted = i-1, end+1, true
		}
		// A quoted scalar ends at its quote, and the JavaScript yaml
		// package reads "? \"hooks\",x" (or any other text after the
		// quote) as the key "hooks": so a quoted one is a key whatever
		// follows it.
		if mayStartKey(fm, start, flow, &budget) && (quoted || hooksKeyEnds(fm, end, flow)) {
			return true
		}
	}
	for i := 0; i < len(fm); i++ {
		if budget < 0 {
			return true
		}
		switch {
		case fm[i] == '"' && mayStartKey(fm, i, flow, &budget):
			// The scalar runs to the next quote that no backslash
			// escapes (or to the end of the text).
			for j := i + 1; j < len(fm) && fm[j] != '"'; j++ {
				if fm[j] == '\\' {
					return true
				}
			}
		case fm[i] == '*' && i+1 < len(fm) && !isYAMLBlank(fm[i+1]) && !bytes.ContainsRune([]byte(",[]{}"), rune(fm[i+1])) && mayStartKey(fm, i, flow, &budget),
			bytes.HasPrefix(fm[i:], []byte("<<")) && mayStartKey(fm, i, flow, &budget):
			if mentionsHooks(fm) {
				return true
			}
		}
	}
	return false
}

// isYAMLBlank says whether b separates tokens within a line or ends one.
func isYAMLBlank(b byte) bool { return b == ' ' || b == '\t' || b == '\n' || b == '\r' }

// mayStartKey says whether a mapping key could begin at fm[i]: only blanks,
// properties (a tag, an anchor) and the indicators "- " and "? " stand
// between it and the start of its line, or a flow indicator ("{", "[", or a
// "," once flow, the first "[" or "{" of the text, is behind it) comes
// before it with only blanks and properties between. Each step spends one
// of budget; once it is spent, the answer is yes.
func mayStartKey(fm []byte, i, flow int, budget *int) bool {
	j := i
	for {
		blanks := j
		for j > 0 {
			if *budget--; *budget < 0 {
				return true
			}
			if fm[j-1] == ' ' || fm[j-1] == '\t' {
				j--
			} else if bomBefore(fm, j) {
				// The JavaScript yaml package skips a byte order
				// mark before a document's first key ("\ufeffhooks:").
				j -= len(utf8BOM)
			} else {
				break
			}
		}
		if j == 0 || fm[j-1] == '\n' || fm[j-1] == '\r' {
			return true
		}
		switch c := fm[j-1]; {
		case c == '{' || c == '[':
			return true
		case c == ',':
			return flow >= 0 && flow < j-1
		case (c == '-' || c == '?') && j < blanks:
			j-- // a block indicator: what is before it must be a key's start too
			continue
		}
		// A property: a run of non-blanks that starts with "!" or "&",
		// or one that follows a flow indicator in the run with no blank
		// between ("{&a hooks: …}", "{a: 1,!!str hooks: …}": a flow
		// scalar ends at the ","). A run that starts with a property is
		// one (a verbatim tag holds commas of its own: "!<…,2002:str>").
		k := j
		for k > 0 && !isYAMLBlank(fm[k-1]) && !bomBefore(fm, k) {
			if *budget--; *budget < 0 {
				return true
			}
			k--
		}
		if fm[k] == '!' || fm[k] == '&' {
			j = k
			continue
		}
		*budget -= j - k
		for p := j - 2; p >= k; p-- {
			if c := fm[p]; (c == '{' || c == '[' || c == ',') && (fm[p+1] == '!' || fm[p+1] == '&') &&
				(c != ',' || flow >= 0 && flow < p) {
				return true
			}
		}
		return false
	}
}

// utf8BOM is U+FEFF, the byte order mark, in UTF-8.
const utf8BOM = "\xef\xbb\xbf"

// bomBefore says whether a byte order mark ends at fm[j].
func bomBefore(fm []byte, j int) bool {
	return j >= len(utf8BOM) && string(fm[j-len(utf8BOM):j]) == utf8BOM
}

// hooksKeyEnds says whether a scalar that ends at fm[e] may be a whole key:
// blanks, then a ":", the end of the line (or a comment), or in a flow
// collection a ",", "}" or "]".
func hooksKeyEnds(fm []byte, e, flow int) bool {
	s := e
	for e < len(fm) && (fm[e] == ' ' || fm[e] == '\t') {
		e++
	}
	if e == len(fm) {
		return true
	}
	switch fm[e] {
	case ':', '\n', '\r':
		return true
	case '#':
		return e > s
	case ',', '}', ']':
		return flow >= 0 && flow < e
	}
	return false
}

// markdown reads the hooks a skill's, an agent's or a command's markdown
// file declares in its frontmatter. A file without frontmatter, or with no
// "hooks" in it, declares nothing and is no finding. Only the first
// maxDeclFile bytes are read: a long skill is not refused for its length.
func (c *claudeDisc) markdown(ctx hookCtx, abs string, kind fmKind) {
	rel, _ := relTo(c.dir, abs)
	key, also, ctx := c.readIn(ctx, rel)
	if kind == fmSkill && !ctx.isPlugin {
		// Claude Code registers a skill's hooks with the skill's
		// directory, which its hooks get as CLAUDE_PLUGIN_ROOT.
		ctx.skillRoot = filepath.Dir(abs)
	}
	if kind == fmAgent && ctx.isPlugin {
		// Claude Code loads a file a plugin names both as an agent and
		// as a command or a skill (its manifest's "commands" pointing
		// at its agents directory) as both: as a command, its hooks run
		// and its shell lines too. A file read as a command or a skill
		// already is not read again as an agent, whose hooks would be
		// listed as never run; one read as an agent first is read again
		// as the other.
		if c.nameAgain(key, rel, ctx) {
			return
		}
		key += "#agent"
	}
	if c.nameAgain(key, rel, ctx) {
		return
	}
	defer c.fileRead(key, rel, len(c.out.Hooks))
	rel, data, more := c.readDeclIn(key, also, abs, true)
	if data == nil {
		return
	}
	// Claude Code reads the file as UTF-8, a byte that is not as U+FFFD.
	text := bytes.ToValidUTF8(data, []byte("\uFFFD"))
	c.skillShells(ctx, rel, text, kind, nil)
	fm, first, state := splitFrontmatter(text)
	switch state {
	case fmNone:
		return
	case fmOpen:
		// Past maxDeclFile the rest is not read, so any mention of
		// hooks may be the start of the key's frontmatter; within it, the
		// whole text is there to look at.
		if more && mentionsHooks(fm) {
			c.find(RuleMalformed, report.SeverityError, report.Location{File: rel, Line: 1, Column: 1},
				"%s: its frontmatter is not closed within the first %d bytes, which is all vigiles reads; the hooks it may declare are not read", rel, maxDeclFile)
			return
		}
		if !more && mayKeyHooks(fm) {
			c.find(RuleMalformed, report.SeverityWarning, report.Location{File: rel, Line: 1, Column: 1},
				"%s: the frontmatter opened here is never closed (no \"---\" follows it), so Claude Code reads none of it and runs none of the hooks it seems to declare", rel)
		}
		return
	}
	ctx.file, ctx.agent = rel, kind == fmAgent
	c.frontmatter(ctx, fm, fmPlace{off: first - 1, prefix: "hooks."})
}

// fmPlace says where a frontmatter's text stands: off lines into its file
// (line n of the text is line n+off of the file), or, for markdown carried
// in a JSON string, at pin, the string, where every hook and finding is
// placed. prefix begins the ids of its hooks.
type fmPlace struct {
	off    int
	pin    *jpos
	prefix string
}

func (p fmPlace) pos(line, col int) jpos {
	if p.pin != nil {
		return *p.pin
	}
	return jpos{Line: line + p.off, Col: col}
}

// line names line n of the text in a message.
func (p fmPlace) line(n int) string {
	if p.pin != nil {
		return fmt.Sprintf("line %d of the inline markdown", n+p.off)
	}
	return fmt.Sprintf("line %d", n+p.off)
}

// frontmatter reads the hooks of one frontmatter, at place. yaml.v3 only
// builds the node tree, which costs in proportion to the text (no Decode,
// which is quadratic in repeated keys and expands aliases unbounded); the
// tree is then checked for repeated keys in one pass, and its "hooks"
// value turned into the JSON nodes the hooks-file walk reads (fmConv),
// with aliases expanded up to maxFrontmatterValues.
func (c *claudeDisc) frontmatter(ctx hookCtx, fm []byte, place fmPlace) {
	ctx.scoped = true
	rel := ctx.file
	at := func(n *yaml.Node) report.Location {
		return c.loc(rel, place.pos(n.Line, n.Column))
	}
	doc, second, retried, err := decodeFrontmatter(fm)
	if err != nil {
		if !mentionsHooks(fm) {
			return
		}
		ce := yamlSyntaxError(rel, fm, err)
		loc := report.Location{File: rel}
		if ce.Line > 0 || place.pin != nil {
			loc = c.loc(rel, place.pos(ce.Line, ce.Column))
		}
		if !mayKeyHooks(fm) {
			// The word (or a backslash) is there only where no key
			// can be: the frontmatter declares no hooks, whichever
			// parser reads it. It is still worth saying, as a
			// warning: a YAML parser refuses it with its values
			// quoted too, and where Claude Code's refuses it as well
			// (not always: the JavaScript one takes a control
			// character yaml.v3 refuses) Claude Code reads none of it
			// (an agent's name and description either: one of a
			// plugin loads with none, one of the project's not at
			// all).
			c.find(RuleMalformed, report.SeverityWarning, loc, "%s: the frontmatter is %s, also once its values are quoted as Claude Code retries it, so vigiles reads none of it, and Claude Code none where its parser refuses it too (an agent's name and description neither); nothing in it stands where a key could spell \"hooks\", so it declares no hooks either way: quote the value, or write it as a block scalar (\"description: |\" and the lines below indented)", rel, ce.Msg)
			return
		}
		c.find(RuleMalformed, report.SeverityError, loc, "%s: the frontmatter is %s; vigiles reads none of its hooks", rel, ce.Msg)
		return
	}
	if second != nil {
		if mayKeyHooks(fm) {
			n := second
			if n.Line == 0 && len(n.Content) > 0 {
				n = n.Content[0]
			}
			c.find(RuleMalformed, report.SeverityError, at(n), "%s: a second YAML document starts here inside the frontmatter, which is then not one mapping; vigiles reads none of its hooks", rel)
		}
		return
	}
	if doc == nil || len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return
	}
	root := doc.Content[0]
	var hooks, hooksKey, name, servers *yaml.Node
	for i := 0; i+1 < len(root.Content); i += 2 {
		k := keyNode(root.Content[i])
		if k.Kind != yaml.ScalarNode {
			continue
		}
		if k.ShortTag() == mergeTag && mentionsHooks(fm) {
			// A parser that merges would find hooks vigiles does not.
			c.find(RuleMalformed, report.SeverityError, at(root.Content[i]),
				"%s: a merge key (<<) at the top level of the frontmatter is not supported; vigiles reads none of its hooks: write the keys out", rel)
			return
		}
		if k.Value == "hooks" {
			hooks, hooksKey = root.Content[i+1], k
		} else if k.Value == "name" {
			name = root.Content[i+1]
		} else if k.Value == "mcpServers" {
			servers = root.Content[i+1]
		} else if _, known := knownEvents[k.Value]; known {
			c.find(RuleMalformed, report.SeverityWarning, at(k),
				"event %q is at the top level of the frontmatter; Claude Code reads hooks only under \"hooks:\", so it runs none of these: indent them under hooks:", k.Value)
		}
	}
	// A colon is kept for a plugin's agents (my-plugin:reviewer): Claude
	// Code (2.1.218 and later) does not load a project's or a user's
	// agent whose name holds one (sub-agents.md, "Supported frontmatter
	// fields", name), so none of its hooks ever runs and none of its
	// mcpServers starts. Running the hooks would pass a guard that never
	// runs for one that works: they are listed, not run, and the servers
	// are not named.
	colon := ctx.agent && !ctx.isPlugin && strings.Contains(agentName(name), ":")
	if rep, _ := repeatedKey(root); colon && rep == nil && (hooks != nil && !isYAMLNull(hooks) || servers != nil && !isYAMLNull(servers)) {
		c.find(RuleNotExecutable, report.SeverityWarning, at(name),
			"%s: the agent's name %q holds a colon, which Claude Code keeps for a plugin's agents (my-plugin:reviewer): since 2.1.218 it does not load an agent file whose name holds one, so none of the hooks declared here runs, nor does an MCP server its mcpServers defines start, and a guard here protects nothing; vigiles lists the hooks and does not run them: name the agent without a colon", rel, agentType(ctx, name))
	}
	if servers != nil && ctx.agent && !ctx.isPlugin && ctx.inlineDecl == "" && !colon {
		if k, _ := repeatedKey(root); k == nil {
			c.agentServers(ctx, servers, place)
		}
	}
	if hooks == nil {
		if !retried {
			c.hooksOnceQuoted(rel, fm, at)
		}
		return
	}
	if k, first := repeatedKey(root); k != nil {
		c.find(RuleMalformed, report.SeverityError, at(k),
			"key %q appears twice in the frontmatter (first on %s): YAML allows a key once, and a parser refuses the whole frontmatter; vigiles reads none of its hooks: keep one", k.Value, place.line(first))
		return
	}
	if hooks.Kind == yaml.ScalarNode && hooks.ShortTag() == "!!null" {
		return // "hooks:" with nothing under it declares nothing
	}
	cv := fmConv{place: place, left: maxFrontmatterValues}
	n, bad, err := cv.value(hooks, 0)
	if err != nil {
		c.find(RuleMalformed, report.SeverityError, at(bad), "%s: hooks: %v; vigiles reads none of its hooks", rel, err)
		return
	}
	if ctx.agent && ctx.isPlugin {
		// Claude Code does not read hooks, mcpServers or permissionMode
		// from a plugin's agent, for security reasons (sub-agents.md,
		// "Choose the subagent scope"; plugins-reference.md, "Agents"):
		// running them would pass a guard that never runs for one that
		// works. They are listed, not run, as a hook turned off is.
		ctx.agentType = agentType(ctx, name)
		ctx.ignored = pluginAgentIgnored
		if c.find(RuleNotExecutable, report.SeverityWarning, at(hooksKey),
			"%s: Claude Code ignores the hooks of a plugin's agent (it reads hooks, mcpServers and permissionMode only from a project's or a user's agent), so none of those declared here runs and a guard here protects nothing; vigiles lists them and does not run them: move them to the plugin's hooks/hooks.json, or the agent to .claude/agents", rel) {
			c.agentWarns = append(c.agentWarns, agentWarn{finding: len(c.out.Findings) - 1, file: rel})
		}
	} else if colon {
		// Said above, at the name.
		ctx.agentType = agentType(ctx, name)
		ctx.ignored = colonAgentIgnored
	} else if ctx.agent {
		ctx.agentType = agentType(ctx, name)
		if m, ok := n.member(Stop); ok && n.Kind == jsonObject {
			c.find(RuleAgentStop, report.SeverityNotice, c.loc(rel, m.KeyPos),
				"an agent's Stop hooks run when the agent itself stops: Claude Code runs them as SubagentStop, and vigiles sends them SubagentStop's payload with agent_type %q, this agent's (their ids keep the path hooks.Stop)", ctx.agentType)
		}
	}
	from := len(c.out.Findings)
	c.events(ctx, n, place.prefix)
	if ctx.ignored != "" {
		// What is wrong with hooks Claude Code ignores changes nothing
		// it runs: said, not an error or a warning of its own.
		for i := from; i < len(c.out.Findings); i++ {
			if slices.Contains(c.out.Bounded, i) {
				continue // a bound of the discovery holds for the whole tree
			}
			if f := &c.out.Findings[i]; f.Severity != report.SeverityNotice {
				f.Severity = report.SeverityNotice
				f.Message += "; " + ignoredWhy[ctx.ignored] + ", so this changes nothing it runs"
			}
		}
	}
}

// hooksOnceQuoted says, as the error, where a frontmatter that yaml.v3
// reads with no "hooks" key has one once its values are quoted as Claude
// Code retries it. Claude Code's JavaScript parser refuses some text that
// yaml.v3 takes (a key given twice in a nested mapping, "c: {k: 1, k: 2}"),
// and then reads the retried text; the quoting may end a multi-line value
// on its first line ("description: 'a: b" becomes "description: \"'a: b\""),
// so that the lines that were inside it become keys of their own.
func (c *claudeDisc) hooksOnceQuoted(rel string, fm []byte, at func(*yaml.Node) report.Location) {
	if !mentionsHooks(fm) {
		return
	}
	q := quoteProblematicValues(fm)
	if bytes.Equal(q, fm) {
		return
	}
	doc, second, err := decodeYAML(q)
	if err != nil || second != nil || doc == nil || len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return
	}
	root := doc.Content[0]
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := keyNode(root.Content[i]), root.Content[i+1]
		if k.Kind != yaml.ScalarNode || (k.Value != "hooks" && k.ShortTag() != mergeTag) {
			continue
		}
		if k.Value == "hooks" && v.Kind == yaml.ScalarNode && v.ShortTag() == "!!null" {
			continue
		}
		c.find(RuleMalformed, report.SeverityError, at(root.Content[i]),
			"%s: read as written, the frontmatter declares no hooks, but once its values are quoted as Claude Code retries it (when its JavaScript YAML parser refuses the text as written, as it does a key given twice in a nested mapping), a \"hooks\" key (or a merge key) starts here; vigiles reads none of its hooks: quote the values so that both readings agree", rel)
		return
	}
}

// agentWarn is the warning that the hooks of the plugin's agent file
// (relative to the work tree) never run, at c.out.Findings[finding].
type agentWarn struct {
	finding int
	file    string
}

// agentsReadElsewhere makes a notice of each agentWarn whose file is read
// in another context too (markdown): as a command or a skill of a plugin,
// or as a project's agent, whose hooks Claude Code runs, and vigiles too.
// The warning would say of hooks that run that they never do.
func (c *claudeDisc) agentsReadElsewhere() {
	if len(c.agentWarns) == 0 {
		return
	}
	other := map[string]bool{}
	for k := range c.seenFile {
		if key, file, _ := strings.Cut(k, "\x00"); !strings.HasSuffix(key, "#agent") {
			other[file] = true
		}
	}
	for _, w := range c.agentWarns {
		if other[w.file] {
			f := &c.out.Findings[w.finding]
			f.Severity = report.SeverityNotice
			f.Message += "; but this file is read as a command, a skill or a project's agent too, whose hooks Claude Code runs, and vigiles runs them as such"
		}
	}
}

// pluginAgentIgnored is why the hooks a plugin's agent declares are listed,
// not run (Hook.NotRun).
const pluginAgentIgnored = "Claude Code ignores the hooks of a plugin's agent, so it does not run it"

// colonAgentIgnored is why the hooks of a project's agent whose name
// holds a colon, a file Claude Code does not load, are listed, not run
// (Hook.NotRun).
const colonAgentIgnored = "Claude Code does not load an agent whose name holds a colon, so it does not run it"

// ignoredWhy says, by hookCtx.ignored, why Claude Code runs none of the
// hooks of that context, for a finding among them.
var ignoredWhy = map[string]string{
	pluginAgentIgnored: "Claude Code ignores the hooks of a plugin's agent",
	colonAgentIgnored:  "Claude Code does not load an agent whose name holds a colon",
}

// agentServers names the MCP servers a project's agent (ctx.file) defines
// inline in its frontmatter's mcpServers, a list whose entries are each
// either the name of a server the session has (a string, which starts
// nothing) or an object of servers in .mcp.json's form, which Claude Code
// starts, unsandboxed, when the agent starts, once the user trusts the
// folder (sub-agents.md, "Scope MCP servers to a subagent"). A plugin's
// agent is not read: Claude Code ignores its mcpServers (and its hooks).
// Each is the project's (Server.InProject), of the agent (Server.Agent).
func (c *claudeDisc) agentServers(ctx hookCtx, v *yaml.Node, place fmPlace) {
	if v.Kind == yaml.ScalarNode && v.ShortTag() == "!!null" {
		return
	}
	cv := fmConv{place: place, left: maxFrontmatterValues}
	n, bad, err := cv.value(v, 0)
	if err != nil {
		c.find(RuleMalformed, report.SeverityError, c.loc(ctx.file, place.pos(bad.Line, bad.Column)), "%s: mcpServers: %v; vigiles names none of the MCP servers it may start", ctx.file, err)
		return
	}
	if n.Kind != jsonArray {
		c.find(RuleWrongType, report.SeverityError, c.loc(ctx.file, n.Pos), "mcpServers: want a list of server names and objects of MCP servers, found %s; vigiles cannot tell what Claude Code starts for it, which it may start unsandboxed when the agent starts: review it by hand", n.Kind)
		return
	}
	var got serverSet
	for _, e := range n.Elems {
		switch e.Kind {
		case jsonString:
			// A server the session has by that name: nothing new starts.
		case jsonObject:
			c.serverEntries(hookCtx{}, mcpKind, e, ctx.file, false, &got)
		default:
			c.find(RuleWrongType, report.SeverityError, c.loc(ctx.file, e.Pos), "mcpServers: want a server's name or an object of MCP servers, found %s; vigiles cannot tell what Claude Code starts for it: review it by hand", e.Kind)
		}
	}
	for _, s := range got.list {
		s.Agent = ctx.file
	}
	c.addProjectServers(ctx.projectDir, ctx.plugin, got.list)
}

// isYAMLNull says whether n is a null scalar ("hooks:" with nothing under
// it), which declares nothing.
func isYAMLNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null"
}

// agentType is the agent_type Claude Code gives the agent of ctx.file,
// which a SubagentStop payload carries and its matcher selects: the
// frontmatter's "name" (n, as agentName reads it; the file's name without
// .md when there is none), and for a plugin's agent, the plugin's name,
// then the directories between its agents directory and the file, then
// that name, joined by ":" ("fmt:team:lead"), as Claude Code names plugin
// agents (loadPluginAgents) so that two plugins' agents never share a
// type.
func agentType(ctx hookCtx, n *yaml.Node) string {
	name := agentName(n)
	if name == "" {
		name = strings.TrimSuffix(path.Base(ctx.file), ".md")
	}
	if ctx.isPlugin {
		return ctx.plugin + ":" + ctx.agentNS + name
	}
	return name
}

// agentName is the name an agent's "name" value n gives it: Claude Code
// reads the frontmatter into JavaScript values and makes the name with
// String(), so a value YAML reads as a number or a boolean is named as
// JavaScript writes that value ("1.50" is the number 1.5, so "1.5"; "0x1F"
// "31"; "True" "true"), not as the text is written. "" (the file's name,
// then) for null or no value, and for a list or a mapping, which is no
// name (what Claude Code then does is not established: it may skip the
// agent, whose hooks then never run; vigiles runs them all the same).
//
// What this is based on: the rule above (String() over the parsed value)
// is how Claude Code's loader was described for this change; its YAML
// parser's exact reading of the rarer numerals was not. Numbers are read
// as YAML 1.2's core schema reads them, as a JavaScript YAML parser does:
// "010" is ten (yaml.v3 alone takes it for YAML 1.1's octal), and a
// numeral with "_" or a date (which yaml.v3 takes for an int or a
// timestamp) stays the text as written.
func agentName(n *yaml.Node) string {
	if n != nil && n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	if n == nil || n.Kind != yaml.ScalarNode {
		return ""
	}
	switch n.ShortTag() {
	case "!!null":
		return ""
	case "!!bool":
		var b bool
		if n.Decode(&b) == nil {
			return fmt.Sprint(b)
		}
	case "!!int", "!!float":
		if f, ok := yamlCoreNumber(n.Value); ok {
			return jsNumberString(f)
		}
	}
	return n.Value
}

// yamlCoreNumber reads s as YAML 1.2's core schema reads a number: a
// decimal integer or float (leading zeros decimal), 0x and 0o integers,
// and .inf, .nan with their signs and cases. ok is false for anything
// else.
func yamlCoreNumber(s string) (float64, bool) {
	switch s {
	case ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF":
		return math.Inf(1), true
	case "-.inf", "-.Inf", "-.INF":
		return math.Inf(-1), true
	case ".nan", ".NaN", ".NAN":
		return math.NaN(), true
	}
	if len(s) > 2 && (s[:2] == "0x" || s[:2] == "0o") {
		base := 16
		if s[1] == 'o' {
			base = 8
		}
		u, err := strconv.ParseUint(s[2:], base, 64)
		if err != nil || strings.ContainsAny(s[2:], "+-_") {
			return 0, false
		}
		return float64(u), true
	}
	if !yamlCoreFloatRE().MatchString(s) {
		return 0, false
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0, false
	}
	return f, true // out of range: ±Inf, as JavaScript reads it
}

// yamlCoreFloatRE is YAML 1.2's core schema's integer and float, but for
// the special values yamlCoreNumber reads apart.
var yamlCoreFloatRE = lazyRE(`^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`)

// jsNumberString writes f as JavaScript's String() (Number::toString)
// does: the shortest digits that read back as f, without an exponent
// from 1e-6 up to below 1e21, else d.ddde±n.
func jsNumberString(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	case f == 0:
		return "0" // -0 too
	}
	sign := ""
	if f < 0 {
		sign, f = "-", -f
	}
	// Shortest round-trip digits and exponent: d.ddde±x.
	e := strconv.FormatFloat(f, 'e', -1, 64)
	mant, exp, _ := strings.Cut(e, "e")
	digits := strings.Replace(mant, ".", "", 1)
	x, _ := strconv.Atoi(exp)
	k, n := len(digits), x+1 // f = 0.digits × 10^n
	switch {
	case k <= n && n <= 21:
		return sign + digits + strings.Repeat("0", n-k)
	case 0 < n && n <= 21:
		return sign + digits[:n] + "." + digits[n:]
	case -6 < n && n <= 0:
		return sign + "0." + strings.Repeat("0", -n) + digits
	}
	m := digits[:1]
	if k > 1 {
		m += "." + digits[1:]
	}
	if n-1 < 0 {
		return sign + m + "e-" + strconv.Itoa(1-n)
	}
	return sign + m + "e+" + strconv.Itoa(n-1)
}

// repeatedKey returns the first key under n that its mapping has already
// (without following aliases), with the line of the first.
func repeatedKey(n *yaml.Node) (*yaml.Node, int) {
	if n.Kind == yaml.MappingNode {
		seen := make(map[string]int, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := keyNode(n.Content[i])
			if k.Kind != yaml.ScalarNode {
				continue
			}
			if l, dup := seen[k.Value]; dup {
				return k, l
			}
			seen[k.Value] = k.Line
		}
	}
	for _, c := range n.Content {
		if k, l := repeatedKey(c); k != nil {
			return k, l
		}
	}
	return nil, 0
}

// keyNode is the node a mapping key stands for: an alias's anchored
// value, at the alias ("*k : …", k anchoring "hooks", is the key
// "hooks"), else the key.
func keyNode(k *yaml.Node) *yaml.Node {
	if k.Kind != yaml.AliasNode || k.Alias == nil {
		return k
	}
	v := *k.Alias // where the alias stands
	v.Line, v.Column = k.Line, k.Column
	return &v
}

// fmConv turns a YAML node tree into the JSON nodes discovery walks, with
// positions in the file (place).
// Aliases are expanded, each value counted against left, and a value
// that cannot be read inside one is reported at the alias; merge keys and
// keys that are not scalars are refused.
type fmConv struct {
	place fmPlace
	left  int
	alias *yaml.Node // the alias being expanded, outermost
}

func (cv *fmConv) value(n *yaml.Node, depth int) (*jnode, *yaml.Node, error) {
	if depth > maxJSONDepth {
		return nil, n, fmt.Errorf("nested deeper than %d levels (aliases followed)", maxJSONDepth)
	}
	if cv.left--; cv.left < 0 {
		return nil, n, fmt.Errorf("more than %d values, aliases expanded", maxFrontmatterValues)
	}
	pos := cv.place.pos(n.Line, n.Column)
	switch n.Kind {
	case yaml.AliasNode:
		if n.Alias == nil {
			return nil, n, fmt.Errorf("alias *%s names no anchor", n.Value)
		}
		if cv.alias != nil {
			return cv.value(n.Alias, depth+1)
		}
		// What goes wrong inside is reported at the alias the hooks use.
		cv.alias = n
		v, _, err := cv.value(n.Alias, depth+1)
		cv.alias = nil
		if err != nil {
			return nil, n, fmt.Errorf("%w (in the value of *%s)", err, n.Value)
		}
		return v, nil, nil
	case yaml.SequenceNode:
		out := &jnode{Kind: jsonArray, Pos: pos, Elems: make([]*jnode, 0, len(n.Content))}
		for _, e := range n.Content {
			v, at, err := cv.value(e, depth+1)
			if err != nil {
				return nil, at, err
			}
			out.Elems = append(out.Elems, v)
		}
		return out, nil, nil
	case yaml.MappingNode:
		out := &jnode{Kind: jsonObject, Pos: pos, Members: make([]jmember, 0, len(n.Content)/2)}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Kind == yaml.ScalarNode && k.ShortTag() == mergeTag {
				return nil, k, errors.New("merge keys (<<) are not supported: write the keys out")
			}
			if k.Kind != yaml.ScalarNode {
				return nil, k, fmt.Errorf("a mapping key must be a string, found %s", nodeKind(k))
			}
			v, at, err := cv.value(n.Content[i+1], depth+1)
			if err != nil {
				return nil, at, err
			}
			out.Members = append(out.Members, jmember{Key: k.Value, KeyPos: cv.place.pos(k.Line, k.Column), Value: v})
		}
		return out, nil, nil
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!null":
			return &jnode{Kind: jsonNull, Pos: pos}, nil, nil
		case "!!bool":
			var b bool
			if err := n.Decode(&b); err != nil {
				return nil, n, err
			}
			return &jnode{Kind: jsonBool, Pos: pos, Bool: b}, nil, nil
		case "!!int", "!!float":
			var v any
			if err := n.Decode(&v); err != nil {
				return nil, n, err
			}
			f, err := jsonCompatible(v)
			if err != nil {
				return nil, n, err
			}
			return &jnode{Kind: jsonNumber, Pos: pos, Num: f.(float64)}, nil, nil
		}
		return &jnode{Kind: jsonString, Pos: pos, Str: n.Value}, nil, nil
	}
	return nil, n, fmt.Errorf("%s has no JSON equivalent", nodeKind(n))
}
