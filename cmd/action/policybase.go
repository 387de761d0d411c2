package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/vigiles/action/pkg/runner"
)

// The base of a change, read from git: a pull request is audited with the
// policy file and baseline it carries, and the runner names what it
// weakens of the base's (runner.PolicyBase). git runs here, in vigiles'
// own process, outside any sandbox, with the caller's git: it reads the
// object store, which no hook has run in, and never the work tree's
// files (no checkout, no filter, no textconv: cat-file of a blob).

// maxBasePolicy and maxBaseBaseline bound what is read of the base's
// policy file and baseline: as the work tree's are bounded.
const (
	maxBasePolicy   = 4 << 20
	maxBaseBaseline = 16 << 20
)

// maxFetch bounds the one fetch of a base a shallow clone lacks.
const maxFetch = 2 * time.Minute

// fullSHA is a commit's name as a pull_request event gives it.
var fullSHA = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[0-9a-f]{40}([0-9a-f]{24})?$`) })

// pullRequestBase is the base of the pull request a pull_request or
// pull_request_target event (GITHUB_EVENT_NAME) runs for, read from its
// payload (GITHUB_EVENT_PATH, pull_request.base.sha) and from git in dir,
// fetched once from origin where a shallow clone lacks it; nil on any
// other event. config and baseline are the work tree's files, relative to
// dir ("" baseline: none).
func pullRequestBase(ctx context.Context, getenv func(string) string, dir, config, baseline string) *runner.PolicyBase {
	switch getenv("GITHUB_EVENT_NAME") {
	case "pull_request", "pull_request_target":
	default:
		return nil
	}
	unread := func(format string, a ...any) *runner.PolicyBase {
		return &runner.PolicyBase{Name: "the pull request's base", Unread: fmt.Sprintf(format, a...)}
	}
	p := getenv("GITHUB_EVENT_PATH")
	if p == "" {
		return unread("GITHUB_EVENT_PATH is not set, so the base commit (pull_request.base.sha) is not known")
	}
	f, err := os.Open(p)
	if err != nil {
		return unread("reading the event payload: %v", err)
	}
	data, err := io.ReadAll(io.LimitReader(f, 64<<20))
	f.Close()
	if err != nil {
		return unread("reading the event payload: %v", err)
	}
	var ev struct {
		PullRequest *struct {
			Base struct {
				SHA string `json:"sha"`
			} `json:"base"`
		} `json:"pull_request"`
	}
	if err := json.Unmarshal(data, &ev); err != nil {
		return unread("the event payload does not parse: %v", err)
	}
	if ev.PullRequest == nil || !fullSHA().MatchString(ev.PullRequest.Base.SHA) {
		return unread("the event payload has no commit at pull_request.base.sha")
	}
	sha := ev.PullRequest.Base.SHA
	pb := readPolicyBase(ctx, dir, sha, "the pull request's base", true, config, baseline)
	if pb.Unread == "" && getenv("GITHUB_EVENT_NAME") == "pull_request" {
		// The workflow runs as the pull request has it (on
		// pull_request_target, as the base has it: nothing to compare).
		pb.Workflow = readWorkflowBase(ctx, getenv, dir, pb.Commit)
	}
	return pb
}

// workflowRef is GITHUB_WORKFLOW_REF: the repository, and the path of
// the workflow file in it, that the job runs (owner/repo/.github/
// workflows/x.yml@refs/pull/7/merge). Environment text: read strictly.
var workflowRef = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^([A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+)/(\.github/workflows/[A-Za-z0-9_.-]+\.ya?ml)@refs/[^\x00-\x20\x7f]+$`)
})

