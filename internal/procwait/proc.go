package procwait

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// Entry is what /proc/PID/stat says of a process's place: its parent,
// its process group and session, and its start time (clock ticks after
// boot, field 22).
type Entry struct {
	PPid, Pgrp, Session int
	Start               uint64
}

// Read reads process pid's Entry from /proc/PID/stat: an error wrapping
// fs.ErrNotExist where there is no such process, another where /proc
// could not say (out of descriptors, say), which is no sign that the
// process is gone.
func Read(pid int) (Entry, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return Entry{}, err
	}
	// The name (field 2) is in parentheses and may hold anything: the
	// fields after its last ')' start at field 3 (state, ppid, pgrp,
	// session, …, field 22 starttime).
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return Entry{}, fmt.Errorf("/proc/%d/stat: no name in %q", pid, b)
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 20 {
		return Entry{}, fmt.Errorf("/proc/%d/stat: no start time in %q", pid, b)
	}
	var e Entry
	for _, n := range []struct {
		to   *int
		at   int
		what string
	}{{&e.PPid, 1, "parent pid"}, {&e.Pgrp, 2, "process group"}, {&e.Session, 3, "session"}} {
		if *n.to, err = strconv.Atoi(f[n.at]); err != nil {
			return Entry{}, fmt.Errorf("/proc/%d/stat: %s: %w", pid, n.what, err)
		}
	}
	if e.Start, err = strconv.ParseUint(f[19], 10, 64); err != nil {
		return Entry{}, fmt.Errorf("/proc/%d/stat: start time: %w", pid, err)
	}
	return e, nil
}

// Stat is Read's parent pid and start time.
func Stat(pid int) (ppid int, start uint64, err error) {
	e, err := Read(pid)
	return e.PPid, e.Start, err
}

// StartTime is Stat's start time alone.
func StartTime(pid int) (uint64, error) {
	_, start, err := Stat(pid)
	return start, err
}

var selfStart, selfPidNS atomic.Uint64

// SelfStart is this process's start time; 0 where /proc could not say.
// Read once it is known: it cannot change.
func SelfStart() uint64 {
	if t := selfStart.Load(); t != 0 {
		return t
	}
	t, _ := StartTime(os.Getpid())
	selfStart.Store(t)
	return t
}

// SelfPidNS is the inode of this process's pid namespace; 0 where /proc
// does not say. Read once it is known, as SelfStart.
func SelfPidNS() uint64 {
	if ino := selfPidNS.Load(); ino != 0 {
		return ino
	}
	var st unix.Stat_t
	if unix.Stat("/proc/self/ns/pid", &st) != nil {
		return 0
	}
	selfPidNS.Store(st.Ino)
	return st.Ino
}

// Gone says whether the process pid of this pid namespace that started
// at start has ended, as startOf (StartTime where nil) says: no such
// process, or another that has the pid now. This process is never gone,
// an unknown start (0) never is, and a read that fails otherwise (out of
// descriptors) is no sign: false. What a killed broker left (a cgroup, a
// directory named after it) is cleared only where this says true.
func Gone(pid int, start uint64, startOf func(int) (uint64, error)) bool {
	if pid == os.Getpid() || start == 0 {
		return false
	}
	if startOf == nil {
		startOf = StartTime
	}
	now, err := startOf(pid)
	if err != nil {
		return errors.Is(err, fs.ErrNotExist)
	}
	return now != start
}

// OwnerTag names this process in what it leaves on the host (a cgroup, a
// temporary directory): "ns<pid namespace>-<pid>-<start time>-", the
// three together one process, so that a later one can tell what a killed
// process left (OwnerGone) from what one still running holds, though the
// pid was given to another process since.
func OwnerTag() string {
	return fmt.Sprintf("ns%d-%d-%d-", SelfPidNS(), os.Getpid(), SelfStart())
}

// OwnerGone says whether name, prefix and then an OwnerTag, was left by a
// process of this pid namespace that has ended, as Gone says with
// startOf. A name of another namespace is not: its pids cannot be looked
// up from here, so what it names is left to that namespace's own
// processes; nor is any where this namespace is unknown.
func OwnerGone(name, prefix string, startOf func(int) (uint64, error)) bool {
	rest, ok := strings.CutPrefix(name, prefix)
	if !ok {
		return false
	}
	var pidNS, start uint64
	var pid int
	if _, err := fmt.Sscanf(rest, "ns%d-%d-%d-", &pidNS, &pid, &start); err != nil {
		return false
	}
	ns := SelfPidNS()
	return ns != 0 && pidNS == ns && Gone(pid, start, startOf)
}
