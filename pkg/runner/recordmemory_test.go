package runner

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/vigiles/action/internal/allocs"
	"github.com/vigiles/action/pkg/evidence"
	"github.com/vigiles/action/pkg/sandbox/sandboxtest"
)

// TestSortedWrites: a record is ordered by path, then op, entries that
// compare equal kept in their order, as a sorted copy ordered it; nil
// stays nil (not recorded) and an empty record empty. One in order
// already, as the init lists the record of one area, is kept as it is,
// with nothing allocated.
func TestSortedWrites(t *testing.T) {
	// What sortedWrites was: a copy sorted by path, then op, stably.
	copied := func(ws []evidence.Write) []evidence.Write {
		if ws == nil {
			return nil
		}
		out := append([]evidence.Write{}, ws...)
		sort.SliceStable(out, func(i, j int) bool {
			if out[i].Path != out[j].Path {
				return out[i].Path < out[j].Path
			}
			return out[i].Op < out[j].Op
		})
		return out
	}
	w := func(path string, op evidence.Op, kind string) evidence.Write {
		return evidence.Write{Path: path, Op: op, Kind: kind}
	}
	for _, tc := range []struct {
		name string
		ws   []evidence.Write
	}{
		{"not recorded", nil},
		{"nothing", []evidence.Write{}},
		{"in order", []evidence.Write{w("a", evidence.OpCreate, "file"), w("a/b", evidence.OpCreate, "file"), w("b", evidence.OpDelete, "")}},
		// The init lists the work tree, then /dev/shm, HOME and $TMPDIR.
		{"the init's areas", []evidence.Write{w("a", evidence.OpCreate, "file"), w("/dev/shm/x", evidence.OpCreate, "file"),
			w("~", evidence.OpModify, "dir"), w("~/c", evidence.OpCreate, "file"), w("$TMPDIR/d", evidence.OpCreate, "file")}},
		{"a path twice, by op", []evidence.Write{w("a", evidence.OpModify, "file"), w("a", evidence.OpDelete, ""), w("a", evidence.OpCreate, "dir")}},
		// Equal in path and op: their order is kept.
		{"equal entries", []evidence.Write{w("b", evidence.OpCreate, "file"), w("a", evidence.OpCreate, "dir"), w("a", evidence.OpCreate, "file"),
			w("a", evidence.OpCreate, "symlink"), w("a", evidence.OpCreate, "other")}},
		{"names past ASCII and not UTF-8", []evidence.Write{w("é", evidence.OpCreate, "file"), w("e\xff", evidence.OpCreate, "file"),
			w("e\xfe", evidence.OpCreate, "file"), w("\U0001F600", evidence.OpCreate, "file"), w("\uFFFD", evidence.OpCreate, "file")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := copied(tc.ws)
			got := sortedWrites(slices.Clone(tc.ws))
			if (got == nil) != (want == nil) || !slices.Equal(got, want) {
				t.Errorf("sortedWrites(%q) = %q; want %q", tc.ws, got, want)
			}
		})
	}

	ws := make([]evidence.Write, 1000)
	for i := range ws {
		ws[i] = w(fmt.Sprintf("d/%04d", i), evidence.OpCreate, "file")
	}
	var got []evidence.Write
	if n := allocs.Fewest(10, func() { got = sortedWrites(ws) }); n != 0 {
		t.Errorf("sortedWrites of a record in order allocated %v times; want none", n)
	}
	if &got[0] != &ws[0] {
		t.Errorf("sortedWrites of a record in order made another; want the record itself")
	}
}

// TestRecordOfEveryAreaIsSorted: a hook that writes in the work tree,
// /dev/shm, HOME and $TMPDIR, whose record the init lists area by area
// (not in order of path), has it in its report ordered by path.
func TestRecordOfEveryAreaIsSorted(t *testing.T) {
	sandboxtest.RequireConfinement(t)
	dir := makeTree(t, map[string]string{
		"a/.claude-plugin/plugin.json": `{"name": "a"}`,
		"a/hooks/hooks.json":           `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "touch z y /dev/shm/x ~/w $TMPDIR/v"}]}]}}`,
	})
	rep, err := Audit(context.Background(), Options{Dir: dir, Sandbox: "strict"})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Runs) != 1 {
		t.Fatalf("%d runs; want 1", len(rep.Runs))
	}
	var paths []string
	for _, w := range rep.Runs[0].Writes {
		paths = append(paths, w.Path)
	}
	for _, want := range []string{"z", "y", "/dev/shm/x", "~/w", "$TMPDIR/v"} {
		if !slices.Contains(paths, want) {
			t.Errorf("the record %q does not list %q", paths, want)
		}
	}
	if !slices.IsSorted(paths) {
		t.Errorf("the record lists %q; want it in order of path", paths)
	}
}

