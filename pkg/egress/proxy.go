package egress

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/vigiles/action/pkg/evidence"
)

// ErrBadRequest is wrapped by every error parseRequestLine returns.
var ErrBadRequest = errors.New("malformed proxy request")

const (
	// proxyMaxLine is the longest request or header line read whole; of a
	// longer one the first proxyMaxLine bytes are kept.
	proxyMaxLine = 64 << 10
	// proxyMaxHeaders is how many header lines of a request are looked
	// at for the framing of its body; the rest are read and passed over
	// (but for the first Host header, wherever it stands).
	proxyMaxHeaders = 100
	maxRecorded     = 1024 // longest host or detail kept in a record
	// proxyMaxHostHeaders is how many Host headers of one request are
	// kept to be named; a request with more is named by these.
	proxyMaxHostHeaders = 8
)

// proxyRequest is what the recording proxy learns from a request line.
type proxyRequest struct {
	Method string
	// Host is the target host (IPv6 literals without brackets), empty for
	// an origin-form request (then the Host header names it).
	Host string
	Port int
	// Path is the request path without query or fragment ("" for CONNECT).
	Path string
}

// parseRequestLine parses "METHOD TARGET HTTP/1.x" as a forward proxy
// sees it: CONNECT with an authority (IPv6 literals in brackets), or an
// absolute URI (the scheme's default port when none is given), or an
// origin-form path.
func parseRequestLine(line string) (proxyRequest, error) {
	var r proxyRequest
	method, rest, ok1 := strings.Cut(line, " ")
	target, version, ok2 := strings.Cut(rest, " ")
	if !ok1 || !ok2 || method == "" || target == "" {
		return r, fmt.Errorf("request line has not three fields: %w", ErrBadRequest)
	}
	if !strings.HasPrefix(version, "HTTP/1.") || len(version) != len("HTTP/1.1") {
		return r, fmt.Errorf("version %q: %w", clip(version), ErrBadRequest)
	}
	for i := 0; i < len(method); i++ {
		if c := method[i]; !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0) {
			return r, fmt.Errorf("method has character %q: %w", c, ErrBadRequest)
		}
	}
	r.Method = method
	if method == "CONNECT" {
		host, port, err := splitHostPort(target)
		if err != nil {
			return r, err
		}
		r.Host, r.Port = host, port
		return r, nil
	}
	if strings.HasPrefix(target, "/") {
		r.Path = stripQuery(target)
		return r, nil
	}
	u, err := url.Parse(target)
	if err != nil || u.Host == "" {
		return r, fmt.Errorf("target is neither an absolute URI nor a path: %w", ErrBadRequest)
	}
	// A colon in a host is an IPv6 literal's, in brackets, or nothing a
	// client reaches: url.Parse (as this module's go line has it read)
	// split http://2001:db8::1/ at its last colon into a host 2001:db8:
	// and port 1, which the record named as a destination.
	if bracketed := strings.HasPrefix(u.Host, "["); bracketed || strings.Contains(u.Hostname(), ":") {
		if _, err := netip.ParseAddr(u.Hostname()); err != nil || !bracketed {
			return r, fmt.Errorf("host %q is no name and no IPv6 literal in brackets: %w", clip(u.Host), ErrBadRequest)
		}
	}
	defaults := map[string]int{"http": 80, "https": 443, "ws": 80, "wss": 443, "ftp": 21}
	scheme := strings.ToLower(u.Scheme)
	r.Host = lowerASCII(u.Hostname())
	if p := u.Port(); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 {
			return r, fmt.Errorf("port %q: %w", clip(p), ErrBadRequest)
		}
		r.Port = n
	} else if n, ok := defaults[scheme]; ok {
		r.Port = n
	} else {
		return r, fmt.Errorf("scheme %q without a port: %w", clip(scheme), ErrBadRequest)
	}
	if r.Host == "" {
		return r, fmt.Errorf("empty host: %w", ErrBadRequest)
	}
	r.Path = u.EscapedPath()
	if r.Path == "" {
		r.Path = "/"
	}
	return r, nil
}

// hostHeader reads the destination of an origin-form request from its
// Host header: an authority whose port is optional (80 when absent), an
// IPv6 literal in brackets with or without one.
func hostHeader(v string) (string, int, error) {
	v = strings.TrimSpace(v)
	switch {
	case strings.HasPrefix(v, "[") && strings.HasSuffix(v, "]") || !strings.Contains(v, ":"):
		v += ":80"
	case strings.HasSuffix(v, ":"):
		v += "80" // an empty port is the default's (RFC 3986)
	}
	host, port, err := splitHostPort(v)
	if err != nil {
		return "", 0, fmt.Errorf("Host header: %w", err)
	}
	return host, port, nil
}