// readWorkflowBase reads the workflow file the job runs (GITHUB_WORKFLOW_REF)
// as the base commit and the checkout's HEAD hold it, from git in dir,
// where the policy file's base was read (no fetch of its own), and the
// directory of the action that runs (GITHUB_ACTION_PATH) where it is the
// repository's own. What cannot be read is said in the result, never an
// error.
func readWorkflowBase(ctx context.Context, getenv func(string) string, dir, commit string) *runner.WorkflowBase {
	w := &runner.WorkflowBase{}
	ref := getenv("GITHUB_WORKFLOW_REF")
	m := workflowRef().FindStringSubmatch(ref)
	switch {
	case ref == "":
		w.NotCompared = "GITHUB_WORKFLOW_REF is not set, so the workflow file is not known"
		return w
	case m == nil:
		w.NotCompared = fmt.Sprintf("GITHUB_WORKFLOW_REF (%q) names no workflow file of .github/workflows", ref)
		return w
	}
	w.Shown = m[2]
	if repo := getenv("GITHUB_REPOSITORY"); !strings.EqualFold(m[1], repo) {
		w.NotCompared = fmt.Sprintf("the workflow is the repository %q's, not this one's (%q)", m[1], repo)
		return w
	}
	top, err := git(ctx, dir, 4096, "rev-parse", "--show-toplevel")
	if err != nil {
		w.Unread = err.Error()
		return w
	}
	topDir := strings.TrimSuffix(string(top), "\n")
	if t, err := filepath.EvalSymlinks(topDir); err == nil {
		topDir = t
	}
	w.File = relToDir(dir, topDir, w.Shown)
	if ap := getenv("GITHUB_ACTION_PATH"); ap != "" {
		if r, err := filepath.EvalSymlinks(ap); err == nil {
			ap = r
		}
		if rel, err := filepath.Rel(topDir, ap); err == nil && (rel == "." || filepath.IsLocal(rel)) {
			w.LocalAction = filepath.ToSlash(rel)
		}
	}
	w.Read = calledReader(func(base bool, p string) ([]byte, bool, error) {
		rev := "HEAD"
		if base {
			rev = commit
		}
		return calledBlobAt(ctx, dir, rev, p)
	})
	var there bool
	w.Head, there, err = blobAt(ctx, dir, "HEAD", w.Shown, maxBasePolicy)
	switch {
	case err != nil:
		w.NotCompared = fmt.Sprintf("reading %s of the checkout's HEAD: %v", w.Shown, err)
		return w
	case !there:
		w.NotCompared = fmt.Sprintf("the checkout's HEAD has no %s, the workflow that runs", w.Shown)
		return w
	}
	w.Base, w.BaseThere, err = blobAt(ctx, dir, commit, w.Shown, maxBasePolicy)
	if err != nil {
		w.Unread = fmt.Sprintf("reading %s of it: %v", w.Shown, err)
	}
	return w
}

// maxCalledFiles bounds the files a comparison reads of what a
// workflow calls (reusable workflows, composite actions' action.yml),
// each side's apart: past it, a read is an error, which the comparison
// names as a warning. Apart, as what the change calls cannot use up
// what is read of the base's.
const maxCalledFiles = 256

// errTooManyCalled is a read past maxCalledFiles.
var errTooManyCalled = fmt.Errorf("more than %d files called, which vigiles does not read", maxCalledFiles)

// calledReader is read (runner.WorkflowBase.Read), each file read once,
// at most maxCalledFiles of them a side.
func calledReader(read func(base bool, p string) ([]byte, bool, error)) func(bool, string) ([]byte, bool, error) {
	type got struct {
		data  []byte
		there bool
		err   error
	}
	memo := map[string]got{}
	count := map[bool]int{}
	return func(base bool, p string) ([]byte, bool, error) {
		key := fmt.Sprint(base, "\x00", p)
		if g, ok := memo[key]; ok {
			return g.data, g.there, g.err
		}
		if count[base] >= maxCalledFiles {
			return nil, false, errTooManyCalled
		}
		count[base]++
		data, there, err := read(base, p)
		memo[key] = got{data, there, err}
		return data, there, err
	}
}

// relToDir is the repository's file shown (slash-separated, relative to
// its top, topDir with links resolved) as findings name it: relative to
// dir, as the policy file's, which the action then puts under
// working-directory; shown where that cannot be said.
func relToDir(dir, topDir, shown string) string {
	d, err := filepath.Abs(dir)
	if err != nil {
		return shown
	}
	if r, err := filepath.EvalSymlinks(d); err == nil {
		d = r
	}
	rel, err := filepath.Rel(d, filepath.Join(topDir, filepath.FromSlash(shown)))
	if err != nil {
		return shown
	}
	return filepath.ToSlash(rel)
}

