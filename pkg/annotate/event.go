package annotate

import (
	"encoding/json"
	"fmt"
	"os"
)

// HeadSHA returns the commit a check run and links should point at: the
// pull request's head commit from the event payload at eventPath when the
// event carries pull_request.head.sha (GITHUB_SHA is then the merge
// commit, which reviewers never see), otherwise fallback (GITHUB_SHA).
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
	}
	if !shaRE().MatchString(fallback) {
		return "", fmt.Errorf("GITHUB_SHA %q: %w", oneLine(cut(fallback, 80)), ErrBadSHA)
	}
	return fallback, nil
}
