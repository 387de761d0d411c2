package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/vigiles/action/pkg/annotate"
	"github.com/vigiles/action/pkg/annotate/annotatetest"
	"github.com/vigiles/action/pkg/egress"
	"github.com/vigiles/action/pkg/runner"
	"github.com/vigiles/action/pkg/sandbox"
)

// TestHelpGoesToStdout: help that was asked for is the command's output
// (stdout, status 0); help printed because of a usage mistake goes with
// the error to stderr (status 2).
func TestHelpGoesToStdout(t *testing.T) {
	heads := map[string]string{
		"run": "Usage: vigiles run", "doctor": "Usage: vigiles doctor", "test": "Usage: vigiles test",
		"audit": "Usage: vigiles audit", "merge": "Usage: vigiles merge", "action": "vigiles action: the entry point",
	}
	for cmd, head := range heads {
		for _, args := range [][]string{{cmd, "--help"}, {cmd, "-h"}, {"help", cmd}} {
			t.Run(strings.Join(args, " "), func(t *testing.T) {
				code, out, errs := runCLI(t, args...)
				if code != 0 || !strings.HasPrefix(out, head) || errs != "" {
					t.Errorf("exit %d, stdout %.60q, stderr %q: want status 0 and %q on stdout only", code, out, errs, head)
				}
			})
		}
	}
	// Every command the usage lists has help, version and help too.
	if code, out, errs := runCLI(t, "help", "version"); code != 0 || !strings.HasPrefix(out, "Usage: vigiles version") || errs != "" {
		t.Errorf("help version: exit %d, stdout %.60q, stderr %q", code, out, errs)
	}
	for _, args := range [][]string{{"version", "--help"}, {"--version", "-h"}} {
		if code, out, errs := runCLI(t, args...); code != 0 || !strings.HasPrefix(out, "Usage: vigiles version") || errs != "" {
			t.Errorf("%q: exit %d, stdout %.60q, stderr %q", args, code, out, errs)
		}
	}
	if code, out, errs := runCLI(t, "version", "extra"); code != 2 || out != "" || !strings.Contains(errs, `version: unexpected argument "extra"`) {
		t.Errorf("version extra: exit %d, stdout %q, stderr %q; want 2", code, out, errs)
	}
	for _, args := range [][]string{{"--help"}, {"help"}, {"help", "help"}, {"help", "--help"}, {"help", "-h"}} {
		if code, out, errs := runCLI(t, args...); code != 0 || !strings.Contains(out, "Commands:") || !strings.Contains(out, "\n  help ") || errs != "" {
			t.Errorf("%q: exit %d, stdout %.60q, stderr %q", args, code, out, errs)
		}
	}
	// The exit statuses it sums up are each command's: doctor's 1 too.
	_, top, _ := runCLI(t, "--help")
	_, doctor, _ := runCLI(t, "doctor", "--help")
	if !strings.Contains(doctor, "1 when it cannot") || !strings.Contains(top, "1 an expectation or finding failed (doctor: this host\ncannot confine)") {
		t.Errorf("vigiles --help does not say what doctor's exit status 1 means:\n%s", top)
	}
	for _, tc := range []struct {
		args []string
		help string // on stderr, or "" for none
	}{
		{[]string{"run"}, "Usage: vigiles run"},
		{[]string{"run"}, "\nvigiles: run: no command given; name it after the flags, as in vigiles run -- ./hook.sh (the -- is needed only where it starts with -)\n"},
		{[]string{"run", "--json"}, "\nvigiles: run: no command given; name it after"},
		{[]string{"merge"}, "Usage: vigiles merge"},
		{[]string{"help", "nosuch"}, `help: unknown command "nosuch" (vigiles --help lists the commands)`},
		// help takes one command, as doctor and version take none.
		{[]string{"help", "run", "extra"}, `help: unexpected argument "extra" (help takes one command: vigiles help run)`},
		{[]string{"help", "help", "run"}, `help: unexpected argument "run"`},
		{[]string{"help", "nosuch", "x"}, `help: unknown command "nosuch"`},
		{[]string{"nosuch"}, `unknown command "nosuch" (vigiles --help lists the commands)`},
		{[]string{"run", "--no-such-flag", "--", "true"}, ""},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			code, out, errs := runCLI(t, tc.args...)
			if code != 2 || out != "" || !strings.Contains(errs, tc.help) || !strings.Contains(errs, "vigiles: ") {
				t.Errorf("exit %d, stdout %.60q, stderr %q: want status 2, the error (and %q) on stderr only", code, out, errs, tc.help)
			}
		})
	}
}

// TestMessagesReadAsSentences: the sentinel errors that classify a mistake
// (errors.Is still finds them) are not printed as a trailing label, and a
// missing policy file says how to name another and where the format is.
func TestMessagesReadAsSentences(t *testing.T) {
	empty := t.TempDir()
	for _, tc := range []struct {
		args   []string
		is     error
		want   string
		labels []string
	}{
		{[]string{"test", "--shard", "3/2"}, runner.ErrBadShard, `--shard "3/2": want i/n`, []string{"bad shard"}},
		{[]string{"audit", "--dir", empty, "nonexistent"}, runner.ErrBadOption, `audit: path "nonexistent" does not exist ("` + empty + `/nonexistent"; a PATH is relative to --dir "` + empty + `")` + "\n", []string{"bad option"}},
		{[]string{"run", "--egress", "allow", "--allow", "a..b", "--", "true"}, egress.ErrBadPolicy, `--allow "a..b": host name labels`, []string{"invalid egress policy"}},
		{[]string{"test", "--dir", empty}, runner.ErrNoConfig, `there is no policy file at "` + empty + `/.vigiles.yml"; name another with --config, or write one (examples/README.md`,
			[]string{"no policy file: stat", ": no policy file"}},
		{[]string{"audit", "--dir", empty, "--config", "missing.yml"}, runner.ErrNoConfig, `missing.yml"; name another with --config`, []string{": no policy file"}},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			var out, errb bytes.Buffer
			err := run(context.Background(), tc.args, func(string) string { return "" }, strings.NewReader(""), &out, &errb)
			if !errors.Is(err, tc.is) {
				t.Errorf("error %v does not wrap %v", err, tc.is)
			}
			code := exitCode(err, &errb, false)
			if code != 2 || !strings.Contains(errb.String(), tc.want) {
				t.Errorf("exit %d (want 2), stderr does not say %q:\n%s", code, tc.want, errb.String())
			}
			for _, l := range tc.labels {
				if strings.Contains(errb.String(), l) {
					t.Errorf("stderr still says %q:\n%s", l, errb.String())
				}
			}
		})
	}
}

