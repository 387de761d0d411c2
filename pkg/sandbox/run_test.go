package sandbox

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/sys/unix"

	"github.com/vigiles/action/internal/hostprog"
	"github.com/vigiles/action/pkg/evidence"
	"github.com/vigiles/action/pkg/sandbox/internal/fsx"
	"github.com/vigiles/action/pkg/sandbox/reaper"
)

// TestMain lets the test binary play the init and the reaper: the broker
// re-executes it inside the sandbox.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == initArg {
		// Used only when the broker had a network (cfg.Network): see
		// TestConnectorStopsWhenTheCommandIsDone.
		SetNetwork(fakeNetwork{})
	}
	MaybeInit()
	if len(os.Args) == 3 && os.Args[1] == hopperArg {
		hopper(os.Args[2])
	}
	os.Exit(m.Run())
}

// requireRoot fails in CI (which runs as root) and skips elsewhere when
// the test is not root: what it checks exists for root callers only.
func requireRoot(t testing.TB, why string) {
	t.Helper()
	if os.Geteuid() == 0 {
		return
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("CI runs as root, this test does not (%s)", why)
	}
	t.Skipf("%s; run as root", why)
}

// requireConfinement fails in CI and skips elsewhere when this host cannot
// confine.
func requireConfinement(t testing.TB) {
	t.Helper()
	c := ProbeConfinement(context.Background())
	if c.Confine == Available {
		return
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("confinement is required in CI but %s: %s (fix: %s)", c.Confine, c.Why, c.Fix)
	}
	t.Skipf("this host cannot confine (%s: %s); these tests need bubblewrap with user namespaces", c.Confine, c.Why)
}

