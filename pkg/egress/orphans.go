package egress

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/mdlayher/netlink"
	"golang.org/x/sys/unix"
)

// A TCP connection the command closed, or left open when it exited, is
// not gone with it: its kernel keeps the socket (an orphan, in FIN_WAIT1,
// CLOSING or LAST_ACK) and goes on sending what the command wrote and the
// peer has not yet taken, which can be the whole send buffer, megabytes.
// In allow mode that goes through the wall after Finish has read the
// counters: a hook that wrote 8 MiB to an allowed host and exited was
// recorded as 2 MB while the host received all 8 (through pasta, which
// stays up until the command's namespace is gone). So Finish, once the
// command is gone and before it reads the counters, ends every such
// socket (SOCK_DESTROY: the kernel resets the connection and sends no
// more): what passed the wall until then is counted, and nothing passes
// after.
//
// Where the kernel cannot destroy sockets (no CONFIG_INET_DIAG_DESTROY),
// Finish waits up to orphanWaitMax for them to finish; what is still
// sending then makes the record incomplete.

const (
	sockDestroy = 21 // SOCK_DESTROY (linux/sock_diag.h); x/sys lacks it

	inetDiagReqLen = 56 // struct inet_diag_req_v2
	inetDiagIDOff  = 8  // its struct inet_diag_sockid
	inetDiagIDLen  = 48
	inetDiagInode  = 68 // idiag_inode in struct inet_diag_msg

	// orphanWaitMax bounds the wait for orphans where they cannot be
	// destroyed.
	orphanWaitMax = 2 * time.Second
)

// orphanStates are the TCP states of a socket that may still send what
// its process wrote: every state but those of a listener, a request
// socket, a closed one, and those that have sent all they had, their FIN
// included (FIN_WAIT2, TIME_WAIT: an ACK at most). A FIN_WAIT2 socket
// lasts as long as its peer keeps its side open (tcp_fin_timeout, 60 s,
// once orphaned): where sockets cannot be destroyed, waiting for it would
// only make the record incomplete.
const orphanStates = 1<<unix.BPF_TCP_ESTABLISHED | 1<<unix.BPF_TCP_SYN_SENT | 1<<unix.BPF_TCP_FIN_WAIT1 |
	1<<unix.BPF_TCP_CLOSE_WAIT | 1<<unix.BPF_TCP_LAST_ACK | 1<<unix.BPF_TCP_CLOSING

// orphan is a TCP socket of the namespace that no process holds.
type orphan struct {
	family byte
	state  byte
	id     [inetDiagIDLen]byte
	dst    netip.Addr
}

// endOrphans ends the TCP sockets no process holds that lead out of the
// namespace, so that nothing the command wrote passes the wall once its
// counters are read. It runs in the sandbox's network namespace with
// CAP_NET_ADMIN there, once every process of the command is gone.
func endOrphans(logf func(string, ...any)) error {
	if logf == nil {
		logf = func(string, ...any) {}
	}
	c, err := netlink.Dial(unix.NETLINK_SOCK_DIAG, nil)
	if err != nil {
		return fmt.Errorf("opening sock_diag to end the command's closed connections (what they send after the counts is not counted): %v: %w", err, ErrIncomplete)
	}
	defer c.Close()
	left, err := orphans(c)
	if err != nil {
		return err
	}
	var unsupported bool
	// why is what kept the kernel from ending them, for the error below.
	var why string
	for _, o := range left {
		if err := destroy(c, o); err != nil {
			if errors.Is(err, unix.EOPNOTSUPP) {
				unsupported = true
				why = "the kernel cannot end them: no CONFIG_INET_DIAG_DESTROY"
				break
			}
			// Gone meanwhile (it finished): nothing left to send.
			if !errors.Is(err, unix.ENOENT) {
				why = "ending one failed: " + err.Error()
				logf("egress: ending a closed connection to %s: %v", o.dst, err)
			}
		}
	}
	if why == "" {
		why = "each was ended, and still listed"
	}
	if !unsupported {
		// What could not be destroyed is looked for again below; none
		// should be left.
		if left, err = orphans(c); err != nil || len(left) == 0 {
			return err
		}
	}
	deadline := time.Now().Add(orphanWaitMax)
	for len(left) > 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
		if left, err = orphans(c); err != nil {
			return err
		}
	}
	if len(left) > 0 {
		what := fmt.Sprintf("a connection the command closed to %s was", left[0].dst)
		if len(left) > 1 {
			what = fmt.Sprintf("%d connections the command closed, to %s and others, were", len(left), left[0].dst)
		}
		return fmt.Errorf("%s still sending when the counts were read (%s): what they sent after is not counted: %w", what, why, ErrIncomplete)
	}
	return nil
}

