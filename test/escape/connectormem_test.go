package escape

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// echoHost is the stand-in host of TestConnectorMemoryInTheRunsCgroup:
// vigiles runs in a network and mount namespace of the test's own, joined
// by a veth pair to a second one ("vmt", the test host 198.18.214.2) that
// runs an echo server on TCP port 7000, the default route through it.
// Every packet stays in these namespaces, which go with the script's
// processes. The caller's soft descriptor limit is raised first, which
// the connector no longer needs: it gets 8,192 descriptors whatever that
// limit is (ConnectorOpenFiles, or the hard limit where lower), room for
// the 3,000 connections.
const echoHost = `set -e
d=$1; shift
ulimit -Sn "$(ulimit -Hn)"
ip link set lo up
unshare -n sleep 600 </dev/null >/dev/null 2>&1 &
vmt=$!
pids=$vmt
trap 'kill $pids 2>/dev/null || true' EXIT
self=$(readlink /proc/self/ns/net)
until [ "$(readlink /proc/$vmt/ns/net)" != "$self" ]; do sleep 0.01; done
ip link add vmh0 type veth peer name vmt0 netns $vmt
ip addr add 198.18.214.1/24 dev vmh0
ip link set vmh0 up
ip route add default via 198.18.214.2
nsenter -t $vmt -n sh -ec 'ip link set lo up
	ip addr add 198.18.214.2/24 dev vmt0
	ip link set vmt0 up'
nsenter -t $vmt -n python3 $d/echo.py $d/echo.ready >$d/echo.out 2>&1 &
pids="$pids $!"
n=0
until [ -e $d/echo.ready ]; do
	n=$((n+1)); [ $n -lt 12000 ] || { cat $d/echo.out >&2; exit 1; } # 2 minutes: a bound on a hang
	sleep 0.01
done
"$@"
`

// echoServer echoes what each TCP connection to 198.18.214.2:7000 sends,
// without blocking on any one of them: it reads from a connection only
// while less than 256 KiB of its echo waits to be written.
const echoServer = `import selectors, socket, sys
sel = selectors.DefaultSelector()
ls = socket.socket()
ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
ls.bind(("198.18.214.2", 7000))
ls.listen(4096)
ls.setblocking(False)
sel.register(ls, selectors.EVENT_READ)
out = {}
open(sys.argv[1], "w").close()
while True:
    for key, ev in sel.select():
        s = key.fileobj
        if s is ls:
            c, _ = ls.accept()
            c.setblocking(False)
            out[c] = b""
            sel.register(c, selectors.EVENT_READ)
            continue
        try:
            if ev & selectors.EVENT_WRITE and out[s]:
                out[s] = out[s][s.send(out[s]):]
            if ev & selectors.EVENT_READ and len(out[s]) < 262144:
                b = s.recv(65536)
                if not b:
                    raise OSError("closed")
                out[s] += b
        except (BlockingIOError, InterruptedError):
            pass
        except OSError:
            sel.unregister(s)
            del out[s]
            s.close()
            continue
        sel.modify(s, selectors.EVENT_READ | (selectors.EVENT_WRITE if out[s] else 0))
`

// echoFlood opens N connections to the echo server, says how many, then
// sends KIB KiB on each and never reads the echo: what is in flight piles
// up in the connector. It stops once nothing has been writable for 5 s.
const echoFlood = `import select, socket, sys, time
n, kib = int(sys.argv[1]), int(sys.argv[2])
conns = []
for i in range(n):
    s = socket.create_connection(("198.18.214.2", 7000), timeout=10)
    s.setblocking(False)
    conns.append(s)
print("connected", len(conns), flush=True)
t0 = time.monotonic()
left = {s.fileno(): [s, kib << 10] for s in conns}
p = select.poll()
for fd in left:
    p.register(fd, select.POLLOUT)
chunk = b"x" * 65536
reset = 0
while left:
    ready = p.poll(5000)
    if not ready:
        break
    for fd, _ in ready:
        s, want = left[fd]
        try:
            sent = s.send(chunk[:want])
        except BlockingIOError:
            continue
        except OSError as e:
            reset += 1
            p.unregister(fd)
            del left[fd]
            continue
        left[fd][1] -= sent
        if left[fd][1] == 0:
            p.unregister(fd)
            del left[fd]
print("sent in %.0f s; stalled on" % (time.monotonic() - t0), len(left), "reset", reset, flush=True)
`

