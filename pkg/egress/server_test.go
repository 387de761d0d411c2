package egress

// Test hosts for the allow mode: a network namespace the test creates (held
// by the servers' own process, not named with `ip netns add`, whose mounts
// under the shared /run/netns would come and go under every sandbox being
// built meanwhile), joined to the host by a veth pair, holding a small DNS
// server and HTTP and raw TCP servers. No other address is ever a target.

import (
	"bufio"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"golang.org/x/net/dns/dnsmessage"
)

const (
	envServerLog = "VIGILES_EGRESS_TEST_SERVER_LOG"

	testHostSide = "198.18.0.1"
	testDNS      = "198.18.0.2"
)

// testZone is the test DNS server's data. rot.example.test rotates between
// two addresses, one per question.
var testZone = map[string][]string{
	"allowed.example.test.": {"198.18.0.3"},
	"port.example.test.":    {"198.18.0.5"},
	"off.example.test.":     {"198.18.0.8"},
	"bypass.example.test.":  {"198.18.0.8"},
	"meta.example.test.":    {"169.254.169.254"},
	"meta6.example.test.":   {"2002:a9fe:a9fe::1"}, // 6to4 of the metadata service
	"loop.example.test.":    {"127.0.0.1"},
	"priv.example.test.":    {"10.0.0.5"},
	"privok.example.test.":  {"10.0.0.6"},
	"v6.example.test.":      {"2001:db8:76::3"},
}

// testHostAddrs are the addresses of the test hosts' namespace.
var testHostAddrs = []string{"198.18.0.2/24", "198.18.0.3/24", "198.18.0.4/24", "198.18.0.5/24",
	"198.18.0.6/24", "198.18.0.7/24", "198.18.0.8/24"}

func zoneLookup(name string, qtype dnsmessage.Type, rot *atomic.Int64) []string {
	name = strings.ToLower(name)
	if name == "rot.example.test." && qtype == dnsmessage.TypeA {
		if rot.Add(1)%2 == 1 {
			return []string{"198.18.0.6"}
		}
		return []string{"198.18.0.7"}
	}
	if strings.HasSuffix(name, ".wild.example.test.") {
		return []string{"198.18.0.4"}
	}
	return testZone[name]
}

// oddAnswers are the test server's answers that name records by another
// owner than the question's: alias.example.test's A question is answered
// with a CNAME to target.example.test and target's address (198.18.0.6);
// stray.example.test's with an address record of evil.example.test
// (198.18.0.7) and no CNAME leading there.
func oddAnswers(q dnsmessage.Question) ([]dnsmessage.Resource, bool) {
	h := func(name string, typ dnsmessage.Type) dnsmessage.ResourceHeader {
		return dnsmessage.ResourceHeader{Name: dnsmessage.MustNewName(name), Type: typ, Class: dnsmessage.ClassINET, TTL: 1}
	}
	if q.Type != dnsmessage.TypeA {
		return nil, false
	}
	switch strings.ToLower(q.Name.String()) {
	case "alias.example.test.":
		return []dnsmessage.Resource{
			{Header: h("alias.example.test.", dnsmessage.TypeCNAME), Body: &dnsmessage.CNAMEResource{CNAME: dnsmessage.MustNewName("target.example.test.")}},
			{Header: h("target.example.test.", dnsmessage.TypeA), Body: &dnsmessage.AResource{A: [4]byte{198, 18, 0, 6}}},
		}, true
	case "stray.example.test.":
		return []dnsmessage.Resource{
			{Header: h("evil.example.test.", dnsmessage.TypeA), Body: &dnsmessage.AResource{A: [4]byte{198, 18, 0, 7}}},
		}, true
	}
	return nil, false
}

