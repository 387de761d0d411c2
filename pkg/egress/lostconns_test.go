package egress

import (
	"errors"
	"net"
	"os"
	"strings"
	"syscall"
	"testing"
)

// TestLostConnsSaysWhy: an incomplete record's error says how many
// connections were lost each way (the listener's queue, the command's
// kernel, the stream's own reading), not one sum of the three, so that a
// loss seen once (a CI run) says where to look.
func TestLostConnsSaysWhy(t *testing.T) {
	l := lostConns{dropped: 1}.add(lostConns{discarded: 2, unread: 3})
	if l.total() != 6 {
		t.Errorf("total %d, want 6", l.total())
	}
	for _, want := range []string{"1 refused while its queue was full", "2 thrown away by the command's kernel", "3 not read to the end"} {
		if !strings.Contains(l.String(), want) {
			t.Errorf("%q lacks %q", l.String(), want)
		}
	}
}

// TestLostConnsNamesTheUnwatched: a connection the runtime closed unread
// because it could not watch it is counted and named, and only then; the
// other three counts still say theirs.
func TestLostConnsNamesTheUnwatched(t *testing.T) {
	l := lostConns{dropped: 1, discarded: 2, unread: 3}
	if strings.Contains(l.String(), "epoll") {
		t.Errorf("%q names unwatched connections where there were none", l.String())
	}
	l = l.add(lostConns{unwatched: 4})
	if l.total() != 10 {
		t.Errorf("total %d, want 10", l.total())
	}
	for _, want := range []string{"1 refused", "2 thrown away", "3 not read", "4 closed unread because no epoll watch could be had for them"} {
		if !strings.Contains(l.String(), want) {
			t.Errorf("%q lacks %q", l.String(), want)
		}
	}
}

// TestTakenUnwatchedIsTheRuntimesOwn: of AcceptTCP's errors, only the
// bare errno of the poller's registration (which comes after accept4 took
// the connection) counts a connection lost; accept4's own failure (the
// connection stays queued), a closed listener and a deadline do not. The
// errors are the shapes net's accept returns, wrapped by AcceptTCP.
func TestTakenUnwatchedIsTheRuntimesOwn(t *testing.T) {
	op := func(err error) error { return &net.OpError{Op: "accept", Net: "tcp", Err: err} }
	for _, c := range []struct {
		err  error
		want bool
	}{
		{op(syscall.ENOSPC), true},
		{op(syscall.ENOMEM), true},
		{op(os.NewSyscallError("accept4", syscall.EMFILE)), false},
		{op(os.NewSyscallError("accept4", syscall.ENOMEM)), false},
		{op(net.ErrClosed), false},
		{op(os.ErrDeadlineExceeded), false},
		{errors.New("other"), false},
	} {
		if got := takenUnwatched(c.err); got != c.want {
			t.Errorf("takenUnwatched(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}
