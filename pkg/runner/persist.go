package runner

import (
	"fmt"
	"slices"
	"strings"

	"github.com/vigiles/action/pkg/evidence"
	"github.com/vigiles/action/pkg/report"
)

// RuleRunPersists is a run that wrote a file that runs, or is read as
// instructions, later and outside the run: a git hook, a shell's start-up
// file, Claude Code's own settings, commands, agents, skills, plugins or
// memory (persistsWhy).
const RuleRunPersists = "run/persists"

// maxPersistShown bounds the paths of each kind a run/persists message
// names; the evidence lists them all (to maxEvidence).
const maxPersistShown = 3

// Why a written path runs later, by kind: the phrases run/persists
// messages give.
const (
	persistGitHook    = "git hooks run on commit, push, checkout or merge, outside Claude Code, and stay when the plugin is removed"
	persistGitHead    = "a changed HEAD is a switched branch or commit: the next session, and git, see another tree, with its own .claude settings and CLAUDE.md"
	persistGitConfig  = "git reads its config on every command, and core.hooksPath, core.fsmonitor, core.sshCommand and aliases there run programs"
	persistGitDir     = "a .git that is a file (gitdir: …) or a link names the repository git uses there, wherever it is: its hooks run and its config is read on every git command"
	persistProject    = "Claude Code loads a project's settings, commands, agents and skills in every session there"
	persistMemory     = "Claude reads CLAUDE.md and .claude/rules as instructions"
	persistMCP        = "Claude Code starts the MCP servers .mcp.json lists"
	persistUser       = "Claude Code loads the user's settings, commands, agents and skills in every session, in every project"
	persistUserConfig = "~/.claude.json holds the user's MCP servers and per-project settings, read in every session"
	persistPlugins    = "Claude Code loads installed plugins from ~/.claude/plugins in every session"
	persistShell      = "a shell runs its start-up files each time it starts"
	persistGitUser    = "git reads the user's config on every command, in every repository"
	persistSSH        = "ssh reads ~/.ssh: authorized keys, and the commands its config runs"
	persistLogin      = "autostart entries, user services and the environment they start with (environment.d, ~/.pam_environment: LD_PRELOAD there loads code) take effect at each login"
	persistGradle     = "Gradle runs the init scripts of ~/.gradle on every build, in every project"
	persistPath       = "~/.local/bin is on the user's PATH ahead of the system's"
	persistRuntimeDir = "systemd's user manager reads the units of the runtime directory's systemd/user, user.control, transient and generator directories ($XDG_RUNTIME_DIR) once it reloads, and starts those a .wants link there names, until the user logs out"
	persistPython     = "Python runs the import lines of each .pth file in site-packages, and sitecustomize and usercustomize there, every time it starts"
	persistCargo      = "cargo reads .cargo/config.toml in the directories above where it runs and in ~/.cargo on every build, and its rustc-wrapper, linker and runner run programs"
	persistToolCache  = "a CI runner's tool cache holds the tools the setup actions installed (node, python, go), which every later step of the job runs"
	persistHookTool   = "a git hook manager, once installed in the repository, runs what these name on commit, push or checkout, outside Claude Code: husky the scripts of .husky, pre-commit the hooks of .pre-commit-config.yaml, lefthook the commands of lefthook.yml"
)

