package egress

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"github.com/google/nftables"
	"golang.org/x/net/dns/dnsmessage"
	"golang.org/x/sys/unix"

	"github.com/vigiles/action/pkg/evidence"
)

const (
	dnsUpstreamTimeout = 3 * time.Second
	dnsMaxInflight     = 64
	dnsUDPMax          = 512
	// dnsTCPQueue bounds the questions of one TCP connection waiting for
	// their answers; a question beyond it is recorded and not answered.
	dnsTCPQueue = 256
)

// wallWriter adds addresses to the allow sets as the stub answers.
type wallWriter struct {
	mu   sync.Mutex
	conn *nftables.Conn
	rs   *ruleset
}

// admit adds a to the sets for the allow rules that matched its name. It
// returns only once the kernel holds the elements, so the answer the
// command gets can never race its own first packet.
func (w *wallWriter) admit(a netip.Addr, rules []allowRule) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	plain, ported := setAllow4, setAllowP4
	if a.Is6() {
		plain, ported = setAllow6, setAllowP6
	}
	var pe []nftables.SetElement
	anyPort := false
	for _, r := range rules {
		if r.port == 0 {
			anyPort = true
			continue
		}
		for _, l4 := range []byte{unix.IPPROTO_TCP, unix.IPPROTO_UDP} {
			pe = append(pe, nftables.SetElement{Key: elemKey(a, l4, r.port)})
		}
	}
	if anyPort {
		if err := w.conn.SetAddElements(w.rs.sets[plain], []nftables.SetElement{{Key: elemKey(a, 0, 0)}}); err != nil {
			return err
		}
	}
	if len(pe) > 0 {
		if err := w.conn.SetAddElements(w.rs.sets[ported], pe); err != nil {
			return err
		}
	}
	if err := w.conn.Flush(); err != nil {
		return fmt.Errorf("adding %s to the allow set: %w", a, err)
	}
	return nil
}

// dnsStub answers the command's DNS on loopback.
type dnsStub struct {
	pol  *policy
	rec  *recorder
	wall *wallWriter // nil unless allow mode
	// discards is the session's watch of destroyed sockets, for the TCP
	// listeners (nil: none could be had).
	discards *discardWatch
	logf     func(string, ...any)

	// host holds the host's own addresses (Session.HostAddrs): each
	// interface address, and each range the host's routing tables deliver
	// locally (`ip route add local 192.0.2.0/24 dev lo`); nil until the
	// init hands them over, before the command starts.
	host atomic.Pointer[[]netip.Prefix]

	sem  chan struct{} // UDP questions in flight
	udp  []*net.UDPConn
	tcp  []*stream
	wg   sync.WaitGroup
	lost int // UDP questions the kernel dropped (full receive queue)
}

// dnsRecvBuf is the stub's UDP receive buffer: room for thousands of
// questions sent in a burst before it reads them.
const dnsRecvBuf = 4 << 20

// dnsDrainMax bounds how long stop waits for the queued questions.
const dnsDrainMax = 2 * time.Second

// start listens on each of addrs, UDP and TCP. An unspecified address
// (0.0.0.0:53, [::]:53) takes every question sent to an address of the
// namespace: each answer leaves from the address its question was sent to.
func (s *dnsStub) start(addrs []string) error {
	s.sem = make(chan struct{}, dnsMaxInflight)
	for _, a := range addrs {
		ap, err := netip.ParseAddrPort(a)
		if err != nil {
			s.stop()
			return fmt.Errorf("starting the dns stub: %w", err)
		}
		family := "4"
		if ap.Addr().Is6() {
			family = "6"
		}
		lc := net.ListenConfig{}
		if ap.Addr().IsUnspecified() {
			lc.Control = recvDest
		}
		c, err := lc.ListenPacket(context.Background(), "udp"+family, a)
		if err != nil {
			s.stop()
			return fmt.Errorf("starting the dns stub on udp %s: %w", a, err)
		}
		pc := c.(*net.UDPConn)
		s.udp = append(s.udp, pc)
		setRecvBuf(pc, dnsRecvBuf)
		s.wg.Add(1)
		go s.serveUDP(pc, ap.Addr().IsUnspecified())
		st, err := listenStream("tcp"+family, a, s.serveTCP, s.discards, s.logf)
		if err != nil {
			s.stop()
			return fmt.Errorf("starting the dns stub on tcp %s: %w", a, err)
		}
		s.tcp = append(s.tcp, st)
	}
	return nil
}

