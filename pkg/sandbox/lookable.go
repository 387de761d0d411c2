package sandbox

import (
	"os"
	"path/filepath"
	"syscall"
)

// HostLookup is what a confined run on the work tree dir, made as Run
// makes it for this caller, could learn of the host by looking a path up
// itself: the function it returns says whether the run finds the host
// path p at its own path (no directory the run masks holds it: the fixed
// masks, the caller's HOME, its secrets and a runner's directories) and
// may search the directory that holds it, as the uid it runs as (a root
// caller's run is the tree's owner's, or SandboxUID's). What such a run
// could see for itself, a report may tell of; of any other path, whether
// the host has it is the host's to keep, so a report's text about a path
// a hook names (a cause of its failure) looks up only what this allows.
// The view is built once, when HostLookup is called.
func HostLookup(dir string) func(p string) bool {
	var cred *syscall.Credential
	if os.Geteuid() == 0 {
		var st syscall.Stat_t
		switch {
		case syscall.Stat(dir, &st) != nil:
			return func(string) bool { return false }
		case st.Uid != 0:
			cred = &syscall.Credential{Uid: st.Uid, Gid: ownerGid(st.Uid, st.Gid)}
		default:
			cred = &syscall.Credential{Uid: SandboxUID, Gid: SandboxUID}
		}
	}
	view, _, _ := runView(false, cred, os.Getenv)
	return func(p string) bool {
		p = filepath.Clean(p)
		return view.sees(p) && view.mayRead(filepath.Dir(p), 0o1)
	}
}
