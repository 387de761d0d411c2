package runner

import (
	"strings"

	"github.com/vigiles/action/pkg/evidence"
	"github.com/vigiles/action/pkg/report"
	"github.com/vigiles/action/pkg/sandbox"
)

// workTreeMark is how a baseline, and the drift compared with it, write
// the work tree's absolute path where a hook wrote it: in where a link it
// made leads, in what it left in CLAUDE_ENV_FILE, in what it tells Claude
// Code about the call (decides), and as the name of the directory Claude
// Code keeps the tree's transcripts in (~/.claude/projects/, the tree's
// path with '-' for each other character). The hook sees the tree where
// the caller has it, so "export PATH=${CLAUDE_PLUGIN_ROOT}/bin:$PATH",
// expanded, names the checkout; kept as it was, a baseline written in one
// clone drifted in every other (a developer's ~/src/repo against CI's
// workspace), and a link into a tree that lies under /tmp read as one
// into the throwaway TMPDIR.
const workTreeMark = "<work tree>"

// treeForm puts workTreeMark in place of the work tree's absolute path
// (tree, every link in it followed, as the sandbox shows it to the hook)
// in what a baseline keeps of a run.
type treeForm struct {
	tree string
	// transcripts is the tree's transcript directory as the hook sees it
	// (transcriptDir), written is how a record names it ("~/…").
	transcripts, written string
}

func newTreeForm(tree string) treeForm {
	if tree == "" || tree == "/" {
		// No path to tell apart: the form only escapes workTreeMark as
		// a hook wrote it, as in any other checkout.
		return treeForm{}
	}
	t := transcriptDir(tree)
	return treeForm{tree: tree, transcripts: t, written: "~" + strings.TrimPrefix(t, sandbox.Home)}
}

// text replaces, in s, the tree's path where it stands as a path of its
// own (not within a longer name: /a/tmp/repo or /tmp/repo2 for /tmp/repo)
// and its transcript directory (whose name a package's directory below
// the tree lengthens with '-'), with workTreeMark. The form tells every
// two texts apart that it does not take for the same path in another
// checkout: workTreeMark as the hook wrote it, with any '\' after its
// '<', gets one '\' more (escapeMarks: "<work tree>" is written
// "<\work tree>"), and the tree's path right after the transcripts'
// parent (~/.claude/projects//tmp/repo, which is no transcript
// directory) is kept as it is. Else a hook that wrote the mark itself,
// or such a path, compared equal to the baseline that accepted the
// tree's path, or its transcripts.
func (f treeForm) text(s string) string {
	if f.tree == "" {
		return escapeMarks(s)
	}
	projects := sandbox.Home + "/.claude/projects/"
	var b strings.Builder
	done := 0 // s[:done] is written
	// The next place each may begin at or after from (len(s)+1: none).
	find := func(sub string, from int) int {
		if from > len(s) {
			return len(s) + 1
		}
		if k := strings.Index(s[from:], sub); k >= 0 {
			return from + k
		}
		return len(s) + 1
	}
	nt, np, nl := find(f.transcripts, 0), find(f.tree, 0), find("<", 0)
	for {
		i := min(nt, np, nl)
		if i > len(s) {
			break
		}
		switch {
		case i == nt && bounded(s, i, len(f.transcripts), true):
			b.WriteString(s[done:i])
			b.WriteString(projects + workTreeMark)
			done = i + len(f.transcripts)
		case i == np && bounded(s, i, len(f.tree), false) && !strings.HasSuffix(s[:i], projects):
			b.WriteString(s[done:i])
			b.WriteString(workTreeMark)
			done = i + len(f.tree)
		case i == nl && isMark(s[i:]):
			b.WriteString(s[done : i+1])
			b.WriteByte('\\')
			done = i + 1
		}
		// Another may begin within this one where it was not replaced.
		from := max(i+1, done)
		if nt < from {
			nt = find(f.transcripts, from)
		}
		if np < from {
			np = find(f.tree, from)
		}
		if nl < from {
			nl = find("<", from)
		}
	}
	if done == 0 {
		return s
	}
	b.WriteString(s[done:])
	return b.String()
}

