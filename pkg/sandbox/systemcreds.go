package sandbox

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"golang.org/x/sys/unix"
)

// systemCredentialPaths are the host's system-wide configuration files
// (every user may read them) where an image's or a self-hosted runner's
// set-up puts a token or a password, each the system's counterpart of a
// file of the caller's HOME, which the run masks: a proxy's credentials
// in the system's environment (/etc/environment, read at every login,
// as a runner's .env is read by it), pip's and uv's site-wide index with a
// token in its URL, npm's global npmrc (an _authToken), boto's system
// config (AWS keys), conda's system condarc (a channel's token),
// RubyGems' system gemrc (a source with a password in its URL),
// Maven's global settings.xml (a server's password), Bundler's config (a
// source's token), cargo's credentials and Gradle's installation's
// gradle.properties (a repository's password).
var systemCredentialPaths = []string{
	"/etc/environment",
	"/etc/pip.conf", "/etc/xdg/pip/pip.conf",
	"/etc/uv/uv.toml", "/etc/xdg/uv/uv.toml",
	"/etc/npmrc", "/usr/etc/npmrc", "/usr/local/etc/npmrc",
	"/etc/boto.cfg",
	"/etc/conda/.condarc", "/etc/conda/condarc", "/opt/conda/.condarc", "/opt/conda/condarc",
	// conda's other system places, and pip's site config (sys.prefix's
	// pip.conf: /usr/local in Python's images).
	"/etc/conda/condarc.d/*", "/var/lib/conda/.condarc", "/var/lib/conda/condarc", "/var/lib/conda/condarc.d/*",
	"/usr/local/pip.conf",
	"/etc/gemrc",
	"/etc/maven/settings.xml", "/usr/share/maven/conf/settings.xml",
	// A proxy's or a package source's credentials for every user where
	// each tool's documentation puts them: pam_env's own config and the
	// login scripts of /etc/profile.d (export https_proxy=…), apt's
	// proxy (Acquire::http::Proxy) and a source's URL, wget's, yum's and
	// dnf's (proxy_password, a repository's password) and a systemd
	// drop-in's Environment= (Docker's documented place for its proxy).
	"/etc/security/pam_env.conf", "/etc/profile.d/*.sh",
	"/etc/apt/apt.conf", "/etc/apt/apt.conf.d/*", "/etc/apt/sources.list", "/etc/apt/sources.list.d/*",
	"/etc/wgetrc", "/etc/yum.conf", "/etc/dnf/dnf.conf", "/etc/yum.repos.d/*.repo",
	"/etc/systemd/system/*.service.d/*.conf",
	// The same tools' files under the prefix a well-known image installs
	// them in, as each tool's documentation and the image's build place
	// them: the Ruby image's system gemrc (Ruby built with prefix
	// /usr/local reads $sysconfdir/gemrc, where the image writes
	// `gem: --no-document`) and Bundler's config (its
	// BUNDLE_APP_CONFIG=/usr/local/bundle: every app's `bundle config
	// set --local`); the Rust image's CARGO_HOME=/usr/local/cargo, where
	// `cargo login` keeps its token (a caller whose environment lost
	// CARGO_HOME, as sudo's does, names it no more); Gradle's
	// installation's gradle.properties, which it reads after the user's
	// and the project's (the Gradle image's GRADLE_HOME=/opt/gradle, the
	// runner images' /usr/share/gradle-VERSION, Debian's
	// /usr/share/gradle) and the runner images' Maven
	// (/usr/share/apache-maven-VERSION); conda's $CONDA_ROOT/condarc.d
	// and pip's site config (sys.prefix's pip.conf) in conda's images,
	// whose root is /opt/conda.
	"/usr/local/etc/gemrc", "/usr/local/bundle/config",
	"/usr/local/cargo/credentials.toml", "/usr/local/cargo/credentials",
	"/opt/gradle/gradle.properties", "/usr/share/gradle*/gradle.properties",
	"/usr/share/apache-maven-*/conf/settings.xml",
	"/opt/conda/condarc.d/*", "/opt/conda/pip.conf",
}

// systemFilesFix is what to do where one of them cannot be read.
const systemFilesFix = "make it a regular file of at most 4 MiB with no other name (hard link), or keep its credentials in a file only root may read"

