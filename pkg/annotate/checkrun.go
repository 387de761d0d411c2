package annotate

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/google/go-github/v62/github"

	"github.com/vigiles/action/internal/textcut"
	"github.com/vigiles/action/pkg/report"
)

// DefaultAPIURL is GITHUB_API_URL on github.com; any other value is a
// GitHub Enterprise Server.
const DefaultAPIURL = "https://api.github.com"

var (
	// ErrBadSHA marks a value that is not a commit SHA.
	ErrBadSHA = errors.New("not a commit SHA")
	// ErrCheckRunForbidden is returned when GitHub answers 403, as it does
	// to a token without checks: write (the default read-only token, and
	// always the token of a pull request from a fork), and to a request
	// over a secondary rate limit.
	ErrCheckRunForbidden = errors.New("GitHub refused the request (403 Forbidden)")
)

// NewClient returns a go-github client that authenticates with token and
// talks to apiURL (GITHUB_API_URL): github.com when it is empty or
// DefaultAPIURL, else a GitHub Enterprise Server through
// WithEnterpriseURLs (which adds /api/v3/ when missing).
func NewClient(httpClient *http.Client, token, apiURL string) (*github.Client, error) {
	c := github.NewClient(httpClient)
	if token != "" {
		c = c.WithAuthToken(token)
	}
	apiURL = strings.TrimSuffix(apiURL, "/")
	if apiURL == "" || apiURL == DefaultAPIURL {
		return c, nil
	}
	ghes, err := c.WithEnterpriseURLs(apiURL+"/", apiURL+"/")
	if err != nil {
		return nil, fmt.Errorf("using GITHUB_API_URL %q: %w", oneLine(textcut.End(apiURL, 200)), err)
	}
	return ghes, nil
}

// CheckRun is what PostCheckRun creates.
type CheckRun struct {
	Owner, Repo string
	// Name must be unique among the check runs of one commit.
	Name string
	// HeadSHA is the pull request's head commit (see HeadSHA).
	HeadSHA string
	// Conclusion is success, neutral or failure.
	Conclusion string
	Title      string
	// Summary is markdown; it is cut to MaxCheckRunSummaryChars bytes,
	// with the notes PostCheckRun adds.
	Summary  string
	Findings []report.Finding
	// DefaultFile anchors findings that have no file (or one outside the
	// repository); when it is empty they appear only in the summary, and
	// when it lies outside the repository they go to .vigiles.yml.
	DefaultFile string
	Now         time.Time
	// Started is when the checking began (started_at); zero, or a time
	// after Now, means Now.
	Started time.Time
	// Sleep waits for d unless ctx ends first (then it returns ctx's
	// error); nil means a timer. Tests replace it.
	Sleep func(ctx context.Context, d time.Duration) error
}

// CheckName is a check-run name unique per command, scope (the working
// directory, when not the repository root) and shard within a job:
// "vigiles audit examples (shard 1/3) / job".
func CheckName(command, scope, shard, job string) string {
	name := "vigiles " + oneLine(textcut.End(command, 20))
	if scope != "" && scope != "." {
		name += " " + oneLine(textcut.End(scope, 80))
	}
	if shard != "" {
		name += " (shard " + oneLine(textcut.End(shard, 20)) + ")"
	}
	if job != "" {
		name += " / " + oneLine(textcut.End(job, 80))
	}
	return name
}

func annotationLevel(s report.Severity) string {
	switch level(s) {
	case report.SeverityError:
		return "failure"
	case report.SeverityWarning:
		return "warning"
	}
	return "notice"
}

// checkAnnotations converts findings, most severe first.
func checkAnnotations(fs []report.Finding, defaultFile string) []*github.CheckRunAnnotation {
	var out []*github.CheckRunAnnotation
	for _, f := range sortFindings(fs) {
		path, inTree := treePath(f.Location.File)
		line := f.Location.Line
		if !inTree {
			if defaultFile == "" {
				continue
			}
			path, line = anchorFile(defaultFile), 1
		}
		if line < 1 {
			line = 1
		}
		a := &github.CheckRunAnnotation{
			Path:            github.String(oneLine(path)),
			StartLine:       github.Int(line),
			EndLine:         github.Int(line),
			AnnotationLevel: github.String(annotationLevel(f.Severity)),
			Message:         github.String(textcut.Middle(safeLogLine(f.Message), MaxMessageChars)),
			Title:           github.String(findingTitle(f)),
		}
		if f.Location.Column > 0 && inTree {
			a.StartColumn = github.Int(f.Location.Column)
			a.EndColumn = github.Int(f.Location.Column)
		}
		if f.Evidence != "" {
			a.RawDetails = github.String(cutBytes(safeLogLine(f.Evidence), MaxCheckRunAnnotationDetailsBytes))
		}
		out = append(out, a)
	}
	return out
}