// childServer runs inside the test hosts' namespace.
func childServer() int {
	// The parent configures this namespace's addresses, then says go.
	if _, err := bufio.NewReader(os.Stdin).ReadString('\n'); err != nil {
		fmt.Println("ERR", err)
		return 1
	}
	logf, err := os.OpenFile(os.Getenv(envServerLog), os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		fmt.Println("ERR", err)
		return 1
	}
	var logMu sync.Mutex
	logLine := func(s string) {
		logMu.Lock()
		defer logMu.Unlock()
		fmt.Fprintln(logf, s)
	}
	var rot atomic.Int64
	pc, err := net.ListenPacket("udp", testDNS+":53")
	if err != nil {
		fmt.Println("ERR", err)
		return 1
	}
	go func() {
		buf := make([]byte, 4096)
		for {
			n, from, err := pc.ReadFrom(buf)
			if err != nil {
				return
			}
			var m dnsmessage.Message
			if err := m.Unpack(buf[:n]); err != nil || len(m.Questions) == 0 {
				logLine("raw " + hex.EncodeToString(buf[:n]))
				continue
			}
			q := m.Questions[0]
			logLine("query " + q.Name.String() + " " + q.Type.String())
			resp := dnsmessage.Message{Header: dnsmessage.Header{ID: m.ID, Response: true, RecursionAvailable: true},
				Questions: []dnsmessage.Question{q}}
			addrs := zoneLookup(q.Name.String(), q.Type, &rot)
			if aliased, ok := oddAnswers(q); ok {
				resp.Answers, addrs = aliased, []string{}
			}
			if addrs == nil {
				resp.RCode = dnsmessage.RCodeNameError
			}
			for _, s := range addrs {
				a := netip.MustParseAddr(s)
				h := dnsmessage.ResourceHeader{Name: q.Name, Class: dnsmessage.ClassINET, TTL: 1}
				switch {
				case a.Is4() && q.Type == dnsmessage.TypeA:
					h.Type = dnsmessage.TypeA
					resp.Answers = append(resp.Answers, dnsmessage.Resource{Header: h, Body: &dnsmessage.AResource{A: a.As4()}})
				case a.Is6() && q.Type == dnsmessage.TypeAAAA:
					h.Type = dnsmessage.TypeAAAA
					resp.Answers = append(resp.Answers, dnsmessage.Resource{Header: h, Body: &dnsmessage.AAAAResource{AAAA: a.As16()}})
				}
			}
			out, err := resp.Pack()
			if err == nil {
				_, _ = pc.WriteTo(out, from)
			}
		}
	}()
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		logLine("http " + r.Host + " " + r.URL.Path)
		fmt.Fprintf(w, "hello from test host %s\n", strings.Repeat("x", 2000))
	})
	for _, a := range []string{":80"} {
		ln, err := net.Listen("tcp", a)
		if err != nil {
			fmt.Println("ERR", err)
			return 1
		}
		go func() { _ = http.Serve(ln, mux) }()
	}
	cert, err := selfSigned()
	if err != nil {
		fmt.Println("ERR", err)
		return 1
	}
	tlsLn, err := tls.Listen("tcp", ":443", &tls.Config{Certificates: []tls.Certificate{cert}})
	if err != nil {
		fmt.Println("ERR", err)
		return 1
	}
	go func() { _ = http.Serve(tlsLn, mux) }()
	raw, err := net.Listen("tcp", "0.0.0.0:7000")
	if err != nil {
		fmt.Println("ERR", err)
		return 1
	}
	go func() {
		for {
			c, err := raw.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				_ = c.SetDeadline(time.Now().Add(5 * time.Second))
				_, _ = io.Copy(c, c)
			}()
		}
	}()
	// A holder: each connection stays open, unanswered, until its
	// client closes it (TestConnectorOpenFilesLimit).
	hold, err := net.Listen("tcp", "0.0.0.0:7002")
	if err != nil {
		fmt.Println("ERR", err)
		return 1
	}
	go func() {
		for {
			c, err := hold.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				_, _ = io.Copy(io.Discard, c)
			}()
		}
	}()
	// A UDP sink: datagrams to it are counted by the rule set, never
	// answered.
	udp, err := net.ListenPacket("udp", "0.0.0.0:7001")
	if err != nil {
		fmt.Println("ERR", err)
		return 1
	}
	go func() {
		buf := make([]byte, 2048)
		for {
			if _, _, err := udp.ReadFrom(buf); err != nil {
				return
			}
		}
	}()
	fmt.Println("READY")
	select {}
}

