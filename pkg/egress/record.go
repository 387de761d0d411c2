package egress

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/vigiles/action/pkg/evidence"
)

// recorder collects attempts from the DNS stub, the proxy and NFLOG and
// deduplicates them into evidence.Egress entries.
type recorder struct {
	mu      sync.Mutex
	seq     uint64
	entries map[string]*recEntry
	// names maps an address to the allowlisted (or refused) names the
	// DNS stub saw resolve to it, in the order seen, with the allow rules
	// that admitted each, so connects can be named (connectLocked).
	names map[netip.Addr][]addrName
	// named counts the names names holds, and namesFull says that a name
	// went unkept because it held maxNames (see nameAddr).
	named     int
	namesFull bool
	// accepted maps each destination (address . protocol . port) the wall
	// let through to the entry its first logged packet went to, so that
	// the flow's counts land there (addFlows): the name an address has by
	// Finish may be one the connection never used (a lookup that came
	// after it).
	accepted map[flowDest]*recEntry
	// sync (nil: none) returns once every packet the wall logged before
	// the call has been added (nflog.sync).
	sync func()
}

// flowDest is a destination as the wall counts its traffic.
type flowDest struct {
	addr  netip.Addr
	proto string
	port  uint16
}

type recEntry struct {
	first time.Time
	seq   uint64
	e     evidence.Egress
}

// maxEntries caps distinct destinations kept per run (a hostile command
// could otherwise grow the record without bound); pkg/runner reads a
// record that reached it as not whole (evidence.Egress.Lumped).
const maxEntries = evidence.MaxEgressEntries

func newRecorder() *recorder {
	return &recorder{entries: map[string]*recEntry{}, names: map[netip.Addr][]addrName{}, accepted: map[flowDest]*recEntry{}}
}

func entryKey(e evidence.Egress) string {
	return string(e.Via) + "\x00" + e.Host + "\x00" + e.IP + "\x00" + strconv.Itoa(e.Port) + "\x00" +
		e.Proto + "\x00" + strconv.FormatBool(e.Allowed) + "\x00" + e.Detail
}

// now is the time to stamp an attempt the DNS stub or the proxy has just
// read: taken once every packet the wall logged before has been added, so
// that those come first in the record. The log is read apart from the stub
// and the proxy, and behind them (the review found a question asked after
// 300 refused datagrams listed among them, 60th).
func (r *recorder) now() time.Time {
	if r.sync != nil {
		r.sync()
	}
	return time.Now()
}

// add records one attempt (e.Attempts is ignored; each call is one).
func (r *recorder) add(at time.Time, e evidence.Egress) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.addLocked(at, e, 1)
}

func (r *recorder) addLocked(at time.Time, e evidence.Egress, attempts int) *recEntry {
	k := entryKey(e)
	if _, ok := r.entries[k]; !ok && len(r.entries) >= maxEntries {
		if isNote(e) {
			// What came of questions already counted (their own
			// entries, or the lump's attempts): no attempt to lump. It
			// counted the questions in the lump twice.
			return nil
		}
		// A run that tries this many destinations is recorded in full up
		// to the cap; the rest are counted in one entry per kind, marked
		// as pkg/evidence defines it so that no reader takes the entry
		// for a destination, nor the record for a whole list.
		e = evidence.Egress{Via: e.Via, Proto: e.Proto, Allowed: e.Allowed, Detail: evidence.OverflowDetail}
		k = entryKey(e)
	}
	if x, ok := r.entries[k]; ok {
		x.e.Attempts += attempts
		if at.Before(x.first) {
			x.first = at
		}
		return x
	}
	r.seq++
	e.Attempts = attempts
	x := &recEntry{first: at, seq: r.seq, e: e}
	r.entries[k] = x
	return x
}

// isNote says whether e is a DNS entry that says what came of questions
// another entry counts (an answer refused, an upstream that failed): no
// attempt of its own (docs/egress.md). A malformed query, which has no
// host, is an attempt.
func isNote(e evidence.Egress) bool {
	return e.Via == evidence.ViaDNS && e.Detail != "" && e.Host != ""
}

// maxNames bounds the addresses the recorder names: answers the command
// asks for (a wildcard allow over a zone it controls) could otherwise grow
// the map without bound. At a few dozen bytes an address it is a few MiB.
const maxNames = 1 << 16

// unnamedDetail is the detail of an allowed connect entry with no name
// once names is full: its address may have been one an allowed name
// resolved to, past the ones named.
var unnamedDetail = fmt.Sprintf("no name: its address may be one of those an allowed name resolved to past the first %d, which vigiles does not name", maxNames)

// addrName is a name an address was an answer for, and the allow rules
// that admitted it there (none for a refused answer).
type addrName struct {
	host  string
	rules []allowRule
}

// admits says whether n's rules let proto to port through the wall: a
// rule of any port lets everything through to the address, one with a
// port TCP and UDP to that port (wallWriter.admit).
func (n addrName) admits(proto string, port uint16) bool {
	for _, r := range n.rules {
		if r.port == 0 || r.port == port && (proto == "tcp" || proto == "udp") {
			return true
		}
	}
	return false
}