// maxSystemCredentialFile bounds what is read of one of them; a larger
// one is an error (fail closed), not a file read in part.
const maxSystemCredentialFile = 4 << 20

// credentialURL is an http(s), SOCKS or FTP URL with a user part (a
// token as the user, or a user and password), as a proxy or an index is
// given with its credentials (a ' in it too, which RFC 3986 lets a
// password hold); or an http(s) URL with conda's token in
// its path (/t/TOKEN, as conda's channels take it).
var credentialURL = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\b(?:https?|socks[45][ah]?|ftp)://[^\s/@"<>]+@|\bhttps?://[^\s"'<>]*/t/[a-z0-9-]`)
})

// settingStart is where credentialKey and bundlerSourceKey take a
// setting to start: after LF, CR (npm's ini and Python's configparser
// break lines there) or a Unicode line break (YAML's), and after the
// whitespace Python strips (\v, NBSP).
const settingStart = `(?:^|[\r\x{85}\x{2028}\x{2029}])` + settingSpace + `*`

// settingSpace is the whitespace around a setting's name.
const settingSpace = `[\s\v\x1c-\x1f\x{85}\p{Z}]`

// credentialKey is a setting whose name says it holds a secret: npm's
// _authToken, _auth and _password (after a registry's //host/: too),
// boto's and AWS's keys (boto's proxy_pass), a password, a token, an API
// key or a secret key of any INI, TOML, YAML or shell assignment (RubyGems'
// :rubygems_api_key:), a YAML list item's too (`- token: …`, in a list
// of lists too), each assignment of a systemd unit's Environment= line
// (a drop-in's) and pam_env.conf's `NAME DEFAULT=` or `OVERRIDE=`, and a
// shell's assignment wherever a word starts on a line that no # comments
// out before it (`export A=1 NPM_TOKEN=…`, `… && export API_KEY=…`, a
// login script's); Maven's <password>, <passphrase> and <privateKey>
// elements (with attributes too) and a server's httpHeaders property named
// Private-Token, Job-Token, Deploy-Token or Authorization (GitLab's
// package registry); and a PEM private key (npm's key=). A setting starts
// where settingStart says.
var credentialKey = sync.OnceValue(func() *regexp.Regexp {
	const ws = settingSpace
	return regexp.MustCompile(`(?im)` + settingStart + `(?:-` + ws + `+)*(?:export` + ws + `+|environment` + ws + `*=(?:[^\r\n]*[\s"'])?)?[^\s=#;]*` + secretName + `(?:["']?` + ws + `*[=:]|` + ws + `+(?:default|override)=)` +
		`|^[^#\r\n]*?[\s;&|({][a-z0-9_]*` + secretName + `=` +
		`|<(password|passphrase|privatekey)(\s[^>]*)?>|<name>\s*(private|job|deploy)-token\s*</name>|<name>\s*authorization\s*</name>|-----BEGIN [a-z0-9 ]*PRIVATE KEY-----`)
})

// flowKey is a key of a YAML flow mapping, a JSON object or a TOML
// inline table (quoted too) whose name says it holds a secret, as it
// follows the {, , or [ before it: one past the first key of a mapping on
// one line, which credentialKey, reading from a line's start, does not
// see (`channels: [{channel: x, token: y}]`, `{"registry": "r",
// "_authToken": "t"}`, `{ index = "…", token = "…" }`).
var flowKey = sync.OnceValue(func() *regexp.Regexp {
	const ws = settingSpace
	return regexp.MustCompile(`(?i)^` + ws + `*(?:"[^"\r\n]*|'[^'\r\n]*|[^\s,{}\[\]"'=#;:]*)` + secretName + `["']?` + ws + `*[=:]`)
})

