package escape

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The stand-in host of TestAllowConnectorDNSAndHostAddress: vigiles runs
// in a network and mount namespace of the test's own ("vgh"), whose
// /etc/resolv.conf names a DNS server on vgh's loopback and two in a
// second namespace ("vgt", test hosts at 198.18.213.2-4 and
// 2001:db8:213::2, joined to vgh's 198.18.213.1 by a veth pair, the
// default route through 198.18.213.4). A listener on vgh's 0.0.0.0:8080
// stands for a host service. Every packet stays in these namespaces, which
// go with the script's processes.
const standInHost = `set -e
d=$1; shift
ip link set lo up
unshare -n sleep 600 </dev/null >/dev/null 2>&1 &
vgt=$!
pids=$vgt
trap 'kill $pids 2>/dev/null || true' EXIT
self=$(readlink /proc/self/ns/net)
until [ "$(readlink /proc/$vgt/ns/net)" != "$self" ]; do sleep 0.01; done
ip link add vgh0 type veth peer name vgt0 netns $vgt
ip addr add 198.18.213.1/24 dev vgh0
ip -6 addr add 2001:db8:213::1/64 dev vgh0 nodad
ip link set vgh0 up
ip route add default via 198.18.213.4
nsenter -t $vgt -n sh -ec 'ip link set lo up
	for a in 2 3 4; do ip addr add 198.18.213.$a/24 dev vgt0; done
	ip -6 addr add 2001:db8:213::2/64 dev vgt0 nodad
	ip link set vgt0 up'
nsenter -t $vgt -n python3 $d/dns.py $d/vgt.ready $d/dns.log 198.18.213.2 2001:db8:213::2 >$d/vgt.out 2>&1 &
pids="$pids $!"
python3 $d/dns.py $d/lo.ready $d/dns.log 127.0.0.1 >$d/lo.out 2>&1 &
pids="$pids $!"
python3 $d/listen.py $d/listen.ready $d/host.log >$d/listen.out 2>&1 &
pids="$pids $!"
for r in vgt lo listen; do
	n=0
	until [ -e $d/$r.ready ]; do
		n=$((n+1)); [ $n -lt 12000 ] || { cat $d/*.out >&2; exit 1; } # 2 minutes: a bound on a hang
		sleep 0.01
	done
done
mount --bind $d/resolv.conf /etc/resolv.conf
"$@"
`

// testDNSServer answers every A question with 198.18.213.3 (host.example.test
// with the stand-in host's own 198.18.213.1), every other with no
// records, on UDP port 53 of each address given, and logs each question's
// name.
const testDNSServer = `import socket, struct, sys, threading
ready, log = sys.argv[1], sys.argv[2]
lock = threading.Lock()
def serve(s):
    while True:
        q, peer = s.recvfrom(4096)
        end, labels = 12, []
        while q[end]:
            labels.append(q[end+1:end+1+q[end]].decode(errors="replace"))
            end += q[end] + 1
        name, qtype = ".".join(labels), struct.unpack(">H", q[end+1:end+3])[0]
        with lock, open(log, "a") as f:
            f.write("query %s %d\n" % (name, qtype))
        end += 5
        answers = b""
        if qtype == 1:
            ip = "198.18.213.1" if name == "host.example.test" else "198.18.213.3"
            answers = b"\xc0\x0c\x00\x01\x00\x01\x00\x00\x00\x01\x00\x04" + socket.inet_aton(ip)
        s.sendto(q[:2] + b"\x81\x80" + q[4:6] + struct.pack(">HHH", 1 if answers else 0, 0, 0) + q[12:end] + answers, peer)
for a in sys.argv[3:]:
    s = socket.socket(socket.AF_INET6 if ":" in a else socket.AF_INET, socket.SOCK_DGRAM)
    s.bind((a, 53))
    threading.Thread(target=serve, args=(s,), daemon=True).start()
open(ready, "w").close()
threading.Event().wait()
`

// hostListener accepts TCP on the stand-in host's 0.0.0.0:8080 and logs
// each connection.
const hostListener = `import socket, sys
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("0.0.0.0", 8080))
s.listen(8)
open(sys.argv[1], "w").close()
while True:
    c, peer = s.accept()
    with open(sys.argv[2], "a") as f:
        f.write("connection from %s\n" % (peer,))
    c.close()
`