// maxNamesPerAddr bounds the names kept for one address: a wildcard
// allow over a zone the command controls resolves any number of names to
// one address, and each new one was looked for among all kept before it
// (quadratic in the DNS stub's path). Past it, a connect there is named by
// one of the first (connectLocked), as by the first before names were
// kept by rule.
const maxNamesPerAddr = 16

// nameAddr remembers that host resolved to a, admitted by rules.
func (r *recorder) nameAddr(a netip.Addr, host string, rules []allowRule) {
	r.mu.Lock()
	defer r.mu.Unlock()
	ns := r.names[a]
	if len(ns) >= maxNamesPerAddr {
		return
	}
	for _, n := range ns {
		if n.host == host {
			return
		}
	}
	if r.named >= maxNames {
		r.namesFull = true
		return
	}
	r.named++
	r.names[a] = append(r.names[a], addrName{host, rules})
}

// connectLocked is connectEntry, named as the recorder can name it: an
// allowed connect by the first name whose rule let it through (two names
// on one address, one allowed on 443 alone: a connect to port 80 is the
// other's), else by the first name seen.
func (r *recorder) connectLocked(a netip.Addr, proto string, port uint16, allowed bool) evidence.Egress {
	var host string
	if ns := r.names[a]; len(ns) > 0 {
		host = ns[0].host
		if allowed {
			for _, n := range ns {
				if n.admits(proto, port) {
					host = n.host
					break
				}
			}
		}
	}
	e := connectEntry(host, a, proto, port, allowed)
	if e.Host == "" && allowed && r.namesFull {
		e.Detail = unnamedDetail
	}
	return e
}

// flowCount is one accounted flow read back from the rule set.
type flowCount struct {
	addr    netip.Addr
	proto   string
	port    uint16
	packets uint64
	bytes   uint64
}

// addPacket turns a logged packet into a connect entry.
func (r *recorder) addPacket(ev packetEvent) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if ev.local && ev.dst.Unmap().IsLoopback() {
		r.addLocked(ev.at, loopbackEntry(ev.dst, ev.proto, ev.port), 1)
		for _, q := range ev.questions {
			// Only a packet from an address the namespace does not
			// hold (vigiles-lo-from) holds them here: the stub never
			// saw it.
			r.addLocked(ev.at, directQuestion(q, ev.dst, ev.port, false, ev.unread), 1)
		}
		return
	}
	if ev.local {
		// Another address of the sandbox's own (deny mode's route
		// address, slirp4netns's tap address), where nothing answered:
		// under Claude Code another machine's, which the run did not
		// reach: a connect that did not get through, as pasta's
		// copy of the host's address records it.
		ev.dropped = true
	}
	if ev.groupsOnly {
		// An MLD report the wall let through (allow mode): the kernel
		// sends them for its own groups too, so only the groups the
		// command joined are recorded, each an attempt.
		for _, m := range ev.groups {
			r.addLocked(ev.at, groupEntry(m, ev.proto, ev.dst, true), 1)
		}
		return
	}
	x := r.addLocked(ev.at, r.connectLocked(ev.dst, ev.proto, ev.port, !ev.dropped), 1)
	if d := (flowDest{ev.dst, ev.proto, ev.port}); !ev.dropped && r.accepted[d] == nil {
		r.accepted[d] = x
	}
	for _, q := range ev.questions {
		r.addLocked(ev.at, directQuestion(q, ev.dst, ev.port, !ev.dropped, ev.unread), 1)
	}
	for _, m := range ev.groups {
		// The report's own entry (or the lump) counts the attempt:
		// past the cap, a group's entry is left out, not lumped.
		e := groupEntry(m, ev.proto, ev.dst, !ev.dropped)
		if _, ok := r.entries[entryKey(e)]; ok || len(r.entries) < maxEntries {
			r.addLocked(ev.at, e, 1)
		}
	}
}

// groupDetail begins the detail of a multicast group's entry.
const groupDetail = "multicast group the command joined"

// groupEntry is a multicast group the command joined, named in a
// membership report the kernel sent to (report) on its behalf: an entry
// of the group's address (or of a source the report names for it). out
// says the report went out (allow mode lets MLD through to the
// connector's link, and an --allow-ip range may admit an IGMP report's
// address). Never allowed: no allow names a group, and what the report
// reaches is the link, not the group.
func groupEntry(m member, proto string, report netip.Addr, out bool) evidence.Egress {
	kind := "IGMP"
	if m.group.Is6() {
		kind = "MLD"
	}
	e := evidence.Egress{IP: m.group.String(), Proto: proto, Via: evidence.ViaConnect,
		Detail: groupDetail + ", named in an " + kind + " membership report to " + report.String()}
	if m.source.IsValid() {
		// A source of a source-specific join: the address the
		// command asked the group's traffic from.
		e.IP = m.source.String()
		e.Detail = groupDetail + " (" + m.group.String() + ") asking for its traffic from this source, named in an " + kind + " membership report to " + report.String()
	}
	if out {
		e.Detail += " (the report went out)"
	}
	return e
}

