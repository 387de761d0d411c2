package reaper

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/vigiles/action/pkg/sandbox/internal/exact"
	"github.com/vigiles/action/pkg/sandbox/internal/fsx"
	"github.com/vigiles/action/pkg/sandbox/landlock"
	"github.com/vigiles/action/pkg/sandbox/seccomp"
)

// Argv0 is the reaper's whole command line, which selects its role in
// vigiles-reaper and in the binaries that carry every role
// (vigiles-sandbox, vigiles: Is). The reaper is pid 1 of the command's pid
// namespace, so this is what a hook reads in /proc/1/cmdline and ps
// shows: an init's command line, not a name of vigiles' (a hook that
// greps for one to behave only when unwatched finds none); its comm is an
// init's too (nameThreads).
const Argv0 = "/sbin/init"

// comm is the name every thread of the reaper carries in
// /proc/1/task/*/comm, where the exec by descriptor left "9".
const comm = "init"

// Is says whether args, a process's os.Args, select the reaper's role.
func Is(args []string) bool { return len(args) == 1 && args[0] == Argv0 }

// Protocol numbers the init–reaper protocol (Config, Status and the
// fds). Bump it on any change: an init and a reaper from different builds
// must refuse each other.
const Protocol = 7

// The reaper's descriptors, as the init hands them over.
const (
	FdConfig = 3 // the reaper reads its Config, as JSON, to EOF
	FdStatus = 4 // the reaper writes its Status, as JSON
	// FdExited gets one byte, ExitedByte, the moment the command's main
	// process has exited: the init's deadline bounds the command from its
	// start (--timeout), and only what it leaves gets the linger after
	// that, which the init cannot tell without this notice (the status
	// comes once the linger is over).
	FdExited = 5
	// FdCgroup, when Config.PidsByCgroup, is the command's pids cgroup's
	// tasks (cgroup v1) or cgroup.procs (v2), opened by the broker: the
	// reaper's forking thread joins it (writes "0") just before it starts
	// the command, so that the limit counts the command's processes and
	// not vigiles' own (the init's, bwrap's, the reaper's other threads).
	FdCgroup = 6
)

// ExitedByte is what the reaper writes on FdExited.
const ExitedByte = 'x'

// Config is what the init tells the reaper once the sandbox's mounts are
// made: all the reaper needs to confine itself. What the egress set-up
// decides (the command's proxy variables, resolv.conf's text) comes later,
// with the command (CommandDoc), so that the reaper's start-up and
// confinement run beside that set-up instead of after it.
type Config struct {
	Protocol int `json:"protocol"`
	// Command is always null here: the command comes in CommandDoc.
	Command exact.Strings `json:"command"`
	Cwd     exact.String  `json:"cwd"`
	Limits  Limits        `json:"limits"`
	Linger  time.Duration `json:"linger"`
	// ResolvConfFile, when set, is a file the init made in RunDir and
	// fills with the egress layer's resolv.conf before it sends the
	// command: the reaper binds it, read-only, over /etc/resolv.conf.
	// (Where /etc/resolv.conf links into the sandbox's /run, the init
	// writes the link's target itself, and this is empty.)
	ResolvConfFile exact.String `json:"resolvConfFile,omitempty"`
	// PidsByCgroup: a pids cgroup bounds the command, which the reaper
	// joins through FdCgroup; the command is exec'd directly instead of
	// through the shell that sets RLIMIT_NPROC.
	PidsByCgroup bool `json:"pidsByCgroup"`
	// RunDir is the init's directory: hidden from the command under an
	// empty read-only tmpfs (a resolv.conf placed through it stays).
	RunDir exact.String `json:"runDir"`
	// ReadOnly are the mount points made read-only for the command, those
	// of them that are mounts: every write it can make then lands where
	// it is recorded.
	ReadOnly exact.Strings `json:"readOnly"`
	// Writable are the only places Landlock, where the kernel has it,
	// lets the command write: the second wall behind ReadOnly.
	Writable exact.Strings `json:"writable"`
}

// CommandDoc is the second document on FdConfig, after the Config (whose
// Command is then null), sent once the egress wall is up and the run's
// turn has come: a reaper from a build before the protocol number reads
// only the first, finds no command and runs none. The reaper reads it
// confined, with nothing left to do but start the command.
type CommandDoc struct {
	Command exact.Strings `json:"command"`
	Env     exact.Strings `json:"env"`
}

// Status is what the reaper tells the init about the command.
type Status struct {
	// Protocol is the reaper's own Protocol, in every status it sends:
	// the init takes no status without it, so a binary of a build from
	// before the protocol number (which reads the config, ignores what
	// it does not know, and would apply fewer layers) makes the run
	// fail rather than pass.
	Protocol int    `json:"protocol"`
	Error    string `json:"error,omitempty"`
	Refusal  string `json:"refusal,omitempty"`
	ExitCode int    `json:"exitCode"`
	Signal   string `json:"signal"`
	// Lingered are the processes left when the linger ended, as the
	// kernel names them.
	Lingered []Process `json:"lingered,omitempty"`
	LimitHit string    `json:"limitHit,omitempty"`
	// DurationNs is from just before the command's exec to its main
	// process's exit.
	DurationNs int64 `json:"durationNs"`
}

// Process is one entry of the lingered list: a process the command left,
// as the kernel names it, in bytes (a command line or a name need not be
// UTF-8, and JSON carries them exactly: exact), for the init and the
// broker to show (pkg/sandbox: shownLingered). An entry with no Pid stands
// for processes not listed: More of them, or Unlisted.
type Process struct {
	Pid int `json:"pid,omitempty"`
	// Cmdline is /proc/PID/cmdline without the NUL that ends its last
	// argument, its other NULs (between the arguments, and each empty
	// argument's) kept, at most maxCmdline bytes; Cut says there was more.
	Cmdline exact.String `json:"cmdline,omitempty"`
	Cut     bool         `json:"cut,omitempty"`
	// Name is the name the process gave itself (/proc/PID/stat's), where
	// its command line is empty: emptied, or a main thread that exited
	// while others run on.
	Name exact.String `json:"name,omitempty"`
	// More, in the last entry of a list cut at maxLingered, counts the
	// processes it does not list (at most: some may have ended).
	More int `json:"more,omitempty"`
	// Unlisted: the kernel says processes are left that the scan of
	// /proc did not list (they forked and exited while it read).
	Unlisted bool `json:"unlisted,omitempty"`
}

