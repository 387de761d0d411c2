package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/vigiles/action/internal/procwait"
	"github.com/vigiles/action/pkg/sandbox/reaper"
)

// runCgroup holds the processes of a run whose caller is root. Its pids
// controller bounds their number when the sandbox is the host's uid 0
// (RLIMIT_NPROC does not hold for uid 0); its memory controller bounds
// their memory together — every process, and the scratch files, which a
// tmpfs charges to the cgroup of whoever writes them.
//
// The pids limit holds the command alone: it is set on a child cgroup,
// commandDir, which the reaper's forking thread joins just before it
// starts the command (through migrate, a descriptor the broker opened).
// bwrap, the init and the rest of the reaper stay in the run's cgroup
// above it, where a command that fills its limit cannot keep vigiles'
// own processes from the threads their Go runtimes start (the init's
// DNS stub under a flood of questions, once, died of it and took the
// record along).
type runCgroup struct {
	pids string // the run's pids cgroup's directory; "" when RLIMIT_NPROC bounds the run
	// commandDir is the command's pids cgroup, below pids (with pids.max).
	commandDir string
	mem        string // the memory cgroup's directory; "" when no memory controller was usable
	// procsDir is where bwrap is born on cgroup v2: the run's directory,
	// or, when that distributes pids to commandDir (and so may hold no
	// process of its own), its leaf "sandbox".
	procsDir string
	// swapBound: the memory limit holds swap too (the kernel accounts it).
	swapBound bool
	// The connector's cgroup, below mem (startConnector), is removed once
	// the connector is reaped, which may come after the run is over: mem
	// is then removed by whichever of remove and that comes last.
	connMu      sync.Mutex
	connectors  int    // connectors started in mem and not yet reaped
	removed     bool   // remove ran, and left mem to the last connector
	connOOMKill uint64 // the OOM kills counted in connector cgroups already removed
	// v2: cgroup v2, where both are one directory and a process can only
	// be moved whole (a shell moves itself in; see shellPrefix). On v1
	// one thread may join a cgroup alone (its tasks file), so a child can
	// be born inside without a shell.
	v2 bool
}

var cgroupSeq atomic.Int64

// Where a cgroup v1 host mounts the pids and memory hierarchies (a
// variable for the test of a host without a usable memory controller).
const v1PidsRoot = "/sys/fs/cgroup/pids"

var v1MemoryRoot = "/sys/fs/cgroup/memory"

// newRunCgroup returns nil when the caller is not root (it could not make
// a cgroup), a fresh cgroup otherwise, and an error naming the fix when
// the sandbox is the host's uid 0 and no pids cgroup can be made. A memory
// controller that cannot be used leaves the run bounded per process
// (RLIMIT_AS) only, as a non-root caller's run is; vigiles doctor says so.
// owner: the sandbox runs as the work tree's (non-root) owner.
func newRunCgroup(root, hostRoot, owner bool, lim Limits) (*runCgroup, error) {
	if !root {
		return nil, nil
	}
	name := cgroupName(cgroupSeq.Add(1))
	if _, err := os.Stat("/sys/fs/cgroup/cgroup.controllers"); err == nil {
		if owner {
			// The shell that moves the sandbox into the cgroup would
			// run as the owner, who may not write cgroup.procs.
			return nil, nil
		}
		return newV2Cgroup(name, hostRoot, lim)
	}
	c := &runCgroup{}
	// Every root caller's run gets a pids cgroup where one can be made: its
	// child "command" bounds the command's processes together and spares
	// the shell that sets RLIMIT_NPROC. Only a sandbox whose uid 0 is the host's root needs
	// one (RLIMIT_NPROC does not bound uid 0) and refuses without it.
	if home, ok := ownCgroup(v1PidsRoot); ok {
		sweepCgroups(home)
		dir, _, err := makeCgroup(home, name, nil)
		var cmdDir string
		if err == nil {
			if cmdDir, _, err = makeCgroup(dir, commandCgroup, pidsLimit(lim)); err != nil {
				os.Remove(dir)
				dir = ""
			}
		}
		if err != nil && hostRoot {
			return nil, pidsRefusal(err)
		}
		c.pids, c.commandDir = dir, cmdDir
	} else if hostRoot {
		return nil, pidsRefusal(fmt.Errorf("this process's own cgroup is not to be found under %s", v1PidsRoot))
	}
	// Without its own cgroup in view the broker could not leave the run's
	// again: the run is then bounded per process only.
	if home, ok := ownCgroup(v1MemoryRoot); ok {
		sweepCgroups(home)
		if dir, skipped, err := makeCgroup(home, name, memoryLimitV1(lim)); err == nil {
			c.mem, c.swapBound = dir, len(skipped) == 0
		}
	}
	if c.pids == "" && c.mem == "" {
		return nil, nil
	}
	return c, nil
}

