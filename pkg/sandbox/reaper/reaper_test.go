package reaper

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/vigiles/action/pkg/sandbox/internal/exact"
)

// readConfig reads both documents as the reaper does, the command after
// the config.
func readConfig(r io.Reader) (Config, CommandDoc, error) {
	cr := newConfigReader(r)
	cfg, err := cr.config()
	if err != nil {
		return cfg, CommandDoc{}, err
	}
	cmd, err := cr.command()
	return cfg, cmd, err
}

// TestReadConfig: the config and then the command (with its environment)
// are read whole, to the pipe's end, a field this build does not know is
// refused (a layer the init asks for is never ignored), a config of
// another build is named as such whatever its fields, and the command
// comes only in its own document, the one a reaper from before the
// protocol number never reads.
func TestReadConfig(t *testing.T) {
	this := func(doc string) string { return strings.ReplaceAll(doc, "PROTO", strconv.Itoa(Protocol)) }
	ok := this(`{"protocol": PROTO, "command": null, "readOnly": ["/"], "writable": ["/tmp"], "runDir": "/run/vigiles", "resolvConfFile": "/run/vigiles/resolv.conf"}` + "\n" + `{"command": ["true", "x"], "env": ["A=1"]}` + "\n")
	r := strings.NewReader(ok)
	cfg, cmd, err := readConfig(r)
	if err != nil || cfg.RunDir != "/run/vigiles" || len(cfg.ReadOnly) != 1 || cfg.ResolvConfFile != "/run/vigiles/resolv.conf" ||
		strings.Join(cmd.Command, " ") != "true x" || strings.Join(cmd.Env, " ") != "A=1" || r.Len() != 0 {
		t.Errorf("readConfig(%s) = %+v, %+v, %v; %d bytes left unread", ok, cfg, cmd, err, r.Len())
	}
	for doc, want := range map[string]string{
		`{"protocol": PROTO, "maskNewThing": ["/x"]} {"command": ["true"]}`: `unknown field "maskNewThing"`,
		`{"protocol": 99, "maskNewThing": ["/x"]}`:                          "come from different builds",
		`{"command": ["true"]}`:                                             "(protocol 0) come from different builds",
		`{"protocol": PROTO,`:                                               "reading config",
		`{"protocol": PROTO, "command": ["true"]} {"command": ["true"]}`:    "the command comes in a document of its own",
		`{"protocol": PROTO}`:                                               "reading the command",
		`{"protocol": PROTO, "env": []} {"command": ["true"]}`:              `unknown field "env"`,
		`{"protocol": PROTO} {"command": ["true"], "cwd": "/"}`:             `unknown field "cwd"`,
		`{"protocol": PROTO} {"command": ["true"]} {}`:                      "more than the config and the command",
		`{"protocol": PROTO} {"command": ["true"]} ]`:                       "more than the config and the command",
	} {
		if _, _, err := readConfig(strings.NewReader(this(doc))); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("readConfig(%s): error %v, want one saying %q", doc, err, want)
		}
	}
}

// TestLimitedReader: the config's bound lets exactly its size through and
// refuses one byte more, rather than cutting it short.
func TestLimitedReader(t *testing.T) {
	for _, c := range []struct {
		in   string
		n    int64
		fail bool
	}{{"abcd", 4, false}, {"abcd", 5, false}, {"abcd", 3, true}, {"", 0, false}, {"a", 0, true}} {
		b, err := io.ReadAll(&limitedReader{r: strings.NewReader(c.in), n: c.n})
		if c.fail != (err != nil) || !c.fail && string(b) != c.in {
			t.Errorf("reading %q under %d: %q, %v", c.in, c.n, b, err)
		}
	}
}

// A mount whose path vanished (ENOENT) is told apart from any other
// failure to remount it: the broker starts such a run again.
func TestRemountError(t *testing.T) {
	if err := remountError("/github", unix.ENOENT); !strings.HasPrefix(err.Error(), VanishedMount) || !errors.Is(err, unix.ENOENT) {
		t.Errorf("ENOENT: %v; want it to start with %q", err, VanishedMount)
	}
	if err := remountError("/github", unix.EPERM); strings.HasPrefix(err.Error(), VanishedMount) {
		t.Errorf("EPERM: %v; want a plain refusal", err)
	}
}