// orphans lists the namespace's TCP sockets in orphanStates that no
// process holds and whose peer is not an address of the namespace's own
// (traffic there never leaves it). Once the command is gone the only
// process left in the namespace is this one, so a socket is held where
// its inode is one of this process's descriptors. An inode alone does not
// say so: a subflow of an MPTCP socket (IPPROTO_MPTCP, which needs no
// privilege and falls back to TCP with a peer, or a connector, that does
// not speak it) keeps the inode of the MPTCP socket it belongs to after
// the command closed that, and goes on sending what it wrote; a hook that
// wrote 8 MiB to an allowed host over one and exited was recorded as
// 127 KB while the host got all of it. A socket whose descriptor is only
// in flight in a unix socket is held by no process either.
func orphans(c *netlink.Conn) ([]orphan, error) {
	held, err := ownSockets()
	if err != nil {
		return nil, fmt.Errorf("listing the init's own sockets, to tell the command's closed connections from them (what they send after the counts is not counted): %v: %w", err, ErrIncomplete)
	}
	var out []orphan
	for _, fam := range []byte{unix.AF_INET, unix.AF_INET6} {
		req := make([]byte, inetDiagReqLen)
		req[0], req[1] = fam, unix.IPPROTO_TCP
		binary.NativeEndian.PutUint32(req[4:8], orphanStates)
		msgs, err := c.Execute(netlink.Message{
			Header: netlink.Header{Type: unix.SOCK_DIAG_BY_FAMILY, Flags: netlink.Request | netlink.Dump},
			Data:   req,
		})
		if err != nil {
			return nil, fmt.Errorf("listing the command's closed connections (what they send after the counts is not counted): %v: %w", err, ErrIncomplete)
		}
		for _, m := range msgs {
			o, ino, ok := parseDiagSocket(m.Data)
			if ok && !held[ino] && !isLocal(o.dst) { // loopback among them
				out = append(out, o)
			}
		}
	}
	return out, nil
}

// parseOrphan reads a struct inet_diag_msg; false unless it is a socket
// with no inode, which no process holds.
func parseOrphan(m []byte) (orphan, bool) {
	o, ino, ok := parseDiagSocket(m)
	return o, ok && ino == 0
}

// parseDiagSocket reads a struct inet_diag_msg: the socket and its inode
// (0 for one its owner closed).
func parseDiagSocket(m []byte) (orphan, uint32, bool) {
	if len(m) < inetDiagMsgLen {
		return orphan{}, 0, false
	}
	dst, ok := diagDst(m)
	if !ok {
		return orphan{}, 0, false
	}
	o := orphan{family: m[0], state: m[1], dst: dst}
	copy(o.id[:], m[4:4+inetDiagIDLen])
	return o, binary.NativeEndian.Uint32(m[inetDiagInode:]), true
}

// ownSockets is the set of inodes of the sockets this process holds.
func ownSockets() (map[uint32]bool, error) {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return nil, err
	}
	held := map[uint32]bool{}
	for _, e := range ents {
		l, err := os.Readlink(filepath.Join("/proc/self/fd", e.Name()))
		if err != nil {
			continue // closed meanwhile (the directory's own descriptor)
		}
		if v, ok := strings.CutPrefix(l, "socket:["); ok {
			if n, err := strconv.ParseUint(strings.TrimSuffix(v, "]"), 10, 32); err == nil {
				held[uint32(n)] = true
			}
		}
	}
	return held, nil
}

// destroy ends one socket (the kernel resets its connection).
func destroy(c *netlink.Conn, o orphan) error {
	req := make([]byte, inetDiagReqLen)
	req[0], req[1] = o.family, unix.IPPROTO_TCP
	binary.NativeEndian.PutUint32(req[4:8], 1<<o.state)
	copy(req[inetDiagIDOff:], o.id[:])
	_, err := c.Execute(netlink.Message{
		Header: netlink.Header{Type: sockDestroy, Flags: netlink.Request | netlink.Acknowledge},
		Data:   req,
	})
	var oe *netlink.OpError
	if errors.As(err, &oe) && oe.Err != nil {
		return oe.Err
	}
	return err
}
