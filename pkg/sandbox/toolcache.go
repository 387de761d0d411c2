package sandbox

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/vigiles/action/pkg/evidence"
	"github.com/vigiles/action/pkg/sandbox/internal/fsx"
)

// toolCacheVars name a CI runner's tool cache: GitHub's (RUNNER_TOOL_CACHE,
// /opt/hostedtoolcache on its hosted runners, _work/_tool on a self-hosted
// one) and Azure Pipelines' (AGENT_TOOLSDIRECTORY, which GitHub's hosted
// runners set to the same directory). The setup-* actions install there,
// and every later step of the job runs what they installed.
var toolCacheVars = [...]string{"RUNNER_TOOL_CACHE", "AGENT_TOOLSDIRECTORY"}

// toolCachesFix is what a refusal over a tool cache says to do.
const toolCachesFix = "unset RUNNER_TOOL_CACHE and AGENT_TOOLSDIRECTORY for vigiles (a hook's write to the tool cache then fails in the sandbox and is in no record)"

// coveredToolCaches are the paths of cs that are covered, in order.
func coveredToolCaches(cs *[len(toolCacheVars)]toolCacheChoice) []string {
	var out []string
	for i := range cs {
		if cs[i].skip == tcCovered {
			out = append(out, cs[i].path)
		}
	}
	return out
}

// toolCacheSkip says why chooseToolCaches passes over the tool cache a
// variable names (tcCovered: it does not). A number, not a sentence: a
// run pays nothing to tell them apart, and vigiles doctor says each
// (toolCacheReason).
type toolCacheSkip uint8

const (
	tcCovered     toolCacheSkip = iota
	tcUnset                     // the variable is not set
	tcUnresolved                // its path does not resolve (missing, a dangling link)
	tcSystemDir                 // is, lies in or holds a system directory
	tcSame                      // the variable before names the same, covered
	tcInTree                    // is or lies in the work tree, whose overlay records it
	tcHoldsTree                 // holds the work tree
	tcKernelDir                 // lies in /dev, /proc or /sys
	tcHomeDotDir                // is or lies in one of the caller's HOME's dot-directories
	tcHomeMasked                // in the caller's HOME, under a mask between them
	tcHomeSecret                // in the caller's HOME, holds what the run hides
	tcHidden                    // the run does not show it (a mask, --strict-fs)
	tcNotDir                    // not a directory
	tcNotWritable               // the run's uid may not write into it
	tcNested                    // inside another covered one, which takes it
	tcIDMapSecret               // handed id-mapped, holds what the run hides
	tcNoIDMap                   // handed id-mapped, its file system cannot be (handTree)
)

// toolCacheChoice is what chooseToolCaches made of one variable: the
// path it names (absolute, its links followed; "" where it names none
// that resolves) and whether the run covers it.
type toolCacheChoice struct {
	path string
	skip toolCacheSkip
}

// chooseToolCaches fills cs (zero) with, for each of toolCacheVars in
// order, the tool cache it names and whether the run covers it and, where
// not, why: the one place that decides, for the broker (runConfined) and
// for vigiles doctor (toolCachesProbe).
// Each is absolute, its links followed (a relative value against the
// working directory), and covered once; one inside another is left to
// the outer. Passed over: one that is no directory, is or lies in a
// system directory or holds one (/usr/local/…, /), lies in /dev, /proc or
// /sys, is the work tree or lies in it or holds it (the tree's own
// overlay records it), one the run does not show (under a mask, or
// outside --strict-fs's directories: a write there goes to the run's own
// HOME or TMPDIR, or fails under the mask), and one the run's uid may not
// write into (a write there fails under Claude Code too).
//
// One inside the caller's HOME where the run shows its own HOME in its
// place (homeShownAt, of shownHome, the init's CallerHome; a self-hosted
// runner's ~/actions-runner/_work/_tool) is shown all the same (but with
// --strict-fs, which shows no tool cache outside its directories),
// mounted in that HOME at its path, unless a mask between them hides it
// (~/.config/…) or it holds what the run hides
// (hiddenInTree, of the secret files secrets lists besides the view's):
// it is bound whole from the host, as a work tree in a masked
// directory is, where a mask the run made would not reach. Nor is one
// that is or lies in one of HOME's dot-directories (inDotDir: ~/.claude,
// ~/.ssh, ~/.config/…), where tools keep their logins at the places they
// default to, which the run knows only as HOME, masked whole.
//
// idmapped says the tool caches are handed id-mapped to a root caller's
// sandbox of its own uid (handTree), as its root-owned tree is: root's
// files there are then the sandbox's uid 0's to write, as under Claude
// Code they are the root caller's, so the caller's permissions are asked,
// not the sandbox uid's (v's); and root's files there are the sandbox's
// to read as well, so that one that holds a secret the view leaves
// unmasked because the sandbox's uid may not read it (root's 0600
// KUBECONFIG, a 0700 XDG_CONFIG_HOME in the tool cache) stays as the
// read-only root shows it, as one that cannot be id-mapped does.
//
// Nothing is allocated for a variable the run passes over: the reasons
// are numbers; and cs is the caller's: an array returned was copied out,
// which a run whose environment names none paid for twice over
// (BenchmarkToolCacheRecord/none: 33 against 17 ns).
func chooseToolCaches(cs *[len(toolCacheVars)]toolCacheChoice, getenv func(string) string, tree string, v *hostView, idmapped bool, maskDirs []string, shownHome string, secrets func() []string) {
	set := false
	for i := range toolCacheVars { // by index: a range over the array copies it
		if cs[i].path = getenv(toolCacheVars[i]); cs[i].path != "" {
			set = true
		} else {
			cs[i].skip = tcUnset
		}
	}
	if !set {
		return // a run whose environment names none pays no more
	}
	chooseSetToolCaches(cs, getenv, tree, v, idmapped, maskDirs, shownHome, secrets)
}