// TestAsFlagNamesTheValueOnce: a parser's refusal of a value (a shard, a
// sandbox mode) is said after the flag or the input that gave it, from
// the refusal's own value and reason, not by cutting its text; the error
// stays of the refusal's kind. Any other error is put after the flag.
func TestAsFlagNamesTheValueOnce(t *testing.T) {
	_, _, shardErr := runner.ParseShard("3/2")
	_, modeErr := sandbox.ParseMode("bogus")
	for _, tc := range []struct {
		err             error
		flag, input, is string
	}{
		{shardErr, `--shard "3/2": want i/n with 1 ≤ i ≤ n ≤ 10000`, `"3/2": want i/n with 1 ≤ i ≤ n ≤ 10000`, "shard"},
		{modeErr, `--sandbox "bogus": want auto, strict or off`, `"bogus": want auto, strict or off`, "mode"},
		{errors.New("something else"), "--sandbox: something else", "something else", ""},
	} {
		flag := "--shard"
		if tc.is != "shard" {
			flag = "--sandbox"
		}
		for _, got := range []struct {
			err  error
			want string
		}{{asFlag(flag, tc.err), tc.flag}, {asInput(tc.err), tc.input}} {
			if got.err.Error() != got.want {
				t.Errorf("%v: said %q, want %q", tc.err, got.err, got.want)
			}
			var me *sandbox.ModeError
			if tc.is == "shard" && !errors.Is(got.err, runner.ErrBadShard) || tc.is == "mode" && !errors.As(got.err, &me) {
				t.Errorf("%q lost the refusal's kind", got.err)
			}
		}
	}
	// The parser's own text is kept for its other callers.
	if shardErr.Error() != `shard "3/2": want i/n with 1 ≤ i ≤ n ≤ 10000` || modeErr.Error() != `sandbox mode "bogus": want auto, strict or off` {
		t.Errorf("the parsers say %q and %q", shardErr, modeErr)
	}
}

// TestActionReportsEachBadInputOnce: several bad inputs are one line and
// one ::error:: each, a bad egress once, with no label at the end.
func TestActionReportsEachBadInputOnce(t *testing.T) {
	bad := map[string]string{"command": "scan", "egress": "open", "check-run": "yes", "allow": "evil example"}
	_, err := readInputs(func(k string) string {
		for n, v := range bad {
			if k == "INPUT_"+strings.ToUpper(n) {
				return v
			}
		}
		return ""
	})
	if !errors.Is(err, errBadInput) {
		t.Errorf("error %v does not wrap errBadInput", err)
	}
	s := newStep(t, bad)
	s.run(t)
	if s.exitCode != 2 {
		t.Errorf("exit %d, want 2", s.exitCode)
	}
	var msgs []string
	for _, c := range annotatetest.Commands(s.stdout.String()) {
		if c.Name != "error" {
			t.Errorf("command %+v", c)
		}
		msgs = append(msgs, c.Data)
	}
	want := []string{
		`input command: "scan" is not test, audit or merge`,
		`input egress: "open": want deny, record or allow`,
		`input allow: "evil example" is not a host name (HOST, *.SUFFIX, HOST:PORT)`,
		`input check-run: "yes": want true or false: set check-run: true`,
	}
	if d := cmp.Diff(want, msgs); d != "" {
		t.Errorf("annotations (-want +got):\n%s", d)
	}
	// On stderr, in the step log, each ':' after "vigiles: " is a
	// lookalike that no problem matcher takes for one.
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(s.stderr.String()), "\n") {
		lines = append(lines, strings.TrimPrefix(strings.ReplaceAll(l, annotate.Colon, ":"), "vigiles: "))
	}
	if d := cmp.Diff(want, lines); d != "" {
		t.Errorf("stderr lines (-want +got):\n%s", d)
	}
}

// TestActionAllowOutsideAllowModeSaidOnce: hosts to allow with another
// egress mode are one mistake, said once (not again by the engine's check).
func TestActionAllowOutsideAllowModeSaidOnce(t *testing.T) {
	_, err := readInputs(func(k string) string {
		return map[string]string{"INPUT_EGRESS": "deny", "INPUT_ALLOW": "api.example.test"}[k]
	})
	want := "input allow: hosts are allowed only with egress allow (egress is deny)"
	if err == nil || err.Error() != want {
		t.Errorf("error = %v, want only %q", err, want)
	}
}

