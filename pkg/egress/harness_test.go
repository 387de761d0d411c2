package egress

// The namespace harness: TestMain re-executes the test binary as a child in
// fresh user, network and mount namespaces (the stand-in for the sandbox's
// init), selected by an environment variable. The child calls Setup, runs
// probe commands, calls Finish and prints a JSON result.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/vigiles/action/pkg/evidence"
)

const (
	envChild = "VIGILES_EGRESS_TEST_CHILD"
	envSpec  = "VIGILES_EGRESS_TEST_SPEC"
)

func TestMain(m *testing.M) {
	switch os.Getenv(envChild) {
	case "sandbox":
		os.Exit(childSandbox())
	case "ruleset":
		os.Exit(childRuleset())
	case "loopback":
		os.Exit(childLoopback())
	case "nflog-behind":
		os.Exit(childNFLOGBehind())
	case "nflog-sync":
		os.Exit(childNFLOGSync())
	case "loopback-allow-noipv6":
		os.Exit(childLoopbackAllowNoIPv6())
	case "server":
		os.Exit(childServer())
	}
	os.Exit(m.Run())
}

// childSpec is what the parent asks of a sandbox child.
type childSpec struct {
	Policy evidence.EgressPolicy `json:"policy"`
	// Probes are run in order: "sh:SCRIPT" runs bash -c SCRIPT with the
	// session's environment; "dns:HEX" sends a raw DNS packet to the stub
	// from the child itself and waits for an answer.
	Probes []string `json:"probes"`
	// WaitAttach makes the child print READY and wait for a line on stdin
	// (the parent attaches the connector in between).
	WaitAttach bool `json:"waitAttach"`
	// Occupy are UDP addresses the child binds before Setup (to make the
	// DNS stub fail).
	Occupy []string `json:"occupy"`
	// DiscardLogs is how many packet log messages the reader throws away
	// (nflogDiscard).
	DiscardLogs int64 `json:"discardLogs"`
}

type probeResult struct {
	Output string `json:"output"`
	Code   int    `json:"code"`
}

type childResult struct {
	SetupErr  string            `json:"setupErr,omitempty"`
	FinishErr string            `json:"finishErr,omitempty"`
	Env       []string          `json:"env"`
	Egress    []evidence.Egress `json:"egress"`
	Dropped   *evidence.Dropped `json:"dropped"`
	Probes    []probeResult     `json:"probes"`
	Ruleset   string            `json:"ruleset"`
	// SetupTime and FinishTime are how long Setup and Finish took.
	SetupTime  time.Duration `json:"setupTime"`
	FinishTime time.Duration `json:"finishTime"`
	// StubTCPLost and ProxyLost are the connections the stub's TCP side
	// and the proxy count lost once Finish returned.
	StubTCPLost int64 `json:"stubTCPLost"`
	ProxyLost   int64 `json:"proxyLost"`
	// Log is what the session logged.
	Log []string `json:"log"`
	// LogCounted and LogReceived are the packets the rule set counted as
	// it logged them and the log messages the reader received.
	LogCounted  uint64 `json:"logCounted"`
	LogReceived uint64 `json:"logReceived"`
}

func emit(r childResult) int {
	b, _ := json.Marshal(r)
	fmt.Printf("\nRESULT %s\n", b)
	return 0
}

func childSandbox() int {
	var spec childSpec
	if err := json.Unmarshal([]byte(os.Getenv(envSpec)), &spec); err != nil {
		return emit(childResult{SetupErr: "bad spec: " + err.Error()})
	}
	ctx := context.Background()
	for _, a := range spec.Occupy {
		pc, err := net.ListenPacket("udp", a)
		if err != nil {
			return emit(childResult{SetupErr: "occupying " + a + ": " + err.Error()})
		}
		defer pc.Close()
	}
	var logMu sync.Mutex
	var logged []string
	l := &Layer{Logf: func(f string, a ...any) {
		fmt.Fprintf(os.Stderr, f+"\n", a...)
		logMu.Lock()
		logged = append(logged, fmt.Sprintf(f, a...))
		logMu.Unlock()
	}}
	nflogDiscard.Store(spec.DiscardLogs)
	start := time.Now()
	s, err := l.Setup(ctx, spec.Policy)
	setupTime := time.Since(start)
	if err != nil {
		out, _ := exec.Command("nft", "list", "ruleset").CombinedOutput()
		return emit(childResult{SetupErr: err.Error(), Ruleset: string(out)})
	}
	res := childResult{Env: s.Env(), SetupTime: setupTime}
	if err := bindResolvConf(s.ResolvConf()); err != nil {
		return emit(childResult{SetupErr: "resolv.conf: " + err.Error()})
	}
	if spec.WaitAttach {
		fmt.Println("READY")
		if _, err := bufio.NewReader(os.Stdin).ReadString('\n'); err != nil {
			return emit(childResult{SetupErr: "waiting for attach: " + err.Error()})
		}
		if err := s.Connected(); err != nil {
			return emit(childResult{SetupErr: "connected: " + err.Error()})
		}
	}
	for _, p := range spec.Probes {
		res.Probes = append(res.Probes, runProbe(p, s.Env()))
	}
	out, _ := exec.Command("nft", "list", "ruleset").CombinedOutput()
	res.Ruleset = string(out)
	start = time.Now()
	res.Egress, res.Dropped, err = s.Finish()
	res.FinishTime = time.Since(start)
	if err != nil {
		res.FinishErr = err.Error()
	}
	res.LogCounted, res.LogReceived = s.logCounted, s.logReceived
	res.StubTCPLost = s.dns.tcpLost().total()
	if s.proxy != nil {
		res.ProxyLost = s.proxy.lost().total()
	}
	logMu.Lock()
	res.Log = logged
	logMu.Unlock()
	return emit(res)
}

