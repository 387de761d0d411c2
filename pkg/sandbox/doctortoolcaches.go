package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/vigiles/action/pkg/sandbox/internal/fsx"
)

// ProbeToolCaches names the check that says what a run does with each
// runner tool cache the environment names.
const ProbeToolCaches = "tool-caches"

// probeToolCaches says, for each runner tool cache the environment names
// (toolCacheVars), whether a run in the current directory covers it, and
// where not, why: chooseToolCaches's answer, the one the broker acts on.
func probeToolCaches(ctx context.Context, env *doctorEnv) Probe {
	dir, err := os.Getwd()
	if err == nil {
		dir, err = filepath.EvalSymlinks(dir)
	}
	if err != nil {
		return Probe{Availability: Inconclusive, Detail: fmt.Sprintf("no current directory to take as the work tree: %v", err)}
	}
	return toolCachesProbe(ctx, dir, os.Getenv)
}

// toolCachesProbe is probeToolCaches for a run on the work tree dir. It
// builds what the broker gives chooseToolCaches for such a run (the
// sandbox's identity as a root caller's run picks it by the tree's owner,
// the run's view and its masks, the caller's HOME the run shows its own
// at, the secrets it hides) with the broker's own functions, and, for a
// root caller's tool caches handed id-mapped, tries the clone handTree
// makes. A tool cache passed over is unsupported, none set available:
// neither changes the tier.
func toolCachesProbe(ctx context.Context, dir string, getenv func(string) string) Probe {
	if !slices.ContainsFunc(toolCacheVars[:], func(k string) bool { return getenv(k) != "" }) {
		return Probe{Availability: Available, Detail: "none is named: neither " + strings.Join(toolCacheVars[:], " nor ") + " is set, so a run covers no tool cache"}
	}
	var cred *syscall.Credential
	idmapped := false
	uid := os.Geteuid()
	if uid == 0 {
		var st syscall.Stat_t
		if err := syscall.Stat(dir, &st); err != nil {
			return Probe{Availability: Inconclusive, Detail: fmt.Sprintf("the work tree: %v", err)}
		}
		if st.Uid != 0 {
			cred = &syscall.Credential{Uid: st.Uid, Gid: ownerGid(st.Uid, st.Gid), Groups: []uint32{}}
			uid = int(st.Uid)
		} else {
			cred = &syscall.Credential{Uid: SandboxUID, Gid: SandboxUID, Groups: []uint32{}}
			idmapped = true
		}
	}
	view, maskDirs, maskFiles := runView(false, cred, getenv)
	secretMasks := secretDirsEntered(view)
	sockDirs, sockFiles, err := hostSocketMasks(dir, view, findOtherNamespaces("/proc"))
	if err != nil {
		return Probe{Availability: Inconclusive, Detail: clean(err.Error())}
	}
	ciDirs, _ := ciTempDirs(getenv, dir, view)
	for _, d := range slices.Concat(sockDirs, ciDirs, secretMasks) {
		if !slices.Contains(maskDirs, d) {
			maskDirs = append(maskDirs, d)
		}
	}
	var files []string
	for _, f := range existingSecretFiles() {
		if view.mayRead(f, 0o4) && !slices.ContainsFunc(secretMasks, func(d string) bool { return fsx.Under(f, d) }) {
			files = append(files, f)
		}
	}
	files = slices.Concat(files, maskFiles, sockFiles)
	secrets := func() []string {
		return slices.Concat(files, secretMasks, envCredentialFiles(getenv), envCredentialSockets(getenv))
	}
	home := shownCallerHome(getenv("HOME"), view, maskDirs)
	var cs [len(toolCacheVars)]toolCacheChoice
	chooseToolCaches(&cs, getenv, dir, &view, idmapped, maskDirs, home, secrets)
	if idmapped {
		if err := tryHandingToolCaches(ctx, &cs); err != nil {
			return Probe{Availability: Inconclusive, Detail: clean(err.Error())}
		}
	}
	who := "the sandbox's uid " + strconv.Itoa(uid)
	if idmapped {
		who = "the root caller"
	}
	p := Probe{Availability: Available}
	var details, fixes []string
	for i, c := range cs {
		k := toolCacheVars[i]
		v := getenv(k)
		if v == "" {
			continue
		}
		at := k + "=" + v
		if c.path != "" && c.path != v {
			at += " (" + c.path + ")"
		}
		reason, fix := toolCacheReason(cs, i, dir, who, home, view, secrets)
		if reason == "" {
			details = append(details, at+": covered: writes recorded by absolute path")
			continue
		}
		if c.skip == tcSame || c.skip == tcNested || c.skip == tcInTree {
			details = append(details, at+": covered: "+reason)
			continue
		}
		p.Availability = Unsupported
		details = append(details, at+": not covered: "+reason)
		if fix != "" {
			fixes = append(fixes, k+": "+fix)
		}
	}
	p.Detail = clean(strings.Join(details, "; "))
	if len(fixes) > 0 {
		p.Fix = clean(strings.Join(fixes, "; "))
	}
	return p
}