// selfSigned makes a throwaway certificate for the test HTTPS server.
func selfSigned() (tls.Certificate, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, err
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "example.test"},
		DNSNames: []string{"*.example.test", "allowed.example.test"}, NotBefore: time.Now().Add(-time.Hour),
		NotAfter: time.Now().Add(time.Hour)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return tls.Certificate{}, err
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, nil
}

// testHosts creates the test hosts' namespace and veth pair, starts the
// servers there and removes everything when the test ends. It needs root.
type testHosts struct {
	log string
}

func newTestHosts(t *testing.T) *testHosts {
	t.Helper()
	if os.Geteuid() != 0 {
		missing(t, "root (to create test hosts in a network namespace with a veth pair)")
	}
	for _, tool := range []string{"ip", "nsenter"} {
		if _, err := exec.LookPath(tool); err != nil {
			missing(t, tool+" (iproute2, util-linux)")
		}
	}
	// Every test process's hosts have the same addresses, on a link of
	// the host's own namespace: another go test of this package (a second
	// checkout's) waits for this one's to be gone, not to route its
	// packets to it. The lock goes last, once the link is removed.
	lock, err := os.OpenFile(filepath.Join(os.TempDir(), "vigiles-egress-test-hosts.lock"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatalf("the test hosts' lock: %v", err)
	}
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatalf("the test hosts' lock: %v", err)
	}
	t.Cleanup(func() { lock.Close() })
	var rb [3]byte
	_, _ = rand.Read(rb[:])
	id := hex.EncodeToString(rb[:])
	h := &testHosts{log: filepath.Join(t.TempDir(), "server.log")}
	hostIf, nsIf := "vgh"+id, "vgn"+id

	// The servers' process is born in the namespace and holds it: the
	// namespace, and the veth's end in it, go when it ends.
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), envChild+"=server", envServerLog+"="+h.log)
	cmd.Stderr = os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWNET, Pdeathsig: syscall.SIGKILL}
	out, _ := cmd.StdoutPipe()
	goW, _ := cmd.StdinPipe()
	runtime.LockOSThread() // Pdeathsig is tied to the starting thread
	err = cmd.Start()
	runtime.UnlockOSThread()
	if err != nil {
		t.Fatalf("starting the test servers: %v", err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	pid := strconv.Itoa(cmd.Process.Pid)
	run := func(args ...string) {
		t.Helper()
		if out, err := exec.Command(args[0], args[1:]...).CombinedOutput(); err != nil {
			t.Fatalf("%s: %v: %s", strings.Join(args, " "), err, out)
		}
	}
	inNs := func(args ...string) { t.Helper(); run(append([]string{"nsenter", "-t", pid, "-n", "ip"}, args...)...) }
	run("ip", "link", "add", hostIf, "type", "veth", "peer", "name", nsIf, "netns", pid)
	t.Cleanup(func() { _ = exec.Command("ip", "link", "del", hostIf).Run() })
	run("ip", "addr", "add", testHostSide+"/24", "dev", hostIf)
	run("ip", "-6", "addr", "add", "2001:db8:76::1/64", "dev", hostIf, "nodad")
	run("ip", "link", "set", hostIf, "up")
	for _, a := range testHostAddrs {
		inNs("addr", "add", a, "dev", nsIf)
	}
	for _, a := range []string{"2001:db8:76::2/64", "2001:db8:76::3/64"} {
		inNs("-6", "addr", "add", a, "dev", nsIf, "nodad")
	}
	inNs("link", "set", nsIf, "up")
	inNs("link", "set", "lo", "up")
	if _, err := goW.Write([]byte("go\n")); err != nil {
		t.Fatalf("starting the test servers: %v", err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || strings.TrimSpace(line) != "READY" {
		t.Fatalf("test servers did not start: %q %v", line, err)
	}
	return h
}

func (h *testHosts) serverLog(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(h.log)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
