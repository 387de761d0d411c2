package evidence

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/netip"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Op is what happened to a path during a run.
type Op string

// The write operations a run can record. A rename is recorded as a delete
// of the old path and a create of the new one, by both methods; the create
// names the old path (Write.From) where the record proves it.
const (
	OpCreate Op = "create"
	OpModify Op = "modify"
	OpDelete Op = "delete"
)

// Write is one path a run created, modified or deleted. Path is relative to
// the work tree (TreePath), or starts with "~/" (the run's throwaway HOME),
// "$TMPDIR/" (its throwaway TMPDIR), "/dev/shm/", "/var/tmp/", "/run/lock/"
// or "/run/user/UID/" (the caller's uid), or is the absolute path of a file
// in a runner's tool cache (RUNNER_TOOL_CACHE, /opt/hostedtoolcache/…); "~"
// and "$TMPDIR" are HOME and TMPDIR themselves, "/dev/shm", "/var/tmp",
// "/run/lock", "/run/user/UID" and a tool cache's own path those directories
// (a change of their mode, owner or ACLs).
//
// A path is any bytes a file name can hold; JSON strings hold only UTF-8.
// So a path that is not valid UTF-8 is written as "path" with each invalid
// byte shown as U+FFFD, for people, and "pathBytes", its exact bytes in
// base64, which reading it back restores: two files whose names differ
// only in such bytes stay two. (Each run of invalid bytes shows as one
// U+FFFD in "path".)
type Write struct {
	Path string `json:"path"`
	Op   Op     `json:"op"`
	// Kind is "file", "dir", "symlink" or "other" for creates and modifies.
	Kind string `json:"kind,omitempty"`
	// Target is where a created or modified symlink points, as readlink
	// gives it (any bytes but NUL, relative or absolute); "" for every
	// other write. JSON holds it as Path: "target", and "targetBytes"
	// beside it where it is not valid UTF-8.
	Target string `json:"target,omitempty"`
	// Was is the kind the path had before the run where a modify changed
	// it (a file replaced by a directory: Kind "dir", Was "file"); ""
	// for every other write.
	Was string `json:"was,omitempty"`
	// From is, on a create of a regular file, the path the run deleted
	// that the file had in the tree before the run: the file was renamed
	// (or linked and the old name removed), unchanged. It is set only
	// where the record proves it (see the sandbox's renames); "" for every
	// other write. JSON holds it as Path: "from", and "fromBytes" beside
	// it where it is not valid UTF-8.
	From string `json:"from,omitempty"`
}

// writeJSON is Write as JSON holds it.
type writeJSON struct {
	Path        string `json:"path"`
	PathBytes   []byte `json:"pathBytes,omitempty"`
	Op          Op     `json:"op"`
	Kind        string `json:"kind,omitempty"`
	Target      string `json:"target,omitempty"`
	TargetBytes []byte `json:"targetBytes,omitempty"`
	Was         string `json:"was,omitempty"`
	From        string `json:"from,omitempty"`
	FromBytes   []byte `json:"fromBytes,omitempty"`
}

// ShownPath is a written path as JSON's "path" shows it: valid UTF-8,
// each run of bytes that is not UTF-8 one U+FFFD ("pathBytes" keeps them).
func ShownPath(p string) string { return strings.ToValidUTF8(p, "\uFFFD") }

// ShownName is a name a command chose (a path it wrote, a host it tried)
// as one line of a report shows it: as it is, or quoted in Go syntax
// (strconv.Quote) where it is not UTF-8, holds U+FFFD, a control or
// format character or a line or paragraph separator, has space at either
// end, or starts with a double quote. So a name is always one line, and
// two names never show the same: a\xff, a\xfe and a\uFFFD show as
// "a\xff", "a\xfe" and "a\uFFFD" (the last as the character itself), and
// a name that only looks quoted is quoted again.
func ShownName(s string) string {
	if OneLine(s) && !strings.HasPrefix(s, `"`) && !strings.ContainsRune(s, utf8.RuneError) {
		return s
	}
	return strconv.Quote(s)
}

// OneLine says whether s, untrusted text, shows as itself on one line of
// a log or terminal: UTF-8, no space at either end, and nothing that can
// end, hide or reorder the line (BreaksLine).
func OneLine(s string) bool {
	return utf8.ValidString(s) && strings.TrimSpace(s) == s && !strings.ContainsFunc(s, BreaksLine)
}

// BreaksLine reports whether r can end, hide or reorder a line of text as
// a log or terminal shows it: a control or format character (bidi
// overrides among them), or a Unicode line or paragraph separator.
func BreaksLine(r rune) bool {
	return unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || r == '\u2028' || r == '\u2029'
}