// Limits bound a confined command. Zero means the default.
type Limits struct {
	Pids        int    `json:"pids"`        // processes (RLIMIT_NPROC)
	MemoryBytes uint64 `json:"memoryBytes"` // address space per process (RLIMIT_AS)
	// RunMemoryBytes bounds the memory of the whole run (every process,
	// and the scratch files) where a memory cgroup can be made: for root
	// callers.
	RunMemoryBytes uint64 `json:"runMemoryBytes"`
	FileBytes      uint64 `json:"fileBytes"`    // largest file (RLIMIT_FSIZE)
	ScratchBytes   uint64 `json:"scratchBytes"` // total writes: work tree, HOME, TMPDIR
	CPUSeconds     uint64 `json:"cpuSeconds"`   // CPU time per process (RLIMIT_CPU)
	OpenFiles      uint64 `json:"openFiles"`    // RLIMIT_NOFILE
}

// Defaults are generous enough that a real hook never meets them.
var Defaults = Limits{
	Pids: 512,
	// Address space per process, not memory: Go reserves a lot, and V8
	// reserves about 10 GiB for each WebAssembly instance (Node.js's
	// fetch makes one), which an 8 GiB bound refused: a hook's fetch
	// crashed where Claude Code runs it fine. What a run holds is bound
	// by RunMemoryBytes where a memory cgroup can be made.
	MemoryBytes:    32 << 30,
	RunMemoryBytes: 4 << 30, // the whole run, where a memory cgroup holds it
	FileBytes:      1 << 30,
	ScratchBytes:   2 << 30,
	CPUSeconds:     300,
	OpenFiles:      4096,
}

// WithDefaults fills the zero fields of l from Defaults.
func (l Limits) WithDefaults() Limits {
	d := Defaults
	set(&d.Pids, l.Pids)
	set(&d.MemoryBytes, l.MemoryBytes)
	set(&d.RunMemoryBytes, l.RunMemoryBytes)
	set(&d.FileBytes, l.FileBytes)
	set(&d.ScratchBytes, l.ScratchBytes)
	set(&d.CPUSeconds, l.CPUSeconds)
	set(&d.OpenFiles, l.OpenFiles)
	return d
}

// set puts v in *d unless v is zero (the default stays).
func set[T comparable](d *T, v T) {
	var zero T
	if v != zero {
		*d = v
	}
}

// Main is the reaper: pid 1 of the command's own pid namespace. It hides
// the init's directory, drops every capability (but the one it holds and
// never uses, keptCapability), sets no_new_privs, rlimits and the seccomp
// filter, starts the command, reaps everything, and after the main
// process exits (which it tells the init on FdExited at once) watches
// what is left for the linger period. It returns the process's exit code.
func Main() int {
	// All that follows runs on this one thread: the capability bounding set
	// is per thread, and the command is forked from it.
	runtime.LockOSThread()
	// The status pipe and the config pipe must not reach the command: it
	// could forge its own exit status through them.
	fsx.CloexecFrom(3)
	stFile := os.NewFile(FdStatus, "status")
	send := func(s Status) int {
		s.Protocol = Protocol
		json.NewEncoder(stFile).Encode(s)
		return 0
	}
	// The reaper is started before the init's mounts, in a copy of the
	// init's mount namespace whose mounts are the init's peers. Its first
	// act makes them slaves: what the init mounts (scratch, HOME, TMPDIR,
	// the work tree's overlay) still shows up here, and nothing mounted
	// here can ever reach the init. The config comes once the init's
	// mounts are made; then the reaper makes its mounts private before
	// its first mount of its own.
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_SLAVE, ""); err != nil {
		return send(Status{Refusal: fmt.Sprintf("making mounts slaves of the init's: %v", err)})
	}
	filter, ferr := seccomp.Filter()
	cf := os.NewFile(FdConfig, "config")
	cr := newConfigReader(cf)
	cfg, err := cr.config()
	if err != nil {
		return send(Status{Error: err.Error()})
	}
	if ferr != nil {
		return send(Status{Refusal: fmt.Sprintf("building the seccomp filter: %v", ferr)})
	}
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return send(Status{Refusal: fmt.Sprintf("making mounts private: %v", err)})
	}
	if err := unix.Mount("proc", "/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
		return send(Status{Refusal: fmt.Sprintf("mounting /proc for the command's pid namespace: %v", err)})
	}
	if err := protectProc(); err != nil {
		return send(Status{Refusal: err.Error()})
	}
	nameThreads()
	if cfg.ResolvConfFile != "" {
		if err := bindResolvConf(string(cfg.ResolvConfFile)); err != nil {
			return send(Status{Refusal: fmt.Sprintf("placing resolv.conf: %v", err)})
		}
	}
	lim := cfg.Limits.WithDefaults()
	// Opened before Landlock narrows what the reaper may open: the
	// command is started with the highest OOM score (see startAsOOMVictim).
	oomScore, _ := os.OpenFile("/proc/self/oom_score_adj", os.O_RDWR, 0)
	if err := confineSelf(cfg, lim, filter); err != nil {
		return send(Status{Refusal: err.Error()})
	}
	// Confined, the reaper waits for the command: the init sends it once
	// the egress wall is up and the run's turn has come.
	cmd, err := cr.command()
	cf.Close()
	if err != nil {
		return send(Status{Error: err.Error()})
	}
	if len(cmd.Command) == 0 {
		return send(Status{Error: "no command"})
	}
	path := cmd.Command[0]
	if !strings.Contains(path, "/") {
		path = LookPath(path, cmd.Env)
	}
	// pid 1 of a pid namespace gets only the signals it handles, and the Go
	// runtime's own handlers would exit or crash on SIGTERM, SIGABRT,
	// SIGTRAP, SIGSYS, or SIGSEGV and SIGBUS sent by kill. With every
	// disposition back to SIG_DFL before the command exists, the kernel
	// drops whatever the command sends pid 1 before delivery: no crash,
	// and a flood costs the reaper no CPU time (which counts against its
	// own RLIMIT_CPU). The command inherits SIG_DFL everywhere, as a
	// fresh process should.
	defaultSignals()
	if cfg.PidsByCgroup {
		if err := joinCommandCgroup(); err != nil {
			return send(Status{Refusal: err.Error()})
		}
	}
	mainPid, start, err := startAsOOMVictim(oomScore, func() (int, time.Time, error) { return startCommand(cfg, cmd, lim, path) })
	if err != nil {
		var ne notRunnable
		var rf refusal
		switch {
		case errors.As(err, &rf):
			return send(Status{Refusal: err.Error()})
		case !errors.As(err, &ne):
			return send(Status{Error: err.Error()})
		}
		// Not found or not executable: the command's own result, as a
		// shell would give it (and as the shell does on the other path).
		fmt.Fprintf(os.Stderr, "%s: %v\n", cmd.Command[0], ne.err)
		return send(Status{ExitCode: ne.code, DurationNs: time.Since(start).Nanoseconds()})
	}
	var st Status
	var exitedAt time.Time
	// Under RLIMIT_NPROC the task count is the evidence that the limit was
	// reached; a pids cgroup's events file says it exactly (the broker
	// reads it), and then the reaper starts no goroutine that could need a
	// new thread while the command fills the cgroup.
	stopSampling := make(chan struct{})
	maxTasks := make(chan taskCount, 1)
	if cfg.PidsByCgroup {
		maxTasks <- taskCount{}
	} else {
		go sampleTasks(stopSampling, maxTasks)
	}
	for {
		var ws unix.WaitStatus
		var ru unix.Rusage
		pid, err := unix.Wait4(-1, &ws, 0, &ru)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return send(Status{Error: fmt.Sprintf("waiting for the command: %v", err)})
		}
		if pid == mainPid {
			st.DurationNs = time.Since(start).Nanoseconds()
			// Before anything else: the init stops the command's clock
			// when this comes, and gives its leftovers the linger. A raw
			// write of one byte into an empty pipe: it cannot block, and
			// needs no thread a full pids cgroup could deny.
			unix.Write(FdExited, []byte{ExitedByte})
			unix.Close(FdExited)
			exitedAt = time.Now()
			st.ExitCode, st.Signal = ExitOf(ws)
			cpu := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
			switch {
			case st.Signal == "SIGXCPU" || st.Signal == "SIGKILL" && cpu >= time.Duration(lim.CPUSeconds)*time.Second:
				st.LimitHit = "cpu"
			case st.Signal == "SIGXFSZ":
				st.LimitHit = "file-size"
			}
			break
		}
	}
	close(stopSampling)
	// RLIMIT_NPROC counts every process of the uid, the init's and
	// bwrap's too, which this pid namespace does not show: hence the
	// slack.
	tasks := <-maxTasks
	if tasks.err != nil {
		// Whether the process limit was reached is not known: no verdict
		// on a count that was never taken.
		return send(Status{Error: fmt.Sprintf("counting the command's tasks: %v", tasks.err)})
	}
	if st.LimitHit == "" && tasks.most >= lim.Pids-pidsSlack {
		st.LimitHit = "pids"
	}
	// The linger counts from the main process's exit, as the init's
	// deadline for this status does.
	left, err := linger(cfg.Linger - time.Since(exitedAt))
	if err != nil {
		// "Nothing was left" would be a claim without evidence.
		return send(Status{Error: fmt.Sprintf("listing the processes the command left: %v", err)})
	}
	st.Lingered = left
	return send(st)
}