// maxLocalWorkflows bounds the workflow files a local --policy-base
// reads, each side's together, each file bounded as the action's
// (maxBasePolicy): a repository holds tens, not hundreds.
const maxLocalWorkflows = 256

// workflowsDir is where GitHub reads a repository's workflow files: its
// files there, not below.
const workflowsDir = ".github/workflows"

// workflowName says whether name is one GitHub may run as a workflow
// file of workflowsDir, and vigiles may name (no control character).
func workflowName(name string) bool {
	return (strings.HasSuffix(name, ".yml") || strings.HasSuffix(name, ".yaml")) &&
		!strings.ContainsFunc(name, func(r rune) bool { return r < 0x20 || r == 0x7f || r == '/' })
}

// readLocalWorkflows reads, for a local --policy-base, where no
// GITHUB_WORKFLOW_REF names the workflow that runs, every workflow file
// of the repository that holds dir (.github/workflows/*.yml, *.yaml) as
// commit holds it and as the work tree does: the work tree, not HEAD,
// as the run reads the policy file and baseline from the work tree, what
// the developer is about to commit and push. A file the work tree has
// not (or has as other than a regular file, which GitHub does not run)
// is Removed. The runner compares those that hold a vigiles step on
// either side; with no GITHUB_ACTION_PATH to say which action runs, a
// step's uses: ./… is known as vigiles where its action.yml is vigiles'
// own (named vigiles, with its inputs), vendored or the repository's.
// Past maxLocalWorkflows names, in order, the rest are counted in left.
func readLocalWorkflows(ctx context.Context, dir, commit string) (ws []*runner.WorkflowBase, left int) {
	top, err := git(ctx, dir, 4096, "rev-parse", "--show-toplevel")
	if err != nil {
		return []*runner.WorkflowBase{{File: workflowsDir, Shown: workflowsDir, Unread: err.Error()}}, 0
	}
	topDir := strings.TrimSuffix(string(top), "\n")
	if t, err := filepath.EvalSymlinks(topDir); err == nil {
		topDir = t
	}
	names := map[string]bool{}
	// The base's: its regular files (a link's mode is 120000).
	list, err := git(ctx, dir, 4<<20, "ls-tree", "-z", "--full-tree", commit, "--", workflowsDir+"/")
	if err != nil {
		return []*runner.WorkflowBase{{File: relToDir(dir, topDir, workflowsDir), Shown: workflowsDir, Unread: fmt.Sprintf("listing %s of it: %v", workflowsDir, err)}}, 0
	}
	for _, e := range strings.Split(string(list), "\x00") {
		meta, p, ok := strings.Cut(e, "\t")
		if name, found := strings.CutPrefix(p, workflowsDir+"/"); ok && found && workflowName(name) && strings.HasPrefix(meta, "100") {
			names[name] = true
		}
	}
	// The work tree's: its regular files, links not followed, nor a
	// .github or .github/workflows that is a link (GitHub reads the
	// commit's tree, where a link is no directory): then it has none.
	var entries []os.DirEntry
	wfDir := filepath.Join(topDir, filepath.FromSlash(workflowsDir))
	d, err := filepath.EvalSymlinks(wfDir)
	inTree := err == nil && d == wfDir
	if inTree {
		entries, _ = os.ReadDir(wfDir)
	}
	for _, e := range entries {
		if e.Type().IsRegular() && workflowName(e.Name()) {
			names[e.Name()] = true
		}
	}
	// What a workflow calls: the base's from git, the head's from the
	// work tree, within it (a link out of it is none).
	read := calledReader(func(base bool, p string) ([]byte, bool, error) {
		if base {
			return calledBlobAt(ctx, dir, commit, p)
		}
		abs := filepath.Join(topDir, filepath.FromSlash(p))
		if d, err := filepath.EvalSymlinks(filepath.Dir(abs)); err != nil {
			return nil, false, nil
		} else if rel, err := filepath.Rel(topDir, d); err != nil || !(rel == "." || filepath.IsLocal(rel)) {
			return nil, false, nil
		} else {
			abs = filepath.Join(d, filepath.Base(abs))
		}
		if fi, err := os.Lstat(abs); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
			// GitHub follows it where vigiles does not: not none, where
			// an action.yaml beside a linked action.yml would be read in
			// its place.
			return nil, false, errCalledLink
		}
		return workTreeFile(abs, maxBasePolicy)
	})
	sorted := slices.Sorted(maps.Keys(names))
	if len(sorted) > maxLocalWorkflows {
		left = len(sorted) - maxLocalWorkflows
		sorted = sorted[:maxLocalWorkflows]
	}
	for _, name := range sorted {
		shown := workflowsDir + "/" + name
		w := &runner.WorkflowBase{Shown: shown, File: relToDir(dir, topDir, shown), Read: read, CalledApart: true}
		ws = append(ws, w)
		var there bool
		err = nil
		if inTree {
			w.Head, there, err = workTreeFile(filepath.Join(topDir, filepath.FromSlash(shown)), maxBasePolicy)
		}
		if err != nil {
			w.Unread = fmt.Sprintf("reading the work tree's %s: %v", shown, err)
			continue
		}
		w.Base, w.BaseThere, err = blobAt(ctx, dir, commit, shown, maxBasePolicy)
		if err != nil {
			w.Unread = fmt.Sprintf("reading %s of it: %v", shown, err)
			continue
		}
		w.Removed = !there
		if !there && !w.BaseThere {
			ws = ws[:len(ws)-1] // neither holds it as a file
		}
	}
	return ws, left
}

