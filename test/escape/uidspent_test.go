package escape

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// spentUID is the host uid these tests run vigiles as: one no account
// has and no other test uses, so that what its hooks take of the kernel's
// per-user counts (epoll watches, pipe pages, processes) takes nothing
// from another program on the host, nobody's included.
const spentUID = 61234

// spentRunner is a non-root caller of uid spentUID who owns the work
// tree: its sandbox, and vigiles itself (the broker), run as that uid.
func spentRunner(t *testing.T) runner {
	t.Helper()
	requireRoot(t, "the test runs vigiles as a uid of its own, which takes root")
	c := &syscall.Credential{Uid: spentUID, Gid: spentUID}
	return runner{name: "uid-" + strconv.Itoa(spentUID), cred: c, owner: c}
}

// spentRun runs `vigiles run --json --workdir dir ARGS -- python3
// uidspent.py what` as r, through bash when shell is set (to set a
// limit before vigiles starts: shell is run with vigiles and its
// arguments as "$@"), ended at 6 minutes, and returns the result, its
// raw JSON, vigiles' stderr and exit status. It fails the test when
// vigiles gave no JSON result, and kills every process of spentUID left
// once it is done, failing the test if there was one.
func spentRun(t *testing.T, r runner, shell, what string, args ...string) (result, egressResult, string, int) {
	t.Helper()
	dir := workTree(t)
	filepath.Walk(dir, func(p string, _ os.FileInfo, _ error) error {
		return os.Lchown(p, int(r.owner.Uid), int(r.owner.Gid))
	})
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()
	argv := append(append([]string{vigilesBin, "run", "--json", "--workdir", dir}, args...), "--", "python3", "uidspent.py", what)
	if shell != "" {
		argv = append([]string{"/bin/bash", "-c", shell}, argv...)
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = []string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"}
	cmd.Dir = dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: r.cred}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	t.Cleanup(func() { killUID(t, spentUID) })
	if ctx.Err() != nil {
		t.Fatalf("vigiles did not end within 6 minutes (killed)\nstderr: %s", stderr.String())
	}
	var res result
	var er egressResult
	if jerr := json.Unmarshal(stdout.Bytes(), &res); jerr != nil {
		t.Fatalf("vigiles as %s: %v; no JSON result (%v)\nstdout: %.4000s\nstderr: %s", r.name, err, jerr, stdout.String(), stderr.String())
	}
	json.Unmarshal(stdout.Bytes(), &er)
	res.raw = stdout.String()
	return res, er, stderr.String(), cmd.ProcessState.ExitCode()
}

// killUID kills every process of uid left on the host and fails the test
// for each: a run's processes must all be gone once vigiles has ended.
func killUID(t *testing.T, uid int) {
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		st, err := os.Stat(filepath.Join("/proc", e.Name()))
		if err != nil || st.Sys().(*syscall.Stat_t).Uid != uint32(uid) {
			continue
		}
		cmdline, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		syscall.Kill(pid, syscall.SIGKILL)
		t.Errorf("process %d of uid %d was left after the run: %q", pid, uid, bytes.ReplaceAll(cmdline, []byte{0}, []byte{' '}))
	}
}

