package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/vigiles/action/bench/internal/mdblock"
)

// phases are in the order the engine's events come in: the init starts the
// reaper right after its first mount (its mounts made shared), before the
// scratch and the overlay, and the reaper confines itself beside the
// init's egress set-up; the command is sent once the wall is up.
var phases = []struct{ name, from, to string }{
	{"broker: Go start, flags, plan, until bwrap's exec", "start", "bwrap"},
	{"bwrap: namespaces, mounts, pivot_root, until the init's exec", "bwrap", "init"},
	{"init: Go runtime start, config, until its first mount (its mounts made shared)", "init", "initmount"},
	{"init: the reaper spawned, until its exec", "initmount", "reaper"},
	{"init: scratch tmpfs, binds, id-mapped tree, overlay (beside the reaper's Go start)", "reaper", "overlay"},
	{"reaper: the rest of its Go start, its config, /proc, remounts, rlimits, caps, Landlock (beside the init's egress set-up: lo, nft batch, DNS stub, proxy)", "overlay", "seccomp"},
	{"reaper: seccomp, then the wall up and the command sent, fork, the command's exec (direct under a pids cgroup, as here; else through the `/bin/sh` that sets RLIMIT_NPROC)", "seccomp", "cmd"},
	{"the command itself (`true`)", "cmd", "cmdexit"},
	{"teardown: write walk, egress record, result, bwrap exit, broker exit", "cmdexit", "end"},
}

func main() {
	vig := flag.String("vigiles", "bin/vigiles", "the vigiles binary")
	rounds := flag.Int("rounds", 10, "runs per mode")
	modes := flag.String("modes", "deny,record,allow", "egress modes to profile")
	doc := flag.String("doc", "", "also put the table between the vstartup:begin/end markers of this markdown file")
	flag.Parse()
	abs, err := filepath.Abs(*vig)
	if err != nil {
		fail(err)
	}
	tmp, err := os.MkdirTemp("", "vstartup-")
	if err != nil {
		fail(err)
	}
	defer os.RemoveAll(tmp)
	work := filepath.Join(tmp, "work")
	if err := os.Mkdir(work, 0o755); err != nil {
		fail(err)
	}
	ms := strings.Split(*modes, ",")
	got := map[string]map[string][]time.Duration{} // mode -> phase -> samples
	walls := map[string][]time.Duration{}
	for r := 0; r < *rounds; r++ {
		for _, m := range ms {
			ev, wall, err := trace(abs, work, tmp, m)
			if err != nil {
				fmt.Fprintf(os.Stderr, "vstartup: %s: %v\n", m, err)
				continue
			}
			if got[m] == nil {
				got[m] = map[string][]time.Duration{}
			}
			walls[m] = append(walls[m], wall)
			for _, p := range phases {
				a, ok1 := ev[p.from]
				b, ok2 := ev[p.to]
				if ok1 && ok2 {
					got[m][p.name] = append(got[m][p.name], b.Sub(a))
				}
			}
		}
		fmt.Fprintf(os.Stderr, "vstartup: round %d/%d\n", r+1, *rounds)
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "| phase (median ms, under strace) |")
	for _, m := range ms {
		fmt.Fprintf(&b, " %s |", m)
	}
	fmt.Fprintf(&b, "\n|---|")
	for range ms {
		fmt.Fprintf(&b, "---:|")
	}
	b.WriteByte('\n')
	for _, p := range phases {
		fmt.Fprintf(&b, "| %s |", p.name)
		for _, m := range ms {
			fmt.Fprintf(&b, " %s |", med(got[m][p.name]))
		}
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, "| **wall time under strace** |")
	for _, m := range ms {
		fmt.Fprintf(&b, " %s |", med(walls[m]))
	}
	b.WriteByte('\n')
	fmt.Fprintf(&b, "\n%d runs per mode, interleaved; load average %s.\n", *rounds, loadavg())
	os.Stdout.Write(b.Bytes())
	if *doc != "" {
		if err := mdblock.Replace(*doc, "vstartup", b.Bytes()); err != nil {
			fail(err)
		}
	}
}