// workTreeFile is the regular file p, at most max bytes; false where
// there is none (or a link, or other than a regular file).
func workTreeFile(p string, max int) ([]byte, bool, error) {
	// O_NOFOLLOW: a link is not followed; O_NONBLOCK: a FIFO does not
	// block the run.
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ELOOP) {
			return nil, false, nil
		}
		return nil, false, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil, false, err
	}
	data, err := io.ReadAll(io.LimitReader(f, int64(max)+1))
	if err != nil {
		return nil, false, err
	}
	if len(data) > max {
		return nil, false, errTooLarge
	}
	if data == nil {
		data = []byte{}
	}
	return data, true, nil
}

// localPolicyBase is the base --policy-base rev names: its policy file
// and baseline, and, where no GITHUB_WORKFLOW_REF names the workflow that
// runs (a developer's run, not a step of a workflow), every workflow
// file of the repository (readLocalWorkflows), so that a change previewed
// here names what the pull request's check will of its workflow, and a
// workflow it deletes, which that check, run by the workflow as the
// change has it, cannot. Under a workflow (GITHUB_WORKFLOW_REF set) the
// workflow is not compared: the action's own pull request check does.
func localPolicyBase(ctx context.Context, getenv func(string) string, dir, rev, config, baseline string) *runner.PolicyBase {
	pb := readPolicyBase(ctx, dir, rev, "--policy-base "+strconv.Quote(rev), false, config, baseline)
	if pb.Unread == "" && getenv("GITHUB_WORKFLOW_REF") == "" {
		pb.Workflows, pb.WorkflowsLeft = readLocalWorkflows(ctx, dir, pb.Commit)
	}
	return pb
}

