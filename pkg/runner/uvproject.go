package runner

import (
	"fmt"
	"maps"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// `uv run CMD` in a uv project brings the project's environment up to
// date before it runs CMD ("uv will ensure that the project environment
// is up-to-date before running the given command", uv's docs, "Running
// commands in projects"): it installs the project's dependencies, and
// the dependency groups it installs by default (dev), from the package
// index into the project's .venv. They are code fetched at run time
// (RuleFetchedCode), pinned where a uv.lock holds the resolution (uv
// run installs from it while the project matches it; --locked and
// --frozen keep it to it), and whatever the index serves that day
// where none does: uv resolves them afresh and writes a uv.lock of its
// own. uv finds the project as uvProject says; --no-project, --no-sync,
// a script with inline metadata (or --script), which runs apart from
// the project, and a project with no dependencies install nothing.

// maxWorkspaceMembers bounds the members of a virtual workspace root
// (one with no [project] of its own) whose pyproject.toml vigiles reads,
// and maxIncludeDepth how deep a dependency group's include-group is
// followed.
const (
	maxWorkspaceMembers = 64
	maxIncludeDepth     = 8
)

// pyproject is what a pyproject.toml says of what uv run installs for
// it: whether it has a [project] table (a project, else a virtual root
// whose dependency groups, and workspace members, are what uv installs),
// the project's dependencies (dynamic where the build says them: uv
// builds the project to learn them), its extras, its dependency groups
// (each a list of requirements and groups it includes, the dev group
// with [tool.uv]'s dev-dependencies), the groups [tool.uv]'s
// default-groups names ("all" for all), whether it is a workspace root
// ([tool.uv.workspace]) and its members and exclude globs, and whether
// [tool.uv] has managed = false, which has uv run leave it be. ok is
// false where a list vigiles reads could not be read.
type pyproject struct {
	project, dynamic bool
	deps             []string
	extras           map[string][]string
	groups           map[string][]groupEntry
	defaultGroups    []string
	defaultSet       bool
	workspace        bool
	members, exclude []string
	unmanaged        bool
	ok               bool
}

// groupEntry is one entry of a dependency group: a requirement, or
// (include) the name of a group it includes ({include-group = "name"}).
type groupEntry struct {
	req, include string
}

// readPyproject reads the pyproject.toml text src.
func readPyproject(src string) pyproject {
	p := pyproject{ok: true, extras: map[string][]string{}, groups: map[string][]groupEntry{}}
	strs := func(value string) []string {
		v, _, ok := tomlStringArray(value)
		p.ok = p.ok && ok
		return v
	}
	tomlWalk(src, func(name, value string, table bool) {
		switch {
		case name == "project" || strings.HasPrefix(name, "project."):
			p.project = true
		case name == "tool.uv.workspace" || strings.HasPrefix(name, "tool.uv.workspace."):
			p.workspace = true
		}
		if table {
			return
		}
		switch {
		case name == "project.dependencies":
			p.deps = strs(value)
		case name == "project.dynamic":
			v, _, _ := tomlStringArray(value)
			p.dynamic = slices.Contains(v, "dependencies")
		case strings.HasPrefix(name, "project.optional-dependencies."):
			p.extras[uvGroupName(strings.TrimPrefix(name, "project.optional-dependencies."))] = strs(value)
		case strings.HasPrefix(name, "dependency-groups."):
			g := uvGroupName(strings.TrimPrefix(name, "dependency-groups."))
			entries, ok := tomlGroupArray(value)
			p.ok = p.ok && ok
			p.groups[g] = append(p.groups[g], entries...)
		case name == "tool.uv.dev-dependencies":
			for _, r := range strs(value) {
				p.groups["dev"] = append(p.groups["dev"], groupEntry{req: r})
			}
		case name == "tool.uv.default-groups":
			p.defaultSet = true
			if s, _, ok := tomlString(strings.TrimSpace(value)); ok && s == "all" {
				p.defaultGroups = []string{"all"}
				break
			}
			p.defaultGroups = strs(value)
		case name == "tool.uv.managed":
			p.unmanaged = strings.HasPrefix(strings.TrimSpace(value), "false")
		case name == "tool.uv.workspace.members":
			p.members = strs(value)
		case name == "tool.uv.workspace.exclude":
			p.exclude = strs(value)
		}
	})
	return p
}

// tomlGroupArray reads the TOML array a dependency group's value s
// begins with: its requirements, and the groups its inline tables
// include ({include-group = "name"}); false where it holds anything
// else.
func tomlGroupArray(s string) ([]groupEntry, bool) {
	// Each inline table becomes the string of the group it includes,
	// marked by a NUL no requirement holds, for tomlStringArray.
	var b strings.Builder
	depth := 0
scan:
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\'':
			_, n, ok := tomlString(s[i:])
			if !ok {
				return nil, false
			}
			b.WriteString(s[i : i+n])
			i += n - 1
		case c == '#':
			k := strings.IndexByte(s[i:], '\n')
			if k < 0 {
				k = len(s) - i
			}
			b.WriteString(s[i : i+k])
			i += k - 1
		case c == '{':
			k := strings.IndexByte(s[i:], '}')
			if k < 0 {
				return nil, false
			}
			key, value, ok := strings.Cut(s[i+1:i+k], "=")
			name, _, isStr := tomlString(strings.TrimSpace(value))
			if !ok || tomlName(key) != "include-group" || !isStr {
				return nil, false
			}
			b.WriteString(`"` + "\x00" + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(name) + `"`)
			i += k
		case c == '[':
			depth++
			b.WriteByte(c)
		case c == ']':
			b.WriteByte(c)
			if depth--; depth <= 0 {
				break scan // the array's end: what follows is not read
			}
		default:
			b.WriteByte(c)
		}
	}
	items, _, ok := tomlStringArray(b.String())
	if !ok {
		return nil, false
	}
	var out []groupEntry
	for _, it := range items {
		if g, ok := strings.CutPrefix(it, "\x00"); ok {
			out = append(out, groupEntry{include: uvGroupName(g)})
			continue
		}
		out = append(out, groupEntry{req: it})
	}
	return out, true
}