// dnsHook asks each ADDRESS=NAME of its arguments one A question over UDP
// and prints whether an answer came; then resolves NAME:PORT arguments
// through the stub and connects.
const dnsHook = `import socket, struct, sys
def q(name):
    wire = b"".join(bytes([len(l)]) + l for l in name.encode().split(b".")) + b"\x00"
    return struct.pack(">HHHHHH", 0x4242, 0x100, 1, 0, 0, 0) + wire + b"\x00\x01\x00\x01"
for arg in sys.argv[1:]:
    if "=" in arg:
        addr, name = arg.split("=")
        s = socket.socket(socket.AF_INET6 if ":" in addr else socket.AF_INET, socket.SOCK_DGRAM)
        s.settimeout(2)
        try:
            s.sendto(q(name), (addr, 53))
            s.recv(512)
            print("dns", addr, "ANSWERED")
        except OSError as e:
            print("dns", addr, "NO-ANSWER", type(e).__name__)
    else:
        host, port = arg.split(":")
        try:
            c = socket.create_connection((host, int(port)), timeout=3)
            print("connect", host, "CONNECTED")
        except OSError as e:
            print("connect", host, "FAILED", type(e).__name__)
`

// TestAllowConnectorDNSAndHostAddress runs `vigiles run --egress allow`
// on a stand-in host (standInHost), with slirp4netns and with pasta:
//
//   - Neither connector answers DNS on its own. slirp4netns forwarded a
//     question the command sent to its 10.0.2.3 (or fd00::3) to the host's
//     resolver, for any name, off the list too, where --allow-ip covered
//     the address; pasta does so at its gateway when it maps the gateway to
//     the host. No question reaches the test DNS server but the stub's own:
//     one the command asks it directly is refused and recorded, though
//     --allow-ip covers its address.
//   - An allowlisted name that resolves to the host's own address is
//     refused (through the connector a connection to it comes from the
//     host, and reached the host's services on 0.0.0.0), and the refusal
//     is recorded.
func TestAllowConnectorDNSAndHostAddress(t *testing.T) {
	requireBwrap(t)
	requireRoot(t, "allow mode is tested as root here (slirp4netns needs /dev/net/tun, which is 0600 on these machines), and so are the test's namespaces")
	requireTools(t, "unshare", "nsenter", "ip", "python3")
	for _, connector := range []string{"slirp4netns", "pasta"} {
		t.Run(connector, func(t *testing.T) {
			requireTools(t, connector)
			testConnectorDNSAndHost(t, connector)
		})
	}
}

