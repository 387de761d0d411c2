package runner

import (
	"encoding/json"
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// Bun runs a script where no node_modules directory lies in the
// script's directory or above it by installing every package the script
// imports on the fly, from the npm registry, each time it starts
// ("auto-install", Bun's docs): the version the nearest package.json
// gives, else the latest. An installed plugin is a copy of its
// directory, with the node_modules its repository commits and no other,
// so a plugin's hook or server that runs a script of its own with bun,
// and commits no node_modules, runs packages fetched at run time
// (RuleFetchedCode). A project's own hooks are not read so: its
// node_modules is installed on the machines it is used on, not
// committed.

// maxBunFiles bounds the files of the tree a reading of what bun
// auto-installs for one script follows (its relative imports), and
// maxBunImports the packages it names.
const (
	maxBunFiles   = 64
	maxBunImports = 256
)

// bunValue are bun's (and bun run's) options that take a value in the
// next word; bunBool those that take none. --no-install, and --install
// or -i, are read apart.
var (
	bunValue = map[string]bool{"cwd": true, "r": true, "preload": true, "env-file": true, "config": true, "c": true,
		"tsconfig-override": true, "define": true, "d": true, "loader": true, "l": true, "conditions": true,
		"main-fields": true, "extension-order": true, "jsx-factory": true, "jsx-fragment": true, "jsx-import-source": true,
		"jsx-runtime": true, "port": true, "inspect": true, "inspect-wait": true, "inspect-brk": true, "elide-lines": true,
		"shell": true, "filter": true, "F": true, "console-depth": true, "fetch-preconnect": true, "max-http-header-size": true,
		"dns-result-order": true, "title": true, "zero-fill-buffers": true, "redis-preconnect": true, "sql-preconnect": true,
		"unhandled-rejections": true, "user-agent": true}
	bunBool = map[string]bool{"bun": true, "b": true, "smol": true, "hot": true, "watch": true, "no-clear-screen": true,
		"silent": true, "if-present": true, "prefer-offline": true, "prefer-latest": true, "no-deprecation": true,
		"throw-deprecation": true, "no-env-file": true, "no-macros": true, "no-addons": true, "expose-gc": true,
		"no-orphans": true, "v": true, "version": true, "revision": true}
)

// bunScriptExt are the extensions of a script bun runs as a file (bun
// x.ts, bun run x.ts), not as a package.json script of that name.
var bunScriptExt = map[string]bool{".ts": true, ".tsx": true, ".mts": true, ".cts": true, ".js": true, ".jsx": true,
	".mjs": true, ".cjs": true}

// bunRun reads what bun, given args (past the program), run in dir,
// auto-installs for the plugin's script it runs: nothing outside a
// plugin, where --no-install or --install says otherwise, for a script
// outside the plugin, or where a node_modules directory lies in the
// script's directory or one above it inside the plugin.
func (t *treeRead) bunRun(args []string, dir string) {
	if t.plugin == "" {
		return
	}
	opts, rest := scanOpts(args, func(name string) bool { return bunValue[name] })
	for _, o := range opts {
		switch {
		case o.name == "no-install" || o.name == "install" || o.name == "i":
			return // auto-install turned off, or fallback's reading is the tree's
		case !bunValue[o.name] && !bunBool[o.name]:
			return // an option vigiles does not know may take the script
		}
	}
	if len(rest) > 0 && rest[0] == "run" {
		opts, rest = scanOpts(rest[1:], func(name string) bool { return bunValue[name] })
		for _, o := range opts {
			if o.name == "no-install" || o.name == "install" || o.name == "i" || !bunValue[o.name] && !bunBool[o.name] {
				return
			}
		}
	}
	if len(rest) == 0 || !bunScriptExt[path.Ext(rest[0])] {
		return
	}
	rel, ok := t.s.treePath(rest[0], t.vars, dir)
	if !ok || t.seen["bun:"+rel] {
		return
	}
	t.seen["bun:"+rel] = true
	root := path.Clean(t.plugin)
	if !(root == "." || rel == root || strings.HasPrefix(rel, root+"/")) || t.s.nodeModulesAbove(rel, root) {
		return
	}
	pkgs, more := t.s.bunImports(rel, root)
	if len(pkgs) == 0 {
		return
	}
	versions := t.s.packageVersions(path.Dir(rel), root)
	runner := "bun " + shownCut(rel, maxFetchSpec) + " (auto-install: no node_modules in the plugin)"
	fix := "commit the plugin's node_modules, or bundle the script with its dependencies (bun build --target bun), or pin each package to an exact version in the plugin's package.json"
	for _, p := range pkgs {
		f := fetched{runner: runner, spec: p, fix: fix}
		switch v, named := versions[p]; {
		case !named:
			f.why = "no package.json of the plugin names it: bun installs the latest"
		case exactSemver().MatchString(v):
			f.pinned, f.why, f.fix = true, "the exact version "+v+" its package.json gives", ""
		default:
			f.why = "the version " + shownCut(v, maxMonitorName) + " its package.json gives, which a new release moves"
		}
		t.out = append(t.out, f)
	}
	if more {
		t.out = append(t.out, fetched{runner: runner, spec: "…", unread: unreadPackages, fix: fix,
			why: fmt.Sprintf("more packages than vigiles reads one by one (%d): the rest are not read", maxBunImports)})
	}
}

// nodeModulesAbove says whether a node_modules directory lies in the
// directory of the tree's file rel, or in one above it up to root (the
// plugin's directory, "." for the tree's): there bun resolves modules as
// Node.js does, and installs nothing.
func (s *session) nodeModulesAbove(rel, root string) bool {
	for d := path.Dir(rel); ; d = path.Dir(d) {
		if _, fi, err := beneath(s.dir, s.dir, filepath.Join(s.dir, filepath.FromSlash(d), "node_modules")); err == nil && fi.IsDir() {
			return true
		}
		if d == root || d == "." || d == "/" {
			return false
		}
	}
}

// importSpecs matches the module specifiers a script imports: a
// statement that begins a line, import … from "x" or export … from "x"
// (over lines), import "x"; and import("x") and require("x") anywhere.
// A "from" in a string ("--from \"${ref}\"") is none. Group 1 is "type"
// for a type-only import or export, which Bun's compiler removes and
// which installs nothing; group 2 the specifier. Comments are cut first
// (codeOf).
var importSpecs = lazyRE(`(?m)(?:^[ \t]*(?:import|export)[ \t]+(type\b)?[^;"'` + "`" + `]*?\bfrom\s*|^[ \t]*import\s*|\bimport\s*\(\s*|\brequire\s*\(\s*)["']([^"'\s]+)["']`)

// jsComments matches a script's comments: a /* */ block, and a // one
// that does not follow a ':' or a quote (a URL's).
var jsComments = lazyRE(`(?s)/\*.*?\*/|(?m)(?:^|[^:"'\\])//[^\n]*`)

// codeOf is the script src with its comments cut, each kept as one space
// so that no line joins the next.
func codeOf(src string) string {
	return jsComments().ReplaceAllStringFunc(src, func(c string) string {
		if strings.HasPrefix(c, "/*") {
			return " "
		}
		return c[:strings.Index(c, "//")]
	})
}

// maxRelImports bounds the relative imports of one file that
// bunImports looks up.
const maxRelImports = 256

// npmName matches a package name npm takes: lower-case letters, digits,
// '-', '.', '_' and '~', with a scope.
var npmName = lazyRE(`^(?:@[a-z0-9][a-z0-9._~-]*/)?[a-z0-9][a-z0-9._~-]*$`)

// bunImports are the npm packages (their names, sorted) that the tree's
// script rel imports, and the scripts of the tree it imports by a
// relative path in turn, inside root, to maxBunFiles files and
// maxRelImports lookups a file: not Node.js's or Bun's own modules, a
// path, a URL, or a type-only import; more says it imports more than
// maxBunImports, whose rest are not named. The session reads each script
// once (bunSeen), however many hooks run it.
func (s *session) bunImports(rel, root string) (pkgs []string, more bool) {
	key := rel + "\x00" + root
	if seen, ok := s.bunSeen[key]; ok {
		return seen.pkgs, seen.more
	}
	seen := map[string]bool{rel: true}
	queue := []string{rel}
	for len(queue) > 0 && len(seen) <= maxBunFiles {
		f := queue[0]
		queue = queue[1:]
		src, ok := s.readTreeFile(f, maxScriptRead)
		if !ok {
			continue
		}
		looked := map[string]bool{}
		for _, m := range importSpecs().FindAllStringSubmatch(codeOf(src), -1) {
			spec := m[2]
			switch {
			case m[1] != "" || looked[spec]:
			case strings.HasPrefix(spec, "./") || strings.HasPrefix(spec, "../"):
				looked[spec] = true
				if len(looked) > maxRelImports {
					continue
				}
				if next, ok := relImport(f, spec, root, s); ok && !seen[next] {
					seen[next] = true
					queue = append(queue, next)
				}
			case strings.HasPrefix(spec, "/") || strings.Contains(spec, ":") || spec == "bun" || strings.HasPrefix(spec, "bun:") || nodeBuiltin[strings.SplitN(spec, "/", 2)[0]]:
			default:
				looked[spec] = true
				if name := npmPackageName(spec); npmName().MatchString(name) && !slices.Contains(pkgs, name) {
					if len(pkgs) == maxBunImports {
						more = true
						continue
					}
					pkgs = append(pkgs, name)
				}
			}
		}
	}
	slices.Sort(pkgs)
	if s.bunSeen == nil {
		s.bunSeen = map[string]bunSeen{}
	}
	s.bunSeen[key] = bunSeen{pkgs, more}
	return pkgs, more
}

// bunSeen is what bunImports read of a script: the packages, and whether
// it imports more than maxBunImports, the rest not named.
type bunSeen struct {
	pkgs []string
	more bool
}

// relImport is the tree's script that the relative specifier spec,
// imported by the script from, names, as Bun finds it: ok where it is a
// script inside root. Bun's "Module resolution" page
// (bun.com/docs/runtime/module-resolution) gives the order: the path as
// written; then the path with each of bunResolveExt appended; then, for
// a specifier ending .js or .jsx, the same name ending .ts or .tsx; then
// the directory's index with each of bunResolveExt. Where x.js and x.ts
// both lie beside the script, "./x" is x.ts, the file Bun loads, which
// the audit then reads. A JSON file Bun finds first imports nothing, so
// the lookup stops there.
func relImport(from, spec, root string, s *session) (string, bool) {
	p := path.Join(path.Dir(from), spec)
	if !(root == "." || p == root || strings.HasPrefix(p, root+"/")) {
		return "", false
	}
	cands := []string{p}
	for _, ext := range bunResolveExt {
		cands = append(cands, p+ext)
	}
	if ts, ok := map[string]string{".js": ".ts", ".jsx": ".tsx"}[path.Ext(p)]; ok {
		cands = append(cands, strings.TrimSuffix(p, path.Ext(p))+ts)
	}
	for _, ext := range bunResolveExt {
		cands = append(cands, path.Join(p, "index"+ext))
	}
	for _, c := range cands {
		if _, ok := s.treeFile(c); ok {
			return c, bunScriptExt[path.Ext(c)]
		}
	}
	return "", false
}

// bunResolveExt are the extensions Bun tries, in its order, for a
// relative specifier that names no file as written: the order of its
// "Module resolution" page, then .mts and .cts, which Bun runs but the
// page does not list.
var bunResolveExt = []string{".tsx", ".jsx", ".ts", ".mjs", ".js", ".cjs", ".json", ".mts", ".cts"}

// npmPackageName is the package a bare specifier names: its scope and
// name (@s/x/sub is @s/x), else its first segment; "" where it is none.
func npmPackageName(spec string) string {
	segs := strings.Split(spec, "/")
	if strings.HasPrefix(spec, "@") {
		if len(segs) < 2 || segs[1] == "" {
			return ""
		}
		return segs[0] + "/" + segs[1]
	}
	return segs[0]
}

// nodeBuiltin are Node.js's own modules, which Bun has too: an import of
// one installs nothing.
var nodeBuiltin = map[string]bool{"assert": true, "async_hooks": true, "buffer": true, "child_process": true, "cluster": true,
	"console": true, "constants": true, "crypto": true, "dgram": true, "diagnostics_channel": true, "dns": true, "domain": true,
	"events": true, "fs": true, "http": true, "http2": true, "https": true, "inspector": true, "module": true, "net": true,
	"os": true, "path": true, "perf_hooks": true, "process": true, "punycode": true, "querystring": true, "readline": true,
	"repl": true, "stream": true, "string_decoder": true, "sys": true, "timers": true, "tls": true, "trace_events": true,
	"tty": true, "url": true, "util": true, "v8": true, "vm": true, "wasi": true, "worker_threads": true, "zlib": true,
	"test": true, "sqlite": true}

// packageVersions are the versions the nearest package.json from the
// tree's directory dir up to root gives its packages (dependencies,
// devDependencies, optionalDependencies, peerDependencies): name →
// version; none where there is no such file, or one vigiles cannot read.
func (s *session) packageVersions(dir, root string) map[string]string {
	for d := dir; ; d = path.Dir(d) {
		if src, ok := s.readTreeFile(path.Join(d, "package.json"), maxDeclFile); ok {
			var pj map[string]json.RawMessage
			if json.Unmarshal([]byte(src), &pj) != nil {
				return nil
			}
			out := map[string]string{}
			for _, k := range []string{"peerDependencies", "optionalDependencies", "devDependencies", "dependencies"} {
				var deps map[string]string
				if json.Unmarshal(pj[k], &deps) == nil {
					for n, v := range deps {
						out[n] = v
					}
				}
			}
			return out
		}
		if d == root || d == "." || d == "/" {
			return nil
		}
	}
}
