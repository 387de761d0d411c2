package sandbox

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/vigiles/action/pkg/sandbox/internal/fsx"
	"golang.org/x/sys/unix"
)

// maxEngineConfig bounds what engineDataRoots reads of an engine's
// config: a larger one names nothing to it.
const maxEngineConfig = 1 << 20

// engineConfigs are the rootful container engines' configs that may move
// their state away from secretDirs' /var/lib/docker, /var/lib/containerd
// and /var/lib/containers (a runner machine's big data disk: /mnt/docker,
// /data/docker), and the settings that name where it went: Docker's
// daemon.json ("data-root", and "graph", its older name; "exec-root")
// and dockerd's flags, containerd's config.toml (root and state, at its
// top level) and flags, and containers/storage's
// storage.conf, which rootful Podman, Buildah and CRI-O read (graphroot,
// runroot and imagestore, in its [storage] table; the distribution's file
// in /usr/share and the administrator's in /etc, and their drop-ins).
var engineConfigs = []struct {
	path  string
	roots func([]byte) []string
}{
	{"/etc/docker/daemon.json", dockerDataRoots},
	// The Docker snap's daemon.json ($SNAP_DATA/config).
	{"/var/snap/docker/current/config/daemon.json", dockerDataRoots},
	// dockerd's own flags, where a unit (a drop-in's ExecStart=, the
	// usual way to move it besides daemon.json) or the environment file
	// Debian's (DOCKER_OPTS) or Red Hat's (OPTIONS) unit reads gives them.
	{"/etc/systemd/system/docker.service", dockerdFlagRoots},
	{"/etc/systemd/system/docker.service.d/*.conf", dockerdFlagRoots},
	{"/etc/default/docker", dockerdFlagRoots},
	{"/etc/sysconfig/docker", dockerdFlagRoots},
	{"/etc/containerd/config.toml", func(b []byte) []string { return tomlStrings(b, "root", "state") }},
	// containerd's own flags, in its unit or a drop-in.
	{"/etc/systemd/system/containerd.service", containerdFlagRoots},
	{"/etc/systemd/system/containerd.service.d/*.conf", containerdFlagRoots},
	{"/etc/containers/storage.conf", storageConfRoots},
	{"/usr/share/containers/storage.conf", storageConfRoots},
	// Its drop-ins, for every user and for root alone.
	{"/etc/containers/storage.conf.d/*.conf", storageConfRoots},
	{"/etc/containers/storage.rootful.conf.d/*.conf", storageConfRoots},
	{"/usr/share/containers/storage.conf.d/*.conf", storageConfRoots},
	{"/usr/share/containers/storage.rootful.conf.d/*.conf", storageConfRoots},
	// CRI-O's own root and runroot ([crio] of crio.conf and its
	// drop-ins), which override storage.conf's for it.
	{"/etc/crio/crio.conf", crioRoots},
	{"/etc/crio/crio.conf.d/*.conf", crioRoots},
}

// engineDefaultRoots are the engines' own state outside /var/lib: the
// Docker snap's writable data whole, its data root
// ($SNAP_COMMON/var-lib-docker) and its registries' client keys
// ($SNAP_COMMON/etc/certs.d, the snap's /etc/docker/certs.d) among it.
var engineDefaultRoots = []string{"/var/snap/docker"}

// engineDataRoots are the directories where the host's container engines
// keep their state, as their own configs name them (engineConfigs; a
// path with a * is a glob of the files to read: a unit's drop-ins; a
// link is followed to its file, as the engine follows it: NixOS's /etc),
// and engineDefaultRoots, and the other paths a data disk bound on one of
// them, or on one of secretDirs' engines' roots, shows it at
// (boundElsewhere), each at the path its links lead to, once, and not
// one secretDirs holds already. A path that is not absolute and
// clean, or that maskableRoot refuses, is not one; a config that is
// missing, unreadable or malformed names none. The broker masks each
// whole where the run may enter it, as it does secretDirs.
func engineDataRoots() []string {
	named := slices.Clone(engineDefaultRoots)
	for _, c := range engineConfigs {
		readConfigFiles([]string{c.path}, maxEngineConfig, func(b []byte) { named = append(named, c.roots(b)...) })
	}
	var out []string
	add := func(p string) {
		if !filepath.IsAbs(p) || filepath.Clean(p) != p {
			return
		}
		r, err := filepath.EvalSymlinks(p)
		if err != nil || !maskableRoot(r) || slices.Contains(out, r) ||
			slices.ContainsFunc(secretDirs, func(d string) bool { return fsx.Under(r, d) }) {
			return
		}
		out = append(out, r)
	}
	for _, p := range named {
		add(p)
	}
	for _, p := range boundElsewhere(slices.Concat(engineStockRoots, out)) {
		add(p)
	}
	return out
}