// splitHostPort splits an authority; the port is required and 1-65535.
func splitHostPort(s string) (string, int, error) {
	host, port, err := net.SplitHostPort(s)
	if err != nil {
		return "", 0, fmt.Errorf("authority %q: %w", clip(s), ErrBadRequest)
	}
	n, err := strconv.Atoi(port)
	if err != nil || n < 1 || n > 65535 {
		return "", 0, fmt.Errorf("port %q: %w", clip(port), ErrBadRequest)
	}
	if host == "" {
		return "", 0, fmt.Errorf("empty host: %w", ErrBadRequest)
	}
	if i := strings.Index(host, "%25"); i >= 0 {
		// An IPv6 zone in a URI's host follows %25, its bytes
		// percent-encoded (RFC 6874), as url.Parse reads an absolute
		// URI's: [fe80::1%25eth0] is zone eth0 there and was zone
		// 25eth0 here.
		if z, err := url.PathUnescape(host[i+3:]); err == nil {
			if _, err := netip.ParseAddr(host[:i] + "%" + z); err == nil {
				host = host[:i] + "%" + z
			}
		}
	}
	if a, err := netip.ParseAddr(host); err == nil {
		host = a.String()
	}
	return lowerASCII(host), n, nil
}

// lowerASCII lowers the ASCII letters of s and leaves every other byte as
// it is, as the DNS stub does a name's: strings.ToLower lowers letters
// past ASCII too, and turns bytes that are not UTF-8 into U+FFFD, so that
// names that differ read as one.
func lowerASCII(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

func stripQuery(p string) string {
	if i := strings.IndexAny(p, "?#"); i >= 0 {
		return p[:i]
	}
	return p
}

// clip makes an untrusted string safe to print in an error or a record:
// printable ASCII only (anything else as \xHH), at most maxRecorded bytes.
func clip(s string) string {
	var b strings.Builder
	for i := 0; i < len(s) && b.Len() < maxRecorded; i++ {
		c := s[i]
		if c >= 0x20 && c < 0x7f && c != '\\' {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "\\x%02x", c)
		}
	}
	return b.String()
}

// proxy is the record mode's recording proxy: it records every request
// the command sends it, answers the first of each connection with 403
// "blocked by vigiles" (400 when malformed) and then ends its side of the
// connection, reading on until the command ends its own.
type proxy struct {
	st  *stream
	rec *recorder
}

func startProxy(addr string, rec *recorder, discards *discardWatch, logf func(string, ...any)) (*proxy, error) {
	p := &proxy{rec: rec}
	st, err := listenStream("tcp", addr, p.serve, discards, logf)
	if err != nil {
		return nil, fmt.Errorf("starting the recording proxy on %s: %w", addr, err)
	}
	p.st = st
	return p, nil
}

func (p *proxy) addr() string { return p.st.addr() }

// stop reads every connection to its end (stream.stop) and closes the
// proxy.
func (p *proxy) stop() { p.st.stop() }

// lost counts the connections whose requests were not all read (see
// stream); final once stop has returned.
func (p *proxy) lost() lostConns { return p.st.lostCounts() }