// makeTree writes files (path -> content; a trailing "/" makes a dir).
func makeTree(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for p, c := range files {
		full := filepath.Join(dir, p)
		if strings.HasSuffix(p, "/") {
			if err := os.MkdirAll(full, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// treeHash fingerprints every path, mode, link target, content and mtime.
func treeHash(t testing.TB, root string) string {
	t.Helper()
	h := sha256.New()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := os.Lstat(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		fmt.Fprintf(h, "%s %v %d %d\n", rel, info.Mode(), info.Size(), info.ModTime().UnixNano())
		if info.Mode()&fs.ModeSymlink != 0 {
			l, _ := os.Readlink(p)
			fmt.Fprintf(h, "-> %s\n", l)
		} else if info.Mode().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			h.Write(b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%x", h.Sum(nil))
}

func run(t testing.TB, spec Spec) *Result {
	t.Helper()
	if spec.Mode == "" {
		spec.Mode = ModeStrict
	}
	if spec.Timeout == 0 {
		spec.Timeout = 30 * time.Second
	}
	res, err := Run(context.Background(), spec)
	if err != nil {
		t.Fatalf("Run: %v\nstderr: %s", err, res.Stderr)
	}
	return res
}

// fakeBinDir makes a directory for stand-ins of the tools on PATH that
// every uid can use: a root caller starts bwrap as the tree's owner or as
// SandboxUID, never as root (t.TempDir's parent is root's alone).
func fakeBinDir(t testing.TB) string {
	return tempDirIn(t, "", "vigiles-fakebin-", 0o777)
}

// tempDirIn makes a directory with the given mode in parent ("" for the
// temporary directory), removed when the test ends.
func tempDirIn(t testing.TB, parent, prefix string, mode os.FileMode) string {
	t.Helper()
	dir, err := os.MkdirTemp(parent, prefix)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, mode); err != nil {
		t.Fatal(err)
	}
	return dir
}

func sh(script string) []string { return []string{"bash", "-c", script} }

func TestConfinedRunLeavesHostUntouched(t *testing.T) {
	requireConfinement(t)
	dir := makeTree(t, map[string]string{"a.txt": "a", "sub/b.txt": "b", "keep/": "", "exec.sh": "#!/bin/sh\n"})
	if err := os.Symlink("a.txt", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	before := treeHash(t, dir)
	marker := fmt.Sprintf("/tmp/vigiles-host-marker-%d", time.Now().UnixNano())
	home, _ := os.UserHomeDir()
	homeMarker := filepath.Join(home, fmt.Sprintf(".vigiles-marker-%d", time.Now().UnixNano()))
	res := run(t, Spec{Dir: dir, Command: sh(`
		echo x > new.txt; echo y >> a.txt; rm sub/b.txt; mv keep kept; chmod 777 exec.sh
		ln -sf /etc/passwd link; rm -rf sub; mkdir -p deep/er; echo z > deep/er/f
		echo pwned > /etc/vigiles-test 2>/dev/null; echo pwned > ` + marker + ` 2>/dev/null
		echo pwned > ` + homeMarker + ` 2>/dev/null; echo pwned > /usr/vigiles-test 2>/dev/null
		touch -d 2001-01-01 a.txt; exit 0`)})
	if res.Tier != TierConfined || res.ExitCode != 0 {
		t.Fatalf("run: tier %s exit %d stderr %s", res.Tier, res.ExitCode, res.Stderr)
	}
	if after := treeHash(t, dir); after != before {
		t.Error("the host work tree changed")
	}
	for _, p := range []string{"/etc/vigiles-test", "/usr/vigiles-test", marker, homeMarker} {
		if _, err := os.Lstat(p); err == nil {
			os.Remove(p)
			t.Errorf("the command wrote %s on the host", p)
		}
	}
	if len(res.Writes) == 0 {
		t.Error("no writes recorded")
	}
}

func TestWritesExact(t *testing.T) {
	requireConfinement(t)
	for _, method := range []string{"overlay", "copy"} {
		for _, tt := range []struct {
			name   string
			files  map[string]string
			script string
			want   []evidence.Write
		}{
			{"nothing", map[string]string{"a": "1"}, "cat a >/dev/null", []evidence.Write{}},
			{"create", map[string]string{"a": "1"}, "echo hi > out.json", []evidence.Write{{Path: "out.json", Op: "create", Kind: "file"}}},
			{"create in new dir", nil, "mkdir -p out/x && echo 1 > out/x/f", []evidence.Write{{Path: "out/x/f", Op: "create", Kind: "file"}}},
			{"empty dir", nil, "mkdir d", []evidence.Write{{Path: "d", Op: "create", Kind: "dir"}}},
			{"modify", map[string]string{"a": "1"}, "echo 2 >> a", []evidence.Write{{Path: "a", Op: "modify", Kind: "file"}}},
			{"same size same mtime rewrite", map[string]string{"a": "aaaa"},
				"m=$(stat -c %y a); printf bbbb > a; touch -d \"$m\" a", []evidence.Write{{Path: "a", Op: "modify", Kind: "file"}}},
			{"delete", map[string]string{"a": "1", "b": "2"}, "rm a", []evidence.Write{{Path: "a", Op: "delete"}}},
			{"delete dir", map[string]string{"d/x": "1", "d/y": "2"}, "rm -r d",
				[]evidence.Write{{Path: "d", Op: "delete", Was: "dir"}, {Path: "d/x", Op: "delete"}, {Path: "d/y", Op: "delete"}}},
			{"rename", map[string]string{"old": "1"}, "mv old new",
				[]evidence.Write{{Path: "new", Op: "create", Kind: "file", From: "old"}, {Path: "old", Op: "delete"}}},
			{"chmod", map[string]string{"a": "1"}, "chmod 600 a", []evidence.Write{{Path: "a", Op: "modify", Kind: "file"}}},
			{"symlink", map[string]string{"a": "1"}, "ln -s a l", []evidence.Write{{Path: "l", Op: "create", Kind: "symlink", Target: "a"}}},
			{"home", nil, "mkdir -p ~/.cache && echo 1 > ~/.cache/x", []evidence.Write{{Path: "~/.cache/x", Op: "create", Kind: "file"}}},
			{"tmpdir", nil, "echo 1 > $TMPDIR/t; echo 2 > /tmp/u", []evidence.Write{{Path: "$TMPDIR/t", Op: "create", Kind: "file"}, {Path: "$TMPDIR/u", Op: "create", Kind: "file"}}},
			// A tree's own directories named "~" and "$TMPDIR" must not
			// pass for HOME and TMPDIR, which nothing keeps.
			{"tree dirs named like HOME and TMPDIR", nil, `mkdir "~" '$TMPDIR'; echo > "~/x"; echo > '$TMPDIR/y'; echo > ~/h; echo > a`,
				[]evidence.Write{{Path: "./$TMPDIR/y", Op: "create", Kind: "file"}, {Path: "./~/x", Op: "create", Kind: "file"}, {Path: "a", Op: "create", Kind: "file"}, {Path: "~/h", Op: "create", Kind: "file"}}},
			// Names that are not UTF-8 stay apart, exact.
			{"names not UTF-8", nil, `printf x > "$(printf 'bad\377')"; printf x > "$(printf 'bad\376')"; printf x > "$(printf 'bad\357\277\275')"`,
				[]evidence.Write{{Path: "bad\xfe", Op: "create", Kind: "file"}, {Path: "bad\xff", Op: "create", Kind: "file"}, {Path: "bad\uFFFD", Op: "create", Kind: "file"}}},
			{"whiteout-shaped device in HOME", nil, "mknod ~/ghost c 0 0", []evidence.Write{{Path: "~/ghost", Op: "create", Kind: "other"}}},
		} {
			t.Run(method+"/"+tt.name, func(t *testing.T) {
				if tt.files == nil {
					tt.files = map[string]string{"keep": "k"}
				}
				dir := makeTree(t, tt.files)
				res := run(t, Spec{Dir: dir, Command: sh(tt.script), WritesMethod: method})
				if res.ExitCode != 0 {
					t.Fatalf("exit %d: %s", res.ExitCode, res.Stderr)
				}
				if res.WritesMethod != method {
					t.Errorf("writesMethod = %q, want %q", res.WritesMethod, method)
				}
				got := res.Writes
				if method == "copy" {
					got = withoutDirModifies(got)
				}
				sortWrites(tt.want)
				if d := cmp.Diff(tt.want, got); d != "" {
					t.Errorf("writes (-want +got):\n%s", d)
				}
			})
		}
	}
}

// withoutDirModifies drops the parent-directory modifies that the snapshot
// method sees (a directory's mtime changes when an entry does).
func withoutDirModifies(ws []evidence.Write) []evidence.Write {
	out := []evidence.Write{}
	for _, w := range ws {
		if w.Kind == "dir" && w.Op == evidence.OpModify {
			continue
		}
		out = append(out, w)
	}
	return out
}

func TestNullVersusEmpty(t *testing.T) {
	requireConfinement(t)
	dir := makeTree(t, map[string]string{"a": "1"})
	confined := run(t, Spec{Dir: dir, Command: []string{"true"}})
	direct := run(t, Spec{Dir: dir, Command: []string{"true"}, Mode: ModeOff})
	cj, _ := json.Marshal(confined)
	dj, _ := json.Marshal(direct)
	if !bytes.Contains(cj, []byte(`"writes":[]`)) {
		t.Errorf("confined run that wrote nothing: want \"writes\":[] in %s", cj)
	}
	if !bytes.Contains(dj, []byte(`"writes":null`)) || !bytes.Contains(dj, []byte(`"egress":null`)) {
		t.Errorf("direct run: want writes and egress null in %s", dj)
	}
	if direct.Tier != TierDirect {
		t.Errorf("tier = %s", direct.Tier)
	}
}

func TestSecretsInCallerEnvironmentDoNotReachTheCommand(t *testing.T) {
	requireConfinement(t)
	secrets := map[string]string{
		"GITHUB_TOKEN": "ghs_vigilestestsecret1", "ACTIONS_RUNTIME_TOKEN": "vigilestestsecret2",
		"ACTIONS_ID_TOKEN_REQUEST_TOKEN": "vigilestestsecret3", "AWS_SECRET_ACCESS_KEY": "vigilestestsecret4",
		"NPM_TOKEN": "vigilestestsecret5", "MY_SERVICE_KEY": "vigilestestsecret6",
	}
	for k, v := range secrets {
		t.Setenv(k, v)
	}
	dir := makeTree(t, nil)
	res := run(t, Spec{Dir: dir, Command: sh("env; cat /proc/1/environ 2>/dev/null; cat /proc/*/environ 2>/dev/null")})
	for k, v := range secrets {
		if strings.Contains(res.Stdout, v) {
			t.Errorf("%s reached the command", k)
		}
	}
}

// TestPid1AndMountsNameNoSandbox: what a hook reads about its own process tree
// and mounts names no part of vigiles, so that a hook which behaves well
// only when it finds one (grep -r vigiles /proc/1 /proc/self/mountinfo)
// finds none. Pid 1 reads as an init.
func TestPid1AndMountsNameNoSandbox(t *testing.T) {
	requireConfinement(t)
	dir := makeTree(t, nil)
	before := hostMountPoints(t)
	// The host's listening sockets, looked at until the run is over: the
	// sandbox covers those it sees as it is set up.
	// (Stopped on a fatal end of the run too.)
	sockets, watched := map[string]bool{}, make(chan struct{})
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	go func() {
		defer close(watched)
		for {
			addSocketPaths(sockets)
			select {
			case <-ctx.Done():
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}()
	res := run(t, Spec{Dir: dir, Command: sh(`tr '\0' ' ' < /proc/1/cmdline; echo; cat /proc/1/comm; echo ==; ` +
		`cat /proc/1/task/*/comm /proc/self/mountinfo /proc/self/cgroup /proc/*/cmdline; ls -a /run / "$HOME" /tmp; ps -e -o comm,args 2>&1`)})
	stop()
	<-watched
	if res.ExitCode != 0 {
		t.Fatalf("the probe failed: %+v", res)
	}
	head, _, _ := strings.Cut(res.Stdout, "==")
	if head != reaper.Argv0+" \ninit\n" {
		t.Errorf("pid 1's command line and name: %q, want %q and init", head, reaper.Argv0)
	}
	// The host's own mounts are carried into the sandbox's mount table
	// (`--ro-bind / /`, masks over some): a mount another test or job on
	// this host made at a path that names vigiles is theirs, not a tell
	// of the sandbox. Those lines (by mount point, seen on the host before
	// or after the run) are left out. So is the sandbox's mask over a
	// host path that names vigiles (test/escape's sockets and
	// directories in /var/lib, made while this package runs beside it):
	// the line of a mount point that is a path on the host after the run,
	// or a socket the host listened on while it went (or its directory),
	// where nothing else in it names vigiles.
	host := hostMountPoints(t)
	for m := range before {
		host[m] = true
	}
	for _, l := range strings.Split(res.Stdout, "\n") {
		if !strings.Contains(strings.ToLower(l), "vigiles") {
			continue
		}
		f := strings.Fields(l)
		if len(f) > 4 && host[f[4]] {
			continue
		}
		if len(f) > 4 && (sockets[unescapeOctal(f[4])] || hostPath(f[4])) {
			rest := slices.Delete(slices.Clone(f), 4, 5)
			if !strings.Contains(strings.ToLower(strings.Join(rest, " ")), "vigiles") {
				continue
			}
		}
		t.Errorf("the command read a name of vigiles: %q", l)
	}
}

// hostPath says whether the mount point p, as /proc/PID/mountinfo
// escapes it, is a path on the host.
func hostPath(p string) bool {
	_, err := os.Lstat(unescapeOctal(p))
	return err == nil
}

// addSocketPaths adds to set the pathname unix sockets the host listens
// on (/proc/net/unix, whence the sandbox's masks of sockets come) and
// their directories.
func addSocketPaths(set map[string]bool) {
	b, _ := os.ReadFile("/proc/net/unix")
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) == 8 && strings.HasPrefix(f[7], "/") {
			set[f[7]], set[filepath.Dir(f[7])] = true, true
		}
	}
}

// hostMountPoints lists the mount points of this (the host's) mount
// namespace, as /proc/self/mountinfo escapes them.
func hostMountPoints(t *testing.T) map[string]bool {
	b, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) > 4 {
			out[f[4]] = true
		}
	}
	return out
}

func TestTimeoutKillsTheWholeTree(t *testing.T) {
	requireConfinement(t)
	dir := makeTree(t, nil)
	start := time.Now()
	// The main process sleeps 10 minutes, so a run that waited for it
	// instead of killing it at the deadline is told apart by a bound of
	// 2 minutes on a hang, not a measure: a loaded machine's set-up and
	// teardown under -race can take more than 20 s, the old bound.
	res := run(t, Spec{Dir: dir, Timeout: time.Second, Command: sh("(sleep 3; echo late > late.txt) & sleep 600")})
	if !res.TimedOut {
		t.Fatalf("timedOut = false: %+v", res)
	}
	if el := time.Since(start); el > 2*time.Minute {
		t.Errorf("run took %v after a 1s timeout (the command sleeps 10 minutes)", el)
	}
	for _, w := range res.Writes {
		if w.Path == "late.txt" {
			t.Error("a child outlived the deadline")
		}
	}
}

func TestLingerRecordsLeftoverProcesses(t *testing.T) {
	requireConfinement(t)
	dir := makeTree(t, nil)
	res := run(t, Spec{Dir: dir, Linger: 4 * time.Second, // the child's write lands within it, however loaded the machine
		Command: sh("(sleep 0.3; echo child > child.txt; sleep 30) >/dev/null 2>&1 & echo main done")})
	if res.ExitCode != 0 {
		t.Fatalf("exit %d", res.ExitCode)
	}
	found := false
	for _, w := range res.Writes {
		found = found || w.Path == "child.txt"
	}
	if !found {
		t.Errorf("the detached child's write was not recorded: %+v", res.Writes)
	}
	if len(res.Lingered) == 0 || !strings.Contains(strings.Join(res.Lingered, "\n"), "sleep 30") {
		t.Errorf("lingered = %q, want the sleeping child", res.Lingered)
	}
}

// TestLongestTimeoutAndLingerRun: a timeout and a linger whose sum with
// the broker's grace is past time.Duration's range run the command (the
// sum wrapped below 0: the backstop fired at once and the run was killed
// with "did not end after its deadline"); sumDurations stops at the top.
func TestLongestTimeoutAndLingerRun(t *testing.T) {
	if got := sumDurations(math.MaxInt64-time.Second, time.Minute, time.Second); got != math.MaxInt64 {
		t.Errorf("sumDurations past the range = %v, want the longest duration", got)
	}
	if got := sumDurations(time.Second, 2*time.Second); got != 3*time.Second {
		t.Errorf("sumDurations(1s, 2s) = %v", got)
	}
	requireConfinement(t)
	dir := makeTree(t, nil)
	res := run(t, Spec{Dir: dir, Timeout: math.MaxInt64, Linger: time.Minute, Command: sh("echo hi > out.txt")})
	if res.Error != "" || res.ExitCode != 0 || len(res.Writes) != 1 {
		t.Fatalf("exit %d, error %q, writes %+v: want the command run and its write recorded", res.ExitCode, res.Error, res.Writes)
	}
}

// TestLingerListsProcessesThatHideTheirName: a leftover process that empties
// its command line and names itself like a zombie's stat line is listed.
// It must be listed by that name: the forked shell it is until it execs
// is listed by its command line, whose script holds the name too (and
// passed). So the main process exits once the leftover has exec'd (its
// name read with builtins alone), not after a fixed 0.2 s.
func TestLingerListsProcessesThatHideTheirName(t *testing.T) {
	requireConfinement(t)
	dir := makeTree(t, nil)
	res := run(t, Spec{Dir: dir, Linger: 300 * time.Millisecond,
		Command: sh(`ln -s "$(command -v cat)" "$TMPDIR/a) Z b"; mkfifo "$TMPDIR/f"; exec 3<>"$TMPDIR/f"
			(exec -a "" "$TMPDIR/a) Z b" <&3 >/dev/null 2>&1) & p=$!
			until read -r c </proc/$p/comm && [ "$c" = "a) Z b" ]; do sleep 0.01; done; exit 0`)})
	if !slices.ContainsFunc(res.Lingered, func(e string) bool { return strings.HasSuffix(e, ` ["a) Z b"]`) }) {
		t.Errorf("lingered = %q, want the process named \"a) Z b\" with an empty command line", res.Lingered)
	}
}

// TestVanishingHostMounts: bubblewrap binds the host's mounts recursively;
// mounts that come and go meanwhile (containers, network namespaces on a
// busy host) must not fail a run.
func TestVanishingHostMounts(t *testing.T) {
	requireConfinement(t)
	requireRoot(t, "making host mounts needs root")
	// The churn runs in a mount namespace of its own (a copy of the
	// host's, made private), so that it reaches this test's sandboxes and
	// not those of the other packages' tests running meanwhile.
	if os.Getenv("VIGILES_VANISH_CHILD") == "" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestVanishingHostMounts$", "-test.v", "-test.count=1")
		cmd.Env = append(os.Environ(), "VIGILES_VANISH_CHILD=1")
		cmd.SysProcAttr = &syscall.SysProcAttr{Unshareflags: syscall.CLONE_NEWNS} // Go makes / private in it
		out, err := cmd.CombinedOutput()
		t.Logf("in its own mount namespace:\n%s", out)
		if err != nil || !bytes.Contains(out, []byte("--- PASS: TestVanishingHostMounts")) {
			t.Fatalf("the test in its own mount namespace failed: %v", err)
		}
		return
	}
	// A shared mount point, as `ip netns` makes /run/netns: its submounts'
	// removal reaches the copy of the tree bubblewrap is binding.
	base := t.TempDir()
	if err := unix.Mount(base, base, "", unix.MS_BIND, ""); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Unmount(base, unix.MNT_DETACH) })
	if err := unix.Mount("", base, "", unix.MS_SHARED, ""); err != nil {
		t.Fatal(err)
	}
	stop := churn(func(n int) bool {
		d := filepath.Join(base, strconv.Itoa(n%16))
		os.MkdirAll(d, 0o755)
		if err := unix.Mount("tmpfs", d, "tmpfs", 0, "size=4k"); err != nil {
			t.Errorf("mount: %v", err)
			return false
		}
		unix.Unmount(d, unix.MNT_DETACH)
		return true
	})
	dir := makeTree(t, nil)
	for i := 0; i < 40; i++ {
		res, err := Run(context.Background(), Spec{Dir: dir, Mode: ModeStrict, Stdin: strings.NewReader("payload"), Command: sh("cat")})
		if err != nil || res.Stdout != "payload" {
			t.Errorf("run %d: err %v stdout %q", i, err, res.Stdout)
		}
	}
	t.Logf("%d mounts made and removed meanwhile", stop())
}

// churn calls f(0), f(1), … without pause until f says false or the
// returned func is called, which says how many calls there were.
func churn(f func(n int) bool) (stop func() int) {
	done := make(chan struct{})
	churned := make(chan int)
	go func() {
		n := 0
		defer func() { churned <- n }()
		for ; ; n++ {
			select {
			case <-done:
				return
			default:
			}
			if !f(n) {
				return
			}
		}
	}()
	return func() int {
		close(done)
		return <-churned
	}
}

// TestProcessGroupSignalsStayWithTheCommand: kill(0, …) from the command
// reaches its own process group only, never the init or bwrap.
func TestProcessGroupSignalsStayWithTheCommand(t *testing.T) {
	requireConfinement(t)
	dir := makeTree(t, nil)
	res := run(t, Spec{Dir: dir, Command: sh("echo x > a.txt; kill -KILL 0")})
	if res.Error != "" || res.ExitCode != 137 || len(res.Writes) != 1 {
		t.Errorf("kill -KILL 0: error %q exit %d writes %+v, want the command's own SIGKILL and its write", res.Error, res.ExitCode, res.Writes)
	}
	res = run(t, Spec{Dir: dir, Timeout: 5 * time.Second, Command: sh("echo x > a.txt; kill -STOP 0")})
	// The init's deadline ended it, not the broker's backstop (the
	// deadline + 15 s), which kills a stopped init and reports an error,
	// no timeout and nothing it did: what ended it is asserted, not how
	// long that took.
	if res.Error != "" || !res.TimedOut || len(res.Writes) != 1 {
		t.Errorf("kill -STOP 0: error %q timed out %v writes %+v, want the deadline to end it with its record", res.Error, res.TimedOut, res.Writes)
	}
}

// TestLingeredIsBounded: the command chooses how many processes it leaves
// and how long their command lines are; the list and each entry are
// bounded, and a huge list never holds up the run.
func TestLingeredIsBounded(t *testing.T) {
	requireConfinement(t)
	dir := makeTree(t, nil)
	res := run(t, Spec{Dir: dir, Timeout: time.Minute, Command: sh(`long=$(head -c 4096 /dev/zero | tr '\0' a)
		i=0; while [ $i -lt 120 ]; do sh -c 'sleep 30' "$long" & i=$((i+1)); done; sleep 0.5`)})
	if res.Error != "" || res.ExitCode != 0 {
		t.Fatalf("error %q exit %d", res.Error, res.ExitCode)
	}
	if n := len(res.Lingered); n != 101 || !strings.HasPrefix(res.Lingered[100], "… and up to") {
		t.Fatalf("lingered has %d entries, want 100 and a count of the rest", n)
	}
	if e := res.Lingered[0]; len(e) > 300 || !strings.HasSuffix(e, "…") {
		t.Errorf("an entry of %d bytes (%.40q…), want it cut to about 256", len(e), e)
	}
}

// TestLingerListsAProcessWhoseMainThreadEnded: a leftover process whose
// main thread exited while another runs on is still alive, and listed.
func TestLingerListsAProcessWhoseMainThreadEnded(t *testing.T) {
	requireConfinement(t)
	dir := makeTree(t, nil)
	res := run(t, Spec{Dir: dir, Linger: 300 * time.Millisecond, Command: sh(`python3 -c '
import ctypes, platform, threading, time
threading.Thread(target=lambda: time.sleep(30)).start()
ctypes.CDLL(None).syscall(60 if platform.machine() == "x86_64" else 93, 0)  # exit, not exit_group
' & sleep 0.5`)})
	if !strings.Contains(strings.Join(res.Lingered, "\n"), "python3") {
		t.Errorf("lingered = %q, want the python3 whose main thread exited", res.Lingered)
	}
}

// TestCommandCannotEndItsSandbox: a command that fills its process limit
// and then floods pid 1 with signals, or floods it until pid 1 would have
// spent its own CPU limit handling them, leaves a whole run behind.
func TestCommandCannotEndItsSandbox(t *testing.T) {
	requireConfinement(t)
	dir := makeTree(t, nil)
	for _, c := range []struct {
		name   string
		limits Limits
		script string
	}{
		{"pids", Limits{Pids: 40}, `echo x > before.txt
			exec python3 -c '
import os, signal, time
n = 0
while n < 300:
    try:
        pid = os.fork()
    except OSError:
        break
    if pid == 0:
        time.sleep(5)
        os._exit(0)
    n += 1
for _ in range(20000):
    os.kill(1, signal.SIGUSR1)
    os.kill(1, signal.SIGABRT)
print("done")'`},
		{"cpu", Limits{CPUSeconds: 1}, `echo x > before.txt
			exec python3 -c '
import os, signal
kids = []
for _ in range(4):
    pid = os.fork()
    if pid == 0:
        while sum(os.times()[:2]) < 0.8:  # each sender stays under its own limit
            for _ in range(1000):
                os.kill(1, signal.SIGUSR1)
        os._exit(0)
    kids.append(pid)
for pid in kids:
    os.waitpid(pid, 0)
print("done")'`},
	} {
		t.Run(c.name, func(t *testing.T) {
			// Seconds of CPU in all: time enough on a loaded machine.
			res := run(t, Spec{Dir: dir, Limits: c.limits, Timeout: 2 * time.Minute, Command: sh(c.script)})
			if res.Error != "" || res.Stdout != "done\n" {
				t.Fatalf("the run did not survive: error %q exit %d stdout %q stderr %q", res.Error, res.ExitCode, res.Stdout, res.Stderr)
			}
			if len(res.Writes) != 1 || res.Writes[0].Path != "before.txt" {
				t.Errorf("writes = %+v, want before.txt", res.Writes)
			}
		})
	}
}

// TestMountPointParentsCannotHideWrites: the init makes the work tree's
// mount point inside the fresh /tmp; those directories are left out of
// the record, but a command that moves them away and makes the path
// again cannot hide what it writes there.
func TestMountPointParentsCannotHideWrites(t *testing.T) {
	requireConfinement(t)
	// Two levels under /tmp, whatever TMPDIR says: the command moves the
	// work tree's parent away.
	parent, err := os.MkdirTemp("/tmp", "vigiles-mountpoint-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(parent) })
	dir := filepath.Join(parent, "wt")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	res := run(t, Spec{Dir: dir, Command: sh(`top=/tmp/$(echo "$PWD" | cut -d/ -f3); mv "$top" "$top.moved" && mkdir -p "$PWD/.cache" && echo p > "$PWD/.cache/dropper"`)})
	if res.ExitCode != 0 {
		t.Fatalf("exit %d stderr %q", res.ExitCode, res.Stderr)
	}
	want := "$TMPDIR/" + strings.TrimPrefix(dir, "/tmp/") + "/.cache/dropper"
	var got []string
	for _, w := range res.Writes {
		got = append(got, w.Path)
	}
	if !slices.Contains(got, want) {
		t.Errorf("writes = %q, want %s among them", got, want)
	}
	clean := run(t, Spec{Dir: dir, Command: sh("true")})
	if len(clean.Writes) != 0 {
		t.Errorf("a run that writes nothing recorded %+v (the mount point's parents must be left out)", clean.Writes)
	}
}

// TestVanishedMountIsRecognized: the restart takes bwrap's own messages
// for a mount that vanished while it bound the tree, and nothing else.
func TestVanishedMountIsRecognized(t *testing.T) {
	for msg, want := range map[string]bool{
		`bwrap: Can't bind mount /oldroot/ on /newroot/: Unable to apply mount flags: remount "/newroot/run/netns/vgt-d16832": No such file or directory`: true,
		`bwrap: Can't bind mount /oldroot/ on /newroot/: Unable to apply mount flags: remount "/newroot/tmp/x/9": Invalid argument`:                       true,
		`bwrap: Can't bind mount /oldroot/home/u/w on /newroot/run/vigiles/lower: No such file or directory`:                                              true,
		`bwrap: Can't mkdir /var/lib/x/home: Read-only file system`:                                                                                       true,
		`bwrap: Can't bind mount /oldroot/dev/null on /newroot/var/lib/x/daemon.sock: Unable to find "/newroot/var/lib/x/daemon.sock" in mount table`:     true,
		`bwrap: Can't create file at /var/lib/x/daemon.sock: Read-only file system`:                                                                       true,
		`bwrap: No permissions to creating new namespace, likely because the kernel does not allow non-privileged user namespaces`:                        false,
		`bwrap: Can't mount proc on /newroot/proc: Operation not permitted`:                                                                               false,
		`bwrap: execvp /run/vigiles/bin/vigiles: No such file or directory`:                                                                               false,
	} {
		if got := isVanishedMount([]byte(msg)); got != want {
			t.Errorf("isVanishedMount(%q) = %v, want %v", msg, got, want)
		}
	}
}

// TestStdinReplay: stdin is given again for a restart only where it can
// be: nil, a file bwrap passes on unread, or a seekable reader put back.
func TestStdinReplay(t *testing.T) {
	r := strings.NewReader("payload")
	r.Seek(2, io.SeekStart) // the caller had already read some
	replay := stdinReplay(r)
	io.ReadAll(r)
	if replay == nil || replay() != nil {
		t.Fatal("a strings.Reader must be replayable")
	}
	if rest, _ := io.ReadAll(r); string(rest) != "yload" {
		t.Errorf("replayed %q, want %q", rest, "yload")
	}
	if stdinReplay(nil) == nil || stdinReplay(os.Stdin) == nil {
		t.Error("nil and *os.File need no rewinding")
	}
	if stdinReplay(io.MultiReader(strings.NewReader("x"))) != nil {
		t.Error("a reader that cannot seek cannot be given again")
	}
}

func TestOutputCapAndEncoding(t *testing.T) {
	requireConfinement(t)
	dir := makeTree(t, nil)
	res := run(t, Spec{Dir: dir, OutputCap: 1000, Command: sh("head -c 5000 /dev/zero | tr '\\0' a; printf '\\377\\376\\033[31m' >&2")})
	if !res.StdoutTruncated || len(res.StdoutBytes()) != 1000 {
		t.Errorf("stdout: truncated=%v len=%d", res.StdoutTruncated, len(res.StdoutBytes()))
	}
	if res.StderrEncoding != "base64" {
		t.Errorf("non-UTF-8 stderr: encoding %q", res.StderrEncoding)
	}
}

func TestStdinAndExitCode(t *testing.T) {
	requireConfinement(t)
	dir := makeTree(t, nil)
	res := run(t, Spec{Dir: dir, Stdin: strings.NewReader(`{"tool_name":"Bash"}`), Command: sh("cat; exit 3")})
	if res.ExitCode != 3 || res.Stdout != `{"tool_name":"Bash"}` {
		t.Errorf("exit %d stdout %q", res.ExitCode, res.Stdout)
	}
	for _, mode := range []Mode{ModeStrict, ModeOff} {
		res = run(t, Spec{Dir: dir, Mode: mode, Command: []string{"no-such-command-vigiles"}})
		if res.ExitCode != 127 || res.Error != "" || !strings.Contains(res.Stderr, "no-such-command-vigiles") {
			t.Errorf("%s: a missing command is the command's result (127, on stderr), got exit %d error %q stderr %q", mode, res.ExitCode, res.Error, res.Stderr)
		}
	}
}

// TestCommandStartsAsAShellWouldStartIt covers the direct exec of a run
// bounded by a pids cgroup and the shell's exec alike: a script without a
// #! line runs as a shell script, a file that is not executable is 126.
func TestCommandStartsAsAShellWouldStartIt(t *testing.T) {
	requireConfinement(t)
	dir := makeTree(t, map[string]string{"plain.sh": "echo plain $# \"$1\"\n", "noexec": "#!/bin/sh\necho no\n"})
	if err := os.Chmod(filepath.Join(dir, "plain.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	res := run(t, Spec{Dir: dir, Command: []string{"./plain.sh", "a b"}})
	if res.ExitCode != 0 || res.Stdout != "plain 1 a b\n" {
		t.Errorf("script without #!: exit %d stdout %q stderr %q", res.ExitCode, res.Stdout, res.Stderr)
	}
	res = run(t, Spec{Dir: dir, Command: []string{"./noexec"}})
	if res.ExitCode != 126 || res.Error != "" {
		t.Errorf("not executable: exit %d error %q stderr %q, want 126", res.ExitCode, res.Error, res.Stderr)
	}
}

// TestPidsCgroupLeavesTheBrokerOut: a root caller's run is born in its
// pids and memory cgroups (on cgroup v1, by the forking thread joining
// them alone), which the host sees the running command in, no thread of
// the broker stays inside, and the cgroups are gone afterwards.
func TestPidsCgroupLeavesTheBrokerOut(t *testing.T) {
	requireConfinement(t)
	requireRoot(t, "the pids cgroup is made for root callers only")
	before := threadCgroups(t)
	dir := makeTree(t, nil)
	// The command's cgroups as the host sees them, read while it runs.
	// The command lives 2 s: time for a scan of /proc to find it on a
	// loaded machine, under the race detector.
	marker := fmt.Sprintf("0.0000%d", os.Getpid()) // sleep 2 and a moment more
	seen := make(chan string, 1)
	go func() {
		defer close(seen)
		for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
			if pid := findProcess("sleep\x002\x00" + marker + "\x00"); pid != "" {
				if b, err := os.ReadFile("/proc/" + pid + "/cgroup"); err == nil {
					seen <- string(b)
					return
				}
			}
		}
	}()
	res := run(t, Spec{Dir: dir, Command: []string{"sleep", "2", marker}})
	if res.ExitCode != 0 {
		t.Fatalf("exit %d stderr %q", res.ExitCode, res.Stderr)
	}
	cgs := <-seen
	if cgs == "" {
		t.Fatal("never saw the command running")
	}
	// On cgroup v1 (these machines) every root caller's run has both; on
	// v2 only a --root-sandbox run does (see newRunCgroup). The pids limit
	// holds the command alone, in a child of the run's cgroup, where the
	// init and bwrap are not.
	for c, tail := range map[string]string{"pids": "/" + commandCgroup, "memory": ""} {
		if _, err := os.Stat(filepath.Join("/sys/fs/cgroup", c, "tasks")); err == nil && !regexp.MustCompile(`(?m)^\d+:`+c+`:/(.*/)?vigiles-ns\d+-\d+-\d+-\d+`+tail+`$`).MatchString(cgs) {
			t.Errorf("the command is not in the run's %s cgroup%s:\n%s", c, tail, cgs)
		}
	}
	for tid, cg := range threadCgroups(t) {
		if strings.Contains(cg, "vigiles-") {
			t.Errorf("thread %s of the broker is still in a run's cgroup: %s", tid, cg)
		}
		if b, ok := before[tid]; ok && b != cg {
			t.Errorf("thread %s moved from %s to %s", tid, b, cg)
		}
	}
	if ms := leftCgroups(); len(ms) != 0 {
		t.Errorf("cgroups left behind: %v", ms)
	}
}

// TestRunMemoryCap: a root caller's run is held by a memory cgroup that
// bounds all its processes together, where RLIMIT_AS bounds each alone:
// three processes of 128 MiB each outgrow a 192 MiB run and one of them is
// killed, named in the result; with room for all three, nothing is.
// (test/escape's TestResourceLimits runs it as the owner of a tree too.)
func TestRunMemoryCap(t *testing.T) {
	requireConfinement(t)
	requireRoot(t, "the memory cgroup is made for root callers only")
	dir := makeTree(t, nil)
	// dd holds a block-sized buffer, filled from /dev/zero, for each of
	// its reads: 128 MiB of touched memory per process for a while.
	script := `for i in 1 2 3; do dd if=/dev/zero of=/dev/null bs=128M count=40 2>/dev/null & done; wait; echo done`
	for _, c := range []struct {
		name  string
		limit uint64
		hit   string
	}{
		{"over", 192 << 20, "memory"},
		{"within", 1 << 30, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := run(t, Spec{Dir: dir, Limits: Limits{RunMemoryBytes: c.limit}, Timeout: 2 * time.Minute, Command: sh(script)})
			if res.Error != "" || res.Tier != TierConfined {
				t.Fatalf("tier %s error %q stderr %q", res.Tier, res.Error, res.Stderr)
			}
			if res.LimitHit != c.hit {
				t.Errorf("limitHit = %q, want %q (stdout %q stderr %q)", res.LimitHit, c.hit, res.Stdout, res.Stderr)
			}
		})
	}
	// Memory the command keeps where no process maps it (a memfd, held
	// by a small shell) must not get vigiles' own init chosen by the OOM
	// killer: the command's processes go first, and the record is kept.
	t.Run("memfd", func(t *testing.T) {
		script := `echo hi > written.txt; exec python3 -c 'import os
fd = os.memfd_create("m", 0)
os.dup2(fd, 3)
os.execvp("sh", ["sh", "-c", "dd if=/dev/zero bs=1M count=200 >&3 2>/dev/null; echo filled"])'`
		res := run(t, Spec{Dir: dir, Limits: Limits{RunMemoryBytes: 128 << 20}, Timeout: 2 * time.Minute, Command: sh(script)})
		if res.Error != "" || res.Tier != TierConfined {
			t.Fatalf("the run lost its record: tier %s error %q stderr %q", res.Tier, res.Error, res.Stderr)
		}
		if res.LimitHit != "memory" || len(res.Writes) != 1 || res.Writes[0].Path != "written.txt" {
			t.Errorf("limitHit %q writes %+v, want memory and written.txt", res.LimitHit, res.Writes)
		}
	})
	// Files in scratch outlive their writers: the scratch is kept below
	// the memory limit, so it fills first and the record is made.
	t.Run("scratch", func(t *testing.T) {
		res := run(t, Spec{Dir: dir, Limits: Limits{RunMemoryBytes: 128 << 20}, Timeout: 2 * time.Minute,
			Command: sh(`echo hi > written.txt; dd if=/dev/zero of=/tmp/big bs=1M count=200 2>/dev/null; exit 0`)})
		if res.Error != "" || res.Tier != TierConfined {
			t.Fatalf("the run lost its record: tier %s error %q stderr %q", res.Tier, res.Error, res.Stderr)
		}
		if res.LimitHit != "scratch" {
			t.Errorf("limitHit %q, want scratch", res.LimitHit)
		}
	})
	// So do files without data: their inodes are memory too.
	t.Run("inodes", func(t *testing.T) {
		res := run(t, Spec{Dir: dir, Limits: Limits{RunMemoryBytes: 128 << 20}, Timeout: 2 * time.Minute,
			Command: sh(`echo hi > written.txt; exec python3 -c 'import os
for i in range(400000):
    try:
        os.mkdir("/tmp/d%d" % i)
    except OSError:
        break
print(i)'`)})
		if res.Error != "" || res.Tier != TierConfined {
			t.Fatalf("the run lost its record: tier %s error %q stderr %.300q", res.Tier, res.Error, res.Stderr)
		}
		if res.LimitHit != "scratch" || len(res.Writes) < 1000 {
			t.Errorf("limitHit %q, %d writes: want scratch and the directories recorded", res.LimitHit, len(res.Writes))
		}
	})
	if ms := leftCgroups(); len(ms) != 0 {
		t.Errorf("cgroups left behind: %v", ms)
	}
}

// findProcess returns the pid of a process whose /proc/PID/cmdline holds
// cmdline, "" when there is none.
func findProcess(cmdline string) string {
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		if b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline"); err == nil && strings.Contains(string(b), cmdline) {
			return e.Name()
		}
	}
	return ""
}