// joinCommandCgroup moves this thread (cgroup v1) or the reaper (v2)
// into the command's pids cgroup, which the command is then born in. A
// raw write: nothing here may need a new thread. Failing, the limit would
// not bind the command: the run is refused.
func joinCommandCgroup() error {
	defer unix.Close(FdCgroup)
	if _, err := unix.Write(FdCgroup, []byte("0")); err != nil {
		return fmt.Errorf("joining the command's pids cgroup: %v", err)
	}
	return nil
}

// startAsOOMVictim starts the command with the highest OOM score
// adjustment (1000), which its processes inherit, and puts the reaper's
// own back. In a run's memory cgroup the OOM killer then ends the
// command's processes before the reaper or the init, even when the
// command's memory sits where no process maps it (a memfd) and vigiles'
// own processes are the largest. Raising the score needs no privilege;
// lowering it below what the broker was born with would, and Landlock
// keeps the command from writing any score in /proc.
func startAsOOMVictim(score *os.File, start func() (int, time.Time, error)) (int, time.Time, error) {
	if score == nil {
		return start()
	}
	defer score.Close()
	buf := make([]byte, 16)
	n, err := score.ReadAt(buf, 0)
	if err != nil && n == 0 {
		return start()
	}
	old := strings.TrimSpace(string(buf[:n]))
	if _, err := score.WriteAt([]byte("1000"), 0); err != nil {
		return start()
	}
	pid, at, err := start()
	score.WriteAt([]byte(old), 0)
	return pid, at, err
}

// notRunnable is a command the kernel would not exec: code is what a shell
// exits with for it (127 not found, 126 not executable).
type notRunnable struct {
	err  error
	code int
}

func (n notRunnable) Error() string { return n.err.Error() }

// startCommand starts the command from this (confined) thread. When a pids
// cgroup bounds the run, and the address-space limit leaves the reaper room
// (asByShell), it is exec'd directly. Otherwise it starts through /bin/sh,
// which sets RLIMIT_NPROC, or RLIMIT_AS, or both, and execs it: the reaper
// itself must stay free of those limits, or a fork bomb would leave its Go
// runtime unable to start a thread, and a low address-space limit, below
// what its runtime has reserved, unable to grow its heap (a shell start
// costs a few milliseconds here; another Go start would cost ten).
func startCommand(cfg Config, cmd CommandDoc, lim Limits, path string) (int, time.Time, error) {
	argv := append([]string{path}, cmd.Command[1:]...) // argv[0] = path, as the shell's exec "$0" gives it
	env := cmd.Env
	direct := cfg.PidsByCgroup && !asByShell(lim)
	if direct {
		if !strings.Contains(path, "/") { // LookPath found nothing
			return 0, time.Now(), notRunnable{errors.New("not found"), 127}
		}
	} else {
		if _, err := os.Stat(shell); err != nil {
			return 0, time.Now(), refusal{fmt.Errorf("no %s in the sandbox to set the process limits with: %w", shell, err)}
		}
		var err error
		if argv, env, err = shellCommand(lim, !cfg.PidsByCgroup, path, cmd); err != nil {
			return 0, time.Now(), refusal{err}
		}
	}
	// syscall.ForkExec, not os/exec: no pidfd probe (an extra fork), and
	// the fork happens on this thread, which holds the confinement.
	attr := &syscall.ProcAttr{Dir: string(cfg.Cwd), Env: env, Files: []uintptr{0, 1, 2}}
	start := time.Now()
	pid, err := syscall.ForkExec(argv[0], argv, attr)
	if err != nil && direct && errors.Is(err, unix.ENOEXEC) {
		// A script without a #! line: run it as a shell script, as the
		// shell (and execvp) would.
		pid, err = syscall.ForkExec(shell, append([]string{shell}, argv...), attr)
	}
	switch {
	case err == nil:
		return pid, start, nil
	case !direct:
		return 0, start, fmt.Errorf("starting %s for the command: %w", shell, err)
	case errors.Is(err, unix.ENOENT):
		return 0, start, notRunnable{errors.New("not found"), 127}
	case errors.Is(err, unix.EACCES), errors.Is(err, unix.ENOEXEC), errors.Is(err, unix.EISDIR):
		return 0, start, notRunnable{errors.New("permission denied"), 126}
	}
	return 0, start, fmt.Errorf("starting the command: %w", err)
}