// directQuestion is a name the command asked of a resolver other than the
// sandbox's stub, read from the datagram the wall logged: a DNS entry
// beside the datagram's connect entry (which counts the attempt), whose
// detail names the resolver and its port, and the protocol that asked
// where the port is multicast DNS's (5353) or LLMNR's (5355): their
// questions are DNS's, sent to a multicast group or to one address.
// Allowed says the datagram went out (an address the allowlist holds),
// not that the name is on the list: the stub never saw the question, and
// the answer, if any, was not checked. unread is how many more questions
// the datagram counts that its log did not hold whole: each of its names'
// details says so, as those stay unnamed.
func directQuestion(name string, resolver netip.Addr, port uint16, allowed bool, unread int) evidence.Egress {
	at := resolver.String() + " port " + strconv.Itoa(int(port))
	var d string
	switch port {
	case mdnsPort:
		d = "asked by multicast DNS (mDNS) of " + at + ", not of the sandbox's DNS stub"
	case llmnrPort:
		d = "asked by Link-Local Multicast Name Resolution (LLMNR) of " + at + ", not of the sandbox's DNS stub"
	default:
		d = "asked of " + at + " directly, not of the sandbox's DNS stub"
	}
	if allowed {
		d += ": the question went out, and its answer was not checked against the allowlist"
	}
	if unread > 0 {
		d += fmt.Sprintf("; its datagram counts %d more question(s), which the wall's log did not hold whole and vigiles does not name", unread)
	}
	return evidence.Egress{Host: name, Proto: "dns", Via: evidence.ViaDNS, Allowed: allowed, Detail: d}
}

// addFlows adds packet and byte counts to the allowed connect entries:
// to the entry the destination's first accepted packet went to, named as
// it was then. A flow without a logged start still gets an entry (with no
// attempts counted), named by what the DNS stub saw, so nothing that went
// through is left out.
func (r *recorder) addFlows(flows []flowCount) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, f := range flows {
		x := r.accepted[flowDest{f.addr, f.proto, f.port}]
		if x == nil {
			e := r.connectLocked(f.addr, f.proto, f.port, true)
			if x = r.entries[entryKey(e)]; x == nil {
				x = r.addLocked(time.Now(), e, 0)
			}
		}
		x.e.Packets += f.packets
		x.e.Bytes += f.bytes
	}
}

func connectEntry(host string, a netip.Addr, proto string, port uint16, allowed bool) evidence.Egress {
	return evidence.Egress{Host: host, IP: a.String(), Port: int(port), Proto: proto, Via: evidence.ViaConnect, Allowed: allowed}
}

// loopbackEntry is an attempt at the sandbox's loopback that nothing
// there answered (evidence.ViaLoopback): never allowed, never named (the DNS log names remote addresses, and a local one is no
// destination a name of the allowlist leads to).
func loopbackEntry(a netip.Addr, proto string, port uint16) evidence.Egress {
	return evidence.Egress{IP: a.Unmap().String(), Port: int(port), Proto: proto, Via: evidence.ViaLoopback}
}

// list returns the entries ordered by first attempt; never nil.
func (r *recorder) list() []evidence.Egress {
	r.mu.Lock()
	defer r.mu.Unlock()
	xs := make([]*recEntry, 0, len(r.entries))
	for _, x := range r.entries {
		xs = append(xs, x)
	}
	sort.Slice(xs, func(i, j int) bool {
		if !xs[i].first.Equal(xs[j].first) {
			return xs[i].first.Before(xs[j].first)
		}
		return xs[i].seq < xs[j].seq
	})
	out := make([]evidence.Egress, 0, len(xs))
	for _, x := range xs {
		out = append(out, x.e)
	}
	return out
}

// A stream is a loopback TCP listener the command talks to: the DNS stub's
// TCP side, the recording proxy. Nothing the command sends one is lost
// without being counted:
//
//   - at most streamMaxConns connections are read at once; the others wait
//     in the listener's queue (net.core.somaxconn: 4096 in a fresh
//     namespace), and whatever the kernel refused because that queue was
//     full (a SYN, or a handshake's last ACK and the data behind it) is
//     counted (listenerDrops);
//   - a connection is read until its peer ends it, never closed because it
//     idles, and the reader never waits for an answer to be written (serve
//     may answer from another goroutine; streamConn.answer gives up on a
//     peer that does not read);
//   - a connection the kernel handed over but Go's runtime could not
//     watch (epoll_ctl's ENOSPC once the uid's epoll watches are all
//     taken, which the command, of the same host uid, can do) is closed
//     by the runtime unread: it is counted (unwatched);
//   - stop runs once the command and all its processes are gone, so all
//     they sent is in the kernel's socket buffers: it takes every
//     connection still queued, reads each one, queued or open, to its end
//     (waiting at most streamDrainMax for a peer that has not finished,
//     reading at most streamDrainBytes in all), and counts in lost what it
//     could not read.
type stream struct {
	ln    *net.TCPListener
	serve func(*streamConn) // reads the connection to its end, recording
	logf  func(string, ...any)

	slots      chan struct{}
	quit       chan struct{}
	acceptDone chan struct{}
	wg         sync.WaitGroup

	mu       sync.Mutex
	conns    map[*streamConn]struct{}
	deadline time.Time // set by stop

	stopping atomic.Bool
	budget   atomic.Int64 // bytes stop may still read
	// The connections not read to their end, by why (lostCounts):
	// refused while the listener's queue was full, thrown away by the
	// command's kernel (reset with bytes unsent), not read to the end
	// by the stream, or closed unread because the runtime could not watch
	// them (see accept).
	dropped, discarded, unread, unwatched atomic.Int64
	// watch is the session's discardWatch, which counts the command's
	// connections to this stream's address that its kernel reset with
	// bytes unsent (nil when sock_diag cannot be listened to); resets,
	// the connections that carried bytes and ended in a reset, stand in
	// for it then.
	watch    *discardWatch
	resets   atomic.Int64
	accepted atomic.Int64 // connections read (none: nothing was sent to it)
}