// ownCgroup is the calling thread's cgroup directory in the v1 hierarchy
// mounted at root. A run's cgroups are made there, below the caller's own,
// so that every limit above the caller holds the run too. Where the mount
// shows only part of the hierarchy (a container's cgroup bind-mounted at
// root), the path /proc/thread-self/cgroup gives is shortened from the
// front until a directory under root lists this thread; false when none
// does. The directory found is kept for the process's later runs by
// root and that path (ownCgroups): a thread moved to another cgroup reads
// another path, and is looked for anew.
func ownCgroup(root string) (string, bool) {
	b, err := os.ReadFile("/proc/thread-self/cgroup")
	if err != nil {
		return "", false
	}
	controller := filepath.Base(root)
	tid := strconv.Itoa(unix.Gettid())
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.SplitN(line, ":", 3)
		if len(f) != 3 || f[1] != controller {
			continue
		}
		key := root + "\x00" + f[2]
		if dir, ok := ownCgroups.Load(key); ok {
			return dir.(string), true
		}
		parts := strings.Split(strings.Trim(f[2], "/"), "/")
		for i := 0; i <= len(parts); i++ {
			dir := filepath.Join(append([]string{root}, parts[i:]...)...)
			if listsTask(filepath.Join(dir, "tasks"), tid) {
				ownCgroups.Store(key, dir)
				return dir, true
			}
		}
	}
	return "", false
}

// ownCgroups holds what ownCgroup found, by the hierarchy's root and the
// thread's path in it: the search reads the tasks file of each directory
// it tries (where the caller is at the root, the task of every process
// there) in every run.
var ownCgroups sync.Map

func listsTask(tasks, tid string) bool {
	b, err := os.ReadFile(tasks)
	if err != nil {
		return false
	}
	for _, f := range strings.Fields(string(b)) {
		if f == tid {
			return true
		}
	}
	return false
}

// newV2Cgroup makes the run's cgroup below this process's own (or beside
// it), in the first place where the controllers it needs are enabled.
func newV2Cgroup(name string, hostRoot bool, lim Limits) (*runCgroup, error) {
	var parents []string
	self, _ := os.ReadFile("/proc/self/cgroup")
	for _, line := range strings.Split(string(self), "\n") {
		if rest, ok := strings.CutPrefix(line, "0::"); ok {
			dir := filepath.Join("/sys/fs/cgroup", rest)
			parents = append(parents, filepath.Dir(dir), dir)
		}
	}
	var errs []error
	for _, parent := range parents {
		sweepCgroups(parent)
		dir, _, err := makeCgroup(parent, name, nil)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		c := &runCgroup{v2: true, mem: dir, procsDir: dir}
		if hostRoot {
			// The run's directory hands pids down to the command's, and
			// holds no process of its own (cgroup v2's rule for one that
			// distributes a controller): bwrap is born in a leaf beside.
			if err := c.splitV2(dir, lim); err != nil {
				removeCgroup(filepath.Join(dir, commandCgroup), 500*time.Millisecond)
				removeCgroup(filepath.Join(dir, sandboxCgroup), 500*time.Millisecond)
				removeCgroup(dir, 500*time.Millisecond)
				errs = append(errs, err)
				continue
			}
		}
		if skipped, err := writeCgroupFiles(dir, memoryLimitV2(lim)); err != nil {
			c.mem = ""
		} else {
			c.swapBound = len(skipped) == 0
		}
		if c.pids == "" && c.mem == "" {
			os.Remove(dir)
			return nil, nil
		}
		return c, nil
	}
	if hostRoot {
		return nil, pidsRefusal(errors.Join(errs...))
	}
	return nil, nil
}

