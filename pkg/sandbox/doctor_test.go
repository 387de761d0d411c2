package sandbox

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/sys/unix"

	"github.com/vigiles/action/internal/hostprog"
	"github.com/vigiles/action/pkg/evidence"
)

// TestDoctorForReal runs every check on this machine. In CI each one must
// be available (the CI machine is set up for all of them); elsewhere a
// missing capability is logged with its fix.
func TestDoctorForReal(t *testing.T) {
	if testing.Short() {
		t.Skip("runs bwrap, slirp4netns and pasta for real")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	start := time.Now()
	r := Doctor(ctx)
	t.Logf("doctor took %v", time.Since(start))
	var text bytes.Buffer
	if err := r.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	t.Logf("\n%s", text.String())

	seen := map[string]bool{}
	for _, p := range r.Probes {
		if p.Name == "" || seen[p.Name] {
			t.Errorf("probe with empty or repeated name %q", p.Name)
		}
		seen[p.Name] = true
		if p.Detail == "" {
			t.Errorf("%s: empty detail", p.Name)
		}
		if p.Availability != Available && p.Fix == "" && p.Availability != Inconclusive {
			t.Errorf("%s is %s without a fix", p.Name, p.Availability)
		}
		if p.Name == ProbeNftables && network == nil {
			// This test binary has no egress layer (it may not import it):
			// the probe says so, and cmd/action's
			// TestDoctorNftablesProbeUsesTheEngine runs it for real.
			if p.Availability != Inconclusive || !strings.Contains(p.Detail, "no egress layer") {
				t.Errorf("%s without an egress layer: %s: %s", p.Name, p.Availability, p.Detail)
			}
			continue
		}
		if p.Availability != Available && os.Getenv("CI") == "true" {
			t.Errorf("CI=true and %s is %s: %s; fix: %s", p.Name, p.Availability, p.Detail, p.Fix)
		}
	}
	for _, n := range []string{ProbeBwrap, ProbeConfine, ProbeUserns, ProbeOverlay, ProbeNftables,
		ProbeSlirp4netns, ProbePasta, ProbeSeccomp, ProbeLandlock, ProbeAppArmorUserns, ProbeMaxUserns, ProbeBinaries, ProbeCallerSeccomp} {
		if !seen[n] {
			t.Errorf("no %s probe in the report", n)
		}
	}
	// Where slirp4netns attaches, the report says whether its tap can be
	// kept; in CI it must be (runs there are timed without that wait).
	for _, p := range r.Probes {
		if p.Name == ProbeSlirp4netns && p.Availability == Available {
			if !strings.Contains(p.Detail, "its tap") {
				t.Errorf("%s says nothing of its tap: %s", p.Name, p.Detail)
			}
			if os.Getenv("CI") == "true" && !strings.Contains(p.Detail, "its tap was kept") {
				t.Errorf("CI=true and slirp4netns's tap could not be kept: %s", p.Detail)
			}
		}
	}
	if os.Geteuid() == 0 && (!seen[ProbeUsernsNobody] || !seen[ProbePidsCgroup]) {
		t.Errorf("running as root, the report lacks %s or %s", ProbeUsernsNobody, ProbePidsCgroup)
	}
	// The report's capability agrees with the engine's own check.
	if got, want := r.Capability.Confine, probeConfinement(ctx).Confine; got != want && r.Tier != TierRefused {
		t.Errorf("report capability %s, engine check %s", got, want)
	}
	if os.Getenv("CI") == "true" && (r.Tier != TierConfined || r.WritesMethod != "overlay") {
		t.Errorf("CI=true and the tier is %s with writes by %q, want confined by overlay", r.Tier, r.WritesMethod)
	}
	if d := Decide(false, ModeAuto, r.Capability); (d.Tier == TierConfined) != (r.Tier == TierConfined) {
		t.Errorf("Decide on the report's capability gives %s, the report says %s", d.Tier, r.Tier)
	}
	// Nothing of this doctor's is left behind in the temporary directory:
	// its checks' directories, named after this process. Other packages'
	// tests, which go test runs beside this one, run doctors of their own
	// (cmd/action's), whose directories are there while they check.
	var left []string
	for kind := range doctorDirs {
		dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), doctorDirPrefix(kind)+"*"))
		left = append(left, dirs...)
	}
	if len(left) > 0 {
		t.Errorf("doctor left %v behind", left)
	}
}