const (
	// streamMaxConns bounds the connections of one stream read at once
	// (each holds a goroutine and a line or message buffer).
	streamMaxConns = 256
	// streamRecvBuf is each connection's receive buffer (set on the
	// listener, whose connections inherit it): room for what a client
	// writes in a burst, so its kernel has sent it on when it exits.
	streamRecvBuf = 4 << 20
	// streamDrainMax bounds how long stop waits for connections whose
	// peer has not finished sending.
	streamDrainMax = 2 * time.Second
	// streamDrainBytes bounds what stop reads in all, per stream.
	streamDrainBytes = 16 << 20
	// streamWriteMax bounds how long an answer may wait for the peer to
	// read.
	streamWriteMax = 2 * time.Second
)

// errCut ends a read that stop could not take to the end of the
// connection; the connection is already counted lost.
var errCut = errors.New("connection not read to its end")

// listenStream listens on addr (network tcp, tcp4 or tcp6) and serves each connection with
// serve; watch (nil: none could be had) is the session's, which the
// stream's address is added to.
func listenStream(network, addr string, serve func(*streamConn), watch *discardWatch, logf func(string, ...any)) (*stream, error) {
	lc := net.ListenConfig{Control: func(_, _ string, rc syscall.RawConn) error {
		return rc.Control(func(fd uintptr) { setRecvBufFD(fd, streamRecvBuf) })
	}}
	// Plain TCP: an MPTCP listener (Go's default since 1.24) keeps the
	// queue's drop count on a subflow socket SO_MEMINFO does not reach.
	lc.SetMultipathTCP(false)
	l, err := lc.Listen(context.Background(), network, addr)
	if err != nil {
		return nil, err
	}
	s := &stream{ln: l.(*net.TCPListener), serve: serve, logf: logf, watch: watch,
		slots: make(chan struct{}, streamMaxConns), quit: make(chan struct{}), acceptDone: make(chan struct{}),
		conns: map[*streamConn]struct{}{}}
	if watch != nil {
		watch.add(s.addrPort())
	}
	go s.accept()
	return s, nil
}

func (s *stream) addr() string { return s.ln.Addr().String() }

func (s *stream) addrPort() netip.AddrPort { return s.ln.Addr().(*net.TCPAddr).AddrPort() }

func (s *stream) accept() {
	defer close(s.acceptDone)
	for {
		select {
		case s.slots <- struct{}{}:
		case <-s.quit:
			return
		}
		c, err := s.ln.AcceptTCP()
		if err != nil {
			<-s.slots
			if takenUnwatched(err) {
				// The kernel handed the connection over and the runtime
				// closed it, so what it carried is gone: counted, so
				// that the run says the record misses it.
				s.unwatched.Add(1)
				s.logf("egress: a connection to %s closed unread: %v", s.addr(), err)
			}
			if s.stopping.Load() {
				return
			}
			// Out of descriptors or the like: the connection waits in the
			// queue (stop reads it, or counts it lost).
			select {
			case <-s.quit:
				return
			case <-time.After(10 * time.Millisecond):
			}
			continue
		}
		s.wg.Add(1)
		go func() {
			defer func() { <-s.slots; s.wg.Done() }()
			s.run(c)
		}()
	}
}

// takenUnwatched says whether an error of AcceptTCP came after the
// kernel had handed a connection over: Go's runtime then failed to watch
// it in its poller (epoll_ctl: ENOSPC when the host uid's
// fs.epoll.max_user_watches are all taken, ENOMEM) and closed it unread.
// Those errors are a bare errno; an accept4 that failed, leaving the
// connection queued, is an *os.SyscallError, and a closed listener or a
// deadline is neither.
func takenUnwatched(err error) bool {
	var se *os.SyscallError
	var errno syscall.Errno
	return !errors.As(err, &se) && errors.As(err, &errno)
}