// ExitOf is the exit code of a process that ended with ws, as a shell
// gives it (128 + the signal's number for a signal), and the signal's name.
func ExitOf(ws unix.WaitStatus) (int, string) {
	if ws.Signaled() {
		return 128 + int(ws.Signal()), unix.SignalName(ws.Signal())
	}
	return ws.ExitStatus(), ""
}

// shell sets the process limits and execs the command.
const shell = "/bin/sh"

// asRoom is the address space the reaper keeps for itself above its limit
// for the command: its Go runtime reserves about 1.3 GB of address space
// at start, so an RLIMIT_AS below that would stop its heap from growing.
// Under asRoom the limit is the command's alone, set by the shell.
const asRoom = 4 << 30

func asByShell(l Limits) bool { return l.MemoryBytes != 0 && l.MemoryBytes < asRoom }

// shellCommand is the argv and environment that start the command (path,
// cmd's arguments and environment) through the shell that sets its limits
// (limitShim). The variables the dynamic loader or the shell reads as it
// starts (StartupVar: LD_PRELOAD, GLIBC_TUNABLES, SHELLOPTS, …) are not
// in the shell's environment: they would run code of the command's (a
// check's env, --env LD_PRELOAD=./x.so from the tree) in the shell before
// its ulimit, which could then exec the command without it, its process
// and address-space limits never set. They come as the shell's first
// arguments instead, which the shim exports once the limits hold, so the
// command gets its environment whole.
func shellCommand(l Limits, nproc bool, path string, cmd CommandDoc) (argv, env []string, err error) {
	var late []string
	for _, kv := range cmd.Env {
		name, _, _ := strings.Cut(kv, "=")
		if !StartupVar(name) {
			env = append(env, kv)
			continue
		}
		if !ShellName(name) {
			// export cannot set it (bash's exported functions,
			// BASH_FUNC_NAME%%, which could replace ulimit itself).
			return nil, nil, fmt.Errorf("the command's environment holds %q, which %s would read as it starts, before it sets the limits, and cannot pass on after", name, shell)
		}
		late = append(late, kv)
	}
	argv = append([]string{shell, "-c", limitShim(l, nproc, len(late)), path}, late...)
	return append(argv, cmd.Command[1:]...), env, nil
}

// StartupVar reports whether name is read by the dynamic loader or a
// shell as it starts: the loader's LD_* (LD_PRELOAD, LD_AUDIT,
// LD_LIBRARY_PATH), glibc's tunables and malloc settings, bash's start-up
// files, options and exported functions (SHELLOPTS with xtrace runs PS4's
// command substitutions), the locale and conversion modules the C library
// loads. The shell that sets a command's limits gets them only after its
// ulimit (shellCommand).
func StartupVar(name string) bool {
	for _, p := range []string{"LD_", "GLIBC_", "MALLOC_", "BASH_"} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	switch name {
	case "ENV", "BASHOPTS", "SHELLOPTS", "IFS", "PS4", "CDPATH", "POSIXLY_CORRECT", "LOCPATH", "GCONV_PATH", "HOSTALIASES", "RES_OPTIONS", "NLSPATH", "TZDIR":
		return true
	}
	return false
}

// ShellName says whether name is one a shell's export can set: letters,
// digits and _, not starting with a digit.
func ShellName(name string) bool {
	if name == "" || name[0] >= '0' && name[0] <= '9' {
		return false
	}
	for _, c := range []byte(name) {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// limitShim is the shell script that sets the process limit when nproc
// (bash knows it as -u, dash and busybox as -p) and the address-space one
// when asByShell (-v, in KiB; both soft and hard), then exports the late
// variables, its first late arguments (see shellCommand), and becomes the
// command ($0 and the arguments after those).
func limitShim(l Limits, nproc bool, late int) string {
	var s string
	if nproc {
		n := strconv.Itoa(l.Pids)
		s = "ulimit -u " + n + " 2>/dev/null || ulimit -p " + n + " || exit 125; "
	}
	if asByShell(l) {
		s += "ulimit -v " + strconv.FormatUint(l.MemoryBytes>>10, 10) + " || exit 125; "
	}
	// Each through command, which takes export's power to end the shell
	// on an error: bash keeps SHELLOPTS, BASHOPTS and BASH_VERSINFO
	// read-only, and the shim's exit would read as the command's own,
	// with an empty record. The command goes without such a variable,
	// which bash would not have passed on either.
	for i := 1; i <= late; i++ {
		s += "command export \"${" + strconv.Itoa(i) + "}\" 2>/dev/null; " // ${10}: $10 is $1 and a 0
	}
	if late > 0 {
		s += "shift " + strconv.Itoa(late) + "; "
	}
	return s + "exec \"$0\" \"$@\""
}

// linger reaps the command's leftover processes for up to d, then lists
// those still alive (pid 1 exiting ends them all).
//
// Whether any is alive is the kernel's word, not the /proc scan's: the
// reaper is pid 1, so every process left in its namespace is a child of
// it or below one, and wait4 says ECHILD only when none is. A scan alone
// can be fooled: a process that forks and exits between the scan's reads
// of /proc and of its stat is skipped as a zombie, and its child, never
// listed, writes on while the record is made.
func linger(d time.Duration) ([]Process, error) {
	deadline := time.Now().Add(d)
	for reapEnded() {
		if !time.Now().Before(deadline) {
			// Listed once, at the end: the scan decides nothing.
			left, err := processes()
			if err == nil && len(left) == 0 {
				left = []Process{{Unlisted: true}}
			}
			return left, err
		}
		// A sleeping syscall on this (locked) thread, not time.Sleep: a
		// Go timer could need another thread, which a command filling its
		// pids cgroup would deny the runtime.
		unix.Nanosleep(&unix.Timespec{Nsec: 20e6}, nil)
	}
	return nil, nil
}

// LingeredUnlisted is how the lingered list shows an Unlisted entry:
// processes the kernel says are left that the scan of /proc did not list
// (they forked and exited while it read).
const LingeredUnlisted = "(processes left that changed their pids while they were listed)"

// reapEnded reaps every child of the reaper that has ended and says
// whether any process is left in its pid namespace.
func reapEnded() bool {
	for {
		var ws unix.WaitStatus
		pid, err := unix.Wait4(-1, &ws, unix.WNOHANG, nil)
		switch {
		case err == unix.EINTR:
		case err == unix.ECHILD:
			return false
		case err != nil || pid == 0: // children, none ended (or no telling: some)
			return true
		}
	}
}

// processes lists every process in this pid namespace but the reaper
// itself.
func processes() ([]Process, error) {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil, err
	}
	var pids []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == 1 {
			continue
		}
		pids = append(pids, pid)
	}
	sort.Ints(pids)
	return List(pids, "/proc"), nil
}