// The children of a run's cgroup: the command's (pids.max) and, on
// cgroup v2, the leaf where bwrap is born.
const (
	commandCgroup = "command"
	sandboxCgroup = "sandbox"
	// connectorCgroup holds the network connector (slirp4netns or
	// pasta, on the host) below the run's memory cgroup, so that what it
	// holds for the command's connections counts in the run's limit.
	connectorCgroup = "connector"
)

// splitV2 makes dir's two children, commandDir (with the pids limit) and
// the leaf bwrap is born in, and hands the pids controller down to them.
func (c *runCgroup) splitV2(dir string, lim Limits) error {
	leaf, _, err := makeCgroup(dir, sandboxCgroup, nil)
	if err != nil {
		return err
	}
	cmdDir, _, err := makeCgroup(dir, commandCgroup, nil)
	if err != nil {
		return err
	}
	if err := writeControl(filepath.Join(dir, "cgroup.subtree_control"), "+pids"); err != nil {
		return fmt.Errorf("handing the pids controller to the command's cgroup: %w", err)
	}
	if _, err := writeCgroupFiles(cmdDir, pidsLimit(lim)); err != nil {
		return err
	}
	c.pids, c.commandDir, c.procsDir = dir, cmdDir, leaf
	return nil
}

func pidsRefusal(err error) error {
	return fmt.Errorf("running as root, the process limit needs a writable pids cgroup, and none could be made (%w); "+
		"fix: run vigiles as a non-root user, or give it a writable cgroup (in a container: --cgroupns=private with a writable /sys/fs/cgroup)", err)
}

// cgroupFile is one control file and the value a run's cgroup gets;
// optional files are skipped where the kernel does not have them (swap
// accounting, for one).
type cgroupFile struct {
	name, value string
	optional    bool
}

func pidsLimit(lim Limits) []cgroupFile {
	return []cgroupFile{{name: "pids.max", value: strconv.Itoa(lim.Pids)}}
}

// The memory limits hold swap too: a run cannot spill past its limit
// into the host's swap.
func memoryLimitV1(lim Limits) []cgroupFile {
	v := strconv.FormatUint(lim.RunMemoryBytes, 10)
	return []cgroupFile{{name: "memory.limit_in_bytes", value: v}, {name: "memory.memsw.limit_in_bytes", value: v, optional: true}}
}

func memoryLimitV2(lim Limits) []cgroupFile {
	return []cgroupFile{{name: "memory.max", value: strconv.FormatUint(lim.RunMemoryBytes, 10)},
		{name: "memory.swap.max", value: "0", optional: true}}
}

// makeCgroup makes parent/name with files written, or nothing; skipped
// are the optional files the kernel does not have.
func makeCgroup(parent, name string, files []cgroupFile) (string, []string, error) {
	dir := filepath.Join(parent, name)
	if err := os.Mkdir(dir, 0o755); err != nil {
		return "", nil, err
	}
	skipped, err := writeCgroupFiles(dir, files)
	if err != nil {
		os.Remove(dir)
		return "", nil, err
	}
	return dir, skipped, nil
}

func writeCgroupFiles(dir string, files []cgroupFile) (skipped []string, err error) {
	for _, f := range files {
		err := writeControl(filepath.Join(dir, f.name), f.value)
		switch {
		case err == nil:
		case f.optional && errors.Is(err, os.ErrNotExist):
			skipped = append(skipped, f.name)
		default:
			return skipped, err
		}
	}
	return skipped, nil
}