// checkSpent checks that the run is either complete or an error: what
// the hook said it held, and then, when the run reports no error, that
// the record holds all it did once the resource was spent (the file it
// wrote, the connection it tried, its stdout whole). A run that ends
// with an error is accepted as long as the error is in the result (the
// record then claims nothing whole), and its error is returned.
func checkSpent(t *testing.T, res result, er egressResult, stderr, what string, egress []string) string {
	t.Helper()
	held := ""
	for _, l := range strings.Split(res.Stdout, "\n") {
		if strings.HasPrefix(l, "held ") {
			held = l
		}
	}
	t.Logf("%s; tier %s, exit %d, error %q, limit hit %q", held, res.Tier, res.ExitCode, res.Error, res.LimitHit)
	// A run whose leftovers take long to end (the kernel frees millions
	// of epoll watches as they exit) ended in time all the same: the
	// reaper's status came at the linger's end.
	if res.TimedOut || res.LimitHit == "wall-time" {
		t.Errorf("the run is said to have timed out (timedOut %v, limit hit %q), though the hook ended in time", res.TimedOut, res.LimitHit)
	}
	if res.Error != "" {
		return res.Error
	}
	if res.Tier != "confined" {
		t.Fatalf("tier %s, and no error\nstderr: %s", res.Tier, stderr)
	}
	if held == "" {
		t.Fatalf("the hook did not say what it held, and the run reports no error\nstdout: %.2000s\nstderr: %s\nvigiles: %s", res.Stdout, res.Stderr, stderr)
	}
	if res.ExitCode != 0 {
		t.Errorf("the hook's exit %d, want 0, and no error\nstderr: %s", res.ExitCode, res.Stderr)
	}
	found := false
	for _, w := range res.Writes {
		found = found || w.Path == "after-"+what+".txt" && w.Op == "create"
	}
	if !found {
		t.Errorf("the file written once the %s was spent is missing from a run with no error: %+v", what, res.Writes)
	}
	i := strings.Index(res.Stdout, "line 0000000 ")
	j := strings.Index(res.Stdout, "stdout-sha256 ")
	if i < 0 || j < i {
		t.Errorf("the hook's large stdout is missing from a run with no error (truncated %v)\n%.2000s", res.Stdout != "", res.Stdout)
	} else {
		sum := strings.Fields(res.Stdout[j:])[1]
		if got := fmt.Sprintf("%x", sha256.Sum256([]byte(res.Stdout[i:j]))); got != sum {
			t.Errorf("the hook's stdout is not whole in a run with no error: %d bytes, sha256 %s, want %s", j-i, got, sum)
		}
	}
	seen := map[string]bool{}
	for _, e := range er.Egress {
		seen[e.Via+" "+e.Host+e.IP] = true
	}
	for _, w := range egress {
		if !seen[w] {
			t.Errorf("%q is missing from a run with no error: %v", w, keys(seen))
		}
	}
	return ""
}

// spentEgress is what the record of a record-mode run must hold of the
// hook's tries once it spent what, when the run reports no error.
func spentEgress(what string) []string {
	return []string{"proxy spent-" + what + ".example.test", "connect 192.0.2.10", "connect 198.51.100.20"}
}

// TestSpentEpollWatchesLeaveAWholeRecordOrAnError: the kernel counts
// epoll watches per host uid, fs.epoll.max_user_watches for the whole
// host, and vigiles (the broker) runs as its non-root caller's uid, as
// the sandbox does; the init, which keeps the record, is of that uid too.
// Go's runtime watches every socket, pipe and pidfd it waits on with
// epoll. A hook that takes every watch of its uid, holds them in
// processes that stay, and then writes a file, asks for a host through
// the recording proxy, connects to an address and prints 600 KB, gets a
// run that either holds all of that or reports an error.
func TestSpentEpollWatchesLeaveAWholeRecordOrAnError(t *testing.T) {
	requireBwrap(t)
	r := spentRunner(t)
	res, er, stderr, _ := spentRun(t, r, "", "epoll", "--egress", "record", "--timeout", "4m")
	if !strings.Contains(res.Stdout, "ENOSPC") && res.Error == "" {
		t.Errorf("the hook did not spend its uid's epoll watches (no ENOSPC)\nstdout: %.2000s", res.Stdout)
	}
	// The recording proxy's connection, accepted once the watches were
	// spent, cannot be watched by the runtime, which closes it unread:
	// the run says its record misses it.
	if e := checkSpent(t, res, er, stderr, "epoll", spentEgress("epoll")); e != "" {
		for _, want := range []string{"the recording proxy missed", "closed unread because no epoll watch could be had"} {
			if !strings.Contains(e, want) {
				t.Errorf("the run's error does not say %q: %s", want, e)
			}
		}
	}
}

// TestSpentPipePagesLeaveAWholeRecordOrAnError: the kernel counts the
// pages of every pipe's buffer per host uid, and past
// fs.pipe-user-pages-soft gives each new pipe of that uid the smallest
// buffer (two pages). A hook that passes it, so that a new pipe of its
// uid (the broker's and the init's) is small, and then writes a file,
// tries hosts and prints 600 KB, gets a run that holds all of it or
// reports an error.
func TestSpentPipePagesLeaveAWholeRecordOrAnError(t *testing.T) {
	requireBwrap(t)
	r := spentRunner(t)
	res, er, stderr, _ := spentRun(t, r, "", "pipe", "--egress", "record")
	if !strings.Contains(res.Stdout, "new-pipe=8192") && res.Error == "" {
		t.Errorf("the hook did not pass its uid's pipe pages (a new pipe of the smallest buffer)\nstdout: %.2000s", res.Stdout)
	}
	if e := checkSpent(t, res, er, stderr, "pipe", spentEgress("pipe")); e != "" {
		t.Logf("the run ended with an error: %s", e)
	}
}

