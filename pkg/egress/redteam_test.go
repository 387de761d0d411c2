package egress

// Red team, allow mode's connectors: a hostile command with one allowed
// test host (the test's own namespace, newTestHosts) tries to exhaust the
// host through slirp4netns or pasta, to reach what is not allowed through
// them (the host's loopback behind their gateways, their DNS forwarder
// addresses, IPv6 link-local, ICMP), and to make the record short under a
// flood of DNS questions. Every target is loopback or the test's own
// namespace; the connectors' gateways are tried only where they lead to
// the host's loopback or nowhere.

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vigiles/action/pkg/evidence"
)

// connectorPid is the pid of the connector process a Closer from Attach
// stands for: slirp4netns itself, or the pasta its guard shell started.
func connectorPid(c io.Closer) int {
	switch c := c.(type) {
	case *slirp:
		return c.cmd.Process.Pid
	case *pasta:
		g := c.cmd.Process.Pid
		b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", g, g))
		for _, f := range strings.Fields(string(b)) {
			if pid, err := strconv.Atoi(f); err == nil {
				if comm, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid)); strings.TrimSpace(string(comm)) != "sh" {
					return pid
				}
			}
		}
	}
	return 0
}

// hostState is what a run could leave on the host: its processes named
// as the connectors (this test process's: go test runs other packages
// beside this one, whose runs start connectors of their own), its nft
// tables, its links, vigiles' directories in the temporary directory.
type hostState struct {
	procs  []string
	tables string
	links  []string
	tmp    []string
}

func readHostState(t *testing.T) hostState {
	t.Helper()
	var s hostState
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		comm, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "comm"))
		if c := strings.TrimSpace(string(comm)); (c == "slirp4netns" || strings.HasPrefix(c, "pasta") || strings.HasPrefix(c, "passt")) &&
			ofThisProcess(e.Name()) {
			s.procs = append(s.procs, e.Name())
		}
	}
	out, _ := exec.Command("nft", "list", "tables").CombinedOutput()
	s.tables = string(out)
	ifs, _ := net.Interfaces()
	for _, i := range ifs {
		if !strings.HasPrefix(i.Name, "vgh") { // the test hosts' veths come and go with other tests
			s.links = append(s.links, i.Name)
		}
	}
	tmp, _ := os.ReadDir(os.TempDir())
	for _, e := range tmp {
		// What this process makes there: pasta's directories, named by
		// their owner. Other "vigiles-" names, and other processes'
		// pasta directories, are other packages' runs and fixtures, which
		// go test may be making beside these tests.
		if strings.HasPrefix(e.Name(), pastaDirPrefix()) {
			s.tmp = append(s.tmp, e.Name())
		}
	}
	return s
}

// leftOver says what after has that before had not.
// ofThisProcess says whether the process pid is below this test
// process, where this package's connectors run (each a child of the
// test, or of its guard). Other packages' tests, which go test runs
// beside this one, start connectors below their own processes, and those
// of a run that is ending are orphans for a moment: neither is this
// package's leftover. A connector of this run that outlived it is looked
// for by its pid too (runRedteam), wherever it was reparented.
func ofThisProcess(pid string) bool {
	self := os.Getpid()
	for i := 0; i < 64; i++ {
		ppid := parentOf(pid)
		if ppid == self {
			return true
		}
		if ppid <= 1 {
			return false
		}
		pid = strconv.Itoa(ppid)
	}
	return false
}

// parentOf is the parent pid of pid, 0 where it has ended.
func parentOf(pid string) int {
	st, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return 0
	}
	// pid (comm) state ppid ...: comm may hold spaces and parentheses.
	i := strings.LastIndexByte(string(st), ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(string(st[i+1:]))
	if len(f) < 2 {
		return 0
	}
	ppid, _ := strconv.Atoi(f[1])
	return ppid
}

func leftOver(before, after []string) []string {
	had := map[string]bool{}
	for _, s := range before {
		had[s] = true
	}
	var extra []string
	for _, s := range after {
		if !had[s] {
			extra = append(extra, s)
		}
	}
	return extra
}

// redteamRun is one allow-mode run with a connector attached: the
// record, the connector's pid, and what it held while the probe said so.
type redteamRun struct {
	res      childResult
	pid      int
	limits   string // the connector's /proc/PID/limits
	heldFDs  int    // its open descriptors once the probe wrote "held"
	heldRSS  int    // its resident memory then, in KiB
	heldData int    // its data segment then (VmData, what RLIMIT_DATA counts), in KiB
	heldSeen bool
}