// List is the lingered list of the processes pids as the proc file
// system at proc shows them, in the order given, without those that have
// ended, at most maxLingered and an entry that counts the rest.
func List(pids []int, proc string) []Process {
	var out []Process
	for i, pid := range pids {
		dir := proc + "/" + strconv.Itoa(pid)
		name, state := procStat(dir)
		if (state == "Z" || state == "X") && !threadsLeft(dir) {
			continue // ended, not yet reaped: not alive in any useful sense
		}
		if len(out) == maxLingered {
			out = append(out, Process{More: len(pids) - i})
			break
		}
		p := Process{Pid: pid}
		cl, cut := readCmdline(dir)
		p.Cmdline, p.Cut = exact.String(cl), cut
		if cl == "" {
			// An emptied command line, or a main thread that exited while
			// others run on: the name the process gave itself, so that it
			// is listed all the same.
			p.Name = exact.String(name)
		}
		out = append(out, p)
	}
	return out
}

// maxLingered and maxCmdline bound the lingered list: the command chooses
// how many processes it leaves and how long their command lines are.
const (
	maxLingered = 100
	maxCmdline  = 256
)

// readCmdline returns dir/cmdline as it is, but for the NUL that ends its
// last argument, cut to maxCmdline bytes (not inside a character: a cut
// never makes bytes that are not UTF-8 of a command line that is), and
// whether it was cut. Each argument ends in a NUL, so an empty one is one
// more: `sh -c x ""` is "sh\x00-c\x00x\x00\x00", and only the last NUL
// goes, so that the empty argument stays. A cut one keeps every NUL: what
// follows its last is the start of an argument the cut left short (a
// command line whose last NUL was written over, by a process that set its
// own title, is kept whole alike).
func readCmdline(dir string) (string, bool) {
	f, err := os.Open(dir + "/cmdline")
	if err != nil {
		return "", false
	}
	defer f.Close()
	b := make([]byte, maxCmdline+1)
	n, _ := io.ReadFull(f, b)
	cut := n > maxCmdline
	b = b[:min(n, maxCmdline)]
	if cut {
		b = b[:wholeRunes(b)]
	} else {
		b = bytes.TrimSuffix(b, []byte{0})
	}
	return string(b), cut
}

// wholeRunes is the length of b without a character that b's end cuts
// short: the first bytes of a UTF-8 sequence, not the whole of it. Bytes
// that are no UTF-8 at all are kept.
func wholeRunes(b []byte) int {
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax+1; i-- {
		if utf8.RuneStart(b[i]) {
			if !utf8.FullRune(b[i:]) {
				return i
			}
			break
		}
	}
	return len(b)
}

// threadsLeft reports whether a process whose main thread has ended still
// has other threads running.
func threadsLeft(dir string) bool {
	ents, err := os.ReadDir(dir + "/task")
	return err == nil && len(ents) > 1
}

// procStat returns the name and the state letter from dir/stat. The name
// is the process's own choice and may hold ") Z " or anything else: the
// state is read after the last ')'.
func procStat(dir string) (name, state string) {
	b, err := os.ReadFile(dir + "/stat")
	if err != nil {
		return "", ""
	}
	open, end := strings.IndexByte(string(b), '('), strings.LastIndexByte(string(b), ')')
	if open < 0 || end < open {
		return "", ""
	}
	name = string(b[open+1 : end])
	if f := strings.Fields(string(b[end+1:])); len(f) > 0 {
		state = f[0]
	}
	return name, state
}

// defaultSignals sets every signal's disposition to SIG_DFL, bypassing the
// Go runtime (which keeps its own handlers installed otherwise). For pid 1
// of a pid namespace that means: every signal sent from inside the
// namespace is dropped before delivery. The reaper calls it just before
// it starts the command; it has no use for signals from then on.
func defaultSignals() {
	var act [4]uint64 // a zeroed struct sigaction: SIG_DFL, no flags, empty mask
	for sig := 1; sig <= 64; sig++ {
		if sig == int(unix.SIGKILL) || sig == int(unix.SIGSTOP) {
			continue
		}
		unix.RawSyscall6(unix.SYS_RT_SIGACTION, uintptr(sig), uintptr(unsafe.Pointer(&act[0])), 0, 8, 0, 0)
	}
}

// LookPath finds name in the PATH of env as execvp would (a regular,
// executable file); name itself when none is found.
func LookPath(name string, env []string) string {
	path := ""
	for _, kv := range env {
		if strings.HasPrefix(kv, "PATH=") {
			path = kv[5:]
		}
	}
	for _, dir := range strings.Split(path, ":") {
		if dir == "" {
			dir = "."
		}
		p := dir + "/" + name
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p
		}
	}
	return name
}