func (s *stream) run(c *net.TCPConn) {
	sc := &streamConn{TCPConn: c, s: s}
	s.accepted.Add(1)
	s.mu.Lock()
	s.conns[sc] = struct{}{}
	if !s.deadline.IsZero() {
		_ = c.SetReadDeadline(s.deadline)
		_ = c.SetWriteDeadline(time.Now())
	}
	s.mu.Unlock()
	s.serve(sc)
	if sc.read && sc.reset.Load() {
		s.resets.Add(1)
	}
	s.mu.Lock()
	delete(s.conns, sc)
	s.mu.Unlock()
	c.Close()
}

// stop reads what the command sent that is not read yet (see stream) and
// closes the listener. It runs once the command is gone.
func (s *stream) stop() {
	s.mu.Lock()
	s.budget.Store(streamDrainBytes)
	s.stopping.Store(true)
	s.deadline = time.Now().Add(streamDrainMax)
	for c := range s.conns {
		// A reader blocked on a peer that has finished gets its data and
		// the end at once; one whose peer has not waits until the
		// deadline. Answers are over.
		_ = c.SetReadDeadline(s.deadline)
		_ = c.SetWriteDeadline(time.Now())
	}
	s.mu.Unlock()
	close(s.quit)
	_ = s.ln.SetDeadline(time.Now())
	<-s.acceptDone
	s.drainQueue()
	s.wg.Wait()
	if d, err := s.listenerDrops(); err != nil {
		s.logf("egress: reading the drop count of %s: %v", s.addr(), err)
	} else {
		s.dropped.Add(d)
	}
	// The markers' notices come at once; give them a moment even when
	// the drain took all of its time.
	syncBy := s.deadline
	if least := time.Now().Add(streamDrainMax / 4); least.After(syncBy) {
		syncBy = least
	}
	switch {
	case s.accepted.Load() == 0:
		// No connection was ever made: no client held bytes for it.
	case s.watch == nil:
		s.discarded.Add(s.resets.Load())
	case s.watch.sync(syncBy):
		s.discarded.Add(s.watch.lostTo(s.addrPort()))
	default:
		s.logf("egress: %s: %s", s.addr(), noticesUnread)
		s.discarded.Add(max(s.watch.lostTo(s.addrPort()), s.resets.Load()))
	}
	s.ln.Close()
}

// drainQueue takes the connections still in the listener's queue, without
// waiting for more, and reads each (closing the listener would reset them).
func (s *stream) drainQueue() {
	rc, err := s.ln.SyscallConn()
	if err != nil {
		s.unread.Add(1)
		return
	}
	for {
		var fd int
		var aerr error
		if err := rc.Control(func(lfd uintptr) {
			fd, _, aerr = unix.Accept4(int(lfd), unix.SOCK_CLOEXEC|unix.SOCK_NONBLOCK)
		}); err != nil {
			aerr = err
		}
		switch {
		case aerr == nil:
		case errors.Is(aerr, unix.EAGAIN):
			return
		case errors.Is(aerr, unix.EINTR), errors.Is(aerr, unix.ECONNABORTED):
			continue
		default:
			// Out of descriptors: what is still queued cannot be read.
			s.logf("egress: taking the connections queued on %s: %v", s.addr(), aerr)
			s.unread.Add(1)
			return
		}
		f := os.NewFile(uintptr(fd), "")
		c, err := net.FileConn(f)
		f.Close()
		if err != nil {
			s.logf("egress: a connection queued on %s: %v", s.addr(), err)
			s.unread.Add(1)
			continue
		}
		s.run(c.(*net.TCPConn))
	}
}

// lostCounts is what the stream did not read, final once stop has
// returned: connections the listener's queue refused, ones the command's
// kernel threw away, ones not read to their end, and ones closed unread
// because the runtime could not watch them.
func (s *stream) lostCounts() lostConns {
	return lostConns{s.dropped.Load(), s.discarded.Load(), s.unread.Load(), s.unwatched.Load()}
}

// lostConns counts a stream's connections not read, by why.
type lostConns struct{ dropped, discarded, unread, unwatched int64 }

func (l lostConns) total() int64 { return l.dropped + l.discarded + l.unread + l.unwatched }

func (l lostConns) add(o lostConns) lostConns {
	return lostConns{l.dropped + o.dropped, l.discarded + o.discarded, l.unread + o.unread, l.unwatched + o.unwatched}
}

// String says how many were lost how, for the error that reports them;
// the connections closed unwatched are named only when there are some
// (they need the uid's epoll watches all taken).
func (l lostConns) String() string {
	s := fmt.Sprintf("%d refused while its queue was full, %d thrown away by the command's kernel, %d not read to the end", l.dropped, l.discarded, l.unread)
	if l.unwatched > 0 {
		s += fmt.Sprintf(", %d closed unread because no epoll watch could be had for them (the uid's fs.epoll.max_user_watches taken, or no memory)", l.unwatched)
	}
	return s
}

