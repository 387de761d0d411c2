package runner

import (
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/vigiles/action/pkg/report"
	"github.com/vigiles/action/pkg/sandbox/reaper"
)

// RuleDisabled is the notice that the project's settings turn hooks off:
// Claude Code does not run them, so vigiles lists them and does not run
// them either.
const RuleDisabled = "discovery/disabled"

// boolTrueIn is the file of files (in the order Claude Code merges them,
// the later over the earlier) whose boolean key holds, where it is true;
// "" where it is false or no file sets it as a boolean (a value of
// another type is passed over, as Claude Code's schema refuses it).
func boolTrueIn(files []settingsFile, key string) string {
	in := ""
	for _, f := range files {
		var on bool
		if v, ok := f.keys[key]; ok && json.Unmarshal(v, &on) == nil {
			in = ""
			if on {
				in = f.name
			}
		}
	}
	return in
}

// switchesOff reads settings files (settingsFiles: settings.local.json
// over settings.json, key by key), as Claude Code started where they are
// does, for what
// turns hooks off: "disableAllHooks": true, and a plugin set false under
// "enabledPlugins" ("name@marketplace"): by the key of the tree's
// marketplace that lists it (markets), else by every key of its name. It returns the file that turns
// every hook off ("" for none) and, by plugin name, the file that turns
// that plugin off, named relative to the tree. A file settingsFiles
// leaves out turns nothing off; nor does a key with no "@marketplace".
func switchesOff(files []settingsFile, markets map[string][]string) (all string, plugins map[string]string) {
	// By "name@marketplace", the file whose value holds (the local one
	// over the other).
	enabled := map[string]bool{}
	from := map[string]string{}
	all = boolTrueIn(files, "disableAllHooks")
	for _, f := range files {
		name, s := f.name, f.keys
		var ep map[string]json.RawMessage
		if v, ok := s["enabledPlugins"]; ok && json.Unmarshal(v, &ep) == nil {
			for key, v := range ep {
				var on bool
				if strings.Contains(key, "@") && json.Unmarshal(v, &on) == nil {
					enabled[key], from[key] = on, name
				}
			}
		}
	}
	// A vendored plugin is decided by the key of a marketplace of the
	// tree that lists it (markets): another marketplace's key of its
	// name is another plugin. Where no such key is given, or the tree's
	// marketplaces do not list it, by every key of its name: off only
	// where all of them say false.
	plugins = map[string]string{}
	keys := make([]string, 0, len(enabled))
	for k := range enabled {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	type verdict struct {
		own, anyOn, ownOn bool
		from, ownFrom     string
	}
	by := map[string]*verdict{}
	for _, k := range keys {
		plugin, market, _ := strings.Cut(k, "@")
		v := by[plugin]
		if v == nil {
			v = &verdict{}
			by[plugin] = v
		}
		if enabled[k] {
			v.anyOn = true
		} else if v.from == "" {
			v.from = from[k]
		}
		if slices.Contains(markets[plugin], market) {
			v.own = true
			if enabled[k] {
				v.ownOn = true
			} else if v.ownFrom == "" {
				v.ownFrom = from[k]
			}
		}
	}
	for plugin, v := range by {
		switch {
		case v.own && !v.ownOn:
			plugins[plugin] = v.ownFrom
		case !v.own && !v.anyOn && len(markets[plugin]) == 0:
			// Where the tree's marketplaces list it, only their keys
			// decide: Claude Code matches the full plugin@marketplace
			// ID, so a key of another marketplace is another plugin.
			plugins[plugin] = v.from
		}
	}
	return all, plugins
}

// settingsFile is a settings file's top-level keys, as Claude Code reads
// them (case and all: a struct would take "DisableAllHooks" for the key).
type settingsFile struct {
	name string // relative to the tree
	keys map[string]json.RawMessage
	data []byte // the file as read
}

// settingsFiles reads the settings files of the .claude directory in
// proj (relative to the tree: "" for the tree's own), settings.json then
// settings.local.json, which Claude Code reads over it. A file that is
// not there, does not parse, is no regular file or is a symbolic link
// that leads out of the repository (which discovery does not follow
// either) is left out; one that stays in is read where it leads.
func settingsFiles(tree, proj string) []settingsFile {
	var out []settingsFile
	for _, name := range []string{path.Join(proj, claudeSettings), path.Join(proj, claudeSettingsLocal)} {
		// A link that stays in the repository is followed, as
		// discovery reads the hooks of the file it leads to.
		abs, fi, err := beneath(tree, tree, filepath.Join(tree, filepath.FromSlash(name)))
		if err != nil || !fi.Mode().IsRegular() {
			continue
		}
		data, err := readSmall(abs, maxDeclFile)
		if err != nil {
			continue
		}
		var keys map[string]json.RawMessage
		if json.Unmarshal(data, &keys) != nil {
			continue
		}
		out = append(out, settingsFile{name: name, keys: keys, data: data})
	}
	return out
}

// settingsFiles is settingsFiles of the session's tree, without those
// Claude Code skips entirely (session.skipped), none of whose keys
// applies.
func (s *session) settingsFiles(proj string) []settingsFile {
	return slices.DeleteFunc(settingsFiles(s.dir, proj), func(f settingsFile) bool {
		_, skip := s.skipped[f.name]
		return skip
	})
}

// settingsEnv is the "env" of settings files (settingsFiles: the local
// one over the other, name by name) as NAME=VALUE, sorted:
// Claude Code gives it to the session and so to every hook. A value that
// is a string, a number or a boolean is taken as Claude Code takes it;
// HOME and TMPDIR stay the sandbox's throwaway ones, where the record of
// what a hook writes is kept, and an OTEL_* variable is not passed, which
// Claude Code removes from every subprocess it spawns, hooks included
// (hooks.md, "Common input fields"). A loader or shell start-up variable
// (reaper.StartupVar: LD_PRELOAD, GLIBC_TUNABLES, …) is passed, as Claude
// Code passes it: what a preloaded library of the repository's does in
// every hook is the hook's behaviour, and the shell that sets the hook's
// limits exports it only once they hold. One no shell's export can set
// (BASH_FUNC_NAME%%, an exported bash function) is not, since it would
// refuse every run of the session.
func settingsEnv(files []settingsFile) []string {
	m := map[string]string{}
	for _, f := range files {
		var env map[string]json.RawMessage
		if v, ok := f.keys["env"]; !ok || json.Unmarshal(v, &env) != nil {
			continue
		}
		for k, raw := range env {
			if k == "" || k == "HOME" || k == "TMPDIR" || strings.ContainsAny(k, "=\x00") || reaper.StartupVar(k) && !reaper.ShellName(k) || strings.HasPrefix(k, "OTEL_") {
				continue
			}
			var v any
			if json.Unmarshal(raw, &v) != nil {
				continue
			}
			switch x := v.(type) {
			case string:
				if !strings.Contains(x, "\x00") {
					m[k] = x
				}
			case float64, bool:
				m[k] = string(raw)
			}
		}
	}
	out := make([]string, 0, len(m))
	for k, v := range m {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}

// sessionSettings is what the settings of a session started in a
// directory say of its hooks: the file that turns every hook off, the
// files that turn plugins off (switchesOff), and the env (settingsEnv).
type sessionSettings struct {
	all     string
	plugins map[string]string
	env     []string
	// mode is the permission mode the session starts in (settingsMode).
	mode string
	// agent is the agent its main thread runs as (settingsAgent).
	agent string
	// ids holds, by "name@marketplace" key of enabledPlugins, the file
	// whose false turns that ID off ("" where it is set true).
	ids map[string]string
	// files are the settings files read (settingsFiles), for what else
	// they say (projectMCPApproval, skillShellOff).
	files []settingsFile
}

// settingsOf reads the settings of a session started in proj (relative
// to the tree: "" for the tree's root) once.
func (s *session) settingsOf(proj string) sessionSettings {
	if st, ok := s.sessions[proj]; ok {
		return st
	}
	files := s.settingsFiles(proj)
	var st sessionSettings
	st.all, st.plugins = switchesOff(files, s.markets)
	st.ids = idSwitches(files)
	st.env = settingsEnv(files)
	st.mode = settingsMode(files)
	st.agent = settingsAgent(files)
	st.files = files
	if s.sessions == nil {
		s.sessions = map[string]sessionSettings{}
	}
	s.sessions[proj] = st
	return st
}

// applySettings lists, not runs, the command hooks the project's settings turn
// off (switchesOff), with a notice per settings file: a pull request that
// turns a vetted guard off is then the guard no longer run, which an
// audit's baseline reports, where the audit ran it as if Claude Code
// still did.
//
// A project hook of a .claude below the tree's runs in a session started
// there (Hook.ProjectDir), which reads that directory's settings; a
// plugin's, in one started at the tree's root. Each hook gets the "env"
// of those settings too (Hook.SettingsEnv).
func (s *session) applySettings() {
	count := map[string]int{}
	names := map[string][]string{}
	// listed holds, by file, the plugins of names a marketplace of the
	// tree lists: off in this tree's sessions, not where it is
	// installed from the marketplace.
	listed := map[string][]string{}
	for _, h := range s.hooks {
		proj := ""
		if !h.InPlugin {
			proj = h.ProjectDir
		}
		sw := s.settingsOf(proj)
		h.SettingsEnv = sw.env
		h.PermissionMode = sw.mode
		h.MainAgent = sw.agent
		all := sw.all
		why, file := "", ""
		off, offIn := s.pluginOff(sw, h)
		if h.InPlugin && (all != "" || off) && s.onInAPackage(h) {
			// A plugin's hooks run in a session started in a package
			// too, which reads that package's .claude/settings.json, not
			// the root's (settings.md): on there, they are audited.
			continue
		}
		switch {
		case all != "":
			why, file = "disableAllHooks is true in "+all, all
		case h.InPlugin && off:
			// Off under every name Claude Code installs its directory
			// under (Hook.AlsoNamed), not only the one it was read by.
			file = offIn
			why = fmt.Sprintf("its plugin is set false under enabledPlugins in %s", file)
		default:
			continue
		}
		if h.Type == TypeCommand && h.NotRun == "" {
			h.NotRun = "turned off: " + why + ", so Claude Code does not run it"
		}
		count[file]++
		if !slices.Contains(names[file], h.Plugin) {
			names[file] = append(names[file], h.Plugin)
		}
		if h.InPlugin && slices.ContainsFunc(s.installs[h.PluginRoot], func(id string) bool { return !isSkillsDirID(id) }) && !slices.Contains(listed[file], h.Plugin) {
			listed[file] = append(listed[file], h.Plugin)
		}
	}
	files := make([]string, 0, len(count))
	for f := range count {
		files = append(files, f)
	}
	sort.Strings(files)
	for _, f := range files {
		sort.Strings(names[f])
		msg := fmt.Sprintf("%s turns off %d hook(s) (of %s): Claude Code does not run them, so vigiles lists them and does not run them either",
			f, count[f], shownName(strings.Join(firstN(names[f], maxOffNamed), ", ")))
		if l := listed[f]; len(l) > 0 {
			sort.Strings(l)
			msg += fmt.Sprintf("; a marketplace of this tree lists %s, and a session that installs from it elsewhere, where this file is not, runs its hooks, which this audit did not: where the marketplace is published, audit them without the switch (in a copy of the tree whose settings leave them on)", shownName(strings.Join(firstN(l, maxOffNamed), ", ")))
		}
		s.findings = append(s.findings, report.Finding{Rule: RuleDisabled, Severity: report.SeverityNotice, Location: report.Location{File: f},
			Title: "hooks turned off", Message: msg})
	}
}

// maxOffNamed bounds the plugins a discovery/disabled notice names, of
// those a settings file turns off and of those a marketplace of the tree
// lists: the first in sorted order, the rest counted ("and 290 more"),
// so that a tree of hundreds of plugins does not make the notice as
// long as their names.
const maxOffNamed = 10

// pluginOff says whether plugins (switchesOff) turn off the plugin of h
// under every name Claude Code installs its directory under
// (Hook.AlsoNamed), not only the one it was read by.
func (s *session) pluginOffIn(st sessionSettings, h *Hook) bool {
	off, _ := s.pluginOff(st, h)
	return off
}

// pluginOff is pluginOffByName where the tree does not say which IDs
// (name@marketplace) Claude Code installs h's plugin directory under
// (s.installs): where it does, those IDs' keys decide, as Claude Code
// matches a key by the full ID: off where every one of them is set false
// (a directory a marketplace lists and .claude/skills links to is
// guard@mk and guard@skills-dir: one key turns off one install), and the
// names of AlsoNamed off too. Another marketplace's
// plugin of the same name (guard@mk2 beside guard@mk, or a
// skills-directory guard@skills-dir) is another plugin, whose key does
// not turn this one off. It returns the file that turns it off.
func (s *session) pluginOff(st sessionSettings, h *Hook) (bool, string) {
	ids := s.installs[h.PluginRoot]
	if len(ids) == 0 {
		return pluginOffByName(st.plugins, h), st.plugins[h.Plugin]
	}
	from := ""
	for _, id := range ids {
		f := st.ids[id]
		if f == "" {
			// On, or not set: a plugin the tree lists runs unless
			// turned off.
			return false, ""
		}
		if from == "" {
			from = f
		}
	}
	if slices.ContainsFunc(h.AlsoNamed, func(n string) bool { return st.plugins[n] == "" }) {
		return false, ""
	}
	return true, from
}

// idSwitches is, by enabledPlugins key "name@marketplace" in files
// (settings.local.json over settings.json), the file that sets it false,
// or "" where it is set true.
func idSwitches(files []settingsFile) map[string]string {
	ids := map[string]string{}
	for _, f := range files {
		var ep map[string]json.RawMessage
		if v, ok := f.keys["enabledPlugins"]; ok && json.Unmarshal(v, &ep) == nil {
			for key, v := range ep {
				var on bool
				if strings.Contains(key, "@") && json.Unmarshal(v, &on) == nil {
					ids[key] = ""
					if !on {
						ids[key] = f.name
					}
				}
			}
		}
	}
	return ids
}

func pluginOffByName(plugins map[string]string, h *Hook) bool {
	return plugins[h.Plugin] != "" && !slices.ContainsFunc(h.AlsoNamed, func(n string) bool { return plugins[n] == "" })
}

// packageCache is what onInAPackage learnt of the projects discovery
// listed: which are packages, and, by the plugin a hook is of, whether
// one of them leaves it on.
type packageCache struct {
	of   int // how many of s.projects dirs was made from
	dirs []string
	on   map[string]bool
}

// onInAPackage says whether a session started in a package whose .claude
// discovery read (s.projects) leaves the plugin hook h on. The answer
// depends on h's plugin alone (pluginOff: its root, its name and the
// names it is also installed under), so it is worked out once a plugin,
// and each package's .claude is looked at once an audit: a marketplace of
// 1,000 hooks that the root's settings turn off, in a monorepo of 250
// packages whose settings turn them off too, looked at every package for
// every hook (2.6 ms a hook at 1,000 hooks, and growing with both).
func (s *session) onInAPackage(h *Hook) bool {
	c := &s.packages
	if c.on == nil || c.of != len(s.projects) {
		*c = packageCache{of: len(s.projects), on: map[string]bool{}}
		for _, p := range s.projects {
			if p == "" || p == "." {
				continue
			}
			// A package: a directory with a .claude of its own
			// (discovery lists the roots of an audit's PATHs too).
			if fi, err := os.Lstat(filepath.Join(s.dir, filepath.FromSlash(p), ".claude")); err != nil || !fi.IsDir() {
				continue
			}
			c.dirs = append(c.dirs, p)
		}
	}
	key := h.PluginRoot + "\x00" + h.Plugin + "\x00" + strings.Join(h.AlsoNamed, "\x00")
	if on, ok := c.on[key]; ok {
		return on
	}
	on := false
	for _, p := range c.dirs {
		if st := s.settingsOf(p); st.all == "" && !s.pluginOffIn(st, h) {
			on = true
			break
		}
	}
	c.on[key] = on
	return on
}