// holdsFlowKey says whether a line of b (lines as settingStart breaks
// them) holds a flowKey after a {, a , or a [ before any # that starts
// the line or follows a space or a tab (a YAML comment); a shell's
// ${NAME:-…} names a variable, not a key. The expression is tried at
// each of those alone, where the key it reads ends: a file's comments,
// its plain settings and the values between cost no pass of it.
func holdsFlowKey(b []byte) bool {
	for len(b) > 0 {
		line := b
		b = nil
		if i := bytes.IndexAny(line, "\r\n\u0085\u2028\u2029"); i >= 0 {
			_, n := utf8.DecodeRune(line[i:])
			line, b = line[:i], line[i+n:]
		}
		for i, c := range line {
			if c == '#' && (i == 0 || line[i-1] == ' ' || line[i-1] == '\t') {
				break
			}
			if (c == ',' || c == '[' || c == '{' && (i == 0 || line[i-1] != '$')) && flowKey().Match(line[i+1:]) {
				return true
			}
		}
	}
	return false
}

// secretName is the end of a setting's name that says it holds a secret.
const secretName = `(?:_authtoken|_auth|password|passwd|passphrase|secret_access_key|session_token|token|secret|_pass|api_?key|secret_?key|private_?key)`

// bundlerSourceKey is a setting of Bundler's keyed by a gem source, whose
// value is that source's credentials (bundle config set github.com
// TOKEN): its host, a dot as __ and a - as ___ (BUNDLE_GITHUB__COM,
// BUNDLE_RUBYGEMS__PKG__GITHUB__COM, BUNDLE_MY___GEMS), or its URL
// (BUNDLE_HTTPS://RUBYGEMS__PKG__GITHUB__COM/OWNER), in Bundler's YAML
// config or a shell's or the environment's assignment; a dot or a -
// written as it is too, which Bundler's config loader turns into __ and
// ___ (a - with a warning). Submatch 1 is a host named without its URL:
// Bundler's own settings of the same shape (bundlerOwnSetting) are not
// sources. A host with neither a dot nor a - (BUNDLE_LOCALHOST) is not
// taken for one: it is written as a one-word setting of Bundler's is
// (BUNDLE_PATH, BUNDLE_FROZEN, or one this list would not know), and its
// value's shape (user:password) is BUNDLE_WITHOUT's too.
var bundlerSourceKey = sync.OnceValue(func() *regexp.Regexp {
	const ws, label, dot = settingSpace, `[a-z0-9]+(?:(?:___|-)[a-z0-9]+)*`, `(?:__|\.)`
	return regexp.MustCompile(`(?im)` + settingStart + `(?:export` + ws + `+)?["']?bundle_(?:https?://` + label + `(?:` + dot + label + `)*|(` + label + `(?:` + dot + label + `)+|[a-z0-9]+(?:(?:___|-)[a-z0-9]+)+))(?::[0-9]+)?(?:/[^\s"'=]*)?["']?` + ws + `*[=:]`)
})

// bundlerOwnSetting says whether the host part of a bundlerSourceKey,
// host, is one of Bundler's own settings named by a dot, as a host
// with one dot is: a gem's build options (build.GEM), a local checkout
// (local.GEM), a mirror (mirror.URL, whose credentials, if any, are in
// its URL value), `bundle gem`'s defaults (gem.test, gem.ci, …) or
// path.system (install to the system's gems); a dot or a - written as
// it is counts as __ or ___. A host of more labels (gem.fury.io) is a
// source.
func bundlerOwnSetting(host []byte) bool {
	labels := bytes.ReplaceAll(bytes.ToLower(host), []byte("."), []byte("__"))
	labels = bytes.ReplaceAll(labels, []byte("___"), []byte("-"))
	first, rest, _ := bytes.Cut(labels, []byte("__"))
	if bytes.Contains(rest, []byte("__")) {
		return false
	}
	switch string(first) {
	case "build", "local", "mirror", "gem", "path":
		return true
	}
	return false
}

// holdsBundlerSource says whether b sets a bundlerSourceKey that is not
// one of Bundler's own settings.
func holdsBundlerSource(b []byte) bool {
	for _, m := range bundlerSourceKey().FindAllSubmatchIndex(b, -1) {
		if m[2] < 0 || !bundlerOwnSetting(b[m[2]:m[3]]) {
			return true
		}
	}
	return false
}

// credentialHints are what any text matchesCredential matches holds, in
// ASCII text, lower-cased: a text of none of them is passed over without
// the expressions, which cost a quarter of a millisecond for Maven's
// stock settings.xml of 10 KB, in every run.
var credentialHints = [][]byte{[]byte("@"), []byte("_auth"), []byte("pass"), []byte("secret"), []byte("token"), []byte("private"), []byte("api"), []byte("authorization"), []byte("/t/"), []byte("bundle_")}