// secretDirsToMask are the directories the broker's secretDirs loop
// masks where the run may enter them: secretDirs that are there, each
// that is a link at the path it leads to (bubblewrap makes its masks
// from a root of its own, where a link's absolute target is not there:
// /var/lib/docker -> /data/docker failed every run, "Can't mount tmpfs
// on /newroot/var/lib/docker"), never / or a system directory, then
// engineDataRoots, each once. A secretDirs entry not there costs one
// lstat, as the loop's stat of it did.
func secretDirsToMask() []string {
	out := make([]string, 0, 8)
	for _, d := range secretDirs {
		var st unix.Stat_t
		if unix.Lstat(d, &st) != nil {
			continue
		}
		if st.Mode&unix.S_IFMT == unix.S_IFLNK {
			if d = maskableLinkTarget(d, filepath.EvalSymlinks); d == "" {
				continue
			}
		}
		if !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	for _, r := range engineDataRoots() {
		if !slices.Contains(out, r) {
			out = append(out, r)
		}
	}
	return out
}

// maskableLinkTarget is the path the link d leads to, resolved by resolve
// with the host's own links (filepath.EvalSymlinks), where a mask may be
// made there: bubblewrap makes its masks from a root of its own, where a
// link's absolute target is not there. It is "" where d cannot be
// resolved, or leads to / or a system directory (systemDir), which no
// mask may hide. secretDirsToMask and maskedDirsAt share it.
func maskableLinkTarget(d string, resolve func(string) (string, error)) string {
	r, err := resolve(d)
	if err != nil || r == "/" || systemDir(r) {
		return ""
	}
	return r
}

// engineStockRoots are the engines' data roots secretDirs masks, where a
// data disk is often bind-mounted rather than named in a config (an
// fstab line binding /data/docker on /var/lib/docker).
var engineStockRoots = []string{"/var/lib/docker", "/var/lib/containerd", "/var/lib/containers"}

// boundElsewhere are the other paths at which each of roots that is a
// mount point shows the same directory: for the mount on top there, each
// other mount of the same file system whose root holds that mount's root
// (the data disk's own mount at /data, when /data/docker is bound on
// /var/lib/docker), at the path that directory has under it, where that
// path is the very directory (its device and inode; a mount over it
// shows something else). The mount table is read only where one of roots
// is a mount point (statx's STATX_ATTR_MOUNT_ROOT; always, where the
// kernel does not say).
func boundElsewhere(roots []string) []string {
	var mounted []string
	for _, r := range roots {
		var st unix.Statx_t
		if unix.Statx(unix.AT_FDCWD, r, unix.AT_SYMLINK_NOFOLLOW, unix.STATX_INO, &st) != nil {
			continue
		}
		if st.Attributes_mask&unix.STATX_ATTR_MOUNT_ROOT == 0 || st.Attributes&unix.STATX_ATTR_MOUNT_ROOT != 0 {
			mounted = append(mounted, r)
		}
	}
	if len(mounted) == 0 {
		return nil
	}
	mounts, err := fsx.Mounts()
	if err != nil {
		return nil
	}
	var out []string
	for _, r := range mounted {
		top := -1
		for i, m := range mounts {
			if m.Point == r {
				top = i
			}
		}
		var rst unix.Stat_t
		if top < 0 || unix.Stat(r, &rst) != nil {
			continue
		}
		m := mounts[top]
		for _, o := range mounts {
			if o.Dev != m.Dev || o.Point == r || !fsx.Under(m.Root, o.Root) {
				continue
			}
			rel, err := filepath.Rel(o.Root, m.Root)
			if err != nil {
				continue
			}
			a := filepath.Join(o.Point, rel)
			var ast unix.Stat_t
			if fsx.Under(a, r) || unix.Stat(a, &ast) != nil || ast.Dev != rst.Dev || ast.Ino != rst.Ino || slices.Contains(out, a) {
				continue
			}
			out = append(out, a)
		}
	}
	return out
}

// sharedDirs are directories whose files are not one program's: an
// engine's config that names one of them (data-root /opt) is not taken
// for its state's own, as masking it would hide every other program's.
var sharedDirs = []string{"/var", "/var/lib", "/var/cache", "/var/opt", "/opt", "/srv", "/mnt", "/media", "/home", "/root", "/boot"}

// kernelDirs are the kernel's file systems and the directories the
// sandbox makes anew (its /dev, /proc, /tmp, /run): nothing of the
// host's under them is shown, or could be an engine's store.
var kernelDirs = []string{"/dev", "/proc", "/sys", "/tmp", "/run"}

// maskableRoot says whether r (absolute, clean, its links resolved) may
// be masked as an engine's state: not /, a system directory (systemDir,
// which / is above) or one in it (inSystemDir: /usr/lib/docker would be
// the system's as well), a shared directory itself (sharedDirs), or one
// the sandbox does not show (kernelDirs).
func maskableRoot(r string) bool {
	if r == "/" || systemDir(r) || inSystemDir(r) || slices.Contains(sharedDirs, r) {
		return false
	}
	return !slices.ContainsFunc(kernelDirs, func(d string) bool { return fsx.Under(r, d) })
}

// dockerDataRoots are the roots a Docker daemon.json (b) names:
// "data-root" and the older "graph", and "exec-root" (its running
// state: each container's runtime state, its network namespaces, its
// plugins' sockets; /var/run/docker unless moved). dockerd reads the file with Go's
// encoding/json, strict JSON (no comments), into its config's fields,
// as this does: a key's case does not matter, the last of two wins, and
// a file it cannot read names nothing.
func dockerDataRoots(b []byte) []string {
	var c struct {
		DataRoot string `json:"data-root"`
		Graph    string `json:"graph"`
		ExecRoot string `json:"exec-root"`
	}
	if json.Unmarshal(b, &c) != nil {
		return nil
	}
	var out []string
	for _, p := range []string{c.DataRoot, c.Graph, c.ExecRoot} {
		if p != "" {
			out = append(out, p)
		}
	}
	return out
}

// dockerdFlagRoots are the roots dockerd's flags name in b (flagRoots):
// --data-root and its older names --graph and -g, and --exec-root
// (dockerDataRoots).
func dockerdFlagRoots(b []byte) []string {
	return flagRoots(b, "--data-root", "--graph", "-g", "--exec-root")
}

// containerdFlagRoots are the roots containerd's flags name in b
// (flagRoots): --root and --state, its config's root and state.
func containerdFlagRoots(b []byte) []string {
	return flagRoots(b, "--root", "--state")
}

// flagRoots are the values a daemon's flags (each of flags) take in b (a
// systemd unit or drop-in, an environment file), on any line no # or ;
// starts: "--flag /x" or "--flag=/x", and for a one-letter flag "-g /x",
// "-g=/x" or "-g/x", quotes around a word or the whole taken away. One in
// an ExecStart= that a later one replaces counts too: a root the engine
// was given is its, and what it left there as well.
func flagRoots(b []byte, flags ...string) []string {
	var out []string
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' || line[0] == ';' {
			continue
		}
		f := strings.Fields(strings.NewReplacer(`"`, " ", "'", " ").Replace(line))
		for i, w := range f {
			for _, fl := range flags {
				switch {
				case w == fl:
					if i+1 < len(f) {
						out = append(out, f[i+1])
					}
				case strings.HasPrefix(w, fl+"="):
					out = append(out, w[len(fl)+1:])
				case len(fl) == 2 && strings.HasPrefix(w, fl+"/"):
					out = append(out, w[2:])
				}
			}
		}
	}
	return out
}