// runAgainstEchoHost runs `vigiles run --json --workdir WT args…` in a
// network namespace of its own whose host is the echo stand-in (echoHost,
// echoServer), its work tree WT holding the hook's script (name, body),
// and watches the connector while it runs (runWatchingConnector).
func runAgainstEchoHost(ctx context.Context, t *testing.T, name, body string, args ...string) (stdout, stderr *bytes.Buffer, seen *connectorSeen, err error) {
	t.Helper()
	d := t.TempDir()
	os.Chmod(d, 0o755)
	for n, b := range map[string]string{"setup.sh": echoHost, "echo.py": echoServer} {
		if err := os.WriteFile(filepath.Join(d, n), []byte(b), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	wt := workTree(t)
	if err := os.WriteFile(filepath.Join(wt, name), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, "unshare", append([]string{"--net", "--mount", "bash", filepath.Join(d, "setup.sh"), d,
		vigilesBin, "run", "--json", "--workdir", wt}, args...)...)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH") + ":/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"}
	cmd.Dir = wt
	return runWatchingConnector(t, cmd)
}

// runWatchingConnector runs cmd, a vigiles run in allow mode, to its end
// while watchConnector follows the connector below it, and returns what
// it printed, what was seen of the connector and how cmd ended.
func runWatchingConnector(t *testing.T, cmd *exec.Cmd) (stdout, stderr *bytes.Buffer, seen *connectorSeen, err error) {
	t.Helper()
	stdout, stderr, seen = &bytes.Buffer{}, &bytes.Buffer{}, &connectorSeen{}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stop, watched := make(chan struct{}), make(chan struct{})
	go func() { watchConnector(cmd.Process.Pid, stop, seen); close(watched) }()
	err = cmd.Wait()
	close(stop)
	<-watched
	return stdout, stderr, seen, err
}

// connectorSeen is what the test saw of a run's connector while it ran.
type connectorSeen struct {
	mu     sync.Mutex
	pid    int
	cgroup string // its memory cgroup, /proc/PID/cgroup's line
	hwmKiB int    // the highest VmHWM read
}

// watchConnector reads, until stop is closed, the memory cgroup and
// VmHWM of each slirp4netns or pasta (passt, by the name of the binary it
// links to) descended from root.
func watchConnector(root int, stop <-chan struct{}, seen *connectorSeen) {
	hwm := regexp.MustCompile(`VmHWM:\s+(\d+) kB`)
	for {
		for _, pid := range descendants(root) {
			comm, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
			name := strings.TrimSpace(string(comm))
			if name != "slirp4netns" && !strings.HasPrefix(name, "pasta") && !strings.HasPrefix(name, "passt") {
				continue
			}
			cg, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cgroup", pid))
			status, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
			if exiting(pid) {
				// slirp4netns forks a child that enters the sandbox's
				// namespace, sends back the tap device and exits; on
				// cgroup v1 a task in its exit reads as in "/", where it
				// was (CI saw that child first: "4:memory:/"). Read
				// after cgroup, so the line read came before the exit.
				continue
			}
			seen.mu.Lock()
			if seen.pid == 0 {
				seen.pid = pid
				for _, line := range strings.Split(string(cg), "\n") {
					if f := strings.SplitN(line, ":", 3); len(f) == 3 && (f[1] == "memory" || f[1] == "" && seen.cgroup == "") {
						seen.cgroup = line
					}
				}
			}
			if m := hwm.FindSubmatch(status); m != nil {
				if kib, _ := strconv.Atoi(string(m[1])); kib > seen.hwmKiB {
					seen.hwmKiB = kib
				}
			}
			seen.mu.Unlock()
		}
		select {
		case <-stop:
			return
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// exiting reports whether pid has begun its exit (PF_EXITING in the
// flags of /proc/PID/stat) or is gone.
func exiting(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	// pid (comm) state ppid pgrp session tty_nr tpgid flags ...
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	if len(f) < 7 {
		return true
	}
	const pfExiting = 0x4
	flags, _ := strconv.ParseUint(f[6], 10, 64)
	return flags&pfExiting != 0
}

// descendants lists the processes below root (from /proc/*/stat).
func descendants(root int) []int {
	ents, _ := os.ReadDir("/proc")
	parent := map[int]int{}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces and parentheses.
		rest := string(b[bytes.LastIndexByte(b, ')')+1:])
		if f := strings.Fields(rest); len(f) > 1 {
			parent[pid], _ = strconv.Atoi(f[1])
		}
	}
	var out []int
	for pid := range parent {
		for p := parent[pid]; p > 1; p = parent[p] {
			if p == root {
				out = append(out, pid)
				break
			}
		}
	}
	return out
}

// TestConnectorMemoryInTheRunsCgroup: slirp4netns and pasta run on the
// host, where slirp4netns held 722 MB for a command that sent a MiB on
// each of 3,000 connections to an echo and never read it. For a root
// caller the connector is born in a cgroup below the run's memory cgroup,
// so the run's --limit-run-memory holds it too: with 192 MiB the
// connector never grows past it, and the run ends with its record whole
// (every connection the command said it made is an attempt of it) or
// failed, never short.
func TestConnectorMemoryInTheRunsCgroup(t *testing.T) {
	requireBwrap(t)
	requireRoot(t, "only a root caller's run has a memory cgroup, and the test's namespaces need root")
	requireTools(t, "unshare", "nsenter", "ip", "python3")
	const limitMiB = 192
	// pasta held 35 MB under the whole flood, slirp4netns 722 MB: pasta's
	// connections carry less, for a shorter run that still shows its cgroup.
	for connector, kib := range map[string]int{"slirp4netns": 1024, "pasta": 64} {
		t.Run(connector, func(t *testing.T) {
			requireTools(t, connector)
			ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
			defer cancel()
			stdout, stderr, seen, err := runAgainstEchoHost(ctx, t, "flood.py", echoFlood, "--egress", "allow", "--connector", connector,
				"--allow-ip", "198.18.214.2/32", "--limit-run-memory", fmt.Sprintf("%dMiB", limitMiB), "--timeout", "150s",
				"--", "python3", "flood.py", "3000", strconv.Itoa(kib))

			var res struct {
				result
				Egress []struct {
					IP       string `json:"ip"`
					Port     int    `json:"port"`
					Proto    string `json:"proto"`
					Allowed  bool   `json:"allowed"`
					Attempts int    `json:"attempts"`
				} `json:"egress"`
			}
			if jerr := json.Unmarshal(stdout.Bytes(), &res); jerr != nil || res.Tier != "confined" {
				t.Fatalf("vigiles: %v; tier %q refusal %q (%v)\nstdout: %.2000s\nstderr: %.2000s", err, res.Tier, res.Refusal, jerr, stdout.String(), stderr.String())
			}
			t.Logf("%s (pid %d) in %q, VmHWM %d KiB; hook exit %d signal %q limit %q error %q; stdout %.500q; stderr %.500q",
				connector, seen.pid, seen.cgroup, seen.hwmKiB, res.ExitCode, res.Signal, res.LimitHit, res.Error, res.Stdout, res.Stderr)

			if seen.pid == 0 {
				t.Fatalf("no %s was seen below vigiles while the run lasted", connector)
			}
			if !strings.Contains(seen.cgroup, "/vigiles-") || !strings.HasSuffix(seen.cgroup, "/connector") {
				t.Errorf("%s's memory cgroup is %q, want the run's connector cgroup (…/vigiles-…/connector)", connector, seen.cgroup)
			}
			// Once vigiles has exited, the run's cgroup is gone, the
			// connector's below it too (a broker thread left in it kept
			// it busy).
			if f := strings.SplitN(seen.cgroup, ":", 3); len(f) == 3 {
				root := "/sys/fs/cgroup"
				if f[1] == "memory" {
					root += "/memory"
				}
				if run := filepath.Join(root, filepath.Dir(f[2])); fileExists(run) {
					t.Errorf("the run's memory cgroup %s is left after vigiles exited", run)
				}
			}
			if seen.hwmKiB > limitMiB<<10 {
				t.Errorf("%s grew to %d KiB, past the run's limit of %d MiB", connector, seen.hwmKiB, limitMiB)
			}
			// The record: whole, or the run failed (no record at all).
			if res.Error != "" {
				return
			}
			var made int
			if _, err := fmt.Sscanf(res.Stdout, "connected %d", &made); err != nil {
				made = 0 // ended before it said: any entry will do
			}
			attempts := -1
			for _, e := range res.Egress {
				if e.IP == "198.18.214.2" && e.Port == 7000 && e.Proto == "tcp" && e.Allowed {
					attempts = e.Attempts
				}
			}
			if attempts < made || attempts < 0 && res.Stdout != "" {
				t.Errorf("the record has %d attempts to the echo for %d connections the command made (egress %+v)", attempts, made, res.Egress)
			}
		})
	}
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
