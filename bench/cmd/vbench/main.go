package main

import (
	"bytes"
	"context"
	"debug/elf"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/vigiles/action/bench/internal/mdblock"
	"github.com/vigiles/action/bench/internal/procstat"
	"github.com/vigiles/action/pkg/sandbox"
)

func main() {
	var o options
	flag.IntVar(&o.rounds, "rounds", 30, "timed rounds over every case (interleaved, each round in a new random order)")
	flag.Int64Var(&o.seed, "seed", 0, "seed of the rounds' random orders (0: from the clock; the report gives the seed used)")
	flag.StringVar(&o.vigiles, "vigiles", "bin/vigiles", "the vigiles binary to measure")
	flag.StringVar(&o.out, "o", "", "also write the markdown report to this file")
	flag.StringVar(&o.doc, "doc", "", "also put the report between the vbench:begin/end markers of this markdown file (docs/performance.md)")
	flag.StringVar(&o.only, "only", "", "comma-separated case names to run, \"audit\" for the audit (default: everything)")
	flag.BoolVar(&o.noSRT, "no-srt", false, "do not install and measure srt (@anthropic-ai/sandbox-runtime)")
	flag.StringVar(&o.srtVersion, "srt-version", "", "exact version of @anthropic-ai/sandbox-runtime (default: what the registry calls latest, pinned with npm view)")
	flag.IntVar(&o.auditHooks, "audit-hooks", 200, "hooks in the audit benchmark (0: skip the audit)")
	flag.Func("audit-cmd", "the command every generated hook of an audit runs; repeat it for several audits (default: \"true\" and \"sleep 0.2\")", func(v string) error {
		o.auditCmds = append(o.auditCmds, v)
		return nil
	})
	flag.IntVar(&o.auditRounds, "audit-rounds", 3, "audits to run (the median is reported)")
	flag.IntVar(&o.bigTree, "big-tree", 100000, "files in the huge work tree")
	flag.IntVar(&o.manyWrites, "many-writes", 10000, "files the many-writes case creates")
	flag.BoolVar(&o.keep, "keep", false, "keep the temporary directory (its path is printed)")
	flag.Parse()
	if len(o.auditCmds) == 0 {
		o.auditCmds = []string{"true", "sleep 0.2"}
	}
	if err := run(context.Background(), o, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "vbench:", err)
		os.Exit(1)
	}
}

type options struct {
	rounds, auditHooks, auditRounds, bigTree, manyWrites int
	vigiles, out, doc, only, srtVersion                  string
	auditCmds                                            []string
	noSRT, keep                                          bool
	seed                                                 int64
}

func run(ctx context.Context, o options, stdout, stderr io.Writer) error {
	if runtime.GOOS != "linux" {
		return errors.New("vbench runs on linux only")
	}
	vig, err := filepath.Abs(o.vigiles)
	if err != nil {
		return err
	}
	if _, err := os.Stat(vig); err != nil {
		return fmt.Errorf("the vigiles binary (build it with make build): %w", err)
	}
	tmp, err := os.MkdirTemp("", "vbench-")
	if err != nil {
		return err
	}
	if o.keep {
		fmt.Fprintln(stderr, "vbench: keeping", tmp)
	} else {
		defer os.RemoveAll(tmp)
	}
	logf := func(format string, a ...any) { fmt.Fprintf(stderr, "vbench: "+format+"\n", a...) }
	// Interrupted: leave no cgroup and no temporary tree behind.
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		<-sigs
		cancel() // kills the running case
		time.Sleep(300 * time.Millisecond)
		if meter != nil {
			meter.cleanup()
		}
		if !o.keep {
			os.RemoveAll(tmp)
		}
		os.Exit(130)
	}()

	m := describeMachine(vig)
	if meter, err = newCPUMeter(); err != nil {
		m.CPUMeter = "rusage (misses the CPU used inside bwrap's pid namespace): " + err.Error()
		logf("cpu: %v; falling back to rusage", err)
	} else {
		defer meter.cleanup()
		m.CPUMeter = "a cgroup vbench runs every case in (covers namespaces and daemonized helpers)"
	}
	m.LoadBefore = loadavg()

	logf("building work trees in %s", tmp)
	env, err := prepare(ctx, o, tmp, vig, logf)
	if err != nil {
		return err
	}
	cases := env.cases(o)
	if o.only != "" {
		keep := map[string]bool{}
		for _, n := range strings.Split(o.only, ",") {
			keep[strings.TrimSpace(n)] = true
		}
		var sel []*benchCase
		for _, c := range cases {
			if keep[c.name] {
				sel = append(sel, c)
			}
		}
		cases = sel
	}

	logf("warm-up round")
	for _, c := range cases {
		if c.skip != "" {
			continue
		}
		// Three tries: a case is left out only when it cannot run at all;
		// a flaky failure is counted in the rounds and shown in the table.
		var err error
		for try := 0; try < 3; try++ {
			if _, err = c.once(ctx); err == nil {
				break
			}
			logf("%s: warm-up try %d: %v", c.name, try+1, err)
			if c.warmErr == "" {
				c.warmErr = err.Error()
			}
		}
		if err != nil {
			c.skip = err.Error()
		}
	}
	if o.seed == 0 {
		o.seed = time.Now().UnixNano()
	}
	logf("rounds in random orders, seed %d", o.seed)
	order := rand.New(rand.NewSource(o.seed))
	start := time.Now()
	for r := 0; r < o.rounds; r++ {
		// Each round in a new random order. A fixed order (even one
		// rotated each round) keeps every case behind the same
		// neighbour, and what a case leaves to the kernel then lands on
		// that one neighbour alone: vigiles-deny, the first vigiles case
		// after cases that move no process into a cgroup, measured 4-9
		// ms slower than the same run behind another vigiles run (a
		// cgroup move waits for a whole RCU grace period unless another
		// came just before; docs/performance.md, item 14).
		for _, i := range order.Perm(len(cases)) {
			c := cases[i]
			if c.skip != "" {
				continue
			}
			s, err := c.once(ctx)
			if err != nil {
				c.failures++
				if c.firstErr == "" {
					c.firstErr = err.Error()
				}
				continue
			}
			s.round = r
			c.samples = append(c.samples, s)
		}
		logf("round %d/%d done (%s)", r+1, o.rounds, time.Since(start).Round(time.Second))
	}

	audits := make([]auditRun, len(o.auditCmds))
	if o.auditHooks > 0 && (o.only == "" || strings.Contains(o.only, "audit")) {
		// Interleaved, as the single runs are: round i audits every command.
		for i := 0; i < o.auditRounds; i++ {
			for k, c := range o.auditCmds {
				if audits[k].err != "" {
					continue
				}
				logf("audit %d/%d of %d hooks running %q", i+1, o.auditRounds, o.auditHooks, c)
				a, err := env.audit(ctx, env.auditRepos[k])
				if err == nil && a.hooks != o.auditHooks {
					err = fmt.Errorf("the audit ran %d hooks of the %d the repository declares", a.hooks, o.auditHooks)
				}
				if err != nil {
					audits[k].err = err.Error()
					logf("audit: %v", err)
					continue
				}
				audits[k].samples = append(audits[k].samples, a)
			}
		}
	}
	m.LoadAfter = loadavg()

	var b bytes.Buffer
	writeReport(&b, m, o, cases, audits, env)
	writeBudget(&b, m, o, cases, audits)
	if o.out != "" {
		if err := os.WriteFile(o.out, b.Bytes(), 0o644); err != nil {
			return err
		}
	}
	if o.doc != "" {
		if err := mdblock.Replace(o.doc, "vbench", b.Bytes()); err != nil {
			return err
		}
	}
	_, err = stdout.Write(b.Bytes())
	return err
}