// TestSpentProcessesLeaveAWholeRecordOrAnError: RLIMIT_NPROC is checked
// against every process and thread of the host uid, the broker's Go
// threads included; where the caller's own limit is the run's (vigiles
// started under `ulimit -u 128`, --limit-pids 128), a hook that forks
// until the kernel refuses and holds its children left the broker and
// the init no new thread (it forked 108: the sandbox's own count was
// below 128, so the refusal was the host uid's, vigiles' threads
// included); the hook's limit now keeps vigiles' reserve (64) out of its
// reach, and it forks 52. The run holds what the hook did after, or
// reports an error.
func TestSpentProcessesLeaveAWholeRecordOrAnError(t *testing.T) {
	requireBwrap(t)
	r := spentRunner(t)
	res, er, stderr, _ := spentRun(t, r, `ulimit -u 128 && exec "$0" "$@"`, "nproc", "--egress", "record", "--limit-pids", "128")
	if e := checkSpent(t, res, er, stderr, "nproc", spentEgress("nproc")); e != "" {
		t.Logf("the run ended with an error: %s", e)
	}
}

// spentReserve is the share of a non-root caller's process limit that
// vigiles keeps for its own processes and threads (pidsReserve in
// pkg/sandbox).
const spentReserve = 64

// TestSpentProcessesLeaveVigilesItsReserve: vigiles started under a soft
// `ulimit -u 128` (its hard limit left as it was) with the default
// --limit-pids of 512 gives the hook a limit of 128 less its reserve, so
// that a hook that forks until the kernel refuses and holds its children
// leaves the broker and the init room for the threads they need while it
// goes on: the run ends normally, its record whole, with limitHit "pids".
// Before the reserve the hook forked 108 or 109, and then 300
// connections to the recording proxy at once ended the init (Go's
// runtime aborted, exit status 2: the run ended with an error and the
// record was lost), and 2,000 files and 30 MB on stderr ended the broker
// ("runtime: failed to create new OS thread", exit status 2, no result
// at all) about one run in two.
func TestSpentProcessesLeaveVigilesItsReserve(t *testing.T) {
	requireBwrap(t)
	r := spentRunner(t)
	for _, c := range []struct {
		name, what string
		args       []string
		egress     []string
	}{
		{"a busy recording proxy", "nproc-busy", []string{"--egress", "record"}, spentEgress("nproc-busy")},
		{"a loud stderr", "nproc-loud", nil, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			res, er, stderr, status := spentRun(t, r, `ulimit -Su 128 && exec "$0" "$@"`, c.what, c.args...)
			if e := checkSpent(t, res, er, stderr, c.what, c.egress); e != "" {
				t.Errorf("the run ended with an error, where its reserve should have left vigiles room: %s", e)
			}
			if status != 0 {
				t.Errorf("vigiles' exit status %d, want 0\nstderr: %s", status, stderr)
			}
			held := -1
			for _, l := range strings.Split(res.Stdout, "\n") {
				if f := strings.Fields(l); len(f) == 4 && f[0] == "held" {
					held, _ = strconv.Atoi(f[2])
				}
			}
			if held < 0 || held >= 128-spentReserve {
				t.Errorf("the hook held %d processes, want fewer than %d (128 less the reserve of %d)", held, 128-spentReserve, spentReserve)
			}
			if res.LimitHit != "pids" {
				t.Errorf("limit hit %q, want pids", res.LimitHit)
			}
		})
	}
}

// TestSpentProcessesTooFewForTheReserveAreRefused: a caller whose soft
// process limit leaves, once vigiles' reserve is kept, less than the
// sandbox needs (32) is refused before anything starts, naming `ulimit
// -u`, with vigiles' exit status for a refusal, 125.
func TestSpentProcessesTooFewForTheReserveAreRefused(t *testing.T) {
	requireBwrap(t)
	r := spentRunner(t)
	res, _, stderr, status := spentRun(t, r, fmt.Sprintf(`ulimit -Su %d && exec "$0" "$@"`, 32+spentReserve-1), "nproc")
	if res.Tier != "refused" || status != 125 {
		t.Errorf("tier %s, exit status %d; want refused, 125\nstderr: %s", res.Tier, status, stderr)
	}
	for _, want := range []string{"ulimit -u", fmt.Sprintf("at least %d", 32+spentReserve)} {
		if !strings.Contains(res.Refusal, want) {
			t.Errorf("the refusal does not say %q: %s", want, res.Refusal)
		}
	}
	if strings.Contains(res.Stdout, "held ") {
		t.Errorf("the hook ran: %.200s", res.Stdout)
	}
}

