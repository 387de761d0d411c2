package runner

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vigiles/action/pkg/evidence"
	"github.com/vigiles/action/pkg/report"
)

// configErrs parses a policy and returns its error lines ("" for none).
func configErrs(t *testing.T, yml string) (*Config, string) {
	t.Helper()
	cfg, err := ParseConfig(".vigiles.yml", []byte(yml))
	if err == nil {
		return cfg, ""
	}
	return cfg, err.Error()
}

// TestBooleanSpellings: every spelling of true and false that YAML 1.2's
// core schema (and yaml.v3) resolves is read as what it says, in every
// boolean of the policy; a value tagged !!bool that is none of them is an
// error at its place, never false.
func TestBooleanSpellings(t *testing.T) {
	for _, sp := range []struct {
		text string
		want bool
	}{{"true", true}, {"True", true}, {"TRUE", true}, {"false", false}, {"False", false}, {"FALSE", false}} {
		cfg, errs := configErrs(t, fmt.Sprintf(`defaults: {root-sandbox: %[1]s}
checks:
  - {name: b, command: "exit 0", trusted: %[1]s, expect: {blocked: %[1]s}}
  - {name: c, command: "exit 0", expect: {allowed: %[1]s}}
`, sp.text))
		if errs != "" {
			t.Errorf("%s: %s", sp.text, errs)
			continue
		}
		c, a := cfg.Checks[0], cfg.Checks[1].Expect[0]
		if cfg.Defaults.RootSandbox != sp.want || c.Trusted != sp.want || c.Expect[0].Bool != sp.want || a.Bool != sp.want {
			t.Errorf("%s: root-sandbox %v, trusted %v, blocked %v, allowed %v; want all %v", sp.text,
				cfg.Defaults.RootSandbox, c.Trusted, c.Expect[0].Bool, a.Bool, sp.want)
		}
	}
	// The "none at all" expectations take every spelling of true.
	cfg, errs := configErrs(t, `checks:
  - {name: n, command: "exit 0", event: SessionStart, expect: {no-egress: True, no-write: TRUE, no-env-file: True}}
`)
	if errs != "" {
		t.Fatal(errs)
	}
	if e := cfg.Checks[0].Expect; len(e) != 3 || len(e[1].Paths) != 1 || e[1].Paths[0].Src != "**" {
		t.Errorf("no-write: TRUE gave %+v, want the pattern **", e)
	}
	// false in any spelling expects nothing: refused as false is.
	if _, errs := configErrs(t, "checks:\n  - {name: n, command: x, expect: {no-write: FALSE}}\n"); !strings.Contains(errs, "no-write: false expects nothing") {
		t.Errorf("no-write: FALSE: %q", errs)
	}
	// Anything else tagged !!bool is refused, in every boolean key.
	_, errs = configErrs(t, `defaults: {root-sandbox: !!bool yes}
checks:
  - name: b
    command: "exit 0"
    trusted: !!bool on
    expect:
      blocked: !!bool yes
      allowed: !!bool y
      no-egress: !!bool yes
      no-write: !!bool yes
`)
	want := []string{
		`.vigiles.yml:1:26: defaults.root-sandbox: want true or false, found "yes"`,
		`.vigiles.yml:5:14: check trusted: want true or false, found "on"`,
		`.vigiles.yml:7:16: blocked: want true or false, found "yes"`,
		`.vigiles.yml:8:16: allowed: want true or false, found "y"`,
		`.vigiles.yml:9:18: no-egress: want true or false, found "yes"`,
		`.vigiles.yml:10:17: no-write: want true or false, found "yes"`,
	}
	if diff := cmp.Diff(strings.Join(want, "\n"), errs); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestBlockedTrueFailsAnAllowingHook: the reviewer's policy, run: a hook
// that allows fails blocked: True, and one that blocks fails allowed: TRUE.
func TestBlockedTrueFailsAnAllowingHook(t *testing.T) {
	dir := makeTree(t, map[string]string{".vigiles.yml": `checks:
  - {name: must block, command: "true", event: PreToolUse, tool: Bash, expect: {blocked: True}}
  - {name: must be allowed, command: "block", event: PreToolUse, tool: Bash, expect: {allowed: TRUE}}
`})
	rep, err := Test(context.Background(), Options{Dir: dir, Executor: fakeHooks()})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range rep.Findings {
		if f.Rule == RuleExpectPrefix+ExpBlocked || f.Rule == RuleExpectPrefix+ExpAllowed {
			n++
		}
	}
	if n != 2 || rep.Verdict != report.VerdictFail {
		t.Errorf("%d blocked/allowed failures, verdict %s; want 2, fail: %v", n, rep.Verdict, findingLines(rep.Findings))
	}
}

// TestCheckNameRunIDSeparator: a check name holding ">", which joins a
// check's name and a hook id in a run's id, is refused; so sharding and
// merging the reviewer's colliding policy works, and no two runs of a
// report share an id.
func TestCheckNameRunIDSeparator(t *testing.T) {
	if _, errs := configErrs(t, "checks:\n  - {name: \"a>b\", command: x, expect: {allowed: true}}\n"); !strings.Contains(errs, `.vigiles.yml:2:12: check name "a>b": ">" separates`) {
		t.Errorf("errors %q", errs)
	}
	dir := auditRepo(t, hooksV1)
	hookID := "plugins/a/hooks/hooks.json#hooks.PostToolUse[0].hooks[0]"
	policy := fmt.Sprintf(`checks:
  - {name: x, hook: a, event: PostToolUse, tool: Write, expect: {allowed: true}}
  - {name: "x>%s", command: "block", event: PostToolUse, expect: {allowed: true}}
  - {name: y, command: "true", event: Stop, expect: {allowed: true}}
`, hookID)
	writeFile(t, dir, ".vigiles.yml", policy)
	ctx := context.Background()
	run := func(shard string) *report.Report {
		rep, err := Test(ctx, Options{Dir: dir, Shard: shard, Executor: fakeHooks()})
		if err != nil {
			t.Fatal(err)
		}
		zeroDurations(rep)
		return rep
	}
	whole := run("")
	ids := map[string]bool{}
	for _, r := range whole.Runs {
		if ids[r.ID] {
			t.Errorf("run id %q twice", r.ID)
		}
		ids[r.ID] = true
	}
	refused := false
	for _, f := range whole.Findings {
		refused = refused || f.Rule == RuleConfig && strings.Contains(f.Message, `">" separates`)
	}
	if !refused {
		t.Errorf("the name with > is not refused: %v", findingLines(whole.Findings))
	}
	merged, err := Merge(NamedReport{Name: "c1.json", Report: run("1/2")}, NamedReport{Name: "c2.json", Report: run("2/2")})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(whole, merged); diff != "" {
		t.Errorf("merged differs from the unsharded test (-whole +merged):\n%s", diff)
	}
}

// TestTrustedOnHookCheck: trusted: on a hook: check would be ignored (a
// hook's trust is its plugin's); it is an error naming plugins.trusted.
func TestTrustedOnHookCheck(t *testing.T) {
	_, errs := configErrs(t, "checks:\n  - {name: c, hook: vend, event: Stop, trusted: true, expect: {no-write: true}}\n")
	if !strings.Contains(errs, ".vigiles.yml:2:40: check \"c\": trusted applies to command checks only") || !strings.Contains(errs, "plugins.trusted") {
		t.Errorf("errors %q", errs)
	}
	if _, errs := configErrs(t, "checks:\n  - {name: c, command: x, trusted: false, expect: {allowed: true}}\n"); errs != "" {
		t.Errorf("trusted on a command check: %s", errs)
	}
}

// TestJSONExpectationKeys: a json: path given twice, a key that is not a
// string or is empty, and a path with an empty key are refused; a key
// holding a dot is reached by escaping it; a string expectation with an
// explicit tag other than !!str (!!binary) is refused.
func TestJSONExpectationKeys(t *testing.T) {
	_, errs := configErrs(t, `checks:
  - name: j
    command: x
    expect:
      json: {n: 1, n: 2, [n]: 1, "": 1, a..b: 1, "a\\": 1, 7: x}
      stdout-contains: !!binary aGk=
      stderr-matches: !custom x
`)
	want := []string{
		`.vigiles.yml:5:20: json: path "n" appears twice (first on line 5); keep one`,
		`.vigiles.yml:5:26: json: want a dotted path (a string) as key, found a list; quote it ("0") if it is one`,
		`.vigiles.yml:5:34: json: path "": an empty key: want keys joined by single dots, such as hookSpecificOutput.permissionDecision`,
		`.vigiles.yml:5:41: json: path "a..b": an empty key: want keys joined by single dots, such as hookSpecificOutput.permissionDecision`,
		`.vigiles.yml:5:50: json: path "a\\": a backslash escapes only "." (a key that holds a dot, \.) or itself (\\)`,
		`.vigiles.yml:5:60: json: want a dotted path (a string) as key, found "7"; quote it ("0") if it is one`,
		`.vigiles.yml:6:24: stdout-contains: want a string, found a value tagged !!binary: remove the tag (or write !!str)`,
		`.vigiles.yml:7:23: stderr-matches: want a string, found a value tagged !custom: remove the tag (or write !!str)`,
	}
	if diff := cmp.Diff(strings.Join(want, "\n"), errs); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	cfg, errs := configErrs(t, `checks:
  - {name: j, command: x, expect: {json: {'a.b\.c': x, 'a.d\\e': y, "l.1": z}, stdout-contains: !!str 5}}
`)
	if errs != "" {
		t.Fatal(errs)
	}
	out := map[string]any{"a": map[string]any{"b.c": "x", `d\e`: "y"}, "l": []any{"w", "z"}}
	e := executed{run: report.HookRun{ID: "h"}, decision: Decision{Output: out}}
	if fs := checkExpectations(cfg.Checks[0], e); len(fs) != 1 || fs[0].Rule != RuleExpectPrefix+ExpStdoutContains {
		t.Errorf("findings %v, want only the stdout-contains", findingLines(fs))
	}
}

// TestPluginGlobsChecked: plugins.trusted and plugins.untrusted globs that
// can never match a plugin directory are refused, as write patterns are:
// an untrusted entry that matches nothing lets vendored code run direct.
func TestPluginGlobsChecked(t *testing.T) {
	_, errs := configErrs(t, `plugins:
  trusted: [".", "./plugins/mine/", "plugins", "vendor/**"]
  untrusted: ["/tmp/x/plugins/*", "plugins/[vend", "plugins/../x", "~/plugins", "", "a//b"]
`)
	want := []string{
		`.vigiles.yml:3:15: plugins.untrusted: "/tmp/x/plugins/*" is an absolute path, which never matches: plugin directories are matched relative to the work tree; want a plugin directory relative to the work tree, such as plugins/* or vendor/acme`,
		`.vigiles.yml:3:35: plugins.untrusted: "plugins/[vend" is not a valid glob (malformed character class): want a plugin directory relative to the work tree, such as plugins/* or vendor/acme`,
		`.vigiles.yml:3:52: plugins.untrusted: "plugins/../x" has a ".." segment, which a plugin directory's path never has: want a plugin directory relative to the work tree, such as plugins/* or vendor/acme`,
		`.vigiles.yml:3:68: plugins.untrusted: "~/plugins" is not expanded and never matches: want a plugin directory relative to the work tree, such as plugins/* or vendor/acme`,
		`.vigiles.yml:3:81: plugins.untrusted: an empty glob matches no plugin: want a plugin directory relative to the work tree, such as plugins/* or vendor/acme`,
		`.vigiles.yml:3:85: plugins.untrusted: "a//b" has a "//" segment, which a plugin directory's path never has: want a plugin directory relative to the work tree, such as plugins/* or vendor/acme`,
	}
	if diff := cmp.Diff(strings.Join(want, "\n"), errs); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestLimitSizeZero: a zero size bound is the sandbox's default, not "no
// limit": it is refused, naming the default.
func TestLimitSizeZero(t *testing.T) {
	_, errs := configErrs(t, "defaults:\n  output-cap: 0\n  limits: {memory: 0, run-memory: 0, file-size: 0B, scratch: 0KiB}\nchecks:\n  - {name: c, command: x, expect: {allowed: true}}\n")
	want := []string{
		`.vigiles.yml:2:15: defaults.output-cap: 0 would mean the default (1MiB), not no limit or none: write a size, or remove the line for the default`,
		`.vigiles.yml:3:20: limits.memory: 0 would mean the default (32GiB), not no limit or none: write a size, or remove the line for the default`,
		`.vigiles.yml:3:35: limits.run-memory: 0 would mean the default (4GiB), not no limit or none: write a size, or remove the line for the default`,
		`.vigiles.yml:3:49: limits.file-size: 0 would mean the default (1GiB), not no limit or none: write a size, or remove the line for the default`,
		`.vigiles.yml:3:62: limits.scratch: 0 would mean the default (2GiB), not no limit or none: write a size, or remove the line for the default`,
	}
	if diff := cmp.Diff(strings.Join(want, "\n"), errs); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestSizeWrittenOtherwise: a size in the policy file written with a
// lower-case unit or a fraction that is a whole number of bytes is
// refused, as on the command line, naming the size it means; one that
// means none names none.
func TestSizeWrittenOtherwise(t *testing.T) {
	_, errs := configErrs(t, "defaults:\n  output-cap: 64k\n  limits: {memory: 1.5GiB, scratch: big}\nchecks:\n  - {name: c, command: x, expect: {allowed: true}}\n")
	want := []string{
		`.vigiles.yml:2:15: defaults.output-cap: want a size such as 1048576, 64KiB, 512MiB or 2GiB, found "64k" (did you mean 64KiB?)`,
		`.vigiles.yml:3:20: limits.memory: want a size such as 1048576, 64KiB, 512MiB or 2GiB, found "1.5GiB" (did you mean 1536MiB?)`,
		`.vigiles.yml:3:37: limits.scratch: want a size such as 1048576, 64KiB, 512MiB or 2GiB, found "big"`,
	}
	if diff := cmp.Diff(strings.Join(want, "\n"), errs); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestWritePatternsThatNeverMatch: a write glob no recorded path can match
// (a trailing '/', "." or ".." segments, ${TMPDIR}, "~" or "~/" alone) is
// refused, naming the form to write.
func TestWritePatternsThatNeverMatch(t *testing.T) {
	for _, tc := range []struct{ pat, want string }{
		{".git/", `write ".git/**"`},
		{"~/", `write "~/**"`},
		{"${TMPDIR}/**", `write "$TMPDIR/**" (no braces`},
		{"${TMPDIR}", `write "$TMPDIR/**" (no braces`},
		{"${HOME}/.ssh/**", `write "~/.ssh/**"`},
		{"sub/../.git/**", `write ".git/**" (paths are recorded without`},
		{"a/./b", `write "a/b"`},
		{"a//b", `write "a/b"`},
		{"../x", `a path inside the work tree`},
		{"~/../x", `the path without ".." segments`},
		{"./", `write "**" for any path`},
		{"./a/../b", `the path without ".." segments`},
	} {
		_, err := ParsePathPattern(tc.pat)
		if err == nil || !strings.Contains(err.Error(), "can never match") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: err %v, want it to say %q", tc.pat, err, tc.want)
		}
	}
	// HOME and TMPDIR themselves are recorded ("~", "$TMPDIR"), but a
	// pattern of that name alone is a base name: refused, naming the form.
	for pat, want := range map[string]string{"~": `write "~/**" for the run's HOME, itself and what is in it`, "$TMPDIR": `write "$TMPDIR/**" for the run's TMPDIR`} {
		if _, err := ParsePathPattern(pat); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: err %v, want it to say %q", pat, err, want)
		}
	}
	for _, ok := range []string{".", "./~/x", "./$TMPDIR/x", "$TMPDIR/**", "~/.bashrc", "$HOMEWORK/x", "/dev/shm/**", "/**", "**", "./out.txt"} {
		if _, err := ParsePathPattern(ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	// In a policy, at the entry.
	_, errs := configErrs(t, "checks:\n  - {name: a, command: x, expect: {no-write: [\".git/\"]}}\n")
	if !strings.HasPrefix(errs, `.vigiles.yml:2:47: no-write: ".git/" can never match`) {
		t.Errorf("errors %q", errs)
	}
}

// TestWritePatternMatching: "./name" matches name at the tree's root
// only; "dir/**" matches dir itself too; a base name matches at any depth,
// and in no-write (Covering) everything below a directory of that name
// too, which wrote-only does not allow.
func TestWritePatternMatching(t *testing.T) {
	for _, tc := range []struct {
		pat      string
		covering bool
		yes, no  []string
	}{
		{"./out.txt", false, []string{"out.txt"}, []string{"deep/er/out.txt", "~/out.txt", "$TMPDIR/x/out.txt", "/dev/shm/out.txt", "./out.txt"}},
		{"./~/x", false, []string{"./~/x"}, []string{"~/x"}},
		{"out.txt", false, []string{"out.txt", "deep/er/out.txt", "~/out.txt"}, []string{"out.txt/x"}},
		{".git/**", false, []string{".git", ".git/config", ".git/hooks/post-commit"}, []string{".gitignore", "a/.git", ".github"}},
		{"~/**", false, []string{"~/.", "~/.bashrc"}, []string{"x"}},
		{".git", true, []string{".git", ".git/hooks/x", "sub/.git/config"}, []string{".gitignore", ".github/x"}},
		{".git", false, []string{".git", "sub/.git"}, []string{".git/hooks/x"}},
		{"*.log", true, []string{"a.log", "d/a.log", "x.log/y"}, []string{"a.logs"}},
		{"logs/*.log", true, []string{"logs/a.log"}, []string{"logs/a/b.log", "x/logs/a.log"}},
		// A wildcard before "/**" gives no directory form: it would match
		// the files beside the directories (a second review: wrote-only
		// [packages/*/**, ~/*/**] allowed packages/evil.sh and ~/.bashrc).
		{"packages/*/**", false, []string{"packages/a/out"}, []string{"packages/evil.sh", "packages/a"}},
		{"~/*/**", false, []string{"~/.config/x"}, []string{"~/.bashrc"}},
		{"*/**", false, []string{"a/b"}, []string{"README.md", "."}},
	} {
		p, err := ParsePathPattern(tc.pat)
		if err != nil {
			t.Fatalf("%q: %v", tc.pat, err)
		}
		if tc.covering {
			p = p.Covering()
		}
		for _, y := range tc.yes {
			if !p.Match(y) {
				t.Errorf("%q (covering %v) does not match %q", tc.pat, tc.covering, y)
			}
		}
		for _, n := range tc.no {
			if p.Match(n) {
				t.Errorf("%q (covering %v) matches %q", tc.pat, tc.covering, n)
			}
		}
	}
	// no-write reads its patterns as Covering; wrote-only does not.
	// The directory form matches the directory, not a file at its path.
	if p, _ := ParsePathPattern(".git/**"); !p.MatchWrite(".git", "dir") || !p.MatchWrite(".git", "") || p.MatchWrite(".git", "file") {
		t.Errorf(".git/** as a directory %v, of no kind %v, as a file %v; want true, true, false",
			p.MatchWrite(".git", "dir"), p.MatchWrite(".git", ""), p.MatchWrite(".git", "file"))
	}
	cfg, errs := configErrs(t, "checks:\n  - {name: a, command: x, expect: {no-write: [.git], wrote-only: [.git]}}\n")
	if errs != "" {
		t.Fatal(errs)
	}
	nw, wo := cfg.Checks[0].Expect[0], cfg.Checks[0].Expect[1]
	if !anyPath(nw.Paths, ".git/hooks/x", "file") || anyPath(wo.Paths, ".git/hooks/x", "file") {
		t.Errorf("no-write [.git] matches .git/hooks/x: %v; wrote-only [.git]: %v; want true, false", anyPath(nw.Paths, ".git/hooks/x", "file"), anyPath(wo.Paths, ".git/hooks/x", "file"))
	}
}

// TestNoWriteMessages: no-write says the hook wrote paths it must not (not
// "outside that"), "no writes at all" for true; a bad glob is named as
// written.
func TestNoWriteMessages(t *testing.T) {
	cfg, errs := configErrs(t, "checks:\n  - {name: a, command: x, expect: {no-write: [out.txt]}}\n  - {name: b, command: x, expect: {no-write: true}}\n")
	if errs != "" {
		t.Fatal(errs)
	}
	run := executed{run: report.HookRun{ID: "h", Tier: "confined", Writes: []evidence.Write{{Path: "out.txt", Op: evidence.OpCreate, Kind: "file"}}}}
	for i, want := range []string{
		"want no writes to out.txt; the hook wrote 1 path(s) it must not: create out.txt",
		"want no writes at all; the hook wrote 1 path(s): create out.txt",
	} {
		fs := checkExpectations(cfg.Checks[i], run)
		if len(fs) != 1 || fs[0].Message != want {
			t.Errorf("check %d: %v, want %q", i, findingLines(fs), want)
		}
	}
	_, err := ParsePathPattern("[abc")
	if err == nil || err.Error() != `glob "[abc": malformed character class` {
		t.Errorf("err %v", err)
	}
}

// writeFile writes content to name under dir.
func writeFile(t *testing.T, dir, name, content string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestRegexpPatternsThatNeverMatch: an anchored re: pattern on $HOME or a
// braced variable can never match a recorded path, as one on /tmp cannot.
func TestRegexpPatternsThatNeverMatch(t *testing.T) {
	for _, bad := range []string{`re:^\$HOME/`, `re:^\$\{TMPDIR\}/`, `re:^\/tmp`} {
		if _, err := ParsePathPattern(bad); err == nil || !strings.Contains(err.Error(), "can never match") {
			t.Errorf("%q: err %v", bad, err)
		}
	}
	for _, ok := range []string{`re:^~/`, `re:^\$TMPDIR/`, `re:^\./\$HOME/`, `re:\$HOME`} {
		if _, err := ParsePathPattern(ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
}

// TestNoWriteFoldedNames: on macOS and Windows, where names fold,
// .GIT/hooks/post-commit, .g<ZWNJ>it/hooks/… and .git./hooks/… are
// .git/hooks/post-commit, and ~/.Claude/settings.json is
// ~/.claude/settings.json: a hook that writes one of them on Linux writes
// the forbidden path there. no-write counts them (and a session-env
// script under ~/.Claude/session-env/ is one Claude Code runs there);
// wrote-only still allows only the exact paths.
func TestNoWriteFoldedNames(t *testing.T) {
	cfg, errs := configErrs(t, "checks:\n"+
		"  - {name: a, command: x, expect: {no-write: [.git]}}\n"+
		"  - {name: b, command: x, expect: {no-write: [\".git/**\"]}}\n"+
		"  - {name: c, command: x, expect: {no-write: [\"~/.claude/**\", \"re:^\\\\.claude/\"]}}\n"+
		"  - {name: d, command: x, expect: {wrote-only: [\"notes/**\"]}}\n")
	if errs != "" {
		t.Fatal(errs)
	}
	checkFolded(t, cfg, []foldedWrite{
		{0, ".GIT/hooks/post-commit", true},
		{0, "sub/.Git/config", true},
		{1, ".GIT/hooks/post-commit", true},
		{1, ".g\u200cit/hooks/post-commit", true},
		{1, ".git./hooks/post-commit", true},
		{1, ".git /hooks/post-commit", true},
		{1, ".gitx/hooks/post-commit", false},
		{2, "~/.Claude/settings.json", true},
		{2, ".CLAUDE/settings.json", true},
		{2, "./~/.Claude/settings.json", false},
		{3, "NOTES/x", true},
		{3, "notes/x", false},
	})
	env := report.HookRun{Writes: []evidence.Write{{Path: "~/.Claude/session-env/s/x.sh", Op: evidence.OpCreate, Kind: "file"}}}
	if got := sessionEnvScripts(env); len(got) != 1 {
		t.Errorf("session-env scripts %v, want the one under ~/.Claude/session-env/", got)
	}
	if t1, _ := envText(env); envSaid(t1) != "1 other session-env script" {
		t.Errorf("env text %q said as %q, want 1 other session-env script", t1, envSaid(t1))
	}
}

// TestNoWriteFoldedUnicodeCase: APFS folds a name by Unicode case
// folding, not by strings.ToLower: U+017F (ſ) is s, U+212A (Kelvin) is
// k, and the ligature U+FB06 (ﬆ) is st. ~/.ſsh/authorized_keys is
// ~/.ssh/authorized_keys on a Mac, and a script under
// ~/.claude/ſession-env/ is one Claude Code runs there.
func TestNoWriteFoldedUnicodeCase(t *testing.T) {
	cfg, errs := configErrs(t, "checks:\n"+
		"  - {name: a, command: x, expect: {no-write: [\"~/.ssh/**\"]}}\n"+
		"  - {name: b, command: x, expect: {no-write: [\".git/hooks/post-commit\"]}}\n"+
		"  - {name: c, command: x, expect: {no-write: [\"re:^\\\\.claude/settings\\\\.json$\"]}}\n")
	if errs != "" {
		t.Fatal(errs)
	}
	checkFolded(t, cfg, []foldedWrite{
		{0, "~/.\u017fsh/authorized_keys", true},
		{0, "~/.s\u017fh/x", true},
		{1, ".git/hooks/po\u017ft-commit", true},
		{1, ".git/hooks/po\ufb06-commit", true},
		{1, ".git/hoo\u212as/post-commit", true},
		{1, ".git/hooks/pot-commit", false},
		{2, ".claude/\u017fetting\u017f.json", true},
		{2, ".claude/se\ufb06ings.json", false},
	})
	env := report.HookRun{Writes: []evidence.Write{{Path: "~/.claude/\u017fession-env/s/x.sh", Op: evidence.OpCreate, Kind: "file"}}}
	if got := sessionEnvScripts(env); len(got) != 1 {
		t.Errorf("session-env scripts %v, want the one under ~/.claude/\u017fession-env/", got)
	}
}

// foldedWrite is a write of path and whether check number check of the
// policy fails on it.
type foldedWrite struct {
	check int
	path  string
	fails bool
}

// checkFolded runs each case's check over a confined run that created
// its path alone.
func checkFolded(t *testing.T, cfg *Config, cases []foldedWrite) {
	t.Helper()
	for _, c := range cases {
		e := executed{run: report.HookRun{ID: "h", Tier: "confined", Writes: []evidence.Write{{Path: c.path, Op: evidence.OpCreate, Kind: "file"}}}}
		if fs := checkExpectations(cfg.Checks[c.check], e); (len(fs) > 0) != c.fails {
			t.Errorf("check %d, a write of %q: %v, want failing %v", c.check, c.path, findingLines(fs), c.fails)
		}
	}
}