// A context that is already cancelled makes every check inconclusive or
// unsupported, never available by accident, and Doctor still returns.
func TestDoctorCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r := Doctor(ctx)
	for _, p := range r.Probes {
		switch p.Name {
		case ProbeBwrap, ProbeLandlock, ProbeAppArmorUserns, ProbeMaxUserns, ProbePidsCgroup, ProbeMemoryCgroup, ProbeBinaries, ProbeCallerSeccomp:
			continue // these read or write files and run nothing
		case ProbeToolCaches:
			continue // reads files; its one program, a root caller's id-mapping cat, is not started under ctx
		}
		if p.Availability == Available {
			t.Errorf("%s is available with a cancelled context: %s", p.Name, p.Detail)
		}
	}
	if r.Tier != TierRefused {
		t.Errorf("tier %s with a cancelled context, want refused", r.Tier)
	}
}

func probe(name string, a Availability) Probe {
	return Probe{Name: name, Availability: a, Detail: name + " detail", Fix: name + " fix"}
}

func TestSummarize(t *testing.T) {
	for _, c := range []struct {
		name                 string
		confine, sc, overlay Availability
		wantTier             Tier
		wantMethod           string
		wantConfine          Availability
		wantWhyContains      string
	}{
		{"all there", Available, Available, Available, TierConfined, "overlay", Available, ""},
		{"no overlay", Available, Available, Unsupported, TierConfined, "copy", Available, ""},
		{"overlay inconclusive", Available, Available, Inconclusive, TierConfined, "copy", Available, ""},
		{"no namespaces", Unsupported, Available, Available, TierRefused, "", Unsupported, "confine detail"},
		{"namespaces inconclusive", Inconclusive, Available, Available, TierRefused, "", Inconclusive, "confine detail"},
		{"no seccomp", Available, Unsupported, Available, TierRefused, "", Unsupported, "seccomp"},
		// Only --root-sandbox runs need a pids cgroup: a root caller's
		// other runs are an unprivileged uid's, bounded by RLIMIT_NPROC,
		// and confined.
		{"root without pids cgroup", Available, Available, Available, TierConfined, "overlay", Available, ""},
		// A root-owned tree is refused where SandboxUID cannot be used
		// (a rootless container's uid map); other trees run confined.
		{"root without idmapped tree", Available, Available, Available, TierConfined, "overlay", Available, ""},
		// Every run sets up the egress wall (deny mode too) and is
		// refused when it cannot: the doctor must not say confined.
		{"no egress wall", Available, Available, Available, TierRefused, "", Unsupported, "egress wall"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ps := []Probe{probe(ProbeConfine, c.confine), probe(ProbeSeccomp, c.sc), probe(ProbeOverlay, c.overlay)}
			if c.name == "root without pids cgroup" {
				ps = append(ps, probe(ProbePidsCgroup, Unsupported))
			}
			if c.name == "root without idmapped tree" {
				ps = append(ps, probe(ProbeIDMappedTree, Unsupported))
			}
			if c.name == "no egress wall" {
				ps = append(ps, probe(ProbeNftables, Unsupported))
			}
			r := summarize(ps)
			if r.Tier != c.wantTier || r.WritesMethod != c.wantMethod {
				t.Errorf("tier %s, method %q; want %s, %q", r.Tier, r.WritesMethod, c.wantTier, c.wantMethod)
			}
			if r.Capability.Confine != c.wantConfine {
				t.Errorf("capability %s, want %s", r.Capability.Confine, c.wantConfine)
			}
			if !strings.Contains(r.Capability.Why, c.wantWhyContains) {
				t.Errorf("capability why %q lacks %q", r.Capability.Why, c.wantWhyContains)
			}
			if r.Summary == "" {
				t.Error("empty summary")
			}
			if c.name == "root without pids cgroup" && !strings.Contains(r.Summary, "--root-sandbox runs are refused") {
				t.Errorf("summary %q does not say --root-sandbox runs are refused", r.Summary)
			}
			if c.name == "root without idmapped tree" && !strings.Contains(r.Summary, "root-owned work tree are refused without --root-sandbox: "+ProbeIDMappedTree+" detail") {
				t.Errorf("summary %q does not say root-owned work trees are refused, and why", r.Summary)
			}
			// The capability drives Decide to the same tier.
			if d := Decide(false, ModeStrict, r.Capability); d.Tier != c.wantTier {
				t.Errorf("Decide gives %s, want %s", d.Tier, c.wantTier)
			}
		})
	}
}