// holdsCredential says whether the text b of a configuration file holds
// a credential by matchesCredential, outside XML comments (Maven's stock
// settings.xml shows a <password> in one, as an example). Each expression
// is compiled and run only where the text holds what every match of it
// holds (credentialGates): a stock file of the host, which names a
// password in a comment or a word, costs no expression at all.
func holdsCredential(b []byte) bool {
	b = withoutXMLComments(b)
	lower, ascii := lowerASCII(b)
	if !hintsCredential(lower, ascii) {
		return false
	}
	g := credentialGates(lower, ascii)
	return g.url && credentialURL().Match(b) || g.key && credentialKey().Match(b) || g.key && holdsFlowKey(b) || g.bundler && holdsBundlerSource(b)
}

// gates says which of matchesCredential's expressions may match a text.
type gates struct{ url, key, bundler bool }

// credentialGates says, of a text (lower, ascii: lowerASCII's of it),
// which of matchesCredential's expressions may match it, by what each
// match holds:
//   - credentialURL's, "://" and after it, in what its URL may hold, an @
//     (a user part) or conda's /t/;
//   - Bundler's source key's, "bundle_" in any case (none of its letters
//     folds to a rune outside ASCII);
//   - credentialKey's and flowKey's (key): in a text of ASCII alone, a
//     secretName ended as a setting's name is, by [=:] after an optional
//     quote and any space, or by a space and "default=" or "override=";
//     or Maven's "<password", "<passphrase", "<privatekey" or "<name>",
//     or a PEM key's "-----begin ". A text with other bytes may match
//     where ASCII would not (the expressions' case folding takes U+017F
//     for an s and U+212A for a K; \p{Z} holds spaces outside ASCII),
//     and passes.
//
// FuzzHoldsCredential holds holdsCredential, which reads these, to what
// the expressions say.
func credentialGates(lower []byte, ascii bool) gates {
	return gates{url: mayHoldCredentialURL(lower), key: !ascii || mayHoldCredentialKey(lower), bundler: bytes.Contains(lower, []byte("bundle_"))}
}

// mayHoldCredentialURL says whether the lower-cased text b has a "://"
// followed by what credentialURL's URL holds before its @ ([^\s/@"<>]+),
// then an @, or in what its other URL holds ([^\s"'<>]*), a /t/.
func mayHoldCredentialURL(b []byte) bool {
	for {
		i := bytes.Index(b, []byte("://"))
		if i < 0 {
			return false
		}
		b = b[i+3:]
		for j, c := range b {
			if c == '@' {
				if j > 0 {
					return true
				}
				break
			}
			if c == '\t' || c == '\n' || c == '\f' || c == '\r' || c == ' ' || c == '/' || c == '"' || c == '<' || c == '>' {
				break
			}
		}
		end := bytes.IndexAny(b, "\t\n\f\r \"'<>")
		if end < 0 {
			end = len(b)
		}
		if bytes.Contains(b[:end], []byte("/t/")) {
			return true
		}
	}
}

// secretNameWords are secretName's alternatives, lower-cased, each api_?key
// written both ways (TestSecretNameWords).
var secretNameWords = [][]byte{[]byte("_authtoken"), []byte("_auth"), []byte("password"), []byte("passwd"), []byte("passphrase"), []byte("secret_access_key"), []byte("session_token"), []byte("token"), []byte("secret"), []byte("_pass"), []byte("api_key"), []byte("apikey"), []byte("secret_key"), []byte("secretkey"), []byte("private_key"), []byte("privatekey")}

