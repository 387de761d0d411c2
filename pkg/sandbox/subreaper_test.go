package sandbox

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestDirectRunsLeaveNoZombiesWithTheBroker: once a confined run has made
// this process a child subreaper, what a direct run's command leaves in
// its process group comes to this process when the group is killed: it
// is reaped, not kept a zombie for as long as an audit runs (ten in five
// runs before).
func TestDirectRunsLeaveNoZombiesWithTheBroker(t *testing.T) {
	requireConfinement(t)
	dir := makeTree(t, nil)
	run(t, Spec{Dir: dir, Command: []string{"true"}}) // the broker is a subreaper from here on
	for range 5 {
		res := run(t, Spec{Dir: dir, Mode: ModeOff, Command: sh("(sleep 30 &); (sleep 31 &); true")})
		if res.ExitCode != 0 {
			t.Fatalf("exit %d stderr %q", res.ExitCode, res.Stderr)
		}
	}
	time.Sleep(100 * time.Millisecond)
	if z := zombieChildren(); len(z) > 0 {
		t.Errorf("zombies of this process: %v", z)
	}
}

// zombieChildren lists this process's children that are zombies.
func zombieChildren() []string {
	var out []string
	me := strconv.Itoa(os.Getpid())
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		i := strings.LastIndexByte(string(b), ')')
		f := strings.Fields(string(b[i+1:]))
		if len(f) > 1 && f[0] == "Z" && f[1] == me {
			out = append(out, string(b[:i+1]))
		}
	}
	return out
}