// TestShellReadsNoStartupVariable: the shell that sets the command's
// limits starts without the variables the loader and the shell read at
// start-up, which would run code of the command's before its ulimit (an
// LD_PRELOAD library that execs the command without it): the loader is
// asked to preload a library that is not there, and says so once, for the
// command, not for the shell before it. The command still gets each
// variable, a value with quotes and $(…) as it was and the tenth as the
// tenth (${10}, not $1 and a 0), after the limits hold; and one export
// cannot set is refused.
func TestShellReadsNoStartupVariable(t *testing.T) {
	const lib = "/nonexistent/vigiles-preload-test.so"
	env := []string{"PATH=/usr/bin:/bin", "LD_PRELOAD=" + lib, "KEEP=1", `LD_QUOTED=a "b" 'c' $(id)`}
	for i := 1; i <= 10; i++ {
		env = append(env, "LD_V"+strconv.Itoa(i)+"=v"+strconv.Itoa(i))
	}
	argv, shEnv, err := shellCommand(Limits{Pids: 300, MemoryBytes: 1 << 30}, true, "/usr/bin/env", CommandDoc{Command: []string{"env", "-u", "NOT_SET"}, Env: env})
	if err != nil {
		t.Fatal(err)
	}
	for _, kv := range shEnv {
		if strings.HasPrefix(kv, "LD_") {
			t.Errorf("the shell's environment holds %s", kv)
		}
	}
	c := exec.Command(argv[0], argv[1:]...)
	c.Env = shEnv
	var out, errOut bytes.Buffer
	c.Stdout, c.Stderr = &out, &errOut
	if err := c.Run(); err != nil {
		t.Fatalf("%q: %v; stderr %s", argv, err, errOut.String())
	}
	if n := strings.Count(errOut.String(), lib); n != 1 {
		t.Errorf("the loader named %s %d times, want once (the command's, not the shell's); stderr:\n%s", lib, n, errOut.String())
	}
	// The shell adds PWD, as it did before it exported anything.
	got := slices.DeleteFunc(strings.Split(strings.TrimSpace(out.String()), "\n"), func(kv string) bool { return strings.HasPrefix(kv, "PWD=") })
	for _, kv := range env {
		if !slices.Contains(got, kv) {
			t.Errorf("the command's environment lacks %q; it has %q", kv, got)
		}
	}
	if len(got) != len(env) {
		t.Errorf("the command's environment is %q, want %q", got, env)
	}
	// bash as /bin/sh: SHELLOPTS with xtrace would trace the shim (PS4's
	// command substitutions run code), and is read-only once it runs, so
	// its export fails; the command still runs, without it.
	bashArgv, bashEnv, err := shellCommand(Limits{Pids: 300}, true, "/usr/bin/env", CommandDoc{Command: []string{"env"}, Env: []string{"PATH=/usr/bin:/bin", "SHELLOPTS=xtrace", "PS4=TRACED ", "KEEP=1"}})
	if err != nil {
		t.Fatal(err)
	}
	c = exec.Command("bash", append([]string{"--posix"}, bashArgv[1:]...)...)
	c.Env = bashEnv
	out.Reset()
	errOut.Reset()
	c.Stdout, c.Stderr = &out, &errOut
	if err := c.Run(); err != nil || !strings.Contains(out.String(), "KEEP=1") || !strings.Contains(out.String(), "PS4=TRACED ") || strings.Contains(errOut.String(), "TRACED") {
		t.Errorf("bash --posix %q: %v; stdout:\n%s\nstderr:\n%s", bashArgv[1:], err, out.String(), errOut.String())
	}
	if _, _, err := shellCommand(Limits{Pids: 300}, true, "/bin/true", CommandDoc{Command: []string{"true"}, Env: []string{"BASH_FUNC_ulimit%%=() { :; }"}}); err == nil || !strings.Contains(err.Error(), "BASH_FUNC_ulimit%%") {
		t.Errorf("an exported bash function: %v, want a refusal naming it", err)
	}
}

// TestListKeepsTheKernelsBytes: a process whose first argument is not
// UTF-8 (and one whose first argument holds U+FFFD) is listed with its command line as
// the kernel holds it, the NULs between its arguments kept; the status
// that carries the list to the init, as JSON, reads back to the same
// bytes, so that a\xff, a\xfe and a\uFFFD stay three. A command line cut
// at maxCmdline is cut before a character it would split, never before
// bytes that are no character at all. Only the NUL that ends the last
// argument goes: each empty argument's stays, and a cut command line
// keeps them all.
func TestListKeepsTheKernelsBytes(t *testing.T) {
	var pids []int
	odd := []string{"a\xff", "a\xfe", "a\uFFFD"}
	for _, a := range odd {
		c := exec.Command("sleep", "1000")
		c.Args[0] = a
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Process.Kill(); c.Wait() })
		// Listed once it runs sleep, not the test's binary it forked from.
		for {
			b, err := os.ReadFile("/proc/" + strconv.Itoa(c.Process.Pid) + "/comm")
			if err != nil {
				t.Fatal(err)
			}
			if string(b) == "sleep\n" {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		pids = append(pids, c.Process.Pid)
	}
	st := Status{Protocol: Protocol, Lingered: List(pids, "/proc")}
	b, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	var back Status
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields() // as the init reads it
	if err := dec.Decode(&back); err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	for _, l := range [][]Process{st.Lingered, back.Lingered} {
		var got []string
		for _, p := range l {
			got = append(got, string(p.Cmdline))
		}
		want := []string{"a\xff\x001000", "a\xfe\x001000", "a\uFFFD\x001000"}
		if !slices.Equal(got, want) {
			t.Errorf("command lines %q, want %q\n%s", got, want, b)
		}
	}

	proc := t.TempDir()
	for pid, cl := range map[int]string{
		1: strings.Repeat("x", maxCmdline-1) + "…",         // … split by the cut
		2: strings.Repeat("x", maxCmdline-1) + "\xff!",     // no character: kept
		3: "short\x00\x00\x00",                             // two empty arguments
		4: "sh\x00-c\x00x\x00",                             // none
		5: strings.Repeat("x", maxCmdline-1) + "\x00\x00y", // cut after a NUL
		6: "title set over the last NUL",
	} {
		d := filepath.Join(proc, strconv.Itoa(pid))
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "stat"), []byte(strconv.Itoa(pid)+" (x) S 1"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "cmdline"), []byte(cl), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want := []Process{
		{Pid: 1, Cmdline: exact.String(strings.Repeat("x", maxCmdline-1)), Cut: true},
		{Pid: 2, Cmdline: exact.String(strings.Repeat("x", maxCmdline-1) + "\xff"), Cut: true},
		{Pid: 3, Cmdline: "short\x00\x00"},
		{Pid: 4, Cmdline: "sh\x00-c\x00x"},
		{Pid: 5, Cmdline: exact.String(strings.Repeat("x", maxCmdline-1) + "\x00"), Cut: true},
		{Pid: 6, Cmdline: "title set over the last NUL"},
	}
	if got := List([]int{1, 2, 3, 4, 5, 6}, proc); !slices.Equal(got, want) {
		t.Errorf("List = %+v, want %+v", got, want)
	}
}