// runRedteam runs the probes in allow mode through connector. A probe that
// writes the file $RT/held is looked at then (the connector's open
// descriptors counted) and released by $RT/release. Once the run is over
// and the connector stopped, nothing of it may be left on the host.
func runRedteam(t *testing.T, connector string, p evidence.EgressPolicy, probes ...string) redteamRun {
	t.Helper()
	if _, err := exec.LookPath(connector); err != nil {
		missing(t, connector)
	}
	needTools(t, "python3")
	newTestHosts(t)
	before := readHostState(t)
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	for i := range probes {
		probes[i] = strings.Replace(probes[i], "$RT", dir, -1)
	}
	p.Mode = evidence.EgressAllow
	p.Connector = connector
	l := &Layer{}
	var run redteamRun
	var wg sync.WaitGroup
	stop := make(chan struct{})
	run.res = runChild(t, "sandbox", childSpec{Policy: p, Probes: probes}, func(pid int) (io.Closer, error) {
		c, err := l.Attach(context.Background(), p, pid, nil, nil, nil)
		if err != nil {
			return c, err
		}
		run.pid = connectorPid(c)
		b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/limits", run.pid))
		run.limits = string(b)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				case <-time.After(20 * time.Millisecond):
				}
				if _, err := os.Stat(filepath.Join(dir, "held")); err != nil {
					continue
				}
				fds, _ := os.ReadDir(fmt.Sprintf("/proc/%d/fd", run.pid))
				run.heldFDs, run.heldSeen = len(fds), true
				st, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", run.pid))
				for _, line := range strings.Split(string(st), "\n") {
					if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
						run.heldRSS, _ = strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
					}
					if v, ok := strings.CutPrefix(line, "VmData:"); ok {
						run.heldData, _ = strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
					}
				}
				_ = os.WriteFile(filepath.Join(dir, "release"), nil, 0o644)
				return
			}
		}()
		return c, nil
	})
	close(stop)
	wg.Wait()
	l.Stopped()
	if run.res.SetupErr != "" {
		t.Fatalf("setup: %s", run.res.SetupErr)
	}
	if run.pid == 0 {
		t.Fatal("no connector process found")
	}
	if _, err := os.Stat(fmt.Sprintf("/proc/%d", run.pid)); err == nil {
		t.Errorf("%s (pid %d) is still there once the run is over", connector, run.pid)
	}
	after := readHostState(t)
	if extra := leftOver(before.procs, after.procs); len(extra) > 0 {
		t.Errorf("connector processes left on the host: %v", extra)
	}
	if before.tables != after.tables {
		t.Errorf("the host's nft tables changed:\nbefore:\n%s\nafter:\n%s", before.tables, after.tables)
	}
	if extra := leftOver(before.links, after.links); len(extra) > 0 {
		t.Errorf("links left on the host: %v", extra)
	}
	if extra := leftOver(before.tmp, after.tmp); len(extra) > 0 {
		t.Errorf("left in %s: %v", os.TempDir(), extra)
	}
	return run
}

func connectors() []string { return []string{ConnectorSlirp, ConnectorPasta} }

// floodClient opens N connections (TCP) or sockets sending one datagram
// each (UDP) to HOST:PORT from as many source ports, says how many it
// made, holds them until the test has looked, and exits with them open.
const floodClient = `import os, resource, socket, sys, time
_, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
proto, host, port, n, rt = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
held, made, failed = [], 0, 0
for i in range(n):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM if proto == "tcp" else socket.SOCK_DGRAM)
    try:
        if proto == "tcp":
            s.settimeout(10)
            s.connect((host, port))
        else:
            s.sendto(b"x", (host, port))
        made += 1
    except OSError as e:
        failed += 1
    held.append(s)
print("made", made, "failed", failed, flush=True)
open(os.path.join(rt, "held"), "w").close()
while not os.path.exists(os.path.join(rt, "release")):
    time.sleep(0.02)
os._exit(0)
`

