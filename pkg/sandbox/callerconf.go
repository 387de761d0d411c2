package sandbox

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strings"
)

// The confinement vigiles itself may be started in.
//
// A container runtime's seccomp profile, a service manager's
// SystemCallFilter=, a Landlock domain or an AppArmor or SELinux profile
// of whoever started vigiles is kept across execve and fork: bubblewrap,
// the init and the reaper run under it too. Each only takes away, so
// nothing runs weaker under it; but where it keeps the sandbox from being
// made, the refusal should name it, not send the user after the host's
// user-namespace settings, which may allow everything (TestRedteam15CallersConfinementFailsClosed).

// procStatusSeccomp is where the kernel says whether a process runs under
// a seccomp filter (Seccomp: 2).
var procStatusSeccomp = "/proc/self/status"

// callerSeccomp says whether this process runs under a seccomp filter.
// vigiles installs none in its own processes (the reaper installs the
// run's, inside the sandbox), so one here is whoever started vigiles'.
func callerSeccomp() bool {
	b, err := os.ReadFile(procStatusSeccomp)
	if err != nil {
		return false
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "Seccomp:"); ok {
			return strings.TrimSpace(v) == "2"
		}
	}
	return false
}

// callerSeccompFix is the fix where vigiles runs under a seccomp filter of
// whoever started it.
const callerSeccompFix = "start vigiles without the seccomp filter it runs under (Seccomp: 2 in its /proc/self/status), which its sandbox inherits: in a container, --security-opt seccomp=unconfined (docs/container.md); under systemd, no SystemCallFilter= in its unit"

// usernsRestrictions are this host's settings that refuse unprivileged
// user namespaces, each as name=value, and those of them it could not
// read (unread): none of either says the host's settings allow them.
func usernsRestrictions() (refusing, unread []string) {
	for _, s := range []struct{ path, name, refuses string }{
		{"user/max_user_namespaces", "user.max_user_namespaces", "0"},
		{"kernel/unprivileged_userns_clone", "kernel.unprivileged_userns_clone", "0"},
		{"kernel/apparmor_restrict_unprivileged_userns", "kernel.apparmor_restrict_unprivileged_userns", "1"},
	} {
		v, ok, err := readSysctl(s.path)
		switch {
		case ok && err != nil:
			unread = append(unread, s.name)
		case ok && v == s.refuses:
			refusing = append(refusing, s.name+"="+v)
		}
	}
	if _, err := os.Stat("/proc/self/ns/user"); err != nil {
		refusing = append(refusing, "no user namespaces in this kernel")
	}
	return refusing, unread
}

// namespaceFix is the fix for bubblewrap's refusal to make the sandbox's
// namespaces, whose stderr is given (generic: the settings a host may
// refuse them by): first what is known here to refuse them, every user
// namespace the host allows in use, a seccomp filter vigiles runs under
// or the host's settings, and where none is, the confinement vigiles may
// have been started in, which no file says.
func namespaceFix(generic string, stderr []byte) string {
	if bytes.Contains(stderr, []byte("No space left on device")) {
		// ENOSPC from clone or unshare: user.max_user_namespaces (or
		// the owner's share of it) is reached.
		n, _, _ := readSysctl("user/max_user_namespaces")
		return fmt.Sprintf("every user namespace this host allows is in use (user.max_user_namespaces=%s): end what holds them (sandboxes, containers, browsers), or raise it (sysctl -w user.max_user_namespaces=…)", n)
	}
	var first []string
	if callerSeccomp() {
		first = append(first, callerSeccompFix)
	}
	refusing, unread := usernsRestrictions()
	if len(refusing) > 0 {
		first = append(first, fmt.Sprintf("this host refuses them (%s): %s", strings.Join(refusing, ", "), generic))
		return strings.Join(first, "; and ")
	}
	if len(first) == 0 {
		settings := "this host's settings allow user namespaces"
		if len(unread) > 0 {
			settings = fmt.Sprintf("this host's settings that vigiles could read allow user namespaces (it could not read %s)", strings.Join(unread, ", "))
		}
		first = append(first, settings+", and vigiles runs under no seccomp filter: "+
			"where it was started in a Landlock domain or under an AppArmor or SELinux profile (a tool's, a container's), start it outside that")
	}
	return strings.Join(first, "; or ") + "; otherwise " + generic
}

// callerRefusal adds to a refusal the sandbox made (a layer it could not
// apply, refused by the kernel) that vigiles runs under a seccomp filter
// of whoever started it, where it does: the likeliest cause of an EPERM,
// which is what a container runtime's profile answers. A refusal that
// names its own fix (the work tree's overlay: record writes by copy) keeps
// that one alone, and one answered EACCES (a file's mode, Landlock, an
// AppArmor or SELinux profile, none of them a seccomp filter) is left as
// it is: the filter's fix would send the user after the wrong cause.
func callerRefusal(refusal string) string {
	if !callerSeccomp() || strings.Contains(refusal, "Seccomp: 2") || strings.Contains(refusal, "; fix: ") {
		return refusal
	}
	if !strings.Contains(strings.ToLower(refusal), "operation not permitted") {
		return refusal
	}
	return refusal + "; fix: " + callerSeccompFix
}
