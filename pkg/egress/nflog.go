package egress

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mdlayher/netlink"
	"golang.org/x/sys/unix"
)

// nfnetlink_log constants (linux/netfilter/nfnetlink_log.h); x/sys does not
// carry them.
const (
	nfnlSubsysULOG    = 4
	nfulnlMsgPacket   = 0
	nfulnlMsgConfig   = 1
	nfulaCfgCmd       = 1
	nfulaCfgMode      = 2
	nfulaCfgQThresh   = 5
	nfulnlCfgCmdBind  = 1
	nfulnlCopyPacket  = 2
	nfulaPayload      = 9
	nfulaPrefix       = 10
	nflogCopyRange    = logSnaplenRouted // the largest snapshot a rule asks for
	nflogReadBufBytes = 4 << 20
	nflogDrainMax     = 2 * time.Second
)

// packetEvent is one packet the rule set logged.
type packetEvent struct {
	at      time.Time
	dropped bool // prefix vigiles-drop (else vigiles-acc)
	// local is an attempt at one of the namespace's own addresses that
	// nothing there answered (prefix vigiles-lo): dst, proto and port are
	// the address, protocol and port tried, read from the kernel's answer
	// (vigiles-lo-sent: from the attempt, which the kernel never answers).
	local  bool
	dst    netip.Addr
	proto  string // l4Name's
	port   uint16 // 0 unless the protocol has ports (l4Name) and the packet holds them (not a fragment past the first)
	length int
	// questions are the names a datagram to port 53, 5353 or 5355
	// (questionPorts) or a SYN to port 53 asked, where its snapshot holds
	// a DNS query (dnsQuestions): a question the command put to a
	// resolver other than the stub, or asked by multicast DNS or LLMNR.
	questions []string
	// unread is how many more questions that query counts than could
	// be read from the snapshot (cut short, or not a name).
	unread int
	// groups are the multicast groups an IGMP or MLD membership report
	// names (membershipGroups): groups the command joined, which the
	// kernel announces on the link, and the sources it asked for their
	// traffic from.
	groups []member
	// groupsOnly says the packet is an MLD report the wall let through
	// (allow mode, prefix vigiles-mld): its groups are recorded, not the
	// packet itself, which the kernel sends for its own groups too.
	groupsOnly bool
}

// nflog reads the rule set's NFLOG group from its own netlink socket.
type nflog struct {
	conn    *netlink.Conn
	done    chan struct{}
	closing atomic.Bool

	// deliver receives each logged packet as it is read, so repeated
	// destinations cost nothing and each is named by the DNS log as it
	// stood at the time of the attempt.
	deliver func(packetEvent)

	// read counts the messages the loop has read, so a sync can tell a
	// reader that is behind from one that has stopped reading.
	read atomic.Uint64
	// received counts the packet messages the loop has read (parsed or
	// not), which Finish compares with the packets the rule set counted
	// as it logged them (counterLogged).
	received atomic.Uint64

	mu   sync.Mutex
	lost int // ENOBUFS seen: the kernel dropped log messages
	err  error
	// stalled says a sync gave up on a reader that read nothing for
	// nflogStallMax: what it stamped may be out of order (stop then
	// calls the record incomplete).
	stalled bool
	// waiting are the syncs not yet answered, by their request's sequence
	// number; nextSeq numbers the next.
	waiting map[uint32]chan struct{}
	nextSeq uint32
	group   uint16
}

// nflogSyncSeq is the first sequence number of sync's requests, far from
// the ones the netlink package numbers its own requests with (openNFLOG's
// are answered before the loop starts, so none of them is seen there).
const nflogSyncSeq = 0x76690000