// threadCgroups maps each thread of this process to its pids and memory
// cgroup lines.
func threadCgroups(t *testing.T) map[string]string {
	out := map[string]string{}
	ents, err := os.ReadDir("/proc/self/task")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		b, err := os.ReadFile("/proc/self/task/" + e.Name() + "/cgroup")
		if err != nil {
			continue // the thread ended
		}
		for _, line := range strings.Split(string(b), "\n") {
			if strings.Contains(line, ":pids:") || strings.Contains(line, ":memory:") || strings.HasPrefix(line, "0::") {
				out[e.Name()] += line + "\n"
			}
		}
	}
	return out
}

func TestRefusesWithoutConfinement(t *testing.T) {
	// No bwrap: an untrusted run must refuse, naming the fix.
	hostprog.SetDirsForTest(t, t.TempDir())
	res, err := runConfined(context.Background(), Spec{Command: []string{"true"}, Dir: t.TempDir()}, "", "/", nil, &Result{})
	if err == nil || res.Tier != TierRefused || !strings.Contains(res.Refusal, "bubblewrap") {
		t.Fatalf("got tier %s refusal %q err %v", res.Tier, res.Refusal, err)
	}
	if res.Writes != nil || res.ExitCode != 125 {
		t.Errorf("a refused run must record nothing and exit 125: %+v", res)
	}
}

