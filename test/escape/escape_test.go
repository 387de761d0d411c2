package escape

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

var vigilesBin string

// extra are files the next vigiles call inherits as fds 3, 4, … (a caller
// that leaves descriptors open).
var extra []*os.File

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "vigiles-escape-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Chmod(dir, 0o755)
	vigilesBin = filepath.Join(dir, "vigiles")
	build := exec.Command("go", "build", "-o", vigilesBin, "../../cmd/action")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building vigiles: %v\n%s", err, out)
		os.Exit(1)
	}
	// The lean in-sandbox binaries beside it, as `make build` ships
	// them: the escape suite runs the init and the reaper from them.
	for _, name := range []string{"vigiles-sandbox", "vigiles-reaper"} {
		lean := exec.Command("go", "build", "-o", filepath.Join(dir, name), "../../cmd/"+name)
		lean.Env = build.Env
		if out, err := lean.CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "building %s: %v\n%s", name, err, out)
			os.Exit(1)
		}
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// result is the part of vigiles.run/v1 these tests read.
type result struct {
	Tier     string `json:"tier"`
	Refusal  string `json:"refusal"`
	Error    string `json:"error"`
	ExitCode int    `json:"exitCode"`
	Signal   string `json:"signal"`
	TimedOut bool   `json:"timedOut"`
	LimitHit string `json:"limitHit"`
	Stdout   string `json:"stdout"`
	Stderr   string `json:"stderr"`
	Writes   []struct {
		Path string `json:"path"`
		Op   string `json:"op"`
		From string `json:"from"`
	} `json:"writes"`
	Lingered []string `json:"lingered"`
	raw      string
}

// writeLines are the record's writes, each as "OP PATH", in its order.
func (r result) writeLines() []string {
	var out []string
	for _, w := range r.Writes {
		out = append(out, w.Op+" "+w.Path)
	}
	return out
}

// runner is who runs vigiles: the test's own user, or an unprivileged one.
type runner struct {
	name string
	cred *syscall.Credential
	// owner, when set, owns the work tree (a root caller then runs the
	// sandbox as that owner).
	owner *syscall.Credential
}

// runners lists root and, when the test runs as root, the unprivileged
// user nobody (GitHub's hosted runners run vigiles as a non-root user).
func runners(t *testing.T) []runner {
	t.Helper()
	rs := []runner{{name: "self"}}
	if os.Geteuid() != 0 {
		return rs
	}
	rs[0].name = "root"
	u, err := user.Lookup("nobody")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("no unprivileged user to test with: %v", err)
		}
		t.Logf("no unprivileged user: %v", err)
		return rs
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	nobody := &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
	return append(rs, runner{name: "nobody", cred: nobody, owner: nobody}, runner{name: "root-on-a-tree-nobody-owns", owner: nobody})
}

// requireRoot fails in CI, which runs as root, and skips elsewhere when
// the test is not run as root, saying why it needs root.
func requireRoot(t *testing.T, why string) {
	t.Helper()
	if os.Geteuid() != 0 {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI runs as root, and %s", why)
		}
		t.Skip(why)
	}
}

// requireBwrap fails in CI and skips elsewhere without bubblewrap.
func requireBwrap(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("bwrap"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("bubblewrap is required in CI")
		}
		t.Skip("bubblewrap is not installed; the escape suite needs it")
	}
}

// requireTools fails in CI and skips elsewhere where a program the test
// runs is not installed, naming it.
func requireTools(t *testing.T, tools ...string) {
	t.Helper()
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("%s is required in CI", tool)
			}
			t.Skipf("%s is not installed", tool)
		}
	}
}

// lacking fails the test under CI, where the machine must have what it
// needs (a kernel feature, a file system, a pool set aside), and skips it
// elsewhere, saying what is lacking.
func lacking(t *testing.T, what string) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf("CI=true and this machine lacks %s", what)
	}
	t.Skipf("this machine lacks %s", what)
}

// lackingIn is lacking for t, as a helper that takes only what is lacking
// wants it.
func lackingIn(t *testing.T) func(string) {
	return func(what string) { t.Helper(); lacking(t, what) }
}