func sampleReport() DoctorReport {
	return summarize([]Probe{
		{Name: ProbeBwrap, Availability: Available, Required: true, Detail: "/usr/bin/bwrap", DurationMs: 0.1},
		{Name: ProbeConfine, Availability: Available, Required: true, Detail: "bubblewrap creates every namespace", DurationMs: 3},
		{Name: ProbeOverlay, Availability: Unsupported, Detail: "mount failed: \"\\x1b[31mevil\\x1b[0m\"\nsecond line\x1b]0;title\x07",
			Fix: "use Linux 5.11", DurationMs: 4.5},
		{Name: ProbeSeccomp, Availability: Available, Required: true, Detail: "installed", DurationMs: 2},
		{Name: ProbePasta, Availability: Inconclusive, Detail: "no answer", DurationMs: 15000},
		{Name: ProbeToolCaches, Availability: Unsupported, DurationMs: 0.2,
			Detail: "RUNNER_TOOL_CACHE=/opt/hostedtoolcache: covered: writes recorded by absolute path; AGENT_TOOLSDIRECTORY=/home/runner/.cache/_tool: not covered: it is or lies in one of the caller's HOME's dot-directories (~/.claude, ~/.cache/…), where tools keep their logins, hidden whole with HOME, so the hook sees what the run shows there in its place, not the tool cache, and a write there does not reach it",
			Fix:    "AGENT_TOOLSDIRECTORY: move the tool cache out of HOME's dot-directories (~/actions-runner/_work/_tool)"},
	})
}