// killRole kills, from outside, this test's process in the given
// in-sandbox role (initArg, reaper.Argv0) once a process whose command line
// holds busy runs too (the command has got that far, however loaded the
// machine); the channel closes when that is done (or after 20 s without
// one).
func killRole(t *testing.T, role, busy string) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		deadline := time.Now().Add(20 * time.Second)
		for time.Now().Before(deadline) {
			if pid := findRole(t, role); pid > 0 && findRole(t, busy) > 0 {
				syscallKill(pid)
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	}()
	return done
}

// TestKilledReaperKeepsTheRecord kills the command's pid 1 from outside
// while the command runs: the run is failed, and keeps the writes the
// command made before (a command that ends its own sandbox must not erase
// its record that way).
func TestKilledReaperKeepsTheRecord(t *testing.T) {
	requireConfinement(t)
	dir := makeTree(t, nil)
	done := killRole(t, reaper.Argv0, "sleep\x005\x00") // made.txt is written by then
	res, err := Run(context.Background(), Spec{Dir: dir, Mode: ModeStrict, Timeout: 20 * time.Second, Command: sh("echo x > made.txt; sleep 5")})
	<-done
	if err == nil || !strings.Contains(res.Error, "reaper") {
		t.Fatalf("a run whose pid 1 was killed must be failed: err %v result %+v", err, res)
	}
	if res.ExitCode != 125 || len(res.Writes) != 1 || res.Writes[0].Path != "made.txt" {
		t.Errorf("the failed run must keep the record made before: exit %d writes %+v", res.ExitCode, res.Writes)
	}
}