func testConnectorDNSAndHost(t *testing.T, connector string) {
	d := t.TempDir()
	os.Chmod(d, 0o755)
	for name, body := range map[string]string{
		"setup.sh": standInHost, "dns.py": testDNSServer, "listen.py": hostListener,
		"resolv.conf": "nameserver 127.0.0.1\nnameserver 198.18.213.2\nnameserver 2001:db8:213::2\n",
	} {
		if err := os.WriteFile(filepath.Join(d, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	wt := workTree(t)
	if err := os.WriteFile(filepath.Join(wt, "dnshook.py"), []byte(dnsHook), 0o644); err != nil {
		t.Fatal(err)
	}
	// The gateway: slirp4netns's 10.0.2.2, pasta's the stand-in host's
	// 198.18.213.4. slirp4netns's IPv6 comes by router advertisement,
	// waited for up to 30 s (inside the run's 60 s), where 5 s could end
	// before the kernel's next router solicitation (4 s apart) once a
	// starved slirp4netns missed one. pasta gives no IPv6 route here: its
	// wait stays 5 s, which 30 s would take from the run's 60 s.
	// (Beside the connector's routes allow mode keeps a fallback default
	// route through lo: it is no gateway.)
	tries := "50"
	if connector == "slirp4netns" {
		tries = "300"
	}
	hook := `for i in $(seq ` + tries + `); do ip -6 route show default | grep -v 'dev lo' | grep -q . && break; sleep 0.1; done
		gw=$(ip -4 route show default | grep -v 'dev lo' | awk '{print $3; exit}')
		python3 dnshook.py 198.18.213.2=reach.example.test 10.0.2.3=leak4.example.test fd00::3=leak6.example.test \
			"$gw=leakgw.example.test" host.example.test:8080 peer.example.test:9
		exit 0`
	args := []string{"unshare", "--net", "--mount", "bash", filepath.Join(d, "setup.sh"), d,
		vigilesBin, "run", "--json", "--workdir", wt, "--egress", "allow", "--connector", connector,
		"--allow", "host.example.test", "--allow", "peer.example.test", "--dns-upstream", "198.18.213.2",
		"--allow-ip", "10.0.2.0/24", "--allow-ip", "fd00::/64", "--allow-ip", "198.18.213.2/32", "--allow-ip", "198.18.213.4/32",
		"--", "bash", "-c", hook}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, args[0], args[1:]...)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH") + ":/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"}
	cmd.Dir = wt
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var res struct {
		result
		Egress []egressEntry `json:"egress"`
	}
	if jerr := json.Unmarshal(stdout.Bytes(), &res); jerr != nil || res.Tier != "confined" {
		t.Fatalf("vigiles on the stand-in host: %v; tier %q refusal %q (%v)\nstdout: %s\nstderr: %s", err, res.Tier, res.Refusal, jerr, stdout.String(), stderr.String())
	}
	log, _ := os.ReadFile(filepath.Join(d, "dns.log"))
	hostLog, _ := os.ReadFile(filepath.Join(d, "host.log"))
	defer func() {
		if t.Failed() {
			// What ended the hook, where its output is empty: a python3
			// killed before it flushed its stdout prints nothing.
			t.Logf("hook exit %d, signal %q, timed out %v, limit %q, error %q\nhook stdout:\n%s\nhook stderr:\n%s\nquestions the test servers saw:\n%s\negress: %+v\nvigiles stderr:\n%s",
				res.ExitCode, res.Signal, res.TimedOut, res.LimitHit, res.Error, res.Stdout, res.Stderr, log, res.Egress, stderr.String())
		}
	}()

	// The stub's own questions for the allowed names show that the test
	// server sees what reaches it. The command's question to the
	// upstream, asked around the stub, is refused and recorded, though
	// --allow-ip covers the upstream's address: through it the command
	// could ask about names off the list.
	if !strings.Contains(string(log), "query host.example.test 1") {
		t.Errorf("the stub's question for an allowed name did not reach the upstream: the test shows nothing")
	}
	if !strings.Contains(res.Stdout, "dns 198.18.213.2 NO-ANSWER") || strings.Contains(string(log), "reach.example.test") {
		t.Errorf("the command asked the upstream directly, around the stub")
	}
	asked := false
	for _, e := range res.Egress {
		asked = asked || e.IP == "198.18.213.2" && e.Port == 53 && !e.Allowed
	}
	if !asked {
		t.Errorf("the command's question to the upstream is not recorded as refused")
	}
	for _, a := range []string{"10.0.2.3", "fd00::3"} {
		if !strings.Contains(res.Stdout, "dns "+a+" NO-ANSWER") {
			t.Errorf("a question to %s (slirp4netns's resolver address) was answered", a)
		}
	}
	if strings.Contains(res.Stdout, "dns 10.0.2.2 ANSWERED") || strings.Contains(res.Stdout, "dns 198.18.213.4 ANSWERED") {
		t.Errorf("a question to the connector's gateway was answered")
	}
	for _, name := range []string{"leak4", "leak6", "leakgw"} {
		if strings.Contains(string(log), name+".example.test") {
			t.Errorf("%s.example.test reached a test resolver through the connector, around the stub", name)
		}
	}

	if !strings.Contains(res.Stdout, "connect host.example.test FAILED") || len(hostLog) > 0 {
		t.Errorf("an allowed name resolving to the host's own address reached the host's listener (%q)", hostLog)
	}
	refused := false
	for _, e := range res.Egress {
		if e.Via == "dns" && e.Host == "host.example.test" && e.IP == "198.18.213.1" && !e.Allowed &&
			strings.Contains(e.Detail, "answer refused: host address") {
			refused = true
		}
	}
	if !refused {
		t.Errorf("the host address in host.example.test's answer is not recorded as refused")
	}
	// An allowed name resolving elsewhere still resolves (nothing
	// listens on port 9: the connection itself may fail).
	if !strings.Contains(string(log), "query peer.example.test 1") {
		t.Errorf("the stub did not ask for peer.example.test")
	}
}