// TestReadmeCommandsListEveryFlag: README.md's Commands block names every
// command and every flag (run's --limit-* as "--limit-…"), and no flag
// that the command's help does not list.
func TestReadmeCommandsListEveryFlag(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, _ := strings.Cut(string(b), "## Commands\n\n```\n")
	block, _, ok := strings.Cut(rest, "```")
	if !ok {
		t.Fatal("README.md has no Commands block")
	}
	// Each command's lines: from "vigiles NAME" to the next command; test
	// and audit share the "(both: …)" line.
	sections := map[string]string{}
	var cur string
	for _, l := range strings.Split(block, "\n") {
		if f := strings.Fields(l); len(f) > 1 && f[0] == "vigiles" {
			cur = f[1]
		}
		sections[cur] += l + "\n"
	}
	// The other way: each flag a command's lines name is one its help
	// lists, spelt so (test's own lines and the line it shares with
	// audit; audit's are all its own).
	own := map[string]string{}
	for name, sec := range sections {
		own[name] = sec
	}
	for _, l := range strings.Split(sections["audit"], "\n") {
		if strings.Contains(l, "(both:") {
			own["test"] += l + "\n"
		}
	}
	namedRE := regexp.MustCompile(`(?:^|[\s\[|(])(--?[a-z][\w-]*)`)
	for name := range subcommands {
		_, out, _ := runCLI(t, name, "--help")
		for _, m := range namedRE.FindAllStringSubmatch(own[name], -1) {
			f := m[1]
			if f == "-" {
				continue
			}
			listed := strings.Contains(out, "  "+f+" ") || strings.Contains(out, " "+f+"[=") ||
				strings.Contains(out, "  "+f+", ") || strings.Contains(out, ", "+f+" ") || strings.Contains(out, ", "+f+"[=")
			if !listed {
				t.Errorf("the Commands block names %s %s, which vigiles %s --help does not list", name, f, name)
			}
		}
	}

	sections["test"] += sections["audit"]
	flagRE := regexp.MustCompile(`(?m)^\s+(?:(-\w), )?(--[\w-]+)`)
	for name := range subcommands {
		sec, ok := sections[name]
		if !ok {
			t.Errorf("the Commands block lacks vigiles %s", name)
		}
		_, out, _ := runCLI(t, name, "--help")
		for _, m := range flagRE.FindAllStringSubmatch(out, -1) {
			short, long := m[1], m[2]
			if !strings.Contains(sec, long+" ") && !strings.Contains(sec, long+"]") && (short == "" || !strings.Contains(sec, short+"]")) {
				t.Errorf("the Commands block lacks %s %s", name, long)
			}
		}
	}
}

// TestHelpNamesItsDocs: every command's help ends by naming the documents
// that describe it, and each one it names is in the repository.
func TestHelpNamesItsDocs(t *testing.T) {
	docRE := regexp.MustCompile(`(?:docs|examples)/[\w.-]+\.md`)
	for name := range subcommands {
		_, out, _ := runCLI(t, name, "--help")
		_, more, ok := strings.Cut(out, "\nMore: ")
		if !ok {
			t.Errorf("vigiles %s --help does not say where its docs are:\n%s", name, out)
			continue
		}
		docs := docRE.FindAllString(more, -1)
		if len(docs) == 0 {
			t.Errorf("vigiles %s --help: %q names no document", name, more)
		}
		for _, d := range docs {
			if _, err := os.Stat("../../" + d); err != nil {
				t.Errorf("vigiles %s --help names %s: %v", name, d, err)
			}
		}
	}
}

// TestHelpNamesTheDocsOfItsSubject: the help of test and audit, which
// run hooks for events with payloads of vigiles' choosing, names
// docs/hook-events.md, where those events and payloads are, beside the
// report's and the policy's documents; run's names the threat model,
// docs/security.md, beside its result's and the network's.
func TestHelpNamesTheDocsOfItsSubject(t *testing.T) {
	for name, docs := range map[string][]string{
		"test":  {"docs/hook-events.md", "docs/report-format.md", "examples/README.md"},
		"audit": {"docs/hook-events.md", "docs/report-format.md", "examples/README.md"},
		"run":   {"docs/result-format.md", "docs/egress.md", "docs/security.md"},
	} {
		_, out, _ := runCLI(t, name, "--help")
		_, more, _ := strings.Cut(out, "\nMore: ")
		for _, d := range docs {
			if !strings.Contains(more, d) {
				t.Errorf("vigiles %s --help: %q does not name %s", name, strings.TrimSpace(more), d)
			}
		}
	}
}

// TestFlagMistakeNamesTheFix: a flag that does not parse is one line on
// stderr, status 2, naming the command and where its flags are listed.
func TestFlagMistakeNamesTheFix(t *testing.T) {
	for _, args := range [][]string{
		{"run", "--no-such-flag", "--", "true"},
		{"run", "--timeout"},
		{"run", "--limit-cpu", "-1", "--", "true"},
		{"test", "-o"},
		{"audit", "--jobs", "many"},
		{"merge", "--nope", "a.json"},
		{"doctor", "--verbose"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			code, out, errs := runCLI(t, args...)
			want := "vigiles: " + args[0] + ": "
			tail := "; see vigiles " + args[0] + " --help\n"
			if code != 2 || out != "" || strings.Count(errs, "\n") != 1 || !strings.HasPrefix(errs, want) || !strings.HasSuffix(errs, tail) {
				t.Errorf("exit %d, stdout %q, stderr %q: want status 2 and one line %q…%q", code, out, errs, want, tail)
			}
		})
	}
}