// workTree makes a world-readable work tree holding the escape scripts.
func workTree(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "vigiles-escape-wt-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	os.Chmod(dir, 0o755)
	ents, _ := os.ReadDir("scripts")
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join("scripts", e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, e.Name()), b, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func vigiles(t *testing.T, r runner, dir string, env []string, args ...string) result {
	t.Helper()
	res, _ := runVigiles(t, r, dir, env, args...)
	if res.Tier != "confined" {
		t.Fatalf("vigiles %v as %s: tier %s (refusal %q, error %q)", args, r.name, res.Tier, res.Refusal, res.Error)
	}
	return res
}

// vigilesAny is vigiles without the demand that the run be confined: it
// returns the result and the exit status of a refused run too.
func vigilesAny(t *testing.T, r runner, dir string, args ...string) (result, int) {
	t.Helper()
	return runVigiles(t, r, dir, nil, args...)
}

// vigilesAs is the command `vigiles ARGS` in dir as r, with env beside
// PATH, ended with ctx; where r runs on a tree of its owner's, dir is
// given to that owner first.
func vigilesAs(ctx context.Context, r runner, dir string, env []string, args ...string) *exec.Cmd {
	if r.owner != nil {
		filepath.Walk(dir, func(p string, _ os.FileInfo, _ error) error {
			return os.Lchown(p, int(r.owner.Uid), int(r.owner.Gid))
		})
	}
	cmd := exec.CommandContext(ctx, vigilesBin, args...)
	cmd.Env = append([]string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"}, env...)
	cmd.Dir = dir
	if r.cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: r.cred}
	}
	return cmd
}