// spentAudit is spentRun for an audit: it writes a .claude/settings.json
// of Stop hooks, one for each of commands, into dir, gives the tree to
// r's owner, and starts `vigiles audit --dir dir --jobs jobs` as r,
// through bash when shell is set (as spentRun does), its JSON report to a
// file. during, when set, runs beside the audit until it ends. It
// returns the report's runs, failing the test when vigiles gave none (an
// exit status other than 0 or 1) or not one run a hook, and kills every
// process of spentUID left once it is done.
func spentAudit(t *testing.T, r runner, dir, shell string, jobs int, commands []string, during func(done <-chan struct{})) []spentAuditRun {
	t.Helper()
	var hooks []string
	for _, c := range commands {
		b, _ := json.Marshal(c)
		hooks = append(hooks, `{"hooks":[{"type":"command","command":`+string(b)+`}]}`)
	}
	if err := os.MkdirAll(filepath.Join(dir, ".claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	settings := `{"hooks":{"Stop":[` + strings.Join(hooks, ",") + `]}}`
	if err := os.WriteFile(filepath.Join(dir, ".claude", "settings.json"), []byte(settings), 0o644); err != nil {
		t.Fatal(err)
	}
	filepath.Walk(dir, func(p string, _ os.FileInfo, _ error) error {
		return os.Lchown(p, int(r.owner.Uid), int(r.owner.Gid))
	})
	outDir, err := os.MkdirTemp("", "vigiles-spent-report-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(outDir) })
	os.Chown(outDir, spentUID, spentUID)
	out := filepath.Join(outDir, "report.json")
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()
	argv := []string{vigilesBin, "audit", "--dir", dir, "--baseline", "", "--jobs", strconv.Itoa(jobs), "--format", "json", "-o", out}
	if shell != "" {
		argv = append([]string{"/bin/bash", "-c", shell}, argv...)
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = []string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: r.cred}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done, beside := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(beside)
		if during != nil {
			during(done)
		}
	}()
	err = cmd.Wait()
	close(done)
	<-beside
	t.Cleanup(func() { killUID(t, spentUID) })
	if ctx.Err() != nil {
		t.Fatalf("vigiles did not end within 6 minutes (killed)\nstderr: %s", stderr.String())
	}
	if status := cmd.ProcessState.ExitCode(); status != 0 && status != 1 {
		t.Fatalf("vigiles audit: %v (exit status %d), want a report\nstderr: %s", err, status, stderr.String())
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf("no report: %v\nstderr: %s", err, stderr.String())
	}
	var rep struct{ Runs []spentAuditRun }
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatalf("the report: %v\n%.2000s", err, b)
	}
	if len(rep.Runs) != len(commands) {
		t.Fatalf("%d runs in the report, want %d\nstderr: %s", len(rep.Runs), len(commands), stderr.String())
	}
	return rep.Runs
}

// spentAuditRun is what spentAudit's tests read of a run in the report.
type spentAuditRun struct {
	ID, Tier, Error, LimitHit, Stdout string
	Writes                            []struct{ Path, Op string }
}

// TestSpentProcessesAreSharedByTheLanes: an audit run by a non-root
// caller under a soft `ulimit -u 256` with --jobs 2 gives each hook
// half of it less vigiles' reserve (64), since the kernel checks each
// fork against the uid's whole count: six hooks that each fork until the
// kernel refuses and hold their children, two at a time, each hold fewer
// than 64 and at least half of that (the sandbox's own processes count
// in its share too), each run is recorded whole with limitHit "pids",
// and the audit ends with its report. Before the shares each hook's
// limit was 192, so the two lanes' hooks and vigiles together took the
// uid's count to the caller's limit: a hook held 90 to 116, whatever its
// neighbour had left (0, 3 or 4 with --jobs 4 under 128), no limit was
// named, and vigiles' own threads had no room either.
func TestSpentProcessesAreSharedByTheLanes(t *testing.T) {
	requireBwrap(t)
	r := spentRunner(t)
	var commands []string
	for i := range 6 {
		commands = append(commands, fmt.Sprintf("python3 uidspent.py nproc-loud # %d", i))
	}
	runs := spentAudit(t, r, workTree(t), `ulimit -Su 256 && exec "$0" "$@"`, 2, commands, nil)
	share := 256/2 - spentReserve
	for _, run := range runs {
		held := -1
		for _, l := range strings.Split(run.Stdout, "\n") {
			if f := strings.Fields(l); len(f) == 4 && f[0] == "held" {
				held, _ = strconv.Atoi(f[2])
			}
		}
		written := false
		for _, w := range run.Writes {
			written = written || w.Path == "after-nproc-loud.txt" && w.Op == "create"
		}
		t.Logf("%s: tier %s, held %d, limit hit %q, error %q", run.ID, run.Tier, held, run.LimitHit, run.Error)
		switch {
		case run.Tier != "confined" || run.Error != "":
			t.Errorf("%s: tier %s, error %q; want a confined run recorded whole", run.ID, run.Tier, run.Error)
		case held < share/2 || held >= share:
			t.Errorf("%s: the hook held %d processes, want from %d to %d (its lane's half of 256, less the reserve of %d)", run.ID, held, share/2, share-1, spentReserve)
		case run.LimitHit != "pids":
			t.Errorf("%s: limit hit %q, want pids", run.ID, run.LimitHit)
		case !written:
			t.Errorf("%s: the file written once the processes were spent is missing: %+v", run.ID, run.Writes)
		}
	}
}

// inotifyLanePy opens every inotify instance it may, says how many, and
// holds them for 4 seconds, so that the audit's lanes hold theirs at once.
const inotifyLanePy = `import ctypes, time
l = ctypes.CDLL(None)
held = [fd for fd in (l.inotify_init() for _ in range(300)) if fd >= 0]
print("held", len(held), flush=True)
time.sleep(4)
`

// TestSpentInotifyIsSharedByTheLanes: the kernel counts inotify
// instances per host uid (128 by default), and the hooks an audit runs at
// once share their uid's count with each other and with a non-root
// caller's own programs. Eight hooks run at once (--jobs 8), each opening
// every instance it may and holding them, hold 4 each at most (a quarter
// of the uid's 128, shared by the eight lanes), and all the while a
// program of the caller's uid on the host opens one. Before the shares
// each sandbox allowed 32, so the first four lanes' hooks took all 128:
// the other hooks held none, and the caller's programs could open none.
func TestSpentInotifyIsSharedByTheLanes(t *testing.T) {
	requireBwrap(t)
	r := spentRunner(t)
	limit, err := os.ReadFile("/proc/sys/fs/inotify/max_user_instances")
	if err != nil {
		t.Fatal(err)
	}
	hostMax, _ := strconv.Atoi(strings.TrimSpace(string(limit)))
	want := max(min(32, hostMax/4/8), 1)
	dir := workTree(t)
	if err := os.WriteFile(filepath.Join(dir, "inotifylane.py"), []byte(inotifyLanePy), 0o644); err != nil {
		t.Fatal(err)
	}
	var commands []string
	for i := range 8 {
		commands = append(commands, fmt.Sprintf("python3 inotifylane.py # %d", i))
	}
	// A program of the caller's uid on the host opens an instance, again
	// and again, while the hooks run.
	var failed []string
	probes := 0
	runs := spentAudit(t, r, dir, "", 8, commands, func(done <-chan struct{}) {
		for {
			select {
			case <-done:
				return
			case <-time.After(100 * time.Millisecond):
			}
			probe := exec.Command("/usr/bin/python3", "-c", `import ctypes, os, sys
l = ctypes.CDLL(None, use_errno=True)
fd = l.inotify_init()
sys.exit(0 if fd >= 0 else os.strerror(ctypes.get_errno()))`)
			probe.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: spentUID, Gid: spentUID}}
			if out, err := probe.CombinedOutput(); err != nil {
				failed = append(failed, fmt.Sprintf("%v %s", err, bytes.TrimSpace(out)))
			}
			probes++
		}
	})
	if len(failed) > 0 {
		t.Errorf("while the hooks held their inotify instances, a program of their uid on the host could not open one %d times of %d: %q", len(failed), probes, failed)
	}
	t.Logf("the host's side: %d probes", probes)
	for _, run := range runs {
		held := -1
		if f := strings.Fields(run.Stdout); len(f) >= 2 && f[0] == "held" {
			held, _ = strconv.Atoi(f[1])
		}
		t.Logf("%s: tier %s, held %d, error %q", run.ID, run.Tier, held, run.Error)
		if run.Tier != "confined" || run.Error != "" || held < 1 || held > want {
			t.Errorf("%s: tier %s, error %q, held %d inotify instances; want a confined run that held from 1 to %d (a quarter of the uid's %d, shared by 8 lanes)", run.ID, run.Tier, run.Error, held, want, hostMax)
		}
	}
}