// persistsWhy says why path (a written path as the record names it:
// relative to the work tree, or under "~/", "$TMPDIR/", "/dev/shm/", "/var/tmp/",
// "/run/lock/" or "/run/user/UID/", or in a runner's tool cache by its
// absolute path)
// runs later, outside the run; "" where it does not, as far as vigiles
// knows. In the work tree: a git hook, config or HEAD (of any checkout in
// it, and of a submodule's repository under .git/modules), a .git written
// as a gitfile or a link,
// a project's Claude Code settings, commands, agents or skills (of any
// .claude in it), any .mcp.json (a project's, or a plugin root's), any
// CLAUDE.md and a .claude's rules, and what a git hook manager runs
// (husky's .husky, pre-commit's and lefthook's configs); not git's
// *.sample hooks, which it never runs. In HOME: the user's Claude Code settings, commands, agents,
// skills, memory and rules, ~/.claude.json and installed plugins (not a plugin's
// data directory, which a hook may keep its state in), a shell's
// start-up files, git's and ssh's configuration, login autostarts and
// ~/.local/bin. In the caller's runtime directory (/run/user/UID): the
// units of systemd's user manager. In a runner's tool cache (any other
// absolute path): every
// file, which the job's later steps run. In the tree or HOME: Python's start-up files in a site-packages
// and cargo's config (startupWhy). CLAUDE_ENV_FILE and the other scripts under
// ~/.claude/session-env have run/env-file.
func persistsWhy(path string) string {
	if rel, ok := strings.CutPrefix(path, "~/"); ok {
		if why := homePersistsWhy(rel); why != "" || strings.HasPrefix(rel, ".claude/plugins/data/") {
			return why // a plugin's own venv in its data directory runs for it alone
		}
		return startupWhy(rel)
	}
	if strings.HasPrefix(path, "$TMPDIR/") || strings.HasPrefix(path, shmDir) || strings.HasPrefix(path, varTmpDir) {
		return ""
	}
	if area, rest, ok := runArea(path); ok {
		// /run/lock, and the runtime directory but for the units of
		// systemd's user manager, hold nothing that runs: no tool cache.
		if area != "/run/lock" && runtimeUnitPath(rest) {
			return persistRuntimeDir
		}
		return ""
	}
	if strings.HasPrefix(path, "/") {
		return persistToolCache
	}
	if why := startupWhy(strings.TrimPrefix(path, "./")); why != "" {
		return why
	}
	rel := strings.TrimPrefix(path, "./")
	last := rel[strings.LastIndexByte(rel, '/')+1:]
	// Only a path with a name .git or .claude is split into its names
	// (for a record of a million, 35 MiB allocated where none was).
	if hasName(rel, ".git") || hasName(rel, ".claude") {
		if why := treePersistsWhy(strings.Split(rel, "/")); why != "" {
			return why
		}
	}
	switch {
	case last == "CLAUDE.md" || last == "CLAUDE.local.md":
		return persistMemory
	case last == ".mcp.json":
		return persistMCP
	case hookToolConfig(last) || strings.HasPrefix(rel, ".husky/") || strings.Contains(rel, "/.husky/") || last == ".husky": // a link .husky -> x, as .git/hooks
		return persistHookTool
	}
	return ""
}

// aboveIn says whether rel is dir (which ends in "/") or a directory
// above it, without the "/": ".config" and ".config/systemd/user" of
// ".config/systemd/user/".
func aboveIn(rel, dir string) bool {
	return rel != "" && len(rel) < len(dir) && dir[len(rel)] == '/' && strings.HasPrefix(dir, rel)
}

// runtimeUnitDirs are the directories of the caller's runtime directory
// systemd's user manager reads units from (systemd.unit(5), the user
// unit search path): systemd/user, and those it keeps for
// systemctl --runtime, transient units and generators' output, each of
// which it reads on a reload wherever they came from.
var runtimeUnitDirs = [...]string{"systemd/user/", "systemd/user.control/", "systemd/transient/", "systemd/generator/", "systemd/generator.early/", "systemd/generator.late/"}

// runtimeUnitPath says whether rest, a path in the caller's runtime
// directory, is a unit there (runtimeUnitDirs) or one of those
// directories or systemd itself written as no directory: a link at
// systemd/user (or systemd) that leads to a directory of units elsewhere
// in the runtime directory, which the record names by their own path.
func runtimeUnitPath(rest string) bool {
	if rest == "systemd" {
		return true
	}
	for _, d := range runtimeUnitDirs {
		if strings.HasPrefix(rest, d) || rest == d[:len(d)-1] {
			return true
		}
	}
	return false
}

// hookToolConfig says whether name is the config file of a git hook
// manager that runs the commands it names on commit, push or checkout
// once installed: pre-commit's and lefthook's (husky's hooks are the
// files of .husky, which persistsWhy matches by directory).
func hookToolConfig(name string) bool {
	switch name {
	case ".pre-commit-config.yaml", ".pre-commit-config.yml",
		"lefthook.yml", "lefthook.yaml", ".lefthook.yml", ".lefthook.yaml", "lefthook-local.yml", "lefthook-local.yaml":
		return true
	}
	return false
}