// sample is one timed execution.
type sample struct {
	// round is the round the sample was taken in (pairs cases by round).
	round int
	wall  time.Duration
	// own is the command's own run time as vigiles reported it
	// (durationMs), -1 when the case is not a vigiles run.
	own time.Duration
	// cpu is user+sys of the process and every descendant it reaped.
	cpu time.Duration
}

// meter is nil when no cgroup could be made (then rusage is used).
var meter *cpuMeter

// cpuStart and cpuOf measure a case's CPU: through the cgroup when there
// is one, else the child's rusage.
func cpuStart() time.Duration {
	if meter == nil {
		return 0
	}
	d, _ := meter.read()
	return d
}

func cpuOf(start time.Duration, ps *os.ProcessState) time.Duration {
	if meter != nil {
		if d, err := meter.read(); err == nil {
			return d - start
		}
	}
	if ps == nil {
		return 0
	}
	return ps.UserTime() + ps.SystemTime()
}

type benchCase struct {
	name, what string
	// floor names the case this one's ratio is also taken against.
	floor    string
	once     func(ctx context.Context) (sample, error)
	skip     string // set when the case cannot run here (why)
	samples  []sample
	failures int
	firstErr string
	warmErr  string // a warm-up failure that a retry got past
}

// bench is everything the cases share: paths of the trees and tools.
type bench struct {
	tmp, vigiles, bwrap              string
	empty, tree100, treeN, packagesN string
	manyDir                          string
	slirpScript, pastaSh             string
	srt                              string // path of srt, "" when unavailable
	srtWhy                           string // why srt is unavailable
	srtVersion                       string
	// leanCopy is a fresh copy of vigiles with vigiles-sandbox and
	// vigiles-reaper beside it, noReaper one without vigiles-reaper, so
	// that the init's binary plays the reaper: the reaper's own binary
	// measured side by side, both from files written alike (two copies
	// of one binary have measured up to a few ms a run apart); "" when
	// the binary measured has no lean binaries beside it.
	leanCopy   string
	noReaper   string
	auditRepos []string // one per o.auditCmds
	o          options
}

func prepare(ctx context.Context, o options, tmp, vig string, logf func(string, ...any)) (*bench, error) {
	e := &bench{tmp: tmp, vigiles: vig, o: o}
	var err error
	if e.bwrap, err = exec.LookPath("bwrap"); err != nil {
		return nil, fmt.Errorf("bubblewrap is needed: %w", err)
	}
	e.empty = filepath.Join(tmp, "empty")
	e.tree100 = filepath.Join(tmp, "tree-100")
	e.treeN = filepath.Join(tmp, fmt.Sprintf("tree-%d", o.bigTree))
	e.packagesN = filepath.Join(tmp, fmt.Sprintf("packages-%d", o.bigTree))
	e.manyDir = filepath.Join(tmp, "many")
	for _, d := range []string{e.empty, e.manyDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
	}
	if err := makeTree(e.tree100, 100); err != nil {
		return nil, err
	}
	if err := makeTree(e.treeN, o.bigTree); err != nil {
		return nil, err
	}
	if err := makePackageTree(e.packagesN, o.bigTree); err != nil {
		return nil, err
	}
	if e.leanCopy, err = copyBinaries(vig, filepath.Join(tmp, "lean"), true); err != nil {
		return nil, err
	}
	if e.noReaper, err = copyBinaries(vig, filepath.Join(tmp, "no-reaper"), false); err != nil {
		return nil, err
	}
	e.slirpScript = filepath.Join(tmp, "floor-slirp4netns.sh")
	e.pastaSh = filepath.Join(tmp, "floor-pasta.sh")
	if err := os.WriteFile(e.slirpScript, []byte(slirpFloor), 0o755); err != nil {
		return nil, err
	}
	if err := os.WriteFile(e.pastaSh, []byte(pastaFloor), 0o755); err != nil {
		return nil, err
	}
	if o.auditHooks > 0 {
		for k, c := range o.auditCmds {
			repo := filepath.Join(tmp, fmt.Sprintf("audit-repo-%d", k))
			if err := makeAuditRepo(repo, o.auditHooks, c); err != nil {
				return nil, err
			}
			e.auditRepos = append(e.auditRepos, repo)
		}
	}
	if o.noSRT {
		e.srtWhy = "skipped (-no-srt)"
	} else {
		logf("installing @anthropic-ai/sandbox-runtime into a temporary directory")
		e.srt, e.srtVersion, e.srtWhy = installSRT(ctx, filepath.Join(tmp, "srt"), o.srtVersion)
	}
	return e, nil
}