// openNFLOG binds the group. It must run in the sandbox's network namespace
// with CAP_NET_ADMIN there.
func openNFLOG(group uint16, deliver func(packetEvent)) (*nflog, error) {
	c, err := netlink.Dial(unix.NETLINK_NETFILTER, nil)
	if err != nil {
		return nil, fmt.Errorf("opening nflog socket: %w", err)
	}
	_ = c.SetReadBuffer(nflogReadBufBytes)
	cfg := func(attrs []netlink.Attribute) error {
		ab, err := netlink.MarshalAttributes(attrs)
		if err != nil {
			return err
		}
		hdr := []byte{unix.AF_UNSPEC, 0, byte(group >> 8), byte(group)}
		_, err = c.Execute(netlink.Message{
			Header: netlink.Header{
				Type:  netlink.HeaderType(nfnlSubsysULOG<<8 | nfulnlMsgConfig),
				Flags: netlink.Request | netlink.Acknowledge,
			},
			Data: append(hdr, ab...),
		})
		return err
	}
	mode := make([]byte, 6)
	binary.BigEndian.PutUint32(mode, nflogCopyRange)
	mode[4] = nfulnlCopyPacket
	qthresh := make([]byte, 4)
	binary.BigEndian.PutUint32(qthresh, 1)
	for _, step := range [][]netlink.Attribute{
		{{Type: nfulaCfgCmd, Data: []byte{nfulnlCfgCmdBind}}},
		{{Type: nfulaCfgMode, Data: mode}},
		{{Type: nfulaCfgQThresh, Data: qthresh}},
	} {
		if err := cfg(step); err != nil {
			c.Close()
			return nil, fmt.Errorf("binding nflog group %d: %w", group, err)
		}
	}
	l := &nflog{conn: c, done: make(chan struct{}), deliver: deliver, group: group,
		waiting: map[uint32]chan struct{}{}, nextSeq: nflogSyncSeq}
	go l.loop()
	return l, nil
}

// sync returns once every packet the rule set logged before it was called
// has been delivered, or when the reader has ended or lost messages (the
// record is then incomplete anyway), or when the reader has read nothing
// for nflogStallMax (it has stopped: stop then calls the record
// incomplete). The DNS stub and the proxy call it before they stamp an
// attempt, so that the attempts the wall logged before it are ordered
// before it, though vigiles reads the log apart and behind. A reader that
// is only slow (a loaded machine, a flood before the question) is waited
// for however long it takes: a sync that gave up after a fixed time let
// the record's order, and which entries the cap lumps, depend on the
// machine's load.
//
// The kernel gives no time of its own for a logged outgoing packet (NFLOG
// sends a timestamp for packets on the input hooks only), so sync puts a
// marker into the log's socket instead: a configuration request that
// changes nothing, asking for an acknowledgement. The kernel queues the
// acknowledgement on the socket behind every log message already there (a
// message is queued as its packet passes the rule: the queue threshold is
// 1), and the reader, reading in order, sees it after them.
func (l *nflog) sync() {
	l.mu.Lock()
	if l.err != nil || l.lost > 0 || l.closing.Load() {
		// Nothing to order: the record is incomplete once messages were
		// lost, and no later sync waits for a marker that may be among
		// the next ones lost.
		l.mu.Unlock()
		return
	}
	seq := l.nextSeq
	l.nextSeq++
	ch := make(chan struct{})
	l.waiting[seq] = ch
	l.mu.Unlock()
	defer func() {
		l.mu.Lock()
		delete(l.waiting, seq)
		l.mu.Unlock()
	}()
	qthresh := make([]byte, 4)
	binary.BigEndian.PutUint32(qthresh, 1)
	ab, err := netlink.MarshalAttributes([]netlink.Attribute{{Type: nfulaCfgQThresh, Data: qthresh}})
	if err != nil {
		return
	}
	hdr := []byte{unix.AF_UNSPEC, 0, byte(l.group >> 8), byte(l.group)}
	if _, err := l.conn.Send(netlink.Message{
		Header: netlink.Header{
			Type:     netlink.HeaderType(nfnlSubsysULOG<<8 | nfulnlMsgConfig),
			Flags:    netlink.Request | netlink.Acknowledge,
			Sequence: seq,
		},
		Data: append(hdr, ab...),
	}); err != nil {
		return
	}
	t := time.NewTicker(nflogStallMax)
	defer t.Stop()
	last := l.read.Load()
	for {
		select {
		case <-ch:
			return
		case <-l.done:
			return
		case <-t.C:
			if n := l.read.Load(); n != last {
				last = n
				continue
			}
			l.mu.Lock()
			l.stalled = true
			l.mu.Unlock()
			return
		}
	}
}