// TestRedteamConnectionFlood: thousands of TCP connections, and UDP
// sockets, to the one allowed host, left open at the end. Every one is an
// attempt of the record, exactly; the connector holds at most a socket on
// the host for each, within its descriptor limit, and nothing of it, or of
// the run, is left on the host once it is over.
func TestRedteamConnectionFlood(t *testing.T) {
	const n = 3000
	for _, connector := range connectors() {
		for _, proto := range []string{"tcp", "udp"} {
			t.Run(connector+"/"+proto, func(t *testing.T) {
				port := 7000
				if proto == "udp" {
					port = 7001
				}
				run := runRedteam(t, connector, evidence.EgressPolicy{AllowIP: []string{"198.18.0.3/32"}},
					fmt.Sprintf("sh:python3 - %s 198.18.0.3 %d %d $RT <<'PY'\n%sPY\n", proto, port, n, floodClient))
				res := run.res
				defer dumpOnFailure(t, res)
				t.Logf("probe: %s; %s held %d descriptors and %d KiB; its limits:\n%s", res.Probes[0].Output, connector, run.heldFDs, run.heldRSS, run.limits)
				if res.FinishErr != "" {
					t.Fatalf("finish: %s", res.FinishErr)
				}
				// Where the connector's descriptor limit is lower than the
				// flood (ConnectorOpenFiles, or the caller's hard limit),
				// it refuses the connections past it, or they time out:
				// the hook's loss, and every attempt is still in the record.
				made := strings.Contains(res.Probes[0].Output, fmt.Sprintf("made %d failed 0", n))
				e, ok := connectEntryFor(res.Egress, "198.18.0.3", port, proto)
				if !ok {
					t.Fatalf("no entry for the flooded host")
				}
				if !e.Allowed || e.Attempts != n {
					t.Errorf("flooded host's entry %+v, want allowed and %d attempts", e, n)
				}
				if !run.heldSeen {
					t.Fatalf("the probe never said it held its connections")
				}
				if made && run.heldFDs < n/2 && proto == "tcp" {
					t.Errorf("%s held %d descriptors for %d connections: are they made at all?", connector, run.heldFDs, n)
				}
			})
		}
	}
}

// hostListener listens on the host's loopback, TCP and UDP on one port of
// its own, IPv4 and IPv6, and counts what reaches it.
type hostListener struct {
	port int
	mu   sync.Mutex
	got  []string
}

func newHostListener(t *testing.T) *hostListener {
	t.Helper()
	h := &hostListener{}
	ln4, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	h.port = ln4.Addr().(*net.TCPAddr).Port
	var lns []net.Listener
	lns = append(lns, ln4)
	if ln6, err := net.Listen("tcp6", fmt.Sprintf("[::1]:%d", h.port)); err == nil {
		lns = append(lns, ln6)
	}
	var pcs []net.PacketConn
	for _, a := range []string{"127.0.0.1", "[::1]"} {
		if pc, err := net.ListenPacket("udp", fmt.Sprintf("%s:%d", a, h.port)); err == nil {
			pcs = append(pcs, pc)
		}
	}
	if len(pcs) == 0 {
		t.Fatalf("no UDP listener on the host's loopback at port %d", h.port)
	}
	note := func(s string) { h.mu.Lock(); h.got = append(h.got, s); h.mu.Unlock() }
	for _, ln := range lns {
		go func() {
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				note("tcp from " + c.RemoteAddr().String())
				c.Close()
			}
		}()
	}
	for _, pc := range pcs {
		go func() {
			buf := make([]byte, 2048)
			for {
				_, from, err := pc.ReadFrom(buf)
				if err != nil {
					return
				}
				note("udp from " + from.String())
			}
		}()
	}
	t.Cleanup(func() {
		for _, ln := range lns {
			ln.Close()
		}
		for _, pc := range pcs {
			pc.Close()
		}
	})
	return h
}

func (h *hostListener) reached() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.got...)
}

// reachClient tries each ADDR given (a zone after %), by TCP and UDP at
// PORT and by ping, and says what came of it. It waits first for IPv6's
// default route through the connector (slirp4netns's router advertisement).
const reachClient = `import socket, subprocess, sys, time
port = int(sys.argv[1])
for i in range(50):
    r = subprocess.run(["ip", "-6", "route", "show", "default"], capture_output=True, text=True).stdout
    if any(l and "dev lo" not in l for l in r.splitlines()):
        break
    time.sleep(0.1)
for a in sys.argv[2:]:
    fam = socket.AF_INET6 if ":" in a else socket.AF_INET
    info = socket.getaddrinfo(a, port, fam, socket.SOCK_STREAM, 0, socket.AI_NUMERICHOST)[0][4]
    s = socket.socket(fam, socket.SOCK_STREAM)
    s.settimeout(3)
    try:
        s.connect(info)
        print(a, "tcp connected")
    except OSError as e:
        print(a, "tcp", e)
    s.close()
    u = socket.socket(fam, socket.SOCK_DGRAM)
    try:
        u.sendto(b"reach", info)
        print(a, "udp sent")
    except OSError as e:
        print(a, "udp", e)
    u.close()
    proto, typ = (socket.IPPROTO_ICMPV6, 128) if fam == socket.AF_INET6 else (socket.IPPROTO_ICMP, 8)
    p = socket.socket(fam, socket.SOCK_DGRAM, proto)
    p.settimeout(2)
    try:
        p.sendto(bytes([typ, 0, 0, 0, 0, 1, 0, 1]), (info[0], 0) + tuple(info[2:]))
        p.recv(64)
        print(a, "ping answered")
    except OSError as e:
        print(a, "ping", e)
    p.close()
time.sleep(0.5)
`

