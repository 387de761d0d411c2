package procwait

import (
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"testing"
)

// TestGone: a process is gone only where /proc says so: no such process,
// or another that has its pid now; this process, an unknown start and a
// read that fails otherwise are not.
func TestGone(t *testing.T) {
	pp := os.Getppid()
	start, err := StartTime(pp)
	if err != nil || start == 0 {
		t.Fatalf("StartTime(%d) = %d, %v", pp, start, err)
	}
	c := exec.Command("true")
	if err := c.Run(); err != nil {
		t.Fatal(err)
	}
	failing := func(int) (uint64, error) { return 0, errors.New("too many open files") }
	for _, tc := range []struct {
		name    string
		pid     int
		start   uint64
		startOf func(int) (uint64, error)
		want    bool
	}{
		{"alive", pp, start, nil, false},
		{"its pid taken by another", pp, start + 1, nil, true},
		{"no such process", c.Process.Pid, 1, func(int) (uint64, error) { return 0, fs.ErrNotExist }, true},
		{"this process", os.Getpid(), 1, nil, false},
		{"unknown start", pp, 0, nil, false},
		{"a read that fails", pp, start + 1, failing, false},
	} {
		if got := Gone(tc.pid, tc.start, tc.startOf); got != tc.want {
			t.Errorf("%s: Gone = %v, want %v", tc.name, got, tc.want)
		}
	}
	if SelfPidNS() == 0 || SelfStart() == 0 {
		t.Errorf("SelfPidNS %d, SelfStart %d: want both known", SelfPidNS(), SelfStart())
	}
}