// Escape is how a line of text for people shows the character of s at
// byte i, r as ranging over s gives it, where the character itself could
// act on a terminal or make the text read as other text, and whether it
// is shown so: a byte that is not UTF-8 as \xNN (\xff); a character that
// BreaksLine (ESC and the rest of C0, DEL, C1, a bidi override or another
// format character, a line or paragraph separator), and U+FFFD, which
// would read as such a byte elsewhere, as its \u escape (\u001b,
// \u000d for a carriage return, \u202e), or \U and eight digits past
// U+FFFF (\U000e0041), as Go writes it, so that no digit after an escape
// reads as the escape's. Every other character is shown as itself.
//
// The error printer, the text reports and the progress lines show what
// they escape with it, each keeping what it must as it is (a line feed
// between an error's lines) or escaping more (a backslash of a name).
func Escape(s string, i int, r rune) (string, bool) {
	switch {
	case r == utf8.RuneError && !strings.HasPrefix(s[i:], "\uFFFD"):
		return fmt.Sprintf(`\x%02x`, s[i]), true
	case r > 0xffff && BreaksLine(r):
		return fmt.Sprintf(`\U%08x`, r), true
	case BreaksLine(r) || r == utf8.RuneError:
		return fmt.Sprintf(`\u%04x`, r), true
	}
	return "", false
}

func (w Write) MarshalJSON() ([]byte, error) {
	if !utf8.ValidString(w.Path) || !utf8.ValidString(w.Target) || !utf8.ValidString(w.From) {
		j := writeJSON{Path: ShownPath(w.Path), Op: w.Op, Kind: w.Kind, Target: ShownPath(w.Target), Was: w.Was, From: ShownPath(w.From)}
		if !utf8.ValidString(w.Path) {
			j.PathBytes = []byte(w.Path)
		}
		if !utf8.ValidString(w.Target) {
			j.TargetBytes = []byte(w.Target)
		}
		if !utf8.ValidString(w.From) {
			j.FromBytes = []byte(w.From)
		}
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false) // as appendJSONString
		if err := enc.Encode(j); err != nil {
			return nil, err
		}
		return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
	}
	// The common case, by hand: records of 10,000 writes are marshalled
	// in the init and again by vigiles.
	b := make([]byte, 0, len(w.Path)+len(w.Target)+len(w.From)+48)
	b = append(b, `{"path":`...)
	b = appendJSONString(b, w.Path)
	b = append(b, `,"op":`...)
	b = appendJSONString(b, string(w.Op))
	if w.Kind != "" {
		b = append(b, `,"kind":`...)
		b = appendJSONString(b, w.Kind)
	}
	if w.Target != "" {
		b = append(b, `,"target":`...)
		b = appendJSONString(b, w.Target)
	}
	if w.Was != "" {
		b = append(b, `,"was":`...)
		b = appendJSONString(b, w.Was)
	}
	if w.From != "" {
		b = append(b, `,"from":`...)
		b = appendJSONString(b, w.From)
	}
	return append(b, '}'), nil
}

// appendJSONString appends s, valid UTF-8, as encoding/json writes it
// without its HTML-safe escapes of <, > and &: json.Marshal adds those to a
// marshaller's output itself, and an Encoder told not to
// (SetEscapeHTML(false), as the CLI's JSON report is) leaves them out of a
// write's path as it does of every other string.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i, r := range s {
		var esc string
		switch {
		case r == '"':
			esc = `\"`
		case r == '\\':
			esc = `\\`
		case r == '\n':
			esc = `\n`
		case r == '\r':
			esc = `\r`
		case r == '\t':
			esc = `\t`
		case r == '\b':
			esc = `\b`
		case r == '\f':
			esc = `\f`
		case r < 0x20 || r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', hex[r>>12&0xf], hex[r>>8&0xf], hex[r>>4&0xf], hex[r&0xf])
			start = i + utf8.RuneLen(r)
			continue
		default:
			continue
		}
		b = append(b, s[start:i]...)
		b = append(b, esc...)
		start = i + 1
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

func (w *Write) UnmarshalJSON(b []byte) error {
	var j writeJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*w = Write{Path: j.Path, Op: j.Op, Kind: j.Kind, Target: j.Target, Was: j.Was, From: j.From}
	if j.PathBytes != nil {
		w.Path = string(j.PathBytes)
	}
	if j.TargetBytes != nil {
		w.Target = string(j.TargetBytes)
	}
	if j.FromBytes != nil {
		w.From = string(j.FromBytes)
	}
	return nil
}

// Via says how an egress attempt was seen.
type Via string