// writeControl writes an existing control file. It never creates one: a
// cgroup file system answers a create with EACCES, which would hide that
// the kernel simply has no such file.
func writeControl(path, value string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		return err
	}
	_, err = f.WriteString(value)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// scratch bounds the scratch tmpfs of a run this cgroup holds, in bytes
// and in files: its files are charged to the run's memory and outlive the
// processes that wrote them, so their data and their inodes (a quarter of
// what the limit leaves beyond vigiles' own MinRunMemory, at
// scratchInodeBytes each) stay inside the memory limit, vigiles' own
// processes can still finish the record, and a full scratch is reported as
// such. Without a memory cgroup the scratch keeps its size, at least
// MinScratch, as with one (0 is the init's default), and holds one file or
// directory for each scratchBytesPerInode of it: the kernel's default
// count is half the host's pages, some three million files on 24 GiB,
// whose inodes (scratchInodeBytes each, which the size does not count)
// took three times as much of the host's memory as the size allowed, and
// filled the scratch without its limit ever being named.
func (c *runCgroup) scratch(lim Limits) (bytes, inodes uint64) {
	if c == nil || c.mem == "" {
		size := lim.ScratchBytes
		if size != 0 {
			size = max(size, MinScratch)
		}
		n := size
		if n == 0 {
			n = reaper.Defaults.ScratchBytes
		}
		return size, max(n/scratchBytesPerInode, 1024)
	}
	avail := lim.RunMemoryBytes - MinRunMemory
	inodes = max(avail/4/scratchInodeBytes, 1024)
	data := avail - min(avail, inodes*scratchInodeBytes)
	return max(min(lim.ScratchBytes, data), MinScratch), inodes
}

