package egress

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/textproto"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/vigiles/action/pkg/evidence"
)

// ErrBadRequest is wrapped by every error parseRequestLine returns.
var ErrBadRequest = errors.New("malformed proxy request")

const (
	proxyMaxLine    = 8 << 10
	proxyMaxHeaders = 100
	proxyIdle       = 10 * time.Second
	maxRecorded     = 1024 // longest host or detail kept in a record
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
	defaults := map[string]int{"http": 80, "https": 443, "ws": 80, "wss": 443, "ftp": 21}
	scheme := strings.ToLower(u.Scheme)
	r.Host = strings.ToLower(u.Hostname())
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
	if a, err := netip.ParseAddr(host); err == nil {
		host = a.String()
	}
	return strings.ToLower(host), n, nil
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

// proxy is the record mode's recording proxy: it answers every request
// with 403 "blocked by vigiles" and records it.
type proxy struct {
	ln  net.Listener
	rec *recorder
	wg  sync.WaitGroup
}

func startProxy(addr string, rec *recorder) (*proxy, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("starting the recording proxy on %s: %w", addr, err)
	}
	p := &proxy{ln: ln, rec: rec}
	p.wg.Add(1)
	go p.serve()
	return p, nil
}

func (p *proxy) addr() string { return p.ln.Addr().String() }

func (p *proxy) stop() {
	p.ln.Close()
	p.wg.Wait()
}

func (p *proxy) serve() {
	defer p.wg.Done()
	sem := make(chan struct{}, 64)
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		sem <- struct{}{}
		p.wg.Add(1)
		go func() {
			defer func() { c.Close(); <-sem; p.wg.Done() }()
			p.handle(c)
		}()
	}
}

func (p *proxy) handle(c net.Conn) {
	_ = c.SetDeadline(time.Now().Add(proxyIdle))
	tp := textproto.NewReader(bufio.NewReaderSize(&limitedConn{c, proxyMaxLine * 8}, proxyMaxLine))
	line, err := tp.ReadLine()
	if err != nil {
		return
	}
	at := time.Now()
	req, err := parseRequestLine(line)
	if err != nil {
		p.rec.add(at, evidence.Egress{Via: evidence.ViaProxy, Proto: "http", Detail: "malformed request: " + clip(stripQuery(line))})
		writeBlocked(c, 400, "Bad Request", "vigiles: malformed proxy request")
		return
	}
	for n := 0; n < proxyMaxHeaders; n++ {
		h, err := tp.ReadLine()
		if err != nil || h == "" {
			break
		}
		if req.Host == "" {
			if k, v, ok := strings.Cut(h, ":"); ok && strings.EqualFold(strings.TrimSpace(k), "host") {
				if host, port, err := splitHostPort(strings.TrimSpace(v)); err == nil {
					req.Host, req.Port = host, port
				} else {
					req.Host, req.Port = strings.ToLower(strings.TrimSpace(v)), 80
				}
			}
		}
	}
	e := evidence.Egress{Host: clip(req.Host), Port: req.Port, Via: evidence.ViaProxy, Proto: "http",
		Detail: clip(req.Method + " " + req.Path)}
	if req.Method == "CONNECT" {
		e.Proto, e.Detail = "tcp", "CONNECT"
	}
	if a, err := netip.ParseAddr(req.Host); err == nil {
		// The zone of an IPv6 address is free text the command chose.
		e.Host, e.IP = "", a.WithZone("").String()
		if z := a.Zone(); z != "" {
			e.Detail += " (zone " + clip(z) + ")"
		}
	}
	p.rec.add(at, e)
	writeBlocked(c, 403, "Forbidden", fmt.Sprintf("blocked by vigiles: egress to %s:%d is not allowed (egress mode record)", clip(req.Host), req.Port))
}

func writeBlocked(c net.Conn, code int, status, msg string) {
	body := msg + "\n"
	fmt.Fprintf(c, "HTTP/1.1 %d %s\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: %d\r\nConnection: close\r\nX-Vigiles: blocked\r\n\r\n%s",
		code, status, len(body), body)
}

// limitedConn ends reads after n bytes, so a request cannot grow without
// bound.
type limitedConn struct {
	c net.Conn
	n int
}

func (l *limitedConn) Read(b []byte) (int, error) {
	if l.n <= 0 {
		return 0, errors.New("request too long")
	}
	if len(b) > l.n {
		b = b[:l.n]
	}
	n, err := l.c.Read(b)
	l.n -= n
	return n, err
}