const (
	ViaDNS     Via = "dns"     // a name asked of the sandbox's DNS stub
	ViaProxy   Via = "proxy"   // a request to the recording proxy
	ViaConnect Via = "connect" // a packet seen by the nft rule set
	// ViaLoopback is an attempt at the sandbox's loopback (127.0.0.0/8,
	// ::1; another address its network namespace holds is a connect that
	// did not get through) that nothing in the sandbox answered: a TCP connect the kernel reset, a
	// UDP datagram it answered port unreachable. Under Claude Code that
	// address and port are the host's own, and may be a service there (a
	// local daemon, a Docker API on TCP, a development database), which
	// the sandbox's loopback, its own, never reaches. Nothing can allow
	// it: Allowed is always false.
	ViaLoopback Via = "loopback"
)

// Egress is one destination a run tried to reach, deduplicated; Attempts
// counts how often. Host is the name where one can be known (from the
// proxy request or the DNS log), empty otherwise.
type Egress struct {
	Host     string `json:"host,omitempty"`
	IP       string `json:"ip,omitempty"`
	Port     int    `json:"port,omitempty"`
	Proto    string `json:"proto,omitempty"` // tcp, udp, icmp, dns, http
	Via      Via    `json:"via"`
	Allowed  bool   `json:"allowed"`
	Attempts int    `json:"attempts"`
	Packets  uint64 `json:"packets"`
	Bytes    uint64 `json:"bytes"`
	// Detail carries the method and path of a proxy request, without query.
	Detail string `json:"detail,omitempty"`
}

// egressJSON is Egress as JSON holds it: the port is written wherever the
// destination has one, port 0 too (a connect to port 0 is one), so that
// "port 0" and "no port" (a DNS question, a lumped entry) differ.
type egressJSON struct {
	Host     string `json:"host,omitempty"`
	IP       string `json:"ip,omitempty"`
	Port     *int   `json:"port,omitempty"`
	Proto    string `json:"proto,omitempty"`
	Via      Via    `json:"via"`
	Allowed  bool   `json:"allowed"`
	Attempts int    `json:"attempts"`
	Packets  uint64 `json:"packets"`
	Bytes    uint64 `json:"bytes"`
	Detail   string `json:"detail,omitempty"`
}

func (e Egress) MarshalJSON() ([]byte, error) {
	j := egressJSON{Host: e.Host, IP: e.IP, Proto: e.Proto, Via: e.Via, Allowed: e.Allowed,
		Attempts: e.Attempts, Packets: e.Packets, Bytes: e.Bytes, Detail: e.Detail}
	if e.Port != 0 || e.HasPort() {
		j.Port = &e.Port
	}
	return json.Marshal(j)
}

// HasPort says whether e's destination has a port, 0 or not: a packet to
// an address over a protocol that has ports.
func (e Egress) HasPort() bool {
	if e.Port != 0 {
		return true
	}
	switch e.Proto {
	case "tcp", "udp", "udplite", "sctp", "dccp":
		return (e.Via == ViaConnect || e.Via == ViaLoopback) && e.IP != ""
	}
	return false
}

// MaxEgressEntries is how many distinct destinations a run's egress record
// holds one by one: a hostile command could otherwise grow it without
// bound. Past it, pkg/egress lumps every further destination of a kind into
// one entry (see Lumped).
const MaxEgressEntries = 10000

// OverflowDetail is the Detail of a lumped entry. It is a sentence, not a
// new field, so that a record stays vigiles.run/v1 as docs/result-format.md
// describes it.
const OverflowDetail = "more destinations than vigiles records one by one"

// Lumped reports whether e is not one destination but the attempts past
// MaxEgressEntries, one entry per Via, Proto and Allowed, with no host,
// address or port. A record that holds one does not list every destination
// the run tried: it must never pass for a whole one (a host list, a
// baseline, an egress-only check).
func (e Egress) Lumped() bool {
	return e.Detail == OverflowDetail && e.Host == "" && e.IP == "" && e.Port == 0
}

// Dest names e's destination in a report: its host, else its address; for
// a lumped entry (Lumped), what it stands for; for an entry with neither (a
// proxy request that named no host), "(no host)". Never blank.
func (e Egress) Dest() string {
	switch {
	case e.Lumped():
		return fmt.Sprintf("destinations past the first %d, not recorded one by one", MaxEgressEntries)
	case e.Host != "":
		return e.Host
	case e.IP != "":
		return e.IP
	}
	return "(no host)"
}

// AtLoopback says whether e is an attempt at the sandbox's own loopback,
// which no allow reaches (under Claude Code the host's): one nothing in
// the sandbox answered (ViaLoopback), or a request the recording proxy
// refused for localhost, a name under .localhost or a loopback address
// (a client that ignores NO_PROXY sends it there).
func (e Egress) AtLoopback() bool {
	if e.Via == ViaLoopback {
		return true
	}
	if e.Via != ViaProxy || e.Allowed {
		return false
	}
	h := strings.ToLower(strings.TrimSuffix(e.Host, "."))
	if h == "localhost" || strings.HasSuffix(h, ".localhost") {
		return true
	}
	for _, s := range []string{e.IP, strings.Trim(h, "[]")} {
		if a, err := netip.ParseAddr(s); err == nil && a.Unmap().IsLoopback() {
			return true
		}
	}
	return false
}