// synced answers the sync waiting for seq, if any; every sync when all is
// set (messages were lost: a marker may be among them).
func (l *nflog) synced(seq uint32, all bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for s, ch := range l.waiting {
		if all || s == seq {
			close(ch)
			delete(l.waiting, s)
		}
	}
}

func (l *nflog) loop() {
	defer close(l.done)
	for {
		msgs, err := l.conn.Receive()
		if err != nil {
			if l.closing.Load() {
				return
			}
			if errors.Is(err, unix.ENOBUFS) {
				l.mu.Lock()
				l.lost++
				l.mu.Unlock()
				l.synced(0, true)
				continue
			}
			l.mu.Lock()
			l.err = fmt.Errorf("reading nflog: %w", err)
			l.mu.Unlock()
			return
		}
		now := time.Now()
		for _, m := range msgs {
			l.read.Add(1)
			if m.Header.Type == netlink.Error {
				// An acknowledgement: sync's marker (an error would
				// have ended the loop above).
				l.synced(m.Header.Sequence, false)
				continue
			}
			if m.Header.Type != netlink.HeaderType(nfnlSubsysULOG<<8|nfulnlMsgPacket) {
				continue
			}
			if nflogDiscard.Load() > 0 && nflogDiscard.Add(-1) >= 0 {
				continue // as if the kernel had never sent it (tests)
			}
			l.received.Add(1)
			if ev, ok := parseNFLOGPacket(m.Data); ok {
				ev.at = now
				l.deliver(ev)
			}
		}
	}
}

// stop waits until the loop has read everything the kernel queued (the
// rule set logs with a queue threshold of 1, so every packet logged before
// the command ended is already in the socket), then closes the socket.
// Like sync, it waits for a reader that is behind however long reading
// takes, as long as it keeps reading: a stop that gave up after a fixed
// 2 s called the record of a flood on a loaded machine incomplete though
// nothing was lost.
//
// A reader that reads nothing for nflogStallMax while messages are still
// queued has stopped: those messages are never read, and the record is
// then incomplete (ErrIncomplete), not short.
func (l *nflog) stop() (int, error) {
	behind := !l.socketEmpty()
	if behind {
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		last, since := l.read.Load(), time.Now()
	wait:
		for behind {
			select {
			case <-l.done:
				break wait // the loop ended: its error says why
			case <-t.C:
			}
			if behind = !l.socketEmpty(); !behind {
				break
			}
			if n := l.read.Load(); n != last {
				last, since = n, time.Now()
			} else if time.Since(since) >= nflogStallMax {
				break
			}
		}
	}
	l.closing.Store(true)
	l.conn.Close()
	<-l.done // the loop appends what it already received before it ends
	l.mu.Lock()
	defer l.mu.Unlock()
	if behind && l.err == nil {
		return l.lost, fmt.Errorf("the packet log's reader read nothing for %v with messages still queued, which were never read: %w", nflogStallMax, ErrIncomplete)
	}
	if l.stalled && l.err == nil {
		return l.lost, fmt.Errorf("the packet log's reader read nothing for %v while an attempt waited to be ordered after it: %w", nflogStallMax, ErrIncomplete)
	}
	return l.lost, l.err
}

// nflogDiscard is how many packet messages the reader throws away as it
// reads them, uncounted and undelivered, as if the kernel had dropped them
// without a word. Only this package's tests set it (nflogcount_test.go),
// to show that Finish notices such a loss; it is 0 in every run.
var nflogDiscard atomic.Int64

// nflogStallMax is how long sync and stop wait for a reader that reads
// nothing before they give up (a variable for the tests that slow the
// reader).
var nflogStallMax = nflogDrainMax

// socketEmpty peeks at the socket without blocking.
func (l *nflog) socketEmpty() bool {
	rc, err := l.conn.SyscallConn()
	if err != nil {
		return true
	}
	empty := true
	_ = rc.Control(func(fd uintptr) {
		var b [1]byte
		_, _, err := unix.Recvfrom(int(fd), b[:], unix.MSG_PEEK|unix.MSG_DONTWAIT)
		empty = errors.Is(err, unix.EAGAIN)
	})
	return empty
}