// recvDest asks for each datagram's destination address (IP_PKTINFO,
// IPV6_RECVPKTINFO), for an unspecified listener to answer from it.
func recvDest(network, _ string, rc syscall.RawConn) error {
	var serr error
	err := rc.Control(func(fd uintptr) {
		if network == "udp6" {
			serr = unix.SetsockoptInt(int(fd), unix.IPPROTO_IPV6, unix.IPV6_RECVPKTINFO, 1)
		} else {
			serr = unix.SetsockoptInt(int(fd), unix.IPPROTO_IP, unix.IP_PKTINFO, 1)
		}
	})
	if err != nil {
		return err
	}
	if serr != nil {
		return fmt.Errorf("asking for each question's destination: %w", serr)
	}
	return nil
}

// replyFrom turns the control messages of a datagram received on an
// unspecified listener into those that send its answer from the address
// the question went to (the kernel would otherwise pick a source of its
// own, and the client drop the answer as coming from elsewhere); nil when
// they name none.
func replyFrom(oob []byte) []byte {
	msgs, err := unix.ParseSocketControlMessage(oob)
	if err != nil {
		return nil
	}
	for _, m := range msgs {
		switch {
		case m.Header.Level == unix.IPPROTO_IP && m.Header.Type == unix.IP_PKTINFO && len(m.Data) >= unix.SizeofInet4Pktinfo:
			in := (*unix.Inet4Pktinfo)(unsafe.Pointer(&m.Data[0]))
			return unix.PktInfo4(&unix.Inet4Pktinfo{Spec_dst: in.Addr})
		case m.Header.Level == unix.IPPROTO_IPV6 && m.Header.Type == unix.IPV6_PKTINFO && len(m.Data) >= unix.SizeofInet6Pktinfo:
			in := (*unix.Inet6Pktinfo)(unsafe.Pointer(&m.Data[0]))
			return unix.PktInfo6(&unix.Inet6Pktinfo{Addr: in.Addr})
		}
	}
	return nil
}

// stop waits (a little) until every question the command queued has been
// read, counts the ones the kernel dropped, reads every TCP connection to
// its end (stream.stop), and closes the stub. Every question is recorded,
// or lost or tcpLost counts it.
func (s *dnsStub) stop() {
	deadline := time.Now().Add(dnsDrainMax)
	for _, pc := range s.udp {
		for {
			q, drops, ok := udpSocketStats(pc)
			if !ok {
				break
			}
			if q == 0 || !time.Now().Before(deadline) {
				s.lost += drops
				if q > 0 {
					s.lost++ // still queued at the end: at least one question unread
				}
				break
			}
			time.Sleep(time.Millisecond)
		}
	}
	var wg sync.WaitGroup
	for _, st := range s.tcp {
		wg.Add(1)
		go func() {
			defer wg.Done()
			st.stop()
		}()
	}
	wg.Wait()
	for _, pc := range s.udp {
		pc.Close()
	}
	s.wg.Wait()
}

// tcpLost counts the TCP connections not read to their end, or cut short
// inside a message (see stream); final once stop has returned.
func (s *dnsStub) tcpLost() lostConns {
	var n lostConns
	for _, st := range s.tcp {
		n = n.add(st.lostCounts())
	}
	return n
}

// setRecvBuf sets a socket's receive buffer past net.core.rmem_max where
// the caller may (CAP_NET_ADMIN in the namespace), else as large as it is
// allowed.
func setRecvBuf(c net.PacketConn, n int) {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return
	}
	_ = rc.Control(func(fd uintptr) { setRecvBufFD(fd, n) })
}

