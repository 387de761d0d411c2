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
		return treeForm{} // nothing to tell apart: leaves every text as it is
	}
	t := transcriptDir(tree)
	return treeForm{tree: tree, transcripts: t, written: "~" + strings.TrimPrefix(t, sandbox.Home)}
}

// text replaces, in s, the tree's path where it stands as a path of its
// own (not within a longer name: /a/tmp/repo or /tmp/repo2 for /tmp/repo)
// and its transcript directory (whose name a package's directory below
// the tree lengthens with '-'), with workTreeMark.
func (f treeForm) text(s string) string {
	if f.tree == "" {
		return s
	}
	s = replaceBounded(s, f.transcripts, sandbox.Home+"/.claude/projects/"+workTreeMark, true)
	return replaceBounded(s, f.tree, workTreeMark, false)
}

// path is a written path with the tree's transcript directory's name
// (~/.claude/projects/-tmp-repo…) replaced.
func (f treeForm) path(p string) string {
	if f.tree == "" {
		return p
	}
	rest, ok := strings.CutPrefix(p, f.written)
	if !ok || rest != "" && rest[0] != '/' && rest[0] != '-' {
		return p
	}
	return "~/.claude/projects/" + workTreeMark + rest
}

// replaceBounded replaces each old in s that no name character comes
// right before and none right after (dash: '-' may come after), with new.
func replaceBounded(s, old, new string, dash bool) string {
	if !strings.Contains(s, old) {
		return s
	}
	var b strings.Builder
	done := 0 // s[:done] is written
	for from := 0; ; {
		k := strings.Index(s[from:], old)
		if k < 0 {
			break
		}
		i := from + k
		end := i + len(old)
		before := i == 0 || s[i-1] == '/' || !nameByte(s[i-1])
		after := end == len(s) || s[end] == '/' || !nameByte(s[end]) || dash && s[end] == '-'
		if !before || !after {
			from = i + 1 // another may begin within this one
			continue
		}
		b.WriteString(s[done:i])
		b.WriteString(new)
		done, from = end, end
	}
	b.WriteString(s[done:])
	return b.String()
}

// nameByte says whether c can be part of a file name in a path as text
// is usually written: letters, digits, ".", "_", "-", "~", "+", "%", and
// every byte of a character past ASCII. Anything else (a quote, ':', '=',
// a space, '/') ends one.
func nameByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c >= 0x80 || strings.IndexByte("._-~+%", c) >= 0
}

// runs returns copies of runs as a baseline keeps them: their written
// paths, links' targets, env file and decides in the tree's form. The
// report keeps what the hook wrote, as it wrote it.
func (f treeForm) runs(runs []report.HookRun) []report.HookRun {
	if f.tree == "" {
		return runs
	}
	out := make([]report.HookRun, len(runs))
	for i, r := range runs {
		if r.Writes != nil {
			ws := make([]evidence.Write, len(r.Writes))
			for j, w := range r.Writes {
				w.Path = f.path(w.Path)
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