// listenerDrops counts the connection attempts the listener refused
// (tcp_listendrop: a SYN, or a handshake's last ACK, when its queue was
// full). The listener's own drop count (SO_MEMINFO) also counts packets it
// discarded for half-open connections, which lose nothing, and the
// namespace's ListenDrops counts tcp_listendrop for every listener in it
// (the command's too): each is at least the listener's refusals, so the
// smaller of the two is used. The namespace is the sandbox's, fresh when
// the session started, so its count needs no baseline; it is read only
// when the listener's own count leaves something to narrow.
func (s *stream) listenerDrops() (int64, error) {
	own, err := socketDrops(s.ln)
	if err != nil || own == 0 {
		return own, err
	}
	ns, err := namespaceListenDrops()
	if err != nil {
		s.logf("egress: %v (every packet %s discarded counts as lost)", err, s.addr())
		return own, nil
	}
	return min(own, ns), nil
}

// namespaceListenDrops reads TcpExt ListenDrops from /proc/net/netstat
// (this network namespace's).
func namespaceListenDrops() (int64, error) {
	b, err := os.ReadFile("/proc/net/netstat")
	if err != nil {
		return 0, err
	}
	lines := strings.Split(string(b), "\n")
	for i := 0; i+1 < len(lines); i++ {
		names, values := strings.Fields(lines[i]), strings.Fields(lines[i+1])
		if len(names) == 0 || names[0] != "TcpExt:" || len(values) != len(names) || values[0] != "TcpExt:" {
			continue
		}
		for j, n := range names {
			if n == "ListenDrops" {
				return strconv.ParseInt(values[j], 10, 64)
			}
		}
	}
	return 0, errors.New("no TcpExt ListenDrops in /proc/net/netstat")
}

// socketDrops is a socket's drop count (SO_MEMINFO).
func socketDrops(ln *net.TCPListener) (int64, error) {
	rc, err := ln.SyscallConn()
	if err != nil {
		return 0, err
	}
	var mi [unix.SK_MEMINFO_VARS]uint32
	var errno syscall.Errno
	if err := rc.Control(func(fd uintptr) {
		l := uint32(unsafe.Sizeof(mi))
		_, _, errno = unix.Syscall6(unix.SYS_GETSOCKOPT, fd, unix.SOL_SOCKET, unix.SO_MEMINFO,
			uintptr(unsafe.Pointer(&mi[0])), uintptr(unsafe.Pointer(&l)), 0)
	}); err != nil {
		return 0, err
	}
	if errno != 0 {
		return 0, fmt.Errorf("getsockopt SO_MEMINFO: %w", errno)
	}
	return int64(mi[unix.SK_MEMINFO_DROPS]), nil
}

// streamConn is one of a stream's connections. Its Read ends with io.EOF
// when the peer ends the connection (a reset too), and with errCut when
// stop could not take it to its end (counted lost).
type streamConn struct {
	*net.TCPConn
	s        *stream
	lostOnce bool
	read     bool        // bytes were read
	reset    atomic.Bool // the peer reset the connection (seen reading or answering)
}

// draining reports whether stop has begun: answer nothing more.
func (c *streamConn) draining() bool { return c.s.stopping.Load() }

// lose counts the connection lost (once): something it carried was not
// read, or not whole.
func (c *streamConn) lose() {
	if !c.lostOnce {
		c.lostOnce = true
		c.s.unread.Add(1)
	}
}

func (c *streamConn) cut() error {
	c.lose()
	return errCut
}

func (c *streamConn) Read(b []byte) (int, error) {
	if c.s.stopping.Load() {
		left := c.s.budget.Load()
		if left <= 0 {
			return 0, c.cut()
		}
		if int64(len(b)) > left {
			b = b[:left]
		}
	}
	n, err := c.TCPConn.Read(b)
	if err != nil && c.s.stopping.Load() && errors.Is(err, os.ErrDeadlineExceeded) {
		// stop's wait is over: what the kernel holds, without waiting.
		n, err = c.readNow(b)
	}
	if c.s.stopping.Load() {
		c.s.budget.Add(-int64(n))
	}
	c.read = c.read || n > 0
	switch {
	case err == nil, errors.Is(err, errCut), errors.Is(err, io.EOF):
		return n, err
	case errors.Is(err, syscall.ECONNRESET):
		c.reset.Store(true)
		return n, io.EOF
	}
	c.s.logf("egress: reading a connection to %s: %v", c.s.addr(), err)
	return n, c.cut()
}

func (c *streamConn) readNow(b []byte) (int, error) {
	rc, err := c.SyscallConn()
	if err != nil {
		return 0, err
	}
	var n int
	var rerr error
	if err := rc.Control(func(fd uintptr) { n, rerr = unix.Read(int(fd), b) }); err != nil {
		return 0, err
	}
	switch {
	case rerr == nil && n == 0:
		return 0, io.EOF
	case rerr == nil:
		return n, nil
	case errors.Is(rerr, unix.EAGAIN):
		return 0, c.cut() // the peer never finished
	}
	return 0, rerr
}

