package sandbox

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"

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
// RubyGems' system gemrc (a source with a password in its URL) and
// Maven's global settings.xml (a server's password).
var systemCredentialPaths = []string{
	"/etc/environment",
	"/etc/pip.conf", "/etc/xdg/pip/pip.conf",
	"/etc/uv/uv.toml", "/etc/xdg/uv/uv.toml",
	"/etc/npmrc", "/usr/etc/npmrc", "/usr/local/etc/npmrc",
	"/etc/boto.cfg",
	"/etc/conda/.condarc", "/etc/conda/condarc", "/opt/conda/.condarc", "/opt/conda/condarc",
	"/etc/gemrc",
	"/etc/maven/settings.xml", "/usr/share/maven/conf/settings.xml",
}

// systemFilesFix is what to do where one of them cannot be read.
const systemFilesFix = "make it a regular file of at most 4 MiB, or keep its credentials in a file only root may read"

// maxSystemCredentialFile bounds what is read of one of them; a larger
// one is an error (fail closed), not a file read in part.
const maxSystemCredentialFile = 4 << 20

// credentialURL is an http(s) URL with a user part (a token as the user,
// or a user and password), as a proxy or an index is given with its
// credentials.
var credentialURL = regexp.MustCompile(`(?i)\bhttps?://[^\s/@"'<>]+@`)

// credentialKey is a setting whose name says it holds a secret: npm's
// _authToken, _auth and _password (after a registry's //host/: too),
// boto's and AWS's keys, a password or a token of any INI, TOML, YAML or
// shell assignment; and Maven's <password>, <passphrase> and
// <privateKey> elements.
var credentialKey = regexp.MustCompile(`(?im)^\s*(export\s+)?[^\s=#;]*(_authtoken|_auth|password|passwd|passphrase|secret_access_key|session_token|token|secret)["']?\s*[=:]|<(password|passphrase|privatekey)>`)

// xmlComment is an XML comment: Maven's stock settings.xml shows a
// <password> in one, as an example.
var xmlComment = regexp.MustCompile(`(?s)<!--.*?-->`)

// holdsCredential says whether the text b of a configuration file holds
// a credential by credentialURL or credentialKey, outside XML comments.
func holdsCredential(b []byte) bool {
	b = xmlComment.ReplaceAll(b, nil)
	return credentialURL.Match(b) || credentialKey.Match(b)
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
func systemCredentialFiles(v hostView) ([]scrubbedConfig, error) {
	var out []scrubbedConfig
	for _, p := range systemCredentialPaths {
		real, err := filepath.EvalSymlinks(p)
		if err != nil {
			if ignorable(err) {
				continue
			}
			return nil, err
		}
		if !v.reads(real, 0o4) || slices.ContainsFunc(out, func(c scrubbedConfig) bool { return c.path == real }) {
			continue
		}
		b, err := readSmallRegular(real)
		if err != nil {
			return nil, err
		}
		if holdsCredential(b) {
			out = append(out, scrubbedConfig{path: real, clean: emptyConfig(real)})
		}
	}
	return out, nil
}

// readSmallRegular reads the regular file p, following no link at its
// end and waiting on nothing (a FIFO put there): nothing where it is
// missing, unreadable or of another kind, an error past
// maxSystemCredentialFile.
func readSmallRegular(p string) ([]byte, error) {
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
	case fi.Size() > maxSystemCredentialFile:
		return nil, fmt.Errorf("%s: %d bytes, past the %d vigiles reads", p, fi.Size(), maxSystemCredentialFile)
	}
	var buf bytes.Buffer
	if _, err := io.Copy(&buf, io.LimitReader(f, maxSystemCredentialFile+1)); err != nil {
		return nil, err
	}
	if buf.Len() > maxSystemCredentialFile {
		return nil, fmt.Errorf("%s: past the %d bytes vigiles reads", p, maxSystemCredentialFile)
	}
	return buf.Bytes(), nil
}