// dirs are the cgroup's directories, each once, children before their
// parents (the order they are removed in).
func (c *runCgroup) dirs() []string {
	var out []string
	for _, d := range []string{c.commandDir, c.procsDir, c.pids, c.mem} {
		if d != "" && !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	return out
}

// bindsPids reports whether a pids cgroup bounds the command's processes
// (the reaper then joins it, through migrate, and execs the command
// without the shell that sets RLIMIT_NPROC).
func (c *runCgroup) bindsPids() bool { return c != nil && c.commandDir != "" }

// holdsMemory says whether a memory cgroup bounds the whole run.
func (c *runCgroup) holdsMemory() bool { return c != nil && c.mem != "" }

// runMemoryRefusal says why a whole-run memory limit that was asked for
// cannot be held for this run, and the fix. The default limit is not
// asked for: where nothing holds it the run is bounded per process, as
// vigiles doctor says (memory-cgroup).
func runMemoryRefusal(limit uint64, root, owner bool) error {
	var why string
	_, err := os.Stat("/sys/fs/cgroup/cgroup.controllers")
	switch v2 := err == nil; {
	case !root:
		why = "vigiles makes memory cgroups for root callers only"
	case v2 && owner:
		why = "on cgroup v2 only a --root-sandbox run on a root-owned tree gets a cgroup (another uid's sandbox could not be moved into one)"
	default:
		why = "no memory controller can be used below this process's cgroup (vigiles doctor: memory-cgroup)"
	}
	return fmt.Errorf("a whole-run memory limit of %d MiB was asked for (--limit-run-memory, limits.run-memory) and no memory cgroup can hold it here: %s; "+
		"fix: drop the limit (each process stays bounded by --limit-memory, limits.memory), or run where a memory cgroup can be made", limit>>20, why)
}

// migrate opens the file through which a thread moves itself into the
// command's cgroup by writing "0": tasks on v1, where the reaper's forking
// thread goes alone; cgroup.procs on v2, where the whole reaper goes. The
// broker opens it, as root and in its own cgroup namespace, so that the
// kernel checks the move against those (the credentials and namespace a
// cgroup file was opened with) and not against the sandbox's: the
// sandbox's cgroup namespace is rooted where bwrap was born, which on v2
// does not hold the command's cgroup.
func (c *runCgroup) migrate() (*os.File, error) {
	if !c.bindsPids() {
		return nil, nil
	}
	name := "tasks"
	if c.v2 {
		name = "cgroup.procs"
	}
	return os.OpenFile(filepath.Join(c.commandDir, name), os.O_WRONLY, 0)
}

// start starts cmd so that it is born inside the cgroup, with every
// process it makes (moving a running process would leave the children it
// already has outside). On cgroup v1 the forking thread joins the cgroup
// alone, forks, and goes back; cmd.Path is started directly. Otherwise
// cmd must already be the shell of shellPrefix, which moves itself in and
// execs the rest.
//
// The thread names itself "0", not by its tid: a thread that moves itself
// through tasks is the one move that recent kernels (6.18 here) make
// without the writer's side of cgroup_threadgroup_rwsem, whose first writer
// after a quiet spell waits for a whole RCU grace period: 12-17 ms on the
// development VM, before bwrap could start (docs/performance.md, item 14).
// An older kernel takes the lock for "0" too: the same move, as slow.
func (c *runCgroup) start(cmd *exec.Cmd) error {
	if c == nil || c.v2 {
		return cmd.Start()
	}
	// Each run cgroup was made in the broker's own (ownCgroup): that is
	// where the thread goes back to.
	members := slices.DeleteFunc([]string{c.pids, c.mem}, func(d string) bool { return d == "" })
	return startInV1(cmd, members, members)
}

// startInV1 starts cmd on a thread that joins each cgroup v1 directory of
// members alone ("0" written to its tasks: no RCU grace period, see start),
// forks, and goes back to the parent of the same hierarchy's directory in
// runs (the run's cgroup there, made in the broker's own).
func startInV1(cmd *exec.Cmd, members, runs []string) error {
	var err error
	// The fork happens on this thread, and so does Pdeathsig's watch
	// (golang/go#27505): the thread must outlive cmd unless it could not
	// leave the cgroup, when it ends with this goroutine and takes its
	// membership along (cmd then dies too); never the main thread, which
	// would keep it (offMainThread).
	offMainThread(func() bool {
		const self = "0" // the writing thread
		joined := 0
		for _, dir := range members {
			if err = writeControl(filepath.Join(dir, "tasks"), self); err != nil {
				err = fmt.Errorf("entering the run's cgroup: %w", err)
				break
			}
			joined++
		}
		if err == nil {
			err = cmd.Start()
		}
		for _, dir := range runs[:joined] {
			if werr := writeControl(filepath.Join(filepath.Dir(dir), "tasks"), self); werr != nil {
				if err == nil {
					cmd.Process.Kill()
					cmd.Wait()
				}
				err = fmt.Errorf("leaving the run's cgroup: %w", werr)
				return false
			}
		}
		return true
	})
	return err
}

// startConnector starts cmd, the network connector's process (allow
// mode), born inside connectorCgroup below the run's memory cgroup, so
// that the memory it holds on the host for the command's connections
// (slirp4netns keeps in its own what each TCP connection has in flight)
// counts in the run's limit, beside the sandbox's own. It is not moved
// there: on cgroup v1 the forking thread joins that cgroup alone, as
// bubblewrap's does (start); on v2 it is cloned into it (clone3's
// CLONE_INTO_CGROUP), neither of which waits for an RCU grace period.
// It joins no pids cgroup: the run's kill and remove, which end what
// theirs hold, do not end it before the network layer stops it.
//
// reaped, called once the connector is reaped, removes its cgroup, and
// the run's memory cgroup too when remove has run meanwhile. Without a
// memory cgroup (a non-root caller) cmd just starts: its memory is the
// caller's, unbounded by vigiles.
func (c *runCgroup) startConnector(cmd *exec.Cmd) (reaped func(), err error) {
	if !c.holdsMemory() {
		return func() {}, cmd.Start()
	}
	dir, _, err := makeCgroup(c.mem, connectorCgroup, nil)
	if err != nil {
		return nil, fmt.Errorf("making the connector's memory cgroup: %w", err)
	}
	c.connMu.Lock()
	c.connectors++
	c.connMu.Unlock()
	lateCgroups.Add(1)
	reaped = sync.OnceFunc(func() { defer lateCgroups.Done(); c.connectorGone(dir) })
	if c.v2 {
		var fd *os.File
		if fd, err = os.Open(dir); err == nil {
			if cmd.SysProcAttr == nil {
				cmd.SysProcAttr = &syscall.SysProcAttr{}
			}
			cmd.SysProcAttr.UseCgroupFD, cmd.SysProcAttr.CgroupFD = true, int(fd.Fd())
			err = cmd.Start()
			fd.Close()
		}
	} else {
		// Back to the broker's own cgroup, not to mem, dir's parent.
		err = startInV1(cmd, []string{dir}, []string{c.mem})
	}
	if err != nil {
		reaped()
		return nil, fmt.Errorf("starting the connector in the run's memory cgroup: %w", err)
	}
	return reaped, nil
}

// lateCgroups counts the cgroups removed after their run returned, not
// yet gone: the connectors' and those remove left to the background
// (WaitCgroups).
var lateCgroups sync.WaitGroup

// WaitCgroups waits until the cgroups removed after their run returned
// are gone: the cgroup of every connector started (startConnector), with
// the run's memory cgroup where the connector outlived its run, and the
// cgroups of a run whose last process was slower to leave than remove
// waits (one killed for memory, under pressure), which go on being
// removed in the background. Call it before the process exits, once the
// network layer has been told to stop its connectors: each connector's is
// removed once its connector is reaped, which may come after the run
// returned (pasta's guard, reaped on its own; a connector whose stop
// comes late). An exit before that left the run's cgroups behind, empty,
// until the next broker's sweep.
func WaitCgroups() { lateCgroups.Wait() }

// connectorGone removes dir, a connector's cgroup whose connector was
// reaped, keeping the OOM kills it counted for hit, and the run's memory
// cgroup when remove left that to it.
func (c *runCgroup) connectorGone(dir string) {
	c.connMu.Lock()
	if !c.v2 { // v1 counts a kill in the victim's cgroup only
		c.connOOMKill += cgroupCounter(filepath.Join(dir, "memory.oom_control"), "oom_kill")
	}
	c.connMu.Unlock()
	removeCgroup(dir, 30*time.Second)
	c.connMu.Lock()
	c.connectors--
	last := c.connectors == 0 && c.removed
	c.connMu.Unlock()
	if last {
		removeCgroup(c.mem, 30*time.Second)
	}
}

// shellPrefix is what goes before argv when a shell must move the sandbox
// into the cgroup (cgroup v2): nil on cgroup v1.
func (c *runCgroup) shellPrefix() []string {
	if c == nil || !c.v2 {
		return nil
	}
	return []string{"/bin/sh", "-c", `echo $$ > "$0" && exec "$@"`, filepath.Join(c.procsDir, "cgroup.procs")}
}

// hit names the limit the cgroup enforced: "memory" when its OOM killer
// ended a process, "pids" when it refused a fork, "" otherwise.
func (c *runCgroup) hit() string {
	if c == nil {
		return ""
	}
	if c.mem != "" {
		file := "memory.oom_control" // v1
		if c.v2 {
			file = "memory.events"
		}
		if cgroupCounter(filepath.Join(c.mem, file), "oom_kill") > 0 {
			return "memory"
		}
		// On v1 a kill of the connector counts in its own cgroup only.
		c.connMu.Lock()
		conn := c.connOOMKill
		if !c.v2 && c.connectors > 0 {
			conn += cgroupCounter(filepath.Join(c.mem, connectorCgroup, file), "oom_kill")
		}
		c.connMu.Unlock()
		if conn > 0 {
			return "memory"
		}
	}
	if c.commandDir != "" && cgroupCounter(filepath.Join(c.commandDir, "pids.events"), "max") > 0 {
		return "pids"
	}
	return ""
}

// cgroupCounter reads the "key N" line of a flat-keyed cgroup file.
func cgroupCounter(path, key string) uint64 {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) == 2 && f[0] == key {
			n, _ := strconv.ParseUint(f[1], 10, 64)
			return n
		}
	}
	return 0
}