// parseNFLOGPacket decodes an NFULNL_MSG_PACKET body (nfgenmsg + attributes)
// into the destination it names.
func parseNFLOGPacket(b []byte) (packetEvent, bool) {
	var ev packetEvent
	if len(b) < 4 {
		return ev, false
	}
	ad, err := netlink.NewAttributeDecoder(b[4:])
	if err != nil {
		return ev, false
	}
	var payload []byte
	var prefix string
	for ad.Next() {
		switch ad.Type() {
		case nfulaPayload:
			payload = ad.Bytes()
		case nfulaPrefix:
			prefix = string(trimNUL(ad.Bytes()))
		}
	}
	if ad.Err() != nil {
		return ev, false
	}
	switch prefix {
	case logPrefixDrop:
		ev.dropped = true
	case logPrefixAccept:
	case logPrefixLocal:
		ev.local = true
		return ev, parseLocalAnswer(payload, &ev)
	case logPrefixMLD:
		ev.groupsOnly = true
		return ev, parseIPPacket(payload, &ev)
	case logPrefixLocalSent:
		// The attempt itself, which nothing answers: its destination is
		// the address tried. A question in it went to the stub's port
		// (which takes neither), not to another resolver.
		ev.local = true
		ok := parseIPPacket(payload, &ev)
		ev.questions, ev.unread = nil, 0
		return ev, ok
	case logPrefixLocalFrom:
		// The attempt itself, from an address the namespace does not
		// hold, which the wall dropped: its destination is the address
		// tried. A question in it is named: under Claude Code a resolver
		// of the host's at that address takes it, and asks on.
		ev.local = true
		return ev, parseIPPacket(payload, &ev)
	default:
		return ev, false
	}
	return ev, parseIPPacket(payload, &ev)
}

// parseIPPacket reads destination, protocol and destination port from the
// start of an IPv4 or IPv6 packet. The destination of a packet that names
// its route (an IPv6 routing header, an IPv4 source route option) is the
// final one, where the command sent it, not the first hop in its header.
// A fragment past the first (its fragment offset not 0) holds no transport
// header, only the middle of a datagram: it has its destination and
// protocol (the one its fragment header names, for IPv6) and no port, and
// no question is read from it.
func parseIPPacket(p []byte, ev *packetEvent) bool {
	if len(p) < 1 {
		return false
	}
	var proto byte
	var l4 []byte
	switch p[0] >> 4 {
	case 4:
		if len(p) < 20 {
			return false
		}
		ihl := int(p[0]&0x0f) * 4
		ev.length = int(binary.BigEndian.Uint16(p[2:4]))
		ev.dst = netip.AddrFrom4([4]byte(p[16:20]))
		proto = p[9]
		if ihl >= 20 && len(p) >= ihl {
			if binary.BigEndian.Uint16(p[6:8])&0x1fff == 0 {
				l4 = p[ihl:]
			}
			if dst, ok := sourceRouteDst(p[20:ihl]); ok {
				ev.dst = dst
			}
		}
	case 6:
		if len(p) < 40 {
			return false
		}
		ev.length = 40 + int(binary.BigEndian.Uint16(p[4:6]))
		ev.dst = netip.AddrFrom16([16]byte(p[24:40]))
		proto = p[6]
		off := 40
		first := true // not a fragment past the first
		// Walk the usual extension headers (hop-by-hop, routing,
		// fragment, destination options, AH) to the transport header.
	walk:
		for i := 0; i < 8 && len(p) >= off+8; i++ {
			switch proto {
			case 0, 43, 60:
				if proto == 43 {
					if dst, ok := routingHeaderDst(p[off:]); ok {
						ev.dst = dst
					}
				}
				proto, off = p[off], off+(int(p[off+1])+1)*8
				continue
			case 44:
				proto, off = p[off], off+8
				if binary.BigEndian.Uint16(p[off-6:off-4])&0xfff8 != 0 {
					// The fragment's bytes are the middle of the
					// datagram, whatever its fragment header says
					// comes first in it.
					first = false
					break walk
				}
				continue
			case 51:
				proto, off = p[off], off+(int(p[off+1])+2)*4
				continue
			}
			break walk
		}
		if first && off <= len(p) {
			l4 = p[off:]
		}
	default:
		return false
	}
	var ported bool
	ev.proto, ported = l4Name(proto)
	if ported && len(l4) >= 4 {
		ev.port = binary.BigEndian.Uint16(l4[2:4])
	}
	if proto == unix.IPPROTO_UDP && slices.Contains(questionPorts, ev.port) && len(l4) > 8 {
		ev.questions, ev.unread = dnsQuestions(l4[8:])
	}
	if proto == unix.IPPROTO_IGMP && p[0]>>4 == 4 || proto == unix.IPPROTO_ICMPV6 && p[0]>>4 == 6 {
		ev.groups = membershipGroups(proto, l4)
	}
	if proto == unix.IPPROTO_TCP && ev.port == 53 && len(l4) >= 20 {
		// A SYN with data (TCP Fast Open): the message's length, then
		// the message, as DNS over TCP sends it.
		if off := int(l4[12]>>4) * 4; off >= 20 && len(l4) > off+2 {
			ev.questions, ev.unread = dnsQuestions(l4[off+2:])
		}
	}
	return true
}