// confineSelf applies, in order, every layer the command inherits: the
// init's directory hidden, read-only mounts, rlimits, same-page merging
// off, a normal scheduling policy, nice value and I/O class, an empty
// capability bounding, inheritable and ambient set, no_new_privs,
// non-dumpable, Landlock and the seccomp filter. Any failure is a
// refusal.
func confineSelf(cfg Config, l Limits, filter []unix.SockFilter) error {
	if err := unix.Mount("tmpfs", string(cfg.RunDir), "tmpfs", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC|unix.MS_RDONLY, "size=4k,mode=0555"); err != nil {
		return fmt.Errorf("hiding the init's directory: %w", err)
	}
	if err := remountReadOnly(cfg.ReadOnly); err != nil {
		return err
	}
	for _, rl := range []struct {
		res int
		v   uint64
	}{
		{unix.RLIMIT_AS, l.MemoryBytes},
		{unix.RLIMIT_FSIZE, l.FileBytes},
		{unix.RLIMIT_CPU, l.CPUSeconds}, // hard = soft+1 below: SIGXCPU first
		{unix.RLIMIT_NOFILE, l.OpenFiles},
		// 1, not 0: where kernel.core_pattern pipes to a helper
		// (systemd-coredump, apport), the kernel ignores the limit but
		// for this one value, and would start that helper as the host's
		// root, outside every namespace, with a dump of what the hook
		// chose to crash with. One byte is below any core file's size.
		{unix.RLIMIT_CORE, 1},
	} {
		if rl.res == unix.RLIMIT_AS && asByShell(l) {
			continue // startCommand's shell sets it for the command alone
		}
		max := rl.v
		if rl.res == unix.RLIMIT_CPU {
			max++
		}
		if err := unix.Setrlimit(rl.res, &unix.Rlimit{Cur: rl.v, Max: max}); err != nil {
			return fmt.Errorf("setting rlimit %d: %w", rl.res, err)
		}
	}
	if err := noMergeAny(); err != nil {
		return err
	}
	if err := NormalScheduling(); err != nil {
		return err
	}
	if err := dropCapabilities(); err != nil {
		return err
	}
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
		return fmt.Errorf("making the reaper non-dumpable: %w", err)
	}
	// Landlock, where the kernel has it, is a second wall behind the
	// read-only mounts: writes only in the recorded places.
	if err := landlock.RestrictWrites(cfg.Writable); err != nil && !errors.Is(err, landlock.ErrUnsupported) {
		return fmt.Errorf("applying Landlock: %w", err)
	}
	if err := seccomp.Install(filter); err != nil {
		return err // "installing seccomp filter: …"
	}
	return nil
}

// noMergeAny turns off same-page merging of all this process's memory
// (prctl PR_SET_MEMORY_MERGE, Linux 6.4), which the kernel keeps across
// execve and hands to each child: vigiles started with it on (a service
// manager's unit of MemoryKSM=yes) handed it through bubblewrap and the
// init to the command, whose pages the kernel then merged with the host
// processes' that asked for it, a write to a merged page telling the
// command that a host process holds the same bytes. The seccomp filter
// keeps the command from asking for it; this keeps it from being given
// it. A kernel without the prctl (EINVAL) has no such merging to turn off.
func noMergeAny() error {
	if err := unix.Prctl(unix.PR_SET_MEMORY_MERGE, 0, 0, 0, 0); err != nil && !errors.Is(err, unix.EINVAL) {
		return fmt.Errorf("turning off same-page merging: %w", err)
	}
	return nil
}

// Scheduling policies and I/O classes (sched_setattr(2), ioprio_set(2)).
const (
	schedFIFO     = 1
	schedRR       = 2
	schedDeadline = 6
	ioprioWhoTask = 1 // IOPRIO_WHO_PROCESS, which names a thread by its id
	ioprioClassRT = 1
	ioprioClassOf = 13 // IOPRIO_CLASS_SHIFT; the class is the three bits from there
)

// NormalScheduling gives the calling process's threads (the reaper's,
// and so the command, which is forked from this one; the broker's, and so
// bubblewrap and the init) the scheduling of a process that nobody
// raised, wherever the caller's would give them more of the host than
// that: a realtime or deadline policy becomes SCHED_OTHER, a nice value
// below 0 becomes 0, and the realtime I/O class becomes none (the I/O
// priority then follows the nice value). The kernel keeps all three
// across execve and hands them to each child, and the sandbox's
// RLIMIT_RTPRIO and RLIMIT_NICE of 0 stop only a raise: vigiles started
// under chrt -f, nice -n -10 or ionice -c 1 (a service manager's
// CPUSchedulingPolicy=fifo, Nice=-10, IOSchedulingClass=realtime) handed
// the policy, the nice value and the I/O class through bubblewrap and the
// init to the command, whose spinning processes at SCHED_FIFO would hold
// their CPUs against every process of the host but the 5 % the kernel's
// realtime throttling leaves. The process's other threads, whose work
// the command's processes drive (the reaper's task count, wait and
// linger's scan; the broker's reading of the output), are put back as
// well, as far as they can be: a thread the Go runtime starts later is
// cloned from one of them. Lowering asks no privilege. What is already
// below normal (SCHED_BATCH, SCHED_IDLE, a
// nice value above 0, the idle I/O class) is the caller's choice and
// stays, and so does SCHED_RESET_ON_FORK, which only a privileged
// process may clear.
func NormalScheduling() error {
	self := unix.Gettid()
	ents, _ := os.ReadDir("/proc/self/task")
	for _, e := range ents {
		if tid, err := strconv.Atoi(e.Name()); err == nil && tid != self {
			normalTask(tid) // best effort: the command is not forked from it
		}
	}
	return normalTask(self)
}

// normalTask is NormalScheduling for the thread tid.
func normalTask(tid int) error {
	attr, err := unix.SchedGetAttr(tid, 0)
	if err != nil {
		return fmt.Errorf("reading the scheduling policy: %w", err)
	}
	// getpriority answers 20 minus the nice value, which a realtime
	// task keeps too (sched_getattr gives it only for a fair one).
	prio, err := unix.Getpriority(unix.PRIO_PROCESS, tid)
	if err != nil {
		return fmt.Errorf("reading the nice value: %w", err)
	}
	nice := 20 - prio
	switch attr.Policy {
	case schedFIFO, schedRR, schedDeadline:
		normal := unix.SchedAttr{
			Size:   unix.SizeofSchedAttr,
			Policy: unix.SCHED_NORMAL,
			Flags:  attr.Flags & unix.SCHED_FLAG_RESET_ON_FORK,
			Nice:   int32(max(nice, 0)),
		}
		if err := unix.SchedSetAttr(tid, &normal, 0); err != nil {
			return fmt.Errorf("setting the scheduling policy to SCHED_OTHER, from %d: %w", attr.Policy, err)
		}
	default:
		if nice < 0 {
			if err := unix.Setpriority(unix.PRIO_PROCESS, tid, 0); err != nil {
				return fmt.Errorf("setting the nice value to 0, from %d: %w", nice, err)
			}
		}
	}
	ioprio, _, e := unix.RawSyscall(unix.SYS_IOPRIO_GET, ioprioWhoTask, uintptr(tid), 0)
	if e != 0 {
		return fmt.Errorf("reading the I/O priority: %w", e)
	}
	if ioprio>>ioprioClassOf&7 == ioprioClassRT {
		if _, _, e := unix.RawSyscall(unix.SYS_IOPRIO_SET, ioprioWhoTask, uintptr(tid), 0); e != 0 {
			return fmt.Errorf("leaving the realtime I/O class: %w", e)
		}
	}
	return nil
}