// TestJobsBounded: --jobs past what the sandboxes' uid pool and the host
// can hold is bad usage, as a negative count is.
func TestJobsBounded(t *testing.T) {
	for _, n := range []string{"-1", "100000"} {
		code, _, errs := runCLI(t, "audit", "--jobs", n, "--baseline", "", t.TempDir())
		if code != 2 || !strings.Contains(errs, "--jobs "+n+": want 0 (one per core) to 1024") {
			t.Errorf("--jobs %s: exit %d, stderr %q; want 2 and the bounds", n, code, errs)
		}
	}
}

// TestOutputMistakeIsUsage: an -o that names a directory, or a file under
// a file, is bad usage said before any hook runs, not a failure after all
// of them.
func TestOutputMistakeIsUsage(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ args []string }{
		{[]string{"audit", "--baseline", "", "--dir", dir, "-o", dir}},
		{[]string{"test", "--dir", dir, "-o", filepath.Join(file, "r.json")}},
		{[]string{"merge", "-o", dir, file}},
	} {
		code, out, errs := runCLI(t, c.args...)
		if code != 2 || out != "" || !strings.Contains(errs, "--output ") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2 and --output named", c.args, code, out, errs)
		}
	}
}

// TestOutputThroughATreesLinkIsRefused: a report path that is, or passes
// through, a symbolic link inside the work tree (a checkout's report.json
// that leads to a file of the host's, a directory that leads out) is
// refused before anything runs, and what the link names is left as it
// was; a link outside the tree, the caller's own, is written through.
func TestOutputThroughATreesLinkIsRefused(t *testing.T) {
	tree, outside := t.TempDir(), t.TempDir()
	victim := filepath.Join(outside, "victim")
	if err := os.WriteFile(victim, []byte("kept"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, l := range [][2]string{{victim, "report.json"}, {filepath.Join(outside, "made"), "dangling.json"}, {outside, "out"}} {
		if err := os.Symlink(l[0], filepath.Join(tree, l[1])); err != nil {
			t.Fatal(err)
		}
	}
	// The tree by another spelling: a link to it, which --dir names
	// while -o names the tree's real path, and the other way round.
	alias := filepath.Join(t.TempDir(), "alias")
	if err := os.Symlink(tree, alias); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ dir, o string }{
		{tree, filepath.Join(tree, "report.json")},
		{tree, filepath.Join(tree, "dangling.json")},
		{tree, filepath.Join(tree, "out", "r.json")},
		{tree, tree + "/out/../report2.json"}, // through the link, then up: the kernel lands outside
		{alias, filepath.Join(tree, "report.json")},
		{tree, filepath.Join(alias, "out", "r.json")},
	} {
		code, _, errs := runCLI(t, "audit", "--baseline", "", "--dir", c.dir, "-o", c.o)
		if code != 2 || !strings.Contains(errs, "is a symbolic link in the work tree") {
			t.Errorf("--dir %s -o %s: exit %d, stderr %q; want 2 and the link named", c.dir, c.o, code, errs)
		}
	}
	if b, _ := os.ReadFile(victim); string(b) != "kept" {
		t.Errorf("the link's target was written: %q", b)
	}
	if ents, _ := os.ReadDir(outside); len(ents) != 1 {
		t.Errorf("files made outside the tree: %v", ents)
	}
	mine := filepath.Join(outside, "mine.json")
	if err := os.Symlink(victim, mine); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := runCLI(t, "audit", "--baseline", "", "--dir", tree, "-q", "--format", "json", "-o", mine); code > 1 {
		t.Errorf("-o through the caller's own link: exit %d, stderr %q", code, errs)
	}
	if b, _ := os.ReadFile(victim); !strings.Contains(string(b), `"verdict"`) {
		t.Errorf("the caller's link was not written through: %q", b)
	}
}

// TestReadmeDefaultsAgreeWithHelp: a default README.md's Commands block
// shows for a flag (run's [--linger 0s], [--timeout 1m]) is the one the
// flag's help gives (--linger's help gave none), a duration written as
// the help writes it (1m, where 60s and 1m0s are the same value).
func TestReadmeDefaultsAgreeWithHelp(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, _ := strings.Cut(string(b), "## Commands\n\n```\n")
	block, _, _ := strings.Cut(rest, "```")
	same := func(a, b string) bool {
		if _, err := time.ParseDuration(a); err == nil {
			return a == b
		}
		sa, err1 := runner.ParseSize(a)
		sb, err2 := runner.ParseSize(b)
		return err1 == nil && err2 == nil && sa == sb
	}
	shown := regexp.MustCompile(`\[(--[\w-]+) ([0-9][\w.]*)\]`)
	checked := 0
	for _, cmd := range []string{"run", "test", "audit"} {
		_, help, _ := runCLI(t, cmd, "--help")
		for _, m := range shown.FindAllStringSubmatch(block, -1) {
			line := regexp.MustCompile(`(?m)^\s+` + regexp.QuoteMeta(m[1]) + ` .*$`).FindString(help)
			if line == "" {
				continue // another command's flag
			}
			checked++
			d := regexp.MustCompile(`\(default ([^):]+)`).FindStringSubmatch(line)
			if d == nil || !same(m[2], strings.TrimSpace(d[1])) {
				t.Errorf("README shows %s %s; vigiles %s --help: %q", m[1], m[2], cmd, strings.TrimSpace(line))
			}
		}
	}
	if checked < 4 {
		t.Errorf("checked %d defaults; the README's Commands block should show --timeout, --linger, --output-cap and --max-runs", checked)
	}
}

// TestHelpThatCannotBeWrittenFails: help or a version that could not be
// written (a full disk, a closed pipe) is status 125, as any other output
// vigiles could not write; it was status 0 with nothing written.
func TestHelpThatCannotBeWrittenFails(t *testing.T) {
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		missing(t, fmt.Sprintf("/dev/full, a file every write to fails (%v)", err))
	}
	defer full.Close()
	for _, args := range [][]string{{"--help"}, {"help"}, {"help", "run"}, {"help", "version"}, {"version"}, {"version", "--help"}, {"run", "--help"}, {"audit", "-h"}} {
		var errb bytes.Buffer
		err := run(context.Background(), args, func(string) string { return "" }, strings.NewReader(""), full, &errb)
		if code := exitCode(err, &errb, false); code != 125 || !strings.Contains(errb.String(), "no space left on device") {
			t.Errorf("%q to /dev/full: exit %d, stderr %q; want 125 naming the error", args, code, errb.String())
		}
	}
}