func runProbe(p string, env []string) probeResult {
	kind, arg, _ := strings.Cut(p, ":")
	switch kind {
	case "sh":
		// Room for a flood on a loaded machine (order_test.go's 10,005
		// datagrams under -race took over 20 s with the cores busy, a
		// probe holding thousands of connections over 90 s): a bound on a
		// hung probe, below the child's own (5 minutes, runChild).
		ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, "bash", "-c", arg)
		cmd.Env = append(os.Environ(), env...)
		out, err := cmd.CombinedOutput()
		code := 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		} else if err != nil {
			code = -1
		}
		return probeResult{Output: string(out), Code: code}
	case "dns", "dnsto":
		// dns:HEX asks the stub; dnsto:HOST:PORT/HEX asks HOST:PORT.
		to := "127.0.0.1:53"
		if kind == "dnsto" {
			to, arg, _ = strings.Cut(arg, "/")
		}
		msg, err := hex.DecodeString(arg)
		if err != nil {
			return probeResult{Output: err.Error(), Code: -1}
		}
		c, err := net.Dial("udp", to)
		if err != nil {
			return probeResult{Output: err.Error(), Code: -1}
		}
		defer c.Close()
		_ = c.SetDeadline(time.Now().Add(3 * time.Second))
		if _, err := c.Write(msg); err != nil {
			return probeResult{Output: err.Error(), Code: -1}
		}
		buf := make([]byte, 4096)
		n, err := c.Read(buf)
		if err != nil {
			return probeResult{Output: err.Error(), Code: -1}
		}
		return probeResult{Output: hex.EncodeToString(buf[:n])}
	}
	return probeResult{Output: "unknown probe " + p, Code: -1}
}

// bindResolvConf puts b over /etc/resolv.conf in the child's own mount
// namespace.
func bindResolvConf(b []byte) error {
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("making mounts private: %w", err)
	}
	f, err := os.CreateTemp("", "resolv-")
	if err != nil {
		return err
	}
	// The mount keeps the file; its name goes either way, so that no
	// run of the tests leaves one behind in the host's temporary directory.
	defer os.Remove(f.Name())
	if _, err := f.Write(b); err != nil {
		f.Close()
		return err
	}
	f.Close()
	return unix.Mount(f.Name(), "/etc/resolv.conf", "", unix.MS_BIND, "")
}

// needNamespaces skips (or, under CI=true, fails) when fresh user and
// network namespaces cannot be made here.
func needNamespaces(t *testing.T) {
	t.Helper()
	cmd := exec.Command("/bin/true")
	cmd.SysProcAttr = nsAttr()
	if err := cmd.Run(); err != nil {
		missing(t, fmt.Sprintf("fresh user+network namespaces (%v)", err))
	}
	if _, err := exec.LookPath("nft"); err != nil {
		missing(t, "the nft binary (to read the rule set back)")
	}
}

func missing(t *testing.T, what string) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf("CI=true and this test needs %s", what)
	}
	t.Skipf("needs %s", what)
}

func nsAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{
		Cloneflags:                 syscall.CLONE_NEWUSER | syscall.CLONE_NEWNET | syscall.CLONE_NEWNS,
		UidMappings:                []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getuid(), Size: 1}},
		GidMappings:                []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getgid(), Size: 1}},
		GidMappingsEnableSetgroups: false,
		Pdeathsig:                  syscall.SIGKILL,
	}
}

// runChild runs the test binary as a namespaced child of the given kind
// and returns its result. attach, when set, is called once the child is
// ready, with its pid; what it returns is closed after the child ends.
func runChild(t *testing.T, kind string, spec childSpec, attach func(pid int) (io.Closer, error)) childResult {
	t.Helper()
	spec.WaitAttach = attach != nil
	js, _ := json.Marshal(spec)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), envChild+"="+kind, envSpec+"="+string(js))
	cmd.SysProcAttr = nsAttr()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()

	runtime.LockOSThread() // Pdeathsig follows the thread that started the child
	defer runtime.UnlockOSThread()
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting the namespaced child: %v", err)
	}
	// A bound on a child that hangs, not on how long a probe may take: a
	// probe holding thousands of connections through slirp4netns took
	// over 90 s on a machine loaded eight times over its cores.
	timer := time.AfterFunc(5*time.Minute, func() { _ = cmd.Process.Kill() })
	defer timer.Stop()
	var out bytes.Buffer
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	var closer io.Closer
	for sc.Scan() {
		line := sc.Text()
		out.WriteString(line + "\n")
		if line == "READY" && attach != nil {
			c, err := attach(cmd.Process.Pid)
			if err != nil {
				_ = cmd.Process.Kill()
				_ = cmd.Wait()
				t.Fatalf("attach: %v", err)
			}
			closer = c
			fmt.Fprintln(stdin, "GO")
		}
	}
	err := cmd.Wait()
	if closer != nil {
		closer.Close()
	}
	var res childResult
	for _, line := range strings.Split(out.String(), "\n") {
		if rest, ok := strings.CutPrefix(line, "RESULT "); ok {
			if err := json.Unmarshal([]byte(rest), &res); err != nil {
				t.Fatalf("child result: %v", err)
			}
			return res
		}
	}
	t.Fatalf("child gave no result (%v)\nstdout:\n%s\nstderr:\n%s", err, out.String(), stderr.String())
	return res
}

func writeFileT(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