// keptCapability is the one capability this thread keeps in its permitted
// set (never in its effective set): CAP_WAKE_ALARM, which the kernel asks
// for only in the first user namespace (alarm timers that wake a
// suspended machine), and so grants nothing in the sandbox's. It is there
// to be held: the command shares its uid with the reaper, and the kernel
// lets a process change the nice value, scheduling policy, CPUs or I/O
// priority of another of its uid, by pid, by process group or by uid
// (setpriority, sched_setscheduler, sched_setparam, sched_setattr,
// sched_setaffinity, ioprio_set), only where the target's permitted set
// holds no capability the caller lacks (cap_safe_nice, security/commoncap.c,
// else EPERM). The command holds none, so no thread of the reaper can be
// niced, idled, pinned to one CPU or put in the idle I/O class by it: this
// thread, which forks the command and waits for it, for the capability it
// keeps, and the reaper's others, which the Go runtime starts from a thread
// that never dropped any. A filter rule on the target (as prlimit64's)
// would also refuse the command's calls on its own processes and threads
// (renice of its child, pthread_setaffinity_np), which name them by id, and
// could not tell the caller's process group and uid from the reaper's, which
// are the same. The reaper always holds it to keep: a new user namespace
// starts with every capability, whatever bounding set the process that
// made it had (a container's), and the init's bubblewrap keeps them all
// (--cap-add ALL).
const keptCapability = unix.CAP_WAKE_ALARM

// dropCapabilities empties this thread's bounding, ambient, inheritable
// and effective sets, and its permitted set but for keptCapability. An
// exec from this thread, as uid 0 too, then starts with no capabilities at
// all: the kernel makes the new permitted set of the bounding and
// inheritable sets and of the ambient one, all empty, never of the old
// permitted set.
func dropCapabilities() error {
	last := lastCap()
	for c := 0; c <= last; c++ {
		if err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0); err != nil && !errors.Is(err, unix.EINVAL) {
			return fmt.Errorf("dropping capability %d from the bounding set: %w", c, err)
		}
	}
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil {
		return fmt.Errorf("clearing ambient capabilities: %w", err)
	}
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	data[keptCapability/32].Permitted = 1 << (keptCapability % 32)
	if err := unix.Capset(&hdr, &data[0]); err != nil {
		return fmt.Errorf("dropping capabilities but CAP_WAKE_ALARM, kept in the permitted set alone: %w", err)
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("setting no_new_privs: %w", err)
	}
	return nil
}

func lastCap() int {
	b, err := os.ReadFile("/proc/sys/kernel/cap_last_cap")
	if err != nil {
		return 63
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		return 63
	}
	return n
}

// procReadOnly are the parts of a fresh /proc that reach the kernel as a
// whole; uid 0 of a --root-sandbox run could otherwise write sysctls
// (kernel.core_pattern …) with no capability at all.
var procReadOnly = []string{"/proc/sys", "/proc/sysrq-trigger", "/proc/irq", "/proc/bus", "/proc/fs", "/proc/acpi"}

// procHidden are the files of a fresh /proc that list the kernel's keys
// (their descriptions, owners and sizes) and each uid's key counts: the
// keys of every uid the sandbox's user namespace maps, the caller's own or,
// for a root caller, the work tree's owner's (a CI runner user's). The
// system calls of the key ring are denied (seccomp); these are covered
// with /dev/null, as container runtimes cover them.
var procHidden = []string{"/proc/keys", "/proc/key-users"}

// protectProc bind-mounts each of procReadOnly on itself read-only, and
// /dev/null over each of procHidden.
func protectProc() error {
	for _, p := range procHidden {
		if _, err := os.Lstat(p); err != nil {
			continue
		}
		if err := unix.Mount("/dev/null", p, "", unix.MS_BIND, ""); err != nil {
			return fmt.Errorf("hiding %s: %w", p, err)
		}
		if err := unix.Mount("", p, "", unix.MS_REMOUNT|unix.MS_BIND|unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NOEXEC, ""); err != nil {
			return fmt.Errorf("making %s read-only: %w", p, err)
		}
	}
	for _, p := range procReadOnly {
		if _, err := os.Lstat(p); err != nil {
			continue
		}
		if err := unix.Mount(p, p, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
			return fmt.Errorf("protecting %s: %w", p, err)
		}
		if err := unix.Mount("", p, "", unix.MS_REMOUNT|unix.MS_BIND|unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
			return fmt.Errorf("making %s read-only: %w", p, err)
		}
	}
	return nil
}

// remountReadOnly makes each of paths that is a mount point read-only,
// keeping its other flags.
func remountReadOnly(paths []string) error {
	mounts, err := fsx.Mounts()
	if err != nil {
		return fmt.Errorf("reading mountinfo: %w", err)
	}
	isMount := map[string]bool{}
	for _, m := range mounts {
		isMount[m.Point] = true
	}
	for _, m := range paths {
		if !isMount[m] {
			continue
		}
		var st unix.Statfs_t
		if err := unix.Statfs(m, &st); err != nil {
			return remountError(m, err)
		}
		if st.Flags&unix.ST_RDONLY != 0 {
			continue
		}
		flags := uintptr(unix.MS_REMOUNT | unix.MS_BIND | unix.MS_RDONLY)
		for _, f := range []struct{ st, ms uintptr }{
			{unix.ST_NOSUID, unix.MS_NOSUID}, {unix.ST_NODEV, unix.MS_NODEV}, {unix.ST_NOEXEC, unix.MS_NOEXEC},
			{unix.ST_NOATIME, unix.MS_NOATIME}, {unix.ST_NODIRATIME, unix.MS_NODIRATIME}, {unix.ST_RELATIME, unix.MS_RELATIME},
		} {
			if uintptr(st.Flags)&f.st != 0 {
				flags |= f.ms
			}
		}
		if err := unix.Mount("", m, "", flags, ""); err != nil {
			return remountError(m, err)
		}
	}
	return nil
}