// tryHandingToolCaches makes, for each tool cache of cs covered, the
// id-mapped clone handTree makes for a root caller's sandbox of its own
// uid, and marks one whose file system cannot be (errNoIDMap) tcNoIDMap:
// handTree sends noToolCacheByte for it, and the run leaves it as the
// read-only root shows it.
func tryHandingToolCaches(ctx context.Context, cs *[len(toolCacheVars)]toolCacheChoice) error {
	if !slices.ContainsFunc(cs[:], func(c toolCacheChoice) bool { return c.skip == tcCovered }) {
		return nil
	}
	userns, release, err := sandboxUserns(ctx)
	if err != nil {
		return err
	}
	defer release()
	for i := range cs {
		if cs[i].skip != tcCovered {
			continue
		}
		fd, err := idmappedClone(cs[i].path, userns)
		switch {
		case errors.Is(err, errNoIDMap):
			cs[i].skip = tcNoIDMap
		case err != nil:
			return err
		default:
			unix.Close(fd)
		}
	}
	return nil
}

// toolCacheReason says why the run passes over cs[i] (chooseToolCaches's
// skip), in vigiles doctor's words, and what to do; "" for one covered.
// tree is the work tree, who the one whose permissions were asked, home
// the caller's HOME the run shows its own at ("" for none), v the
// run's view and secrets its secret files, as chooseToolCaches had them.
func toolCacheReason(cs [len(toolCacheVars)]toolCacheChoice, i int, tree, who, home string, v hostView, secrets func() []string) (reason, fix string) {
	const fails = ", so a hook's write there fails and is in no record"
	const unseen = ", so the hook sees what the run shows there in its place, not the tool cache, and a write there does not reach it"
	c := cs[i]
	other := func() string {
		for j, o := range cs {
			if j != i && o.skip == tcCovered && fsx.Under(c.path, o.path) {
				return toolCacheVars[j]
			}
		}
		return "another"
	}
	switch c.skip {
	case tcCovered:
		return "", ""
	case tcSame:
		return "as " + other() + ", which names the same directory", ""
	case tcNested:
		return "within " + other() + "'s overlay, which holds it: writes recorded by absolute path", ""
	case tcInTree:
		return "by the work tree's overlay (a run in " + tree + "), which holds it: writes recorded relative to the tree", ""
	case tcUnresolved:
		return "it names no directory here (missing, or a link that leads nowhere)" + fails + " (but where the run shows a directory of its own in its place: under /tmp, its TMPDIR)",
			"make the directory before vigiles runs, or unset the variable for vigiles"
	case tcSystemDir:
		return "it is, lies in or holds a system directory (/usr, /etc, …), which the run shows read-only as the host has it" + fails,
			"give the tool cache a directory of its own outside the system directories (/opt/hostedtoolcache)"
	case tcHoldsTree:
		return "it holds the work tree (a run in " + tree + "), which is bound whole: a write in the tree is the tree's, recorded relative to it; anywhere else in the tool cache it fails and is in no record",
			"keep the tool cache and the work tree apart"
	case tcKernelDir:
		return "it lies in /dev, /proc or /sys, of which the sandbox has its own" + unseen,
			"give the tool cache a directory of its own (/opt/hostedtoolcache)"
	case tcHomeDotDir:
		return "it is or lies in one of the caller's HOME's dot-directories (~/.claude, ~/.cache/…), where tools keep their logins, hidden whole with HOME" + unseen,
			"move the tool cache out of HOME's dot-directories (~/actions-runner/_work/_tool)"
	case tcHomeMasked:
		return "a directory the run masks between the caller's HOME (" + home + ") and it hides it" + unseen,
			"move the tool cache out of that directory"
	case tcHomeSecret:
		return "in the caller's HOME, it holds " + hiddenInTree(c.path, v, secrets()) + ", which the run hides, and it would be bound whole from the host" + unseen,
			"move that secret out of the tool cache"
	case tcHidden:
		return "the run masks it or a directory that holds it (/tmp, /run, a HOME, a runner's secrets)" + unseen,
			"give the tool cache a directory the run shows (outside /tmp, /run and the homes: /opt/hostedtoolcache)"
	case tcNotDir:
		return "it is not a directory" + fails, "make it a directory, or unset the variable for vigiles"
	case tcNotWritable:
		return who + " may not write into it (a write there fails under Claude Code as that user too)" + fails,
			"give the tool cache to the user the run's sandbox runs as, if its hooks are to write there"
	case tcIDMapSecret:
		return "handed id-mapped to the root caller's sandbox of its own uid, where root's files are that uid 0's to read, it holds " + hiddenInTree(c.path, v, secrets()) + ", which the run hides, so it stays as the read-only root shows it" + fails,
			"move that secret out of the tool cache"
	case tcNoIDMap:
		return "its file system cannot be id-mapped for the root caller's sandbox of its own uid, so it stays as the read-only root shows it" + fails,
			"keep the tool cache on a file system that can be id-mapped (ext4, xfs; btrfs from Linux 5.15, tmpfs from 6.3), give the work tree a non-root owner, or --root-sandbox"
	}
	return "passed over (" + strconv.Itoa(int(c.skip)) + ")", ""
}