// cgroupName is the name of the broker's n-th run cgroup:
// vigiles-nsNS-PID-START-N, NS the inode of the broker's pid namespace and
// START its start time (in clock ticks after boot, /proc/PID/stat). Brokers
// in two pid namespaces (two containers sharing a cgroup parent) may have
// one pid, and a namespace's inode is given again once it is gone, as a
// pid is (a broker that was pid 1 of one, killed, and the next pid 1 of
// the next met on one name and the second ran without its cgroups): the
// three together name one process. The "ns" keeps an older vigiles,
// which swept vigiles-PID-N, from reading a pid out of the name.
func cgroupName(n int64) string {
	return cgroupPrefix + procwait.OwnerTag() + strconv.FormatInt(n, 10)
}

// cgroupPrefix begins every cgroup a broker makes, before its OwnerTag.
const cgroupPrefix = "vigiles-"

// brokerStart is how a sweep reads a broker's start time: startTime, which
// a test replaces with one that fails as a read out of descriptors does.
var brokerStart = procwait.StartTime

// sweepCgroups removes the cgroups that brokers killed before they could
// clean up left behind: vigiles-nsNS-PID-START-N with NS this broker's
// pid namespace and no process PID that started at START. Another
// namespace's pids cannot be looked up from here, so its cgroups are left
// to its own brokers.
//
// What such a cgroup still holds is ended first: a broker killed while
// bubblewrap set up (SIGKILL, the OOM killer) took bubblewrap with it
// (its parent-death signal), but bubblewrap's child, which asks for that
// signal only later, waits for it for good, blocked on an eventfd only
// bubblewrap writes (bubblewrap issue #633). It holds the sandbox's
// namespaces and keeps the cgroup busy, so it stayed until the reboot.
// Nothing in a dead broker's cgroup has anyone to report to.
func sweepCgroups(parent string) {
	ents, err := os.ReadDir(parent)
	if err != nil {
		return
	}
	for _, e := range ents {
		if !e.IsDir() || !procwait.OwnerGone(e.Name(), cgroupPrefix, brokerStart) {
			continue // not a broker's cgroup, or its broker still runs, or may
		}
		dir := filepath.Join(parent, e.Name())
		for _, d := range []string{filepath.Join(dir, commandCgroup), filepath.Join(dir, sandboxCgroup), filepath.Join(dir, connectorCgroup), dir} {
			killCgroupProcs(d)
		}
		os.Remove(filepath.Join(dir, commandCgroup)) // each fails, harmlessly, when not empty
		os.Remove(filepath.Join(dir, sandboxCgroup))
		os.Remove(filepath.Join(dir, connectorCgroup))
		os.Remove(dir)
	}
}