func setRecvBufFD(fd uintptr, n int) {
	if unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_RCVBUFFORCE, n) != nil {
		_ = unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_RCVBUF, n)
	}
}

// udpSocketStats reads a UDP socket's receive queue (bytes the kernel holds
// for it) and drop count, from the socket itself (SO_MEMINFO). Reading them
// from /proc/net/udp and udp6 walked every bucket of the kernel's UDP
// table, 0.1-0.2 ms a read, three reads at every stop.
func udpSocketStats(c net.PacketConn) (queued, drops int, ok bool) {
	sc, isConn := c.(syscall.Conn)
	if !isConn {
		return 0, 0, false
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return 0, 0, false
	}
	var mi [unix.SK_MEMINFO_VARS]uint32
	_ = rc.Control(func(fd uintptr) {
		n := uint32(unsafe.Sizeof(mi))
		_, _, e := unix.Syscall6(unix.SYS_GETSOCKOPT, fd, unix.SOL_SOCKET, unix.SO_MEMINFO,
			uintptr(unsafe.Pointer(&mi[0])), uintptr(unsafe.Pointer(&n)), 0)
		ok = e == 0 && n >= (unix.SK_MEMINFO_DROPS+1)*4
	})
	return int(mi[unix.SK_MEMINFO_RMEM_ALLOC]), int(mi[unix.SK_MEMINFO_DROPS]), ok
}

// dnsUDPReadMax is the largest datagram the stub reads whole: the largest
// UDP payload there is. A message may carry thousands of questions, and
// every one is recorded; a smaller buffer cut the datagram short and the
// questions behind the cut went unrecorded, unnoticed.
const dnsUDPReadMax = 65535

func (s *dnsStub) serveUDP(pc *net.UDPConn, wildcard bool) {
	defer s.wg.Done()
	rb := make([]byte, dnsUDPReadMax)
	var ob []byte
	if wildcard {
		ob = make([]byte, 128)
	}
	for {
		n, oobn, _, from, err := pc.ReadMsgUDPAddrPort(rb, ob)
		if err != nil {
			return
		}
		msg := append([]byte(nil), rb[:n]...)
		var src []byte
		if wildcard {
			src = replyFrom(ob[:oobn])
		}
		s.sem <- struct{}{}
		s.wg.Add(1)
		go func() {
			defer func() { <-s.sem; s.wg.Done() }()
			// Recorded in any case; answered only from where the question
			// went (the kernel always says where on an unspecified
			// listener).
			if out := s.answer(msg); out != nil && (!wildcard || src != nil) {
				_, _, _ = pc.WriteMsgUDPAddrPort(out, src, from)
			}
		}()
	}
}

// serveTCP reads one TCP connection's questions to its end, recording
// each as it is read; another goroutine answers them, so a client that
// does not read its answers (or an upstream that is slow) never stops the
// reading. A message cut short by the end of the connection is recorded
// if its question is whole, and counted lost all the same.
func (s *dnsStub) serveTCP(c *streamConn) {
	qs := make(chan tcpQuestion, dnsTCPQueue)
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.answerTCP(c, qs)
	}()
	defer func() {
		close(qs)
		<-done
	}()
	br := bufio.NewReaderSize(c, 2048)
	for {
		var l [2]byte
		if n, err := io.ReadFull(br, l[:]); err != nil {
			if n > 0 {
				c.lose()
			}
			return
		}
		size := int(binary.BigEndian.Uint16(l[:]))
		// Read as it comes, not into size bytes made ahead: a length
		// is only what the client claims.
		var buf bytes.Buffer
		_, err := buf.ReadFrom(io.LimitReader(br, int64(size)))
		msg := buf.Bytes()
		whole := err == nil && len(msg) == size
		q, perr := parseQuery(msg)
		switch {
		case perr == nil:
			s.note(s.rec.now(), q, msg)
		case whole:
			// A message cut short by the end of the connection is
			// counted lost below, not taken for a malformed one.
			s.rec.add(s.rec.now(), malformedQuery(q, perr))
		}
		if !whole {
			c.lose()
			return
		}
		tq := tcpQuestion{q: q}
		if perr != nil {
			if tq.formErr = formErr(msg, q); tq.formErr == nil {
				continue // recorded; nothing to answer
			}
		}
		select {
		case qs <- tq:
		default: // recorded, not answered
		}
	}
}