// TestRedteamConnectorHostLoopback: what the connectors lead to on the
// host, besides the allowed host: slirp4netns's gateway (10.0.2.2, and
// fd00::2 and fe80::2 in IPv6), which leads to the host's loopback unless
// --disable-host-loopback, as its network's broadcast addresses do, its
// DNS forwarder's addresses (10.0.2.3, fd00::3), the link's multicast, the sandbox's own loopback, which pasta forwards to the host's
// with -T and -U, and pasta's copy of the host's address. A listener on the
// host's loopback, at a port of the test's own, is never reached: each
// attempt is refused by the wall and recorded, and with slirp4netns's
// gateway allowed by --allow-ip, slirp4netns refuses it. (pasta's gateway
// is the host's real one, so no test sends anything there: --no-map-gw,
// checked in its command line, keeps it from leading to the host's
// loopback.)
func TestRedteamConnectorHostLoopback(t *testing.T) {
	if _, err := os.Stat("/proc/net/if_inet6"); err != nil {
		missing(t, "IPv6 (/proc/net/if_inet6)")
	}
	for _, tc := range []struct {
		name, connector string
		allowIP         []string
		addrs           []string
		// refused are the addresses the wall must refuse and record.
		refused []string
		// loopback are the addresses recorded via loopback.
		loopback []string
		// udpOnly are broadcast and multicast addresses, tried by UDP
		// alone (SO_BROADCAST set), each refused and recorded.
		udpOnly []string
	}{
		{name: "slirp4netns", connector: ConnectorSlirp,
			addrs:    []string{"10.0.2.2", "10.0.2.3", "fd00::2", "fd00::3", "fe80::2%tap0", "127.0.0.1", "::1"},
			refused:  []string{"10.0.2.2", "10.0.2.3", "fd00::2", "fd00::3", "fe80::2"},
			loopback: []string{"127.0.0.1", "::1"},
			udpOnly:  []string{"10.0.2.255", "255.255.255.255", "ff02::1%tap0"}},
		{name: "slirp4netns gateway allowed", connector: ConnectorSlirp, allowIP: []string{"10.0.2.2/32", "fd00::2/128"},
			addrs: []string{"10.0.2.2", "fd00::2"}},
		{name: "pasta", connector: ConnectorPasta,
			addrs:    []string{"127.0.0.1", "::1", "HOSTADDR"},
			loopback: []string{"127.0.0.1", "::1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lis := newHostListener(t)
			addrs := strings.Join(tc.addrs, " ")
			// pasta copies the host's address into the sandbox: there
			// it is the sandbox's own.
			addrs = strings.Replace(addrs, "HOSTADDR", `$(ip -o addr show scope global | grep -v ' lo ' | awk '{print $4}' | cut -d/ -f1)`, 1)
			probes := []string{fmt.Sprintf("sh:python3 - %d %s <<'PY'\n%sPY\n", lis.port, addrs, reachClient)}
			if len(tc.udpOnly) > 0 {
				probes = append(probes, fmt.Sprintf(`sh:python3 - %d %s <<'PY'
import socket, sys
for a in sys.argv[2:]:
    fam = socket.AF_INET6 if ":" in a else socket.AF_INET
    u = socket.socket(fam, socket.SOCK_DGRAM)
    u.setsockopt(socket.SOL_SOCKET, socket.SO_BROADCAST, 1)
    try:
        u.sendto(b"reach", socket.getaddrinfo(a, int(sys.argv[1]), fam, socket.SOCK_DGRAM, 0, socket.AI_NUMERICHOST)[0][4])
        print(a, "udp sent")
    except OSError as e:
        print(a, "udp", e)
PY
`, lis.port, strings.Join(tc.udpOnly, " ")))
			}
			run := runRedteam(t, tc.connector, evidence.EgressPolicy{AllowIP: tc.allowIP}, probes...)
			res := run.res
			defer dumpOnFailure(t, res)
			t.Logf("probe: %s", res.Probes[0].Output)
			if res.FinishErr != "" {
				t.Errorf("finish: %s", res.FinishErr)
			}
			if got := lis.reached(); len(got) > 0 {
				t.Errorf("the host's loopback listener at port %d was reached through %s: %v", lis.port, tc.connector, got)
			}
			if strings.Contains(res.Probes[0].Output, "connected") {
				t.Errorf("a connection was made: %s", res.Probes[0].Output)
			}
			for _, a := range tc.refused {
				for _, proto := range []string{"tcp", "udp"} {
					if e, ok := connectEntryFor(res.Egress, a, lis.port, proto); !ok || e.Allowed {
						t.Errorf("%s %s port %d: entry %+v (found %v), want refused", proto, a, lis.port, e, ok)
					}
				}
				if e, ok := connectEntryFor(res.Egress, a, 0, "icmp"); !ok || e.Allowed {
					t.Errorf("ping of %s: entry %+v (found %v), want refused", a, e, ok)
				}
			}
			for _, a := range tc.udpOnly {
				a, _, _ = strings.Cut(a, "%")
				if e, ok := connectEntryFor(res.Egress, a, lis.port, "udp"); !ok || e.Allowed {
					t.Errorf("udp %s port %d: entry %+v (found %v), want refused (probe said %q)", a, lis.port, e, ok, res.Probes[1].Output)
				}
			}
			if tc.connector == ConnectorPasta {
				// Its copies of the host's addresses are the sandbox's
				// own: a connect there that nothing answered is refused
				// and recorded, and reaches nothing of the host's.
				n := 0
				for _, line := range strings.Split(res.Probes[0].Output, "\n") {
					a, rest, _ := strings.Cut(line, " ")
					if !strings.HasPrefix(rest, "tcp") || a == "127.0.0.1" || a == "::1" {
						continue
					}
					n++
					if e, ok := connectEntryFor(res.Egress, a, lis.port, "tcp"); !ok || e.Allowed {
						t.Errorf("tcp %s port %d: entry %+v (found %v), want refused", a, lis.port, e, ok)
					}
				}
				if n == 0 {
					t.Errorf("pasta gave the sandbox no address of the host's")
				}
			}
			for _, a := range tc.loopback {
				for _, proto := range []string{"tcp", "udp"} {
					mustFind(t, res.Egress, proto+" "+a+" via loopback", func(e evidence.Egress) bool {
						return e.Via == evidence.ViaLoopback && e.IP == a && e.Port == lis.port && e.Proto == proto && !e.Allowed
					})
				}
			}
		})
	}
}