// serve reads one connection's requests to its end: request line,
// headers, and the body the headers announce (Content-Length, or chunked),
// which is passed over; a request line that cannot be parsed is recorded
// as malformed and the next line read as the next request's.
func (p *proxy) serve(c *streamConn) {
	br := bufio.NewReaderSize(c, 4096)
	var buf []byte
	answered, preface := false, false
	for {
		b, long, err := readLine(br, buf[:0])
		buf = b
		if len(b) == 0 && !long {
			if err != nil {
				return
			}
			continue // empty lines before a request line are allowed
		}
		line := string(b)
		if preface && line == h2PrefaceEnd {
			// The second half of HTTP/2's connection preface
			// ("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"): the attempt
			// was recorded at its first line.
			preface = false
			if err != nil {
				return
			}
			// A client follows the preface with its frames at once (a
			// SETTINGS frame first, RFC 9113 3.4): binary, no request
			// line, not an attempt of its own. Skipped while they read
			// as frames; text that does not (a request line) is read as
			// lines again.
			skipH2Frames(br)
			continue
		}
		preface = line == h2Preface
		req, perr := parseRequestLine(line)
		if long {
			perr = fmt.Errorf("request line longer than %d bytes: %w", proxyMaxLine, ErrBadRequest)
		}
		var h headers
		if err == nil {
			h, buf, err = readHeaders(br, buf)
		}
		// An absolute-form request: its URI names the host it is sent
		// to, and its Host headers the sites it asks that host for.
		absolute := perr == nil && req.Host != "" && req.Method != "CONNECT"
		if perr == nil && req.Host == "" && h.host != nil {
			req.Host, req.Port, perr = hostHeader(*h.host)
			if h.hosts > 1 {
				// Which one a server takes is its own choice (RFC 9112
				// 3.2 has it refuse the request): the first named one
				// host, and the others went unrecorded.
				perr = fmt.Errorf("%d Host headers: %w", h.hosts, ErrBadRequest)
			}
		}
		// Stamped once the request is read whole, when it is recorded: a
		// stamp taken at its first line would let the command hold its
		// headers back while other attempts fill the record's cap, and
		// the request, first in time, be lumped past them.
		at := p.rec.now()
		p.record(at, line, req, perr)
		if absolute {
			p.recordHostHeaders(at, req, h)
		}
		if !answered {
			answered = true
			if perr != nil {
				_ = c.answer(blocked(400, "Bad Request", "vigiles: malformed proxy request"))
			} else {
				_ = c.answer(blocked(403, "Forbidden", fmt.Sprintf("blocked by vigiles: egress to %s:%d is not allowed (egress mode record)", clip(req.Host), req.Port)))
			}
			_ = c.CloseWrite()
		}
		if err != nil {
			return
		}
		if req.Method != "CONNECT" {
			if buf, err = skipBody(br, h, buf); err != nil {
				return
			}
		}
	}
}

// HTTP/2's connection preface (RFC 9113 3.4) reads as two lines: a
// request line and, after an empty line, "SM". A client that speaks
// HTTP/2 to a proxy with prior knowledge sends it: one attempt, recorded
// once (malformed: a proxy takes HTTP/1 requests).
const (
	h2Preface    = "PRI * HTTP/2.0"
	h2PrefaceEnd = "SM"
)

// skipH2Frames passes over the empty line that ends HTTP/2's preface and
// the control frames a client sends right after it (RFC 9113 3.4: its
// SETTINGS first; WINDOW_UPDATE, PING and PRIORITY too), as long as what
// comes reads as one: a 9-octet header of one of those types with the
// length and stream that type has, the reserved bit clear. Their payloads
// are numbers, never a name. A HEADERS or DATA frame (which may carry a
// host name), or a request line (whose first octets read as no such
// header), is read as lines again and so recorded.
func skipH2Frames(br *bufio.Reader) {
	if b, err := br.Peek(2); err == nil && string(b) == "\r\n" {
		_, _ = br.Discard(2)
	} else if b, err := br.Peek(1); err == nil && b[0] == '\n' {
		_, _ = br.Discard(1)
	}
	for {
		h, err := br.Peek(9)
		if err != nil {
			return
		}
		n := int(h[0])<<16 | int(h[1])<<8 | int(h[2])
		stream := binary.BigEndian.Uint32(h[5:9])
		if stream&0x80000000 != 0 {
			return
		}
		switch h[3] {
		case 0x4: // SETTINGS
			if stream != 0 || n%6 != 0 || n > 16384 {
				return
			}
		case 0x8: // WINDOW_UPDATE
			if n != 4 {
				return
			}
		case 0x6: // PING
			if stream != 0 || n != 8 {
				return
			}
		case 0x2: // PRIORITY
			if stream == 0 || n != 5 {
				return
			}
		default:
			return
		}
		if _, err := br.Discard(9 + n); err != nil {
			return
		}
	}
}

// record records one request (or one malformed request line).
func (p *proxy) record(at time.Time, line string, req proxyRequest, perr error) {
	// A name's final dot (an absolute name) names the same host, as the
	// DNS stub records it; what is left may be an address ("192.0.2.9.")
	// or nothing (".").
	req.Host = strings.TrimSuffix(req.Host, ".")
	if perr == nil && req.Host == "" && (req.Method == "CONNECT" || req.Port != 0) {
		perr = fmt.Errorf("empty host: %w", ErrBadRequest)
	}
	if perr != nil {
		p.rec.add(at, evidence.Egress{Via: evidence.ViaProxy, Proto: "http", Detail: "malformed request: " + clip(stripQuery(line))})
		return
	}
	p.rec.add(at, requestEntry(req))
}