// membershipGroups returns the multicast groups an IGMP (RFC 1112, 2236,
// 3376) or MLD (RFC 2710, 3810) membership report or leave names, as far
// as l4 holds them: the groups the sender joined or left. The command
// joins a group of its choosing without privilege (IP_ADD_MEMBERSHIP,
// IPV6_JOIN_GROUP), and the kernel announces it on the link, to every
// multicast router and snooping switch there. A group of the kernel's own
// (the all-nodes and all-hosts groups, IPv6's solicited-node groups) is
// left out.
func membershipGroups(proto byte, l4 []byte) []member {
	var gs []member
	keep := func(g netip.Addr) bool {
		if !g.IsMulticast() || ownGroup(g) {
			return false
		}
		if m := (member{group: g}); !slices.Contains(gs, m) {
			gs = append(gs, m)
		}
		return true
	}
	// sources keeps the n source addresses of size alen at b's start
	// (as far as b holds them) of group g's record: a source-specific
	// join (MCAST_JOIN_SOURCE_GROUP, no privilege needed either) names
	// each, and a multicast router of the link may send a join towards
	// each (PIM-SSM).
	sources := func(g netip.Addr, b []byte, n, alen int) {
		for i := 0; i < n && len(b) >= (i+1)*alen; i++ {
			a, _ := netip.AddrFromSlice(b[i*alen : (i+1)*alen])
			if m := (member{source: a, group: g}); !slices.Contains(gs, m) {
				gs = append(gs, m)
			}
		}
	}
	// records keeps the groups (and their sources) of an IGMPv3 or MLDv2
	// report's group records, addresses alen bytes long: from byte 8,
	// each record's type, aux data length (in 32-bit words), number of
	// sources and group, a header of 4+alen bytes read only where l4
	// holds it whole, then its sources and aux data. The report's count
	// of records bounds the loop, and the end of l4 each record.
	records := func(alen int) {
		hdr := 4 + alen
		n := int(binary.BigEndian.Uint16(l4[6:8]))
		for off, i := 8, 0; i < n && len(l4) >= off+hdr; i++ {
			g, _ := netip.AddrFromSlice(l4[off+4 : off+hdr])
			ns := int(binary.BigEndian.Uint16(l4[off+2 : off+4]))
			if keep(g) {
				sources(g, l4[off+hdr:], ns, alen)
			}
			off += hdr + alen*ns + 4*int(l4[off+1])
		}
	}
	if len(l4) < 8 {
		return nil
	}
	switch {
	case proto == unix.IPPROTO_IGMP && (l4[0] == 0x12 || l4[0] == 0x16 || l4[0] == 0x17):
		// v1 and v2 reports, v2's leave: the group follows the checksum.
		keep(netip.AddrFrom4([4]byte(l4[4:8])))
	case proto == unix.IPPROTO_IGMP && l4[0] == 0x22:
		// v3 report: group records of 4-byte addresses.
		records(4)
	case proto == unix.IPPROTO_ICMPV6 && (l4[0] == 131 || l4[0] == 132):
		// MLDv1 report and done: the group after 8 bytes of header.
		if len(l4) >= 24 {
			keep(netip.AddrFrom16([16]byte(l4[8:24])))
		}
	case proto == unix.IPPROTO_ICMPV6 && l4[0] == 143:
		// MLDv2 report: records as IGMPv3's, with 16-byte addresses.
		records(16)
	}
	return gs
}