// dnsFloodClient asks the stub, over UDP, one question for each name given
// as hex on stdin (one a line, its labels separated by "2e" never: each
// line is the question's wire name), then N distinct names off the list,
// then W names under the allowed wildcard, each waiting for its answer,
// and says how many went unanswered.
const dnsFloodClient = `import os, socket, struct, sys
n, w = int(sys.argv[1]), int(sys.argv[2])
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.settimeout(3)
s.connect(("127.0.0.1", 53))
def wire(labels):
    return b"".join(bytes([len(l)]) + l for l in labels) + b"\0"
def ask(i, name):
    s.send(struct.pack(">HHHHHH", i & 0xffff, 0x0100, 1, 0, 0, 0) + name + struct.pack(">HH", 1, 1))
    try:
        while True:
            a = s.recv(4096)
            if a[:2] == struct.pack(">H", i & 0xffff):
                return True
    except socket.timeout:
        return False
lost, asked = 0, 0
for i, line in enumerate(sys.stdin.read().split()):
    asked += 1
    lost += not ask(i, bytes.fromhex(line))
for i in range(n):
    asked += 1
    lost += not ask(i, wire([b"n%05d" % i, b"flood", b"test"]))
for i in range(w):
    asked += 1
    lost += not ask(i, wire([b"w%05d" % i, b"wild", b"example", b"test"]))
print("asked", asked, "unanswered", lost)
`

// oddName is a question's wire name and how the record writes it.
type oddName struct {
	labels [][]byte
	host   string
}

func (o oddName) wire() []byte {
	var b []byte
	for _, l := range o.labels {
		b = append(append(b, byte(len(l))), l...)
	}
	return append(b, 0)
}

