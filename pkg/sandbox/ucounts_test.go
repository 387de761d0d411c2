package sandbox

import (
	"maps"
	"testing"
)

// TestUserCountsForShareTheHostsLimits: a sandbox's bound on each object
// the kernel counts per user is its own value, or its lane's share of a
// quarter of the host's per-user limit, whichever is lower, at least 1;
// where the host's limit cannot be read the value stands.
func TestUserCountsForShareTheHostsLimits(t *testing.T) {
	defaults := map[string]int{"fs/inotify/max_user_instances": 128, "fs/inotify/max_user_watches": 8192,
		"fs/fanotify/max_user_groups": 128, "fs/fanotify/max_user_marks": 205046}
	host := func(limits map[string]int) func(string) (int, bool) {
		return func(name string) (int, bool) { v, ok := limits[name]; return v, ok }
	}
	for _, c := range []struct {
		name   string
		lanes  int
		limits map[string]int
		want   map[string]int
	}{
		{"one lane, the kernel's defaults", 1, defaults,
			map[string]int{"max_inotify_instances": 32, "max_inotify_watches": 2048, "max_fanotify_groups": 16, "max_fanotify_marks": 8192}},
		{"no lanes said is one", 0, defaults,
			map[string]int{"max_inotify_instances": 32, "max_inotify_watches": 2048, "max_fanotify_groups": 16, "max_fanotify_marks": 8192}},
		{"eight lanes", 8, defaults,
			map[string]int{"max_inotify_instances": 4, "max_inotify_watches": 256, "max_fanotify_groups": 4, "max_fanotify_marks": 6407}},
		{"more lanes than a quarter holds", 64, defaults,
			map[string]int{"max_inotify_instances": 1, "max_inotify_watches": 32, "max_fanotify_groups": 1, "max_fanotify_marks": 800}},
		{"large host limits", 2, map[string]int{"fs/inotify/max_user_instances": 1 << 20, "fs/inotify/max_user_watches": 1 << 24,
			"fs/fanotify/max_user_groups": 1 << 20, "fs/fanotify/max_user_marks": 1 << 24},
			map[string]int{"max_inotify_instances": 32, "max_inotify_watches": 8192, "max_fanotify_groups": 16, "max_fanotify_marks": 8192}},
		{"no host limits read", 8, nil,
			map[string]int{"max_inotify_instances": 32, "max_inotify_watches": 8192, "max_fanotify_groups": 16, "max_fanotify_marks": 8192}},
	} {
		if got := userCountsFor(c.lanes, host(c.limits)); !maps.Equal(got, c.want) {
			t.Errorf("%s: userCountsFor(%d) = %v, want %v", c.name, c.lanes, got, c.want)
		}
	}
}
