package escape

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/vigiles/action/pkg/sandbox/reaper"
)

// The tests in this file show claims of docs/security.md's table of
// attempts that the escape suite's other tests left unshown: each names
// the row it stands for.

// hostState is what a directory of the host holds: each entry's path
// below it, with its mode, its link target or its bytes.
func hostState(t *testing.T, dir string) map[string]string {
	t.Helper()
	state := map[string]string{}
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		v := fi.Mode().String()
		switch {
		case fi.Mode()&os.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			v += " -> " + target
		case fi.Mode().IsRegular():
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			v += " " + string(b)
		}
		state[rel] = v
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return state
}

// plantHostDir makes a directory of the host in parent, owned by owner
// (nil for root) so that on the host that uid may change it, holding a
// file keep and a directory sub, and returns it.
func plantHostDir(t *testing.T, parent, prefix string, owner *runner) string {
	t.Helper()
	dir := openTempDir(t, parent, prefix)
	if err := os.WriteFile(filepath.Join(dir, "keep"), []byte("the host's\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if c := owner.cred; c != nil {
		for _, p := range []string{dir, filepath.Join(dir, "keep"), filepath.Join(dir, "sub")} {
			if err := os.Lchown(p, int(c.Uid), int(c.Gid)); err != nil {
				t.Fatal(err)
			}
		}
	}
	return dir
}

// changeHostDirSh tries every change a hook can make to the directory $1
// of the host, by its host path: a write, a delete, a rename, a link, a
// symlink, a chmod, a new directory, a truncate. Each try's failure is
// expected; the test reads the host afterwards.
const changeHostDirSh = `d=$1
echo pwned > "$d/new"
echo pwned >> "$d/keep"
: > "$d/keep"
chmod 0777 "$d/keep" "$d"
mv "$d/keep" "$d/moved"
ln "$d/keep" "$d/hard"
ln -s /etc/passwd "$d/sym"
mkdir "$d/newdir"
rmdir "$d/sub"
rm -f "$d/keep"
echo pwned > "/proc/1/root$d/new"
`

// TestDocClaimCallersHomeTmpdirAndHostTmpStayUntouched shows the row
// "Write /etc, /usr, the caller's HOME, the host's /tmp, …" and the
// promise "the caller's HOME and TMPDIR and the host's /tmp never change,
// whatever the hook writes, deletes, renames, links or chmods", which
// TestEscapeFilesystemWrites showed for the system directories only: it
// set no HOME or TMPDIR for the caller. Here the caller's HOME and TMPDIR
// are directories of the host the caller's uid may change (outside /home,
// /root and /tmp, so that the fixed masks are not what keeps them), and the
// host's /tmp holds a directory of its own; the hook tries each change to
// each by its host path, and each is as it was after the run. The hook's
// writes to its own HOME and TMPDIR are recorded, so the run did run.
func TestDocClaimCallersHomeTmpdirAndHostTmpStayUntouched(t *testing.T) {
	requireBwrap(t)
	requireRoot(t, "the caller's HOME and TMPDIR are made for each caller's uid with chown")
	for _, c := range callers(t) {
		r, name := c.runner, c.name()
		t.Run(name, func(t *testing.T) {
			home := plantHostDir(t, "/var/lib", "vigiles-docclaim-home-", &r)
			tmpdir := plantHostDir(t, "/var/lib", "vigiles-docclaim-tmpdir-", &r)
			hostTmp := plantHostDir(t, "/tmp", "vigiles-docclaim-tmp-", &r)
			before := map[string]map[string]string{}
			for _, d := range []string{home, tmpdir, hostTmp} {
				before[d] = hostState(t, d)
			}
			dir := workTree(t)
			if err := os.WriteFile(filepath.Join(dir, "change.sh"), []byte(changeHostDirSh), 0o755); err != nil {
				t.Fatal(err)
			}
			script := fmt.Sprintf(`for d in %s %s %s "$HOME" "$TMPDIR"; do sh ./change.sh "$d" 2>/dev/null; done
echo own > "$HOME/own-home"; echo own > "$TMPDIR/own-tmp"; echo done`, home, tmpdir, hostTmp)
			args := []string{"--", "sh", "-c", script}
			args = c.withArgs(args)
			res := vigiles(t, r, dir, []string{"HOME=" + home, "TMPDIR=" + tmpdir}, args...)
			if res.ExitCode != 0 || res.Error != "" || !strings.HasSuffix(res.Stdout, "done\n") {
				t.Fatalf("the hook did not run to its end: exit %d error %q\nstdout: %s\nstderr: %s", res.ExitCode, res.Error, res.Stdout, res.Stderr)
			}
			recorded := map[string]bool{}
			for _, w := range res.Writes {
				recorded[w.Op+" "+w.Path] = true
			}
			for _, want := range []string{"create ~/own-home", "create $TMPDIR/own-tmp"} {
				if !recorded[want] {
					t.Errorf("the record lacks %q, a write to the command's own HOME or TMPDIR: %s", want, res.raw)
				}
			}
			for d, was := range before {
				now := hostState(t, d)
				if fmt.Sprint(now) != fmt.Sprint(was) {
					t.Errorf("%s changed on the host:\nbefore %s\nafter  %s", d, sortedState(was), sortedState(now))
				}
			}
		})
	}
}

// sortedState prints a hostState one entry a line, in path order.
func sortedState(s map[string]string) string {
	var lines []string
	for p, v := range s {
		lines = append(lines, fmt.Sprintf("%q: %q", p, v))
	}
	sort.Strings(lines)
	return "\n  " + strings.Join(lines, "\n  ")
}

// TestDocClaimSecretFilesUnreadableAsUid0 shows the row "Read
// /etc/shadow, SSH host keys as uid 0": TestEscapeSecrets tries them as
// the sandbox's uid 0 of an ordinary run, whose host uid the files' modes
// already keep out, and never as the host's root. Here a --root-sandbox
// run, whose uid 0 is the host's root, reads a root-only file outside the
// list (so the modes do not keep it out), and reads nothing of
// /etc/shadow, /etc/gshadow, the rest of the list the host has (their
// backups, /etc/sudoers, /etc/security/opasswd) or an SSH host key planted
// for the test: the covers are what stop it. Every other caller reads nothing of them either.
func TestDocClaimSecretFilesUnreadableAsUid0(t *testing.T) {
	requireBwrap(t)
	requireRoot(t, "planting an SSH host key in /etc/ssh needs root")
	secrets := []string{"/etc/shadow", "/etc/gshadow"}
	for _, p := range secrets {
		if fi, err := os.Stat(p); err != nil || fi.Size() == 0 {
			if os.Getenv("CI") == "true" {
				t.Fatalf("CI's image has a non-empty %s: %v", p, err)
			}
			t.Skipf("this host has no non-empty %s to try", p)
		}
	}
	if _, err := os.Stat("/etc/ssh"); err != nil {
		if err := os.Mkdir("/etc/ssh", 0o755); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Remove("/etc/ssh") })
	}
	key := "/etc/ssh/ssh_host_vigilesdocclaim_key"
	if err := os.WriteFile(key, []byte("VIGILES-HOST-KEY\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Remove(key) })
	secrets = append(secrets, key)
	// The rest of the list that this host has, not empty: the backups of
	// the two above, sudoers, old passwords. Each is root's alone, so
	// only its cover keeps it from a --root-sandbox run.
	for _, p := range []string{"/etc/shadow-", "/etc/gshadow-", "/etc/sudoers", "/etc/security/opasswd"} {
		if fi, err := os.Stat(p); err == nil && fi.Size() > 0 {
			secrets = append(secrets, p)
		} else {
			t.Logf("this host has no non-empty %s to try", p)
		}
	}
	control := filepath.Join(openTempDir(t, "/var/lib", "vigiles-docclaim-rootonly-"), "token")
	if err := os.WriteFile(control, []byte("ROOT-ONLY\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	script := fmt.Sprintf(`id -u; for f in %s; do head -c 64 "$f" 2>/dev/null | od -An -c | head -1; done; echo read; cat %s 2>/dev/null; exit 0`,
		strings.Join(secrets, " "), control)
	for _, c := range callers(t) {
		r, rootSandbox, name := c.runner, c.rootSandbox, c.name()
		t.Run(name, func(t *testing.T) {
			args := []string{"--", "sh", "-c", script}
			args = c.withArgs(args)
			res := vigiles(t, r, workTree(t), nil, args...)
			secretsRead, controlRead, ok := strings.Cut(res.Stdout, "read\n")
			if !ok || !strings.HasPrefix(secretsRead, "0\n") {
				t.Fatalf("the hook did not run as uid 0 to its end: stdout %q stderr %q", res.Stdout, res.Stderr)
			}
			if secretsRead != "0\n" {
				t.Errorf("the hook read secret files: %q", secretsRead)
			}
			if rootSandbox && controlRead != "ROOT-ONLY\n" {
				t.Errorf("--root-sandbox: the root-only control file read %q, want it whole (uid 0 is the host's root, so the covers alone keep the secrets out)", controlRead)
			}
		})
	}
}

// userCountsPy prints the sandbox's user namespace's bounds on the
// objects the kernel counts per user, tries to raise each (printing what
// the write answered), and opens fanotify groups (FAN_REPORT_FID, which
// needs no privilege) until the kernel refuses one, printing how many it
// held and why it stopped.
const userCountsPy = `import ctypes, errno, os
names = ["max_inotify_instances", "max_inotify_watches", "max_fanotify_groups", "max_fanotify_marks"]
for n in names:
    p = "/proc/sys/user/" + n
    try:
        v = open(p).read().strip()
    except OSError as e:
        print(n, "unreadable", errno.errorcode.get(e.errno))
        continue
    try:
        with open(p, "w") as f:
            f.write("1000000")
        print(n, v, "raised")
    except OSError as e:
        print(n, v, "kept", errno.errorcode.get(e.errno))
l = ctypes.CDLL(None, use_errno=True)
held, why = [], "none refused"
for _ in range(64):
    ctypes.set_errno(0)
    fd = l.fanotify_init(0x200, 0)
    if fd < 0:
        why = errno.errorcode.get(ctypes.get_errno(), "?")
        break
    held.append(fd)
print("fanotify", len(held), why)
`

// TestDocClaimUserNamespaceCountsAreBounded shows the row "Take every
// inotify instance of its host uid …": TestInotifyOfTheHostUidIsLeft
// shows the 32 inotify instances, and nothing showed the rest the row
// claims: the sandbox's user namespace bounds inotify watches to 8,192,
// fanotify groups to 16 and fanotify marks to 8,192 (each a quarter of
// the host's per-user limit where that is lower), and the command
// cannot raise any of the four. For every caller and for a
// --root-sandbox run, the command reads those bounds, each write to raise
// one fails, and it opens no more fanotify groups than its bound (EMFILE
// after).
func TestDocClaimUserNamespaceCountsAreBounded(t *testing.T) {
	requireBwrap(t)
	for _, c := range callers(t) {
		r, name := c.runner, c.name()
		t.Run(name, func(t *testing.T) {
			dir := workTree(t)
			if err := os.WriteFile(filepath.Join(dir, "counts.py"), []byte(userCountsPy), 0o644); err != nil {
				t.Fatal(err)
			}
			args := []string{"--", "python3", "counts.py"}
			args = c.withArgs(args)
			res := vigiles(t, r, dir, nil, args...)
			lines := map[string][]string{}
			for _, line := range strings.Split(strings.TrimSpace(res.Stdout), "\n") {
				f := strings.Fields(line)
				if len(f) > 1 {
					lines[f[0]] = f[1:]
				}
			}
			for _, want := range []struct {
				name  string
				bound string
			}{
				{"max_inotify_instances", quarterBound(t, 32, "fs/inotify/max_user_instances")},
				{"max_inotify_watches", quarterBound(t, 8192, "fs/inotify/max_user_watches")},
				{"max_fanotify_groups", quarterBound(t, 16, "fs/fanotify/max_user_groups")},
				{"max_fanotify_marks", quarterBound(t, 8192, "fs/fanotify/max_user_marks")},
			} {
				got := lines[want.name]
				if len(got) < 2 || got[0] != want.bound || got[1] != "kept" {
					t.Errorf("%s: the command saw %q, want the bound %s, kept against its write\nstdout: %s\nstderr: %s", want.name, got, want.bound, res.Stdout, res.Stderr)
				}
			}
			groups := quarterBound(t, 16, "fs/fanotify/max_user_groups")
			if got := lines["fanotify"]; len(got) != 2 || got[0] != groups || got[1] != "EMFILE" {
				t.Errorf("fanotify groups: the command held %q, want %s and then EMFILE\nstdout: %s\nstderr: %s", got, groups, res.Stdout, res.Stderr)
			}
		})
	}
}

// quarterBound is the bound a lone run's user namespace gets for a count
// whose own value is def: def, or a quarter of the host's per-user limit
// (host, under /proc/sys) where that is lower, at least 1 (userCountsFor
// in pkg/sandbox).
func quarterBound(t *testing.T, def int, host string) string {
	t.Helper()
	b, err := os.ReadFile("/proc/sys/" + host)
	if err != nil {
		return strconv.Itoa(def)
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatalf("/proc/sys/%s: %v", host, err)
	}
	return strconv.Itoa(max(min(def, n/4), 1))
}

// sysctlWriteSh writes each sysctl its arguments name with the value it
// already has (so that a write that got through would change nothing of
// the host's), and prints each write's answer; then it opens for writing,
// writing nothing, the other host knobs of procKnobs the host has, and
// prints each open's answer.
const sysctlWriteSh = `for k in "$@"; do
  p=/proc/sys/$k
  v=$(cat "$p") || { echo "$k unreadable"; continue; }
  if out=$( (printf '%s\n' "$v" > "$p") 2>&1 ); then echo "$k written"; else echo "$k refused: $out"; fi
done
for p in ` + procKnobs + `; do
  [ -e "$p" ] || continue
  if out=$( (: > "$p") 2>&1 ); then echo "$p opened"; else echo "$p refused: $out"; fi
done
grep -E ' /proc/sys (ro|rw),' /proc/self/mountinfo | cut -d' ' -f5,6
`

// procKnobs are host knobs outside /proc/sys in the command's /proc that
// the row "Read-only kernel knobs" names mounted read-only: root's
// alone, so for a --root-sandbox run only the mount (and Landlock, which
// answers EACCES, not EROFS) keeps them from being written.
const procKnobs = "/proc/sysrq-trigger /proc/irq/default_smp_affinity"

// TestDocClaimSysctlsAreReadOnly shows the row "Write a sysctl
// (kernel.core_pattern, …) as uid 0 of a --root-sandbox run":
// TestEscapeProcessesAndKernel writes one for every runner, but never
// under --root-sandbox, whose uid 0 is the host's root and which only the
// read-only /proc/sys (and Landlock) stops. For every caller and for a
// --root-sandbox run, writing kernel.core_pattern, kernel.hostname and
// vm.stat_interval (each with the value it has) is refused, as a
// read-only file system, and /proc/sys is mounted read-only; opening
// /proc/sysrq-trigger or /proc/irq/default_smp_affinity (where the host has
// them) for writing is refused too, as a read-only file system for a
// --root-sandbox run.
func TestDocClaimSysctlsAreReadOnly(t *testing.T) {
	requireBwrap(t)
	keys := []string{"kernel/core_pattern", "kernel/hostname", "vm/stat_interval"}
	for _, c := range callers(t) {
		r, name := c.runner, c.name()
		t.Run(name, func(t *testing.T) {
			dir := workTree(t)
			if err := os.WriteFile(filepath.Join(dir, "sysctl.sh"), []byte(sysctlWriteSh), 0o755); err != nil {
				t.Fatal(err)
			}
			args := append([]string{"--", "sh", "sysctl.sh"}, keys...)
			args = c.withArgs(args)
			res := vigiles(t, r, dir, nil, args...)
			for _, k := range keys {
				refused := false
				for _, line := range strings.Split(res.Stdout, "\n") {
					refused = refused || strings.HasPrefix(line, k+" refused: ") && strings.HasSuffix(line, "Read-only file system")
				}
				if !refused {
					t.Errorf("writing %s: want it refused, a read-only file system\nstdout: %s\nstderr: %s", k, res.Stdout, res.Stderr)
				}
			}
			if !strings.Contains(res.Stdout, "/proc/sys ro,") {
				t.Errorf("/proc/sys is not mounted read-only in the command's /proc: stdout %s", res.Stdout)
			}
			tried := 0
			for _, p := range strings.Fields(procKnobs) {
				for _, line := range strings.Split(res.Stdout, "\n") {
					switch {
					case line == p+" opened":
						t.Errorf("%s opened for writing", p)
					case strings.HasPrefix(line, p+" refused: "):
						tried++
						if c.rootSandbox && !strings.HasSuffix(line, "Read-only file system") {
							t.Errorf("%s: want it refused as a read-only file system (uid 0 is the host's root): %s", p, line)
						}
					}
				}
			}
			if tried == 0 {
				t.Logf("this host has none of %s", procKnobs)
			}
		})
	}
}

// killedReaperPy asks the stub for a name, tries an address (each a
// record entry in deny mode) and writes a file, then execs a sleep whose
// last argument is its own first argument with "-ready" after it: the
// test finds the hook by it once all three are done.
const killedReaperPy = `import os, socket, subprocess, sys
subprocess.run(["getent", "hosts", "killed-reaper.vigiles-escape.example"])
s = socket.socket()
s.settimeout(5)
s.connect_ex(("192.0.2.77", 443))
open("made.txt", "w").write("x\\n")
os.execvp("python3", ["python3", "-c", "import time; time.sleep(600)", sys.argv[1] + "-ready"])
`

// parentOf is the host pid of pid's parent, from /proc/PID/status.
func parentOf(pid int) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "PPid:"); ok {
			n, _ := strconv.Atoi(strings.TrimSpace(v))
			return n
		}
	}
	return 0
}