// TestKilledInitIsAFailedRun kills the init from outside while the command
// runs: the run must be reported as failed, never as clean.
func TestKilledInitIsAFailedRun(t *testing.T) {
	requireConfinement(t)
	dir := makeTree(t, nil)
	done := killRole(t, initArg, "sleep\x005\x00")
	res, err := Run(context.Background(), Spec{Dir: dir, Mode: ModeStrict, Timeout: 20 * time.Second, Command: sh("rm -f x; sleep 5")})
	<-done
	if err == nil {
		t.Fatalf("a run whose init was killed returned no error: %+v", res)
	}
	if res.Writes != nil || res.ExitCode != 125 {
		t.Errorf("a failed run must not carry a record or the command's status: writes %v exit %d", res.Writes, res.ExitCode)
	}
}

// findRole finds the descendant of this test process (other packages'
// tests run at the same time) in the given in-sandbox role (initArg,
// reaper.Argv0), or whose command line starts with the NUL-separated words
// of role. bwrap's own command line ends with the init's: only a command
// line that starts with the role's counts.
func findRole(t *testing.T, role string) int {
	// The init is told by its first argument (its binary is exec'd through
	// /proc, by descriptor); the reaper by its whole command line.
	match := func(b []byte) bool { return bytes.HasPrefix(b, []byte(role)) }
	switch role {
	case reaper.Argv0:
		match = func(b []byte) bool { return string(b) == reaper.Argv0+"\x00" }
	case initArg:
		match = func(b []byte) bool {
			_, args, _ := bytes.Cut(b, []byte{0})
			return bytes.HasPrefix(args, []byte(role+"\x00"))
		}
	}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err != nil || !match(b) {
			continue
		}
		var pid int
		fmt.Sscan(e.Name(), &pid)
		for p := pid; p > 1; p = parentOf(p) {
			if p == os.Getpid() {
				return pid
			}
		}
	}
	return 0
}

func parentOf(pid int) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	var state string
	var ppid int
	fmt.Sscan(s[i+1:], &state, &ppid)
	return ppid
}