// VanishedMount starts the refusal of a sandbox one of whose mounts lost
// its path while it was made: a host directory it masks was removed on
// the host (its mount then stays, but no path leads to it). Nothing of
// the command ran, and a directory made again at that path would be the
// host's, unmasked: the broker starts the run again (vanishedMount).
const VanishedMount = "a host directory the sandbox masks vanished while it was made: "

// remountError is remountReadOnly's error for the mount at m.
func remountError(m string, err error) error {
	if errors.Is(err, unix.ENOENT) {
		return fmt.Errorf("%sremounting %s read-only: %w", VanishedMount, m, err)
	}
	return fmt.Errorf("remounting %s read-only: %w", m, err)
}

// pidsSlack is how many tasks outside the command's pid namespace (bwrap,
// the init and their threads) count against the same RLIMIT_NPROC.
const pidsSlack = 16

// taskCount is what sampleTasks saw: the most tasks at once, or why it
// could not count them.
type taskCount struct {
	most int
	err  error
}

// sampleTasks counts the tasks (threads included, as RLIMIT_NPROC counts
// them) in this pid namespace every 25ms until stop, and sends the most it
// saw: the evidence that the process limit was reached.
func sampleTasks(stop <-chan struct{}, out chan<- taskCount) {
	var c taskCount
	t := time.NewTicker(25 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-stop:
			out <- c
			return
		case <-t.C:
			n := 0
			ents, err := os.ReadDir("/proc")
			if err != nil && c.err == nil {
				c.err = err
			}
			for _, e := range ents {
				if _, err := strconv.Atoi(e.Name()); err != nil {
					continue
				}
				tasks, _ := os.ReadDir("/proc/" + e.Name() + "/task")
				n += len(tasks)
			}
			c.most = max(c.most, n)
		}
	}
}

// maxConfig bounds the config the reaper reads (the command's argv and
// environment are bounded by the kernel well below it).
const maxConfig = 64 << 20

// configReader reads the init's two documents from one pipe: the Config,
// which comes once the sandbox's mounts are made, and the CommandDoc, which
// comes when the command may start, followed by the pipe's end. Both are
// bounded together by maxConfig.
type configReader struct {
	dec *json.Decoder
}

func newConfigReader(r io.Reader) *configReader {
	return &configReader{dec: json.NewDecoder(&limitedReader{r: r, n: maxConfig})}
}

var errConfigTooLarge = fmt.Errorf("the config is larger than %d MiB", maxConfig>>20)

// limitedReader is io.LimitReader with an error past its bound, so that a
// config that is too large is refused as such, not read as one cut short.
type limitedReader struct {
	r io.Reader
	n int64
}

// Read gives at most n bytes in all; one byte more is an error, the end
// right at the bound is not.
func (l *limitedReader) Read(p []byte) (int, error) {
	if l.n < 0 {
		return 0, errConfigTooLarge
	}
	if int64(len(p)) > l.n+1 {
		p = p[:l.n+1]
	}
	n, err := l.r.Read(p)
	if l.n -= int64(n); l.n < 0 {
		return 0, errConfigTooLarge
	}
	return n, err
}

// config reads the Config, refuses one from another build by its
// protocol number, and then any field this build does not know: a layer
// the init asks for is never ignored.
func (c *configReader) config() (Config, error) {
	var cfg Config
	err := c.next(&cfg, "config", func(raw json.RawMessage) error {
		var p struct {
			Protocol int `json:"protocol"`
		}
		if json.Unmarshal(raw, &p) == nil && p.Protocol != Protocol {
			return fmt.Errorf("the reaper binary (protocol %d) and the init (protocol %d) come from different builds: rebuild both (make build)", Protocol, p.Protocol)
		}
		return nil
	})
	if err == nil && cfg.Command != nil {
		err = errors.New("reaper: reading config: the command comes in a document of its own, after the config")
	}
	return cfg, err
}

// command reads the CommandDoc and then the pipe to its end (so that the
// init's write, its trailing newline included, never meets a closed
// pipe): nothing may follow it.
func (c *configReader) command() (CommandDoc, error) {
	var cmd CommandDoc
	if err := c.next(&cmd, "the command", nil); err != nil {
		return cmd, err
	}
	if _, err := c.dec.Token(); err != io.EOF {
		return cmd, errors.New("reaper: reading config: more than the config and the command")
	}
	return cmd, nil
}

// next decodes the pipe's next document into v, refusing a field v does
// not have; check, where given, sees the document first.
func (c *configReader) next(v any, what string, check func(json.RawMessage) error) error {
	var raw json.RawMessage
	if err := c.dec.Decode(&raw); err != nil {
		return fmt.Errorf("reaper: reading %s: %w", what, err)
	}
	if check != nil {
		if err := check(raw); err != nil {
			return err
		}
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("reaper: reading %s: %w", what, err)
	}
	return nil
}

// refusal marks an error as a layer the reaper could not apply, or a part
// of the sandbox it could not find: the run refuses rather than running
// weaker.
type refusal struct{ err error }

func (r refusal) Error() string { return r.err.Error() }
func (r refusal) Unwrap() error { return r.err }

// bindResolvConf binds file, which the init made and fills with the
// egress layer's resolver configuration before the command starts, over
// /etc/resolv.conf, read-only like every mount the command could otherwise
// write past the record through (Landlock, where present, is the second
// wall).
func bindResolvConf(file string) error {
	const path = "/etc/resolv.conf"
	if err := fsx.SafeMount(file, path, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
		return err
	}
	return unix.Mount("", path, "", unix.MS_REMOUNT|unix.MS_BIND|unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV, "")
}

// nameThreads gives each of the reaper's threads the name comm, while it
// may still write to /proc (Landlock comes later); a thread made after
// that is cloned from a named one and inherits its name. A name left
// unchanged is only a tell, never a hole: errors are ignored.
func nameThreads() {
	ents, _ := os.ReadDir("/proc/self/task")
	for _, e := range ents {
		os.WriteFile("/proc/self/task/"+e.Name()+"/comm", []byte(comm), 0)
	}
}