// readPolicyBase reads the policy file and baseline of the git revision
// rev (named so in findings) in the repository that holds dir, fetching
// rev once from origin (--depth=1) where fetch is set and the clone lacks
// it. What cannot be read is said in Unread, never an error: the run goes
// on, and the warning says what to do.
func readPolicyBase(ctx context.Context, dir, rev, name string, fetch bool, config, baseline string) *runner.PolicyBase {
	pb := &runner.PolicyBase{Name: name}
	if rev == "" || strings.HasPrefix(rev, "-") {
		pb.Unread = fmt.Sprintf("%q names no revision", rev)
		return pb
	}
	top, err := git(ctx, dir, 4096, "rev-parse", "--show-toplevel")
	if err != nil {
		pb.Unread = fmt.Sprintf("the work tree is not in a git repository vigiles can read (%v)", err)
		return pb
	}
	topDir := strings.TrimSuffix(string(top), "\n")
	commit, err := git(ctx, dir, 4096, "rev-parse", "--verify", "--quiet", "--end-of-options", rev+"^{commit}")
	if err != nil && fetch {
		// Bounded: a remote that never answers (or an ssh that waits for
		// a host key's answer) keeps no run from its hooks.
		fctx, cancel := context.WithTimeout(ctx, maxFetch)
		_, ferr := git(fctx, dir, 1<<20, "fetch", "--no-tags", "--depth=1", "origin", rev)
		cancel()
		if ferr == nil {
			commit, err = git(ctx, dir, 4096, "rev-parse", "--verify", "--quiet", "--end-of-options", rev+"^{commit}")
		} else {
			err = ferr
		}
	}
	if err != nil {
		if fetch {
			pb.Unread = fmt.Sprintf("its commit %s is not in this clone, and fetching it from origin failed (%v); check out with its history: actions/checkout's fetch-depth: 0 (or 2, which holds a pull request's base)", rev, err)
		} else {
			pb.Unread = fmt.Sprintf("this clone has no commit %s (%v); fetch it, or name a branch, tag or commit it has", strconv.Quote(rev), err)
		}
		return pb
	}
	c := strings.TrimSpace(string(commit))
	pb.Commit = c
	if config == "" {
		config = runner.DefaultConfig
	}
	if rel, ok := inRepo(topDir, dir, config); ok {
		pb.Policy, pb.PolicyThere, err = blobAt(ctx, dir, c, rel, maxBasePolicy)
		if err != nil {
			pb.Unread = fmt.Sprintf("reading %s of it: %v", rel, err)
			return pb
		}
	}
	if baseline != "" {
		if rel, ok := inRepo(topDir, dir, baseline); ok {
			pb.Baseline, pb.BaselineThere, err = blobAt(ctx, dir, c, rel, maxBaseBaseline)
			if err != nil {
				pb.Unread = fmt.Sprintf("reading %s of it: %v", rel, err)
				return pb
			}
		}
	}
	return pb
}

// inRepo is the path p (relative to dir, or absolute) relative to the
// repository's top, slash-separated; false where it is outside it.
func inRepo(top, dir, p string) (string, bool) {
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, p)
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", false
	}
	// The directory as git sees it: links resolved, as --show-toplevel.
	if d, err := filepath.EvalSymlinks(filepath.Dir(abs)); err == nil {
		abs = filepath.Join(d, filepath.Base(abs))
	}
	if t, err := filepath.EvalSymlinks(top); err == nil {
		top = t
	}
	rel, err := filepath.Rel(top, abs)
	if err != nil || !filepath.IsLocal(rel) {
		return "", false
	}
	return filepath.ToSlash(rel), true
}

// blobAt is the file rel of commit, false where commit has none; a file
// larger than max is an error.
func blobAt(ctx context.Context, dir, commit, rel string, max int) ([]byte, bool, error) {
	obj, err := git(ctx, dir, 4096, "rev-parse", "--verify", "--quiet", "--end-of-options", commit+":"+rel)
	if err != nil {
		return nil, false, nil // not there (or not a blob: cat-file says)
	}
	id := strings.TrimSpace(string(obj))
	if kind, err := git(ctx, dir, 64, "cat-file", "-t", id); err != nil || strings.TrimSpace(string(kind)) != "blob" {
		return nil, false, nil // a directory of that name: no file
	}
	data, err := git(ctx, dir, max, "cat-file", "blob", id)
	if err != nil {
		return nil, false, err
	}
	return data, true, nil
}

// errCalledLink is a file of what a workflow calls that is a symbolic
// link: the checkout makes it, and the runner follows it to its target
// (an action.yml), where its blob is the target's name, which may itself
// read as an action.
var errCalledLink = errors.New("it is a symbolic link, which vigiles does not follow")

