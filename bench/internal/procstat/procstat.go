package procstat

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// VmHWM is process pid's peak resident set size in KiB (VmHWM in
// /proc/PID/status); 0 where /proc could not say.
func VmHWM(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			if f := strings.Fields(v); len(f) > 0 {
				kib, _ := strconv.ParseInt(f[0], 10, 64)
				return kib
			}
		}
	}
	return 0
}