// recordHostHeaders records the sites an absolute-form request's Host
// headers ask for where they are not its URI's host (curl -H 'Host:
// evil.test' http://front.test/): without a proxy, as under Claude Code,
// the client connects to the URI's host and asks it for the Host header's
// site, which a server of many sites on one address (a CDN) answers as
// that site. Each is an entry of its own at the URI's port, its detail
// saying which request carried it. An origin-form request's first Host
// header is its destination already, and a CONNECT's reaches no server.
func (p *proxy) recordHostHeaders(at time.Time, req proxyRequest, h headers) {
	if len(h.hostVals) == 0 || req.Host == "" || req.Method == "CONNECT" {
		return
	}
	var seen []string // the hosts named so far, the URI's first
	to := ""
	for _, v := range h.hostVals {
		name := hostOfHeader(v)
		if name == "" {
			continue
		}
		if seen == nil {
			// A Host header that names the URI's host, the usual
			// request, costs no more than this comparison.
			uri := strings.TrimSuffix(req.Host, ".")
			if name == uri {
				continue
			}
			seen = append(seen, sameHost(uri))
		}
		k := sameHost(name)
		if slices.Contains(seen, k) {
			continue
		}
		seen = append(seen, k)
		if to == "" {
			main := requestEntry(proxyRequest{Method: req.Method, Host: strings.TrimSuffix(req.Host, "."), Port: req.Port, Path: req.Path})
			if to = main.Host; to == "" {
				to = main.IP
			}
		}
		e := requestEntry(proxyRequest{Method: req.Method, Host: name, Port: req.Port, Path: req.Path})
		e.Detail += fmt.Sprintf(" (asked for by its Host header of a request sent to %s port %d)", to, req.Port)
		if len(e.Detail) > maxRecorded {
			e.Detail = e.Detail[:maxRecorded]
		}
		p.rec.add(at, e)
	}
}

// hostOfHeader is the host a Host header's value names, without its port:
// an IPv6 literal without its brackets, a name without its final dot. A
// value that is no authority (a colon outside brackets more than once) is
// named whole, as a host the server is asked for.
func hostOfHeader(v string) string {
	v = strings.TrimSpace(v)
	if h, _, err := hostHeader(v); err == nil {
		// As an origin-form request's Host header is read (an IPv6
		// zone written as a URI writes it, RFC 6874).
		return strings.TrimSuffix(h, ".")
	}
	if strings.HasPrefix(v, "[") {
		if i := strings.IndexByte(v, ']'); i > 0 {
			return v[1:i]
		}
	}
	if i := strings.IndexByte(v, ':'); i >= 0 && strings.Count(v, ":") == 1 {
		v = v[:i]
	}
	return strings.TrimSuffix(lowerASCII(v), ".")
}

// sameHost is the form in which two hosts are compared: an address as
// the record writes it (IPv4-mapped as IPv4, loose IPv4 forms read), a
// name lowered without its final dot.
func sameHost(h string) string {
	h = strings.TrimSuffix(lowerASCII(h), ".")
	if a, err := netip.ParseAddr(h); err == nil {
		return a.WithZone("").Unmap().String()
	}
	if a, ok := evidence.LooseIPv4(h); ok {
		return a.String()
	}
	return h
}

// requestEntry is the record's entry of a request that names a host.
func requestEntry(req proxyRequest) evidence.Egress {
	e := evidence.Egress{Host: hostText(req.Host), Port: req.Port, Via: evidence.ViaProxy, Proto: "http",
		Detail: clip(req.Method + " " + req.Path)}
	if req.Method == "CONNECT" {
		e.Proto, e.Detail = "tcp", "CONNECT"
	}
	if a, err := netip.ParseAddr(req.Host); err == nil {
		// The zone of an IPv6 address is free text the command chose;
		// an IPv4-mapped address is the IPv4 one, as a connect names it.
		e.Host, e.IP = "", a.WithZone("").Unmap().String()
		if z := a.Zone(); z != "" {
			e.Detail += " (zone " + clip(z) + ")"
		}
	} else if a, ok := evidence.LooseIPv4(req.Host); ok {
		// 3221225992, 0xc0.0.2.9, 0300.0.2.10: the address a client's
		// parser (inet_aton, a URL parser) reaches, not a name.
		e.Host, e.IP = "", a.String()
		e.Detail += " (written " + clip(req.Host) + ")"
	}
	return e
}

func blocked(code int, status, msg string) []byte {
	body := msg + "\n"
	return fmt.Appendf(nil, "HTTP/1.1 %d %s\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: %d\r\nConnection: close\r\nX-Vigiles: blocked\r\n\r\n%s",
		code, status, len(body), body)
}