// TestBwrapThatCannotConfineRefuses puts a bwrap on PATH that fails the way
// a host without user namespaces does: the run must refuse and name the
// fix, and nothing must run.
func TestBwrapThatCannotConfineRefuses(t *testing.T) {
	bin := fakeBinDir(t)
	script := "#!/bin/sh\necho 'bwrap: No permissions to create new namespace, likely because the kernel does not allow non-privileged user namespaces.' >&2\nexit 1\n"
	if err := os.WriteFile(filepath.Join(bin, "bwrap"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+":"+os.Getenv("PATH"))
	hostprog.SetDirsForTest(t, append([]string{bin}, hostprog.Dirs...)...)
	resetProbe()
	t.Cleanup(resetProbe)
	dir := makeTree(t, nil)
	// bwrap may end before the config is sent or after it (a broken pipe
	// or an empty result): both must refuse the same way. One run hits the
	// first only now and then, so make several.
	for i := 0; i < 30; i++ {
		resetProbe() // else the cached probe refuses before bwrap starts
		res, err := Run(context.Background(), Spec{Dir: dir, Command: sh("echo ran > ran.txt")})
		if err == nil || res.Tier != TierRefused {
			t.Fatalf("run %d: got tier %s err %v", i, res.Tier, err)
		}
		for _, want := range []string{"No permissions to create new namespace", "apparmor_restrict_unprivileged_userns", "--sandbox off"} {
			if !strings.Contains(res.Refusal, want) {
				t.Fatalf("run %d: refusal %q does not mention %q", i, res.Refusal, want)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "ran.txt")); err == nil {
		t.Error("the command ran")
	}
}

// TestLargeTreeOneWrite: a run in a 100,000-file tree that writes one file
// reports exactly that one write (the time it takes is a benchmark's
// business: see docs/performance.md).
func TestLargeTreeOneWrite(t *testing.T) {
	requireConfinement(t)
	if testing.Short() {
		t.Skip("-short: building a 100,000-file tree")
	}
	dir := t.TempDir()
	for i := 0; i < 100; i++ {
		sub := filepath.Join(dir, fmt.Sprintf("d%03d", i))
		if err := os.Mkdir(sub, 0o755); err != nil {
			t.Fatal(err)
		}
		for j := 0; j < 1000; j++ {
			if err := os.WriteFile(filepath.Join(sub, fmt.Sprintf("f%04d", j)), nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	res := run(t, Spec{Dir: dir, Command: sh("echo 1 > d050/new.txt")})
	want := []evidence.Write{{Path: "d050/new.txt", Op: "create", Kind: "file"}}
	if d := cmp.Diff(want, res.Writes); d != "" {
		t.Errorf("writes (-want +got):\n%s", d)
	}
}

// TestTooSmallLimitsAreRefused: a limit below what the sandbox's own
// processes need would end the run, not the command; it is refused, with
// the reason in the result's refusal, before anything starts.
func TestTooSmallLimitsAreRefused(t *testing.T) {
	for _, lim := range []Limits{{Pids: MinPids - 1}, {RunMemoryBytes: MinRunMemory - 1}} {
		res, err := Run(context.Background(), Spec{Dir: t.TempDir(), Command: []string{"true"}, Limits: lim})
		if err == nil || res.Tier != TierRefused || !strings.Contains(res.Refusal, "the sandbox itself needs") || res.Error != "" {
			t.Errorf("limits %+v: tier %s refusal %q err %v, want refused", lim, res.Tier, res.Refusal, err)
		}
	}
}

// TestRunMemoryAskedForAndNotHeldIsRefused: a whole-run memory limit the
// caller asked for (--limit-run-memory, limits.run-memory) that no memory
// cgroup can hold refuses the run, naming the fix, rather than running it
// bounded per process only while the policy says otherwise. The default
// limit, not asked for, lets it run (doctor's memory-cgroup says so).
func TestRunMemoryAskedForAndNotHeldIsRefused(t *testing.T) {
	requireConfinement(t)
	// No memory controller here: a v1 hierarchy that lists nothing (on
	// cgroup v2, or as another user than root, none is made for this run
	// anyway).
	defer func(r string) { v1MemoryRoot = r }(v1MemoryRoot)
	v1MemoryRoot = t.TempDir()
	res, err := Run(context.Background(), Spec{Dir: t.TempDir(), Command: []string{"true"}, Limits: Limits{RunMemoryBytes: 128 << 20}})
	if err == nil || res.Tier != TierRefused || !strings.Contains(res.Refusal, "no memory cgroup can hold it here") || !strings.Contains(res.Refusal, "fix: drop the limit") {
		t.Errorf("tier %s refusal %q err %v, want refused naming the fix", res.Tier, res.Refusal, err)
	}
	res, err = Run(context.Background(), Spec{Dir: t.TempDir(), Command: []string{"true"}})
	if err != nil || res.Tier != TierConfined {
		t.Errorf("the default limit: tier %s refusal %q err %v, want confined", res.Tier, res.Refusal, err)
	}
}

// TestRunMemoryStaysUnderTheCallersLimit: a run's memory cgroup is made
// below the caller's own, so a limit the caller is under (a systemd unit's,
// a container's) holds the run too; made at the hierarchy's root, a run
// could use memory its caller may not.
func TestRunMemoryStaysUnderTheCallersLimit(t *testing.T) {
	requireConfinement(t)
	requireRoot(t, "moving this process between memory cgroups needs root")
	caller, _, err := makeCgroup(v1MemoryRoot, fmt.Sprintf("vigiles-%d-caller", os.Getpid()),
		[]cgroupFile{{name: "memory.limit_in_bytes", value: strconv.Itoa(1 << 30)}, {name: "memory.memsw.limit_in_bytes", value: strconv.Itoa(1 << 30), optional: true}})
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("no memory cgroup: %v", err)
		}
		t.Skipf("no cgroup v1 memory hierarchy here: %v", err)
	}
	home, ok := ownCgroup(v1MemoryRoot)
	if !ok {
		t.Fatal("this process's memory cgroup is not to be found")
	}
	// The OOM killer weighs a task by its whole RSS, wherever its pages
	// are charged, plus its oom_score_adj times the cgroup's limit: this
	// test binary under -race holds about 500 MB, and the command, at
	// 1000, outweighs it only where the limit is well above that (at 256
	// MiB the binary was the one killed, now and then). So a limit of
	// 1 GiB, and 1.5 GiB asked for, under the run's own 4 GiB; and what
	// the binary no longer uses is handed back first.
	runtime.GC()
	debug.FreeOSMemory()
	if err := writeControl(filepath.Join(caller, "cgroup.procs"), strconv.Itoa(os.Getpid())); err != nil {
		os.Remove(caller)
		t.Fatal(err)
	}
	defer func() {
		writeControl(filepath.Join(home, "cgroup.procs"), strconv.Itoa(os.Getpid()))
		removeCgroup(caller, 5*time.Second)
	}()
	dir := makeTree(t, nil)
	res := run(t, Spec{Dir: dir, Timeout: 2 * time.Minute, Command: sh(`exec python3 -c 'b = bytearray(1536 << 20); print("allocated")'`)})
	if strings.Contains(res.Stdout, "allocated") || res.LimitHit != "memory" {
		t.Errorf("1.5 GiB allocated under a caller limited to 1 GiB: exit %d limitHit %q stdout %q", res.ExitCode, res.LimitHit, res.Stdout)
	}
}

// leftCgroups lists the run cgroups of this process still in the pids and
// memory hierarchies, wherever they were made (below the caller's own),
// after up to 2 minutes for one whose last process was slow to leave
// (which the broker then removes in the background): a bound on a hang,
// which a passing run does not wait out, and which a loaded machine's
// slow teardown of a killed command does not reach.
func leftCgroups() []string {
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(50 * time.Millisecond) {
		if out := runCgroupsLeft(); len(out) == 0 || time.Now().After(deadline) {
			return out
		}
	}
}

func runCgroupsLeft() []string {
	var out []string
	prefix := strings.TrimSuffix(cgroupName(0), "0")
	for _, root := range []string{v1PidsRoot, v1MemoryRoot} {
		filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || !d.IsDir() {
				return nil
			}
			if strings.HasPrefix(d.Name(), prefix) {
				if _, err := strconv.Atoi(strings.TrimPrefix(d.Name(), prefix)); err == nil {
					out = append(out, p)
				}
				return filepath.SkipDir
			}
			return nil
		})
	}
	return out
}

// TestRootCallerSandboxIsNotRoot: a root caller's sandbox for a root-owned
// work tree runs as SandboxUID with the tree id-mapped: the command is uid 0
// of its namespace, reads and changes the tree's root-only files (in the
// overlay, recorded), and cannot read a root-only file anywhere else on the
// host. --root-sandbox (RootSandbox), the explicit opt-out, can.
func TestRootCallerSandboxIsNotRoot(t *testing.T) {
	requireConfinement(t)
	requireRoot(t, "only a root caller's sandbox is id-mapped")
	// Open to all: what keeps the file from the sandbox is its own mode.
	secret := filepath.Join(tempDirIn(t, "/var/lib", "vigiles-test-secret-", 0o755), "token")
	if err := os.WriteFile(secret, []byte("root-only-secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	dir := makeTree(t, map[string]string{"private.txt": "mine\n"})
	if err := os.Chmod(filepath.Join(dir, "private.txt"), 0o600); err != nil {
		t.Fatal(err)
	}
	script := `id -u; cat private.txt; echo more >> private.txt; echo new > new.txt; cat ` + secret + `; tr -s ' ' < /proc/self/uid_map; exit 0`
	res := run(t, Spec{Dir: dir, Command: sh(script)})
	if res.Error != "" || res.Tier != TierConfined {
		t.Fatalf("tier %s error %q refusal %q stderr %q", res.Tier, res.Error, res.Refusal, res.Stderr)
	}
	var hostUID uint32
	if n, _ := fmt.Sscanf(res.Stdout, "0\nmine\n 0 %d 1\n", &hostUID); n != 1 || hostUID < SandboxUID || hostUID >= SandboxUID+SandboxUIDs {
		t.Errorf("stdout %q, want uid 0, the tree's root-only file, and uid 0 mapped to a SandboxUID uid", res.Stdout)
	}
	if !strings.Contains(res.Stderr, "Permission denied") {
		t.Errorf("reading a root-only host file: stderr %q, want Permission denied", res.Stderr)
	}
	want := []evidence.Write{{Path: "new.txt", Op: "create", Kind: "file"}, {Path: "private.txt", Op: "modify", Kind: "file"}}
	if d := cmp.Diff(want, res.Writes); d != "" {
		t.Errorf("writes (-want +got):\n%s", d)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "private.txt")); string(b) != "mine\n" {
		t.Errorf("the host's file changed: %q", b)
	}

	res = run(t, Spec{Dir: dir, RootSandbox: true, Command: sh(`cat ` + secret)})
	if res.Tier != TierConfined || res.Stdout != "root-only-secret\n" {
		t.Errorf("--root-sandbox: tier %s stdout %q stderr %q; want the host's root (what the opt-out gives up)", res.Tier, res.Stdout, res.Stderr)
	}
}

// TestTreeThatCannotBeIDMappedIsRefused: a root-owned tree on a file system
// without id-mapped mounts (ramfs) is refused, naming the fix, rather than
// run as the host's root; with the opt-out it runs.
func TestTreeThatCannotBeIDMappedIsRefused(t *testing.T) {
	requireConfinement(t)
	requireRoot(t, "only a root caller's sandbox is id-mapped, and mounting ramfs needs root")
	dir := t.TempDir()
	if err := unix.Mount("ramfs", dir, "ramfs", 0, "mode=0755"); err != nil {
		t.Fatalf("mounting ramfs: %v", err)
	}
	t.Cleanup(func() { unix.Unmount(dir, unix.MNT_DETACH) })
	res, err := Run(context.Background(), Spec{Dir: dir, Mode: ModeStrict, Timeout: 30 * time.Second, Command: sh(`echo ran`)})
	if !errors.Is(err, ErrRefused) || res.Tier != TierRefused {
		t.Fatalf("err %v tier %s, want a refusal", err, res.Tier)
	}
	for _, w := range []string{"id-mapp", "--root-sandbox", "non-root owner"} {
		if !strings.Contains(res.Refusal, w) {
			t.Errorf("refusal %q does not name %q", res.Refusal, w)
		}
	}
	if res.ExitCode != 125 {
		t.Errorf("exit code %d, want 125 (refused)", res.ExitCode)
	}
	res = run(t, Spec{Dir: dir, RootSandbox: true, Command: sh(`echo ran > out.txt`)})
	if res.Tier != TierConfined || len(res.Writes) != 1 {
		t.Errorf("--root-sandbox: tier %s error %q writes %v", res.Tier, res.Error, res.Writes)
	}
}

// TestMountsInsideTheTree: file systems mounted inside the work tree (a
// tmpfs at sub, a bind mount at node_modules) are never shown as empty
// directories, against which a hook's writes were recorded as creates of
// what the host had. A root-owned tree, whose id-mapped hand-over takes
// its own mount alone, is refused naming the fixes (its root-only files
// in a submount stay out of reach: nothing runs); with --root-sandbox, or
// a tree of another owner, the run sees them and is recorded exactly by
// copy (overlayfs refuses a lower layer with mounts the sandbox did not
// make), and the host's mounts do not change; --writes overlay is
// refused naming --writes copy; and a proc inside the tree is refused.
func TestMountsInsideTheTree(t *testing.T) {
	requireConfinement(t)
	requireRoot(t, "mounting needs root")
	var res *Result
	var err error
	// Trees another uid may reach (t.TempDir's parent is root's alone).
	// The source outside every mask: one in /tmp, beside the tree, is a
	// part of what the run hides (TestTreeHoldingAMountOfTheCallersHOME).
	dir, src := tempDirIn(t, "", "vigiles-mounts-", 0o755), tempDirIn(t, "/var/lib", "vigiles-mounts-src-", 0o755)
	for p, c := range map[string]string{"top": "t\n", "sub/": "", "node_modules/": "", src + "/m": "m\n",
		src + "/d": "d\n", src + "/r": "r\n"} {
		at := p
		if !filepath.IsAbs(p) {
			at = filepath.Join(dir, p)
		}
		if strings.HasSuffix(p, "/") {
			err = os.Mkdir(at, 0o755)
		} else {
			err = os.WriteFile(at, []byte(c), 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	sub := filepath.Join(dir, "sub")
	if err := unix.Mount("tmpfs", sub, "tmpfs", 0, "mode=0755"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Unmount(sub, unix.MNT_DETACH) })
	for n, c := range map[string]string{"m": "m\n", "d": "d\n", "r": "r\n", "secret": "submount-secret\n"} {
		if err := os.WriteFile(filepath.Join(sub, n), []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.Chmod(filepath.Join(sub, "secret"), 0o600)
	nm := filepath.Join(dir, "node_modules")
	if err := unix.Mount(src, nm, "", unix.MS_BIND, ""); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Unmount(nm, unix.MNT_DETACH) })
	script := `cat sub/secret; for d in sub node_modules; do echo more >> $d/m; rm $d/d; mv $d/r $d/r2; mkdir $d/new; done; echo x > top2; exit 0`

	res, err = Run(context.Background(), Spec{Dir: dir, Mode: ModeStrict, Timeout: 30 * time.Second, Command: sh(script)})
	if !errors.Is(err, ErrRefused) || res.Tier != TierRefused || res.Stdout != "" {
		t.Fatalf("a root-owned tree: err %v tier %s stdout %q, want a refusal before anything ran", err, res.Tier, res.Stdout)
	}
	for _, w := range []string{`"sub"`, `"node_modules"`, "unmount", "non-root owner", "--root-sandbox"} {
		if !strings.Contains(res.Refusal, w) {
			t.Errorf("refusal %q does not name %s", res.Refusal, w)
		}
	}

	want := []evidence.Write{
		{Path: "node_modules/d", Op: "delete"}, {Path: "node_modules/m", Op: "modify", Kind: "file"},
		{Path: "node_modules/new", Op: "create", Kind: "dir"}, {Path: "node_modules/r", Op: "delete"},
		{Path: "node_modules/r2", Op: "create", Kind: "file"},
		{Path: "sub/d", Op: "delete"}, {Path: "sub/m", Op: "modify", Kind: "file"},
		{Path: "sub/new", Op: "create", Kind: "dir"}, {Path: "sub/r", Op: "delete"},
		{Path: "sub/r2", Op: "create", Kind: "file"}, {Path: "top2", Op: "create", Kind: "file"},
	}
	check := func(name string, spec Spec, secret bool) {
		t.Helper()
		before, beforeSrc := treeHash(t, dir), treeHash(t, src)
		res := run(t, spec)
		if res.Tier != TierConfined || res.Error != "" || res.WritesMethod != "copy" {
			t.Fatalf("%s: tier %s method %q error %q refusal %q stderr %q", name, res.Tier, res.WritesMethod, res.Error, res.Refusal, res.Stderr)
		}
		if got := strings.Contains(res.Stdout, "submount-secret"); got != secret {
			t.Errorf("%s: stdout %q stderr %q: the submount's root-only file read: %v, want %v", name, res.Stdout, res.Stderr, got, secret)
		}
		if d := cmp.Diff(want, res.Writes); d != "" {
			t.Errorf("%s: writes (-want +got):\n%s\nstderr: %s", name, d, res.Stderr)
		}
		if treeHash(t, dir) != before || treeHash(t, src) != beforeSrc {
			t.Errorf("%s: the host's tree or the bind mount's source changed", name)
		}
	}
	check("--root-sandbox", Spec{Dir: dir, RootSandbox: true, Command: sh(script)}, true)

	// Another owner: the sandbox runs as that uid, which may not read the
	// submount's root-only file: the copy leaves nothing out, so the run
	// is refused, naming the fix; the tree its own, it is recorded whole.
	const uid = 2000001234
	for _, d := range []string{dir, sub, src} {
		filepath.Walk(d, func(p string, _ os.FileInfo, _ error) error {
			if p == filepath.Join(sub, "secret") {
				return nil
			}
			return os.Lchown(p, uid, uid)
		})
	}
	res, err = Run(context.Background(), Spec{Dir: dir, Mode: ModeStrict, Timeout: 30 * time.Second, Command: sh(script)})
	if !errors.Is(err, ErrRefused) || res.Stdout != "" || !strings.Contains(res.Refusal, "readable by the sandbox's uid") {
		t.Errorf("a root-only file in a submount of another owner's tree: err %v stdout %q refusal %q, want a refusal naming the fix", err, res.Stdout, res.Refusal)
	}
	os.Lchown(filepath.Join(sub, "secret"), uid, uid)
	check("a tree of another owner", Spec{Dir: dir, Command: sh(script)}, true)
	res, err = Run(context.Background(), Spec{Dir: dir, Mode: ModeStrict, WritesMethod: "overlay", Timeout: 30 * time.Second, Command: sh(script)})
	if !errors.Is(err, ErrRefused) || !strings.Contains(res.Refusal, "--writes copy") || !strings.Contains(res.Refusal, `"sub"`) {
		t.Errorf("--writes overlay: err %v refusal %q, want a refusal naming the mounts and --writes copy", err, res.Refusal)
	}

	// The host kernel's own views (a chroot's proc) are never copied in:
	// the command would read the host's processes, outside its pid
	// namespace. Refused, whoever the sandbox is.
	proc := filepath.Join(dir, "proc")
	if err := os.Mkdir(proc, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := unix.Mount("proc", proc, "proc", 0, ""); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Unmount(proc, unix.MNT_DETACH) })
	for _, root := range []bool{false, true} {
		res, err = Run(context.Background(), Spec{Dir: dir, Mode: ModeStrict, RootSandbox: root, Timeout: 30 * time.Second, Command: sh(`cat proc/1/cmdline`)})
		if !errors.Is(err, ErrRefused) || res.Stdout != "" || !strings.Contains(res.Refusal, `"proc"`) || !strings.Contains(res.Refusal, "unmount") {
			t.Errorf("a proc inside the tree (--root-sandbox %v): err %v stdout %q refusal %q, want a refusal naming it", root, err, res.Stdout, res.Refusal)
		}
	}
}

// TestTreeHoldingAMountOfTheCallersHOME: the caller's HOME bind-mounted
// inside the work tree (at TREE/h) is a masked directory the tree holds,
// by its source, not its path: refused, naming the mount. The tree, with
// a mount inside it, was recorded by copy, which walked into the mount,
// and the command read h/.ssh/id_ed25519.
func TestTreeHoldingAMountOfTheCallersHOME(t *testing.T) {
	requireConfinement(t)
	requireRoot(t, "mounting needs root")
	home, tree := tempDirIn(t, "", "vigiles-home-", 0o755), tempDirIn(t, "", "vigiles-tree-", 0o755)
	if err := os.MkdirAll(filepath.Join(home, ".ssh"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".ssh", "id_ed25519"), []byte("HOMEKEY\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	h := filepath.Join(tree, "h")
	if err := os.Mkdir(h, 0o755); err != nil {
		t.Fatal(err)
	}
	// Another owner: the tree, with a mount inside it, would be copied.
	const uid = 2000001234
	for _, d := range []string{home, tree} {
		filepath.Walk(d, func(p string, _ os.FileInfo, _ error) error { return os.Lchown(p, uid, uid) })
	}
	if err := unix.Mount(home, h, "", unix.MS_BIND, ""); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Unmount(h, unix.MNT_DETACH) })
	t.Setenv("HOME", home)
	res, err := Run(context.Background(), Spec{Dir: tree, Mode: ModeStrict, Timeout: 30 * time.Second, Command: sh(`cat h/.ssh/id_ed25519`)})
	if !errors.Is(err, ErrRefused) || res.Stdout != "" {
		t.Fatalf("err %v stdout %q, want a refusal before anything ran", err, res.Stdout)
	}
	for _, w := range []string{`("h")`, "is " + home, "unmount", "--workdir"} {
		if !strings.Contains(res.Refusal, w) {
			t.Errorf("refusal %q does not name %s", res.Refusal, w)
		}
	}
}

// TestKernelFSInsideTheTreeAtAnOddPath: a proc mounted in the tree at a
// path with bytes mountinfo does not escape ("p\v-\vtmpfs") is still a
// proc, and the tree is refused, naming it: read with strings.Fields, it
// was a tmpfs at "p", and the copy walked into the host's processes.
func TestKernelFSInsideTheTreeAtAnOddPath(t *testing.T) {
	requireConfinement(t)
	requireRoot(t, "mounting needs root")
	dir := tempDirIn(t, "", "vigiles-oddmount-", 0o755)
	name := "p\v-\vtmpfs\u00a0x"
	proc := filepath.Join(dir, name)
	if err := os.Mkdir(proc, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := unix.Mount("proc", proc, "proc", 0, ""); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Unmount(proc, unix.MNT_DETACH) })
	mounts, err := fsx.Mounts()
	inside, kernel := mountsInside(dir, mounts)
	if err != nil || !slices.Equal(inside, []string{proc}) || !slices.Equal(kernel, []string{proc}) {
		t.Errorf("mountsInside = %q, %q, %v; want the proc at %q in both", inside, kernel, err, proc)
	}
	const uid = 2000001234 // another owner: the tree would be copied
	if err := os.Lchown(dir, uid, uid); err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), Spec{Dir: dir, Mode: ModeStrict, Timeout: 30 * time.Second, Command: sh(`ls "$(printf 'p\v-\vtmpfs\302\240x')/1"`)})
	if !errors.Is(err, ErrRefused) || res.Stdout != "" || !strings.Contains(res.Refusal, "host kernel's own file systems") || !strings.Contains(res.Refusal, strconv.Quote(name)) {
		t.Errorf("err %v stdout %q refusal %q, want a refusal naming the proc", err, res.Stdout, res.Refusal)
	}
}