// TestRedteamDNSFlood: a flood of DNS questions for distinct names in allow
// mode, through each connector, after names with odd bytes and the
// longest names: the record names the odd ones as they are (each byte
// outside letters, digits, - and _ as \DDD, so that a dot inside a label or
// a backslash never reads as another name), the first 10,000 destinations
// one by one and the rest lumped, and every question is counted once:
// the attempts of the named entries and of the lump add up to the
// questions asked, none lost, none twice.
func TestRedteamDNSFlood(t *testing.T) {
	const flood, wild = 10300, 200
	l63 := []byte(strings.Repeat("l", 63))
	odd := []oddName{
		{[][]byte{[]byte("a.b"), []byte("odd"), []byte("test")}, `a\046b.odd.test`},
		{[][]byte{[]byte(`a\046b`), []byte("odd"), []byte("test")}, `a\092046b.odd.test`},
		{[][]byte{[]byte("A\x00B"), []byte("odd"), []byte("test")}, `a\000b.odd.test`},
		{[][]byte{[]byte("\xff\xfe"), []byte("odd"), []byte("test")}, `\255\254.odd.test`},
		{[][]byte{[]byte("a b,c(d)"), []byte("odd"), []byte("test")}, `a\032b\044c\040d\041.odd.test`},
		{[][]byte{[]byte("CASE"), []byte("odd"), []byte("test")}, "case.odd.test"},
		{[][]byte{[]byte("case"), []byte("odd"), []byte("test")}, "case.odd.test"},
		// The longest name there is: 255 bytes on the wire, 253 written.
		{[][]byte{l63, l63, l63, []byte(strings.Repeat("m", 61))},
			strings.Repeat(string(l63)+".", 3) + strings.Repeat("m", 61)},
		// One byte longer: malformed.
		{[][]byte{l63, l63, l63, []byte(strings.Repeat("m", 62))}, ""},
	}
	var stdin strings.Builder
	for _, o := range odd {
		fmt.Fprintf(&stdin, "%x\n", o.wire())
	}
	for _, connector := range connectors() {
		t.Run(connector, func(t *testing.T) {
			dir := probeDir(t, map[string]string{"client.py": dnsFloodClient, "names": stdin.String()})
			run := runRedteam(t, connector, evidence.EgressPolicy{
				Allow: []string{"*.wild.example.test"}, AllowIP: []string{"198.18.0.3/32"}, DNSUpstream: testDNS},
				fmt.Sprintf("sh:python3 %s/client.py %d %d < %s/names", dir, flood, wild, dir))
			res := run.res
			out := res.Probes[0].Output
			t.Logf("probe: %s", out)
			if res.FinishErr != "" {
				t.Fatalf("finish: %s", res.FinishErr)
			}
			asked := len(odd) + flood + wild
			if !strings.Contains(out, fmt.Sprintf("asked %d unanswered 0", asked)) {
				t.Errorf("the stub did not answer every question: %s", out)
			}
			total, lumped, named := 0, 0, 0
			for _, e := range res.Egress {
				if e.Via != evidence.ViaDNS {
					t.Errorf("an entry not of DNS: %+v", e)
					continue
				}
				total += e.Attempts
				if e.Detail == evidence.OverflowDetail {
					lumped += e.Attempts
				} else {
					named++
				}
			}
			if named != evidence.MaxEgressEntries {
				t.Errorf("%d entries named one by one, want %d", named, evidence.MaxEgressEntries)
			}
			if total != asked {
				t.Errorf("the record's attempts add up to %d (%d lumped), want the %d questions asked", total, lumped, asked)
			}
			for i, o := range odd {
				if o.host == "" {
					mustFind(t, res.Egress, "the name over 255 bytes", func(e evidence.Egress) bool {
						return e.Host == "" && strings.HasPrefix(e.Detail, "malformed query: name longer than 255 bytes") && e.Attempts == 1
					})
					continue
				}
				want := 1
				if o.host == "case.odd.test" {
					want = 2
				}
				e, _ := mustFind(t, res.Egress, fmt.Sprintf("odd name %d (%s)", i, o.host), func(e evidence.Egress) bool { return e.Host == o.host })
				if e.Attempts != want || e.Allowed {
					t.Errorf("odd name %s: %+v, want %d attempt(s), not allowed", o.host, e, want)
				}
			}
			// The first names of the flood are named, in order; the
			// wildcard's, which came last, are lumped, allowed.
			if _, i := mustFind(t, res.Egress, "the flood's first name", func(e evidence.Egress) bool { return e.Host == "n00000.flood.test" }); i != len(odd)-1 {
				t.Errorf("the flood's first name is entry %d, want %d (the odd names, two of one name, before it)", i, len(odd)-1)
			}
			mustFind(t, res.Egress, "the wildcard's lump", func(e evidence.Egress) bool {
				return e.Detail == evidence.OverflowDetail && e.Allowed && e.Attempts == wild
			})
		})
	}
}