// PostCheckRun creates the check run on cr.HeadSHA completed, with its
// conclusion, and the first MaxCheckRunAnnotationsPerRequest annotations,
// and adds the rest with updates of the same size (GitHub appends them to
// a completed run): no request that fails or times out, the create's
// included, can leave the run in progress on the pull request. It returns
// the run's HTML URL. A 403 from GitHub is ErrCheckRunForbidden. A request
// refused for a secondary rate limit is sent once more after the wait
// GitHub asks for (rateLimitWait), within MaxRateLimitWait in all. When an
// update fails, the rest are not sent, and one more update puts a note in
// the run's summary; the error says which were not posted.
func PostCheckRun(ctx context.Context, c *github.Client, cr CheckRun) (string, error) {
	if !shaRE().MatchString(cr.HeadSHA) {
		return "", fmt.Errorf("creating check run: head sha %q: %w", oneLine(textcut.End(cr.HeadSHA, 80)), ErrBadSHA)
	}
	anns := checkAnnotations(cr.Findings, cr.DefaultFile)
	summary := cr.Summary
	if n := len(anns) - MaxCheckRunAnnotations; n > 0 {
		anns = anns[:MaxCheckRunAnnotations]
		note := fmt.Sprintf("\n\n**%d more annotations not posted** (a check run carries at most %d here, most severe first). %s\n", n, MaxCheckRunAnnotations, elsewhere)
		summary = cutBytes(summary, MaxCheckRunSummaryChars-len(note)) + note
	}
	var batches [][]*github.CheckRunAnnotation
	for len(anns) > MaxCheckRunAnnotationsPerRequest {
		batches = append(batches, anns[:MaxCheckRunAnnotationsPerRequest])
		anns = anns[MaxCheckRunAnnotationsPerRequest:]
	}
	batches = append(batches, anns)

	now := cr.Now
	if now.IsZero() {
		now = time.Now()
	}
	started := cr.Started
	if started.IsZero() || started.After(now) {
		started = now
	}
	output := func(b []*github.CheckRunAnnotation) *github.CheckRunOutput {
		return &github.CheckRunOutput{
			Title:       github.String(oneLine(textcut.End(cr.Title, MaxCheckRunTitleChars))),
			Summary:     github.String(cutBytes(summary, MaxCheckRunSummaryChars)),
			Annotations: b,
		}
	}

	// A request GitHub refused for a rate limit did nothing: it is sent
	// once more after the wait GitHub asks for, while the waits fit in
	// MaxRateLimitWait. go-github itself sends nothing until then, so
	// without the wait a check run whose batch met a secondary rate limit
	// could not be completed either, and stayed in progress.
	sleep := cr.Sleep
	if sleep == nil {
		sleep = sleepCtx
	}
	budget := MaxRateLimitWait
	send := func(req func() error) error {
		err := req()
		d, limited := rateLimitWait(err)
		if !limited || d < 0 || d > budget {
			return err
		}
		budget -= d
		if sleep(ctx, d) != nil {
			return err
		}
		return req()
	}
	update := func(ctx context.Context, opts github.UpdateCheckRunOptions, id int64) error {
		return send(func() error {
			_, _, err := c.Checks.UpdateCheckRun(ctx, cr.Owner, cr.Repo, id, opts)
			return err
		})
	}

	var run *github.CheckRun
	err := send(func() (err error) {
		run, _, err = c.Checks.CreateCheckRun(ctx, cr.Owner, cr.Repo, github.CreateCheckRunOptions{
			Name:        cr.Name,
			HeadSHA:     cr.HeadSHA,
			Status:      github.String("completed"),
			Conclusion:  github.String(cr.Conclusion),
			StartedAt:   &github.Timestamp{Time: started},
			CompletedAt: &github.Timestamp{Time: now},
			Output:      output(batches[0]),
		})
		return err
	})
	if err != nil {
		return "", fmt.Errorf("creating check run: %w", classify(err))
	}
	for i := 1; i < len(batches); i++ {
		if err := update(ctx, github.UpdateCheckRunOptions{
			Name:   cr.Name,
			Output: output(batches[i]),
		}, run.GetID()); err != nil {
			err = fmt.Errorf("adding annotations %d-%d to check run: %w",
				i*MaxCheckRunAnnotationsPerRequest+1, i*MaxCheckRunAnnotationsPerRequest+len(batches[i]), classify(err))
			out := output(nil)
			out.Summary = github.String(cutBytes(summary, MaxCheckRunSummaryChars-len(incompleteNote)) + incompleteNote)
			// Sent when the step is being cancelled too (the runner's
			// SIGINT ends ctx), on a short clock of its own: else the
			// run's summary does not say what it lacks. It then
			// concludes failure: the step exits 125 for the signal.
			opts := github.UpdateCheckRunOptions{Name: cr.Name, Output: out}
			cctx := ctx
			if ctx.Err() != nil {
				opts.Status, opts.Conclusion = github.String("completed"), github.String("failure")
				var cancel context.CancelFunc
				cctx, cancel = context.WithTimeout(context.WithoutCancel(ctx), CheckRunCompleteTimeout)
				defer cancel()
			}
			if cerr := update(cctx, opts, run.GetID()); cerr != nil {
				err = fmt.Errorf("%w; saying so in its summary: %w", err, classify(cerr))
			}
			return run.GetHTMLURL(), err
		}
	}
	return run.GetHTMLURL(), nil
}