// tcpQuestion is a message serveTCP read whole, for answerTCP to answer:
// its first question, or formErr's answer to a message that is no query
// the stub can read.
type tcpQuestion struct {
	q       dnsQuestion
	formErr []byte
}

// answerTCP answers the questions serveTCP queues until one answer cannot
// be written (then it only empties the queue) or stop begins.
func (s *dnsStub) answerTCP(c *streamConn, qs <-chan tcpQuestion) {
	ok := true
	for tq := range qs {
		if !ok || c.draining() {
			continue
		}
		out := tq.formErr
		if out == nil {
			out = s.respond(tq.q, false)
		}
		if c.answer(append(binary.BigEndian.AppendUint16(nil, uint16(len(out))), out...)) != nil {
			ok = false
		}
	}
}

// answer handles one query over UDP: it records every question and
// answers the first, or records a message that is no query it can read
// and answers it FORMERR (formErr); nil means no answer.
func (s *dnsStub) answer(msg []byte) []byte {
	q, err := parseQuery(msg)
	if err != nil {
		s.rec.add(s.rec.now(), malformedQuery(q, err))
		return formErr(msg, q)
	}
	s.note(s.rec.now(), q, msg)
	return s.respond(q, true)
}

// malformedQuery is the entry of a message sent to the stub that is no
// query it can read (perr, parseQuery's error; q, what it read): a name
// over 255 bytes, a label that is none, a message cut short, one with no
// question or shorter than a header, a response. It is an attempt (a hook
// probing, data sent over DNS), recorded as the proxy records a request
// line it cannot read: no host, and a detail that says what was wrong and,
// where part of the first question's name could be read, that part,
// written as the stub writes a name.
func malformedQuery(q dnsQuestion, perr error) evidence.Egress {
	d := "malformed query: " + strings.TrimSuffix(perr.Error(), ": "+ErrBadDNS.Error())
	if q.Name != "" {
		d += ": " + q.Name[:min(len(q.Name), maxRecorded)]
	}
	return evidence.Egress{Proto: "dns", Via: evidence.ViaDNS, Detail: d}
}

// formErr is the stub's answer to a message that is no query it can read:
// FORMERR (RFC 1035 4.1.1) with the message's ID and no question. None
// to a message shorter than a header, whose ID is unknown, nor to a
// response (an answer to it could start a loop between two resolvers).
func formErr(msg []byte, q dnsQuestion) []byte {
	if len(msg) < 12 || q.Flags&0x8000 != 0 {
		return nil
	}
	return rcodeOnly(dnsQuestion{ID: q.ID, Flags: q.Flags}, dnsmessage.RCodeFormatError)
}

// rules are the allow rules q's name matches (none but in allow mode).
func (s *dnsStub) rules(q dnsQuestion) []allowRule {
	if s.wall == nil || !q.LDH {
		return nil
	}
	return s.pol.allowedName(q.Name)
}

// note records every question of the query msg (q is its first), as
// allowed when the name is on the allowlist. Only the first is ever
// answered or forwarded.
func (s *dnsStub) note(at time.Time, q dnsQuestion, msg []byte) {
	s.rec.add(at, evidence.Egress{Host: q.Name, Proto: "dns", Via: evidence.ViaDNS, Allowed: len(s.rules(q)) > 0})
	read := 1
	for o := range moreQuestions(msg) {
		s.rec.add(at, evidence.Egress{Host: o.Name, Proto: "dns", Via: evidence.ViaDNS, Allowed: len(s.rules(o)) > 0})
		read++
	}
	if n := int(binary.BigEndian.Uint16(msg[4:6])); n > read {
		// What follows the questions read is no question: the message
		// counts more than it holds, or holds one that cannot be read.
		s.rec.add(at, evidence.Egress{Proto: "dns", Via: evidence.ViaDNS,
			Detail: fmt.Sprintf("malformed query: %d of its %d questions could not be read", n-read, n)})
	}
}