// calledBlobAt is blobAt of a file of what a workflow calls, p, at most
// maxBasePolicy bytes; a link (mode 120000 in its directory's tree) is
// errCalledLink.
func calledBlobAt(ctx context.Context, dir, commit, p string) ([]byte, bool, error) {
	parent, name := path.Split(p)
	list, err := git(ctx, dir, 16<<20, "ls-tree", "-z", "--end-of-options", commit+":"+strings.TrimSuffix(parent, "/"))
	switch {
	case errors.Is(err, errTooLarge):
		return nil, false, err
	case err != nil:
		return nil, false, nil // no such directory: no file
	}
	for _, e := range strings.Split(string(list), "\x00") {
		meta, n, ok := strings.Cut(e, "\t")
		if ok && n == name && strings.HasPrefix(meta, "120000 ") {
			return nil, false, errCalledLink
		}
	}
	return blobAt(ctx, dir, commit, p, maxBasePolicy)
}

// errTooLarge is git's output past what the caller reads.
var errTooLarge = errors.New("larger than vigiles reads")

// git runs the caller's git in dir with args, and returns its output, at
// most max bytes; its error names git's own message (gitMessage: a
// URL's user information redacted, as git may print origin's). Hooks are off (a
// fetch runs reference-transaction hooks), and it never asks for a
// password.
func git(ctx context.Context, dir string, max int, args ...string) ([]byte, error) {
	opts := []string{"-C", dir, "-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false"}
	if args[0] != "fetch" {
		// Reading a commit's objects runs nothing the repository's config
		// names (no hook, no fsmonitor, no filter or textconv for
		// cat-file blob, no pager on a pipe), so a checkout of another
		// uid's is read too: a container job's root over the runner's
		// workspace, which actions/checkout marks safe for its own steps
		// alone, where git refused it ("dubious ownership") and every such
		// check warned policy/base-unread. A fetch, which may start the
		// ssh command or credential helper that config names, is left to
		// git's ownership check.
		opts = append(opts, "-c", "safe.directory=*")
	}
	cmd := exec.CommandContext(ctx, "git", append(opts, args...)...)
	cmd.Env = append(untracedEnv(os.Environ()), "GIT_TERMINAL_PROMPT=0", "GIT_ASKPASS=true", "SSH_ASKPASS=true")
	// A helper git started (ssh, a remote helper) that outlives it holds
	// the output's pipe: Wait gives up on it after this.
	cmd.WaitDelay = 5 * time.Second
	var out capped
	out.max = max
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	err := cmd.Run()
	if out.over {
		return nil, errTooLarge
	}
	if err != nil {
		msg := gitMessage(stderr.String())
		if msg == "" {
			return nil, fmt.Errorf("git %s: %w", args[0], err)
		}
		return nil, fmt.Errorf("git %s: %w: %s", args[0], err, msg)
	}
	return out.b.Bytes(), nil
}

// untracedEnv is env without the variables that make git trace itself
// on stderr (GIT_TRACE, GIT_TRACE2, GIT_TRACE_CURL, GIT_TRACE_PACKET and
// the rest of GIT_TRACE*, GIT_CURL_VERBOSE): an error keeps git's first
// maxGitMessage bytes, which under a caller's GIT_TRACE=1 were trace
// lines, the failure's reason past the cut, and whose lines may name
// what the caller's git was given (GIT_TRACE_REDACT=0 shows its HTTP
// headers, GIT_TRACE2_ENV_VARS the variables it lists)
// (TestGitErrorIsGitsOwnUnderTrace).
func untracedEnv(env []string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, "GIT_TRACE") || name == "GIT_CURL_VERBOSE" {
			continue
		}
		out = append(out, kv)
	}
	return out
}

// capped is a writer that keeps up to max bytes and notes more.
type capped struct {
	b    bytes.Buffer
	max  int
	over bool
}

func (c *capped) Write(p []byte) (int, error) {
	if c.b.Len()+len(p) > c.max {
		c.over = true
		return 0, errTooLarge
	}
	return c.b.Write(p)
}
