package annotate

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/vigiles/action/internal/textcut"
)

// HeadSHA returns the commit a check run and links should point at: the
// pull request's head commit from the event payload at eventPath when the
// event carries pull_request.head.sha (GITHUB_SHA is then the merge
// commit, which reviewers never see), but on a pull_request_target event
// (eventName, GITHUB_EVENT_NAME) only where that commit, or the test merge
// of it (pull_request.merge_commit_sha), is the one checked out at tree
// (GITHUB_SHA is then the base branch's last commit, which
// actions/checkout checks out unless told otherwise: the base's result is
// not the pull request's); on a workflow_run event, the commit
// the triggering run ran on, workflow_run.head_sha, where that is the
// commit checked out at tree, the directory vigiles checked (GITHUB_SHA is
// then the default branch's last commit); otherwise fallback (GITHUB_SHA).
// A workflow_run job checks out the default branch unless told otherwise,
// and the reports a fork's run uploaded are the fork's to write: a result
// vigiles did not reach on head_sha's tree is not put on head_sha, where
// the pull request would show it as that commit's. A malformed SHA is an
// error, never used.
func HeadSHA(eventName, eventPath, fallback, tree string) (string, error) {
	if eventPath != "" {
		data, err := os.ReadFile(eventPath)
		if err != nil {
			return "", fmt.Errorf("reading event payload: %w", err)
		}
		var ev struct {
			PullRequest *struct {
				Head struct {
					SHA string `json:"sha"`
				} `json:"head"`
				MergeCommitSHA string `json:"merge_commit_sha"`
			} `json:"pull_request"`
			WorkflowRun *struct {
				HeadSHA string `json:"head_sha"`
			} `json:"workflow_run"`
		}
		if err := json.Unmarshal(data, &ev); err != nil {
			return "", fmt.Errorf("parsing event payload %s: %w", eventPath, err)
		}
		if ev.PullRequest != nil && ev.PullRequest.Head.SHA != "" {
			if !shaRE().MatchString(ev.PullRequest.Head.SHA) {
				return "", fmt.Errorf("event payload: pull_request.head.sha %q: %w", oneLine(textcut.End(ev.PullRequest.Head.SHA, 80)), ErrBadSHA)
			}
			if eventName != "pull_request_target" {
				return ev.PullRequest.Head.SHA, nil
			}
			// Checked out, the head, or the test merge of it that a
			// pull_request event checks (refs/pull/N/merge).
			switch c := checkedOut(tree); {
			case c == "":
			case c == ev.PullRequest.Head.SHA, c == ev.PullRequest.MergeCommitSHA:
				return ev.PullRequest.Head.SHA, nil
			}
		}
		if ev.WorkflowRun != nil && ev.WorkflowRun.HeadSHA != "" {
			if !shaRE().MatchString(ev.WorkflowRun.HeadSHA) {
				return "", fmt.Errorf("event payload: workflow_run.head_sha %q: %w", oneLine(textcut.End(ev.WorkflowRun.HeadSHA, 80)), ErrBadSHA)
			}
			if checkedOut(tree) == ev.WorkflowRun.HeadSHA {
				return ev.WorkflowRun.HeadSHA, nil
			}
		}
	}
	if !shaRE().MatchString(fallback) {
		return "", fmt.Errorf("GITHUB_SHA %q: %w", oneLine(textcut.End(fallback, 80)), ErrBadSHA)
	}
	return fallback, nil
}

// openRegular opens p for reading where it is a regular file (a link to
// one is followed), nil otherwise: a FIFO, a device or a socket that a
// checkout under review put among its git files is neither opened (a
// device's open may act: a tape rewinds, a watchdog arms) nor waited on
// (the open does not block, should it be swapped in after the stat),
// nor read.
func openRegular(p string) *os.File {
	if fi, err := os.Stat(p); err != nil || !fi.Mode().IsRegular() {
		return nil
	}
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
	if err != nil {
		return nil
	}
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		return nil
	}
	return f
}

// checkedOut returns the commit checked out in the git work tree that
// holds dir ("" where none is known), read from its files: git itself is
// not run in a checkout under review, whose config could make it run a
// command of the checkout's choosing.
func checkedOut(dir string) string {
	if dir == "" {
		return ""
	}
	d, err := filepath.Abs(dir)
	if err != nil {
		return ""
	}
	read := func(p string) string {
		f := openRegular(p)
		if f == nil {
			return ""
		}
		defer f.Close()
		b, _ := io.ReadAll(io.LimitReader(f, 4096))
		return strings.TrimSpace(string(b))
	}
	for {
		gitDir := filepath.Join(d, ".git")
		if fi, err := os.Stat(gitDir); err == nil {
			if fi.Mode().IsRegular() {
				// A linked work tree or a submodule: "gitdir: <path>".
				g, ok := strings.CutPrefix(read(gitDir), "gitdir: ")
				if !ok {
					return ""
				}
				if !filepath.IsAbs(g) {
					g = filepath.Join(d, g)
				}
				gitDir = g
			}
			head := read(filepath.Join(gitDir, "HEAD"))
			if shaRE().MatchString(head) {
				return head
			}
			ref, ok := strings.CutPrefix(head, "ref: ")
			if !ok || !strings.HasPrefix(ref, "refs/") || !filepath.IsLocal(ref) {
				return ""
			}
			dirs := []string{gitDir}
			if c := read(filepath.Join(gitDir, "commondir")); c != "" {
				if !filepath.IsAbs(c) {
					c = filepath.Join(gitDir, c)
				}
				dirs = append(dirs, c)
			}
			for _, g := range dirs {
				if s := read(filepath.Join(g, filepath.FromSlash(ref))); shaRE().MatchString(s) {
					return s
				}
				f := openRegular(filepath.Join(g, "packed-refs"))
				if f == nil {
					continue
				}
				sc := bufio.NewScanner(io.LimitReader(f, 64<<20))
				for sc.Scan() {
					if sha, name, ok := bytes.Cut(sc.Bytes(), []byte(" ")); ok && string(name) == ref && shaRE().Match(sha) {
						f.Close()
						return string(sha)
					}
				}
				f.Close()
			}
			return ""
		}
		parent := filepath.Dir(d)
		if parent == d {
			return ""
		}
		d = parent
	}
}