func TestDoctorReportGolden(t *testing.T) {
	r := sampleReport()
	var text bytes.Buffer
	if err := r.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	js, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range []struct {
		file string
		got  []byte
	}{
		{"doctor.golden.txt", text.Bytes()},
		{"doctor.golden.json", append(js, '\n')},
	} {
		path := filepath.Join("testdata", g.file)
		if *update {
			if err := os.WriteFile(path, g.got, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (run with -update to create it)", err)
		}
		if d := cmp.Diff(string(want), string(g.got)); d != "" {
			t.Errorf("%s differs (-want +got):\n%s", g.file, d)
		}
	}
	if bytes.ContainsAny(text.Bytes(), "\x1b\x07") {
		t.Error("text output carries terminal control characters")
	}
	if n := bytes.Count(text.Bytes(), []byte("\n")); n != 13 {
		t.Errorf("text output has %d lines, want 13 (header, summary, one per probe, two fixes, footer)", n)
	}
	// The JSON names availabilities.
	var back struct {
		Schema string `json:"schema"`
		Probes []struct {
			Availability string `json:"availability"`
		} `json:"probes"`
		Capability struct {
			Confine string `json:"confine"`
		} `json:"capability"`
	}
	if err := json.Unmarshal(js, &back); err != nil {
		t.Fatal(err)
	}
	if back.Schema != DoctorSchema || !bytes.HasPrefix(js, []byte("{\n  \"schema\": \"vigiles.doctor/v1\",\n")) {
		t.Errorf("JSON schema = %q, want %q first: %.80s", back.Schema, DoctorSchema, js)
	}
	if back.Probes[2].Availability != "unsupported" || back.Capability.Confine != "available" {
		t.Errorf("JSON availabilities: %+v", back)
	}
}

// TestProbeNeedsNoTrueOnPath: the probes run bubblewrap itself inside the
// sandbox, so a PATH without `true` is not taken for a host that cannot
// make namespaces.
func TestProbeNeedsNoTrueOnPath(t *testing.T) {
	requireConfinement(t)
	bwrap, err := exec.LookPath("bwrap")
	if err != nil {
		t.Fatal(err)
	}
	only := t.TempDir()
	if err := os.Symlink(bwrap, filepath.Join(only, "bwrap")); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", only)
	if c := probeConfinement(context.Background()); c.Confine != Available {
		t.Errorf("probe with only bwrap on PATH: %s: %s", c.Confine, c.Why)
	}
	if p := runUserns(context.Background(), &doctorEnv{bwrap: bwrap}, nil, "as the caller"); p.Availability != Available {
		t.Errorf("doctor's user namespace probe with only bwrap on PATH: %s: %s", p.Availability, p.Detail)
	}
}

// TestBinariesProbe: doctor names the binaries a run starts inside the
// sandbox, says what a missing or unusable lean one costs, and refuses,
// as a run does, an init binary another user may rewrite.
func TestBinariesProbe(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("\x7fELF"), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	exe := write(SandboxBinary, 0o755)
	if p := binariesProbe(exe); p.Availability != Available || !strings.Contains(p.Detail, "reaper: the init's binary") {
		t.Errorf("no vigiles-reaper: %s %q", p.Availability, p.Detail)
	}
	reaperBin := write(ReaperBinary, 0o755)
	if p := binariesProbe(exe); p.Availability != Available || p.Detail != "init: "+exe+"; reaper: "+reaperBin {
		t.Errorf("both lean binaries: %s %q", p.Availability, p.Detail)
	}
	os.Chmod(reaperBin, 0o777)
	if p := binariesProbe(exe); p.Availability != Available || !strings.Contains(p.Detail, "may be rewritten by another user") {
		t.Errorf("a vigiles-reaper anyone may write: %s %q, want it not used", p.Availability, p.Detail)
	}
	if p := binariesProbe(write("vigiles", 0o755)); !strings.Contains(p.Detail, "init: "+filepath.Join(dir, "vigiles")+" itself") {
		t.Errorf("the CLI itself as the init: %q", p.Detail)
	}
	os.Chmod(exe, 0o777)
	p := binariesProbe(exe)
	if p.Availability != Unsupported || !strings.Contains(p.Fix, "chmod go-w "+exe) {
		t.Errorf("a vigiles-sandbox anyone may write: %s %q fix %q, want unsupported naming chmod go-w", p.Availability, p.Detail, p.Fix)
	}
	p.Name = ProbeBinaries
	r := summarize([]Probe{probe(ProbeConfine, Available), probe(ProbeSeccomp, Available), probe(ProbeOverlay, Available), p})
	if r.Tier != TierRefused || !strings.Contains(r.Capability.Fix, "chmod go-w") {
		t.Errorf("with the init's binary refused: tier %s, capability %+v; want refused, naming the fix", r.Tier, r.Capability)
	}
}

// The doctor's fix for a slirp4netns that cannot start names what is
// wrong with it.
func TestSlirpFix(t *testing.T) {
	for out, want := range map[string]string{
		"slirp4netns: unrecognized option '--disable-dns'": "1.1.0 or later",
		"open(\"/dev/net/tun\"): No such device":           "modprobe tun",
		"something else":                                   "check slirp4netns's message",
	} {
		if got := slirpFix([]byte(out)); !strings.Contains(got, want) {
			t.Errorf("slirpFix(%q) = %q; want it to say %q", out, got, want)
		}
	}
}

// capAdds lists the --cap-add values of a bubblewrap command line.
func capAdds(argv []string) []string {
	var caps []string
	for i, a := range argv {
		if a == "--cap-add" && i+1 < len(argv) {
			caps = append(caps, argv[i+1])
		}
	}
	return caps
}

// TestOverlayProbeHasTheRunsCapabilities: doctor's overlay probe gives
// bubblewrap the capabilities a run's sandbox gets. With CAP_SYS_ADMIN
// alone, overlayfs refuses a non-root caller's mount that a run makes
// (review: doctor said writes were recorded by copy, runs used overlay).
func TestOverlayProbeHasTheRunsCapabilities(t *testing.T) {
	run := capAdds(bwrapArgs(plan{Bwrap: "bwrap", Workdir: "/w"}))
	probe := capAdds(overlayProbeArgv("bwrap", "/tmp/x"))
	if len(run) == 0 || !slices.Equal(probe, run) {
		t.Errorf("overlay probe adds capabilities %q, a run's sandbox %q", probe, run)
	}
}

// TestOverlayProbeUnprivileged runs the overlay probe as an unprivileged
// user (the caller, or nobody when the caller is root), as a runner's
// `runtime: host` step runs vigiles. As the caller, it agrees with the
// writes method a real run uses; in CI it must find overlay available.
func TestOverlayProbeUnprivileged(t *testing.T) {
	if testing.Short() {
		t.Skip("runs bwrap for real")
	}
	requireConfinement(t)
	bwrap, err := exec.LookPath("bwrap")
	if err != nil {
		t.Fatal(err)
	}
	var cred *syscall.Credential
	who := "the caller (uid " + strconv.Itoa(os.Getuid()) + ")"
	if os.Geteuid() == 0 {
		u, err := user.Lookup("nobody")
		if err != nil {
			missing(t, fmt.Sprintf("a user nobody to probe as (%v)", err))
		}
		uid, _ := strconv.ParseUint(u.Uid, 10, 32)
		gid, _ := strconv.ParseUint(u.Gid, 10, 32)
		cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), Groups: []uint32{}}
		who = "nobody (uid " + u.Uid + ")"
	}
	// nobody must reach the probe's temporary directory.
	if tmp := os.TempDir(); cred != nil {
		if fi, err := os.Stat(tmp); err != nil || fi.Mode().Perm()&0o001 == 0 {
			missing(t, tmp+" searchable by others (nobody probes in it)")
		}
	}
	p := overlayProbe(context.Background(), &doctorEnv{bwrap: bwrap}, cred)
	t.Logf("overlay probe as %s: %s: %s", who, p.Availability, p.Detail)
	if cred == nil {
		res := run(t, Spec{Dir: makeTree(t, nil), Command: sh("echo x > f")})
		if (p.Availability == Available) != (res.WritesMethod == "overlay") {
			t.Errorf("overlay probe as %s is %s (%s), a run records writes by %q", who, p.Availability, p.Detail, res.WritesMethod)
		}
	}
	if os.Getenv("CI") == "true" && p.Availability != Available {
		t.Errorf("CI=true and overlay probe as %s is %s: %s", who, p.Availability, p.Detail)
	}
}