// TestRunsSideBySideGetTheirOwnUID: two root-caller runs at once on a
// root-owned tree run as different host uids, so that one hook cannot use
// up the per-user kernel counters of the other.
func TestRunsSideBySideGetTheirOwnUID(t *testing.T) {
	requireConfinement(t)
	requireRoot(t, "only a root caller's sandbox gets a SandboxUID uid")
	dir := makeTree(t, nil)
	maps := make(chan string, 2)
	for i := 0; i < 2; i++ {
		go func() {
			res, err := Run(context.Background(), Spec{Dir: dir, Mode: ModeStrict, Timeout: 30 * time.Second,
				Command: sh(`sleep 1; tr -s ' ' < /proc/self/uid_map`)})
			if err != nil {
				maps <- "error: " + err.Error()
				return
			}
			maps <- res.Stdout
		}()
	}
	a, b := <-maps, <-maps
	if !strings.HasPrefix(a, " 0 20") || !strings.HasPrefix(b, " 0 20") || a == b {
		t.Errorf("uid maps of two runs at once: %q and %q, want two different SandboxUID uids", a, b)
	}
}

// TestUnprivilegedBwrapRefusedNamesTheOptOut: where bubblewrap works for
// root but not for the unprivileged uid a root caller's sandbox runs as (an
// AppArmor restriction on user namespaces), the refusal says so and names
// the fixes, though the engine's own probe (run as root) passes.
func TestUnprivilegedBwrapRefusedNamesTheOptOut(t *testing.T) {
	requireConfinement(t)
	requireRoot(t, "only a root caller's sandbox runs as another uid")
	real, err := exec.LookPath("bwrap")
	if err != nil {
		t.Fatal(err)
	}
	bin := fakeBinDir(t)
	script := "#!/bin/sh\nif [ \"$(id -u)\" != 0 ]; then echo 'bwrap: setting up uid map: Permission denied' >&2; exit 1; fi\nexec " + real + " \"$@\"\n"
	if err := os.WriteFile(filepath.Join(bin, "bwrap"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+":"+os.Getenv("PATH"))
	hostprog.SetDirsForTest(t, append([]string{bin}, hostprog.Dirs...)...)
	resetProbe()
	t.Cleanup(resetProbe)
	res, err := Run(context.Background(), Spec{Dir: makeTree(t, nil), Mode: ModeStrict, Timeout: 30 * time.Second, Command: sh("true")})
	if !errors.Is(err, ErrRefused) || !strings.Contains(res.Refusal, "as uid 20") || !strings.Contains(res.Refusal, "--root-sandbox") ||
		!strings.Contains(res.Refusal, "Permission denied") {
		t.Errorf("err %v refusal %q, want a refusal naming the uid, bwrap's message and --root-sandbox", err, res.Refusal)
	}
}

// TestTreeBelowAClosedDirectory: a work tree below a directory the
// sandbox's uid may not enter is refused before anything starts, naming the
// fix, whether the tree is root's (handed over id-mapped; bubblewrap makes
// its mount point on the host's path) or another owner's (bubblewrap binds
// it by that path); with --strict-fs the host's path above the tree is not
// bound, so the root-owned tree runs.
func TestTreeBelowAClosedDirectory(t *testing.T) {
	requireConfinement(t)
	requireRoot(t, "only a root caller's sandbox runs as another uid")
	parent := tempDirIn(t, "/var/lib", "vigiles-test-closed-", 0o700)
	tree := filepath.Join(parent, "work")
	if err := os.Mkdir(tree, 0o755); err != nil {
		t.Fatal(err)
	}
	refused := func(what string) {
		t.Helper()
		res, err := Run(context.Background(), Spec{Dir: tree, Mode: ModeStrict, Timeout: 30 * time.Second, Command: sh(`echo ran`)})
		if !errors.Is(err, ErrRefused) || !strings.Contains(res.Refusal, "chmod o+x "+parent) {
			t.Errorf("%s below %s (0700): err %v refusal %q, want a refusal naming chmod o+x", what, parent, err, res.Refusal)
		}
	}
	refused("a root-owned tree")
	res := run(t, Spec{Dir: tree, StrictFS: true, Command: sh(`echo ran > ran.txt`)})
	if res.Tier != TierConfined || len(res.Writes) != 1 {
		t.Errorf("--strict-fs: tier %s error %q refusal %q writes %v", res.Tier, res.Error, res.Refusal, res.Writes)
	}
	if err := os.Chown(tree, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	refused("a tree nobody owns")
}

// TestVanishingMaskedDirs: a host directory a run masks (here the caller's
// HOME, outside the fixed masks) that is removed and made again meanwhile
// must not fail a run: a sandbox whose mask lost its path before bubblewrap
// mounted it (isVanishedMount) or before the reaper made it read-only
// (reaper.VanishedMount) is made again. (What the host puts in a
// directory made after the run's start is not masked: security.md.)
func TestVanishingMaskedDirs(t *testing.T) {
	requireConfinement(t)
	requireRoot(t, "making a directory outside the masked ones (/var/lib) needs root")
	base, err := os.MkdirTemp("/var/lib", "vigiles-vanish-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	os.Chmod(base, 0o755)
	home := filepath.Join(base, "home")
	t.Setenv("HOME", home)
	stop := churn(func(int) bool {
		os.Mkdir(home, 0o755)
		os.Remove(home)
		return true
	})
	dir := makeTree(t, nil)
	for i := 0; i < 40; i++ {
		res, err := Run(context.Background(), Spec{Dir: dir, Mode: ModeStrict, Command: sh("echo done")})
		if err != nil || res.Stdout != "done\n" {
			t.Errorf("run %d: err %v stdout %q", i, err, res.Stdout)
		}
	}
	t.Logf("%d times made and removed meanwhile", stop())
}

// A sandbox that bubblewrap could not start as another uid names the
// user-namespace fix only when bubblewrap's message is about namespaces.
func TestBwrapFailedNamesTheFix(t *testing.T) {
	requireConfinement(t)
	cred := &syscall.Credential{Uid: 2000000000, Gid: 2000000000}
	for msg, want := range map[string]string{
		"bwrap: No permissions to creating new namespace, likely because the kernel does not allow non-privileged user namespaces": "user.max_user_namespaces",
		"bwrap: setting up uid map: Permission denied":              "user.max_user_namespaces",
		"bwrap: Can't mkdir /var/lib/x/home: Read-only file system": "a host path it names",
	} {
		err := bwrapFailed(context.Background(), []byte(msg), cred)
		if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "--root-sandbox") {
			t.Errorf("%q: %v; want a refusal naming %q and --root-sandbox", msg, err, want)
		}
	}
}

// TestLingerSeesProcessesThatHop: a process that forks and exits without
// pause is never between two reads of the /proc scan; the kernel still
// says it is left (reaper.reapEnded), so the run lingers for it and lists
// it, and its writes are all recorded once it is ended. A shell's hop is
// slow enough for a scan to see; the test binary's raw fork loop
// (hopper, left alone by a main process that exits at once) is not.
func TestLingerSeesProcessesThatHop(t *testing.T) {
	requireConfinement(t)
	dir := hopperTree(t)
	for i := range 5 {
		res := run(t, Spec{Dir: dir, Linger: 300 * time.Millisecond, Command: []string{"./hopper", hopperArg, "alone"}})
		if res.ExitCode != 0 || len(res.Lingered) == 0 {
			t.Errorf("raw hopper, run %d: exit %d lingered %q; want the hopping process (or the kernel's word that something is left) listed", i, res.ExitCode, res.Lingered)
		}
	}
	for i := 0; i < 10; i++ {
		start := time.Now()
		res := run(t, Spec{Dir: dir, Linger: 300 * time.Millisecond,
			Command: sh(`mkdir h; hop() { : > h/$1; (hop $(( $1 + 1 ))) & exit 0; }; (hop 1) & sleep 0.05; exit 0`)})
		if len(res.Lingered) == 0 || time.Since(start) < 300*time.Millisecond {
			t.Errorf("run %d: lingered %q after %v; want the hopping process listed after the linger", i, res.Lingered, time.Since(start))
		}
		// Every file it made before it was ended is in the record: the
		// numbers run from 1 with no gap.
		seen := map[string]bool{}
		for _, w := range res.Writes {
			seen[w.Path] = true
		}
		for n := 1; n <= len(res.Writes)-1; n++ {
			if !seen["h/"+strconv.Itoa(n)] {
				t.Errorf("run %d: h/%d missing from the record of %d writes", i, n, len(res.Writes))
				break
			}
		}
	}
}

// The output cap may cut a character: the text stays text, without the
// cut character's first bytes.
func TestCutRuneEnd(t *testing.T) {
	for _, c := range []struct {
		in        string
		truncated bool
		want      string
	}{
		{"aaa\xe2\x82", true, "aaa"},
		{"aaa\xe2", true, "aaa"},
		{"aaa€", true, "aaa€"},
		{"aaa\xe2\x82", false, "aaa\xe2\x82"}, // not cut by vigiles: as it is
		{"", true, ""},
	} {
		if got := string(cutRuneEnd([]byte(c.in), c.truncated)); got != c.want {
			t.Errorf("cutRuneEnd(%q, %v) = %q, want %q", c.in, c.truncated, got, c.want)
		}
	}
}

// A direct run ends with its command, not with a process of another
// session it left holding its stdout.
func TestDirectRunEndsWithItsCommand(t *testing.T) {
	dir := makeTree(t, nil)
	// A leftover that outlives the run by far, killed at the end (a direct
	// run leaves it on the host); setsid is util-linux's, on every Debian.
	// The leftover sleeps 10 minutes, the run's timeout is 3 and the bound
	// on the run 2, a bound on a hang, not a measure: a run that waited
	// for the leftover times out, and a loaded machine's direct run under
	// -race takes seconds, where the old bound (15 s, against a leftover
	// of 30) left less room.
	const leftover = "sleep 599.87"
	defer exec.Command("pkill", "-f", leftover).Run()
	start := time.Now()
	res, err := Run(context.Background(), Spec{Dir: dir, Mode: ModeOff, Timeout: 3 * time.Minute,
		Command: sh(`setsid ` + leftover + ` & echo hi`)})
	if err != nil || res.TimedOut || res.Stdout != "hi\n" || time.Since(start) > 2*time.Minute {
		t.Errorf("err %v, timedOut %v, stdout %q after %v; want hi, no timeout, before the leftover's end", err, res.TimedOut, res.Stdout, time.Since(start))
	}
}

// A cancelled run returns, whenever it is cancelled: a sandbox bubblewrap
// orphans (killed before its pid 1 asked to die with its parent) holds
// the output pipes, which Wait must not wait for (a cancelled audit hung).
func TestCancelledRunsReturn(t *testing.T) {
	requireConfinement(t)
	dir := makeTree(t, nil)
	for i := 0; i < 30; i++ {
		ctx, cancel := context.WithCancel(context.Background())
		// 0–29 ms: before bubblewrap starts, while it makes the
		// namespaces (about 15 ms here), and once the init runs.
		time.AfterFunc(time.Duration(i)*time.Millisecond, cancel)
		done := make(chan struct{})
		go func() {
			Run(ctx, Spec{Dir: dir, Mode: ModeStrict, Command: sh("sleep 5")})
			close(done)
		}()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			t.Fatalf("run %d, cancelled after %d ms, has not returned in 30 s", i, i)
		}
		cancel()
	}
}

// A command that fills the scratch and frees it again before its end met
// the limit all the same (its writes failed): the init samples the
// scratch while it runs (watchScratch), so a fill that lasts a sampling
// interval is seen.
func TestScratchFilledAndFreed(t *testing.T) {
	requireConfinement(t)
	for _, method := range []string{"overlay", "copy"} {
		t.Run(method, func(t *testing.T) {
			dir := makeTree(t, nil)
			res := run(t, Spec{Dir: dir, WritesMethod: method, Limits: Limits{ScratchBytes: 8 << 20},
				Command: sh(`head -c 20000000 /dev/zero > ~/fill; echo important > out.txt; sleep 0.2; rm -f ~/fill; exit 0`)})
			if res.LimitHit != "scratch" {
				t.Errorf("limitHit %q, want scratch (writes %+v)", res.LimitHit, res.Writes)
			}
		})
	}
}

// TestTreeInTheSandboxHomesClaudeIsRefused: a work tree in /root/.claude
// (a root caller's own Claude Code config, kept under git) would be
// mounted over the directories a confined run makes in the command's
// HOME, /root, for its env file and its plugins' data, and hide the env
// file from the record: such a run is refused, naming the fix.
func TestTreeInTheSandboxHomesClaudeIsRefused(t *testing.T) {
	requireRoot(t, "the tree is made in /root/.claude")
	claude := filepath.Join(sandboxHome, ".claude")
	if _, err := os.Lstat(claude); os.IsNotExist(err) {
		if err := os.Mkdir(claude, 0o700); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Remove(claude) })
	}
	dir, err := os.MkdirTemp(claude, "vigiles-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	res, err := Run(context.Background(), Spec{Dir: dir, Mode: ModeStrict, Timeout: 30 * time.Second, Command: sh(`echo ran`)})
	if !errors.Is(err, ErrRefused) || res.Tier != TierRefused || !strings.Contains(res.Refusal, "fix: copy the tree elsewhere") {
		t.Fatalf("err %v tier %s refusal %q, want a refusal that names the fix", err, res.Tier, res.Refusal)
	}
}