// answer writes b unless stop has begun, waiting at most streamWriteMax
// for the peer to read.
func (c *streamConn) answer(b []byte) error {
	c.s.mu.Lock()
	if !c.s.deadline.IsZero() {
		c.s.mu.Unlock()
		return errors.New("stopping")
	}
	_ = c.SetWriteDeadline(time.Now().Add(streamWriteMax))
	c.s.mu.Unlock()
	_, err := c.Write(b)
	if errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) {
		// The write took the reset's error: the reader sees only the end.
		c.reset.Store(true)
	}
	return err
}

// A client that closes its connection (or exits) with answers unread
// makes its kernel reset the connection and throw away what it had
// written and not yet transmitted: bytes held back by Nagle's algorithm
// until the stub or proxy acknowledged the bytes before them, or by a full
// window. The reading side cannot see this; the kernel says it in the
// socket's last tcp_info (notsent_bytes), which sock_diag broadcasts when
// the socket is destroyed to whoever listens in the namespace
// (SKNLGRP_INET_TCP_DESTROY, SKNLGRP_INET6_TCP_DESTROY), every notice to
// every listening socket. A session has one discardWatch, which listens
// from the start and counts, for each address it watches (its stub's TCP
// listeners and its proxy's), the command's sockets to that address
// destroyed with such bytes. The session closes it once every stream has
// stopped.
type discardWatch struct {
	f    *os.File
	logf func(string, ...any)
	done chan struct{}

	// broken is set when notices were dropped (the socket's queue
	// overflowed) or could not be read: the counts may then be short.
	broken atomic.Bool

	mu      sync.Mutex
	lost    map[netip.AddrPort]int64 // per address watched
	markers map[uint64]bool          // cookies of sync's markers, true once seen
	// seen is closed, and replaced, when a marker is seen: every sync
	// waiting (each stream's stop) looks again.
	seen chan struct{}
}

const (
	// discardRecvBuf holds the destroy notices of a burst of closes (a
	// command's exit) while they are read.
	discardRecvBuf = 32 << 20
	inetDiagInfo   = 2  // INET_DIAG_INFO: the socket's tcp_info
	inetDiagMsgLen = 72 // struct inet_diag_msg
)

var notsentOffset = int(unsafe.Offsetof(unix.TCPInfo{}.Notsent_bytes))

func watchDiscards(logf func(string, ...any)) (*discardWatch, error) {
	fd, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_DGRAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, unix.NETLINK_SOCK_DIAG)
	if err != nil {
		return nil, fmt.Errorf("opening sock_diag: %w", err)
	}
	setRecvBufFD(uintptr(fd), discardRecvBuf)
	groups := uint32(1<<(unix.SKNLGRP_INET_TCP_DESTROY-1) | 1<<(unix.SKNLGRP_INET6_TCP_DESTROY-1))
	if err := unix.Bind(fd, &unix.SockaddrNetlink{Family: unix.AF_NETLINK, Groups: groups}); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("listening for tcp sockets' destruction: %w", err)
	}
	w := &discardWatch{f: os.NewFile(uintptr(fd), "sock_diag"), logf: logf, done: make(chan struct{}),
		lost: map[netip.AddrPort]int64{}, markers: map[uint64]bool{}, seen: make(chan struct{})}
	go w.read()
	return w, nil
}

// add watches to: from now on the command's sockets to it destroyed with
// bytes unsent are counted.
func (w *discardWatch) add(to netip.AddrPort) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.lost[netip.AddrPortFrom(to.Addr().Unmap(), to.Port())] = 0
}

// lostTo is the count for to, an address added; whole once sync says so.
func (w *discardWatch) lostTo(to netip.AddrPort) int64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.lost[netip.AddrPortFrom(to.Addr().Unmap(), to.Port())]
}

func (w *discardWatch) read() {
	defer close(w.done)
	buf := make([]byte, 64<<10)
	for {
		n, err := w.f.Read(buf)
		switch {
		case err == nil:
			w.parse(buf[:n])
		case errors.Is(err, os.ErrClosed):
			return
		case errors.Is(err, unix.ENOBUFS):
			w.broken.Store(true)
		default:
			w.logf("egress: reading sock_diag: %v", err)
			w.broken.Store(true)
			return
		}
	}
}

func (w *discardWatch) parse(b []byte) {
	for len(b) >= unix.NLMSG_HDRLEN {
		l := int(binary.NativeEndian.Uint32(b[0:4]))
		if l < unix.NLMSG_HDRLEN || l > len(b) {
			return
		}
		if binary.NativeEndian.Uint16(b[4:6]) == unix.SOCK_DIAG_BY_FAMILY {
			w.notice(b[unix.NLMSG_HDRLEN:l])
		}
		b = b[min(len(b), (l+unix.NLMSG_ALIGNTO-1)&^(unix.NLMSG_ALIGNTO-1)):]
	}
}