// missing fails the test in CI, where what it needs must be there, and
// skips it elsewhere, saying what is missing.
func missing(t *testing.T, what string) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf("CI=true and this machine lacks %s", what)
	}
	t.Skipf("this machine lacks %s", what)
}

// failingNetwork is an egress layer whose wall cannot be set up.
type failingNetwork struct{ fakeNetwork }

func (failingNetwork) Setup(context.Context, evidence.EgressPolicy) (NetSession, error) {
	return nil, errors.New("egress setup: loading the rule set: netlink receive: protocol not supported")
}

// TestNftablesProbeUsesTheEgressLayer: the nftables check sets up the
// wall with the egress layer the engine uses, not the nft binary (it said
// "nft is not in PATH … fix: install nftables" to a user whose PATH lacks
// /usr/sbin, though the engine never runs nft): its child answers from the
// layer's Setup, and its verdict is found among the lines the layer logs;
// a binary without the layer says so and runs nothing.
func TestNftablesProbeUsesTheEgressLayer(t *testing.T) {
	old := network
	t.Cleanup(func() { network = old })

	network = nil
	if v := netwallChild(); v.OK || !strings.Contains(v.Detail, "no egress layer") {
		t.Errorf("child without a layer: %+v", v)
	}
	t.Setenv("PATH", t.TempDir()) // neither nft nor anything else: not needed
	if p := probeNftables(context.Background(), &doctorEnv{bwrap: "/nonexistent/bwrap"}); p.Availability != Inconclusive ||
		!strings.Contains(p.Detail, "no egress layer") || strings.Contains(p.Detail+p.Fix, "nft is not in PATH") {
		t.Errorf("probe without a layer: %+v", p)
	}

	network = failingNetwork{}
	v := netwallChild()
	if v.OK || !strings.Contains(v.Detail, "protocol not supported") {
		t.Errorf("child of a layer that fails: %+v", v)
	}
	network = fakeNetwork{}
	if v := netwallChild(); !v.OK {
		t.Errorf("child of a layer that sets up: %+v", v)
	}

	out := []byte("egress: sock_diag: permission denied (every connection …)\n" + `{"ok":false,"detail":"egress setup: x"}` + "\n")
	if got, ok := netwallVerdict(out); !ok || got.OK || got.Detail != "egress setup: x" {
		t.Errorf("verdict among log lines: %+v, %v", got, ok)
	}
	if _, ok := netwallVerdict([]byte("flag provided but not defined: -x\n")); ok {
		t.Error("a verdict found in output that holds none")
	}
}

// TestGroupsProbe: a non-root caller's supplementary groups are said,
// with the fix, since its sandboxes keep them.
func TestGroupsProbe(t *testing.T) {
	if p := groupsProbe(1000, func() ([]int, error) { return []int{1000}, nil }); p.Availability != Available {
		t.Errorf("own group alone: %s %s", p.Availability, p.Detail)
	}
	p := groupsProbe(1000, func() ([]int, error) { return []int{1000, 0, 987654}, nil })
	if p.Availability != Unsupported || !strings.Contains(p.Detail, "root (0)") || !strings.Contains(p.Detail, "987654") || !strings.Contains(p.Fix, "as root") {
		t.Errorf("supplementary groups: %s %q fix %q", p.Availability, p.Detail, p.Fix)
	}
}