// storageConfRoots are the stores a containers/storage storage.conf (b)
// names in its [storage] table: graphroot (every container's and image's
// layers, each container's config), runroot (its locks and mounts) and
// imagestore (its images, where kept apart from graphroot).
func storageConfRoots(b []byte) []string {
	return tomlStrings(b, "storage.graphroot", "storage.runroot", "storage.imagestore")
}

// crioRoots are the stores a CRI-O crio.conf (b) names in its [crio]
// table: root and runroot.
func crioRoots(b []byte) []string {
	return tomlStrings(b, "crio.root", "crio.runroot")
}

// tomlStrings are the string values the TOML document b gives the keys
// named, each by its whole dotted name (a key of table [storage] is
// storage.KEY, as a dotted key storage.KEY = … at the top level is): a
// basic string ("…", with TOML's escapes) or a literal one ('…') on the
// key's own line, with nothing after it but a comment. Only what those
// configs hold is read: a value of another kind (a number, an array, a
// multi-line string) is none, and so is a line this does not follow; a
// key given twice (which TOML's parsers refuse) gives each.
func tomlStrings(b []byte, keys ...string) []string {
	var out []string
	table := ""
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(strings.TrimSuffix(line, "\r"))
		if line == "" || line[0] == '#' {
			continue
		}
		if line[0] == '[' {
			// A table header: [name] or [ a . b ], a comment after it;
			// an array of tables, [[name]], holds none of the keys.
			h, _, _ := strings.Cut(line, "#")
			h = strings.TrimSpace(h)
			table = "\x00" // until a header this reads
			if !strings.HasPrefix(h, "[[") && strings.HasSuffix(h, "]") {
				if n, ok := tomlKey(h[1 : len(h)-1]); ok {
					table = n
				}
			}
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		name, ok := tomlKey(k)
		if !ok {
			continue
		}
		if table != "" {
			name = table + "." + name
		}
		if !slices.Contains(keys, name) {
			continue
		}
		if s, ok := tomlString(strings.TrimSpace(v)); ok {
			out = append(out, s)
		}
	}
	return out
}