// uvNameSep matches the runs of separators a group, extra or package
// name is normalized over (PEP 503).
var uvNameSep = lazyRE(`[-_.]+`)

// uvGroupName is a dependency group's or extra's name as uv compares
// them: lower case, each run of -, _ and . one -.
func uvGroupName(s string) string {
	return uvNameSep().ReplaceAllString(strings.ToLower(strings.TrimSpace(s)), "-")
}

// installs are the requirements uv run installs for p with y: the
// project's dependencies (not where --only-group or --only-dev leaves
// them out), the extras named (all with --all-extras, less --no-extra's),
// and the groups: --only-group's alone, else the default ones
// ([tool.uv]'s default-groups, or dev; none with --no-default-groups)
// with --group's (all with --all-groups), less --no-group's, which come
// before all. Each group's include-group entries are followed.
func (p pyproject) installs(y uvSync) []string {
	norm := func(names []string) []string {
		out := make([]string, 0, len(names))
		for _, n := range names {
			out = append(out, uvGroupName(n))
		}
		return out
	}
	var reqs []string
	if len(y.onlyGroups) == 0 {
		reqs = append(reqs, p.deps...)
	}
	for _, e := range slices.Sorted(maps.Keys(p.extras)) {
		if (y.allExtras || slices.Contains(norm(y.extras), e)) && !slices.Contains(norm(y.noExtras), e) {
			reqs = append(reqs, p.extras[e]...)
		}
	}
	groups := norm(y.onlyGroups)
	if len(groups) == 0 {
		switch {
		case y.noDefaultGroups:
		case !p.defaultSet:
			groups = append(groups, "dev")
		case slices.Contains(p.defaultGroups, "all"):
			groups = append(groups, slices.Collect(maps.Keys(p.groups))...)
		default:
			groups = append(groups, norm(p.defaultGroups)...)
		}
		groups = append(groups, norm(y.groups)...)
		if y.allGroups {
			groups = append(groups, slices.Collect(maps.Keys(p.groups))...)
		}
	}
	slices.Sort(groups)
	seen := map[string]bool{}
	var add func(g string, depth int)
	add = func(g string, depth int) {
		if seen[g] || depth > maxIncludeDepth {
			return
		}
		seen[g] = true
		for _, e := range p.groups[g] {
			if e.include != "" {
				add(e.include, depth+1)
				continue
			}
			reqs = append(reqs, e.req)
		}
	}
	for _, g := range slices.Compact(groups) {
		if !slices.Contains(norm(y.noGroups), g) {
			add(g, 0)
		}
	}
	return reqs
}

// uvProject is the project uv run finds from the directory start
// (relative to the work tree): the nearest of it and its parents, up to
// the work tree's root, that holds a pyproject.toml, as uv finds it
// ("the project or workspace is discovered from the current working
// directory": a pyproject.toml with a [project] table, a workspace
// root's, or one with dependency groups alone, which uv takes as a
// virtual root). false where none is there, or it could not be read.
func (s *session) uvProject(start string) (dir string, p pyproject, ok bool) {
	for d := start; ; d = path.Dir(d) {
		if _, found := s.treeFile(path.Join(d, "pyproject.toml")); found {
			src, read := s.readTreeFile(path.Join(d, "pyproject.toml"), maxScriptRead)
			if !read {
				return "", pyproject{}, false
			}
			return d, readPyproject(src), true
		}
		if d == "." {
			return "", pyproject{}, false
		}
	}
}

