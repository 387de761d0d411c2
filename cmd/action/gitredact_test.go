package main

import (
	"context"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestGitErrorRedactsUserinfo: what an error keeps of git's stderr has
// the user information of each URL in it, and a bare user:password@,
// redacted, before it is cut: a cut in the middle of a URL leaves none
// of its secret either.
func TestGitErrorRedactsUserinfo(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"fatal: unable to access 'https://x-access-token:SECRET@github.example/owner/repo/': The requested URL returned error: 500",
			"fatal: unable to access 'https://***@github.example/owner/repo/': The requested URL returned error: 500"},
		{`fatal: "http://u:SECRET@h/r" and 'ssh://v:SECRET@h2:22/r' and git://w:SECRET@h3`,
			`fatal: "http://***@h/r" and 'ssh://***@h2:22/r' and git://***@h3`},
		{"fatal: repository 'https://SECRET@github.example/o/r/' not found", "fatal: repository 'https://***@github.example/o/r/' not found"},
		{"fatal: 'HTTPS://us%40er:SEC%40RET@h/r'", "fatal: 'HTTPS://***@h/r'"},
		{"fatal: 'https://u:SE@CR:ET@h:1/r'", "fatal: 'https://***@h:1/r'"},
		{"fatal: 'http://u:SECRET@[::1]:8080/r'", "fatal: 'http://***@[::1]:8080/r'"},
		{"fatal: unable to look up user:SECRET@127.0.0.1:1 (port 9418) (Name or service not known)",
			"fatal: unable to look up ***@127.0.0.1:1 (port 9418) (Name or service not known)"},
		{"user:SE:CRET@host: Permission denied (publickey).\r\nfatal: Could not read from remote repository.",
			"***@host: Permission denied (publickey).\r\nfatal: Could not read from remote repository."},
		{"(user:SECRET@host)", "(***@host)"},
		// A git:// remote's user alone, which git's lookup names with the
		// host (git 2.39): the protocol has no login, so it is a secret.
		{"fatal: unable to look up SECRET@127.0.0.1 (port 1) (Name or service not known)",
			"fatal: unable to look up ***@127.0.0.1 (port 1) (Name or service not known)"},
		{"fatal: unable to look up SE@CRET@h3 (port 9418) (Name or service not known)",
			"fatal: unable to look up ***@h3 (port 9418) (Name or service not known)"},
		// No secret: left as git said it.
		{"git@github.example: Permission denied (publickey).", "git@github.example: Permission denied (publickey)."},
		{"fatal: 'git@github.example:owner/repo.git' does not appear to be a git repository", "fatal: 'git@github.example:owner/repo.git' does not appear to be a git repository"},
		{"fatal: bad revision 'HEAD@{0}:x'; refs/heads/main: t@t", "fatal: bad revision 'HEAD@{0}:x'; refs/heads/main: t@t"},
		{"fatal: unable to access 'https://github.example/o/r/': Could not resolve host: github.example", "fatal: unable to access 'https://github.example/o/r/': Could not resolve host: github.example"},
	} {
		if got := gitMessage(c.in); got != c.want {
			t.Errorf("gitMessage(%q)\n = %q\nwant %q", c.in, got, c.want)
		}
	}

	// Cut at maxGitMessage in the middle of a URL, its "@" past the cut.
	pre := "fatal: unable to access '" + strings.Repeat("é", 120) // 265 bytes, then the URL, its "@" at 306
	in := pre + "https://x-access-token:SECRETSECRETSECRET@github.example/o/r/': error"
	got := gitMessage(in)
	if strings.Contains(got, "SECRET") || !strings.HasPrefix(got, pre+"https://***@") || len(got) > maxGitMessage+len("…") {
		t.Errorf("a URL cut at %d bytes: %q", maxGitMessage, got)
	}
	// A character at the cut is left whole.
	got = gitMessage("x" + strings.Repeat("é", 200))
	if !utf8.ValidString(got) || !strings.HasSuffix(got, "é…") {
		t.Errorf("a cut inside a character: %q", got)
	}
}

// TestGitErrorIsGitsOwnUnderTrace: where the caller's environment makes
// git trace itself on stderr (GIT_TRACE=1, GIT_TRACE2, GIT_TRACE_CURL
// with GIT_TRACE_REDACT=0, …), a failed fetch's error is git's own
// reason, its origin's secret redacted, and no trace line: those came
// first, filled the bound, and left the reason out.
func TestGitErrorIsGitsOwnUnderTrace(t *testing.T) {
	dir := t.TempDir()
	gitIn(t, dir, "init", "-q")
	gitIn(t, dir, "remote", "add", "origin", "http://x-access-token:"+originSecret+"@127.0.0.1:1/owner/repo.git")
	for _, v := range []string{"GIT_TRACE", "GIT_TRACE2", "GIT_TRACE2_EVENT", "GIT_TRACE_CURL", "GIT_TRACE_PACKET", "GIT_TRACE_SETUP", "GIT_CURL_VERBOSE"} {
		t.Setenv(v, "1")
	}
	t.Setenv("GIT_TRACE_REDACT", "0")
	t.Setenv("GIT_TRACE2_ENV_VARS", "VIGILES_TRACE_PROBE")
	t.Setenv("VIGILES_TRACE_PROBE", originSecret)
	_, err := git(context.Background(), dir, 1<<20, "fetch", "--no-tags", "--depth=1", "origin", "main")
	if err == nil {
		t.Fatal("the fetch from a port nothing listens on succeeded")
	}
	msg := err.Error()
	if !strings.Contains(msg, "fatal: unable to access 'http://127.0.0.1:1/owner/repo.git/'") || strings.Contains(msg, "trace") || strings.Contains(msg, "== Info") || strings.Contains(msg, originSecret) {
		t.Errorf("the error %q: want git's own reason, no trace line and no secret", msg)
	}
}