// respond answers q (already recorded by note).
func (s *dnsStub) respond(q dnsQuestion, udp bool) []byte {
	rules := s.rules(q)
	if len(rules) == 0 {
		// Off the list (or not allow mode): answered here, never
		// forwarded.
		return rcodeOnly(q, dnsmessage.RCodeNameError)
	}
	// The name is on the list. What its answer held is recorded
	// separately: refused addresses here, and the connects the wall sees.
	now := time.Now()
	out, refused, err := s.forward(q, rules, udp)
	for _, r := range refused {
		s.rec.add(now, evidence.Egress{Host: q.Name, IP: r.addr.String(), Proto: "dns", Via: evidence.ViaDNS,
			Detail: refusedDetail(r.why)})
	}
	if err != nil {
		s.logf("egress: dns: forwarding a question for an allowed name: %v", err)
		s.rec.add(now, evidence.Egress{Host: q.Name, Proto: "dns", Via: evidence.ViaDNS, Allowed: true,
			Detail: "upstream failed"})
		return rcodeOnly(q, dnsmessage.RCodeServerFailure)
	}
	return out
}

// whyOtherName is the refusal of an address record whose owner is
// neither the question's name nor an alias the answer's CNAMEs lead it to.
const whyOtherName = "other name"

// aliasChain is the set of names (lower case, with the final dot) whose
// address records answer the question for name: name itself and each
// alias the answer's CNAME records lead it to, in any order.
func aliasChain(name string, answers []dnsmessage.Resource) map[string]bool {
	chain := map[string]bool{strings.ToLower(strings.TrimSuffix(name, ".") + "."): true}
	for grew := true; grew; {
		grew = false
		for _, rr := range answers {
			c, ok := rr.Body.(*dnsmessage.CNAMEResource)
			if !ok || !chain[strings.ToLower(rr.Header.Name.String())] {
				continue
			}
			if t := strings.ToLower(c.CNAME.String()); !chain[t] {
				chain[t], grew = true, true
			}
		}
	}
	return chain
}

// refusedDetail is the detail of an address refused in an allowlisted
// name's answer (why: answerRefusal's reason). The record is shown by
// vigiles run, where an address range is allowed with --allow-ip, and by
// test and audit, which have no such flag: there it goes under
// defaults.egress.allow-ip in the policy file. The detail names both,
// but for a loopback address, which no allow admits: the sandbox's
// loopback is its own, and the host's is reached by no allow.
func refusedDetail(why string) string {
	if why == whyOtherName {
		return "answer refused: an address of another name than the question's (no CNAME in the answer leads there)"
	}
	if why == "loopback" {
		return "answer refused: loopback address (the sandbox's loopback is its own, and no allow reaches the host's)"
	}
	return "answer refused: " + why + " address (allow it with --allow-ip for vigiles run, defaults.egress.allow-ip in the policy for test and audit)"
}

type refusal struct {
	addr netip.Addr
	why  string
}

// answerRefusal says why a, an address in the upstream's answer for an
// allowlisted name, is kept out of the answer and the wall; "" when it is
// admitted. Besides the ranges refusedAddr names, an address of the host
// itself is refused: through slirp4netns or pasta a connection to it comes
// from the host, so it reaches whatever listens there on that address or
// on all of them, as no connection from outside could. Each address the
// answer is judged as (judgedAs: itself, and the IPv4 addresses NAT64, a
// tunnel or a translator takes it to) is refused unless an --allow-ip
// range covers it; a range that covers the answer itself admits it.
func (s *dnsStub) answerRefusal(a netip.Addr) string {
	if s.pol.coveredByAllowIP(a) {
		return ""
	}
	h := s.host.Load()
	for _, x := range judgedAs(a) {
		why := refusedAddr(x)
		if why == "" && h != nil && slices.ContainsFunc(*h, func(p netip.Prefix) bool { return p.Contains(x) }) {
			why = "host"
		}
		if why != "" && !s.pol.coveredByAllowIP(x) {
			return why
		}
	}
	return ""
}

