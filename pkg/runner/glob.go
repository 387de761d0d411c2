package runner

import (
	"fmt"
	"net/netip"
	"path"
	"regexp"
	"regexp/syntax"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/vigiles/action/pkg/evidence"
)

// globCache memoises compiled globs; patterns come from configuration and
// hook declarations, so the set is small.
var globCache sync.Map // string -> *regexp.Regexp (nil for invalid)

// globRegexp compiles a glob: '*' matches within one path segment, '**'
// any number of segments, '?' one character, [...] a class; everything
// else is literal.
func globRegexp(pat string) (*regexp.Regexp, error) {
	if v, ok := globCache.Load(pat); ok {
		if re, _ := v.(*regexp.Regexp); re != nil {
			return re, nil
		}
		return nil, fmt.Errorf("glob %q: malformed character class", pat)
	}
	var b strings.Builder
	b.WriteString("(?s)^") // "**" matches any name, newlines in it included
	for i := 0; i < len(pat); i++ {
		c := pat[i]
		switch c {
		case '*':
			if i+1 < len(pat) && pat[i+1] == '*' {
				i++
				if i+1 < len(pat) && pat[i+1] == '/' {
					i++
					b.WriteString("(?:.*/)?")
				} else {
					b.WriteString(".*")
				}
			} else {
				b.WriteString("[^/]*")
			}
		case '?':
			b.WriteString("[^/]")
		case '[':
			j := strings.IndexByte(pat[i+1:], ']')
			if j < 0 {
				globCache.Store(pat, (*regexp.Regexp)(nil))
				return nil, fmt.Errorf("glob %q: malformed character class", pat)
			}
			class := pat[i+1 : i+1+j]
			if strings.HasPrefix(class, "!") {
				class = "^" + class[1:]
			}
			b.WriteString("[" + strings.ReplaceAll(class, `\`, `\\`) + "]")
			i += j + 1
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	b.WriteString("$")
	re, err := regexp.Compile(b.String())
	if err != nil {
		globCache.Store(pat, (*regexp.Regexp)(nil))
		return nil, fmt.Errorf("glob %q: %w", pat, err)
	}
	globCache.Store(pat, re)
	return re, nil
}

// globMatch reports whether p matches the glob; a malformed glob never
// matches.
func globMatch(pat, p string) bool {
	re, err := globRegexp(pat)
	return err == nil && re.MatchString(p)
}

// PathPattern is a write pattern from .vigiles.yml: a glob, or a regular
// expression when written "re:…". A glob without '/' matches the base
// name anywhere; a glob that starts with "./" is anchored at the work
// tree's root; otherwise it matches the whole path. A glob that ends in
// "/**" matches the directory itself too (a change of its own mode or
// times is a write of it). Covering (no-write) makes a glob match
// everything below a path it matches as well, as a .gitignore line does.
type PathPattern struct {
	Src  string
	re   *regexp.Regexp
	glob string
	// dir, when not "", is a second glob the pattern matches: the
	// directory a "…/**" glob is under.
	dir string
	// base is the base name glob of a pattern without '/'; under, when
	// set, is "<glob>/**" (Covering).
	base, under string
	// folded, set by Covering, is the pattern as a file system that
	// folds names reads it (see FoldPath): no-write matches a write
	// whose folded path it matches too.
	folded *PathPattern
	// tree says the glob is anchored at the work tree's root ("./…"): it
	// matches no path of HOME, TMPDIR or /dev/shm, which "./**" or
	// "./**/x" would otherwise match as text ("~/.bashrc").
	tree bool
}

// shmDir and varTmpDir are the fixed absolute directories a written path
// is recorded under; the others are the runner's tool caches the caller's
// environment names (RUNNER_TOOL_CACHE, AGENT_TOOLSDIRECTORY), by their
// own absolute paths, which a config cannot know. Every other is relative
// to the work tree, or ~/… (the run's HOME) or $TMPDIR/….
const (
	shmDir    = "/dev/shm/"
	varTmpDir = "/var/tmp/"
)

// absDirs are shmDir and varTmpDir, and the run areas under /run: the
// host's /run/lock and the caller's runtime directory /run/user/UID,
// which the run shows as throwaways where the host has them (sandbox's
// hostRunAreas) and records by their path, as /var/tmp.
var absDirs = [...]string{shmDir, varTmpDir, runLockDir, runUserDir}

const (
	runLockDir = "/run/lock/"
	runUserDir = "/run/user/"
)

// runArea is the run area a recorded path p is or lies in ("/run/lock",
// "/run/user/1000") and what of p follows it ("" for the area itself);
// ok false for any other path.
func runArea(p string) (area, rest string, ok bool) {
	if p == "/run/lock" {
		return p, "", true
	}
	if r, ok := strings.CutPrefix(p, runLockDir); ok {
		return "/run/lock", r, true
	}
	r, ok := strings.CutPrefix(p, runUserDir)
	if !ok {
		return "", "", false
	}
	uid, rest, _ := strings.Cut(r, "/")
	if uid == "" || strings.Trim(uid, "0123456789") != "" {
		return "", "", false
	}
	return p[:len(runUserDir)+len(uid)], rest, true // no copy: persistsWhy allocates nothing
}

// pastUIDs says whether lit, the literal start of an absolute pattern,
// goes on under /run/user/ with a name no uid has (a character other
// than a digit before the next '/'): no runtime directory is recorded
// there, as none is elsewhere under /run.
func pastUIDs(lit string) bool {
	r, ok := strings.CutPrefix(lit, runUserDir)
	if !ok {
		return false
	}
	uid, _, _ := strings.Cut(r, "/")
	return strings.Trim(uid, "0123456789") != ""
}

// noToolCache are the absolute directories no tool cache is recorded
// under: the system's own, the kernel's, and those the run masks or
// replaces (its /tmp is recorded as $TMPDIR, /root and /home as ~). An
// absolute glob anywhere else may name a tool cache's writes.
var noToolCache = [...]string{"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/proc", "/sys", "/dev", "/run", "/tmp", "/root", "/home"}

// inNoToolCache says whether every path that starts with lit (an absolute
// glob's or expression's literal start; without case where fold) lies in
// one of noToolCache, or is one of them where whole (no wildcard follows).
func inNoToolCache(lit string, whole, fold bool) bool {
	if fold {
		lit = strings.ToLower(lit)
	}
	return slices.ContainsFunc(noToolCache[:], func(d string) bool {
		return strings.HasPrefix(lit, d+"/") || whole && lit == d
	})
}

// recordedForms says how written paths are recorded, for errors.
const recordedForms = "written paths are recorded relative to the work tree, or as ~/… (the run's HOME; ~ for HOME itself), $TMPDIR/… ($TMPDIR itself), /dev/shm/…, /var/tmp/…, /run/lock/…, /run/user/UID/… or by their absolute path in a runner's tool cache (RUNNER_TOOL_CACHE, AGENT_TOOLSDIRECTORY)"

// anchoredPrefix is the literal text every match of the regular
// expression r starts with where r is anchored at the start of the text
// (^ without (?m), \A), and whether it is compared without case ((?i));
// ok is false where r is not so anchored, or starts with no literal.
// Groups around the start are looked through: (?i)^/tmp, ^(/tmp)/.
func anchoredPrefix(r string) (prefix string, fold, ok bool) {
	t, err := syntax.Parse(r, syntax.Perl)
	if err != nil {
		return "", false, false
	}
	var b strings.Builder
	anchored := false
	var walk func(t *syntax.Regexp) bool // false once the literal prefix ends
	walk = func(t *syntax.Regexp) bool {
		switch t.Op {
		case syntax.OpCapture:
			return walk(t.Sub[0])
		case syntax.OpConcat:
			for _, s := range t.Sub {
				if !walk(s) {
					return false
				}
			}
			return true
		case syntax.OpBeginText:
			if b.Len() > 0 {
				return false
			}
			anchored = true
			return true
		case syntax.OpEmptyMatch:
			return true
		case syntax.OpLiteral:
			if !anchored {
				return false
			}
			if t.Flags&syntax.FoldCase != 0 {
				fold = true
			}
			b.WriteString(string(t.Rune))
			return true
		}
		return false
	}
	walk(t)
	if !anchored || b.Len() == 0 {
		return "", false, false
	}
	return b.String(), fold, true
}

// mayBeUnder says whether a path that starts with prefix may lie under dir
// (or be dir's own start): one is a prefix of the other, without case
// where fold.
func mayBeUnder(prefix, dir string, fold bool) bool {
	if fold {
		prefix, dir = strings.ToLower(prefix), strings.ToLower(dir)
	}
	return strings.HasPrefix(prefix, dir) || strings.HasPrefix(dir, prefix)
}

// ParsePathPattern compiles a pattern. A pattern that can never match a
// recorded path (an absolute path in /tmp, /root, /home or a system
// directory (noToolCache), $HOME/… or ${TMPDIR}/…, a trailing '/', a ".."
// or "." segment, "~" alone) is an
// error naming the form to write instead: a no-write or wrote-only that
// never matches passes whatever the hook writes.
func ParsePathPattern(s string) (PathPattern, error) {
	if r, ok := strings.CutPrefix(s, "re:"); ok {
		re, err := regexp.Compile(r)
		if err != nil {
			return PathPattern{}, fmt.Errorf("regular expression %q: %w", r, err)
		}
		// An anchored "^/…" matches absolute paths only: it must be able
		// to match one under absDirs (/dev/shm/, /var/tmp/, /run/lock/,
		// /run/user/) or a tool cache. An
		// anchored $HOME/, ${HOME} or ${TMPDIR} is never recorded either.
		if lp, fold, ok := anchoredPrefix(r); ok {
			switch {
			case strings.HasPrefix(lp, "/") && !slices.ContainsFunc(absDirs[:], func(d string) bool { return mayBeUnder(lp, d, fold) && !(d == runUserDir && pastUIDs(lp)) }) && inNoToolCache(lp, true, fold):
				return PathPattern{}, fmt.Errorf("regular expression %q can never match: %s; anchor it on one of those instead (^\\$TMPDIR/ for /tmp, ^~/ for a home directory)", r, recordedForms)
			case lp == "$HOME" || strings.HasPrefix(lp, "$HOME/") || strings.HasPrefix(lp, "${HOME}") || strings.HasPrefix(lp, "${TMPDIR}"):
				return PathPattern{}, fmt.Errorf("regular expression %q can never match: %s; anchor it on one of those instead (^~/ for the run's HOME, ^\\$TMPDIR/ for its TMPDIR)", r, recordedForms)
			}
		}
		return PathPattern{Src: s, re: re}, nil
	}
	if s == "" {
		return PathPattern{}, fmt.Errorf("empty pattern")
	}
	if hint, ok := recordedForm(s); ok {
		return PathPattern{}, fmt.Errorf("%q can never match: %s; write %s", s, recordedForms, hint)
	}
	// A leading "./" anchors the glob at the root of the work tree. It is
	// kept where the record writes it too: before a tree path whose first
	// component is "~" or "$TMPDIR", which would read as HOME or TMPDIR
	// (evidence.TreePath).
	g, anchored := strings.CutPrefix(s, "./")
	if anchored && evidence.TreePath(g) != g {
		g = s
	}
	if err := neverRecorded(s, g, anchored); err != nil {
		return PathPattern{}, err
	}
	if err := backslashes(s); err != nil {
		return PathPattern{}, err
	}
	if err := gluedStars(s, !anchored && !strings.Contains(g, "/")); err != nil {
		return PathPattern{}, err
	}
	pp := PathPattern{Src: s, tree: anchored && g != s}
	if !anchored && !strings.Contains(g, "/") {
		pp.base = g
		g = "**/" + g
	}
	if _, err := globRegexp(g); err != nil {
		// Named as written, not as rewritten above.
		msg := strings.TrimPrefix(err.Error(), fmt.Sprintf("glob %q: ", g))
		return PathPattern{}, fmt.Errorf("glob %q: %s", s, msg)
	}
	pp.glob = g
	// "dir/**" matches dir itself too (a change of its own mode or
	// times) where dir's last segment is literal: with a wildcard there
	// ("packages/*/**") the second glob would match every file beside
	// the directories too, and a wrote-only of it would allow them.
	if d, ok := strings.CutSuffix(g, "/**"); ok && d != "" && !strings.ContainsAny(d[strings.LastIndex(d, "/")+1:], `*?[\`) {
		pp.dir = d
	}
	return pp, nil
}

// Covering is the pattern as no-write reads it: a glob also matches every
// path below one it matches, as a .gitignore line does (".git" forbids
// .git/hooks/post-commit, ".github/workflows" forbids
// .github/workflows/release.yml): a write there is one into what the
// pattern names. wrote-only does not widen what it allows so.
func (p PathPattern) Covering() PathPattern {
	if p.glob != "" {
		p.under = p.glob + "/**"
	}
	if p.folded == nil {
		var f PathPattern
		var err error
		if r, ok := strings.CutPrefix(p.Src, "re:"); ok {
			f, err = ParsePathPattern("re:(?i)" + r)
		} else {
			f, err = ParsePathPattern(FoldPath(p.Src))
		}
		if err == nil {
			if f.glob != "" {
				f.under = f.glob + "/**"
			}
			p.folded = &f
		}
	}
	return p
}

// MatchFolded is MatchWrite for a write as a file system that folds names
// would take it: the pattern made by Covering matches the folded path
// too. On macOS (case-insensitive APFS; HFS+, which also ignores some
// invisible code points) and Windows (case-insensitive NTFS, which drops a
// name's trailing dots and spaces), .GIT/hooks/post-commit, .g\u200cit/...
// and .git./... are .git/hooks/post-commit: a hook that writes one on
// Linux writes .git there.
func (p PathPattern) MatchFolded(path, kind string) bool {
	if p.MatchWrite(path, kind) {
		return true
	}
	return p.folded != nil && p.folded.MatchWrite(FoldPath(path), kind)
}

// FoldPath is path as a file system that folds names compares it: each
// name after the recorded area's prefix (~/, $TMPDIR/, /dev/shm/, ./)
// lower-cased, without the code points HFS+ ignores (zero-width joiners
// and the like), and without trailing dots and spaces (as Windows drops
// them). Canonical decomposition (HFS+'s NFD) is not applied.
func FoldPath(path string) string {
	prefix := ""
	for _, pre := range []string{"~/", "$TMPDIR/", shmDir, varTmpDir, "./"} {
		if strings.HasPrefix(path, pre) {
			prefix, path = pre, path[len(pre):]
			break
		}
	}
	segs := strings.Split(path, "/")
	for i, seg := range segs {
		f := foldCase(strings.Map(func(r rune) rune {
			if hfsIgnorable(r) {
				return -1
			}
			return r
		}, seg))
		if t := strings.TrimRight(f, ". "); t != "" {
			f = t
		}
		segs[i] = f
	}
	return prefix + strings.Join(segs, "/")
}

// foldCase is s case-folded as APFS folds a name: each letter by its
// simple case folding (lower(upper(r)), so that U+017F LATIN SMALL LETTER
// LONG S is s and U+212A KELVIN SIGN is k, which strings.ToLower alone
// leaves or maps apart), and the letters whose full folding is several
// (ß, the Latin ligatures ﬀ ﬁ ﬂ ﬃ ﬄ ﬅ ﬆ) as those: on a Mac
// .git/hooks/po\u017ft-commit and po\ufb06-commit are post-commit.
func foldCase(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		if m, ok := fullFold[r]; ok {
			b.WriteString(m)
			continue
		}
		b.WriteRune(unicode.ToLower(unicode.ToUpper(r)))
	}
	return b.String()
}

// fullFold holds the full case foldings (CaseFolding.txt, status F) of
// letters that fold to Latin letters.
var fullFold = map[rune]string{
	'\u00df': "ss", '\u1e9e': "ss",
	'\ufb00': "ff", '\ufb01': "fi", '\ufb02': "fl", '\ufb03': "ffi", '\ufb04': "ffl",
	'\ufb05': "st", '\ufb06': "st",
}

// hfsIgnorable says whether HFS+ ignores r in a name (as git's
// is_hfs_dotgit does).
func hfsIgnorable(r rune) bool {
	switch {
	case r >= 0x200c && r <= 0x200f, r >= 0x202a && r <= 0x202e, r >= 0x206a && r <= 0x206f, r == 0xfeff:
		return true
	}
	return false
}

// neverRecorded says why a glob (s as written, g without its anchoring
// "./") can match no recorded path, with the form to write instead; nil
// when it can.
func neverRecorded(s, g string, anchored bool) error {
	never := func(instead string) error {
		return fmt.Errorf("%q can never match: %s; write %s", s, recordedForms, instead)
	}
	if g == "" {
		return never(`"**" for any path, or "." for the work tree's root directory itself`)
	}
	if strings.HasSuffix(g, "/") {
		// Paths are recorded without a trailing '/'.
		return never(fmt.Sprintf("%q for everything in that directory and the directory itself", s+"**"))
	}
	if !anchored {
		// HOME and TMPDIR themselves are recorded as "~" and "$TMPDIR"
		// (a change of their mode or ACLs), but a pattern of one name
		// alone matches an entry of that name at any depth: said, with
		// the form that names the run's HOME or TMPDIR.
		switch g {
		case "~":
			return fmt.Errorf("%q alone names an entry called ~ at any depth of the work tree: write \"~/**\" for the run's HOME, itself and what is in it (or \"./~\" for an entry of the work tree named ~)", s)
		case "$TMPDIR":
			return fmt.Errorf("%q alone names an entry called $TMPDIR at any depth of the work tree: write \"$TMPDIR/**\" for the run's TMPDIR, itself and what is in it", s)
		}
		// No variable is expanded: $TMPDIR is a recorded form as it is.
		// (Another "$NAME/…" is a tree path: a directory of that name.)
		if rest, ok := strings.CutPrefix(g, "${TMPDIR}"); ok && (rest == "" || rest[0] == '/') {
			return never(fmt.Sprintf("%q (no braces; \"./\" in front for an entry of the work tree with that name)", "$TMPDIR"+orDefault(rest, "/**")))
		}
	}
	segs := strings.Split(g, "/")
	if anchored && g == s || strings.HasPrefix(g, "/") {
		// "./~/…", "./$TMPDIR/…": the "./" is part of the recorded
		// path; and an absolute path's first segment is empty.
		segs = segs[1:]
	}
	for _, seg := range segs {
		if seg != "" && seg != "." && seg != ".." {
			continue
		}
		if g == "." && !anchored {
			return nil // the work tree's root directory (and "." anywhere)
		}
		clean := path.Clean(s)
		switch {
		case leavesDir(clean):
			return never(`a path inside the work tree (".." leads out of it, where nothing is recorded)`)
		case strings.HasPrefix(s, "~/") || strings.HasPrefix(s, "$TMPDIR/") || strings.HasPrefix(s, "/") || anchored:
			return never(fmt.Sprintf("the path without %q segments", orDefault(seg, "empty")))
		}
		if clean == "." {
			clean = "**"
		}
		return never(fmt.Sprintf("%q (paths are recorded without \".\", \"..\" or empty segments)", clean))
	}
	return nil
}

// backslashes refuses a '\' outside a class in glob s, with the form to
// write instead: globRegexp reads it as a backslash in the name, where
// gitignore reads it as an escape of the next character, so that
// "file\[1\].txt" would never match the file[1].txt its author means. A
// class of one character matches that character as it is ("[[]", "[*]",
// "[?]"), and "[\]" a backslash.
func backslashes(s string) error {
	var b strings.Builder
	found := false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '[':
			if j := strings.IndexByte(s[i+1:], ']'); j >= 0 {
				b.WriteString(s[i : i+j+2])
				i += j + 1
				continue
			}
			b.WriteByte(c)
		case c != '\\':
			b.WriteByte(c)
		case i+1 == len(s):
			found = true
			b.WriteString(`[\]`)
		default:
			found = true
			i++
			switch e := s[i]; e {
			case '[', '*', '?', '\\':
				b.WriteString("[" + string(e) + "]")
			default:
				b.WriteByte(e)
			}
		}
	}
	if !found {
		return nil
	}
	return fmt.Errorf("glob %q: a backslash outside a class is no escape in a write pattern (it would match a backslash in the name, where gitignore escapes the next character with it): write %q (a class of one character matches it as it is: [[], [*], [?]; [\\] a backslash)", s, b.String())
}

// gluedStars refuses a run of '*' other than a "**" that is a whole
// segment of glob s ("**/", "/**", "/**/"), with the forms to write
// instead; base says s is a base name, matched at any depth. gitignore
// reads "notes**" as "notes*", within one segment, where globRegexp would
// read it as "notes.*" and match x/notes-evil/anything at any depth:
// neither reading is sure to be its author's, and a wrote-only of one
// allows what the other does not.
func gluedStars(s string, base bool) error {
	var one, across strings.Builder
	glued := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '[' {
			// A class is copied as it is: a '*' in it is literal.
			if j := strings.IndexByte(s[i+1:], ']'); j >= 0 {
				one.WriteString(s[i : i+j+2])
				across.WriteString(s[i : i+j+2])
				i += j + 1
				continue
			}
		}
		if c != '*' {
			one.WriteByte(c)
			across.WriteByte(c)
			continue
		}
		j := i
		for j < len(s) && s[j] == '*' {
			j++
		}
		before, after := i > 0 && s[i-1] != '/', j < len(s) && s[j] != '/'
		if j-i == 1 || j-i == 2 && !before && !after {
			one.WriteString(s[i:j])
			across.WriteString(s[i:j])
			i = j - 1
			continue
		}
		glued = true
		one.WriteByte('*')
		if before {
			across.WriteString("*/")
		}
		across.WriteString("**")
		if after {
			across.WriteString("/*")
		}
		i = j - 1
	}
	if !glued {
		return nil
	}
	a := across.String()
	if base && strings.Contains(a, "/") && !strings.HasPrefix(a, "**/") {
		a = "**/" + a
	}
	if base && a == "**/"+one.String() {
		// A base name is matched at any depth already.
		return fmt.Errorf("glob %q: \"**\" spans directories only as a whole segment (\"**/\", \"/**\", \"/**/\"), and gitignore reads one glued to other characters as \"*\": write %q", s, one.String())
	}
	return fmt.Errorf("glob %q: \"**\" spans directories only as a whole segment (\"**/\", \"/**\", \"/**/\"), and gitignore reads one glued to other characters as \"*\": write %q for one segment, as gitignore reads it, or %q to span directories", s, one.String(), a)
}

// recordedForm returns, for a glob in a form writes are never recorded
// in, what to write instead.
func recordedForm(g string) (string, bool) {
	under := func(prefix string) (string, bool) {
		rest, ok := strings.CutPrefix(g, prefix)
		if !ok || rest != "" && rest[0] != '/' {
			return "", false
		}
		return orDefault(rest, "/**"), true
	}
	for _, home := range []string{"$HOME", "${HOME}"} {
		if rest, ok := under(home); ok {
			return fmt.Sprintf("%q (the run's HOME is recorded as ~)", "~"+rest), true
		}
	}
	if !strings.HasPrefix(g, "/") {
		return "", false
	}
	// Up to its first wildcard, an absolute glob must be able to go on
	// into one of absDirs (/dev/shm/, /var/tmp/, /run/lock/, /run/user/:
	// "/**" and "/run/**" can; "/tmp/**" cannot) or a tool cache
	// (anywhere but noToolCache).
	lit := g
	if i := strings.IndexAny(g, "*?["); i >= 0 {
		lit = g[:i]
	}
	for _, d := range absDirs {
		if g == strings.TrimSuffix(d, "/") {
			return fmt.Sprintf("%q", d+"**"), true
		}
		if (strings.HasPrefix(lit, d) || strings.HasPrefix(d, lit)) && !(d == runUserDir && pastUIDs(lit)) {
			return "", false
		}
	}
	if rest, ok := under("/tmp"); ok {
		return fmt.Sprintf("%q (the run's /tmp is recorded as $TMPDIR)", "$TMPDIR"+rest), true
	}
	if rest, ok := under("/root"); ok {
		return fmt.Sprintf("%q (the run's HOME is recorded as ~)", "~"+rest), true
	}
	if rest, ok := strings.CutPrefix(g, "/home/"); ok {
		_, after, _ := strings.Cut(rest, "/")
		return fmt.Sprintf("%q (the run's HOME is recorded as ~)", "~/"+orDefault(after, "**")), true
	}
	if !inNoToolCache(lit, lit == g, false) {
		return "", false
	}
	return "the path relative to the work tree (such as .git/hooks/**), or under ~/, $TMPDIR/, /dev/shm/, /var/tmp/, /run/lock/, /run/user/UID/ or a runner's tool cache", true
}

// regexp is the expression the pattern's main form is matched by: its
// re:, or its glob's (nil for a malformed one, which ParsePathPattern
// refuses).
func (p PathPattern) regexp() *regexp.Regexp {
	if p.re != nil {
		return p.re
	}
	re, _ := globRegexp(p.glob)
	return re
}

// Match reports whether a written path matches.
func (p PathPattern) Match(path string) bool { return p.MatchWrite(path, "") }

// MatchWrite reports whether a write of path, of the kind the record
// gives it ("" where it gives none, as for a delete), matches: the
// directory a "dir/**" glob is under only as a directory (or of no known
// kind), never a file, link or device that stands at its path.
func (p PathPattern) MatchWrite(path, kind string) bool {
	if p.tree && !treePath(path) {
		return false
	}
	if p.re != nil {
		return p.re.MatchString(path)
	}
	asDir := p.dir != "" && (kind == "" || kind == "dir")
	return globMatch(p.glob, path) || asDir && globMatch(p.dir, path) || p.under != "" && globMatch(p.under, path)
}

// treePath says whether a recorded path is the work tree's: not HOME's
// (~, ~/…), TMPDIR's ($TMPDIR, $TMPDIR/…) or absolute (/dev/shm, /var/tmp,
// a tool cache).
func treePath(p string) bool {
	a, _ := area(p)
	return a == "" && p != "~" && p != "$TMPDIR" && !strings.HasPrefix(p, "/")
}

// holdsBelow says whether the glob can match a path below dir, a
// recorded path (the work tree's root "."): its literal start, up to its
// first wildcard, lies under dir ("./.git/hooks/**" and ".git/hooks/x"
// below "." and ".git"). A glob that starts with a wildcard, a base-name
// glob (which matches at any depth) and a regular expression say nothing
// of where they match, and are not taken so.
func (p PathPattern) holdsBelow(dir string) bool {
	if p.re != nil || p.base != "" || p.glob == "" {
		return false
	}
	lit := p.glob
	if i := strings.IndexAny(lit, `*?[\`); i >= 0 {
		lit = lit[:i]
	}
	if i := strings.LastIndexByte(lit, '/'); i >= 0 {
		lit = lit[:i]
	} else {
		return false // no whole directory before the first wildcard
	}
	if lit == "" {
		return false
	}
	if dir == "." {
		// The glob is in the recorded form: a tree path, else under
		// ~/, $TMPDIR/ or an absolute directory.
		a, _ := area(lit)
		return a == "" && !strings.HasPrefix(lit, "/")
	}
	return strings.HasPrefix(lit+"/", dir+"/")
}

// HostPattern is an egress-only entry: an exact host, "*.suffix" (any
// subdomain, not the suffix itself), an IP, each optionally with ":port".
type HostPattern struct {
	Src  string
	host string
	port int
}

// ParseHostPattern parses an egress-only entry.
func ParseHostPattern(s string) (HostPattern, error) {
	h := strings.ToLower(strings.TrimSpace(s))
	if h == "" {
		return HostPattern{}, fmt.Errorf("empty host")
	}
	if strings.ContainsAny(h, "/ \t") {
		return HostPattern{}, fmt.Errorf("host %q: want a host name, not a URL%s", s, evidence.URLHostHint(strings.TrimSpace(s)))
	}
	port := 0
	if strings.HasPrefix(h, "[") { // [v6]:port
		end := strings.IndexByte(h, ']')
		if end < 0 {
			return HostPattern{}, fmt.Errorf("host %q: unterminated IPv6 literal", s)
		}
		rest := h[end+1:]
		h = h[1:end]
		if rest != "" {
			p, err := parsePort(strings.TrimPrefix(rest, ":"))
			if err != nil || !strings.HasPrefix(rest, ":") {
				return HostPattern{}, fmt.Errorf("host %q: bad port", s)
			}
			port = p
		}
	} else if i := strings.LastIndexByte(h, ':'); i >= 0 && strings.Count(h, ":") == 1 {
		p, err := parsePort(h[i+1:])
		if err != nil {
			return HostPattern{}, fmt.Errorf("host %q: bad port: %w", s, err)
		}
		h, port = h[:i], p
	}
	if strings.Contains(h[min(len(h), 1):], "*") && !strings.HasPrefix(h, "*.") || strings.Count(h, "*") > 1 {
		return HostPattern{}, fmt.Errorf("host %q: a wildcard is allowed only as a leading \"*.\"", s)
	}
	if strings.ContainsAny(h, "/ \t") {
		return HostPattern{}, fmt.Errorf("host %q: want a host name, not a URL", s)
	}
	h, err := recordedHost(s, h, port)
	if err != nil {
		return HostPattern{}, err
	}
	return HostPattern{Src: s, host: h, port: port}, nil
}

// recordedHost is h, an egress-only entry's host (s as written), in the
// form the record names a destination in, or why no record ever names
// it so: an entry that never matches fails every run that reaches what it
// means. An address is recorded as netip writes it (::1, not
// 0:0:0:0:0:0:0:1; 10.0.0.1, not ::ffff:10.0.0.1, which is an IPv4
// connect), never in the forms a resolver also reads (127.1, 0x7f.0.0.1,
// 010.0.0.1, 2130706433); a name as DNS carries it, in ASCII (an IDN's
// xn-- form); and a wildcard matches names, not addresses (*.0.0.1).
// The form it gives keeps the entry's port (port, 0 for none).
func recordedHost(s, h string, port int) (string, error) {
	bare := strings.TrimSuffix(h, ".")
	if a, err := netip.ParseAddr(bare); err == nil {
		if a.Zone() != "" {
			return "", fmt.Errorf("host %q: an address is recorded without its zone: write %s", s, withPort(a.WithZone("").Unmap(), port))
		}
		return a.Unmap().String(), nil
	}
	if a, ok := evidence.LooseIPv4(bare); ok {
		portHint := ""
		if !strings.Contains(bare, ".") {
			portHint = " (a port goes after its host: api.example.test:443)"
		}
		return "", fmt.Errorf("host %q: an IPv4 address written so (a resolver reads it as %s) is recorded as four decimal numbers without leading zeros: write %s%s", s, a, withPort(a, port), portHint)
	}
	if suf, ok := strings.CutPrefix(bare, "*."); ok {
		if _, err := netip.ParseAddr(suf); err == nil || isLegacyIPv4Tail(suf) {
			return "", fmt.Errorf("host %q: a wildcard matches host names, not addresses: list each address", s)
		}
	}
	for _, r := range h {
		if r >= utf8.RuneSelf {
			return "", fmt.Errorf("host %q: DNS and the record carry a name in ASCII: write an internationalized name in its xn-- (punycode) form, as a resolver sends it", s)
		}
	}
	return h, nil
}

// withPort is a as an egress-only entry writes it with port (none for
// 0): 10.0.0.1:443, [fe80::1]:80.
func withPort(a netip.Addr, port int) string {
	if port == 0 {
		return a.String()
	}
	return netip.AddrPortFrom(a, uint16(port)).String()
}

// isLegacyIPv4Tail says whether every label of s is a number inet_aton
// reads (the end of an address, after a wildcard: 0.0.1, 0x1).
func isLegacyIPv4Tail(s string) bool {
	for _, p := range strings.Split(s, ".") {
		if _, ok := evidence.LooseIPv4(p); !ok {
			return false
		}
	}
	return true
}

func parsePort(s string) (int, error) {
	p, err := strconv.Atoi(s)
	if err != nil || p < 1 || p > 65535 {
		return 0, fmt.Errorf("port %q: want 1-65535", s)
	}
	return p, nil
}

// Match reports whether host (and port, 0 = unknown) is covered.
func (p HostPattern) Match(host string, port int) bool {
	return p.matchPort(host, port, false)
}

// matchPort is Match where known says that port is the destination's
// own, 0 included: a packet to port 0, or one of a protocol with no
// port (ICMP), is no attempt at the pattern's port. Only a destination
// whose port the record cannot know (a DNS question for the name) is
// taken by a pattern with a port.
func (p HostPattern) matchPort(host string, port int, known bool) bool {
	if p.port != 0 && (known || port != 0) && p.port != port {
		return false
	}
	return hostMatch(p.host, host)
}

// hostMatch matches a host against an exact name or "*.suffix".
func hostMatch(pat, host string) bool {
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	pat = strings.TrimSuffix(strings.ToLower(pat), ".")
	if host == "" {
		return false
	}
	if suf, ok := strings.CutPrefix(pat, "*."); ok {
		return strings.HasSuffix(host, "."+suf)
	}
	if pat == "*" {
		return true
	}
	return pat == host
}