// WithPort is dest (a host name or an address) with port after it, an
// IPv6 address in brackets ([::1]:4000, not ::1:4000, which is itself an
// address).
func WithPort(dest string, port int) string {
	if strings.Contains(dest, ":") {
		dest = "[" + dest + "]"
	}
	return dest + ":" + strconv.Itoa(port)
}

// Dropped counts what the allow-mode wall dropped in total.
type Dropped struct {
	Packets uint64 `json:"packets"`
	Bytes   uint64 `json:"bytes"`
}

// Egress modes.
const (
	EgressDeny   = "deny"
	EgressRecord = "record"
	EgressAllow  = "allow"
)

// EgressPolicy is what a run asks of the network. The zero value is deny.
type EgressPolicy struct {
	Mode string `json:"mode"`
	// Allow holds host names (exact or "*.suffix"), each optionally with
	// ":port".
	Allow []string `json:"allow,omitempty"`
	// AllowIP holds CIDRs that may be reached, and that allowlisted names
	// may resolve to even when they are loopback, link-local or private.
	AllowIP []string `json:"allowIP,omitempty"`
	// DNSUpstream is ADDR[:PORT] of the resolver that allowlisted names are
	// forwarded to.
	DNSUpstream string `json:"dnsUpstream,omitempty"`
	// Connector is "slirp4netns", "pasta" or "" (choose).
	Connector string `json:"connector,omitempty"`
}

// TreePath is how a path relative to the work tree is recorded: as it is,
// unless its first component is "~" or "$TMPDIR", which would read as the
// run's HOME or TMPDIR (a command could name a directory of the tree so,
// to have its writes there taken for throwaway ones); such a path gets
// "./" in front. A relative path never starts with "/" or "./" otherwise,
// so every recorded path says unambiguously where it is.
func TreePath(rel string) string {
	first, _, _ := strings.Cut(rel, "/")
	if first == "~" || first == "$TMPDIR" {
		return "./" + rel
	}
	return rel
}

// EnvFile is what a run left in the file its caller named for it to set
// the session's environment in: Claude Code gives SessionStart hooks such a
// file (CLAUDE_ENV_FILE) and runs it, as a bash script, before each Bash
// command of the session. Path is as the hook saw it ("~/…").
//
// Content is nil when it was not recorded (a direct run, a run that did
// not complete), and its JSON then has no other field but Path; "" when the run left no file there, or an empty one.
// Kind says what the run left: "file", "none" (nothing), or "symlink",
// "dir" or "other", whose content is not read ("" as content: Claude Code
// would fail to run such a thing). Content holds at most MaxEnvFile bytes:
// Truncated says there were more (Size is the whole). Encoding is "base64"
// when the bytes are not UTF-8.
type EnvFile struct {
	Path      string  `json:"path"`
	Kind      string  `json:"kind,omitempty"`
	Size      int64   `json:"size"`
	Content   *string `json:"content"`
	Encoding  string  `json:"encoding,omitempty"`
	Truncated bool    `json:"truncated,omitempty"`
}

// MarshalJSON writes e as its fields say, but where its content was not
// recorded as {"path", "content": null} alone: nothing of what the run
// left there is known, and a "size" of 0 (or a kind) would read as
// recorded and empty.
func (e EnvFile) MarshalJSON() ([]byte, error) {
	if e.Content == nil {
		return json.Marshal(struct {
			Path    string  `json:"path"`
			Content *string `json:"content"`
		}{Path: e.Path})
	}
	type plain EnvFile // without this method
	return json.Marshal(plain(e))
}

// MaxEnvFile bounds the content an EnvFile keeps.
const MaxEnvFile = 64 << 10

// Kept is how many bytes of the file Content holds.
func (e *EnvFile) Kept() int { return len(e.raw()) }

// Text returns the content as text: decoded from base64 where it is so
// (invalid UTF-8 shown as U+FFFD), "" when not recorded.
func (e *EnvFile) Text() string { return strings.ToValidUTF8(e.raw(), "\uFFFD") }

// raw is the file's bytes that Content holds, decoded where it is base64;
// "" when not recorded.
func (e *EnvFile) raw() string {
	if e == nil || e.Content == nil {
		return ""
	}
	if e.Encoding == "base64" {
		if b, err := base64.StdEncoding.DecodeString(*e.Content); err == nil {
			return string(b)
		}
	}
	return *e.Content
}