// runVigiles runs `vigiles run --json --workdir dir ARGS` in dir as r,
// with env beside PATH, ended at 2 minutes, and returns its result and
// exit status.
func runVigiles(t *testing.T, r runner, dir string, env []string, args ...string) (result, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := vigilesAs(ctx, r, dir, env, append([]string{"run", "--json", "--workdir", dir}, args...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.ExtraFiles = extra
	err := cmd.Run()
	var res result
	if jerr := json.Unmarshal(stdout.Bytes(), &res); jerr != nil {
		t.Fatalf("vigiles %v as %s: %v; no JSON result (%v)\nstdout: %s\nstderr: %s", args, r.name, err, jerr, stdout.String(), stderr.String())
	}
	res.raw = stdout.String()
	return res, cmd.ProcessState.ExitCode()
}

// checkAttempts fails on every ESCAPE line and on any expected attempt
// that did not report.
func checkAttempts(t *testing.T, res result, minOK int) {
	t.Helper()
	ok := 0
	for _, line := range strings.Split(res.Stdout, "\n") {
		switch {
		case strings.HasPrefix(line, "ESCAPE:"):
			t.Error(line)
		case strings.HasPrefix(line, "ok:"):
			ok++
		}
	}
	if ok < minOK {
		t.Errorf("only %d attempts reported stopped, want at least %d\nstdout: %s\nstderr: %s", ok, minOK, res.Stdout, res.Stderr)
	}
}

// checkScriptRan is checkAttempts for a script that tries n attempts
// and then prints "ran n": every one of them reported stopped, and the
// run ended as the script did (its last line printed, exit 0, no error
// of vigiles').
func checkScriptRan(t *testing.T, res result, n int) {
	t.Helper()
	checkAttempts(t, res, n)
	if !strings.Contains(res.Stdout, fmt.Sprintf("\nran %d\n", n)) || res.ExitCode != 0 || res.Error != "" {
		t.Errorf("the run did not end as the script did: exit %d, error %q\nstdout: %s\nstderr: %s", res.ExitCode, res.Error, res.Stdout, res.Stderr)
	}
}

func fileHash(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%x", sha256.Sum256(b))
}

func TestEscapeFilesystemWrites(t *testing.T) {
	requireBwrap(t)
	for _, r := range runners(t) {
		t.Run(r.name, func(t *testing.T) {
			dir := workTree(t)
			marker := fmt.Sprintf("/tmp/vigiles-host-marker-%d", time.Now().UnixNano())
			passwd := fileHash(t, "/etc/passwd")
			res := vigiles(t, r, dir, nil, "--env", "HOST_MARKER="+marker, "--", "bash", "fs-write.sh")
			checkAttempts(t, res, 19)
			// /root is the command's throwaway HOME (uid 0's): what it writes there
			// stays in the sandbox.
			for _, p := range []string{"/etc/vigiles-escape", "/usr/vigiles-escape", "/var/lib/vigiles-escape", "/opt/vigiles-escape", "/vigiles-escape", "/root/vigiles-escape", "/var/tmp/vigiles-escape", marker} {
				if _, err := os.Lstat(p); err == nil {
					os.Remove(p)
					t.Errorf("%s appeared on the host", p)
				}
			}
			if fileHash(t, "/etc/passwd") != passwd {
				t.Error("/etc/passwd changed on the host")
			}
			for _, name := range []string{"passwd-link", "marker-link", "fifo-trick"} {
				if _, err := os.Lstat(filepath.Join(dir, name)); err == nil {
					t.Errorf("%s appeared in the host work tree", name)
				}
			}
		})
	}
}

func TestEscapeSecrets(t *testing.T) {
	requireBwrap(t)
	requireRoot(t, "planting canaries in /root, /home and /run needs root")
	canaries := plantCanaries(t)
	var socks []string
	for _, p := range []string{"/run/vigiles-escape-docker.sock", "/tmp/vigiles-escape.sock", "/var/run/vigiles-escape-2.sock"} {
		socks = append(socks, listenUnix(t, p))
	}
	// A daemon's socket outside the masks, open to every uid (a container
	// engine's or LXD's under /var/lib or /var/snap, which a group of the
	// caller's may reach): no variable names it, /proc/net/unix does.
	daemonDir := openTempDir(t, "/var/lib", "vigiles-escape-daemon-")
	daemon := listenUnix(t, filepath.Join(daemonDir, "daemon.sock"))
	if err := os.Chmod(daemon, 0o666); err != nil {
		t.Fatal(err)
	}
	socks = append(socks, daemon)
	// More sockets in a directory of their own than vigiles covers one by
	// one: the directory is masked whole, and the run is not refused.
	manyDir := openTempDir(t, "/var/lib", "vigiles-escape-many-")
	for i := range 600 {
		p := listenUnix(t, filepath.Join(manyDir, fmt.Sprintf("s%d.sock", i)))
		os.Chmod(p, 0o666)
		if i == 599 {
			socks = append(socks, p)
		}
	}
	abstract := fmt.Sprintf("vigiles-escape-%d", time.Now().UnixNano())
	listenUnix(t, "@"+abstract)
	secretEnv := []string{"GITHUB_TOKEN=vigiles-canary-1", "ACTIONS_RUNTIME_TOKEN=vigiles-canary-2",
		"ACTIONS_ID_TOKEN_REQUEST_TOKEN=vigiles-canary-3", "AWS_SECRET_ACCESS_KEY=vigiles-canary-4",
		"NPM_TOKEN=vigiles-canary-5", "DEPLOY_KEY=vigiles-canary-6", "SERVICE_SECRET=vigiles-canary-7"}
	for _, r := range runners(t) {
		t.Run(r.name, func(t *testing.T) {
			dir := workTree(t)
			env := append([]string{}, secretEnv...)
			res := vigiles(t, r, dir, env,
				"--env", "CANARIES="+strings.Join(canaries, " "), "--env", "SOCKETS="+strings.Join(socks, " "),
				"--env", "ABSTRACT="+abstract, "--", "bash", "secrets.sh")
			checkAttempts(t, res, len(canaries)+len(socks)+7)
		})
	}
	t.Run("strict-fs", func(t *testing.T) {
		dir := workTree(t)
		res := vigiles(t, runners(t)[0], dir, secretEnv, "--strict-fs",
			"--env", "CANARIES="+strings.Join(canaries, " "), "--env", "SOCKETS="+strings.Join(socks, " "),
			"--env", "ABSTRACT="+abstract, "--", "bash", "secrets.sh")
		checkAttempts(t, res, len(canaries)+len(socks)+7)
	})
	t.Run("named with --env", func(t *testing.T) {
		cmd := exec.Command(vigilesBin, "run", "--json", "--env", "GITHUB_TOKEN", "--", "true")
		cmd.Env = append(os.Environ(), "GITHUB_TOKEN=vigiles-canary-1")
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		if err == nil || !errorAs(err, &ee) || ee.ExitCode() != 2 || !bytes.Contains(out, []byte("--env-secret")) {
			t.Errorf("--env GITHUB_TOKEN: %v\n%s", err, out)
		}
	})
}

func errorAs(err error, target **exec.ExitError) bool {
	e, ok := err.(*exec.ExitError)
	if ok {
		*target = e
	}
	return ok
}

// plantCanaries writes credential-shaped canary files where a caller's
// secrets live and removes them when the test ends.
func plantCanaries(t *testing.T) []string {
	t.Helper()
	fakeHome := fmt.Sprintf("/home/vigiles-escape-%d", time.Now().UnixNano())
	homes := []string{fakeHome, "/root"}
	var files []string
	var made []string
	for _, h := range homes {
		for _, rel := range []string{".ssh/id_ed25519", ".aws/credentials", ".config/gh/hosts.yml", ".netrc", ".npmrc",
			".docker/config.json", ".kube/config", ".gnupg/private-keys-v1.d/k.key"} {
			p := filepath.Join(h, ".vigiles-escape-"+strings.ReplaceAll(rel, "/", "_"))
			if h == fakeHome {
				p = filepath.Join(h, rel)
			}
			files = append(files, p)
		}
	}
	files = append(files, "/run/secrets/vigiles-escape-canary",
		"/home/runner/work/_temp/_runner_file_commands/set_output_vigiles", "/tmp/vigiles-escape-canary")
	// The other masked directories the host has, readable by every uid:
	// only the mask keeps a file there from the command.
	for _, d := range []string{"/var/tmp", "/mnt", "/media", "/srv"} {
		if fi, err := os.Stat(d); err == nil && fi.IsDir() {
			files = append(files, filepath.Join(d, fmt.Sprintf("vigiles-escape-canary-%d", time.Now().UnixNano())))
		}
	}
	// A GitHub container job's runner directories and HOME, made only
	// where the host has none (and then removed whole).
	for _, top := range []string{"/__w", "/github"} {
		if _, err := os.Lstat(top); err == nil {
			continue
		}
		t.Cleanup(func() { os.RemoveAll(top) })
		f := map[string]string{"/__w": "/__w/_temp/_runner_file_commands/set_env_vigiles", "/github": "/github/home/.ssh/id_vigiles"}[top]
		// Open to every uid, so that only the mask keeps them out.
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	for _, p := range files {
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("vigiles-canary\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		made = append(made, p)
	}
	t.Cleanup(func() {
		for _, p := range made {
			os.Remove(p)
		}
		os.RemoveAll(fakeHome)
		os.RemoveAll("/home/runner/work/_temp/_runner_file_commands/set_output_vigiles")
	})
	return files
}

func listenUnix(t *testing.T, path string) string {
	t.Helper()
	if !strings.HasPrefix(path, "@") {
		os.Remove(path)
	}
	l, err := net.Listen("unix", path)
	if err != nil {
		t.Fatalf("listening on %s: %v", path, err)
	}
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			io.WriteString(c, "vigiles-canary\n")
			c.Close()
		}
	}()
	t.Cleanup(func() { l.Close() })
	return path
}

func TestEscapeProcessesAndKernel(t *testing.T) {
	requireBwrap(t)
	for _, r := range runners(t) {
		t.Run(r.name, func(t *testing.T) {
			dir := workTree(t)
			if os.Geteuid() == 0 {
				b, _ := os.ReadFile("/usr/bin/id")
				p := filepath.Join(dir, "setuid-id")
				os.WriteFile(p, b, 0o755)
				os.Chmod(p, 0o4755)
			}
			// The caller leaves a writable host file and a directory open
			// (fds 3 and 4 of vigiles): neither may reach the hook.
			leakFile := filepath.Join(t.TempDir(), "left-open")
			os.WriteFile(leakFile, []byte("original\n"), 0o666)
			lf, err := os.OpenFile(leakFile, os.O_WRONLY|os.O_APPEND, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer lf.Close()
			ld, err := os.Open("/root")
			if err != nil {
				t.Fatal(err)
			}
			defer ld.Close()
			extra = []*os.File{lf, ld}
			defer func() { extra = nil }()
			res := vigiles(t, r, dir, nil, "--env", fmt.Sprintf("HOST_PID=%d", os.Getpid()), "--", "bash", "-c",
				"echo PWNED >&3; echo PWNED >&4; bash processes.sh")
			checkAttempts(t, res, 28)
			if b, _ := os.ReadFile(leakFile); string(b) != "original\n" {
				t.Errorf("the hook wrote through a descriptor the caller left open: %q", b)
			}
		})
	}
}

func TestEscapeSeccomp(t *testing.T) {
	requireBwrap(t)
	for _, r := range runners(t) {
		t.Run(r.name, func(t *testing.T) {
			dir := workTree(t)
			res := vigiles(t, r, dir, nil, "--", "python3", "seccomp.py")
			checkAttempts(t, res, 26)
		})
	}
}

// TestStdioReopens: a hook that opens /dev/stdin, /dev/stdout or
// /dev/stderr anew (echo msg > /dev/stderr, $(</dev/stdin)), as hooks
// do, gets its own pipes, whatever uid the sandbox runs as: the broker
// made them as root, mode 0600, and a sandbox of another uid was refused
// them (EACCES), where under Claude Code the user owns them.
func TestStdioReopens(t *testing.T) {
	requireBwrap(t)
	for _, r := range runners(t) {
		t.Run(r.name, func(t *testing.T) {
			dir := workTree(t)
			in := filepath.Join(dir, "payload.json")
			if err := os.WriteFile(in, []byte(`{"tool_name":"Bash"}`), 0o644); err != nil {
				t.Fatal(err)
			}
			res := vigiles(t, r, dir, nil, "--stdin", in, "--", "bash", "-c",
				`x=$(</dev/stdin); echo "in:$x" > /dev/stdout; echo err > /dev/stderr; python3 -c 'open("/dev/stderr", "w").write("py\n")'`)
			if res.ExitCode != 0 || res.Stdout != "in:{\"tool_name\":\"Bash\"}\n" || res.Stderr != "err\npy\n" {
				t.Errorf("exit %d, stdout %q, stderr %q", res.ExitCode, res.Stdout, res.Stderr)
			}
		})
	}
}
