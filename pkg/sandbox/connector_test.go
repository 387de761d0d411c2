package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vigiles/action/pkg/evidence"
)

// fakeNetwork stands in for the egress layer where what is tested is the
// engine's handling of a connector, not the wall: its connector is a
// closer that notes in log when it is closed, and its session's Finish
// (in the init, after the command) takes finishTime, as reading records
// does. Nothing it does blocks: a start that bubblewrap could not make
// (a host mount vanished) is tried again, and attaches again.
type fakeNetwork struct {
	log *connectorLog // nil: nothing is noted
	// late makes the connector one that must wait for bubblewrap's
	// set-up (as pasta, which brings lo up); Attach then notes whether
	// bubblewrap's set-up was over (its pid 1 had a child).
	late bool
}

// connectorLog is what a fakeNetwork's connectors saw, one entry an
// Attach (sawInit) and one a first Close (closed).
type connectorLog struct {
	mu      sync.Mutex
	closed  []time.Time
	sawInit []bool
}

// lastClose is when the last connector attached was closed (zero: never).
func (l *connectorLog) lastClose() time.Time {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.closed) == 0 {
		return time.Time{}
	}
	return l.closed[len(l.closed)-1]
}

// finishTime is long beside what a loaded machine adds between the
// command's end and the connector's close: the test below tells the two
// orders apart by it (closed at least finishTime/2 before Run returned).
const finishTime = 2 * time.Second

func (fakeNetwork) Setup(_ context.Context, p evidence.EgressPolicy) (NetSession, error) {
	if slices.Contains(p.Allow, unreadHost) {
		return unreadSession{}, nil
	}
	return fakeSession{}, nil
}

func (fakeNetwork) Sweep() {}

func (f fakeNetwork) Connector(evidence.EgressPolicy) (string, bool, error) {
	return "fake", !f.late, nil
}

func (f fakeNetwork) Attach(_ context.Context, _ evidence.EgressPolicy, pid int, _, _ *os.File, _ func(*exec.Cmd) (func(), error)) (io.Closer, error) {
	if f.log == nil {
		return closerFunc(func() error { return nil }), nil
	}
	kids, _ := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", pid, pid))
	f.log.mu.Lock()
	f.log.sawInit = append(f.log.sawInit, len(strings.TrimSpace(string(kids))) > 0)
	f.log.mu.Unlock()
	var once sync.Once
	return closerFunc(func() error {
		once.Do(func() {
			f.log.mu.Lock()
			f.log.closed = append(f.log.closed, time.Now())
			f.log.mu.Unlock()
		})
		return nil
	}), nil
}

type closerFunc func() error

func (c closerFunc) Close() error { return c() }

type fakeSession struct{}

func (fakeSession) Env() []string            { return nil }
func (fakeSession) ResolvConf() []byte       { return []byte("nameserver 127.0.0.1\n") }
func (fakeSession) Connected() error         { return nil }
func (fakeSession) HostAddrs([]netip.Prefix) {}
func (fakeSession) Finish() ([]evidence.Egress, *evidence.Dropped, error) {
	time.Sleep(finishTime)
	return []evidence.Egress{}, nil, nil
}

// unreadHost, allowlisted, gives a run a fakeNetwork session whose record
// cannot be read whole: its Finish returns the entries it has with
// unreadErr, as the egress layer's does when it calls the record
// incomplete (TestEgressRecordErrorFailsTheRun).
const (
	unreadHost = "unread-record.fake.test"
	unreadErr  = "the kernel dropped 3 batches of packet logs: egress record incomplete"
)

type unreadSession struct{ fakeSession }

func (unreadSession) Finish() ([]evidence.Egress, *evidence.Dropped, error) {
	return []evidence.Egress{{Host: unreadHost, Via: evidence.ViaDNS, Proto: "dns", Attempts: 1}}, &evidence.Dropped{}, errors.New(unreadErr)
}

// TestConnectorStopsWhenTheCommandIsDone: in allow mode the connector is
// stopped once the command (and all it left running) has ended, not
// before, and without waiting for the init to read its records: its
// teardown overlaps that work instead of following it.
func TestConnectorStopsWhenTheCommandIsDone(t *testing.T) {
	requireConfinement(t)
	f := fakeNetwork{log: &connectorLog{}}
	SetNetwork(f)
	defer SetNetwork(nil)
	dir := makeTree(t, nil)
	res, err := Run(context.Background(), Spec{Dir: dir, Mode: ModeStrict, Egress: evidence.EgressPolicy{Mode: evidence.EgressAllow},
		Command: sh("sleep 0.3; date +%s%N")})
	returned := time.Now()
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("run: %v (%+v)", err, res)
	}
	closed := f.log.lastClose()
	if closed.IsZero() {
		t.Fatal("the connector was never closed")
	}
	ns, err := strconv.ParseInt(strings.TrimSpace(res.Stdout), 10, 64)
	if err != nil {
		t.Fatalf("stdout %q", res.Stdout)
	}
	if ended := time.Unix(0, ns); closed.Before(ended) {
		t.Errorf("the connector was closed %v before the command ended", ended.Sub(closed))
	}
	if returned.Sub(closed) < finishTime/2 {
		t.Errorf("the connector was closed %v before the run returned: after the init's records (%v), not once the command was done",
			returned.Sub(closed), finishTime)
	}
}

// TestLateConnectorWaitsForBubblewrap: a connector that would race
// bubblewrap's own set-up of the namespace (pasta brings lo up) is
// attached only once that set-up is over and the init runs.
func TestLateConnectorWaitsForBubblewrap(t *testing.T) {
	requireConfinement(t)
	f := fakeNetwork{log: &connectorLog{}, late: true}
	SetNetwork(f)
	defer SetNetwork(nil)
	for i := 0; i < 3; i++ {
		res, err := Run(context.Background(), Spec{Dir: makeTree(t, nil), Mode: ModeStrict,
			Egress: evidence.EgressPolicy{Mode: evidence.EgressAllow}, Command: sh("true")})
		if err != nil || res.ExitCode != 0 {
			t.Fatalf("run: %v (%+v)", err, res)
		}
	}
	f.log.mu.Lock()
	defer f.log.mu.Unlock()
	if len(f.log.sawInit) < 3 || len(f.log.closed) != len(f.log.sawInit) {
		t.Fatalf("%d attached, %d closed: want at least 3, each closed", len(f.log.sawInit), len(f.log.closed))
	}
	for i, ok := range f.log.sawInit {
		if !ok {
			t.Errorf("attach %d: the connector was attached while bubblewrap still set the sandbox up", i+1)
		}
	}
}