// chooseSetToolCaches is chooseToolCaches for cs, where each variable set
// has its value as its path.
func chooseSetToolCaches(cs *[len(toolCacheVars)]toolCacheChoice, getenv func(string) string, tree string, v *hostView, idmapped bool, maskDirs []string, shownHome string, secrets func() []string) {
	home, homeRead := "", false
	for i := range cs {
		c := &cs[i]
		if c.skip == tcUnset {
			continue
		}
		r, err := callerPath(c.path)
		c.path = ""
		if err != nil {
			c.skip = tcUnresolved
			continue
		}
		c.path = r
		if systemDir(r) || inSystemDir(r) {
			c.skip = tcSystemDir
			continue
		}
		if slices.ContainsFunc(cs[:i], func(o toolCacheChoice) bool { return o.skip == tcCovered && o.path == r }) {
			c.skip = tcSame
			continue
		}
		if !homeRead {
			home, homeRead = homeShownAt(getenv("HOME"), shownHome), true
		}
		switch {
		case fsx.Under(r, tree):
			c.skip = tcInTree
			continue
		case fsx.Under(tree, r):
			c.skip = tcHoldsTree
			continue
		case inOwnKernelDirs(r):
			c.skip = tcKernelDir
			continue
		}
		inHome := !v.strict && home != "" && r != home && fsx.Under(r, home)
		switch {
		case inHome && inDotDir(r, home):
			c.skip = tcHomeDotDir
		case inHome && v.hidesBelow(r, home, maskDirs):
			c.skip = tcHomeMasked
		case inHome && hiddenInTree(r, *v, secrets()) != "":
			c.skip = tcHomeSecret
		case !inHome && v.hides(r, maskDirs):
			c.skip = tcHidden
		}
		if c.skip != tcCovered {
			continue
		}
		if fi, err := os.Stat(r); err != nil || !fi.IsDir() {
			c.skip = tcNotDir
		} else if idmapped && !(hostView{}).grants(r, 0o3) || !idmapped && !v.grants(r, 0o3) {
			// Handed id-mapped, the caller's permissions (a view
			// without may), not the sandbox uid's.
			c.skip = tcNotWritable
		}
	}
	covered := 0
	for i := range cs {
		if cs[i].skip == tcCovered {
			covered++
		}
	}
	if covered == 0 {
		return
	}
	// One inside another covered one is left to the outer, which the
	// overlay over it covers whole.
	for i := range cs {
		if covered > 1 && cs[i].skip == tcCovered && slices.ContainsFunc(cs[:], func(o toolCacheChoice) bool {
			return o.skip == tcCovered && o.path != cs[i].path && fsx.Under(cs[i].path, o.path)
		}) {
			cs[i].skip = tcNested
		}
	}
	if idmapped {
		for i := range cs {
			if cs[i].skip == tcCovered && hiddenInTree(cs[i].path, *v, secrets()) != "" {
				cs[i].skip = tcIDMapSecret
			}
		}
	}
}

// inDotDir says whether r, strictly inside home, is or lies in one of
// home's dot-directories (~/.claude: Claude Code's login, and a root
// caller's the run's own Claude Code files in the run's HOME at /root).
func inDotDir(r, home string) bool {
	rel, ok := strings.CutPrefix(r, strings.TrimSuffix(home, "/")+"/")
	return ok && strings.HasPrefix(rel, ".")
}

// toolCache is a tool cache the init covered with an overlay: its path,
// the host's directory (bound in the run's directory, which the command
// never sees), the overlay's upper directory in the scratch, and that
// directory's state before the run.
type toolCache struct {
	path, lower, upper string
	root               *rootState
}

// mountedInside names a mount point of mounts strictly inside dir, ""
// where there is none: an overlay over dir would show what is below it as
// the host has it (overlayfs takes the lower directory's own mount alone),
// a mask of the run's among it.
func mountedInside(dir string, mounts []fsx.Mount) string {
	for _, m := range mounts {
		if m.Point != dir && fsx.Under(m.Point, dir) {
			return m.Point
		}
	}
	return ""
}