// setHost makes addrs (addresses and locally delivered ranges) the host's
// addresses answerRefusal refuses.
func (s *dnsStub) setHost(addrs []netip.Prefix) {
	m := make([]netip.Prefix, 0, len(addrs))
	for _, p := range addrs {
		a := p.Addr()
		bits := p.Bits()
		if a.Is4In6() {
			bits -= 96
			if bits < 0 {
				bits = 0
			}
		}
		m = append(m, netip.PrefixFrom(a.Unmap().WithZone(""), bits).Masked())
	}
	s.host.Store(&m)
}

// forward asks the upstream, admits the acceptable addresses into the wall
// and returns the answer for the command.
func (s *dnsStub) forward(q dnsQuestion, rules []allowRule, udp bool) ([]byte, []refusal, error) {
	if !s.pol.upstream.IsValid() {
		return nil, nil, errors.New("no upstream resolver (set --dns-upstream)")
	}
	name, err := dnsmessage.NewName(q.Name + ".")
	if err != nil {
		return nil, nil, err
	}
	question := dnsmessage.Question{Name: name, Type: dnsmessage.Type(q.Type), Class: dnsmessage.Class(q.Class)}
	resp, err := exchange(s.pol.upstream, question)
	if err != nil {
		return nil, nil, err
	}
	var refused []refusal
	var kept []dnsmessage.Resource
	sawAddr := false
	chain := aliasChain(q.Name, resp.Answers)
	for _, rr := range resp.Answers {
		var a netip.Addr
		switch b := rr.Body.(type) {
		case *dnsmessage.AResource:
			a = netip.AddrFrom4(b.A)
		case *dnsmessage.AAAAResource:
			a = netip.AddrFrom16(b.AAAA).Unmap()
		default:
			kept = append(kept, rr)
			continue
		}
		sawAddr = true
		if !chain[strings.ToLower(rr.Header.Name.String())] {
			// An address of another name (evil.test A … in the answer
			// for cname.test, with no CNAME leading there): no resolver
			// takes it for the question's, and admitted it would open
			// the wall to it under the allowed name.
			refused = append(refused, refusal{a, whyOtherName})
			continue
		}
		if why := s.answerRefusal(a); why != "" {
			refused = append(refused, refusal{a, why})
			s.rec.nameAddr(a, q.Name, nil)
			continue
		}
		if err := s.wall.admit(a, rules); err != nil {
			return nil, refused, err
		}
		s.rec.nameAddr(a, q.Name, rules)
		kept = append(kept, rr)
	}
	hasAddr := false
	for _, rr := range kept {
		switch rr.Body.(type) {
		case *dnsmessage.AResource, *dnsmessage.AAAAResource:
			hasAddr = true
		}
	}
	if sawAddr && !hasAddr {
		return rcodeOnly(q, dnsmessage.RCodeRefused), refused, nil
	}
	resp.Header.ID = q.ID
	resp.Header.Response = true
	resp.Header.RecursionDesired = q.Flags&0x0100 != 0
	resp.Header.RecursionAvailable = true
	resp.Header.Authoritative = false
	resp.Header.Truncated = false
	resp.Questions = []dnsmessage.Question{question}
	resp.Answers = kept
	resp.Authorities, resp.Additionals = nil, nil
	out, err := resp.Pack()
	if err != nil {
		return nil, refused, fmt.Errorf("packing the answer: %w", err)
	}
	if udp && len(out) > dnsUDPMax {
		resp.Header.Truncated = true
		resp.Answers = nil
		if out, err = resp.Pack(); err != nil {
			return nil, refused, err
		}
	}
	return out, refused, nil
}