// mayHoldCredentialKey says whether the lower-cased ASCII text b holds
// what every match of credentialKey or flowKey holds (credentialGates).
func mayHoldCredentialKey(b []byte) bool {
	for _, lit := range []string{"<password", "<passphrase", "<privatekey", "<name>", "-----begin "} {
		if bytes.Contains(b, []byte(lit)) {
			return true
		}
	}
	// settingSpace in ASCII: \s ([\t\n\f\r ]), \v, \x1c-\x1f.
	space := func(c byte) bool {
		return c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r' || c == ' ' || 0x1c <= c && c <= 0x1f
	}
	for _, name := range secretNameWords {
		for rest := b; ; {
			i := bytes.Index(rest, name)
			if i < 0 {
				break
			}
			rest = rest[i+len(name):]
			after := rest
			if len(after) > 0 && (after[0] == '"' || after[0] == '\'') {
				after = after[1:]
			}
			for len(after) > 0 && space(after[0]) {
				after = after[1:]
			}
			if len(after) > 0 && (after[0] == '=' || after[0] == ':') {
				return true
			}
			spaced := rest
			for len(spaced) > 0 && space(spaced[0]) {
				spaced = spaced[1:]
			}
			if len(spaced) < len(rest) && (bytes.HasPrefix(spaced, []byte("default=")) || bytes.HasPrefix(spaced, []byte("override="))) {
				return true
			}
		}
	}
	return false
}

// matchesCredential says whether b holds what credentialURL or
// credentialKey matches, a flow mapping's key that names a secret
// (holdsFlowKey), or a gem source's credentials for Bundler
// (holdsBundlerSource).
func matchesCredential(b []byte) bool {
	return credentialURL().Match(b) || credentialKey().Match(b) || holdsFlowKey(b) || holdsBundlerSource(b)
}

// lowerASCII is b with its ASCII letters lower-cased and its other bytes
// as they are, and whether b is ASCII alone: the one lower-cased copy
// that hintsCredential and credentialGates read. (What the expressions
// fold in other text, U+017F as an s, U+212A as a K, is no ASCII letter,
// and each passes a text that is not ASCII.)
func lowerASCII(b []byte) ([]byte, bool) {
	lower := make([]byte, len(b))
	ascii := true
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c >= 0x80 {
			ascii = false
		}
		lower[i] = c
	}
	return lower, ascii
}

// hintsCredential says whether a text (lower, ascii: lowerASCII's of it)
// may hold what matchesCredential matches: where it is ASCII and holds
// none of credentialHints, in any case, it matches nothing. A text with
// other bytes is never passed over (the expressions' case folding takes
// U+017F for an s and U+212A for a K).
func hintsCredential(lower []byte, ascii bool) bool {
	if !ascii {
		return true
	}
	for _, h := range credentialHints {
		if bytes.Contains(lower, h) {
			return true
		}
	}
	return false
}

// withoutXMLComments is b without its XML comments, each <!-- to the
// first --> after it; a <!-- never closed is kept, with what follows it,
// as text.
func withoutXMLComments(b []byte) []byte {
	var out []byte
	for {
		i := bytes.Index(b, []byte("<!--"))
		if i < 0 {
			break
		}
		j := bytes.Index(b[i+4:], []byte("-->"))
		if j < 0 {
			break
		}
		out = append(out, b[:i]...)
		b = b[i+4+j+3:]
	}
	if out == nil {
		return b
	}
	return append(out, b...)
}

// emptyConfig is what the command is shown of such a file p: nothing, or,
// for Maven's settings.xml, an empty settings element (an empty file is no
// XML document, which Maven reports as settings it cannot parse).
func emptyConfig(p string) []byte {
	if filepath.Ext(p) == ".xml" {
		return []byte("<settings/>\n")
	}
	return []byte{}
}

// systemCredentialFiles lists the files of systemCredentialPaths that
// hold a credential (holdsCredential) and that the command could read, at
// the path their links lead to, each with empty content (emptyConfig):
// the broker has bubblewrap cover each with an empty read-only copy
// (plan.DataFiles), so that the tools that read them find no setting
// there rather than an error. One without a credential is shown as the host has it.
// A path with a * is each file it matches (filepath.Glob).
func systemCredentialFiles(v hostView) ([]scrubbedConfig, error) {
	var out []scrubbedConfig
	paths, err := readableSystemFiles(systemCredentialFilePaths(), v)
	if err != nil {
		return nil, err
	}
	for _, real := range paths {
		holds, err := fileHoldsCredential(real)
		if err != nil {
			return nil, err
		}
		if holds {
			out = append(out, scrubbedConfig{path: real, clean: emptyConfig(real)})
		}
	}
	// The copy bubblewrap puts over each covers its path alone: another
	// name (a hard link) would show the credential.
	if err := otherNames("/", "/", out); err != nil {
		return nil, err
	}
	return out, nil
}