// kill ends every process of the run's cgroups, as a sweep ends those of a
// dead broker's: bubblewrap, the sandbox, and a child bubblewrap orphaned,
// which a kill of bubblewrap's process group misses. That child leaves the
// group (--new-session) before it asks to die with its parent, and killed
// between the two (a run cancelled while bubblewrap sets up) it lives on
// (bubblewrap issue #633), holding the output pipes open: Wait then waited
// out orphanedOutput for it, and reapOrphan as long again.
func (c *runCgroup) kill() {
	if c == nil {
		return
	}
	for _, dir := range c.dirs() {
		killCgroupProcs(dir)
	}
}

// killCgroupProcs sends SIGKILL to every process dir's cgroup.procs lists
// but this one (a thread of it may be passing through on cgroup v1, see
// start), through a pidfd taken while the process is still listed there,
// so that a pid given again to another process meanwhile is not the one
// signalled. The kill is not waited for: a sweep's rmdir may still find
// the cgroup busy, and the next sweep removes it.
func killCgroupProcs(dir string) {
	procs := cgroupProcs(dir)
	if len(procs) == 0 {
		return
	}
	var fds []int
	for _, pid := range procs {
		if pid == os.Getpid() {
			continue
		}
		if fd, err := unix.PidfdOpen(pid, 0); err == nil {
			fds = append(fds, fd)
		}
	}
	// Listed after its pidfd was opened: the pidfd is that process's.
	still := map[int]bool{}
	for _, pid := range cgroupProcs(dir) {
		still[pid] = true
	}
	for _, fd := range fds {
		if pid, err := pidfdPid(fd); err == nil && still[pid] {
			_ = unix.PidfdSendSignal(fd, unix.SIGKILL, nil, 0)
		}
		unix.Close(fd)
	}
}