// readLine reads one line into buf[:0] and returns it without its CRLF or
// LF. Of a line longer than proxyMaxLine it returns the first proxyMaxLine
// bytes, long set, and reads the rest without keeping it. At the end of
// the stream it returns what it has with the error.
func readLine(br *bufio.Reader, buf []byte) (line []byte, long bool, err error) {
	line = buf[:0]
	for {
		frag, err := br.ReadSlice('\n')
		if room := proxyMaxLine + 2 - len(line); len(frag) > room {
			frag, long = frag[:room], true
		}
		line = append(line, frag...)
		if err == bufio.ErrBufferFull {
			continue
		}
		if long {
			return line[:proxyMaxLine], true, err
		}
		line = bytes.TrimSuffix(line, []byte("\n"))
		line = bytes.TrimSuffix(line, []byte("\r"))
		return line, false, err
	}
}

// headers is what the proxy takes from a request's header lines.
type headers struct {
	host  *string // the first Host header
	hosts int     // how many Host headers there are
	// hostVals are the first proxyMaxHostHeaders Host headers' values,
	// the first among them: the sites an absolute-form request asks its
	// URI's host for.
	hostVals []string
	// length is the body's length (Content-Length), -1 when none is
	// given; badLength says one given was not a length, or two differed.
	// chunked says the body is in chunks (the last transfer coding is
	// chunked), and te that a Transfer-Encoding was given at all (it
	// overrides Content-Length).
	length    int64
	badLength bool
	chunked   bool
	te        bool
}

// readHeaders reads header lines up to the empty line that ends them. A
// last line the end of the connection cuts short is read as the others
// are: "Host: x" and then the end names x.
func readHeaders(br *bufio.Reader, buf []byte) (headers, []byte, error) {
	h := headers{length: -1}
	for n := 0; ; n++ {
		b, _, err := readLine(br, buf[:0])
		buf = b
		if len(b) > 0 {
			h.take(b, n)
		}
		if len(b) == 0 || err != nil {
			return h, buf, err
		}
	}
}

// take reads the nth header line b of a request.
func (h *headers) take(b []byte, n int) {
	k, v, ok := bytes.Cut(b, []byte(":"))
	if !ok {
		return
	}
	k, v = bytes.TrimSpace(k), bytes.TrimSpace(v)
	if bytes.EqualFold(k, []byte("host")) {
		// The destination of an origin-form request, wherever it
		// stands: behind proxyMaxHeaders others it was not looked at,
		// and the request was recorded as naming no host.
		if h.hosts++; len(h.hostVals) < proxyMaxHostHeaders {
			// Each value is kept up to what a record names of it (a
			// line may be 64 KiB; the first is kept whole, as it
			// names an origin-form request's destination).
			var s string
			if h.host == nil {
				s = string(v)
				h.host = &s
			} else {
				s = string(v[:min(len(v), maxRecorded+8)])
			}
			h.hostVals = append(h.hostVals, s)
		}
		return
	}
	if n >= proxyMaxHeaders {
		return
	}
	switch strings.ToLower(string(k)) {
	case "content-length":
		l, err := strconv.ParseUint(string(v), 10, 63)
		if err != nil || (h.length >= 0 && int64(l) != h.length) {
			h.badLength = true
			return
		}
		h.length = int64(l)
	case "transfer-encoding":
		h.te = true
		codings := strings.Split(string(v), ",")
		h.chunked = strings.EqualFold(strings.TrimSpace(codings[len(codings)-1]), "chunked")
	}
}

// skipBody reads the body h announces without keeping it. A body whose
// framing is not known (a transfer coding other than chunked, a bad
// length, a bad chunk) is taken for none: what follows is read as the next
// request.
func skipBody(br *bufio.Reader, h headers, buf []byte) ([]byte, error) {
	switch {
	case h.te && h.chunked:
		return skipChunks(br, buf)
	case !h.te && !h.badLength && h.length > 0:
		_, err := io.CopyN(io.Discard, br, h.length)
		return buf, err
	}
	return buf, nil
}

func skipChunks(br *bufio.Reader, buf []byte) ([]byte, error) {
	for {
		b, long, err := readLine(br, buf[:0])
		buf = b
		if err != nil {
			return buf, err
		}
		sz, _, _ := bytes.Cut(b, []byte(";"))
		size, perr := strconv.ParseInt(string(bytes.TrimSpace(sz)), 16, 64)
		if long || perr != nil || size < 0 {
			return buf, nil
		}
		if size == 0 {
			// The trailer section, up to its empty line.
			_, buf, err = readHeaders(br, buf)
			return buf, err
		}
		if _, err := io.CopyN(io.Discard, br, size); err != nil {
			return buf, err
		}
		b, _, err = readLine(br, buf[:0]) // the CRLF after the data
		buf = b
		if err != nil || len(b) != 0 {
			return buf, err
		}
	}
}
