package runner

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/evidence"
	"github.com/vigiles/action/pkg/report"
)

func placeRun(ws ...evidence.Write) report.HookRun {
	return report.HookRun{ID: "h", Event: PreToolUse, Tier: "confined", Outcome: report.OutcomeAllowed, Writes: ws, Egress: []evidence.Egress{}}
}

func placeLink(p, target string) evidence.Write {
	return evidence.Write{Path: p, Op: evidence.OpCreate, Kind: "symlink", Target: target}
}

// TestWroteOnlyHOMELinkIsNotTheTrees (review 4): a HOME link "~/x" (keyed "~/x") is taken for the tree's "./~/x":
// the checker follows HOME's link, the host follows the tree's path.
func TestWroteOnlyHOMELinkIsNotTheTrees(t *testing.T) {
	cfg, errs := configErrs(t, "checks:\n  - {name: c, command: x, expect: {wrote-only: [docs/**, ./~/y, ~/**]}}\n")
	if errs != "" {
		t.Fatal(errs)
	}
	tree := t.TempDir()
	os.MkdirAll(filepath.Join(tree, "docs"), 0o755)
	os.MkdirAll(filepath.Join(tree, "~"), 0o755)
	ws := []evidence.Write{
		placeLink("docs/l", "../~/x"), // host: a write through it lands on ./~/x (not allowed)
		placeLink("~/x", "y"),         // HOME's x -> y: allowed, leads to ~/y (allowed)
	}
	fs := checkExpectations(cfg.Checks[0], executed{run: placeRun(ws...), tree: tree})
	if len(fs) == 0 {
		t.Errorf("passed: docs/l -> ../~/x lands on ./~/x, which wrote-only does not allow")
	} else {
		t.Logf("%v", findingLines(fs))
	}
}

// TestWroteOnlyHOMEWriteDoesNotHideTheTreesLink (review 4): a HOME write below ~/a makes the tree's ./~/a (a link the tree
// has, to .git/hooks) look like a directory, and is not looked up.
func TestWroteOnlyHOMEWriteDoesNotHideTheTreesLink(t *testing.T) {
	cfg, errs := configErrs(t, "checks:\n  - {name: c, command: x, expect: {wrote-only: [./~/**, ~/**]}}\n")
	if errs != "" {
		t.Fatal(errs)
	}
	tree := t.TempDir()
	os.MkdirAll(filepath.Join(tree, ".git", "hooks"), 0o755)
	os.MkdirAll(filepath.Join(tree, "~"), 0o755)
	if err := os.Symlink("../.git/hooks", filepath.Join(tree, "~", "a")); err != nil {
		t.Fatal(err)
	}
	for name, ws := range map[string][]evidence.Write{
		"holds": {{Path: "~/a/x", Op: evidence.OpCreate, Kind: "file"}, placeLink("./~/l", "a/post-commit")},
		"dir":   {{Path: "~/a", Op: evidence.OpCreate, Kind: "dir"}, placeLink("./~/l", "a/post-commit")},
		"gone":  {{Path: "~/a", Op: evidence.OpDelete}, placeLink("./~/l", "a/post-commit")},
		// control: without the HOME write, it fails
		"control": {placeLink("./~/l", "a/post-commit")},
	} {
		fs := checkExpectations(cfg.Checks[0], executed{run: placeRun(ws...), tree: tree})
		if len(fs) == 0 {
			t.Errorf("%s: passed: ./~/l -> a/post-commit lands on .git/hooks/post-commit through the tree's link ./~/a", name)
		}
	}
}

// TestWroteOnlyLinkToAPlacesRoot (review 4): a link to the place's root itself: HOME and TMPDIR are directories.
func TestWroteOnlyLinkToAPlacesRoot(t *testing.T) {
	cfg, errs := configErrs(t, "checks:\n  - {name: c, command: x, expect: {wrote-only: [~/**, $TMPDIR/**, /dev/shm/**]}}\n")
	if errs != "" {
		t.Fatal(errs)
	}
	for _, w := range []evidence.Write{placeLink("~/home", "."), placeLink("$TMPDIR/tmp", "."), placeLink("~/.cache/h", "..")} {
		fs := checkExpectations(cfg.Checks[0], executed{run: placeRun(w), tree: t.TempDir()})
		if len(fs) != 0 {
			t.Errorf("%s -> %s: %v", w.Path, w.Target, findingLines(fs))
		}
	}
}

// TestWroteOnlyLinkIntoUsrLocal (review 4): /usr/local is not the system's read-only directories on every host.
func TestWroteOnlyLinkIntoUsrLocal(t *testing.T) {
	cfg, errs := configErrs(t, "checks:\n  - {name: c, command: x, expect: {wrote-only: [.claude/journal/**]}}\n")
	if errs != "" {
		t.Fatal(errs)
	}
	fs := checkExpectations(cfg.Checks[0], executed{run: placeRun(placeLink(".claude/journal/git", "/usr/local/bin/git")), tree: t.TempDir()})
	if len(fs) == 0 {
		t.Errorf("passed: a link to /usr/local/bin/git (user-writable under Homebrew on Intel macs, or to a root session)")
	}
}