// TestSandboxOffRefusesConfinedOnlyFlags: test and audit with --sandbox
// off run every hook in the open, so --egress, --allow and --root-sandbox
// would do nothing: bad usage, as for vigiles run (README.md's Commands).
// The reason is the sandbox's, as vigiles run says it: not only the
// network, which --root-sandbox has nothing to do with.
func TestSandboxOffRefusesConfinedOnlyFlags(t *testing.T) {
	old := geteuid
	geteuid = func() int { return 0 } // --root-sandbox is for root callers only
	t.Cleanup(func() { geteuid = old })
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"test", "--dir", dir, "--sandbox", "off", "--egress", "record"}, "--sandbox off runs every hook in the open, which cannot honour --egress: " + onlyASandbox},
		{[]string{"audit", "--dir", dir, "--baseline", "", "--sandbox", "off", "--egress", "allow", "--allow", "a.example.test"},
			"--sandbox off runs every hook in the open, which cannot honour --egress, --allow: only a sandbox walls and records the network, records writes and holds limits; leave them out"},
		{[]string{"audit", "--dir", dir, "--baseline", "", "--sandbox", "off", "--root-sandbox"},
			"audit: --sandbox off runs every hook in the open, which cannot honour --root-sandbox: only a sandbox walls and records the network, records writes and holds limits; leave it out, or confine the hooks (--sandbox strict or auto)"},
	} {
		code, out, errs := runCLI(t, tc.args...)
		if code != 2 || out != "" || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2 and %q", tc.args, code, out, errs, tc.want)
		}
	}
}

// TestPolicyLinkedOutIsUsage: a .vigiles.yml that a symbolic link leads
// out of the repository is not read, and that is the caller's to fix, as
// for a policy file too large or a FIFO (README.md): exit 2, not 125.
func TestPolicyLinkedOutIsUsage(t *testing.T) {
	dir, elsewhere := t.TempDir(), t.TempDir()
	target := filepath.Join(elsewhere, "policy.yml")
	if err := os.WriteFile(target, []byte("checks: []\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, filepath.Join(dir, ".vigiles.yml")); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"test", "--dir", dir}, {"audit", "--dir", dir, "--baseline", ""}} {
		code, out, errs := runCLI(t, args...)
		if code != 2 || out != "" || !strings.Contains(errs, "a symbolic link leads it outside the repository") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2 and the link named", args, code, out, errs)
		}
	}
}

// TestPolicySandboxOffRefusesConfinedOnlyFlags: a policy's
// defaults.sandbox: off runs every hook in the open too: --egress or
// --root-sandbox beside it is bad usage, unless --sandbox confines the
// hooks again.
func TestPolicySandboxOffRefusesConfinedOnlyFlags(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, ".vigiles.yml"), []byte("version: 1\ndefaults:\n  sandbox: off\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"audit", "--dir", dir, "--baseline", "", "--egress", "record"},
		{"test", "--dir", dir, "--egress", "deny"},
	} {
		code, out, errs := runCLI(t, args...)
		if code != 2 || out != "" || !strings.Contains(errs, "says defaults.sandbox: off, which runs every hook in the open, where --egress does nothing") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2 and the moot flag named", args, code, out, errs)
		}
	}
	// --allow alone is moot too, and is said so first: it was told to add
	// --egress allow, which was then refused for the same policy.
	code, out, errs := runCLI(t, "test", "--dir", dir, "--allow", "api.example.test")
	if code != 2 || out != "" || !strings.Contains(errs, "where --allow does nothing") || strings.Contains(errs, "add --egress allow") {
		t.Errorf("--allow beside the policy's off: exit %d, stdout %q, stderr %q; want 2 and --allow named moot", code, out, errs)
	}
	// --sandbox strict confines them again: the flag is honoured.
	if code, _, errs := runCLI(t, "audit", "--dir", dir, "--baseline", "", "--sandbox", "strict", "--egress", "record", "-q"); code == 2 {
		t.Errorf("--sandbox strict beside the policy's off: exit 2: %s", errs)
	}
}

// TestFlagBeforeCommandSaysTheOrder: a flag given before the command is
// no command, and the error says the command comes first.
func TestFlagBeforeCommandSaysTheOrder(t *testing.T) {
	code, _, errs := runCLI(t, "--dir", ".", "test")
	if code != 2 || !strings.Contains(errs, `unknown command "--dir": the command comes first, then its flags (vigiles test --dir .)`) {
		t.Errorf("exit %d, stderr %q", code, errs)
	}
}