// uvLockDir is the directory whose uv.lock holds the resolution of the
// project in dir (p its pyproject.toml): its own, or, for a member of a
// workspace, the workspace root's, which uv finds as the nearest parent
// with a pyproject.toml where that one has a [tool.uv.workspace] whose
// members globs name dir and whose exclude globs do not. A project that
// is itself a workspace root, or not a project, is its own.
func (s *session) uvLockDir(dir string, p pyproject) string {
	if !p.project || p.workspace || dir == "." {
		return dir
	}
	for d := path.Dir(dir); ; d = path.Dir(d) {
		if _, found := s.treeFile(path.Join(d, "pyproject.toml")); found {
			src, read := s.readTreeFile(path.Join(d, "pyproject.toml"), maxScriptRead)
			if !read {
				return dir
			}
			root := readPyproject(src)
			rel := dir
			if d != "." {
				rel = strings.TrimPrefix(dir, d+"/")
			}
			if root.workspace && globsName(root.members, rel) && !globsName(root.exclude, rel) {
				return d
			}
			return dir
		}
		if d == "." {
			return dir
		}
	}
}

// globsName says whether any of globs (a workspace's members or
// exclude, relative to its root) names the directory rel.
func globsName(globs []string, rel string) bool {
	return slices.ContainsFunc(globs, func(g string) bool {
		ok, err := path.Match(path.Clean(g), rel)
		return err == nil && ok
	})
}

// memberInstalls are the requirements of the members of the workspace
// rooted at dir (p its pyproject.toml, one with no [project]), which uv
// run installs there: each member's dependencies, at most
// maxWorkspaceMembers of them read; dynamic where a member's build says
// its own.
func (s *session) memberInstalls(dir string, p pyproject) (reqs []string, dynamic bool) {
	n := 0
	for _, g := range p.members {
		matches, err := filepath.Glob(filepath.Join(s.dir, filepath.FromSlash(dir), filepath.FromSlash(path.Clean(g))))
		if err != nil {
			continue
		}
		for _, m := range matches {
			rel, err := relTo(s.dir, m)
			if err != nil || leavesDir(rel) || globsName(p.exclude, strings.TrimPrefix(rel, dir+"/")) {
				continue
			}
			if n++; n > maxWorkspaceMembers {
				return reqs, true
			}
			src, ok := s.readTreeFile(path.Join(rel, "pyproject.toml"), maxScriptRead)
			if !ok {
				continue
			}
			member := readPyproject(src)
			reqs = append(reqs, member.deps...)
			dynamic = dynamic || member.dynamic
		}
	}
	return reqs, dynamic
}

// uvProjectFetch is what uv run, with the options o, fetches for the
// project it finds from start (the directory it runs in, relative to
// the work tree, --directory's and --project's already taken): the
// dependencies it installs, named by the project's pyproject.toml;
// false where it installs none: no project, --no-project or --no-sync,
// [tool.uv] managed = false, a pyproject.toml vigiles could not read,
// no dependencies, or --frozen or --locked where no uv.lock is there
// (uv exits with an error before it installs anything), or a project
// found outside within (a directory relative to the work tree; "" for
// anywhere). seen holds the projects named already, which are not named
// again.
func (s *session) uvProjectFetch(o uvOptions, start, within string, seen map[string]bool) (fetched, bool) {
	if o.sync.noProject || o.sync.noSync {
		return fetched{}, false
	}
	dir, p, ok := s.uvProject(start)
	if !ok || !p.ok || p.unmanaged || within != "" && dir != within && !strings.HasPrefix(dir, within+"/") {
		return fetched{}, false
	}
	reqs, dynamic := p.installs(o.sync), p.dynamic && len(o.sync.onlyGroups) == 0
	if !p.project && p.workspace {
		more, dyn := s.memberInstalls(dir, p)
		reqs, dynamic = append(reqs, more...), dynamic || dyn
	}
	pyRel := path.Join(dir, "pyproject.toml")
	if len(reqs) == 0 && !dynamic || seen[pyRel] {
		return fetched{}, false
	}
	seen[pyRel] = true
	lockDir := s.uvLockDir(dir, p)
	lockRel := path.Join(lockDir, "uv.lock")
	_, locked := s.treeFile(lockRel)
	if !locked && (o.sync.frozen || o.sync.locked) {
		return fetched{}, false
	}
	spec := "the dependencies of " + pyRel
	switch {
	case dynamic:
	case len(reqs) == 1:
		spec = "the 1 dependency of " + pyRel
	default:
		spec = fmt.Sprintf("the %d dependencies of %s", len(reqs), pyRel)
	}
	f := fetched{runner: "uv run", spec: spec}
	where := "beside it"
	if lockDir != dir {
		where = "of its workspace"
	}
	if !locked {
		f.why = "no uv.lock " + where + ": uv run resolves them afresh, whatever the index serves that day"
		f.fix = fmt.Sprintf("lock them: uv lock beside %s, commit the uv.lock it writes, and run uv run --locked", shownCut(path.Join(lockDir, "pyproject.toml"), maxFetchSpec))
		return f, true
	}
	f.pinned = true
	keeps := "which uv run installs from while the project matches it"
	switch {
	case o.sync.frozen:
		keeps = "which --frozen has uv run install from as it stands"
	case o.sync.locked:
		keeps = "which --locked holds uv run to"
	}
	f.why = fmt.Sprintf("the lock %s %s, %s", shownCut(lockRel, maxFetchSpec), where, keeps)
	return f, true
}
