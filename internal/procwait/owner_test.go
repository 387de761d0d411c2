package procwait

import (
	"fmt"
	"os"
	"testing"
)

// TestOwnerGone: a name OwnerTag made is this process's, never gone; one
// whose start time no longer matches its pid's is; one of another pid
// namespace, or under another prefix, or with no tag, is not, as nothing
// here can tell.
func TestOwnerGone(t *testing.T) {
	ns := SelfPidNS()
	if ns == 0 {
		t.Fatal("/proc/self/ns/pid is not readable")
	}
	other := func(int) (uint64, error) { return SelfStart() + 1, nil }
	for _, c := range []struct {
		name, prefix string
		want         bool
	}{
		{"x-" + OwnerTag() + "tmp1", "x-", false},
		{fmt.Sprintf("x-ns%d-%d-%d-tmp1", ns, os.Getppid(), 7), "x-", true},
		{fmt.Sprintf("x-ns%d-%d-%d-tmp1", ns+1, os.Getppid(), 7), "x-", false},
		{fmt.Sprintf("y-ns%d-%d-%d-tmp1", ns, os.Getppid(), 7), "x-", false},
		{fmt.Sprintf("x-ns%d-%d-%d-tmp1", ns, os.Getppid(), 0), "x-", false},
		{"x-tmp1", "x-", false},
	} {
		if got := OwnerGone(c.name, c.prefix, other); got != c.want {
			t.Errorf("OwnerGone(%q, %q) = %v, want %v", c.name, c.prefix, got, c.want)
		}
	}
}