// multicastPingClient pings each ADDR%tap0 given, by an ICMPv6 echo request
// from a ping socket carrying a payload of the command's, once IPv6's
// default route through the connector is there.
const multicastPingClient = `import socket, subprocess, sys, time
for i in range(50):
    r = subprocess.run(["ip", "-6", "route", "show", "default"], capture_output=True, text=True).stdout
    if any(l and "dev lo" not in l for l in r.splitlines()):
        break
    time.sleep(0.1)
for a in sys.argv[1:]:
    p = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM, socket.IPPROTO_ICMPV6)
    try:
        p.sendto(bytes([128, 0, 0, 0, 0, 1, 0, 1]) + b"secret", socket.getaddrinfo(a, 0, socket.AF_INET6, socket.SOCK_DGRAM, 0, socket.AI_NUMERICHOST)[0][4])
        print(a, "sent")
    except OSError as e:
        print(a, e)
    p.close()
time.sleep(0.3)
`

// TestRedteamMulticastPing: in allow mode the wall lets ICMPv6 to the
// link's multicast addresses (ff02::/16) through, which IPv6 needs to reach
// the connector's gateway (MLD; neighbour discovery is accepted by type).
// An echo request from the command's ping socket to ff02::1 (every node of
// the link: under Claude Code the host's network) went through that rule
// unrecorded, with whatever payload the command put in it. Only MLD's
// types go through now: the echo request is refused and recorded, an icmp
// entry of the address. (slirp4netns only: it forwards no ICMPv6 it does
// not answer itself, so nothing leaves the host even where the wall let it
// through; pasta would send it on from the host.)
func TestRedteamMulticastPing(t *testing.T) {
	if _, err := os.Stat("/proc/net/if_inet6"); err != nil {
		missing(t, "IPv6 (/proc/net/if_inet6)")
	}
	addrs := []string{"ff02::1", "ff02::2", "ff02::16"}
	var zoned []string
	for _, a := range addrs {
		zoned = append(zoned, a+"%"+slirpTap)
	}
	run := runRedteam(t, ConnectorSlirp, evidence.EgressPolicy{AllowIP: []string{"198.18.0.3/32"}},
		fmt.Sprintf("sh:python3 - %s <<'PY'\n%sPY\n", strings.Join(zoned, " "), multicastPingClient))
	res := run.res
	defer dumpOnFailure(t, res)
	t.Logf("probe: %s", res.Probes[0].Output)
	if res.FinishErr != "" {
		t.Errorf("finish: %s", res.FinishErr)
	}
	for _, a := range addrs {
		if e, ok := connectEntryFor(res.Egress, a, 0, "icmp"); !ok || e.Allowed || e.Attempts != 1 {
			t.Errorf("echo request to %s: entry %+v (found %v), want one icmp attempt, refused", a, e, ok)
		}
	}
}

// TestRedteamConnectionsPastTheSets: through each connector, one datagram
// to each of more ports of the allowed host than the sets that count
// connections and flows hold: the connector makes a host socket for each
// (or refuses those past its descriptor limit), the run ends cleanly, and
// the record is called incomplete, naming the sets, never handed back
// short.
func TestRedteamConnectionsPastTheSets(t *testing.T) {
	for _, connector := range connectors() {
		t.Run(connector, func(t *testing.T) {
			run := runRedteam(t, connector, evidence.EgressPolicy{AllowIP: []string{"198.18.0.3/32"}},
				fmt.Sprintf(`sh:python3 -c '
import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for p in range(1, %d):
    s.sendto(b"x", ("198.18.0.3", p))
print("sent")
'`, dynSetSize+2))
			res := run.res
			if !strings.Contains(res.Probes[0].Output, "sent") {
				t.Fatalf("probe: %s", res.Probes[0].Output)
			}
			for _, set := range []string{"flows4", "conns4"} {
				if !strings.Contains(res.FinishErr, "the "+set+" set") {
					t.Errorf("Finish did not say that %s filled up: %q", set, res.FinishErr)
				}
			}
			if !strings.Contains(res.FinishErr, ErrIncomplete.Error()) {
				t.Errorf("Finish did not call the record incomplete: %q", res.FinishErr)
			}
		})
	}
}

