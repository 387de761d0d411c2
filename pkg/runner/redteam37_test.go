package runner

import (
	"slices"
	"testing"

	"github.com/vigiles/action/pkg/evidence"
	"github.com/vigiles/action/pkg/report"
)

// TestRedteam37BaselineKeysRuntimeDirByUID: a baseline keeps a write in
// the caller's runtime directory by its path, uid and all, as it keeps a
// tool cache's: one written by a run as uid 1000 is write drift against
// a run as uid 1001 that writes the same name in its own runtime
// directory, never a pass of a path it did not list; against a run as the
// same uid it is none. Only the caller's own runtime directory is shown,
// so keying it as /run/user/UID/… would lose nothing; it is not, so that a
// baseline says what the host it was written on would keep: write it
// where it is checked (the job's runner, its uid).
func TestRedteam37BaselineKeysRuntimeDirByUID(t *testing.T) {
	b := baselineOf(t, opsRun("create /run/user/1000/cache/x", "create /run/lock/x.lock"))
	if drift, msgs := opDrift(b, opsRun("create /run/user/1000/cache/x", "modify /run/lock/x.lock")); len(drift) != 0 || len(msgs) != 0 {
		t.Errorf("the same uid: drift %q, findings %q", drift, msgs)
	}
	drift, msgs := opDrift(b, opsRun("create /run/user/1001/cache/x", "create /run/lock/x.lock"))
	wantMsgs := []string{"p Stop now writes /run/user/1001/cache/x, which the baseline does not list"}
	if !slices.Equal(drift, []string{"write >/run/user/1001/cache/x"}) || !slices.Equal(msgs, wantMsgs) {
		t.Errorf("uid 1001 against a baseline of uid 1000: drift %q, findings %q, want write drift naming /run/user/1001/cache/x", drift, msgs)
	}
}

// TestRedteam37WroteOnlyRunAreaLinks: a link in a run area with an
// absolute target, even one back into its own place, is not judged and
// fails wrote-only, as one that climbs out into /var/tmp does; the host's
// /run is no system directory a link may lead to. wrote-only:
// [/run/**] allows every write in the run areas, a unit among them, which
// is what it names: run/persists still names the unit.
func TestRedteam37WroteOnlyRunAreaLinks(t *testing.T) {
	cfg, errs := configErrs(t, "checks:\n  - {name: c, command: x, expect: {wrote-only: [/run/lock/**, /run/user/*/cache/**, /var/tmp/**]}}\n  - {name: all, command: x, expect: {wrote-only: [/run/**]}}\n")
	if errs != "" {
		t.Fatal(errs)
	}
	for _, c := range []struct {
		name string
		ws   []evidence.Write
	}{
		{"an absolute link to a unit", []evidence.Write{placeLink("/run/user/1000/cache/l", "/run/user/1000/systemd/user/evil.service")}},
		{"an absolute link to a lock", []evidence.Write{placeLink("/run/lock/l", "/run/lock/x")}},
		{"a link from the lock directory to /var/tmp", []evidence.Write{placeLink("/run/lock/l", "../../var/tmp/x")}},
		{"a link from /var/tmp to a unit", []evidence.Write{placeLink("/var/tmp/l", "../../run/user/1000/systemd/user/evil.service")}},
	} {
		if fs := checkExpectations(cfg.Checks[0], executed{run: placeRun(c.ws...), tree: t.TempDir()}); len(fs) == 0 {
			t.Errorf("%s: passed, want it not judged and failed", c.name)
		}
	}
	unit := evidence.Write{Path: "/run/user/1000/systemd/user/evil.service", Op: evidence.OpCreate, Kind: "file"}
	if fs := checkExpectations(cfg.Checks[1], executed{run: placeRun(unit), tree: t.TempDir()}); len(fs) != 0 {
		t.Errorf("wrote-only [/run/**] failed a unit: %v", findingLines(fs))
	}
	if fs := persistNotices([]report.HookRun{placeRun(unit)}); len(fs) != 1 {
		t.Errorf("run/persists %+v, want one naming the unit", fs)
	}
}

// TestRedteam37LinkAtAWatchedDirectoryPersists: a link (or file) a run
// leaves where a tool reads a directory of what runs later, in HOME or
// the tree (~/.config/systemd/user -> ../x beside ../x/evil.service,
// ~/.config -> x, .git/hooks -> ../x, a submodule's .git/modules/x/hooks,
// a site-packages, a .cargo or husky's .husky), leads the tool to files the record
// names by another path: run/persists names the link as the directory
// it stands for, where it named none. A directory there is none, nor is
// a link beside one (~/.config/systemd/userx, ~/.claude/plugins/data).
func TestRedteam37LinkAtAWatchedDirectoryPersists(t *testing.T) {
	for _, c := range []struct {
		path, why string
	}{
		{"~/.config/systemd/user", persistLogin},
		{"~/.config/systemd", persistLogin},
		{"~/.config", persistShell},
		{"~/.ssh", persistSSH},
		{"~/.local/bin", persistPath},
		{"~/.local", persistPath},
		{"~/.claude", persistUser},
		{"~/.claude/commands", persistUser},
		{"~/.claude/rules", persistMemory},
		{"~/.claude/plugins", persistPlugins},
		{"~/.claude/plugins/data", ""},
		{"~/.claude/plugins/database.json", persistPlugins},
		{"~/.config/systemd/userx", ""},
		{"~/.configx", ""},
		{".git/hooks", persistGitHook},
		{"sub/.git/hooks", persistGitHook},
		{".claude", persistProject},
		{".claude/skills", persistProject},
		{".claude/rules", persistMemory},
		{".git/hooksx", ""},
		{".git/modules/sub/hooks", persistGitHook},
		{".git/modules/a/b/hooks", persistGitHook},
		{".git/modules/sub/refs/heads/hooks", ""},
		{".venv/lib/python3.12/site-packages", persistPython},
		{"~/.local/lib/python3.12/site-packages", persistPython},
		{"/usr/lib/python3/dist-packages", persistToolCache},
		{"~/.cargo", persistCargo},
		{"sub/.cargo", persistCargo},
		{"~/.local/lib/python3.12/site-packagesx", ""},
		{".cargox", ""},
		{"web/.husky", persistHookTool},
		{".claude/x", ""},
		{"sub/.git", persistGitDir},
		{".git", persistGitDir},
		{"sub/.gitx", ""},
	} {
		if got := persistsWhy(c.path); got != c.why {
			t.Errorf("persistsWhy(%q) = %q, want %q", c.path, got, c.why)
		}
	}
	run := placeRun(
		evidence.Write{Path: "~/.config/systemd", Op: evidence.OpCreate, Kind: "dir"},
		placeLink("~/.config/systemd/user", "../../x"),
		evidence.Write{Path: "~/x/evil.service", Op: evidence.OpCreate, Kind: "file"},
		placeLink(".git/hooks", "../x"),
		evidence.Write{Path: "x/pre-commit", Op: evidence.OpCreate, Kind: "file"},
	)
	fs := persistNotices([]report.HookRun{run})
	if len(fs) != 1 || fs[0].Evidence != "~/.config/systemd/user\n.git/hooks" {
		t.Errorf("run/persists %+v, want one naming ~/.config/systemd/user and .git/hooks", fs)
	}
}
