package annotate

import (
	"encoding/json"
	"fmt"
	"os"
)

// HeadSHA returns the commit a check run and links should point at: the
// pull request's head commit from the event payload at eventPath when the
// event carries pull_request.head.sha (GITHUB_SHA is then the merge
// commit, which reviewers never see); on a workflow_run event, the commit
// the triggering run ran on, workflow_run.head_sha (GITHUB_SHA is then the
// default branch's last commit, which the reports of that run, a fork's
// pull request's say, are not about); otherwise fallback (GITHUB_SHA).
// A malformed SHA is an error, never used.
func HeadSHA(eventPath, fallback string) (string, error) {
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
				return "", fmt.Errorf("event payload: pull_request.head.sha %q: %w", oneLine(cut(ev.PullRequest.Head.SHA, 80)), ErrBadSHA)
			}
			return ev.PullRequest.Head.SHA, nil
		}
		if ev.WorkflowRun != nil && ev.WorkflowRun.HeadSHA != "" {
			if !shaRE().MatchString(ev.WorkflowRun.HeadSHA) {
				return "", fmt.Errorf("event payload: workflow_run.head_sha %q: %w", oneLine(cut(ev.WorkflowRun.HeadSHA, 80)), ErrBadSHA)
			}
			return ev.WorkflowRun.HeadSHA, nil
		}
	}
	if !shaRE().MatchString(fallback) {
		return "", fmt.Errorf("GITHUB_SHA %q: %w", oneLine(cut(fallback, 80)), ErrBadSHA)
	}
	return fallback, nil
}