// sessionEnvNames are paths under ~/.claude/session-env as a file system
// that folds names takes them (cased, with code points HFS+ ignores,
// with trailing dots and spaces), paths that only look so, paths of
// every area, and names that are not UTF-8 (shown, as the record's are
// read).
var sessionEnvNames = []string{
	"", "~", "~/", "./d/1", "d/1", "~/.claude/session-env/x.sh", "~/.claude/session-env/", "~/.claude/session-env",
	"~/.claude/session-env/s/x.sh", "~/.Claude/SESSION-ENV/x", "~/.claude./session-env /x", "~/.c\u200claude/session-env/x",
	"~./.claude/session-env/x", "~ /.claude/session-env/x", "\u200c~/.claude/session-env/x", "\ufeff~/.claude/session-env/x",
	"~\u200d/.claude/session-env/x", "~~/.claude/session-env/x", "./~/.claude/session-env/x", "$TMPDIR/.claude/session-env/x",
	"/dev/shm/.claude/session-env/x", "/~/.claude/session-env/x", "~/.claude/session-envx/y", "~/.claude/session/env/x",
	"~/.cla\u017fde/session-env/x", "~/.claude/se\u017f\u017fion-env/x", "~/.claude/\ufb06ession-env/x", "~/.claude/session-env/x\xff",
	"~/.claude\xff/session-env/x", "~\xff/.claude/session-env/x", "\xff~/.claude/session-env/x", "~/.CLAUDE/session-env/\u00e9",
	"\u212a/.claude/session-env/x", "~/.claude/session-env/.../x", "~/.claude/ session-env/x", "~/.claude/session-env\u200e/x",
}

// TestInSessionEnv: inSessionEnv says what strings.HasPrefix(FoldPath(p),
// sessionEnvDir) does of a shown path, and folds nothing of a path that
// cannot be under it.
func TestInSessionEnv(t *testing.T) {
	for _, p := range sessionEnvNames {
		p := evidence.ShownPath(p)
		if got, want := inSessionEnv(p), strings.HasPrefix(FoldPath(p), sessionEnvDir); got != want {
			t.Errorf("inSessionEnv(%q) = %v; FoldPath says %v", p, got, want)
		}
	}
	for _, p := range []string{"d/1", "./d/12345", "$TMPDIR/a/b/c/d", "~/a", "~/.cache/x"} {
		if n := allocs.Fewest(10, func() { inSessionEnv(p) }); n != 0 {
			t.Errorf("inSessionEnv(%q) allocated %v times; want none", p, n)
		}
	}
}

// FuzzInSessionEnv: inSessionEnv is strings.HasPrefix(FoldPath(p),
// sessionEnvDir) for any shown path.
func FuzzInSessionEnv(f *testing.F) {
	for _, p := range sessionEnvNames {
		f.Add(p)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p := evidence.ShownPath(s)
		if !utf8.ValidString(p) {
			t.Fatalf("ShownPath(%q) is not UTF-8", s)
		}
		if got, want := inSessionEnv(p), strings.HasPrefix(FoldPath(p), sessionEnvDir); got != want {
			t.Errorf("inSessionEnv(%q) = %v; FoldPath says %v", p, got, want)
		}
	})
}

// persistNames are work-tree paths with a name .git or .claude, and with
// names that only hold those.
var persistNames = []string{
	"", "/", "d/1", ".git", ".git/", "/.git", ".git/hooks/pre-commit", "a/.git/config", ".github/workflows/x", "x.git/hooks/a",
	".claude/settings.json", "a/.claude/rules/x.md", ".claude-plugin/plugin.json", "a//.git//hooks/x", ".claude/", "my.claude/commands/x",
}

// TestPersistsWhySplitsOnlyWhatItReads: a work-tree path none of whose
// names is .git or .claude is one persistsWhy's reading of its names
// (treePersistsWhy) says nothing of, so it is not split; hasName finds
// a name as splitting the path would; and persistsWhy of a path of
// neither allocates nothing.
func TestPersistsWhySplitsOnlyWhatItReads(t *testing.T) {
	for _, rel := range persistNames {
		checkPersistGate(t, rel)
	}
	for _, p := range []string{"d/1", "./d/12345", "src/a/b/c/main.go", ".github/workflows/ci.yml", "docs/CLAUDE.md"} {
		if n := allocs.Fewest(10, func() { persistsWhy(p) }); n != 0 {
			t.Errorf("persistsWhy(%q) allocated %v times; want none", p, n)
		}
	}
}

func checkPersistGate(t *testing.T, rel string) {
	t.Helper()
	segs := strings.Split(rel, "/")
	for _, n := range []string{".git", ".claude"} {
		if got, want := hasName(rel, n), slices.Contains(segs, n); got != want {
			t.Errorf("hasName(%q, %q) = %v; want %v", rel, n, got, want)
		}
	}
	if !hasName(rel, ".git") && !hasName(rel, ".claude") {
		if why := treePersistsWhy(segs); why != "" {
			t.Errorf("%q, with no name .git or .claude, persists: %s", rel, why)
		}
	}
}

// FuzzPersistsWhyGate: what TestPersistsWhySplitsOnlyWhatItReads says,
// of any path.
func FuzzPersistsWhyGate(f *testing.F) {
	for _, p := range persistNames {
		f.Add(p)
	}
	f.Fuzz(checkPersistGate)
}