// notice reads one destroyed socket's inet_diag_msg and attributes.
func (w *discardWatch) notice(m []byte) {
	if len(m) < inetDiagMsgLen {
		return
	}
	cookie := binary.NativeEndian.Uint64(m[44:52])
	dst, _ := diagDst(m)
	to := netip.AddrPortFrom(dst, binary.BigEndian.Uint16(m[6:8]))
	w.mu.Lock()
	defer w.mu.Unlock()
	if seen, ok := w.markers[cookie]; ok && !seen {
		w.markers[cookie] = true
		close(w.seen)
		w.seen = make(chan struct{})
	}
	if !unsent(m[inetDiagMsgLen:]) {
		return
	}
	if _, ok := w.lost[to]; !ok {
		// A listener on an unspecified address takes what is sent to any
		// address of the namespace.
		var any netip.Addr
		if dst.Is4() {
			any = netip.IPv4Unspecified()
		} else {
			any = netip.IPv6Unspecified()
		}
		if _, ok := w.lost[netip.AddrPortFrom(any, to.Port())]; !ok || !isLocal(dst) {
			return
		}
		to = netip.AddrPortFrom(any, to.Port())
	}
	w.lost[to]++
}

// diagDst is the peer's address in m, a struct inet_diag_msg of
// inetDiagMsgLen bytes at least; false (and the zero Addr) for a family
// other than IPv4 and IPv6.
func diagDst(m []byte) (netip.Addr, bool) {
	switch m[0] {
	case unix.AF_INET:
		return netip.AddrFrom4([4]byte(m[24:28])), true
	case unix.AF_INET6:
		return netip.AddrFrom16([16]byte(m[24:40])).Unmap(), true
	}
	return netip.Addr{}, false
}

// isLocal reports whether a is an address of this network namespace.
func isLocal(a netip.Addr) bool {
	if a.IsLoopback() {
		return true
	}
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return false
	}
	for _, ia := range addrs {
		if n, ok := ia.(*net.IPNet); ok {
			if b, ok := netip.AddrFromSlice(n.IP); ok && b.Unmap() == a {
				return true
			}
		}
	}
	return false
}

// unsent reports whether a destroyed socket's attributes say it had bytes
// not yet sent (tcp_info's notsent_bytes).
func unsent(attrs []byte) bool {
	for a := attrs; len(a) >= 4; {
		l := int(binary.NativeEndian.Uint16(a[0:2]))
		if l < 4 || l > len(a) {
			return false
		}
		if binary.NativeEndian.Uint16(a[2:4]) == inetDiagInfo && l >= 4+notsentOffset+4 {
			return binary.NativeEndian.Uint32(a[4+notsentOffset:]) > 0
		}
		a = a[min(len(a), (l+3)&^3):]
	}
	return false
}

// sync makes sure every socket destroyed before it was called has been
// noticed: it destroys a marker socket on each CPU this thread may run on
// (each CPU's notices are sent in order) and waits, until deadline at the
// latest, for their notices. False means the watch cannot be relied on.
// The streams of a session may sync at once, each with its own markers.
func (w *discardWatch) sync(deadline time.Time) bool {
	cookies := make(chan []uint64)
	go func() {
		// Never unlocked: the thread, pinned to one CPU last, ends with
		// the goroutine.
		runtime.LockOSThread()
		var all unix.CPUSet
		if err := unix.SchedGetaffinity(0, &all); err != nil {
			cookies <- nil
			return
		}
		var cs []uint64
		for cpu := 0; cpu < len(all)*64; cpu++ {
			if !all.IsSet(cpu) {
				continue
			}
			var one unix.CPUSet
			one.Set(cpu)
			if unix.SchedSetaffinity(0, &one) != nil {
				continue
			}
			if c, err := w.marker(); err == nil {
				cs = append(cs, c)
			}
		}
		cookies <- cs
	}()
	cs := <-cookies
	if len(cs) == 0 {
		return false
	}
	timer := time.NewTimer(time.Until(deadline))
	defer timer.Stop()
	for {
		w.mu.Lock()
		missing := 0
		for _, c := range cs {
			if !w.markers[c] {
				missing++
			}
		}
		seen := w.seen
		w.mu.Unlock()
		if missing == 0 {
			return !w.broken.Load()
		}
		select {
		case <-seen:
		case <-w.done: // the reader is gone: nothing more will be seen
			return false
		case <-timer.C:
			return false
		}
	}
}

// noticesUnread is logged when a stream's stop could not be sure it read
// every notice of the sockets destroyed before it.
const noticesUnread = "the notices of destroyed sockets were not all read (every connection the command reset counts as lost)"

// marker opens and closes a TCP socket, and returns its cookie.
func (w *discardWatch) marker() (uint64, error) {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return 0, err
	}
	defer unix.Close(fd)
	var cookie uint64
	l := uint32(unsafe.Sizeof(cookie))
	if _, _, errno := unix.Syscall6(unix.SYS_GETSOCKOPT, uintptr(fd), unix.SOL_SOCKET, unix.SO_COOKIE,
		uintptr(unsafe.Pointer(&cookie)), uintptr(unsafe.Pointer(&l)), 0); errno != 0 {
		return 0, errno
	}
	w.mu.Lock()
	w.markers[cookie] = false
	w.mu.Unlock()
	return cookie, nil
}

func (w *discardWatch) close() {
	w.f.Close()
	<-w.done
}