// member is a group a membership report names (source invalid), or a
// source it names for that group.
type member struct {
	source, group netip.Addr
}

// solicitedNode is IPv6's solicited-node prefix (RFC 4291 2.7.1), the
// groups the kernel joins for each address of its own.
var solicitedNode = netip.MustParsePrefix("ff02::1:ff00:0/104")

// ownGroup says whether the kernel joins g itself: IPv4's all-hosts
// group, IPv6's all-nodes group and its solicited-node groups.
func ownGroup(g netip.Addr) bool {
	return g == netip.AddrFrom4([4]byte{224, 0, 0, 1}) || g == netip.IPv6LinkLocalAllNodes() || solicitedNode.Contains(g)
}

// dnsQuestions returns the names a DNS query asks, in presentation form
// as the stub records them, and how many more its header counts that b
// does not hold whole (a query of several long questions, past the
// snapshot) or that are no names; none where b is no query or its first
// question cannot be read.
func dnsQuestions(b []byte) ([]string, int) {
	q, err := parseQuery(b)
	if err != nil {
		return nil, 0
	}
	names := []string{q.Name}
	for o := range moreQuestions(b) {
		names = append(names, o.Name)
	}
	return names, int(binary.BigEndian.Uint16(b[4:6])) - len(names)
}

// parseLocalAnswer turns the kernel's answer to an attempt at a local
// address and port nothing took (rules.go, logPrefixLocal) back into the
// attempt: a TCP reset's source address and port, or the destination
// address and port of the datagram a port unreachable carries. false for
// anything else the rule may log: a port unreachable the wall sent for a
// datagram it refused (from a local address, not the one the datagram
// went to, which is not local), and the one the kernel sends the DNS stub
// when a client is gone before its answer (the answer's source port is 53,
// which only the stub holds: the command cannot bind a port below 1024).
func parseLocalAnswer(p []byte, ev *packetEvent) bool {
	if len(p) < 1 {
		return false
	}
	var src netip.Addr
	var proto byte
	var l4 []byte
	switch p[0] >> 4 {
	case 4:
		if len(p) < 20 {
			return false
		}
		ihl := int(p[0]&0x0f) * 4
		if ihl < 20 || len(p) < ihl {
			return false
		}
		src, proto, l4 = netip.AddrFrom4([4]byte(p[12:16])), p[9], p[ihl:]
	case 6:
		if len(p) < 40 {
			return false
		}
		src, proto, l4 = netip.AddrFrom16([16]byte(p[8:24])), p[6], p[40:]
	default:
		return false
	}
	ev.length = len(p)
	switch {
	case proto == unix.IPPROTO_TCP:
		// RST|ACK, sequence number 0: the reset of a SYN (the rule
		// matched it; checked again so the parser stands alone).
		if len(l4) < 14 || l4[13]&tcpFlags != tcpRST|tcpACK || binary.BigEndian.Uint32(l4[4:8]) != 0 {
			return false
		}
		ev.dst, ev.proto, ev.port = src, "tcp", binary.BigEndian.Uint16(l4[0:2])
		return true
	case proto == unix.IPPROTO_ICMP && p[0]>>4 == 4 && len(l4) >= 8 && l4[0] == 3 && l4[1] == 3,
		proto == unix.IPPROTO_ICMPV6 && p[0]>>4 == 6 && len(l4) >= 8 && l4[0] == 1 && l4[1] == 4:
		inner := l4[8:]
		var tried packetEvent
		if !parseIPPacket(inner, &tried) || tried.dst != src {
			return false
		}
		if tried.proto != "udp" && tried.proto != "udplite" {
			return false
		}
		if sport, ok := udpSourcePort(inner); ok && sport == 53 {
			return false
		}
		ev.dst, ev.proto, ev.port = tried.dst, tried.proto, tried.port
		return true
	}
	return false
}