// startupWhy is persistsWhy for what a common tool reads and runs each
// time it starts, wherever it lies in the work tree or HOME: a .pth file,
// sitecustomize.py or usercustomize.py of a site-packages (or Debian's
// dist-packages) directory, a project's .venv's or the user's
// (~/.local/lib/pythonX.Y/site-packages), whose import lines Python's
// site module runs at every start of that interpreter; and a
// .cargo/config.toml (or its old name, config), which cargo reads from
// each directory above the one it runs in and from ~/.cargo; and a
// non-directory at a site-packages, dist-packages or .cargo (a link
// leads the tool elsewhere). "" for any other rel (a path relative to
// the tree or to HOME).
func startupWhy(rel string) string {
	dir, last := "", rel
	if i := strings.LastIndexByte(rel, '/'); i >= 0 {
		dir, last = rel[:i], rel[i+1:]
	}
	parent := dir[strings.LastIndexByte(dir, '/')+1:]
	switch {
	case (parent == "site-packages" || parent == "dist-packages") &&
		(strings.HasSuffix(last, ".pth") || last == "sitecustomize.py" || last == "usercustomize.py"):
		return persistPython
	case parent == ".cargo" && (last == "config.toml" || last == "config"):
		return persistCargo
	// A non-directory at such a directory (a link site-packages -> ../x,
	// .cargo -> x): what it leads to, which the record names by another
	// path, is read as that directory.
	case last == "site-packages" || last == "dist-packages":
		return persistPython
	case last == ".cargo":
		return persistCargo
	}
	return ""
}

// hasName says whether one of the names of rel, a slash-separated path,
// is name (not "").
func hasName(rel, name string) bool {
	for {
		n, rest, more := strings.Cut(rel, "/")
		if n == name {
			return true
		}
		if !more {
			return false
		}
		rel = rest
	}
}

// treePersistsWhy is persistsWhy for a path in the work tree, split into
// its names, segs, of which one must be .git or .claude (the name a git
// directory or a Claude Code project's has) for it to say anything; ""
// where it says nothing, and the path's last name may yet (CLAUDE.md,
// .mcp.json).
func treePersistsWhy(segs []string) string {
	last := segs[len(segs)-1]
	for i, s := range segs {
		rest := segs[i+1:]
		if s == ".git" {
			rest = submoduleGitDir(rest)
		}
		switch {
		case s == ".git" && len(rest) > 1 && rest[0] == "hooks" && !strings.HasSuffix(last, ".sample"):
			// git init and clone write *.sample hooks, which git never
			// runs.
			return persistGitHook
		case s == ".git" && len(rest) == 1 && rest[0] == "config":
			return persistGitConfig
		case s == ".git" && len(rest) == 1 && rest[0] == "HEAD":
			return persistGitHead
		case s == ".claude" && len(rest) == 1 && (rest[0] == "settings.json" || rest[0] == "settings.local.json"):
			return persistProject
		case s == ".claude" && len(rest) > 1 && (rest[0] == "commands" || rest[0] == "agents" || rest[0] == "skills"):
			return persistProject
		case s == ".claude" && len(rest) > 1 && rest[0] == "rules" && strings.HasSuffix(last, ".md"):
			return persistMemory
		// A non-directory where git and Claude Code read a directory (a
		// link .git/hooks -> ../x, .claude -> x): what it leads to, which
		// the record names by another path, is read as that directory.
		case s == ".git" && len(rest) == 1 && rest[0] == "hooks":
			return persistGitHook
		case s == ".git" && len(rest) == 0:
			// A checkout's .git written as a gitfile or a link: git
			// takes what it names for the repository (its hooks
			// and config, which the record names by other paths).
			return persistGitDir
		case s == ".claude" && len(rest) == 0,
			s == ".claude" && len(rest) == 1 && (rest[0] == "commands" || rest[0] == "agents" || rest[0] == "skills"):
			return persistProject
		case s == ".claude" && len(rest) == 1 && rest[0] == "rules":
			return persistMemory
		}
	}
	return ""
}

// submoduleGitDir is rest, the path under a .git directory, made relative
// to the git directory it is in: that of a submodule, .git/modules/NAME
// (git keeps a submodule's repository there, and NAME, its path by
// default, may hold slashes; a nested submodule's is under
// .git/modules/NAME/modules/NAME2), whose hooks and config git runs and
// reads in the submodule, as a superproject's git status does. The git
// directory ends before a last config or HEAD, or before hooks/ and one
// name; not where that is a branch's ref or reflog (under refs/, or
// logs/HEAD). rest itself where it is not under modules/.
func submoduleGitDir(rest []string) []string {
	if len(rest) < 3 || rest[0] != "modules" {
		return rest
	}
	n := len(rest)
	j := n - 1 // config or HEAD
	if rest[n-2] == "hooks" {
		j = n - 2
	} else if rest[j] != "config" && rest[j] != "HEAD" && rest[j] != "hooks" {
		return rest // a last hooks: a link at the hooks directory
	}
	if j < 2 || rest[j-1] == "logs" || slices.Contains(rest[1:j], "refs") {
		return rest
	}
	return rest[j:]
}

