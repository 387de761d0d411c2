package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// userCounts bound what the sandbox's processes may hold of the kernel
// objects the kernel counts per user and user namespace: inotify
// instances and watches, fanotify groups and marks. The kernel charges
// them to the sandbox's user namespace and to every one above it, so a
// hook's count is also its host uid's, which it shares with the caller's
// own programs where the caller is not root, and with every other
// sandbox of that uid under way (an audit's lanes): a hook that opened
// every inotify instance its uid may have (128 by default) left an
// editor, a file watcher or systemd's user manager of the caller unable
// to open one (EMFILE) for the rest of the run. A new user namespace
// allows each without end (2147483647), and its owner may set it lower.
// value is a sandbox's own bound; host names the host's per-user limit
// under /proc/sys, of which all the sandboxes under way at once take a
// quarter at most (userCountsFor), so that the caller keeps most of it.
// A hook seldom watches files at all.
var userCounts = []struct {
	name, host string
	value      int
}{
	{"max_inotify_instances", "fs/inotify/max_user_instances", 32},
	{"max_inotify_watches", "fs/inotify/max_user_watches", 8192},
	{"max_fanotify_groups", "fs/fanotify/max_user_groups", 16},
	{"max_fanotify_marks", "fs/fanotify/max_user_marks", 8192},
}

// userCountsFor returns the bound of each of userCounts, by its name,
// for a sandbox that is one of lanes under way at once (an audit's
// --jobs, or its plan's runs where those are fewer; below 1 is 1): its
// own value, or its lane's share of a quarter of the host's per-user
// limit, whichever is lower, and at least 1 (host reads that limit; false
// where it cannot, and then the value stands). With the kernel's
// defaults one lane keeps the inotify instances and fanotify groups (a
// quarter of 128 is 32), and eight lanes get 4 each, where eight times
// 32 instances were twice the uid's whole allowance; the watches and the
// marks, whose host limits the kernel sizes by its memory from 8,192 up,
// are a quarter of 8,192, 2,048, on a host that allows only that.
func userCountsFor(lanes int, host func(name string) (int, bool)) map[string]int {
	lanes = max(lanes, 1)
	out := make(map[string]int, len(userCounts))
	for _, c := range userCounts {
		v := c.value
		if h, ok := host(c.host); ok {
			v = max(min(v, h/4/lanes), 1)
		}
		out[c.name] = v
	}
	return out
}

// hostUserCount gives the host's per-user limit name (under /proc/sys),
// as read once a process (hostUserCounts): the broker asks at every run's
// start, and four reads a run of limits an administrator seldom changes
// would be a dozen system calls on that path.
func hostUserCount(name string) (int, bool) {
	n, ok := hostUserCounts()[name]
	return n, ok
}

// hostUserCounts reads each of userCounts' host limits that can be read.
var hostUserCounts = sync.OnceValue(func() map[string]int {
	m := map[string]int{}
	for _, c := range userCounts {
		b, err := os.ReadFile("/proc/sys/" + c.host)
		if err != nil {
			continue
		}
		if n, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && n > 0 {
			m[c.host] = n
		}
	}
	return m
})

// boundUserCounts sets the sandbox's user namespace's counts (the
// init's, whose root it is: bubblewrap leaves /proc/sys writable there,
// and the reaper makes it read-only for the command) to bounds, by name
// (userCountsFor, sent by the broker); a count bounds leaves out takes
// its value in userCounts. A count this kernel lacks is passed over.
func boundUserCounts(bounds map[string]int) error {
	for _, c := range userCounts {
		v, ok := bounds[c.name]
		if !ok {
			v = c.value
		}
		err := os.WriteFile("/proc/sys/user/"+c.name, []byte(strconv.Itoa(v)), 0)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("bounding the sandbox's %s: %w", c.name, err)
		}
	}
	return nil
}

// sigPendingMax bounds the signals queued to the sandbox's processes and
// not yet taken (RLIMIT_SIGPENDING), for the init and all it starts. The
// kernel counts them per user and user namespace like the objects above,
// the sandbox's in its host uid's count too, and checks a process's
// queue against that count, not against its own: a hook that blocked a
// realtime signal and queued it to itself until the kernel refused
// (96,366 times under a 24 GiB host's default) left every program of its
// host uid unable to make a POSIX timer (timer_create) or queue a
// realtime signal (sigqueue), EAGAIN, for the rest of the run. A new user
// namespace has no count of its own for it, only the limit each process
// carries; a hook seldom has more than a few signals pending, and the
// caller's programs keep the rest of the host's default (a quarter of
// its threads' limit).
const sigPendingMax = 1024

// boundSignalQueue lowers RLIMIT_SIGPENDING, soft and hard, to
// sigPendingMax where the caller's is higher. Lowering a limit cannot be
// refused.
func boundSignalQueue() error {
	var rl unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_SIGPENDING, &rl); err != nil {
		return fmt.Errorf("reading RLIMIT_SIGPENDING: %w", err)
	}
	rl.Cur, rl.Max = min(rl.Cur, sigPendingMax), min(rl.Max, sigPendingMax)
	if err := unix.Setrlimit(unix.RLIMIT_SIGPENDING, &rl); err != nil {
		return fmt.Errorf("setting RLIMIT_SIGPENDING to %d: %w", sigPendingMax, err)
	}
	return nil
}