// elsewhere says where the findings a check run does not carry are, and
// no more than is so: the job summary's table holds what fits in it, and
// the JSON report lasts as long as the job unless it is uploaded.
var elsewhere = "The job summary's findings table lists as many findings as it has room for (and says how many it left out), and " + ReportHas("every finding") + "."

// incompleteNote ends the summary of a check run whose annotations could
// not all be posted: Publish then annotates the findings through
// workflow commands, of which GitHub shows MaxAnnotationsPerLevel per
// level.
var incompleteNote = fmt.Sprintf("\n\n**Not every annotation could be posted**: the findings are annotated in the job's log instead, where GitHub shows at most %d per level, most severe first. %s\n", MaxAnnotationsPerLevel, elsewhere)

// rateLimitWait says whether GitHub refused a request for a rate limit
// that lifts soon, and how long it asked to wait before the next one: a
// secondary rate limit (403 or 429, with Retry-After or, without it, "at
// least one minute", as GitHub's REST documentation says). A primary rate
// limit (the token's hourly requests used up) lifts at its reset, too late
// to wait for here.
func rateLimitWait(err error) (time.Duration, bool) {
	var ab *github.AbuseRateLimitError
	if errors.As(err, &ab) {
		if ab.RetryAfter == nil {
			return time.Minute, true
		}
		return max(*ab.RetryAfter, 0), true
	}
	var er *github.ErrorResponse
	if errors.As(err, &er) && er.Response != nil && er.Response.StatusCode == http.StatusTooManyRequests &&
		er.Response.Header.Get("X-RateLimit-Remaining") != "0" { // "0": the primary rate limit
		if s, err := strconv.Atoi(er.Response.Header.Get("Retry-After")); err == nil && s >= 0 {
			// Seconds past any bound vigiles waits for are not multiplied
			// out: they would wrap to a negative wait, which gave the
			// budget back.
			return time.Duration(min(s, int(MaxRateLimitWait/time.Second)+1)) * time.Second, true
		}
		return time.Minute, true
	}
	return 0, false
}

// sleepCtx waits for d unless ctx ends first.
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// classify marks a 403 with ErrCheckRunForbidden, keeping the original.
func classify(err error) error {
	var er *github.ErrorResponse
	if errors.As(err, &er) && er.Response != nil && er.Response.StatusCode == http.StatusForbidden {
		return fmt.Errorf("%w: %w", ErrCheckRunForbidden, err)
	}
	return err
}
