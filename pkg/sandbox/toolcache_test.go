package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/vigiles/action/pkg/evidence"
	"github.com/vigiles/action/pkg/sandbox/internal/fsx"
)

// TestToolCaches: the tool caches the caller's environment names are
// covered where each is a directory the run shows and its uid may write,
// outside the work tree and the system's directories, once each, and the
// outer of two nested; links followed.
func TestToolCaches(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	dir := func(n string) string {
		p := filepath.Join(root, n)
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tools, other, tree, masked := dir("hostedtoolcache"), dir("other"), dir("tree"), dir("masked")
	file := filepath.Join(root, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(root, "link")
	if err := os.Symlink("hostedtoolcache", link); err != nil {
		t.Fatal(err)
	}
	readOnly := dir("readonly")
	v := hostView{lookup: lookupHostPath, masked: []string{masked}, may: func(p string, perm uint32) bool { return !fsx.Under(p, readOnly) }}
	// The caller's HOME, under the mask, where the run shows its own.
	home, homeTools := dir("masked/home"), dir("masked/home/actions-runner/_work/_tool")
	secret := filepath.Join(homeTools, "kube", "config")
	for _, c := range []struct {
		name          string
		runner, agent string
		maskDirs      []string
		want          []string
		shownHome     string
		secrets       []string
	}{
		{name: "in the caller's HOME the run shows its own at", runner: homeTools, want: []string{homeTools}, shownHome: home},
		{name: "in it, the HOME itself masked too", runner: homeTools, maskDirs: []string{home}, want: []string{homeTools}, shownHome: home},
		{name: "in it, under a mask inside it", runner: homeTools, maskDirs: []string{filepath.Join(home, "actions-runner")}, shownHome: home},
		{name: "in it, holding a secret", runner: homeTools, shownHome: home, secrets: []string{secret}},
		{name: "in it, one of its dot-directories", runner: dir("masked/home/.claude"), shownHome: home},
		{name: "in it, in one of its dot-directories", runner: dir("masked/home/.cache/_tool"), shownHome: home},
		{name: "in it, a dot below its top", runner: dir("masked/home/tools/.node"), want: []string{filepath.Join(home, "tools/.node")}, shownHome: home},
		{name: "in it, not the run's to write", runner: dir("readonly/home/_tool"), shownHome: filepath.Join(readOnly, "home")},
		{name: "the caller's HOME itself", runner: home, shownHome: home},
		{name: "in a HOME the run does not show its own at", runner: homeTools},
		{"none", "", "", nil, nil, "", nil},
		{"one", tools, "", nil, []string{tools}, "", nil},
		{"both alike, once", tools, tools, nil, []string{tools}, "", nil},
		{"two", tools, other, nil, []string{tools, other}, "", nil},
		{"by a link", link, "", nil, []string{tools}, "", nil},
		{"nested: the outer", dir("hostedtoolcache/node"), tools, nil, []string{tools}, "", nil},
		{"missing", filepath.Join(root, "missing"), "", nil, nil, "", nil},
		{"a file", file, "", nil, nil, "", nil},
		{"the tree", tree, "", nil, nil, "", nil},
		{"in the tree", dir("tree/_tool"), "", nil, nil, "", nil},
		{"holding the tree", root, "", nil, nil, "", nil},
		{"under a mask", dir("masked/tools"), "", nil, nil, "", nil},
		{"under a mask of the caller's", other, "", []string{other}, nil, "", nil},
		{"not the run's to write", readOnly, "", nil, nil, "", nil},
		{"a system directory", "/usr/local", "/etc", nil, nil, "", nil},
		{"the root", "/", "", nil, nil, "", nil},
		{"the kernel's", "/proc/self", "/sys/kernel", nil, nil, "", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			env := map[string]string{"RUNNER_TOOL_CACHE": c.runner, "AGENT_TOOLSDIRECTORY": c.agent}
			got := toolCaches(func(k string) string { return env[k] }, tree, v, c.maskDirs, c.shownHome, func() []string { return c.secrets })
			if !slices.Equal(got, c.want) {
				t.Errorf("toolCaches = %q, want %q", got, c.want)
			}
		})
	}
}

// TestMountedInside: a mount strictly inside a tool cache is named (a
// mask of the run's, a file covered with /dev/null); the tool cache's own
// mount and one beside it (a name that merely starts alike) are not.
func TestMountedInside(t *testing.T) {
	mounts := []fsx.Mount{{Point: "/"}, {Point: "/opt"}, {Point: "/opt/hostedtoolcache"}, {Point: "/opt/hostedtoolcache2/x"}}
	if m := mountedInside("/opt/hostedtoolcache", mounts); m != "" {
		t.Errorf("mountedInside = %q, want none", m)
	}
	mounts = append(mounts, fsx.Mount{Point: "/opt/hostedtoolcache/node/.credentials"})
	if m := mountedInside("/opt/hostedtoolcache", mounts); m != "/opt/hostedtoolcache/node/.credentials" {
		t.Errorf("mountedInside = %q, want the file's mount", m)
	}
}

// TestRootAsPath: the change of a tool cache's own root, which readUpper
// names "DIR/.", is named DIR and listed first, as /var/tmp's is; the
// other writes keep their order.
func TestRootAsPath(t *testing.T) {
	ws := []evidence.Write{{Path: "/opt/t/-x", Op: evidence.OpCreate}, {Path: "/opt/t/.", Op: evidence.OpModify, Kind: "dir"}, {Path: "/opt/t/a", Op: evidence.OpCreate}}
	got := rootAsPath(ws, "/opt/t")
	want := []evidence.Write{{Path: "/opt/t", Op: evidence.OpModify, Kind: "dir"}, {Path: "/opt/t/-x", Op: evidence.OpCreate}, {Path: "/opt/t/a", Op: evidence.OpCreate}}
	if !slices.Equal(got, want) {
		t.Errorf("rootAsPath = %v, want %v", got, want)
	}
	if got := rootAsPath(want[1:], "/opt/t"); !slices.Equal(got, want[1:]) {
		t.Errorf("rootAsPath without the root's change = %v", got)
	}
}

// TestChooseToolCachesSaysWhy: for each variable, chooseToolCaches, which
// the broker's toolCaches and vigiles doctor both read, says why it
// passes over the tool cache named (or that it covers it), one reason
// for each way a run leaves one uncovered; a root caller's tool cache
// handed id-mapped is asked the caller's permissions, and passed over
// where it holds a secret the run hides.
func TestChooseToolCachesSaysWhy(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	dir := func(n string) string {
		p := filepath.Join(root, n)
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tools, tree, masked, readOnly := dir("hostedtoolcache"), dir("tree"), dir("masked"), dir("readonly")
	file := filepath.Join(root, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	v := hostView{lookup: lookupHostPath, masked: []string{masked}, may: func(p string, perm uint32) bool { return !fsx.Under(p, readOnly) }}
	home := dir("masked/home")
	homeTools := dir("masked/home/actions-runner/_work/_tool")
	secret := filepath.Join(tools, "kube", "config")
	for _, c := range []struct {
		name          string
		runner, agent string
		idmapped      bool
		maskDirs      []string
		shownHome     string
		secrets       []string
		want          [2]toolCacheSkip
	}{
		{name: "none set", want: [2]toolCacheSkip{tcUnset, tcUnset}},
		{name: "covered, and the same again", runner: tools, agent: tools, want: [2]toolCacheSkip{tcCovered, tcSame}},
		{name: "missing", runner: filepath.Join(root, "missing"), want: [2]toolCacheSkip{tcUnresolved, tcUnset}},
		{name: "a system directory", runner: "/usr/local", agent: "/", want: [2]toolCacheSkip{tcSystemDir, tcSystemDir}},
		{name: "in the tree, holding it", runner: dir("tree/_tool"), agent: root, want: [2]toolCacheSkip{tcInTree, tcHoldsTree}},
		{name: "the kernel's", runner: "/proc/self", want: [2]toolCacheSkip{tcKernelDir, tcUnset}},
		{name: "a HOME dot-directory", runner: dir("masked/home/.cache/_tool"), shownHome: home, want: [2]toolCacheSkip{tcHomeDotDir, tcUnset}},
		{name: "in HOME under a mask", runner: homeTools, maskDirs: []string{filepath.Join(home, "actions-runner")}, shownHome: home, want: [2]toolCacheSkip{tcHomeMasked, tcUnset}},
		{name: "in HOME holding a secret", runner: homeTools, shownHome: home, secrets: []string{filepath.Join(homeTools, "k")}, want: [2]toolCacheSkip{tcHomeSecret, tcUnset}},
		{name: "in HOME", runner: homeTools, shownHome: home, want: [2]toolCacheSkip{tcCovered, tcUnset}},
		{name: "under a mask", runner: dir("masked/tools"), want: [2]toolCacheSkip{tcHidden, tcUnset}},
		{name: "a file", runner: file, want: [2]toolCacheSkip{tcNotDir, tcUnset}},
		{name: "not the run's to write", runner: readOnly, want: [2]toolCacheSkip{tcNotWritable, tcUnset}},
		{name: "handed id-mapped: the caller's to write", runner: readOnly, idmapped: true, want: [2]toolCacheSkip{tcCovered, tcUnset}},
		{name: "nested: the outer", runner: dir("hostedtoolcache/node"), agent: tools, want: [2]toolCacheSkip{tcNested, tcCovered}},
		{name: "holding a secret", runner: tools, secrets: []string{secret}, want: [2]toolCacheSkip{tcCovered, tcUnset}},
		{name: "handed id-mapped, holding a secret", runner: tools, idmapped: true, secrets: []string{secret}, want: [2]toolCacheSkip{tcIDMapSecret, tcUnset}},
	} {
		t.Run(c.name, func(t *testing.T) {
			env := map[string]string{"RUNNER_TOOL_CACHE": c.runner, "AGENT_TOOLSDIRECTORY": c.agent}
			var cs [len(toolCacheVars)]toolCacheChoice
			chooseToolCaches(&cs, func(k string) string { return env[k] }, tree, &v, c.idmapped, c.maskDirs, c.shownHome, func() []string { return c.secrets })
			if got := [2]toolCacheSkip{cs[0].skip, cs[1].skip}; got != c.want {
				t.Errorf("chooseToolCaches = %v, want %v", cs, c.want)
			}
		})
	}
}

// toolCaches, for the tests, lists the runner's tool caches the caller's environment
// names (toolCacheVars) that the init covers with an overlay of its
// scratch, so that a hook's write there, which under Claude Code every
// later step of the job runs, is recorded by its absolute path and thrown
// away, where the read-only root failed it unrecorded: those
// chooseToolCaches covers, for a sandbox of the view's own identity.
func toolCaches(getenv func(string) string, tree string, v hostView, maskDirs []string, shownHome string, secrets func() []string) []string {
	var cs [len(toolCacheVars)]toolCacheChoice
	chooseToolCaches(&cs, getenv, tree, &v, false, maskDirs, shownHome, secrets)
	return coveredToolCaches(&cs)
}