func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	return strings.Join(strings.Fields(string(b))[:3], " ")
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "vstartup:", err)
	os.Exit(1)
}

func med(ds []time.Duration) string {
	if len(ds) == 0 {
		return "–"
	}
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	m := s[len(s)/2]
	if len(s)%2 == 0 {
		m = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return fmt.Sprintf("%.1f", float64(m.Microseconds())/1000)
}

// trace runs one confined `true` under strace and returns the time of each
// event named in phases.
func trace(vig, work, tmp, mode string) (map[string]time.Time, time.Duration, error) {
	out := filepath.Join(tmp, "strace-"+mode+".txt")
	args := []string{"-f", "-ttt", "--seccomp-bpf", "-e", "trace=execve,clone,clone3,mount,seccomp,landlock_restrict_self,exit_group",
		"-o", out, vig, "run", "--json", "--workdir", work, "--egress", mode}
	if mode == "allow" {
		// Allow mode needs something allowed: a documentation address.
		args = append(args, "--allow-ip", "192.0.2.1/32")
	}
	args = append(args, "--", "true")
	cmd := exec.Command("strace", args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	t := time.Now()
	if err := cmd.Run(); err != nil {
		return nil, 0, fmt.Errorf("%v: %s", err, strings.TrimSpace(stderr.String()))
	}
	wall := time.Since(t)
	if !bytes.Contains(stdout.Bytes(), []byte(`"tier": "confined"`)) {
		return nil, 0, fmt.Errorf("not confined: %s", firstN(stdout.String(), 300))
	}
	f, err := os.Open(out)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	ev := map[string]time.Time{}
	set := func(k string, t time.Time) {
		if _, ok := ev[k]; !ok {
			ev[k] = t
		}
	}
	var initPID, cmdPID, brokerPID string
	var last time.Time
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		// "PID TIMESTAMP REST", the pid padded with spaces to a width.
		fs := strings.Fields(line)
		if len(fs) < 3 {
			continue
		}
		pid := fs[0]
		rest := strings.TrimLeft(line[strings.Index(line, fs[1])+len(fs[1]):], " ")
		sec, err := strconv.ParseFloat(fs[1], 64)
		if err != nil {
			continue
		}
		ts := time.Unix(0, int64(sec*1e9))
		last = ts
		switch {
		case brokerPID == "":
			brokerPID = pid
			set("start", ts)
		case strings.HasPrefix(rest, `execve("`) && strings.Contains(rest, "bwrap\""):
			set("bwrap", ts)
		case strings.HasPrefix(rest, `execve("`) && strings.Contains(rest, `"__vigiles-init"`):
			set("init", ts)
			initPID = pid
		case pid == initPID && strings.HasPrefix(rest, "mount(") && strings.Contains(rest, `"overlay"`) && !strings.Contains(rest, "<unfinished"):
			set("overlay", ts)
		case pid == initPID && strings.HasPrefix(rest, "<... mount resumed") && ev["initmount"] != (time.Time{}) && ev["overlay"] == (time.Time{}):
			// an overlay mount that was interrupted by another event
		case pid == initPID && strings.HasPrefix(rest, "mount("):
			set("initmount", ts)
		case strings.HasPrefix(rest, `execve("`) && strings.Contains(rest, `["/sbin/init"]`):
			set("reaper", ts)
		case strings.HasPrefix(rest, "seccomp(SECCOMP_SET_MODE_FILTER"):
			set("seccomp", ts)
		case strings.HasPrefix(rest, `execve("/usr/bin/true"`) || strings.HasPrefix(rest, `execve("/bin/true"`):
			set("cmd", ts)
			cmdPID = pid
		case pid == cmdPID && strings.HasPrefix(rest, "+++ exited"):
			set("cmdexit", ts)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, 0, err
	}
	ev["end"] = last
	return ev, wall, nil
}

func firstN(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}
