package runnertest

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/vigiles/action/pkg/evidence"
	"github.com/vigiles/action/pkg/sandbox"
)

// Direct runs each spec as a plain child process in spec.Dir with
// spec.Env added, honouring the timeout. Like a tier-B run it records
// neither writes nor egress (both nil) unless Record is set, in which case
// it reports them as recorded and empty ([]). Unlike a direct run, its
// HOME is a directory made for the run and removed after it: a test never
// writes to the caller's HOME (where a plugin hook's CLAUDE_PLUGIN_DATA
// is made).
type Direct struct {
	Record bool
}

// Run implements runner.Executor.
func (d Direct) Run(ctx context.Context, spec sandbox.Spec) (*sandbox.Result, error) {
	res := &sandbox.Result{Schema: sandbox.ResultSchema, Tier: sandbox.TierDirect}
	timeout := spec.Timeout
	if timeout <= 0 {
		timeout = sandbox.DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, spec.Command[0], spec.Command[1:]...)
	cmd.Dir = spec.Dir
	home, err := os.MkdirTemp("", "runnertest-home-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(home)
	cmd.Env = append(append(os.Environ(), "HOME="+home), spec.Env...)
	cmd.Stdin = spec.Stdin
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	err = cmd.Run()
	res.DurationMs = float64(time.Since(start).Microseconds()) / 1000
	res.Stdout, res.Stderr = out.String(), errb.String()
	var ee *exec.ExitError
	switch {
	case ctx.Err() == context.DeadlineExceeded:
		res.TimedOut = true
		res.ExitCode = 137
		res.Signal = "SIGKILL"
	case errors.As(err, &ee):
		res.ExitCode = ee.ExitCode()
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			res.ExitCode = 128 + int(ws.Signal())
			res.Signal = ws.Signal().String()
		}
	case err != nil:
		res.ExitCode = 127
		res.Error = err.Error()
	}
	if d.Record {
		res.Tier = sandbox.TierConfined
		res.Writes = []evidence.Write{}
		res.Egress = []evidence.Egress{}
		res = withEnvFile(spec, res)
	}
	return res, nil
}

// withEnvFile gives a confined result with a write record the env file its
// spec asked for, as the real sandbox does, empty unless the result has
// one already. It returns a copy: a canned result may be shared by runs
// that go on at once.
func withEnvFile(spec sandbox.Spec, res *sandbox.Result) *sandbox.Result {
	if spec.EnvFile == "" || res == nil || res.Tier != sandbox.TierConfined || res.Writes == nil || res.EnvFile != nil {
		return res
	}
	empty := ""
	c := *res
	c.EnvFile = &evidence.EnvFile{Path: "~/" + spec.EnvFile, Kind: "none", Content: &empty}
	return &c
}

// Canned returns results chosen by a function of the spec and records
// every spec it was given.
type Canned struct {
	mu    sync.Mutex
	Specs []sandbox.Spec
	Stdin [][]byte
	F     func(spec sandbox.Spec, stdin []byte) (*sandbox.Result, error)
}

// Run implements runner.Executor.
func (c *Canned) Run(ctx context.Context, spec sandbox.Spec) (*sandbox.Result, error) {
	var in []byte
	if spec.Stdin != nil {
		var b bytes.Buffer
		b.ReadFrom(spec.Stdin)
		in = b.Bytes()
	}
	c.mu.Lock()
	c.Specs = append(c.Specs, spec)
	c.Stdin = append(c.Stdin, in)
	c.mu.Unlock()
	res, err := c.F(spec, in)
	return withEnvFile(spec, res), err
}

// HangBound is how long Progress.Await waits at most: it bounds a hang
// when the line waited for never comes, and is no measure of how fast the
// progress should be.
const HangBound = 60 * time.Second

// Progress is a progress writer a fake executor can wait on, safe for the
// heartbeat and the runs to write at once. A run that waits in Await
// until a heartbeat has named it ends after one did, however slow the
// machine, where one that slept a fixed time may end before the first
// heartbeat fired.
type Progress struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	written chan struct{} // closed at the next write
}

// Write implements io.Writer.
func (p *Progress) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.buf.Write(b)
	if p.written != nil {
		close(p.written)
		p.written = nil
	}
	return len(b), nil
}

// String is all written so far.
func (p *Progress) String() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.buf.String()
}

// Lines is how many whole lines were written so far: the from of an
// Await for a line written after now.
func (p *Progress) Lines() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return bytes.Count(p.buf.Bytes(), []byte("\n"))
}

// Await waits until a whole line past the first from that ok accepts is
// written, and says whether one was: false when ctx is done or HangBound
// passed first.
func (p *Progress) Await(ctx context.Context, from int, ok func(line string) bool) bool {
	bound := time.NewTimer(HangBound)
	defer bound.Stop()
	for {
		p.mu.Lock()
		lines := strings.SplitAfter(p.buf.String(), "\n")
		for _, l := range lines[min(from, len(lines)-1) : len(lines)-1] { // the last is not whole
			if ok(strings.TrimSuffix(l, "\n")) {
				p.mu.Unlock()
				return true
			}
		}
		if p.written == nil {
			p.written = make(chan struct{})
		}
		written := p.written
		p.mu.Unlock()
		select {
		case <-written:
		case <-ctx.Done():
			return false
		case <-bound.C:
			return false
		}
	}
}