// exchange sends one question to the upstream from a socket marked
// dnsMark (the only traffic the allow-mode wall lets reach it), over UDP
// and over TCP when the answer is truncated.
func exchange(up netip.AddrPort, q dnsmessage.Question) (*dnsmessage.Message, error) {
	var idb [2]byte
	if _, err := io.ReadFull(randReader, idb[:]); err != nil {
		return nil, err
	}
	id := binary.BigEndian.Uint16(idb[:])
	b := dnsmessage.NewBuilder(nil, dnsmessage.Header{ID: id, RecursionDesired: true})
	b.EnableCompression()
	_ = b.StartQuestions()
	_ = b.Question(q)
	_ = b.StartAdditionals()
	var opt dnsmessage.ResourceHeader
	_ = opt.SetEDNS0(1232, dnsmessage.RCodeSuccess, false)
	_ = b.OPTResource(opt, dnsmessage.OPTResource{})
	query, err := b.Finish()
	if err != nil {
		return nil, err
	}
	d := net.Dialer{Timeout: dnsUpstreamTimeout, Control: markSocket}
	ctx, cancel := context.WithTimeout(context.Background(), dnsUpstreamTimeout)
	defer cancel()
	for _, network := range []string{"udp", "tcp"} {
		c, err := d.DialContext(ctx, network, up.String())
		if err != nil {
			return nil, fmt.Errorf("dialing upstream %s over %s: %w", up, network, err)
		}
		// An address of the namespace itself (a connector's, or the
		// host's own that pasta copies in) is one the command could
		// answer from: the kernel picks it as the source of a route to
		// itself.
		if local, ok := c.LocalAddr().(interface{ AddrPort() netip.AddrPort }); ok && local.AddrPort().Addr().Unmap() == up.Addr() {
			c.Close()
			return nil, fmt.Errorf("upstream %s is an address of the sandbox itself, where the command could answer; not asking it", up)
		}
		dl, _ := ctx.Deadline()
		_ = c.SetDeadline(dl)
		var raw []byte
		if network == "udp" {
			_, err = c.Write(query)
			buf := make([]byte, 65535)
			var n int
			if err == nil {
				n, err = c.Read(buf)
			}
			raw = buf[:n]
		} else {
			_, err = c.Write(append(binary.BigEndian.AppendUint16(nil, uint16(len(query))), query...))
			var l [2]byte
			if err == nil {
				_, err = io.ReadFull(c, l[:])
			}
			if err == nil {
				raw = make([]byte, binary.BigEndian.Uint16(l[:]))
				_, err = io.ReadFull(c, raw)
			}
		}
		c.Close()
		if err != nil {
			return nil, fmt.Errorf("asking upstream %s over %s: %w", up, network, err)
		}
		var m dnsmessage.Message
		if err := m.Unpack(raw); err != nil {
			return nil, fmt.Errorf("reading the upstream answer: %w", err)
		}
		if m.Header.ID != id || !m.Header.Response || len(m.Questions) != 1 ||
			!strings.EqualFold(m.Questions[0].Name.String(), q.Name.String()) || m.Questions[0].Type != q.Type {
			return nil, errors.New("upstream answer does not match the question")
		}
		if m.Header.Truncated && network == "udp" {
			continue
		}
		return &m, nil
	}
	return nil, errors.New("upstream answer truncated over tcp")
}

func markSocket(_, _ string, rc syscall.RawConn) error {
	var serr error
	err := rc.Control(func(fd uintptr) {
		serr = unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_MARK, dnsMark)
	})
	if err != nil {
		return err
	}
	if serr != nil {
		return fmt.Errorf("setting SO_MARK on the dns stub's upstream socket: %w", serr)
	}
	return nil
}

// rcodeOnly answers q with rcode and no records, echoing the question when
// it can.
func rcodeOnly(q dnsQuestion, rcode dnsmessage.RCode) []byte {
	flags := uint16(0x8000) | q.Flags&0x0100 | 0x0080 | uint16(rcode)&0x000f // QR, RD copied, RA
	qd := uint16(0)
	if q.Raw != nil {
		qd = 1
	}
	out := make([]byte, 12, 12+len(q.Raw))
	binary.BigEndian.PutUint16(out[0:], q.ID)
	binary.BigEndian.PutUint16(out[2:], flags)
	binary.BigEndian.PutUint16(out[4:], qd)
	return append(out, q.Raw...)
}