// cgroupProcs reads the pids dir/cgroup.procs lists.
func cgroupProcs(dir string) []int {
	b, err := os.ReadFile(filepath.Join(dir, "cgroup.procs"))
	if err != nil {
		return nil
	}
	var out []int
	for _, f := range strings.Fields(string(b)) {
		if pid, err := strconv.Atoi(f); err == nil && pid > 0 {
			out = append(out, pid)
		}
	}
	return out
}

// pidfdPid is the pid a pidfd refers to ("Pid:" in its fdinfo).
func pidfdPid(fd int) (int, error) {
	b, err := os.ReadFile("/proc/self/fdinfo/" + strconv.Itoa(fd))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "Pid:"); ok {
			return strconv.Atoi(strings.TrimSpace(v))
		}
	}
	return 0, errors.New("no Pid in a pidfd's fdinfo")
}

func (c *runCgroup) remove() {
	if c == nil {
		return
	}
	dirs := c.dirs()
	c.connMu.Lock()
	c.removed = true
	if c.connectors > 0 {
		// A connector not reaped yet holds mem (its cgroup is below):
		// the last one's reaping removes mem (connectorGone).
		dirs = slices.DeleteFunc(dirs, func(d string) bool { return d == c.mem })
	}
	c.connMu.Unlock()
	for i, dir := range dirs {
		if !removeCgroup(dir, 500*time.Millisecond) {
			// A process slower to leave (one killed for memory, under
			// pressure): the run does not wait for it, and the cgroups
			// are not left for as long as the broker lives (an audit's)
			// either. Those after it are its parents, busy until it goes.
			// The broker's exit waits for them (WaitCgroups).
			lateCgroups.Add(1)
			go func() {
				defer lateCgroups.Done()
				for _, d := range dirs[i:] {
					removeCgroup(d, 30*time.Second)
				}
			}()
			return
		}
	}
}

// removeCgroup removes dir, retrying for up to wait while it is busy; it
// reports whether dir is gone.
func removeCgroup(dir string, wait time.Duration) bool {
	// The sandbox's processes are usually gone by now, but the last of
	// them may still be exiting (one run in ten here): then the cgroup is
	// busy for a moment, so the first retries come soon.
	delay := 200 * time.Microsecond
	for deadline := time.Now().Add(wait); ; {
		err := unix.Rmdir(dir)
		if err == nil || errors.Is(err, unix.ENOENT) {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		// Kill what is left (a run ended by its deadline) and try again.
		b, _ := os.ReadFile(filepath.Join(dir, "cgroup.procs"))
		for _, f := range strings.Fields(string(b)) {
			if pid, err := strconv.Atoi(f); err == nil && pid != os.Getpid() {
				syscall.Kill(pid, syscall.SIGKILL)
			}
		}
		time.Sleep(delay)
		delay = min(2*delay, 10*time.Millisecond)
	}
}