// TestParentPIDVar: Spec.ParentPIDVar gives the command its parent's
// process ID as the command sees it ($PPID): 1 in a sandbox, whose pid 1
// starts it, and the caller's on a direct run.
func TestParentPIDVar(t *testing.T) {
	requireConfinement(t)
	for _, trusted := range []bool{false, true} {
		res, err := Run(context.Background(), Spec{Dir: t.TempDir(), Trusted: trusted, ParentPIDVar: "CLAUDE_PID",
			Command: []string{"sh", "-c", `echo "$CLAUDE_PID $PPID"`}})
		if err != nil {
			t.Fatal(err)
		}
		f := strings.Fields(res.Stdout)
		want := "1"
		if trusted {
			want = strconv.Itoa(os.Getpid())
		}
		if len(f) != 2 || f[0] != f[1] || f[0] != want {
			t.Errorf("tier %s: CLAUDE_PID and PPID %q, want both %s", res.Tier, res.Stdout, want)
		}
	}
}

// TestDefaultAddressSpaceHoldsAWasmReservation: the default bound on a
// process's address space leaves room for what V8 reserves for a
// WebAssembly instance (about 10 GiB, none of it used: Node.js's fetch
// makes one), which the 8 GiB default refused, so that a hook's fetch
// crashed in the sandbox and not where Claude Code runs it. A 12 GiB
// reservation with no access stands for it; under an 8 GiB bound it is
// refused, so the bound is there.
func TestDefaultAddressSpaceHoldsAWasmReservation(t *testing.T) {
	requireConfinement(t)
	reserve := []string{"python3", "-c", "import mmap; mmap.mmap(-1, 12 << 30, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS, prot=0)"}
	if res := run(t, Spec{Dir: t.TempDir(), Command: reserve}); res.ExitCode != 0 {
		t.Errorf("under the default bound (%d bytes): exit %d, stderr %s", Limits{}.WithDefaults().MemoryBytes, res.ExitCode, res.Stderr)
	}
	if res := run(t, Spec{Dir: t.TempDir(), Command: reserve, Limits: Limits{MemoryBytes: 8 << 30}}); res.ExitCode == 0 || !strings.Contains(res.Stderr, "Cannot allocate memory") {
		t.Errorf("under an 8 GiB bound: exit %d, stderr %s; want the reservation refused", res.ExitCode, res.Stderr)
	}
}

// TestBwrapOnPathIsNotRun: a bwrap that PATH names in the work tree (npm
// run puts the checkout's node_modules/.bin first, where any dependency
// may install one) is never run: it would run the whole run on the host,
// unconfined, and could write the record it liked. vigiles runs the
// system's bubblewrap (internal/hostprog).
func TestBwrapOnPathIsNotRun(t *testing.T) {
	requireConfinement(t)
	dir := makeTree(t, map[string]string{"package.json": "{}"})
	bin := filepath.Join(dir, "node_modules", ".bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	marker := filepath.Join(t.TempDir(), "planted-bwrap-ran")
	if err := os.WriteFile(filepath.Join(bin, "bwrap"), []byte("#!/bin/sh\necho ran >> "+marker+"\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+":"+os.Getenv("PATH"))
	resetProbe()
	t.Cleanup(resetProbe)
	res := run(t, Spec{Dir: dir, Command: sh("echo hi")})
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the bwrap of the work tree's node_modules/.bin ran on the host")
	}
	if res.Tier != TierConfined || res.ExitCode != 0 || res.Stdout != "hi\n" {
		t.Errorf("tier %s exit %d stdout %q: want a confined run by the system's bubblewrap", res.Tier, res.ExitCode, res.Stdout)
	}
}