// makeTree creates n small files under dir, 1000 per subdirectory.
func makeTree(dir string, n int) error {
	for i := 0; i < n; i++ {
		sub := filepath.Join(dir, fmt.Sprintf("d%03d", i/1000))
		if i%1000 == 0 {
			if err := os.MkdirAll(sub, 0o755); err != nil {
				return err
			}
		}
		if err := os.WriteFile(filepath.Join(sub, fmt.Sprintf("f%04d.txt", i%1000)), []byte("x\n"), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// makePackageTree creates n small files under dir shaped as a project's
// dependencies are (node_modules): ten files a directory, fifty
// directories a package, so n/10 directories, where makeTree makes n/1000.
// Every run lists each directory of its tree once (the search for nested
// checkouts and dotenv files), so this tree costs what its directories do.
func makePackageTree(dir string, n int) error {
	for i := 0; i < n; i += 10 {
		sub := filepath.Join(dir, "node_modules", fmt.Sprintf("p%03d", i/500), fmt.Sprintf("lib%02d", i/10%50))
		if err := os.MkdirAll(sub, 0o755); err != nil {
			return err
		}
		for j := 0; j < 10 && i+j < n; j++ {
			if err := os.WriteFile(filepath.Join(sub, fmt.Sprintf("f%d.js", j)), []byte("x\n"), 0o644); err != nil {
				return err
			}
		}
	}
	return nil
}

// makeAuditRepo writes a repository whose hooks/hooks.json declares n
// command hooks running cmd on the Stop event (one payload each). Each
// command ends in a shell comment of its own ("true # hook 17"), which
// the shell skips: Claude Code, and the audit with it, runs command hooks
// of one plugin that are written alike once a call.
func makeAuditRepo(dir string, n int, cmd string) error {
	if err := os.MkdirAll(filepath.Join(dir, "hooks"), 0o755); err != nil {
		return err
	}
	type hook struct {
		Type    string `json:"type"`
		Command string `json:"command"`
	}
	hs := make([]hook, n)
	for i := range hs {
		hs[i] = hook{"command", fmt.Sprintf("%s # hook %d", cmd, i+1)}
	}
	doc := map[string]any{"hooks": map[string]any{"Stop": []any{map[string]any{"hooks": hs}}}}
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "hooks", "hooks.json"), b, 0o644)
}

// The honest floors for a routed namespace: bwrap blocks before exec
// (--block-fd) until the connector is attached to its namespaces and says
// it is ready; then `true` runs and everything is torn down. Each
// connector gets the options the engine gives it (pkg/egress/attach.go),
// so the comparison is like for like; slirp4netns also gets --configure,
// since the script has no init to bring its tap up and route it (the
// engine does that in the init, in one rtnetlink batch).
const slirpFloor = `#!/bin/bash
set -eu
d=$(mktemp -d); bw=; sl=
trap '[[ -n $sl ]] && kill $sl 2>/dev/null; [[ -n $bw ]] && kill $bw 2>/dev/null; rm -rf "$d"' EXIT
mkfifo "$d/block" "$d/info" "$d/ready"
exec 4<>"$d/block"
bwrap --unshare-all --ro-bind / / --dev /dev --proc /proc --info-fd 3 --block-fd 4 true 3>"$d/info" &
bw=$!
pid=$(sed -n 's/.*"child-pid": *\([0-9]*\).*/\1/p' <"$d/info")
exec 5<>"$d/ready"
slirp4netns --configure --mtu=65520 --disable-host-loopback --enable-ipv6 --ready-fd 6 \
	--userns-path=/proc/$pid/ns/user --netns-type=path /proc/$pid/ns/net tap0 6>"$d/ready" >/dev/null 2>&1 &
sl=$!
head -c1 <&5 >/dev/null
echo >&4
wait "$bw"; bw=
kill "$sl" 2>/dev/null || true
wait "$sl" 2>/dev/null || true; sl=
`

const pastaFloor = `#!/bin/bash
set -eu
d=$(mktemp -d); bw=
trap '[[ -f $d/pasta.pid ]] && kill $(cat $d/pasta.pid) 2>/dev/null; [[ -n $bw ]] && kill $bw 2>/dev/null; rm -rf "$d"' EXIT
mkfifo "$d/block" "$d/info"
exec 4<>"$d/block"
bwrap --unshare-all --ro-bind / / --dev /dev --proc /proc --info-fd 3 --block-fd 4 true 3>"$d/info" &
bw=$!
pid=$(sed -n 's/.*"child-pid": *\([0-9]*\).*/\1/p' <"$d/info")
# pasta returns once the namespace is configured and it has daemonized.
runas=(); [[ $(id -u) == 0 ]] && runas=(--runas 0:0)
pasta --config-net --quiet --no-map-gw -t none -u none -T none -U none --pid "$d/pasta.pid" "${runas[@]}" \
	--userns /proc/$pid/ns/user --netns /proc/$pid/ns/net >/dev/null
echo >&4
wait "$bw"; bw=
`

// copyBinaries copies vig and the vigiles-sandbox beside it, and with
// reaper the vigiles-reaper too, into dir and returns the copy of vig; ""
// when vig has no vigiles-sandbox and vigiles-reaper beside it (nothing to
// compare then).
func copyBinaries(vig, dir string, reaper bool) (string, error) {
	src := filepath.Dir(vig)
	for _, n := range []string{"vigiles-sandbox", "vigiles-reaper"} {
		if _, err := os.Stat(filepath.Join(src, n)); err != nil {
			return "", nil
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	names := []string{filepath.Base(vig), "vigiles-sandbox"}
	if reaper {
		names = append(names, "vigiles-reaper")
	}
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join(src, n))
		if err != nil {
			return "", err
		}
		if err := os.WriteFile(filepath.Join(dir, n), b, 0o755); err != nil {
			return "", err
		}
	}
	return filepath.Join(dir, filepath.Base(vig)), nil
}

func (e *bench) cases(o options) []*benchCase {
	raw := []string{e.bwrap, "--unshare-all", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "true"}
	vrun := func(workdir string, extra ...string) []string {
		a := []string{e.vigiles, "run", "--json", "--workdir", workdir}
		a = append(a, extra...)
		return a
	}
	manyCmd := fmt.Sprintf("mkdir d && seq -f d/f%%g %d | xargs touch", o.manyWrites)
	cs := []*benchCase{
		{name: "direct", what: "direct exec of `true`", once: execCase([]string{"true"}, "")},
		{name: "bwrap", what: "raw `bwrap --unshare-all --ro-bind / / --dev /dev --proc /proc true`", once: execCase(raw, "")},
		{name: "bwrap-vigiles-argv", what: "bwrap with vigiles' own argv (pkg/sandbox/testdata/bwrap-default.golden; as root, bwrap-tree-by-fd.golden run as uid 2000000000) running `true`", once: vargvCase(e, "true")},
		{name: "bwrap-vigiles-argv-go", what: "the same, running `vigiles --version` (one Go start inside)", once: vargvCase(e, "/proc/self/fd/8", "--version")},
		{name: "vigiles-version", what: "`vigiles --version` on the host (one Go start)", once: execCase([]string{e.vigiles, "--version"}, "")},
		{name: "floor-slirp4netns", what: "shell script: bwrap + slirp4netns attached, then `true`", once: execCase([]string{"bash", e.slirpScript}, "")},
		{name: "floor-pasta", what: "shell script: bwrap + pasta attached, then `true`", once: execCase([]string{"bash", e.pastaSh}, "")},
		{name: "vigiles-deny", what: "`vigiles run --json --egress deny -- true`", once: vigilesCase(vrun(e.empty, "--egress", "deny", "--", "true"), e.empty, -1)},
		{name: "vigiles-record", what: "`vigiles run --json --egress record -- true`", once: vigilesCase(vrun(e.empty, "--egress", "record", "--", "true"), e.empty, -1)},
		{name: "vigiles-deny-copy", what: "vigiles-deny from fresh copies of vigiles, vigiles-sandbox and vigiles-reaper",
			once: vigilesCase([]string{e.leanCopy, "run", "--json", "--workdir", e.empty, "--egress", "deny", "--", "true"}, e.empty, -1)},
		{name: "vigiles-deny-no-reaper", what: "the same without vigiles-reaper beside them (the init's binary plays the reaper)", floor: "vigiles-deny-copy",
			once: vigilesCase([]string{e.noReaper, "run", "--json", "--workdir", e.empty, "--egress", "deny", "--", "true"}, e.empty, -1)},
		{name: "vigiles-allow", what: "`vigiles run --json --egress allow --allow-ip 192.0.2.1/32 -- true` (slirp4netns)", floor: "floor-slirp4netns",
			once: vigilesCase(vrun(e.empty, "--egress", "allow", "--allow-ip", "192.0.2.1/32", "--connector", "slirp4netns", "--", "true"), e.empty, -1)},
		{name: "vigiles-allow-pasta", what: "`vigiles run --json --egress allow --allow-ip 192.0.2.1/32 --connector pasta -- true`", floor: "floor-pasta",
			once: vigilesCase(vrun(e.empty, "--egress", "allow", "--allow-ip", "192.0.2.1/32", "--connector", "pasta", "--", "true"), e.empty, -1)},
		{name: "write1-tree100", what: "deny, writes one file in a 100-file tree", once: vigilesCase(vrun(e.tree100, "--", "sh", "-c", "echo x > new.txt"), e.tree100, 1)},
		{name: fmt.Sprintf("write1-tree%d", o.bigTree), what: fmt.Sprintf("deny, writes one file in a %d-file tree", o.bigTree), floor: "write1-tree100",
			once: vigilesCase(vrun(e.treeN, "--", "sh", "-c", "echo x > new.txt"), e.treeN, 1)},
		{name: fmt.Sprintf("write1-packages%d", o.bigTree), what: fmt.Sprintf("deny, writes one file in a %d-file tree of %d directories (node_modules' shape)", o.bigTree, o.bigTree/10), floor: "write1-tree100",
			once: vigilesCase(vrun(e.packagesN, "--", "sh", "-c", "echo x > new.txt"), e.packagesN, 1)},
		{name: fmt.Sprintf("write%d", o.manyWrites/10), what: fmt.Sprintf("deny, writes %d files (`seq | xargs touch`)", o.manyWrites/10),
			once: vigilesCase(vrun(e.manyDir, "--", "sh", "-c", fmt.Sprintf("mkdir d && seq -f d/f%%g %d | xargs touch", o.manyWrites/10)), e.manyDir, o.manyWrites/10)},
		{name: fmt.Sprintf("write%d", o.manyWrites), what: fmt.Sprintf("deny, writes %d files (`seq | xargs touch`)", o.manyWrites),
			once: vigilesCase(vrun(e.manyDir, "--", "sh", "-c", manyCmd), e.manyDir, o.manyWrites)},
		{name: fmt.Sprintf("direct-write%d", o.manyWrites), what: fmt.Sprintf("the same %d-file command run directly on tmpfs (its own cost)", o.manyWrites),
			once: directMany(e.tmp, manyCmd)},
	}
	if e.noReaper == "" {
		for _, c := range cs {
			if c.name == "vigiles-deny-copy" || c.name == "vigiles-deny-no-reaper" {
				c.once, c.skip = nil, "no vigiles-sandbox and vigiles-reaper beside the binary measured (make build puts them there)"
			}
		}
	}
	srt := &benchCase{name: "srt", what: "`srt true` (@anthropic-ai/sandbox-runtime " + e.srtVersion + ")"}
	if e.srt == "" {
		srt.skip = e.srtWhy
	} else {
		srt.once = execCase([]string{e.srt, "true"}, e.empty)
	}
	return append(cs, srt)
}

// caseTimeout bounds one execution of a case.
const caseTimeout = 2 * time.Minute

// vargvCase runs bwrap with vigiles' own argv (vargv) and then tail, as
// vigiles starts it: the binary on fd 8, and for a root caller (whose work
// trees here are root's) as uid 2000000000 (sandbox.SandboxUID).
func vargvCase(e *bench, tail ...string) func(context.Context) (sample, error) {
	return cmdCase(append(vargv(e), tail...), "", func(cmd *exec.Cmd) (func(), error) {
		exe, err := os.Open(e.vigiles)
		if err != nil {
			return nil, err
		}
		cmd.ExtraFiles = []*os.File{nil, nil, nil, nil, nil, exe}
		if os.Geteuid() == 0 {
			cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: sandbox.SandboxUID, Gid: sandbox.SandboxUID, Groups: []uint32{}}}
		}
		return func() { exe.Close() }, nil
	})
}

