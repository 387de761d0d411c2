package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
)

// userCounts bound what the sandbox's processes may hold of the kernel
// objects the kernel counts per user and user namespace: inotify
// instances and watches, fanotify groups and marks. The kernel charges
// them to the sandbox's user namespace and to every one above it, so a
// hook's count is also its host uid's, which it shares with the caller's
// own programs where the caller is not root: a hook that opened every
// inotify instance its uid may have (128 by default) left an editor, a
// file watcher or systemd's user manager of the caller unable to open
// one (EMFILE) for the rest of the run. A new user namespace allows
// each without end (2147483647), and its owner may set it lower; these
// leave the caller most of the host's defaults. A hook seldom watches
// files at all.
var userCounts = []struct {
	name  string
	value int
}{
	{"max_inotify_instances", 32},
	{"max_inotify_watches", 8192},
	{"max_fanotify_groups", 16},
	{"max_fanotify_marks", 8192},
}

// boundUserCounts sets userCounts in the sandbox's user namespace (the
// init's, whose root it is: bubblewrap leaves /proc/sys writable there,
// and the reaper makes it read-only for the command). A count this
// kernel lacks is passed over.
func boundUserCounts() error {
	for _, c := range userCounts {
		err := os.WriteFile("/proc/sys/user/"+c.name, []byte(strconv.Itoa(c.value)), 0)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("bounding the sandbox's %s: %w", c.name, err)
		}
	}
	return nil
}