// path is a written path with the tree's transcript directory's name
// (~/.claude/projects/-tmp-repo…) replaced, and workTreeMark as the hook
// wrote it escaped (escapeMarks): a directory it named "<work tree>"
// there is not the transcripts'. That name is replaced where the path
// holds it elsewhere too, as a name of its own (or lengthened with '-',
// as a package's below the tree lengthens it): a hook that files what it
// keeps by its transcripts' directory (~/.claude-archive/-tmp-repo/…)
// names it after the checkout's path, which differs in every other.
func (f treeForm) path(p string) string {
	if f.tree == "" {
		return escapeMarks(p)
	}
	if rest, ok := strings.CutPrefix(p, f.written); ok && (rest == "" || rest[0] == '/' || rest[0] == '-') {
		return "~/.claude/projects/" + workTreeMark + escapeMarks(rest)
	}
	slug := f.written[strings.LastIndexByte(f.written, '/')+1:]
	parts := strings.Split(p, "/")
	for i, c := range parts {
		if rest, ok := strings.CutPrefix(c, slug); ok && (rest == "" || rest[0] == '-') {
			parts[i] = workTreeMark + escapeMarks(rest)
		} else {
			parts[i] = escapeMarks(c)
		}
	}
	return strings.Join(parts, "/")
}

// isMark says whether s begins with workTreeMark, or with it with one or
// more '\' after its '<' (an escaped one).
func isMark(s string) bool {
	rest, ok := strings.CutPrefix(s, "<")
	return ok && strings.HasPrefix(strings.TrimLeft(rest, "\\"), workTreeMark[1:])
}

// escapeMarks writes one more '\' after the '<' of each workTreeMark in
// s, escaped or not.
func escapeMarks(s string) string {
	if !strings.Contains(s, workTreeMark[1:]) {
		return s
	}
	var b strings.Builder
	done := 0
	for i := 0; i < len(s); i++ {
		if s[i] == '<' && isMark(s[i:]) {
			b.WriteString(s[done : i+1])
			b.WriteByte('\\')
			done = i + 1
		}
	}
	b.WriteString(s[done:])
	return b.String()
}

// bounded says whether old, at s[i:i+n], stands as a path of its own: no
// name character comes right before it, and none right after (dash: '-'
// may come after).
func bounded(s string, i, n int, dash bool) bool {
	end := i + n
	before := i == 0 || s[i-1] == '/' || !nameByte(s[i-1])
	after := end == len(s) || s[end] == '/' || !nameByte(s[end]) || dash && s[end] == '-'
	return before && after
}

// nameByte says whether c can be part of a file name in a path as text
// is usually written: letters, digits, ".", "_", "-", "~", "+", "%", and
// every byte of a character past ASCII. Anything else (a quote, ':', '=',
// a space, '/') ends one.
func nameByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c >= 0x80 || strings.IndexByte("._-~+%", c) >= 0
}

// runs returns copies of runs as a baseline keeps them: their written
// paths (and the paths renamed from), links' targets, env file and
// decides in the tree's form. The
// report keeps what the hook wrote, as it wrote it.
func (f treeForm) runs(runs []report.HookRun) []report.HookRun {
	out := make([]report.HookRun, len(runs))
	for i, r := range runs {
		if r.Writes != nil {
			ws := make([]evidence.Write, len(r.Writes))
			for j, w := range r.Writes {
				w.Path = f.path(w.Path)
				if w.From != "" {
					w.From = f.path(w.From)
				}
				if w.Target != "" {
					w.Target = f.text(w.Target)
				}
				ws[j] = w
			}
			r.Writes = ws
		}
		// A file cut at its cap is not compared (envText): its text,
		// note and all, is kept as it was.
		if ef := r.EnvFile; ef != nil && ef.Content != nil && !ef.Truncated {
			if t := ef.Text(); f.text(t) != t {
				c := *ef
				nt := f.text(t)
				c.Content, c.Encoding = &nt, ""
				r.EnvFile = &c
			}
		}
		r.Decides = f.text(r.Decides)
		out[i] = r
	}
	return out
}