// TestUnknownCommandSaysTheNearestOne: a mistyped command is one line on
// stderr, with the command it is a slip away from where there is one and
// where the list is, not the whole help; status 2, nothing on stdout.
func TestUnknownCommandSaysTheNearestOne(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"tset"}, `vigiles: unknown command "tset"; did you mean test? (vigiles --help lists the commands)` + "\n"},
		{[]string{"audti", "--dir", "."}, `vigiles: unknown command "audti"; did you mean audit? (vigiles --help lists the commands)` + "\n"},
		{[]string{"rnu"}, `vigiles: unknown command "rnu"; did you mean run? (vigiles --help lists the commands)` + "\n"},
		{[]string{"verison"}, `vigiles: unknown command "verison"; did you mean version? (vigiles --help lists the commands)` + "\n"},
		{[]string{"Merge"}, `vigiles: unknown command "Merge"; did you mean merge? (vigiles --help lists the commands)` + "\n"},
		{[]string{"help", "doctr"}, `vigiles: help: unknown command "doctr"; did you mean doctor? (vigiles --help lists the commands)` + "\n"},
		// A word more than a command takes: what it takes instead.
		{[]string{"doctor", "json"}, `vigiles: doctor: unexpected argument "json" (doctor takes none: it probes this host; --json prints its report as JSON)` + "\n"},
		{[]string{"version", "--short"}, `vigiles: version: unexpected argument "--short" (version takes none: vigiles version)` + "\n"},
		{[]string{"scan"}, `vigiles: unknown command "scan" (vigiles --help lists the commands)` + "\n"},
		{[]string{"xy"}, `vigiles: unknown command "xy" (vigiles --help lists the commands)` + "\n"},
		// A flag too: a slip of one of the command's, and --json where
		// the report's form is --format's.
		{[]string{"run", "--egres", "deny", "--", "true"}, `vigiles: run: unknown flag: --egres (did you mean --egress?); see vigiles run --help` + "\n"},
		{[]string{"audit", "--json"}, `vigiles: audit: unknown flag: --json (did you mean --format json?); see vigiles audit --help` + "\n"},
		{[]string{"test", "--json=true"}, `vigiles: test: unknown flag: --json (did you mean --format json?); see vigiles test --help` + "\n"},
		{[]string{"test", "--colour"}, `vigiles: test: unknown flag: --colour; see vigiles test --help` + "\n"},
		// The first words of one flag, or its words in another order.
		{[]string{"audit", "--update"}, `vigiles: audit: unknown flag: --update (did you mean --update-baseline?); see vigiles audit --help` + "\n"},
		{[]string{"audit", "--baseline-update"}, `vigiles: audit: unknown flag: --baseline-update (did you mean --update-baseline?); see vigiles audit --help` + "\n"},
		{[]string{"test", "--max", "5"}, `vigiles: test: unknown flag: --max (did you mean --max-runs?); see vigiles test --help` + "\n"},
		{[]string{"run", "--limit", "5", "--", "true"}, `vigiles: run: unknown flag: --limit; see vigiles run --help` + "\n"},
		// A flag of another command: the one this command has, or the
		// policy file's key that sets it for test and audit.
		{[]string{"run", "--format", "json", "--", "true"}, `vigiles: run: unknown flag: --format (did you mean --json? it prints the vigiles.run/v1 document on stdout); see vigiles run --help` + "\n"},
		{[]string{"run", "--json", "-o", "r.json", "--", "true"}, `vigiles: run: unknown shorthand flag: 'o' in -o (vigiles run writes no file: --json prints the result on stdout, which > writes to one); see vigiles run --help` + "\n"},
		{[]string{"run", "--output=r.json", "--", "true"}, `vigiles: run: unknown flag: --output (vigiles run writes no file: --json prints the result on stdout, which > writes to one); see vigiles run --help` + "\n"},
		// A flag whose value was left out takes the -- that ends the
		// flags as its value.
		{[]string{"run", "--stdin", "--", "cat"}, `vigiles: run: --stdin took "--" as its value, which is missing: give it before the -- that ends the flags; see vigiles run --help` + "\n"},
		{[]string{"run", "--env", "A=1", "--env", "--", "true"}, `vigiles: run: --env took "--" as its value, which is missing: give it before the -- that ends the flags; see vigiles run --help` + "\n"},
		{[]string{"audit", "--baseline", "--", "plugins"}, `vigiles: audit: --baseline took "--" as its value, which is missing: give it before the -- that ends the flags; see vigiles audit --help` + "\n"},
		{[]string{"run", "--dir=.", "--", "true"}, `vigiles: run: unknown flag: --dir (did you mean --workdir?); see vigiles run --help` + "\n"},
		{[]string{"audit", "--workdir", "."}, `vigiles: audit: unknown flag: --workdir (did you mean --dir?); see vigiles audit --help` + "\n"},
		{[]string{"test", "--timeout", "5s"}, `vigiles: test: unknown flag: --timeout (that is vigiles run's; here the policy file's defaults.timeout, or a check's timeout, sets it); see vigiles test --help` + "\n"},
		{[]string{"audit", "--limit-memory=1GiB"}, `vigiles: audit: unknown flag: --limit-memory (that is vigiles run's; here the policy file's defaults.limits.memory sets it); see vigiles audit --help` + "\n"},
		{[]string{"test", "--env", "A=1"}, `vigiles: test: unknown flag: --env (that is vigiles run's; here a check's env in the policy file sets it); see vigiles test --help` + "\n"},
		{[]string{"test", "--trusted"}, `vigiles: test: unknown flag: --trusted (that is vigiles run's; here the policy file's plugins.trusted, or a command check's trusted: true, sets it); see vigiles test --help` + "\n"},
		{[]string{"audit", "--stdin", "event.json"}, `vigiles: audit: unknown flag: --stdin (that is vigiles run's; here the event's JSON, which the policy file's payloads and a check's input and payload make, sets it); see vigiles audit --help` + "\n"},
		{[]string{"merge", "--timeout", "5s"}, `vigiles: merge: unknown flag: --timeout (that is a flag of vigiles run, not of vigiles merge); see vigiles merge --help` + "\n"},
		{[]string{"--dir", ".", "test"}, `vigiles: unknown command "--dir": the command comes first, then its flags (vigiles test --dir .); vigiles --help lists the commands` + "\n"},
		// vigiles action takes no flags: the variable that sets the
		// input instead, with the value given (never a token's).
		{[]string{"action", "--command", "audit"}, `vigiles: action: unknown flag: --command (vigiles action takes no flags; set the input as a variable instead: INPUT_COMMAND=audit vigiles action); see vigiles action --help` + "\n"},
		{[]string{"action", "--fail-levle=warning"}, `vigiles: action: unknown flag: --fail-levle (vigiles action takes no flags; set the input as a variable instead: INPUT_FAIL_LEVEL=warning vigiles action); see vigiles action --help` + "\n"},
		{[]string{"action", "--github-token", "ghp_x"}, `vigiles: action: unknown flag: --github-token (vigiles action takes no flags; set the input as a variable instead: INPUT_GITHUB_TOKEN=… vigiles action); see vigiles action --help` + "\n"},
		{[]string{"action", "--dir", "."}, `vigiles: action: unknown flag: --dir (vigiles action takes no flags: its options are the action's inputs, set as INPUT_* variables); see vigiles action --help` + "\n"},
		{[]string{"action", "-q"}, `vigiles: action: unknown shorthand flag: 'q' in -q (vigiles action takes no flags: its options are the action's inputs, set as INPUT_* variables); see vigiles action --help` + "\n"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			code, out, errs := runCLI(t, tc.args...)
			if code != 2 || out != "" || errs != tc.want {
				t.Errorf("exit %d, stdout %.60q, stderr %q: want status 2 and only %q on stderr", code, out, errs, tc.want)
			}
		})
	}
}