// readableSystemFiles lists the host files of paths, each once, at the
// path its links lead to (where bubblewrap's copy covers every name that
// leads to it), that the command could read: a missing one is passed
// over, any other error is the run's refusal.
func readableSystemFiles(paths []string, v hostView) ([]string, error) {
	var out []string
	dirs := map[string]resolved{}
	for _, p := range paths {
		real, err := resolveInDir(dirs, p)
		if err != nil {
			if ignorable(err) {
				continue
			}
			return nil, err
		}
		if v.reads(real, 0o4) && !slices.Contains(out, real) {
			out = append(out, real)
		}
	}
	return out, nil
}

// resolved is where a directory's links lead, or why they lead nowhere.
type resolved struct {
	real string
	err  error
}

// resolveInDir is filepath.EvalSymlinks(p) with p's directory resolved
// once for every path of it (dirs, by the directory's path): most of
// systemCredentialFilePaths' paths share a few directories (/etc,
// /etc/apt/apt.conf.d, /etc/profile.d), and EvalSymlinks looks up each
// of a path's components anew. p itself is looked up: a link is resolved
// whole, by EvalSymlinks.
func resolveInDir(dirs map[string]resolved, p string) (string, error) {
	dir, base := filepath.Split(p)
	r, ok := dirs[dir]
	if !ok {
		r.real, r.err = filepath.EvalSymlinks(dir)
		dirs[dir] = r
	}
	if r.err != nil {
		return "", r.err
	}
	real := filepath.Join(r.real, base)
	var st unix.Stat_t
	if err := unix.Lstat(real, &st); err != nil {
		return "", &fs.PathError{Op: "lstat", Path: real, Err: err}
	}
	if st.Mode&unix.S_IFMT == unix.S_IFLNK {
		return filepath.EvalSymlinks(p)
	}
	return real, nil
}

// fileCheck is what fileHoldsCredential found of a file, with the file's
// identity and change time before it read it.
type fileCheck struct {
	dev, ino    uint64
	size, ctime int64
	holds       bool
}

// fileChecks holds fileCheck by path for the process's later runs: an
// audit's hooks read the same files of the host, and the check's
// expressions cost a few hundred microseconds for a file of some KB that
// holds one of the hints (a stock /etc/wgetrc, pam_env.conf).
var fileChecks sync.Map

// fileHoldsCredential says whether the file at p (its links resolved)
// holds a credential (holdsCredential), as read now or, where the file's
// device, inode, size and change time are what they were when it was read
// before, as read then: any change of its content stamps a later ctime.
// As the tree cache does (treeCache), it keeps only what it read of a file
// whose ctime is older than the stat by racyMargin, on a file system that
// stamps ctime from this kernel's clock (ctimeKept): a change in the same
// tick of the coarse clock as the read could stamp the same ctime. The
// stat comes before the read, so a change during the read is read at the
// next run.
func fileHoldsCredential(p string) (bool, error) { return fileHoldsCredentialAt(p, coarseNow()) }

// fileHoldsCredentialAt is fileHoldsCredential with t0 the coarse clock
// read before the stat (0: keep nothing).
func fileHoldsCredentialAt(p string, t0 int64) (bool, error) {
	var st unix.Stat_t
	if err := unix.Lstat(p, &st); err != nil {
		if ignorable(err) {
			return false, nil
		}
		return false, err
	}
	now := fileCheck{dev: uint64(st.Dev), ino: st.Ino, size: st.Size, ctime: st.Ctim.Nano()}
	if c, ok := fileChecks.Load(p); ok {
		if c := c.(fileCheck); c.dev == now.dev && c.ino == now.ino && c.size == now.size && c.ctime == now.ctime {
			return c.holds, nil
		}
	}
	b, err := readSmallRegular(p, maxSystemCredentialFile)
	if err != nil {
		return false, err
	}
	now.holds = holdsCredential(b)
	var fs unix.Statfs_t
	if t0 != 0 && now.ctime < t0-racyMargin.Nanoseconds() && unix.Statfs(p, &fs) == nil && ctimeKept(int64(fs.Type)) {
		fileChecks.Store(p, now)
	}
	return now.holds, nil
}