// TestDocClaimKilledReaperKeepsTheWholeRecord shows the last part of the
// row "End the sandbox early by crashing pid 1 …": "if pid 1 dies anyway,
// the run is failed but keeps the writes and egress recorded whole".
// pkg/sandbox's TestKilledReaperKeepsTheRecord shows the writes, with no
// egress layer. Here the vigiles binary runs a hook that asks a name,
// tries an address and writes a file; then the test kills the hook's pid
// 1 (the reaper, found from the host as the parent of the hook's process,
// by that process's unique argument) with SIGKILL. The run is failed (exit
// 125, an error naming the reaper), and its record holds the file, the
// name and the address.
func TestDocClaimKilledReaperKeepsTheWholeRecord(t *testing.T) {
	requireBwrap(t)
	requireRoot(t, "the test finds and kills the sandbox's pid 1 from the host")
	requireTools(t, "python3", "getent")
	dir := workTree(t)
	if err := os.WriteFile(filepath.Join(dir, "killed.py"), []byte(killedReaperPy), 0o644); err != nil {
		t.Fatal(err)
	}
	ready := []byte(fmt.Sprintf("\x00vigiles-docclaim-%d-ready\x00", time.Now().UnixNano()))
	marker := string(ready[1 : len(ready)-len("-ready")-1])
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, vigilesBin, "run", "--json", "--workdir", dir, "--", "python3", "killed.py", marker)
	cmd.Env = []string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"}
	cmd.Dir = dir
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	pid1 := 0
	for deadline := time.Now().Add(2 * time.Minute); pid1 == 0 && time.Now().Before(deadline) && !isClosed(exited); time.Sleep(50 * time.Millisecond) {
		ents, _ := os.ReadDir("/proc")
		for _, e := range ents {
			pid, err := strconv.Atoi(e.Name())
			if err != nil {
				continue
			}
			if b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid)); !bytes.HasSuffix(b, ready[1:]) || !bytes.HasPrefix(b, []byte("python3\x00-c\x00")) {
				continue
			}
			pp := parentOf(pid)
			if b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pp)); pp > 1 && bytes.HasPrefix(b, []byte(reaper.Argv0+"\x00")) {
				pid1 = pp
			}
		}
	}
	if pid1 == 0 {
		cancel()
		<-exited
		t.Fatalf("the hook's pid 1 was not found\nstdout: %s\nstderr: %s", out.String(), stderr.String())
	}
	if err := syscall.Kill(pid1, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-exited
	var res struct {
		result
		Egress []egressEntry `json:"egress"`
	}
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatalf("no JSON result (%v)\nstdout: %s\nstderr: %s", err, out.String(), stderr.String())
	}
	if res.Tier != "confined" || res.ExitCode != 125 || !strings.Contains(res.Error, "reaper") {
		t.Errorf("a run whose pid 1 was killed: tier %s, exit %d, error %q; want it failed (125), naming the reaper", res.Tier, res.ExitCode, res.Error)
	}
	made := false
	for _, w := range res.Writes {
		made = made || w.Path == "made.txt" && w.Op == "create"
	}
	var named, tried bool
	for _, e := range res.Egress {
		named = named || e.Via == "dns" && e.Host == "killed-reaper.vigiles-escape.example"
		tried = tried || e.Via == "connect" && e.IP == "192.0.2.77" && e.Port == 443 && e.Proto == "tcp"
	}
	if !made || !named || !tried {
		t.Errorf("the failed run must keep its record whole: file %v, name %v, address %v\n%s", made, named, tried, out.String())
	}
}

// isClosed says whether c is closed, without waiting.
func isClosed(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}