// udpSourcePort is the source port of a UDP datagram whose header follows
// the IP header directly.
func udpSourcePort(p []byte) (uint16, bool) {
	var off int
	switch {
	case len(p) >= 20 && p[0]>>4 == 4 && p[9] == unix.IPPROTO_UDP:
		off = int(p[0]&0x0f) * 4
	case len(p) >= 40 && p[0]>>4 == 6 && p[6] == unix.IPPROTO_UDP:
		off = 40
	default:
		return 0, false
	}
	if len(p) < off+2 {
		return 0, false
	}
	return binary.BigEndian.Uint16(p[off : off+2]), true
}

// l4Name names a transport protocol and says whether its header starts
// with the source and destination ports, as TCP's and UDP's do. UDP-Lite
// needs no privilege (a SOCK_DGRAM socket of protocol IPPROTO_UDPLITE), so
// its destination port is recorded as UDP's is; SCTP and DCCP, where the
// kernel has them, likewise.
func l4Name(p byte) (string, bool) {
	switch p {
	case unix.IPPROTO_TCP:
		return "tcp", true
	case unix.IPPROTO_UDP:
		return "udp", true
	case unix.IPPROTO_UDPLITE:
		return "udplite", true
	case unix.IPPROTO_SCTP:
		return "sctp", true
	case unix.IPPROTO_DCCP:
		return "dccp", true
	case unix.IPPROTO_ICMP, unix.IPPROTO_ICMPV6:
		return "icmp", false
	}
	return fmt.Sprintf("ip-proto-%d", p), false
}

// routingHeaderDst is the final destination an IPv6 routing header names:
// the last address of a type 0 or 2 header (the kernel moves the
// destination the command gave there and puts the first hop in the IPv6
// header), the first segment of a segment routing header (type 4, where the
// segments are listed last one first). false when h is another type or is
// cut short, and when no segment is left (h[3], segments left, 0): the
// packet goes no further than the IPv6 header's destination. (The kernel
// puts the command's segments[segments left] there and the address it
// connected to in segments[0], which a header with none left never
// reaches: recorded as the destination, it named a host the packet never
// went to, and not the one it did.)
func routingHeaderDst(h []byte) (netip.Addr, bool) {
	if len(h) < 8 || h[3] == 0 {
		return netip.Addr{}, false
	}
	n := int(h[1]) / 2 // addresses in the header
	var at int
	switch h[2] {
	case 0, 2:
		at = 8 + (n-1)*16
	case 4:
		at = 8
	default:
		return netip.Addr{}, false
	}
	if n < 1 || len(h) < at+16 {
		return netip.Addr{}, false
	}
	return netip.AddrFrom16([16]byte(h[at : at+16])), true
}

// sourceRouteDst is the final destination an IPv4 loose or strict source
// route option names (the last address of the option's route data, where
// the kernel puts the destination the command gave, with the first hop in
// the IPv4 header). opts are the header's options.
func sourceRouteDst(opts []byte) (netip.Addr, bool) {
	for i := 0; i < len(opts); {
		switch opts[i] {
		case 0: // end of options
			return netip.Addr{}, false
		case 1: // no operation
			i++
			continue
		}
		if i+1 >= len(opts) {
			return netip.Addr{}, false
		}
		l := int(opts[i+1])
		if l < 2 || i+l > len(opts) {
			return netip.Addr{}, false
		}
		if (opts[i] == ipoptLSRR || opts[i] == ipoptSSRR) && l >= 7 {
			return netip.AddrFrom4([4]byte(opts[i+l-4 : i+l])), true
		}
		i += l
	}
	return netip.Addr{}, false
}

func trimNUL(b []byte) []byte {
	for i, c := range b {
		if c == 0 {
			return b[:i]
		}
	}
	return b
}