// checkSystemCredentialFiles reads each file of systemCredentialPaths
// into fileChecks ahead of the first run's view, once a process, started
// beside that run's checks and probes (runGated): what the view later
// asks is then a stat a file. A later run (an audit's) would only make
// those stats twice.
var checkSystemCredentialFiles = sync.OnceFunc(func() {
	for _, p := range systemCredentialFilePaths() {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			fileHoldsCredential(real)
		}
	}
})

// systemCredentialFilePaths are the paths of systemCredentialPaths, each
// with a * the files it matches (as filepath.Glob would; the patterns
// here are all well-formed), and the files the host's units name
// (unitEnvironmentFiles), each directory listed once (hostGlob).
func systemCredentialFilePaths() []string {
	g := newHostGlob()
	var paths []string
	for _, p := range systemCredentialPaths {
		if !strings.Contains(p, "*") {
			paths = append(paths, p)
			continue
		}
		paths = append(paths, g.glob(p)...)
	}
	return append(paths, unitEnvironmentFiles(g, coarseNow())...)
}

// unitEnvironmentPaths are the systemd units and drop-ins of the host's
// own configuration whose EnvironmentFile= lines name a file whose
// assignments a service's environment gets: Docker's documented proxy
// set-up keeps its credentials there as well as in Environment=.
var unitEnvironmentPaths = []string{"/etc/systemd/system/*.service", "/etc/systemd/system/*.service.d/*.conf"}

// environmentFileLine is a unit's EnvironmentFile= setting; submatch 1
// is its value.
var environmentFileLine = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?m)^[ \t]*EnvironmentFile[ \t]*=[ \t]*([^\r\n]*)`)
})

// unitEnvironmentFiles are the files the EnvironmentFile= lines of
// unitEnvironmentPaths name (unitEnvironmentValues; a wildcard
// expanded), each checked as a file of systemCredentialPaths is; g lists
// the directories, t0 is the coarse clock read before (0: keep nothing).
func unitEnvironmentFiles(g *hostGlob, t0 int64) []string {
	var out []string
	for _, p := range unitEnvironmentPaths {
		for _, u := range g.glob(p) {
			for _, v := range unitEnvironmentValues(u, t0) {
				out = append(out, g.glob(v)...)
			}
		}
	}
	return out
}

// readConfigFiles calls each with the text of every file the globs match
// (a systemd unit or drop-in, a container engine's config), a link
// followed to its file, as the program that reads it follows it (systemctl
// link; NixOS, whose /etc files are links into its store); one that is
// gone, unreadable, of another kind or past max bytes is passed over.
func readConfigFiles(globs []string, max int64, each func(b []byte)) {
	for _, g := range globs {
		files, _ := filepath.Glob(g)
		for _, f := range files {
			real, err := filepath.EvalSymlinks(f)
			if err != nil {
				continue
			}
			if b, err := readSmallRegular(real, max); err == nil && b != nil {
				each(b)
			}
		}
	}
}

// readSmallRegular reads the regular file p, following no link at its
// end and waiting on nothing (a FIFO or a device put there): nothing where
// it is missing, unreadable or of another kind, an error past max bytes
// (fail closed: never a file read in part).
func readSmallRegular(p string, max int64) ([]byte, error) {
	f, err := os.OpenFile(p, os.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK, 0)
	if err != nil {
		if ignorable(err) {
			return nil, nil
		}
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	switch {
	case err != nil:
		return nil, err
	case !fi.Mode().IsRegular():
		return nil, nil
	case fi.Size() > max:
		return nil, fmt.Errorf("%s: %d bytes, past the %d vigiles reads", p, fi.Size(), max)
	}
	// Read into room for its size and one more byte: two reads where it
	// has not grown, the second at its end.
	buf := make([]byte, 0, fi.Size()+1)
	for {
		n, err := f.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
		if int64(len(buf)) > max {
			return nil, fmt.Errorf("%s: past the %d bytes vigiles reads", p, max)
		}
		if len(buf) == cap(buf) {
			buf = slices.Grow(buf, 4096)
		}
	}
}