// vargv is the bwrap argv vigiles uses for a default confined run
// (pkg/sandbox/argv.go; its golden files are testdata/bwrap-default.golden
// and, for a root caller's root-owned tree, bwrap-tree-by-fd.golden),
// without the init: it separates what bubblewrap costs with vigiles' mounts
// from what vigiles adds.
func vargv(e *bench) []string {
	a := []string{e.bwrap, "--unshare-user", "--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts", "--unshare-cgroup",
		"--uid", "0", "--gid", "0", "--hostname", "vigiles", "--die-with-parent", "--new-session", "--cap-add", "ALL", "--clearenv",
		"--ro-bind", "/", "/"}
	for _, d := range []string{"/home", "/root", "/var/tmp", "/var/run", "/mnt", "/media", "/srv"} {
		if fi, err := os.Lstat(d); err == nil && fi.IsDir() {
			a = append(a, "--tmpfs", d)
		}
	}
	a = append(a, "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp", "--tmpfs", "/run", "--dir", "/root")
	if os.Geteuid() == 0 {
		// The init mounts the id-mapped tree the broker hands it.
		a = append(a, "--dir", "/run/overlay/lower")
	} else {
		a = append(a, "--ro-bind", e.empty, "/run/overlay/lower")
	}
	return append(a, "--dir", "/run/overlay/scratch", "--dir", e.empty, "--chdir", "/")
}