// TestRedteamDNSBurst: 20,000 questions for distinct names sent to the
// stub as fast as the command can, never reading an answer, in allow mode
// through each connector. The stub may fall behind and the kernel drop
// some: then the record is called incomplete; otherwise its attempts add
// up to the questions sent. Never a short record passed for whole.
func TestRedteamDNSBurst(t *testing.T) {
	const n = 20000
	for _, connector := range connectors() {
		t.Run(connector, func(t *testing.T) {
			run := runRedteam(t, connector, evidence.EgressPolicy{AllowIP: []string{"198.18.0.3/32"}},
				fmt.Sprintf(`sh:python3 -c '
import socket, struct
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
sent = 0
for i in range(%d):
    name = b"\x06b%%05d\x05burst\x04test\x00" %% i
    try:
        s.sendto(struct.pack(">HHHHHH", i & 0xffff, 0x0100, 1, 0, 0, 0) + name + struct.pack(">HH", 1, 1), ("127.0.0.1", 53))
        sent += 1
    except OSError:
        pass
print("sent", sent)
'`, n))
			res := run.res
			out := res.Probes[0].Output
			var sent int
			if _, err := fmt.Sscanf(out, "sent %d", &sent); err != nil {
				t.Fatalf("probe: %s", out)
			}
			total := 0
			for _, e := range res.Egress {
				total += e.Attempts
			}
			t.Logf("sent %d, recorded %d, finish: %q", sent, total, res.FinishErr)
			if res.FinishErr != "" {
				if !strings.Contains(res.FinishErr, ErrIncomplete.Error()) {
					t.Errorf("finish: %s", res.FinishErr)
				}
				return
			}
			if total != sent {
				t.Errorf("the record's attempts add up to %d, want the %d questions sent, or the record called incomplete", total, sent)
			}
		})
	}
}

// ipv6AtTheStartClient sends one UDP datagram, the moment it starts, to
// each address given (port 7301 on), by the connector's interface where
// the address is link-scoped, and says what each send did.
const ipv6AtTheStartClient = `import errno, socket, sys
link = next(i for i, n in socket.if_nameindex() if n != "lo")
for port, a in enumerate(sys.argv[1:], 7301):
    s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
    scope = link if a.startswith(("fe80:", "ff02:")) else 0
    try:
        s.sendto(b"x", (a, port, 0, scope))
        print(a, port, "sent")
    except OSError as e:
        print(a, port, errno.errorcode.get(e.errno, e.errno))
    s.close()
`

// TestRedteamIPv6AtTheStart: a datagram the command sends at its start to
// an IPv6 multicast address (the link's, ff02::fb, mDNS; a global one) or
// to a link-local address on the connector's link leaves by that link,
// where the kernel needs an address of the link's as its source. slirp4netns's
// tap came up with its link-local address tentative (duplicate address
// detection, a second or more), so each such send failed with
// EADDRNOTAVAIL before any packet existed, and the record held none of
// them, where under Claude Code the host's settled link sends them: a hook
// that tried them at once passed no-egress. Each is now a packet the wall
// refuses and records, through either connector.
func TestRedteamIPv6AtTheStart(t *testing.T) {
	if _, err := os.Stat("/proc/net/if_inet6"); err != nil {
		missing(t, "IPv6 (/proc/net/if_inet6)")
	}
	addrs := []string{"ff02::fb", "ff0e::1234", "fe80::2"}
	for _, connector := range []string{ConnectorSlirp, ConnectorPasta} {
		t.Run(connector, func(t *testing.T) {
			run := runRedteam(t, connector, evidence.EgressPolicy{AllowIP: []string{"198.18.0.3/32"}},
				fmt.Sprintf("sh:python3 - %s <<'PY'\n%sPY\n", strings.Join(addrs, " "), ipv6AtTheStartClient))
			res := run.res
			defer dumpOnFailure(t, res)
			t.Logf("probe: %s", res.Probes[0].Output)
			if res.FinishErr != "" {
				t.Errorf("finish: %s", res.FinishErr)
			}
			for i, a := range addrs {
				if e, ok := connectEntryFor(res.Egress, a, 7301+i, "udp"); !ok || e.Allowed || e.Attempts != 1 {
					t.Errorf("udp to %s port %d at the start: entry %+v (found %v), want one attempt, refused", a, 7301+i, e, ok)
				}
			}
		})
	}
}