// TestWroteOnlyLinkOfATreeLinkNamedLikeHOMEs: the tree's ./~/a is not
// HOME's ~/a: a link HOME's a stands for leaves the tree's own link there
// (to .git/config) in the way.
func TestWroteOnlyLinkOfATreeLinkNamedLikeHOMEs(t *testing.T) {
	cfg, _ := configErrs(t, "checks:\n  - {name: c, command: x, expect: {wrote-only: [./~/**, ~/**]}}\n")
	tree := t.TempDir()
	os.MkdirAll(filepath.Join(tree, "~"), 0o755)
	os.Symlink("../.git/config", filepath.Join(tree, "~", "a"))
	if fs := checkExpectations(cfg.Checks[0], executed{run: placeRun(placeLink("~/a", "b"), placeLink("./~/l", "a")), tree: tree}); len(fs) == 0 {
		t.Error("passed: ./~/l -> a leads through the tree's ./~/a -> ../.git/config")
	}
}

// TestWroteOnlyInTheRunAreas: /run/lock and the caller's /run/user/UID,
// which the run shows as throwaways and records by their path, are
// places of their own, as /var/tmp is: wrote-only allows a write there
// that a pattern names, and a link there is walked within its place (one
// that climbs out of it is not judged, and fails), never looked up on
// the host's /run; a unit written to the runtime directory's
// systemd/user persists (run/persists), a lock does not.
func TestWroteOnlyInTheRunAreas(t *testing.T) {
	cfg, errs := configErrs(t, "checks:\n  - {name: c, command: x, expect: {wrote-only: [/run/lock/**, /run/user/*/cache/**]}}\n")
	if errs != "" {
		t.Fatal(errs)
	}
	file := func(p string) evidence.Write { return evidence.Write{Path: p, Op: evidence.OpCreate, Kind: "file"} }
	for _, c := range []struct {
		name string
		ws   []evidence.Write
		pass bool
	}{
		{"a lock", []evidence.Write{file("/run/lock/x.lock")}, true},
		{"the runtime directory's cache", []evidence.Write{file("/run/user/1000/cache/a")}, true},
		{"a link in the lock directory to a lock", []evidence.Write{placeLink("/run/lock/l", "x.lock")}, true},
		{"a unit", []evidence.Write{file("/run/user/1000/systemd/user/evil.service")}, false},
		{"a link out of the lock directory", []evidence.Write{placeLink("/run/lock/l", "../user/1000/systemd/user/evil.service")}, false},
		{"a link from the cache to a unit", []evidence.Write{placeLink("/run/user/1000/cache/l", "../systemd/user/evil.service")}, false},
		// Out of its place and back: not judged, as in /var/tmp (the
		// host's /run/lock, which the run did not show, is not looked at).
		{"a link out of the lock directory and back", []evidence.Write{placeLink("/run/lock/l", "../lock/y")}, false},
	} {
		fs := checkExpectations(cfg.Checks[0], executed{run: placeRun(c.ws...), tree: t.TempDir()})
		if c.pass != (len(fs) == 0) {
			t.Errorf("%s: findings %v, want a pass %v", c.name, findingLines(fs), c.pass)
		}
	}
	if why := persistsWhy("/run/user/1000/systemd/user/evil.service"); why != persistRuntimeDir {
		t.Errorf("a unit in the runtime directory persists as %q, want %q", why, persistRuntimeDir)
	}
	if why := persistsWhy("/run/lock/x.lock"); why != "" {
		t.Errorf("a lock persists as %q, want it not to", why)
	}
}

// TestRunUserPatternOfNoUIDIsRefused: a pattern under /run/user/ whose
// next name is no uid (/run/user/foo/**, ^/run/user/x) can never match a
// recorded path, as one elsewhere under /run cannot: it is refused,
// naming the forms recorded, where it was taken and matched nothing.
// One that names a uid, or leaves it to a wildcard, is taken.
func TestRunUserPatternOfNoUIDIsRefused(t *testing.T) {
	for _, c := range []struct {
		pattern string
		ok      bool
	}{
		{"/run/user/foo/**", false},
		{"/run/user/f*/cache", false},
		{"re:^/run/user/x/", false},
		{"/run/user/1000/**", true},
		{"/run/user/*/cache/**", true},
		{"/run/user/10*/x", true},
		{"/run/user/**", true},
		{"re:^/run/user/[0-9]+/systemd/", true},
		{"re:^/run/user/1000/", true},
	} {
		_, err := ParsePathPattern(c.pattern)
		if c.ok != (err == nil) {
			t.Errorf("ParsePathPattern(%q): %v, want taken %v", c.pattern, err, c.ok)
		}
		if err != nil && !strings.Contains(err.Error(), "/run/user/UID/") {
			t.Errorf("ParsePathPattern(%q): %v, want the recorded forms named", c.pattern, err)
		}
	}
}