// tomlKey is the dotted name of a TOML key (k): bare parts (letters,
// digits, - and _) or quoted ones without escapes, joined by dots with
// spaces around them allowed.
func tomlKey(k string) (string, bool) {
	var parts []string
	for _, p := range strings.Split(k, ".") {
		p = strings.TrimSpace(p)
		if len(p) >= 2 && (p[0] == '"' || p[0] == '\'') && p[len(p)-1] == p[0] {
			p = p[1 : len(p)-1]
			if strings.ContainsAny(p, `\"'`) {
				return "", false
			}
		} else if p == "" || strings.ContainsFunc(p, func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_')
		}) {
			return "", false
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, "."), true
}

// tomlString is the string a TOML value v (trimmed) is: a basic string,
// its escapes undone, or a literal one, followed by nothing but spaces and
// a comment; TOML's text is UTF-8, and a line that is not is none.
func tomlString(v string) (string, bool) {
	if len(v) < 2 || !utf8.ValidString(v) || (v[0] != '"' && v[0] != '\'') || strings.HasPrefix(v, `"""`) || strings.HasPrefix(v, "'''") {
		return "", false
	}
	var s, rest string
	if v[0] == '\'' {
		end := strings.IndexByte(v[1:], '\'')
		if end < 0 {
			return "", false
		}
		s, rest = v[1:1+end], v[2+end:]
	} else {
		// The closing quote is the first one no backslash escapes.
		end := -1
		for i := 1; i < len(v); i++ {
			if v[i] == '\\' {
				i++
			} else if v[i] == '"' {
				end = i
				break
			}
		}
		if end < 0 {
			return "", false
		}
		var err error
		if s, err = strconv.Unquote(v[:end+1]); err != nil {
			return "", false
		}
		rest = v[end+1:]
	}
	if rest = strings.TrimSpace(rest); rest != "" && rest[0] != '#' {
		return "", false
	}
	return s, true
}