// execCase runs argv and times it; a non-zero exit is an error.
func execCase(argv []string, dir string) func(context.Context) (sample, error) {
	return cmdCase(argv, dir, nil)
}

// cmdCase is execCase with prepare, when not nil, called on each command
// before it starts; what prepare returns is called once it has ended.
func cmdCase(argv []string, dir string, prepare func(*exec.Cmd) (done func(), err error)) func(context.Context) (sample, error) {
	return func(ctx context.Context) (sample, error) {
		ctx, cancel := context.WithTimeout(ctx, caseTimeout)
		defer cancel()
		cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
		cmd.Dir = dir
		cmd.WaitDelay = time.Second // a leftover child holding stderr must not hang the bench
		if prepare != nil {
			done, err := prepare(cmd)
			if err != nil {
				return sample{}, err
			}
			defer done()
		}
		var errb bytes.Buffer
		cmd.Stderr = &errb
		c0 := cpuStart()
		t := time.Now()
		err := cmd.Run()
		d := time.Since(t)
		if err != nil {
			return sample{}, fmt.Errorf("%v: %s", err, firstLine(errb.String()))
		}
		return sample{wall: d, own: -1, cpu: cpuOf(c0, cmd.ProcessState)}, nil
	}
}

// directMany runs the many-writes command directly in a fresh directory.
func directMany(tmp, script string) func(context.Context) (sample, error) {
	return func(ctx context.Context) (sample, error) {
		// On tmpfs, as the sandbox's scratch (where a confined run's
		// writes go) is: the comparison is then like for like.
		base := tmp
		if isDir("/dev/shm") {
			base = "/dev/shm"
		}
		dir, err := os.MkdirTemp(base, "vbench-direct-many-")
		if err != nil {
			return sample{}, err
		}
		defer os.RemoveAll(dir)
		return execCase([]string{"sh", "-c", script}, dir)(ctx)
	}
}

// runResult is the part of vigiles.run/v1 vbench checks.
type runResult struct {
	Tier       string            `json:"tier"`
	Refusal    string            `json:"refusal"`
	ExitCode   int               `json:"exitCode"`
	DurationMs float64           `json:"durationMs"`
	Writes     []json.RawMessage `json:"writes"`
	Stderr     string            `json:"stderr"`
}

// vigilesCase runs a `vigiles run --json` and checks it ran confined, the
// command exited 0 and, when wantWrites >= 0, the write count.
func vigilesCase(argv []string, dir string, wantWrites int) func(context.Context) (sample, error) {
	return func(ctx context.Context) (sample, error) {
		ctx, cancel := context.WithTimeout(ctx, caseTimeout)
		defer cancel()
		cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
		cmd.Dir = dir
		cmd.WaitDelay = time.Second
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		c0 := cpuStart()
		t := time.Now()
		err := cmd.Run()
		d := time.Since(t)
		var r runResult
		if jerr := json.Unmarshal(out.Bytes(), &r); jerr != nil {
			if err == nil {
				err = jerr
			}
			return sample{}, fmt.Errorf("%v: %s", err, firstLine(errb.String()))
		}
		switch {
		case r.Tier != "confined":
			return sample{}, fmt.Errorf("tier %s: %s", r.Tier, firstLine(r.Refusal))
		case r.ExitCode != 0:
			return sample{}, fmt.Errorf("command exited %d: %s", r.ExitCode, firstLine(r.Stderr))
		case wantWrites >= 0 && len(r.Writes) != wantWrites:
			return sample{}, fmt.Errorf("reported %d writes, want exactly %d", len(r.Writes), wantWrites)
		}
		return sample{wall: d, own: time.Duration(r.DurationMs * float64(time.Millisecond)), cpu: cpuOf(c0, cmd.ProcessState)}, nil
	}
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 160 {
		s = s[:160] + "…"
	}
	return s
}