// TestDoctorRunsNothingFromPath: the doctor's probes start bubblewrap,
// which runs sh and mount inside a namespace it holds capabilities in:
// found on a PATH that names a checkout's directory, a planted sh ran
// there with the caller's whole environment (and, as root, read
// /etc/shadow). They come from the system's directories, with nothing
// of the caller's environment. (Inside bubblewrap the host's files are
// read-only: a planted program says it ran on its output, which the
// probes quote.)
func TestDoctorRunsNothingFromPath(t *testing.T) {
	requireConfinement(t)
	bin := t.TempDir()
	marker := filepath.Join(t.TempDir(), "planted-ran")
	for _, n := range []string{"sh", "mount", "cat", "true"} {
		script := "#!/bin/bash\necho \"PLANTED $MYSECRET\" >&2\necho \"$MYSECRET\" >> " + marker + " 2>/dev/null\nexit 1\n"
		if err := os.WriteFile(filepath.Join(bin, n), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", bin+":"+os.Getenv("PATH"))
	t.Setenv("MYSECRET", "hunter2")
	for _, p := range Doctor(context.Background()).Probes {
		if strings.Contains(p.Detail+p.Fix, "PLANTED") {
			t.Errorf("probe %s ran a program of PATH's planted directory: %s", p.Name, p.Detail)
		}
	}
	if b, err := os.ReadFile(marker); err == nil {
		t.Errorf("a program of PATH's planted directory ran on the host (it saw %q)", b)
	}
}

// TestDoctorGivesHostProgramsNoEnvironment: every program the doctor runs
// on the host (slirp4netns, pasta, the cat that holds a user namespace)
// gets a PATH of the system's directories and nothing else of the
// caller's environment: a secret there, or an LD_PRELOAD a checkout's
// direnv set, reached slirp4netns and the cat. Stand-ins for them, in a
// directory the test puts first, say what they were given.
func TestDoctorGivesHostProgramsNoEnvironment(t *testing.T) {
	requireConfinement(t)
	bin := tempDirIn(t, "", "vigiles-doctor-env-", 0o755)
	seen := tempDirIn(t, "", "vigiles-doctor-seen-", 0o777)
	for _, n := range []string{"slirp4netns", "pasta", "cat"} {
		script := "#!/bin/sh\nenv > " + filepath.Join(seen, n) + "\nexit 1\n"
		if err := os.WriteFile(filepath.Join(bin, n), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	hostprog.SetDirsForTest(t, append([]string{bin}, hostprog.Dirs...)...)
	t.Setenv("MYSECRET", "hunter2")
	Doctor(context.Background())
	ran := 0
	for _, n := range []string{"slirp4netns", "pasta", "cat"} {
		b, err := os.ReadFile(filepath.Join(seen, n))
		if err != nil {
			continue
		}
		ran++
		if strings.Contains(string(b), "hunter2") {
			t.Errorf("%s was given the caller's environment:\n%s", n, b)
		}
	}
	if ran == 0 {
		t.Fatal("none of the stand-ins ran: the test tells nothing")
	}
}

// A doctor killed outright (SIGKILL, the OOM killer) while its pasta check
// has pasta attached leaves no pasta running. Daemonized, pasta outlived
// it for good: a root process holding the dead sandbox's namespaces, since
// a pasta given a pid does not quit when that process exits.
func TestPastaCheckLeavesNoPastaWhenKilled(t *testing.T) {
	if os.Getenv("VIGILES_TEST_PASTA_CHECK") == "1" {
		// Held with pasta attached until the parent kills it; a check
		// that returns could not be killed at that moment.
		holdAttachedPasta = func() { select {} }
		p := probePasta(context.Background(), &doctorEnv{bwrap: os.Getenv("VIGILES_TEST_BWRAP")})
		fmt.Fprintf(os.Stderr, "the check returned without attaching pasta: %s %s\n", p.Detail, p.Fix)
		os.Exit(3)
	}
	if testing.Short() {
		t.Skip("runs bwrap and pasta for real")
	}
	requireConfinement(t)
	if _, err := hostprog.Find("pasta"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true and pasta is missing: %v", err)
		}
		t.Skipf("pasta: %v", err)
	}
	bwrap, err := hostprog.Find("bwrap")
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^"+t.Name()+"$", "-test.count=1")
	cmd.Env = append(os.Environ(), "VIGILES_TEST_PASTA_CHECK=1", "VIGILES_TEST_BWRAP="+bwrap, "TMPDIR="+tmp)
	var childOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &childOut, &childOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	// pasta's, by the TMPDIR of its pid file: what the check started.
	pastas := func() []int {
		var pids []int
		ents, _ := os.ReadDir("/proc")
		for _, e := range ents {
			pid, err := strconv.Atoi(e.Name())
			if err != nil {
				continue
			}
			b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
			if err == nil && bytes.Contains(b, []byte(tmp+"/vigiles-doctor-pasta-")) && !bytes.Contains(b, []byte("pasta-guard")) {
				pids = append(pids, pid)
			}
		}
		return pids
	}
	t.Cleanup(func() {
		for _, pid := range pastas() {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	// Killed once pasta is attached: once its pid file is written. The
	// bound only ends a check that hangs, however loaded the machine.
	bound := time.Now().Add(time.Minute)
	for attached := false; !attached; {
		select {
		case <-exited:
			t.Fatalf("the check ended before pasta was attached; is pasta usable here (vigiles doctor)?\n%s", childOut.Bytes())
		case <-time.After(time.Millisecond):
		}
		if time.Now().After(bound) {
			cmd.Process.Kill()
			<-exited
			t.Fatal("the check neither attached pasta (no pid file written) nor ended in a minute")
		}
		files, _ := filepath.Glob(filepath.Join(tmp, "vigiles-doctor-pasta-*", "pid"))
		for _, f := range files {
			if b, err := os.ReadFile(f); err == nil && bytes.HasSuffix(b, []byte("\n")) {
				attached = true
			}
		}
	}
	cmd.Process.Kill()
	<-exited
	// The guard ends pasta once the pipe's last writer is gone; how soon
	// is up to the scheduler, so look again until none is left (a bound
	// on a hang, not a measure).
	var left []int
	for deadline := time.Now().Add(time.Minute); ; {
		if left = pastas(); len(left) == 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if len(left) > 0 {
		t.Errorf("pasta %v outlived the killed doctor", left)
	}
	// The check's directory, named after the dead doctor, is the next
	// doctor's to remove.
	sweepDoctorDirs(tmp)
	if dirs, _ := filepath.Glob(filepath.Join(tmp, "vigiles-doctor-*")); len(dirs) > 0 {
		t.Errorf("the next doctor's sweep left %v", dirs)
	}
}

// A root doctor's network sandbox, which lives through the connectors'
// checks, is born in a cgroup named as a run's and removed with it. A
// doctor killed while bwrap set it up left bwrap's child waiting for good
// (bubblewrap issue #633), found by nothing; in a dead broker's cgroup the
// next root run's sweep ends it.
func TestDoctorNetSandboxIsBornInARunCgroup(t *testing.T) {
	requireRoot(t, "only a root caller's sandboxes get cgroups")
	requireConfinement(t)
	if cg, _ := newRunCgroup(true, false, false, Limits{Pids: 64, RunMemoryBytes: 256 << 20}); cg == nil {
		missing(t, "a cgroup a root caller's run can be born in")
	} else {
		cg.remove()
	}
	bwrap, err := hostprog.Find("bwrap")
	if err != nil {
		t.Fatal(err)
	}
	pid, stop, err := sandboxForNet(context.Background(), bwrap)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cgroup")
	if err != nil {
		stop()
		t.Fatal(err)
	}
	// This process's run cgroups: vigiles-nsNS-PID-START-N.
	mine := strings.TrimSuffix(cgroupName(0), "0")
	var dirs []string
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 || !strings.Contains(parts[2], "/"+mine) {
			continue
		}
		root := "/sys/fs/cgroup"
		if parts[1] != "" {
			root = filepath.Join(root, strings.TrimPrefix(parts[1], "name="))
		}
		dirs = append(dirs, filepath.Join(root, parts[2]))
	}
	stop()
	if len(dirs) == 0 {
		t.Fatalf("the doctor's sandbox is in no cgroup of this broker's (%s…):\n%s", mine, b)
	}
	for _, d := range dirs {
		if _, err := os.Stat(d); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s is left once the sandbox stopped (%v)", d, err)
		}
	}
}

// A doctor killed outright (SIGKILL, the OOM killer) during its bubblewrap
// probes leaves nothing the next doctor does not clear: the probes' own
// temporary directories, and, for a root caller, whatever of a probe's
// sandbox outlived it (the next root run ends that too). The stuck child
// of bubblewrap issue #633 (bwrap's child waiting for good on an eventfd
// only bwrap writes) cannot be made at will, so a stand-in bwrap plays
// it: it stays, as that child does, after the doctor is gone. Before, the
// probes were born in no cgroup, so no sweep found it, and their
// directories, named after no doctor, were left for good.
func TestDoctorProbesKilledLeaveNothingTheNextDoctorKeeps(t *testing.T) {
	if os.Getenv("VIGILES_TEST_KILLED_PROBES") == "1" {
		hostprog.SetDirsForTest(t, append([]string{os.Getenv("VIGILES_TEST_STANDIN")}, hostprog.Dirs...)...)
		env := &doctorEnv{bwrap: filepath.Join(os.Getenv("VIGILES_TEST_STANDIN"), "bwrap")}
		checks := []probeFunc{probeUserns, probeOverlay}
		if os.Geteuid() == 0 {
			checks = append(checks, probeUsernsNobody)
		}
		var wg sync.WaitGroup
		for _, c := range checks {
			wg.Add(1)
			go func() { defer wg.Done(); c(t.Context(), env) }()
		}
		wg.Wait() // until killed: the stand-in does not exit
		return
	}
	if testing.Short() {
		t.Skip("runs a doctor's probes and kills it")
	}
	if _, err := hostprog.Find("mount"); err != nil {
		missing(t, "mount(8), which the overlay probe needs")
	}
	// The stand-in records its uid and pid, then waits.
	bin := tempDirIn(t, "", "vigiles-test-standin-", 0o755)
	seen := tempDirIn(t, "", "vigiles-test-seen-", 0o777)
	script := "#!/bin/sh\necho > " + seen + "/$$\nexec sleep 100000\n"
	if err := os.WriteFile(filepath.Join(bin, "bwrap"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	want := 2 // probeUserns, probeOverlay
	if os.Geteuid() == 0 {
		if _, err := user.Lookup("nobody"); err != nil {
			missing(t, fmt.Sprintf("a user nobody to probe as (%v)", err))
		}
		want++
	}
	tmp := tempDirIn(t, "", "vigiles-test-tmp-", 0o755)
	cmd := exec.Command(os.Args[0], "-test.run=^"+t.Name()+"$", "-test.count=1")
	cmd.Env = append(os.Environ(), "VIGILES_TEST_KILLED_PROBES=1", "VIGILES_TEST_STANDIN="+bin, "TMPDIR="+tmp)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	// Each stand-in, by a pidfd taken while it waits (it exits only
	// when killed), so that a pid given again is not the one looked at.
	standins := map[string]int{}
	t.Cleanup(func() {
		for _, fd := range standins {
			unix.PidfdSendSignal(fd, unix.SIGKILL, nil, 0)
			unix.Close(fd)
		}
	})
	// The child never ends on its own (the stand-ins wait): were a probe
	// not to start its stand-in, only this bound would end the wait.
	bound := time.Now().Add(time.Minute)
	for len(standins) < want {
		select {
		case <-exited:
			t.Fatalf("the doctor's probes ended before %d stand-ins ran", want)
		case <-time.After(time.Millisecond):
		}
		if time.Now().After(bound) {
			cmd.Process.Kill()
			<-exited
			t.Fatalf("%d of the %d stand-ins ran in a minute", len(standins), want)
		}
		ents, _ := os.ReadDir(seen)
		for _, e := range ents {
			if _, ok := standins[e.Name()]; ok {
				continue
			}
			pid, _ := strconv.Atoi(e.Name())
			if fd, err := unix.PidfdOpen(pid, 0); err == nil {
				standins[e.Name()] = fd
			}
		}
	}
	overlayDirs, _ := filepath.Glob(filepath.Join(tmp, "vigiles-doctor-overlay-*"))
	if len(overlayDirs) != 1 {
		t.Fatalf("the overlay probe's directory: %v", overlayDirs)
	}
	cmd.Process.Kill()
	<-exited
	for name, fd := range standins {
		if exitedFd(fd, 0) {
			t.Fatalf("stand-in %s did not outlive the killed doctor: the test tells nothing", name)
		}
	}

	// The next doctor clears the probes' directories first.
	sweepDoctorDirs(tmp)
	if left, _ := filepath.Glob(filepath.Join(tmp, "vigiles-doctor-*")); len(left) > 0 {
		t.Errorf("the next doctor's sweep left %v", left)
	}

	if os.Geteuid() != 0 {
		// A non-root caller's probes have no cgroup to be found by: what
		// they leave stays until someone ends it (docs/security.md).
		return
	}
	_, err := os.Stat("/sys/fs/cgroup/cgroup.controllers")
	v2 := err == nil
	if cg, _ := newRunCgroup(true, false, false, Limits{Pids: 64, RunMemoryBytes: 256 << 20}); cg == nil {
		missing(t, "a cgroup a root caller's run can be born in")
	} else {
		cg.remove() // its making swept the killed doctor's cgroups
	}
	deadline := time.Now().Add(time.Minute) // a bound on a hang, not a timing
	for name, fd := range standins {
		var st syscall.Stat_t
		if err := syscall.Stat(filepath.Join(seen, name), &st); err == nil && st.Uid != 0 && v2 {
			// On cgroup v2 a probe run as another user has no cgroup,
			// as a run of the work tree's owner has none.
			continue
		}
		if !exitedFd(fd, time.Until(deadline)) {
			t.Errorf("stand-in %s (uid %d) of the killed doctor's probe outlived the next root sweep", name, st.Uid)
		}
	}
	// The sweep that ended them may have found their cgroups busy still;
	// one more removes those.
	if cg, _ := newRunCgroup(true, false, false, Limits{Pids: 64, RunMemoryBytes: 256 << 20}); cg != nil {
		cg.remove()
	}
}

// exitedFd waits up to wait for the process of the pidfd fd to exit.
func exitedFd(fd int, wait time.Duration) bool {
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	for deadline := time.Now().Add(wait); ; {
		n, err := unix.Poll(fds, int(max(time.Until(deadline), 0).Milliseconds()))
		if err == unix.EINTR {
			continue
		}
		return n > 0
	}
}