// mountToolCaches covers each of paths (initConfig.ToolCaches; "" for
// one passed over) with an overlay whose upper directory is in the
// scratch, the host's directory its lower layer, which bubblewrap bound
// (or the broker handed, id-mapped) at toolCacheLower(i), where the
// record is read against it once the overlay hides it. The command sees
// the tools as they are and runs them; what it writes there stays in the
// scratch. A tool cache that holds a mount (the host's, which this
// mountinfo lists at its path even under a mask, and which the lower,
// bound from the host's view or cloned alone, would show or leave out; or
// a mask of the run's, which the lower leaves out), or that overlayfs
// cannot take, refuses the run: it is never left writable to the host,
// and never shown over the masks below it. One in the caller's HOME,
// which the run shows its own HOME in place of, has its mount point made
// there (the init's madeDirs, made before this is called).
func mountToolCaches(paths []string) ([]toolCache, error) {
	if len(paths) == 0 {
		return nil, nil
	}
	mounts, err := fsx.Mounts()
	if err != nil {
		return nil, fmt.Errorf("reading mountinfo: %w", err)
	}
	tcs := make([]toolCache, 0, len(paths))
	for i, p := range paths {
		if p == "" {
			continue // not handed (receiveToolCache)
		}
		n := strconv.Itoa(i)
		tc := toolCache{path: p, lower: toolCacheLower(i), upper: scratchDir + "/toolcache" + n}
		m := mountedInside(p, mounts)
		if in := mountedInside(tc.lower, mounts); m == "" && in != "" {
			m = p + strings.TrimPrefix(in, tc.lower)
		}
		if m != "" {
			return nil, fmt.Errorf("the runner's tool cache %s has %s mounted inside it, which an overlay over the tool cache would show as the host has it; fix: give the tool cache a directory with nothing mounted inside it, or %s", p, m, toolCachesFix)
		}
		work := scratchDir + "/toolcachework" + n
		for _, d := range []string{tc.upper, work} {
			if err := os.Mkdir(d, 0o755); err != nil {
				return nil, fmt.Errorf("preparing the tool cache %s: %w", p, err)
			}
		}
		if err := os.MkdirAll(p, 0o755); err != nil {
			return nil, fmt.Errorf("preparing the tool cache's mount point %s: %w", p, err)
		}
		// Private: the bind is a peer of the tool cache's mount (the
		// init's mounts are shared with the reaper), and the overlay
		// mounted there would show up on it too, the record then read
		// against itself.
		if err := unix.Mount("", tc.lower, "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
			return nil, fmt.Errorf("making the tool cache's bind private: %w", err)
		}
		if tc.root, err = prepareUpper(tc.upper, tc.lower); err != nil {
			return nil, fmt.Errorf("preparing the tool cache's upper directory: %w", err)
		}
		if err := mountOverlay(tc.lower, tc.upper, work, p); err != nil {
			return nil, fmt.Errorf("mounting an overlay over the runner's tool cache %s: %w%s; fix: %s", p, err, overlayStackHint(tc.lower, "the tool cache", "one"), toolCachesFix)
		}
		tcs = append(tcs, tc)
	}
	return tcs, nil
}

// toolCachePaths are the paths of tcs.
func toolCachePaths(tcs []toolCache) []string {
	out := make([]string, len(tcs))
	for i, tc := range tcs {
		out[i] = tc.path
	}
	return out
}

// toolCacheWrites reads what the command left in each tool cache's upper
// directory against the host's, recorded by absolute path
// (/opt/hostedtoolcache/node/…), a change of the tool cache itself as its
// own path; and whether a regular file there is of fileLimit bytes.
func toolCacheWrites(tcs []toolCache, fileLimit int64) ([]evidence.Write, bool, error) {
	var out []evidence.Write
	atLimit := false
	for _, tc := range tcs {
		ws, hit, err := readUpperSized(tc.upper, tc.lower, tc.path+"/", tc.root, fileLimit)
		if err != nil {
			return nil, false, err
		}
		atLimit = atLimit || hit
		out = append(out, rootAsPath(ws, tc.path)...)
	}
	return out, atLimit, nil
}

// rootAsPath names the write readUpper records for the root of a place
// recorded under the absolute path dir (dir+"/.") as dir itself, first,
// as "/var/tmp" and "/dev/shm" are named.
func rootAsPath(ws []evidence.Write, dir string) []evidence.Write {
	i := slices.IndexFunc(ws, func(w evidence.Write) bool { return w.Path == dir+"/." })
	if i < 0 {
		return ws
	}
	w := ws[i]
	w.Path = dir
	return append([]evidence.Write{w}, slices.Delete(ws, i, i+1)...)
}

// overlayStackHint says why overlayfs may have refused lower, the host's
// what ("the work tree"; one, "a tree"), where it is on overlayfs itself.
func overlayStackHint(lower, what, one string) string {
	var fs unix.Statfs_t
	if unix.Statfs(lower, &fs) == nil && fs.Type == unix.OVERLAYFS_SUPER_MAGIC {
		return " (" + what + " is on overlayfs itself, which stacks at most two deep: " + one + " on an overlay of an overlay, as in a container's container, cannot be a lower layer)"
	}
	return ""
}