// TestSizeLimitsHelpSaysTheirLeast: each size limit of vigiles run with a
// least value (README.md's Commands) says it in its help, and a value
// below it is bad usage that names it.
func TestSizeLimitsHelpSaysTheirLeast(t *testing.T) {
	_, help, _ := runCLI(t, "run", "--help")
	for _, tc := range []struct {
		flag  string
		least uint64
	}{
		{"limit-memory", runner.MinMemory},
		{"limit-run-memory", sandbox.MinRunMemory},
		{"limit-scratch", sandbox.MinScratch},
	} {
		least := runner.FormatSize(tc.least)
		line := regexp.MustCompile(`(?m)^      --` + tc.flag + ` .*$`).FindString(help)
		if !strings.Contains(line, "at least "+least) {
			t.Errorf("vigiles run --help does not say --%s is at least %s: %q", tc.flag, least, line)
		}
		// geteuid: --limit-run-memory is refused outright to another caller.
		old := geteuid
		geteuid = func() int { return 0 }
		code, _, errs := runCLI(t, "run", "--"+tc.flag, strconv.FormatUint(tc.least-1, 10), "--", "true")
		geteuid = old
		if code != 2 || !strings.Contains(errs, "at least "+least) {
			t.Errorf("--%s %d: exit %d, stderr %q; want 2 and the least, %s", tc.flag, tc.least-1, code, errs, least)
		}
	}
}

