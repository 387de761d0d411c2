package runner

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vigiles/action/pkg/evidence"
	"github.com/vigiles/action/pkg/report"
	"github.com/vigiles/action/pkg/runner/runnertest"
	"github.com/vigiles/action/pkg/sandbox"
	"github.com/vigiles/action/pkg/sandbox/sandboxtest"
)

// TestBaselineOfAnotherCheckout audits, confined, a tree whose hooks
// write its absolute path (a link into it, CLAUDE_PLUGIN_ROOT expanded in
// CLAUDE_ENV_FILE, a file beside the session's transcript, whose
// directory Claude Code names after the tree, and a rewritten file_path),
// accepts the audit, then audits the same tree checked out at another
// path against that baseline: no drift, the same baseline written again,
// and no path of either checkout in it.
func TestBaselineOfAnotherCheckout(t *testing.T) {
	sandboxtest.RequireConfinement(t)
	files := map[string]string{
		".claude-plugin/marketplace.json": `{"name": "m", "plugins": [{"name": "p", "source": "./plugins/p"}]}`,
		"plugins/p/.claude-plugin/plugin.json": `{"name": "p", "hooks": {
 "SessionStart": [{"matcher": "startup", "hooks": [{"type": "command", "command": "sh \"${CLAUDE_PLUGIN_ROOT}/start.sh\""}]}],
 "PreToolUse": [{"matcher": "Write", "hooks": [{"type": "command", "command": "sh \"${CLAUDE_PLUGIN_ROOT}/write.sh\""}]}]}}`,
		"plugins/p/start.sh": `ln -s "$CLAUDE_PROJECT_DIR/data" link-in-tree
echo "export PATH=\"$CLAUDE_PLUGIN_ROOT/bin:\$PATH\"" >> "$CLAUDE_ENV_FILE"
tp=$(sed -n 's/.*"transcript_path":"\([^"]*\)".*/\1/p')
mkdir -p "${tp%/*}/memory" && echo note > "${tp%/*}/memory/MEMORY.md"
`,
		"plugins/p/write.sh": `cat >/dev/null
printf '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"file_path":"%s/notes.md"}}}' "$CLAUDE_PROJECT_DIR"
`,
		"data/": "",
	}
	ctx := context.Background()
	const base = ".vigiles/baseline.json"
	first, second := makeTree(t, files), makeTree(t, files)
	rep, err := Audit(ctx, Options{Dir: first, Baseline: base, UpdateBaseline: true})
	if err != nil {
		t.Fatal(err)
	}
	// The hooks did write the checkout's path, or this proves nothing.
	said := map[string]bool{}
	for _, r := range rep.Runs {
		for _, w := range r.Writes {
			said["link"] = said["link"] || w.Target == filepath.Join(first, "data")
			said["transcripts"] = said["transcripts"] || strings.HasPrefix(w.Path, "~"+strings.TrimPrefix(transcriptDir(first), "/root")+"/memory/")
		}
		said["env"] = said["env"] || r.EnvFile != nil && strings.Contains(r.EnvFile.Text(), first+"/plugins/p/bin")
		said["decides"] = said["decides"] || strings.Contains(r.Decides, first+"/notes.md")
	}
	for _, what := range []string{"link", "transcripts", "env", "decides"} {
		if !said[what] {
			t.Fatalf("no run wrote the tree's path in its %s: %+v", what, rep.Runs)
		}
	}
	accepted, err := os.ReadFile(filepath.Join(first, base))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{first, strings.TrimPrefix(transcriptDir(first), "/root/.claude/projects/")} {
		if strings.Contains(string(accepted), p) {
			t.Errorf("the baseline holds %s, which is where this checkout is:\n%s", p, accepted)
		}
	}

	if err := os.MkdirAll(filepath.Join(second, ".vigiles"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(second, base), accepted, 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err = Audit(ctx, Options{Dir: second, Baseline: base})
	if err != nil {
		t.Fatal(err)
	}
	// (The runner's tests have no egress layer: baseline/not-recorded
	// says so for every run, and is no drift.)
	if len(rep.Drift) != 0 {
		t.Errorf("another checkout of the same tree drifts: %+v", rep.Drift)
	}
	for _, f := range rep.Findings {
		if f.Severity == report.SeverityError && f.Rule != RuleBaselineUnproven {
			t.Errorf("another checkout of the same tree: %+v", f)
		}
	}
	if _, err := Audit(ctx, Options{Dir: second, Baseline: base, UpdateBaseline: true}); err != nil {
		t.Fatal(err)
	}
	again, err := os.ReadFile(filepath.Join(second, base))
	if err != nil {
		t.Fatal(err)
	}
	if string(again) != string(accepted) {
		t.Errorf("the baseline written in another checkout differs:\n%s\n---\n%s", accepted, again)
	}
}

func TestTreeFormText(t *testing.T) {
	f := newTreeForm("/tmp/w/repo")
	for in, want := range map[string]string{
		"/tmp/w/repo":                                             "<work tree>",
		"/tmp/w/repo/bin:/usr/bin":                                "<work tree>/bin:/usr/bin",
		`PATH="/tmp/w/repo/x:$PATH"`:                              `PATH="<work tree>/x:$PATH"`,
		"file:///tmp/w/repo/a b=/tmp/w/repo":                      "file://<work tree>/a b=<work tree>",
		"/tmp/w/repo2/x /tmp/w/repo.bak":                          "/tmp/w/repo2/x /tmp/w/repo.bak",
		"/tmp/w/repo-old /a/tmp/w/repo":                           "/tmp/w/repo-old /a/tmp/w/repo",
		"/root/.claude/projects/-tmp-w-repo":                      "/root/.claude/projects/<work tree>",
		"/root/.claude/projects/-tmp-w-repo-packages-app/s.jsonl": "/root/.claude/projects/<work tree>-packages-app/s.jsonl",
		"/root/.claude/projects/-tmp-w-repo2/s.jsonl":             "/root/.claude/projects/-tmp-w-repo2/s.jsonl",
		"x/tmp/w/repo /tmp/w/repo/tmp/w/repo":                     "x/tmp/w/repo <work tree>/tmp/w/repo",
	} {
		if got := f.text(in); got != want {
			t.Errorf("text(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]string{
		"~/.claude/projects/-tmp-w-repo/memory/MEMORY.md": "~/.claude/projects/<work tree>/memory/MEMORY.md",
		"~/.claude/projects/-tmp-w-repo-pkg/x":            "~/.claude/projects/<work tree>-pkg/x",
		"~/.claude/projects/-tmp-w-repo2/x":               "~/.claude/projects/-tmp-w-repo2/x",
		"tmp/w/repo/x":                                    "tmp/w/repo/x",
		// The transcripts' directory name elsewhere, as a name of its own.
		"~/.claude-archive/-tmp-w-repo/s.jsonl.gz": "~/.claude-archive/<work tree>/s.jsonl.gz",
		"$TMPDIR/-tmp-w-repo-pkg/x":                "$TMPDIR/<work tree>-pkg/x",
		"~/.cache/-tmp-w-repo2/x":                  "~/.cache/-tmp-w-repo2/x",
		"~/.cache/x-tmp-w-repo/x":                  "~/.cache/x-tmp-w-repo/x",
		"~/.cache/<work tree>/x":                   `~/.cache/<\work tree>/x`,
	} {
		if got := f.path(in); got != want {
			t.Errorf("path(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestRepeatedAuditsAgree audits, confined, hooks that do alike things
// differently each run (a mktemp name, a pid, the time and a random mtime
// in a file, children that finish in any order, a file written twice, a
// lock made and removed, a child that outlives its hook within the
// linger) with one lane, four lanes, and in two shards merged: the
// reports agree but for durations and the $TMPDIR names, the baseline
// written twice is the same bytes, and an audit against it drifts in
// nothing.
func TestRepeatedAuditsAgree(t *testing.T) {
	sandboxtest.RequireConfinement(t)
	rnd := `$(od -An -N2 -tu2 /dev/urandom | tr -d ' ')`
	dir := makeTree(t, map[string]string{
		".vigiles.yml":                    "version: 1\ndefaults: {linger: 5s}\n",
		".claude-plugin/marketplace.json": `{"name": "m", "plugins": [{"name": "p", "source": "./plugins/p"}]}`,
		"plugins/p/.claude-plugin/plugin.json": `{"name": "p", "hooks": {"Stop": [{"hooks": [
 {"type": "command", "command": "sh \"${CLAUDE_PLUGIN_ROOT}/tmp.sh\""},
 {"type": "command", "command": "sh \"${CLAUDE_PLUGIN_ROOT}/state.sh\""},
 {"type": "command", "command": "sh \"${CLAUDE_PLUGIN_ROOT}/kids.sh\""},
 {"type": "command", "command": "sh \"${CLAUDE_PLUGIN_ROOT}/late.sh\""}]}]}}`,
		"plugins/p/tmp.sh": `f=$(mktemp) && echo x > "$f" && d=$(mktemp -d) && : > "$d/y"
mkdir -p .cache && echo $$ > .cache/lock && rm .cache/lock
`,
		"plugins/p/state.sh": `mkdir -p ~/.cache/p && echo $$ > ~/.cache/p/pid && date +%s%N > state && touch -d @` + rnd + ` state
echo a > twice && echo b >> twice && rm twice && echo ` + rnd + ` > twice
`,
		"plugins/p/kids.sh": `for i in 1 2 3 4; do (sleep 0.0$(od -An -N1 -tu1 /dev/urandom | tr -d ' ' | cut -c1); echo $i >> kids.log; echo $i > kid$i) & done; wait
`,
		"plugins/p/late.sh": `(sleep 0.2; echo late > late.txt) &
`,
	})
	ctx := context.Background()
	normal := func(rep *report.Report) *report.Report {
		zeroDurations(rep)
		for i, r := range rep.Runs {
			var ws []evidence.Write
			for _, w := range r.Writes {
				if !strings.HasPrefix(w.Path, "$TMPDIR/tmp.") {
					ws = append(ws, w)
				}
			}
			rep.Runs[i].Writes = ws
		}
		return rep
	}
	audit := func(o Options) *report.Report {
		t.Helper()
		o.Dir = dir
		rep, err := Audit(ctx, o)
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	const base = ".vigiles/baseline.json"
	audit(Options{Jobs: 2, Baseline: base, UpdateBaseline: true})
	first := normal(audit(Options{Jobs: 1, Baseline: base, UpdateBaseline: true}))
	accepted, err := os.ReadFile(filepath.Join(dir, base))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range first.Runs {
		if r.Writes == nil || len(r.Lingered) > 0 || r.Outcome != report.OutcomeAllowed {
			t.Fatalf("a run to compare did not run whole: %+v", r)
		}
	}
	again := normal(audit(Options{Jobs: 4, Baseline: base, UpdateBaseline: true}))
	if diff := cmp.Diff(first, again); diff != "" {
		t.Errorf("one lane and four differ (-one +four):\n%s", diff)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, base)); string(b) != string(accepted) {
		t.Errorf("the baseline written again differs:\n%s\n---\n%s", accepted, b)
	}
	var parts []NamedReport
	for _, s := range []string{"2/2", "1/2"} {
		parts = append(parts, NamedReport{Name: s, Report: audit(Options{Jobs: 2, Baseline: base, Shard: s})})
	}
	merged, err := Merge(parts...)
	if err != nil {
		t.Fatal(err)
	}
	whole := normal(audit(Options{Jobs: 2, Baseline: base}))
	if diff := cmp.Diff(whole, normal(merged)); diff != "" {
		t.Errorf("two shards merged differ from the whole audit (-whole +merged):\n%s", diff)
	}
	if len(whole.Drift) != 0 {
		t.Errorf("an audit against the baseline it just wrote drifts: %+v", whole.Drift)
	}
	for _, r := range whole.Runs {
		if r.Writes == nil {
			t.Errorf("%s: writes not recorded", r.ID)
		}
	}
}

// TestTreeFormTellsApart: the tree's form takes two texts for one only
// where they are one path in two checkouts. A hook that wrote
// "<work tree>" itself, or the tree's path right after the transcripts'
// parent (which is no transcript directory), compared equal to the
// baseline that accepted the tree's path, or its transcripts.
func TestTreeFormTellsApart(t *testing.T) {
	f := newTreeForm("/tmp/w/repo")
	for _, pair := range [][2]string{
		{"export X=/tmp/w/repo/bin", "export X=<work tree>/bin"},
		{"<work tree>", `<\work tree>`},
		{`<\work tree>`, `<\\work tree>`},
		{"</tmp/w/repo>", "<<work tree>>"},
		{"/root/.claude/projects/-tmp-w-repo/x", "/root/.claude/projects//tmp/w/repo/x"},
		{"/root/.claude/projects/-tmp-w-repo/x", "/root/.claude/projects/<work tree>/x"},
	} {
		if a, b := f.text(pair[0]), f.text(pair[1]); a == b {
			t.Errorf("text(%q) = text(%q) = %q", pair[0], pair[1], a)
		}
	}
	for _, pair := range [][2]string{
		{"~/.claude/projects/-tmp-w-repo/x", "~/.claude/projects/<work tree>/x"},
		{"~/.claude/projects/<work tree>/x", `~/.claude/projects/<\work tree>/x`},
		{"~/.archive/-tmp-w-repo/x", "~/.archive/<work tree>/x"},
	} {
		if a, b := f.path(pair[0]), f.path(pair[1]); a == b {
			t.Errorf("path(%q) = path(%q) = %q", pair[0], pair[1], a)
		}
	}
	for in, want := range map[string]string{
		"a <work tree> b":                      `a <\work tree> b`,
		`<\\work tree>/tmp/w/repo`:             `<\\\work tree><work tree>`,
		"<work tre":                            "<work tre",
		"/root/.claude/projects//tmp/w/repo/x": "/root/.claude/projects//tmp/w/repo/x",
	} {
		if got := f.text(in); got != want {
			t.Errorf("text(%q) = %q, want %q", in, got, want)
		}
	}
	if got, want := f.path("x/<work tree>/y"), `x/<\work tree>/y`; got != want {
		t.Errorf("path = %q, want %q", got, want)
	}
}

// TestTreeFormOneToOne: in one checkout, the tree's form of a text gives
// the text back (so no two texts have one form), for texts made of the
// pieces that meet in it.
func TestTreeFormOneToOne(t *testing.T) {
	f := newTreeForm("/tmp/w/repo")
	projects := "/root/.claude/projects/"
	back := func(s string) string {
		var b strings.Builder
		for i := 0; i < len(s); {
			switch {
			case strings.HasPrefix(s[i:], projects+workTreeMark):
				b.WriteString(f.transcripts)
				i += len(projects + workTreeMark)
			case strings.HasPrefix(s[i:], workTreeMark):
				b.WriteString(f.tree)
				i += len(workTreeMark)
			case s[i] == '<' && isMark(s[i:]):
				b.WriteByte('<')
				i += 2 // one '\' less
			default:
				b.WriteByte(s[i])
				i++
			}
		}
		return b.String()
	}
	pieces := []string{"/tmp/w/repo", workTreeMark, "<", `\`, "/", "-", "x", ":", projects, "-tmp-w-repo", "work tree>"}
	seed := uint32(1)
	for n := 0; n < 5000; n++ {
		var in strings.Builder
		for k := 0; k < 6; k++ {
			seed = seed*1664525 + 1013904223
			in.WriteString(pieces[seed>>16%uint32(len(pieces))])
		}
		if got := back(f.text(in.String())); got != in.String() {
			t.Fatalf("text(%q) = %q, which reads back as %q", in.String(), f.text(in.String()), got)
		}
	}
}

// TestTreeFormAtRoot: a tree at / has no path to replace, but the mark
// a hook wrote is escaped there as in any other checkout: else a
// baseline written there that accepted "<work tree>" as written passed
// the tree's path in another checkout.
func TestTreeFormAtRoot(t *testing.T) {
	root, other := newTreeForm("/"), newTreeForm("/tmp/w/repo")
	if a, b := root.text("X=<work tree>/bin"), other.text("X=/tmp/w/repo/bin"); a == b {
		t.Errorf("at / and at /tmp/w/repo, two texts have one form: %q", a)
	}
	if got, want := root.path("~/.claude/projects/<work tree>/x"), `~/.claude/projects/<\work tree>/x`; got != want {
		t.Errorf("path = %q, want %q", got, want)
	}
	if got := root.text("/usr/bin:/tmp"); got != "/usr/bin:/tmp" {
		t.Errorf("text = %q", got)
	}
}

// TestAuditTreeMarkAsWritten: through Audit, a hook whose link led into
// the tree, accepted so, that now leaves a link to "<work tree>/data" as
// written (a directory of that name where it runs) drifts: the baseline's
// mark is the tree's path, not the text.
func TestAuditTreeMarkAsWritten(t *testing.T) {
	dir := makeTree(t, map[string]string{".claude/settings.json": `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}`})
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	target := real + "/data"
	canned := &runnertest.Canned{F: func(sandbox.Spec, []byte) (*sandbox.Result, error) {
		return &sandbox.Result{Tier: sandbox.TierConfined, Egress: []evidence.Egress{},
			Writes: []evidence.Write{{Path: "link", Op: evidence.OpCreate, Kind: "symlink", Target: target}}}, nil
	}}
	const base = ".vigiles/baseline.json"
	audit := func(update bool) *report.Report {
		t.Helper()
		rep, err := Audit(context.Background(), Options{Dir: dir, Baseline: base, UpdateBaseline: update, Executor: canned})
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	audit(true)
	if data, _ := os.ReadFile(filepath.Join(dir, base)); !strings.Contains(string(data), `"link": "<work tree>/data"`) {
		t.Fatalf("the baseline keeps the link otherwise:\n%s", data)
	}
	if rep := audit(false); len(rep.Drift) != 0 {
		t.Fatalf("the same link drifts: %+v", rep.Drift)
	}
	target = workTreeMark + "/data"
	rep := audit(false)
	if len(rep.Drift) != 1 || rep.Drift[0].Kind != DriftWrite || rep.Verdict != report.VerdictFail {
		t.Errorf(`a link to "<work tree>/data" as written: drift %+v, verdict %s; want one write drift, fail`, rep.Drift, rep.Verdict)
	}
}

// TestBaselineOfAnotherCheckoutArchive: a hook that files a copy of the
// transcript under its directory's name (~/.claude-archive/-tmp-repo/…,
// as a field test's transcript-archiving plugin does) writes a path named
// after the checkout: the baseline accepted in one checkout keeps
// <work tree> in its place, and another checkout of the same tree does
// not drift from it.
func TestBaselineOfAnotherCheckoutArchive(t *testing.T) {
	sandboxtest.RequireConfinement(t)
	files := map[string]string{
		".claude/settings.json": `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "sh .claude/archive.sh"}]}]}}`,
		".claude/archive.sh": `tp=$(sed -n 's/.*"transcript_path":"\([^"]*\)".*/\1/p')
d="$HOME/.claude-archive/$(basename "$(dirname "$tp")")"
mkdir -p "$d" && cp "$tp" "$d/"
`,
	}
	ctx := context.Background()
	const base = ".vigiles/baseline.json"
	first, second := makeTree(t, files), makeTree(t, files)
	rep, err := Audit(ctx, Options{Dir: first, Baseline: base, UpdateBaseline: true})
	if err != nil {
		t.Fatal(err)
	}
	slug := strings.TrimPrefix(transcriptDir(first), "/root/.claude/projects/")
	var wrote bool
	for _, r := range rep.Runs {
		for _, w := range r.Writes {
			wrote = wrote || strings.HasPrefix(w.Path, "~/.claude-archive/"+slug+"/")
		}
	}
	if !wrote {
		t.Fatalf("the hook wrote no copy under ~/.claude-archive/%s: %+v", slug, rep.Runs)
	}
	accepted, err := os.ReadFile(filepath.Join(first, base))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(accepted), slug) || !strings.Contains(string(accepted), "~/.claude-archive/<work tree>/") {
		t.Errorf("the baseline keeps the checkout's name, or not the mark:\n%s", accepted)
	}
	if err := os.MkdirAll(filepath.Join(second, ".vigiles"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(second, base), accepted, 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err = Audit(ctx, Options{Dir: second, Baseline: base})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Drift) != 0 {
		t.Errorf("another checkout of the same tree drifts: %+v", rep.Drift)
	}
}