// homePersistsWhy is persistsWhy for rel, a path relative to HOME.
// A non-directory at one of the directories it names, or at one above it
// in HOME (a link ~/.config/systemd/user -> ../x, or ~/.config -> x),
// leads the tool that reads it to what the record names by another path,
// and is named as what it leads to would be.
func homePersistsWhy(rel string) string {
	under := func(dirs ...string) bool {
		return slices.ContainsFunc(dirs, func(d string) bool { return strings.HasPrefix(rel, d) || aboveIn(rel, d) })
	}
	switch {
	case rel == ".claude/settings.json" || rel == ".claude/settings.local.json" ||
		under(".claude/commands/", ".claude/agents/", ".claude/skills/"):
		return persistUser
	case rel == ".claude/CLAUDE.md" || strings.HasPrefix(rel, ".claude/rules/") && strings.HasSuffix(rel, ".md") || aboveIn(rel, ".claude/rules/"):
		return persistMemory
	case rel == ".claude.json":
		return persistUserConfig
	case under(".claude/plugins/") && rel != ".claude/plugins/data" && !strings.HasPrefix(rel, ".claude/plugins/data/"):
		return persistPlugins
	case slices.Contains([]string{".bashrc", ".bash_aliases", ".bash_profile", ".bash_login", ".bash_logout", ".profile", ".zshrc", ".zshenv", ".zprofile", ".zlogin", ".zlogout", ".cshrc", ".tcshrc", ".kshrc"}, rel) ||
		under(".config/fish/"):
		return persistShell
	case rel == ".gitconfig" || under(".config/git/"):
		return persistGitUser
	case under(".ssh/"):
		return persistSSH
	case under(".config/autostart/", ".config/systemd/user/", ".config/environment.d/") || rel == ".pam_environment":
		return persistLogin
	case rel == ".gradle/init.gradle" || rel == ".gradle/init.gradle.kts" || under(".gradle/init.d/"):
		return persistGradle
	case under(".local/bin/"):
		return persistPath
	}
	return ""
}

// persistNotices are the run/persists warnings of runs: for each run that
// created or modified (not deleted) a file, link or other non-directory
// that runs later outside the run (persistsWhy), one warning naming them
// by kind, the evidence listing every one. A baseline accepts what a
// hook writes (baseline/write names a new one), so an audit gives them
// only without one, as it does run/egress and run/env-file.
func persistNotices(runs []report.HookRun) []report.Finding {
	var out []report.Finding
	for _, r := range runs {
		var kinds []string
		byKind := map[string][]string{}
		for _, w := range r.Writes {
			if w.Op == evidence.OpDelete || w.Kind == "dir" {
				continue
			}
			why := persistsWhy(w.Path)
			if why == "" {
				continue
			}
			if byKind[why] == nil {
				kinds = append(kinds, why)
			}
			byKind[why] = append(byKind[why], shownName(evidence.ShownPath(w.Path)))
		}
		if len(kinds) == 0 {
			continue
		}
		var said, all []string
		for _, k := range kinds {
			ps := byKind[k]
			shown := strings.Join(ps[:min(len(ps), maxPersistShown)], ", ")
			if n := len(ps) - maxPersistShown; n > 0 {
				shown += fmt.Sprintf(" and %d more", n)
			}
			said = append(said, fmt.Sprintf("%s (%s)", shown, k))
			all = append(all, ps...)
		}
		out = append(out, report.Finding{Rule: RuleRunPersists, Severity: report.SeverityWarning, Location: r.Location, Hook: r.ID,
			Title: "writes what runs later",
			Message: fmt.Sprintf("%s %s%s wrote what runs later, outside this run and beyond what it recorded: %s",
				runWho(r), r.Event, toolSuffix(r.Tool), strings.Join(said, "; ")),
			Evidence: clip(strings.Join(all, "\n"), maxEvidence)})
	}
	return out
}