// TestEveryErrorNamesItsCommand: every error a command prints begins
// "vigiles: <command>: ", whichever part of the command said it, with
// the exit status the README gives for it (2 bad usage, 125 refused or
// failed). An audit PATH said "vigiles: audit path ..." and vigiles
// action "vigiles: vigiles action takes no arguments"; an audit PATH
// that is not there, written as an absolute path or out of --dir with
// "..", was said to be outside the work tree, where one written under
// --dir was said not to exist.
func TestEveryErrorNamesItsCommand(t *testing.T) {
	empty := t.TempDir()
	for _, tc := range []struct {
		args []string
		code int
		want string // the whole of stderr
	}{
		{[]string{"audit", "--dir", empty, "/nonexistent-h84"}, 2, `vigiles: audit: path "/nonexistent-h84" does not exist; a PATH names a directory in the work tree "` + empty + `" (--dir "` + empty + `"), relative to it` + "\n"},
		{[]string{"audit", "--dir", empty, "../nonexistent-h84"}, 2, `vigiles: audit: path "../nonexistent-h84" does not exist; a PATH names a directory in the work tree "` + empty + `" (--dir "` + empty + `"), relative to it` + "\n"},
		{[]string{"audit", "--dir", empty, "nonexistent"}, 2, `vigiles: audit: path "nonexistent" does not exist ("` + empty + `/nonexistent"; a PATH is relative to --dir "` + empty + `")` + "\n"},
		{[]string{"audit", "--dir", empty, "/"}, 2, `vigiles: audit: path "/" is outside the work tree "` + empty + `"; name directories under --dir "` + empty + `"` + "\n"},
		{[]string{"audit", "--dir", empty, ".."}, 2, `vigiles: audit: path ".." is outside the work tree "` + empty + `"; name directories under --dir "` + empty + `"` + "\n"},
		{[]string{"action", "foo"}, 2, `vigiles: action: unexpected argument "foo" (vigiles action takes none: its options are the action's inputs, set as INPUT_* variables; see vigiles action --help)` + "\n"},
		{[]string{"action"}, 2, "vigiles: action: runs only as a GitHub Actions step (GITHUB_ACTIONS=true); elsewhere use vigiles test or vigiles audit, or set GITHUB_ACTIONS=true to try the step here (docs/github-action.md#run-it-locally)\n"},
		{[]string{"run", "--egress", "bogus", "--", "true"}, 2, `vigiles: run: --egress "bogus": want deny, record or allow` + "\n"},
		{[]string{"test", "--dir", empty, "foo"}, 2, `vigiles: test: unexpected argument "foo": test takes none (it runs the checks of the policy file, .vigiles.yml; --dir names the repository, --config another policy file)` + "\n"},
		{[]string{"merge", "/nonexistent-h84"}, 2, `vigiles: merge: report "/nonexistent-h84" does not exist; name the JSON reports vigiles test or audit wrote with --shard i/n --format json --output FILE` + "\n"},
		{[]string{"doctor", "foo"}, 2, `vigiles: doctor: unexpected argument "foo" (doctor takes none: it probes this host; --json prints its report as JSON)` + "\n"},
		{[]string{"version", "x"}, 2, `vigiles: version: unexpected argument "x" (version takes none: vigiles version)` + "\n"},
		{[]string{"help", "x"}, 2, `vigiles: help: unknown command "x" (vigiles --help lists the commands)` + "\n"},
		// A value named once, after its flag, as every other flag's is:
		// it said --shard: shard "3/2": and --sandbox: sandbox mode "x":.
		{[]string{"audit", "--dir", empty, "--shard", "0/0"}, 2, `vigiles: audit: --shard "0/0": want i/n with 1 ≤ i ≤ n ≤ 10000` + "\n"},
		{[]string{"test", "--dir", empty, "--sandbox", "bogus"}, 2, `vigiles: test: --sandbox "bogus": want auto, strict or off` + "\n"},
		{[]string{"run", "--sandbox", "bogus", "--", "true"}, 2, `vigiles: run: --sandbox "bogus": want auto, strict or off` + "\n"},
		// A value in another case, or a slip of one, is told the value
		// meant, as --egress Deny is (it was told only the values).
		{[]string{"run", "--sandbox", "Strict", "--", "true"}, 2, `vigiles: run: --sandbox "Strict": want auto, strict or off: did you mean strict?` + "\n"},
		{[]string{"audit", "--dir", empty, "--sandbox", "STRICT"}, 2, `vigiles: audit: --sandbox "STRICT": want auto, strict or off: did you mean strict?` + "\n"},
		{[]string{"test", "--dir", empty, "--format", "JSON"}, 2, `vigiles: test: --format "JSON": want text, json or sarif: did you mean json?` + "\n"},
		{[]string{"audit", "--dir", empty, "--format", "sarf"}, 2, `vigiles: audit: --format "sarf": want text, json or sarif: did you mean sarif?` + "\n"},
		{[]string{"merge", "--format", "Text", "x.json"}, 2, `vigiles: merge: --format "Text": want text, json or sarif: did you mean text?` + "\n"},
		{[]string{"run", "--writes", "Copy", "--", "true"}, 2, `vigiles: run: --writes "Copy": want overlay or copy: did you mean copy?` + "\n"},
		{[]string{"run", "--egress", "Deny", "--", "true"}, 2, `vigiles: run: --egress "Deny": want deny, record or allow: did you mean deny?` + "\n"},
		// An empty path, refused as --dir "" is: the report went to
		// stdout, and the command ran with an empty stdin, in silence.
		{[]string{"audit", "--dir", empty, "-o", ""}, 2, `vigiles: audit: --output "": an empty path: leave -o out, or give -o -, for stdout` + "\n"},
		{[]string{"test", "--dir", empty, "--output="}, 2, `vigiles: test: --output "": an empty path: leave -o out, or give -o -, for stdout` + "\n"},
		{[]string{"merge", "-o", "", "x.json"}, 2, `vigiles: merge: --output "": an empty path: leave -o out, or give -o -, for stdout` + "\n"},
		// What an empty host is to be instead (it said "empty host name").
		{[]string{"run", "--egress", "allow", "--allow", "", "--", "true"}, 2, `vigiles: run: --allow "": an empty host name: want HOST, HOST:PORT or *.SUFFIX` + "\n"},
		{[]string{"audit", "--dir", empty, "--allow", ""}, 2, `vigiles: audit: --allow "": an empty host name: want HOST, HOST:PORT or *.SUFFIX` + "\n"},
		{[]string{"run", "--stdin", "", "--", "true"}, 2, `vigiles: run: --stdin "": an empty path: leave --stdin out for an empty stdin, or give --stdin - for vigiles' own` + "\n"},
	} {
		code, _, stderr := runCLI(t, tc.args...)
		if code != tc.code || stderr != tc.want {
			t.Errorf("vigiles %q: exit %d, stderr\n%q\nwant %d,\n%q", tc.args, code, stderr, tc.code, tc.want)
		}
	}
	// Messages the runner or a command's own work says are named too,
	// once: commandNamed puts the name before each, and before none that
	// has it.
	for _, tc := range []struct {
		err  error
		want string
	}{
		{errors.New("no policy file"), "vigiles: test: no policy file\n"},
		{errors.New("test: named already"), "vigiles: test: named already\n"},
		{exitWith(2, problems{errors.New("one"), errors.New("test: two")}), "vigiles: test: one\nvigiles: test: two\n"},
		{namedFor("test", errors.New("test interrupted (SIGINT)")), "vigiles: test: interrupted (SIGINT)\n"},
	} {
		var b bytes.Buffer
		named := commandNamed("test", tc.err)
		exitCode(named, &b, false)
		if b.String() != tc.want || !errors.Is(named, tc.err) && !errors.As(tc.err, new(*exitError)) {
			t.Errorf("%v: %q (errors.Is %v); want %q, the error kept", tc.err, b.String(), errors.Is(named, tc.err), tc.want)
		}
	}
}