// installSRT pins an exact version with `npm view` and installs it into
// dir. It returns the srt path, the version, or why it is unavailable.
func installSRT(ctx context.Context, dir, version string) (path, ver, why string) {
	const pkg = "@anthropic-ai/sandbox-runtime"
	if _, err := exec.LookPath("npm"); err != nil {
		return "", "", "npm is not installed"
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	if version == "" {
		out, err := exec.CommandContext(ctx, "npm", "view", pkg, "version").Output()
		if err != nil {
			return "", "", fmt.Sprintf("npm view %s failed: %v", pkg, err)
		}
		version = strings.TrimSpace(string(out))
	}
	out, err := exec.CommandContext(ctx, "npm", "install", "--prefix", dir, "--no-audit", "--no-fund", pkg+"@"+version).CombinedOutput()
	if err != nil {
		return "", version, fmt.Sprintf("npm install %s@%s failed: %v: %s", pkg, version, err, firstLine(string(out)))
	}
	p := filepath.Join(dir, "node_modules", ".bin", "srt")
	if _, err := os.Stat(p); err != nil {
		return "", version, fmt.Sprintf("%s@%s installed no srt binary", pkg, version)
	}
	return p, version, ""
}

// auditSample is one `vigiles audit` of the generated repository.
type auditSample struct {
	wall     time.Duration
	hooks    int
	hookTime time.Duration // sum of the runs' durationMs
	cpu      time.Duration // user+sys of vigiles and every descendant
	maxRSSKB int64         // largest RSS of any process of the tree (rusage)
	hwmKB    int64         // the broker's own VmHWM, last seen while it ran
	// brokerCPU is the broker's own user+sys (its threads, not its
	// children), last seen while it ran (10 ms resolution).
	brokerCPU time.Duration
	jobs      int
	coreBusy  []float64 // per-core busy fraction over the audit (whole machine)
}

// auditRun is the audits of one hook command: their samples, or the error
// that stopped them.
type auditRun struct {
	samples []auditSample
	err     string
}

// median is the audit of median wall time, false when none succeeded.
func (r auditRun) median() (auditSample, bool) {
	if len(r.samples) == 0 {
		return auditSample{}, false
	}
	s := append([]auditSample(nil), r.samples...)
	sort.Slice(s, func(i, j int) bool { return s[i].wall < s[j].wall })
	return s[len(s)/2], true
}

// share is vigiles' own share of an audit's lanes: what is not the hooks'
// own run time.
func (a auditSample) share() float64 {
	return 1 - float64(a.hookTime)/(float64(a.jobs)*float64(a.wall))
}

func (e *bench) audit(ctx context.Context, repo string) (auditSample, error) {
	jobs := runtime.NumCPU()
	cmd := exec.CommandContext(ctx, e.vigiles, "audit", "--dir", repo, "--format", "json", "--baseline", "", "-q",
		"--jobs", strconv.Itoa(jobs))
	cmd.Dir = repo
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	before := cpuTimes()
	c0 := cpuStart()
	t := time.Now()
	if err := cmd.Start(); err != nil {
		return auditSample{}, err
	}
	var hwm int64
	var self time.Duration
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	tick := time.NewTicker(5 * time.Millisecond)
	var err error
wait:
	for {
		select {
		case err = <-done:
			break wait
		case <-tick.C:
			if v := procstat.VmHWM(cmd.Process.Pid); v > hwm {
				hwm = v
			}
			if v := selfCPU(cmd.Process.Pid); v > self {
				self = v
			}
		}
	}
	tick.Stop()
	wall := time.Since(t)
	after := cpuTimes()
	if err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 0 {
			return auditSample{}, fmt.Errorf("vigiles audit: %v: %s", err, firstLine(errb.String()))
		}
	}
	var rep struct {
		Runs []struct {
			Tier       string  `json:"tier"`
			DurationMs float64 `json:"durationMs"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		return auditSample{}, fmt.Errorf("reading the audit report: %w", err)
	}
	a := auditSample{wall: wall, hooks: len(rep.Runs), hwmKB: hwm, jobs: jobs, brokerCPU: self}
	for _, r := range rep.Runs {
		if r.Tier != "confined" {
			return a, fmt.Errorf("a hook ran %s, not confined", r.Tier)
		}
		a.hookTime += time.Duration(r.DurationMs * float64(time.Millisecond))
	}
	a.cpu = cpuOf(c0, cmd.ProcessState)
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		a.maxRSSKB = ru.Maxrss
	}
	for i := range after {
		if i < len(before) && after[i].total > before[i].total {
			a.coreBusy = append(a.coreBusy, float64(after[i].busy-before[i].busy)/float64(after[i].total-before[i].total))
		}
	}
	return a, nil
}

// selfCPU reads utime+stime of pid (all its threads, no children) from
// /proc/PID/stat.
func selfCPU(pid int) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0
	}
	// After the command name: state is field 3, utime 14, stime 15.
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(ut+st) * (time.Second / 100) // USER_HZ is 100 on Linux
}

type cpuTime struct{ busy, total uint64 }

// cpuTimes reads per-core jiffies from /proc/stat.
func cpuTimes() []cpuTime {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return nil
	}
	var out []cpuTime
	for _, l := range strings.Split(string(b), "\n") {
		f := strings.Fields(l)
		if len(f) < 8 || !strings.HasPrefix(f[0], "cpu") || f[0] == "cpu" {
			continue
		}
		var ct cpuTime
		for i, s := range f[1:] {
			v, _ := strconv.ParseUint(s, 10, 64)
			ct.total += v
			if i != 3 && i != 4 { // idle, iowait
				ct.busy += v
			}
		}
		out = append(out, ct)
	}
	return out
}

// machine describes where the numbers were taken.
type machine struct {
	CPU, Kernel, Bwrap, Slirp, Pasta, Vigiles, Go string
	CPUMeter                                      string
	NProc                                         int
	LoadBefore, LoadAfter                         string
}

func describeMachine(vig string) machine {
	m := machine{NProc: runtime.NumCPU(), Go: runtime.Version()}
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(l, "model name") {
				if i := strings.IndexByte(l, ':'); i >= 0 {
					m.CPU = strings.TrimSpace(l[i+1:])
					break
				}
			}
		}
	}
	var u syscall.Utsname
	if syscall.Uname(&u) == nil {
		m.Kernel = cstr(u.Release[:])
	}
	ver := func(argv ...string) string {
		out, err := exec.Command(argv[0], argv[1:]...).CombinedOutput()
		if err != nil {
			return "unavailable"
		}
		return firstLine(string(out))
	}
	m.Bwrap = ver("bwrap", "--version")
	m.Slirp = ver("slirp4netns", "--version")
	m.Pasta = ver("pasta", "--version")
	if strings.Contains(m.Pasta, "unknown version") {
		// Debian's build does not know its own version; its package does.
		if out, err := exec.Command("dpkg-query", "-W", "-f", "${Version}", "passt").Output(); err == nil && len(out) > 0 {
			m.Pasta = "pasta (passt " + strings.TrimSpace(string(out)) + ")"
		}
	}
	m.Vigiles = ver(vig, "--version")
	if f, err := elf.Open(vig); err == nil {
		m.Vigiles += ", statically linked"
		for _, p := range f.Progs {
			if p.Type == elf.PT_INTERP {
				m.Vigiles = strings.TrimSuffix(m.Vigiles, ", statically linked") + ", DYNAMICALLY linked (make build links statically: CGO_ENABLED=0)"
			}
		}
		f.Close()
	}
	return m
}

func cstr(b []int8) string {
	var s []byte
	for _, c := range b {
		if c == 0 {
			break
		}
		s = append(s, byte(c))
	}
	return string(s)
}

func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}

// pairedRatios divides each of a's samples by b's sample of the same round
// (rounds where either has none are left out). The machine's speed drifts
// between rounds; a round's two samples were taken within seconds of each
// other, so their ratio carries less of the drift than the ratio of the
// two medians does.
func pairedRatios(a, b *benchCase) []float64 {
	if a == nil || b == nil {
		return nil
	}
	byRound := map[int]time.Duration{}
	for _, s := range b.samples {
		byRound[s.round] = s.wall
	}
	var rs []float64
	for _, s := range a.samples {
		if d, ok := byRound[s.round]; ok && d > 0 {
			rs = append(rs, float64(s.wall)/float64(d))
		}
	}
	return rs
}

// pairedNote is "; per round M × (P25–P75)" for a budget line, or ""
// when fewer than 4 rounds hold both cases.
func pairedNote(a, b *benchCase) string {
	rs := pairedRatios(a, b)
	if len(rs) < 4 {
		return ""
	}
	return fmt.Sprintf("; per round %.2f × (%.2f–%.2f)", quantile(rs, 0.5), quantile(rs, 0.25), quantile(rs, 0.75))
}

// quantile returns the q-quantile (nearest rank) of ds; the median of an
// even count is the mean of the middle two.
func quantile[T time.Duration | float64](ds []T, q float64) T {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	if q == 0.5 && len(s)%2 == 0 {
		return (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	i := int(q*float64(len(s))+0.999999) - 1
	if i < 0 {
		i = 0
	}
	if i >= len(s) {
		i = len(s) - 1
	}
	return s[i]
}

func msf(d time.Duration) string { return fmt.Sprintf("%.1f", float64(d.Microseconds())/1000) }

func (c *benchCase) walls() []time.Duration {
	var ds []time.Duration
	for _, s := range c.samples {
		ds = append(ds, s.wall)
	}
	return ds
}

func (c *benchCase) cpus() []time.Duration {
	var ds []time.Duration
	for _, s := range c.samples {
		ds = append(ds, s.cpu)
	}
	return ds
}

func (c *benchCase) overheads() []time.Duration {
	var ds []time.Duration
	for _, s := range c.samples {
		if s.own >= 0 {
			ds = append(ds, s.wall-s.own)
		}
	}
	return ds
}

func writeReport(w io.Writer, m machine, o options, cases []*benchCase, audits []auditRun, e *bench) {
	byName := map[string]*benchCase{}
	for _, c := range cases {
		byName[c.name] = c
	}
	median := func(name string) time.Duration {
		if c := byName[name]; c != nil && len(c.samples) > 0 {
			return quantile(c.walls(), 0.5)
		}
		return 0
	}
	ratio := func(a, b time.Duration) string {
		if a == 0 || b == 0 {
			return "–"
		}
		return fmt.Sprintf("%.2f×", float64(a)/float64(b))
	}
	fmt.Fprintf(w, "### Machine\n\n")
	fmt.Fprintf(w, "- CPU: %s, %d cores (nproc)\n- kernel: %s\n", m.CPU, m.NProc, m.Kernel)
	fmt.Fprintf(w, "- %s; %s; %s\n", m.Bwrap, m.Slirp, m.Pasta)
	fmt.Fprintf(w, "- vigiles: %s (%s)\n", m.Vigiles, m.Go)
	fmt.Fprintf(w, "- load average (1/5/15 min) before: %s, after: %s\n", m.LoadBefore, m.LoadAfter)
	fmt.Fprintf(w, "- CPU time measured by %s\n", m.CPUMeter)
	fmt.Fprintf(w, "- %d interleaved rounds (every case once per round, each round in a new random order, seed %d; after one warm-up round)\n\n", o.rounds, o.seed)

	fmt.Fprintf(w, "### Single runs (wall time, ms)\n\n")
	fmt.Fprintf(w, "| case | what | median | p90 | × raw bwrap | × floor | vigiles' own (median wall − durationMs) | CPU median (user+sys, whole tree) | CPU × raw bwrap | n |\n")
	fmt.Fprintf(w, "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	bw := median("bwrap")
	var bwCPU time.Duration
	if c := byName["bwrap"]; c != nil && len(c.samples) > 0 {
		bwCPU = quantile(c.cpus(), 0.5)
	}
	for _, c := range cases {
		if c.skip != "" {
			fmt.Fprintf(w, "| %s | %s | – | – | – | – | – | – | – | not run: %s |\n", c.name, c.what, mdEscape(c.skip))
			continue
		}
		if len(c.samples) == 0 {
			fmt.Fprintf(w, "| %s | %s | – | – | – | – | – | – | – | failed: %s |\n", c.name, c.what, mdEscape(c.firstErr))
			continue
		}
		med, p90 := quantile(c.walls(), 0.5), quantile(c.walls(), 0.9)
		floor := "–"
		if c.floor != "" {
			floor = ratio(med, median(c.floor)) + " " + c.floor
		}
		own := "–"
		if ov := c.overheads(); len(ov) > 0 {
			own = msf(quantile(ov, 0.5))
		}
		n := strconv.Itoa(len(c.samples))
		if c.failures > 0 {
			n += fmt.Sprintf(" (%d failed: %s)", c.failures, mdEscape(c.firstErr))
		}
		if c.warmErr != "" {
			n += fmt.Sprintf(" (warm-up failed once: %s)", mdEscape(c.warmErr))
		}
		cpu := quantile(c.cpus(), 0.5)
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", c.name, c.what, msf(med), msf(p90), ratio(med, bw), floor, own, msf(cpu), ratio(cpu, bwCPU), n)
	}

	for k, c := range o.auditCmds {
		writeAudit(w, m, o, c, audits[k])
	}
}

func writeAudit(w io.Writer, m machine, o options, command string, run auditRun) {
	fmt.Fprintf(w, "\n### Audit of %d hooks (`%s` on Stop), %d cores\n\n", o.auditHooks, command, m.NProc)
	a, ok := run.median()
	switch {
	case o.auditHooks == 0:
		fmt.Fprintf(w, "Not run (-audit-hooks 0).\n")
		return
	case !ok && run.err == "":
		fmt.Fprintf(w, "Not run (-only).\n")
		return
	case !ok:
		fmt.Fprintf(w, "Failed: %s\n", mdEscape(run.err))
		return
	}
	fmt.Fprintf(w, "Median of %d audits (by wall time), interleaved with the other audits. `--jobs %d`.\n\n", len(run.samples), a.jobs)
	fmt.Fprintf(w, "| measure | value |\n|---|---:|\n")
	fmt.Fprintf(w, "| hooks run | %d |\n", a.hooks)
	fmt.Fprintf(w, "| wall time | %s ms |\n", msf(a.wall))
	fmt.Fprintf(w, "| per hook (wall / hooks × jobs) | %.1f ms |\n", float64(a.wall.Microseconds())/1000/float64(a.hooks)*float64(a.jobs))
	fmt.Fprintf(w, "| hooks' own run time (Σ durationMs) | %s ms |\n", msf(a.hookTime))
	fmt.Fprintf(w, "| vigiles' own share: 1 − Σ durationMs / (jobs × wall) | %.1f %% |\n", 100*a.share())
	fmt.Fprintf(w, "| CPU of vigiles and everything it started (user+sys) | %s ms (%.1f ms per hook) |\n", msf(a.cpu), float64(a.cpu.Microseconds())/1000/float64(a.hooks))
	fmt.Fprintf(w, "| … of which the broker's own threads (runner, result handling; /proc/PID/stat) | %s ms (%.1f ms per hook) |\n", msf(a.brokerCPU), float64(a.brokerCPU.Microseconds())/1000/float64(a.hooks))
	fmt.Fprintf(w, "| CPU spread: (user+sys) / wall | %.2f cores of %d |\n", float64(a.cpu)/float64(a.wall), m.NProc)
	var busy []string
	for i, b := range a.coreBusy {
		busy = append(busy, fmt.Sprintf("cpu%d %.0f %%", i, 100*b))
	}
	fmt.Fprintf(w, "| per-core busy over the audit (whole machine, /proc/stat) | %s |\n", strings.Join(busy, ", "))
	fmt.Fprintf(w, "| broker's peak RSS (its VmHWM, sampled every 5 ms) | %.1f MiB |\n", float64(a.hwmKB)/1024)
	fmt.Fprintf(w, "| largest RSS of any process in the tree (rusage maxrss) | %.1f MiB |\n", float64(a.maxRSSKB)/1024)
}

func mdEscape(s string) string {
	return strings.NewReplacer("|", "\\|", "\n", " ", "`", "'").Replace(s)
}

// writeBudget prints each budget line of the performance issue with what
// this run measured and whether it holds.
func writeBudget(w io.Writer, m machine, o options, cases []*benchCase, audits []auditRun) {
	byName := map[string]*benchCase{}
	for _, c := range cases {
		byName[c.name] = c
	}
	med := func(name string) (time.Duration, bool) {
		c := byName[name]
		if c == nil || len(c.samples) == 0 {
			return 0, false
		}
		return quantile(c.walls(), 0.5), true
	}
	verdict := func(ok bool) string {
		if ok {
			return "holds"
		}
		return "**does not hold**"
	}
	fmt.Fprintf(w, "\n### Budget (issue: Performance)\n\n| line | limit | measured | verdict |\n|---|---|---|---|\n")
	ratioLine := func(line, a, b string, limit float64) {
		x, ok1 := med(a)
		y, ok2 := med(b)
		if !ok1 || !ok2 {
			fmt.Fprintf(w, "| %s | ≤ %.1f × | not measured (%s or %s missing) | unknown |\n", line, limit, a, b)
			return
		}
		r := float64(x) / float64(y)
		fmt.Fprintf(w, "| %s | ≤ %.1f × | %.2f × (%s / %s ms)%s | %s |\n", line, limit, r, msf(x), msf(y), pairedNote(byName[a], byName[b]), verdict(r <= limit))
	}
	ratioLine("confined `true`, deny, all hardening, vs raw bwrap", "vigiles-deny", "bwrap", 1.5)
	ratioLine("record mode vs raw bwrap", "vigiles-record", "bwrap", 2)
	ratioLine("allow mode (slirp4netns) vs the bwrap + slirp4netns script", "vigiles-allow", "floor-slirp4netns", 1)
	if x, ok1 := med("vigiles-allow-pasta"); ok1 {
		if y, ok2 := med("floor-pasta"); ok2 {
			fmt.Fprintf(w, "| allow mode with pasta vs the bwrap + pasta script (compare) | – | %.2f × (%s / %s ms)%s | – |\n", float64(x)/float64(y), msf(x), msf(y), pairedNote(byName["vigiles-allow-pasta"], byName["floor-pasta"]))
		}
	}
	ratioLine(fmt.Sprintf("one write in a %d-file tree vs a 100-file tree", o.bigTree), fmt.Sprintf("write1-tree%d", o.bigTree), "write1-tree100", 1.2)
	ratioLine(fmt.Sprintf("one write in a %d-file tree of %d directories vs a 100-file tree", o.bigTree, o.bigTree/10), fmt.Sprintf("write1-packages%d", o.bigTree), "write1-tree100", 1.2)
	many, tenth := fmt.Sprintf("write%d", o.manyWrites), fmt.Sprintf("write%d", o.manyWrites/10)
	if c := byName[many]; c != nil {
		exact := len(c.samples) > 0 && c.failures == 0 && c.skip == ""
		fmt.Fprintf(w, "| %d writes reported exactly | every run | %d of %d runs exact | %s |\n", o.manyWrites, len(c.samples), len(c.samples)+c.failures, verdict(exact))
		x, ok1 := med(many)
		y, ok2 := med(tenth)
		z, ok3 := med("write1-tree100")
		switch {
		case !ok1 || !ok2 || !ok3:
		case y-z < 5*time.Millisecond:
			fmt.Fprintf(w, "| … in time linear in the writes | per-write cost at %d ≤ 1.5 × at %d | %d writes cost less than the noise here; see BenchmarkReadUpper | unknown |\n",
				o.manyWrites, o.manyWrites/10, o.manyWrites/10)
		default:
			big := float64(x-z) / float64(o.manyWrites-1)
			small := float64(y-z) / float64(o.manyWrites/10-1)
			fmt.Fprintf(w, "| … in time linear in the writes | per-write cost at %d ≤ 1.5 × at %d | %.1f µs vs %.1f µs per write (%.2f ×) | %s |\n",
				o.manyWrites, o.manyWrites/10, big/1e3, small/1e3, big/small, verdict(big <= 1.5*small))
		}
	}
	// The spread and the memory lines are read from the first audit (the
	// default's `true` hooks: the one that loads the machine).
	for k, c := range o.auditCmds {
		a, ok := audits[k].median()
		if !ok {
			fmt.Fprintf(w, "| audit of %d hooks (`%s`): vigiles' own share | < 20 %% | not measured | unknown |\n", o.auditHooks, c)
			continue
		}
		fmt.Fprintf(w, "| audit of %d hooks (`%s`) on %d cores: vigiles' own share of the wall time | < 20 %% | %.1f %% | %s |\n", a.hooks, c, m.NProc, 100*a.share(), verdict(a.share() < 0.2))
	}
	a, ok := audits[0].median()
	if !ok {
		return
	}
	spread := float64(a.cpu) / float64(a.wall)
	fmt.Fprintf(w, "| … the work spreads over both cores (CPU / wall, `%s` hooks) | ≥ %.1f cores | %.2f cores | %s |\n", o.auditCmds[0], 0.75*float64(m.NProc), spread, verdict(spread >= 0.75*float64(m.NProc)))
	fmt.Fprintf(w, "| broker's peak RSS during the audit (`%s` hooks) | < 64 MiB | %.1f MiB | %s |\n", o.auditCmds[0], float64(a.hwmKB)/1024, verdict(a.hwmKB > 0 && a.hwmKB < 64*1024))
}
