package annotate

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/vigiles/action/internal/textcut"
	"github.com/vigiles/action/pkg/report"
)

// Options configure Publish. Getenv supplies the runner's environment
// (GITHUB_REPOSITORY, GITHUB_SHA, GITHUB_EVENT_PATH, GITHUB_SERVER_URL,
// GITHUB_API_URL, GITHUB_JOB, GITHUB_STEP_SUMMARY, GITHUB_OUTPUT).
type Options struct {
	// Log is the step's log (stdout): workflow commands and raw output.
	Log    io.Writer
	Getenv func(string) string
	// Token authenticates the check run; it is used for nothing else.
	Token string
	// CheckRun asks for a check run (needs Token and checks: write).
	CheckRun   bool
	HTTPClient *http.Client
	FailLevel  FailLevel
	// ReportPath is the JSON report's path, for the `report` output.
	ReportPath string
	// RawLogs prints every hook's stdout and stderr to the log, fenced
	// (WriteHookLogs). Off unless asked for: no workflow command runs
	// from inside the fence, but problem matchers that earlier steps
	// registered still read its lines and may make annotations of them.
	// The output is in the JSON report either way.
	RawLogs bool
	// DefaultFile anchors findings without a file (usually the config).
	DefaultFile string
	// Tree is the directory vigiles checked ("" for none, as for a
	// merge): on a workflow_run event the check run goes on the
	// triggering run's head commit only where that is what Tree has
	// checked out (HeadSHA).
	Tree string
	// Scope names what was checked when it is not the whole repository
	// with its default policy file (the working directory, the config);
	// it keeps check-run names unique.
	Scope string
	// Err is why vigiles did not complete though it made r (it was
	// interrupted, it planned more runs than it starts, or it could not
	// write the baseline it was asked to update or the SARIF file): the
	// step fails whatever r says, so the check run concludes failure,
	// the verdict output is error and the summaries say why.
	Err error
	// Notes are vigiles' own sentences for both summaries, after its
	// others: what the SARIF file leaves out, say.
	Notes []string
	Now   func() time.Time
	// Started is when the step began checking; the check run's
	// started_at (zero: the time it is posted, as Now).
	Started time.Time
	// Made counts the annotations the step made before Publish (a
	// notice of vigiles' own), which count against GitHub's limits.
	Made Made
	// Sleep is CheckRun.Sleep: nil waits on a timer.
	Sleep func(context.Context, time.Duration) error
}

// Result says what Publish did.
type Result struct {
	// ExitCode is the step's status from the fail level (0 or 1).
	ExitCode    int
	CheckRunURL string
	// FellBack is set when a check run was asked for but annotations
	// went to the log instead; Reason says why (vigiles' own words).
	FellBack bool
	Reason   string
	Hidden   Hidden
	// Interrupted is why ctx ended (its cause) where it ended while
	// Publish ran and o.Err did not say so already: the step fails as
	// interrupted (125), and the outputs and summary say error.
	Interrupted error
}

// Publish puts r on every GitHub surface: a check run on the pull
// request's head commit when asked and allowed (falling back to workflow
// commands on a 403 or any other API failure, without failing), workflow
// commands otherwise, the fenced raw log when asked for, the job summary
// and the step outputs. It returns an error only when it could not write
// the summary, outputs or log.
func Publish(ctx context.Context, r *report.Report, o Options) (res Result, err error) {
	defer func() {
		// go-githubactions panics when it cannot write the log.
		if p := recover(); p != nil {
			err = fmt.Errorf("writing workflow commands: %v", p)
		}
	}()
	getenv := o.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	log := o.Log
	if log == nil {
		log = io.Discard
	}
	var notes []string
	sha, shaErr := HeadSHA(getenv("GITHUB_EVENT_NAME"), getenv("GITHUB_EVENT_PATH"), getenv("GITHUB_SHA"), o.Tree)
	if shaErr != nil {
		sha = ""
	}
	repo := getenv("GITHUB_REPOSITORY")

	// The summary and outputs files are opened before anything is posted
	// or written: one that cannot be opened (a directory, say) fails the
	// step (125), so the check run concludes failure and the verdict
	// output, where it can be written, reads error, as for o.Err.
	var failed []error
	summaryFile, err := openFileCommand(getenv("GITHUB_STEP_SUMMARY"))
	if err != nil {
		failed = append(failed, fmt.Errorf("writing job summary: %w", err))
	}
	outputFile, err := openFileCommand(getenv("GITHUB_OUTPUT"))
	if err != nil {
		failed = append(failed, fmt.Errorf("writing step outputs: %w", err))
	}
	defer func() {
		for _, f := range []*os.File{summaryFile, outputFile} {
			if f == nil {
				continue
			}
			if cerr := f.Close(); cerr != nil && err == nil {
				err = fmt.Errorf("closing %s: %w", f.Name(), cerr)
			}
		}
	}()

	e, w, n := countBySeverity(r.Findings)
	conclusion := "success"
	res.ExitCode = ExitCode(r, o.FailLevel)
	switch {
	case o.Err != nil || len(failed) > 0:
		// Whatever the findings say: a shallow copy, so the summaries'
		// verdict lines say error without changing the caller's report.
		errored := *r
		errored.Verdict = report.VerdictError
		r = &errored
		conclusion = "failure"
	case res.ExitCode != 0:
		conclusion = "failure"
	case len(r.Findings) > 0:
		conclusion = "neutral"
	}
	if o.Err != nil {
		notes = append(notes, fmt.Sprintf("vigiles %s did not complete, so the step fails: %s.", oneLine(textcut.End(r.Command, 20)), oneLine(textcut.End(o.Err.Error(), 500))))
	}
	for _, f := range failed {
		// Said on the check run too: where the summary is what cannot
		// be written, it and the log's ::error are all that say it.
		notes = append(notes, fmt.Sprintf("vigiles %s could not report in full, so the step fails: %s.", oneLine(textcut.End(r.Command, 20)), oneLine(textcut.End(f.Error(), 500))))
	}
	notes = append(notes, o.Notes...)

	posted := false
	if o.CheckRun {
		reason := ""
		switch {
		case o.Token == "":
			reason = "no github-token was given: the action's github-token input is empty (leave it out for the job's own token, ${{ github.token }}, or set check-run: false)"
		case shaErr != nil:
			reason = "the commit to attach it to is unknown: " + shaErr.Error()
		case !repoRE().MatchString(repo):
			reason = "GITHUB_REPOSITORY is not owner/name"
		case ctx.Err() != nil:
			// Nothing is sent: a request would end before GitHub answered.
			reason = "the step was interrupted, and its API calls would be cut short"
		default:
			owner, name, _ := strings.Cut(repo, "/")
			client, cerr := NewClient(o.HTTPClient, o.Token, getenv("GITHUB_API_URL"))
			if cerr != nil {
				reason = cerr.Error()
				break
			}
			now := time.Now()
			if o.Now != nil {
				now = o.Now()
			}
			so := SummaryOptions{ServerURL: getenv("GITHUB_SERVER_URL"), Repo: repo, SHA: sha, FailLevel: o.FailLevel, MaxBytes: MaxCheckRunSummaryChars, Notes: notes}
			url, perr := PostCheckRun(ctx, client, CheckRun{
				Owner: owner, Repo: name,
				Name:        CheckName(r.Command, o.Scope, r.Shard, getenv("GITHUB_JOB")),
				HeadSHA:     sha,
				Conclusion:  conclusion,
				Title:       plural(e, "error", "errors") + ", " + plural(w, "warning", "warnings") + ", " + plural(n, "notice", "notices"),
				Summary:     Summary(r, so),
				Findings:    r.Findings,
				DefaultFile: o.DefaultFile,
				Now:         now,
				Started:     o.Started,
				Sleep: func(ctx context.Context, d time.Duration) error {
					// Said, so that a step that waits is not taken for hung.
					fmt.Fprintf(log, "vigiles: GitHub refused a check-run request for its secondary rate limit; sending it again in %s\n", report.ShortDuration(d.Round(time.Second)))
					if o.Sleep != nil {
						return o.Sleep(ctx, d)
					}
					return sleepCtx(ctx, d)
				},
			})
			res.CheckRunURL = url
			switch {
			case errors.Is(perr, ErrCheckRunForbidden) && url == "":
				reason = "GitHub refused to create the check run (403): the token lacks checks: write; add `permissions: checks: write` to the job (a pull request from a fork cannot get it)"
			case errors.Is(perr, ErrCheckRunForbidden):
				// Created, so the token could write checks: a later
				// request was refused (a secondary rate limit also
				// answers 403).
				reason = "GitHub refused to update the check run it had created (403): " + perr.Error()
			case perr != nil:
				reason = "the GitHub API failed: " + perr.Error()
			default:
				posted = true
			}
		}
		if !posted {
			res.FellBack, res.Reason = true, reason
			what := "no check run"
			if res.CheckRunURL != "" {
				// Created completed with its first annotations
				// (PostCheckRun): a later batch failed.
				what = "the check run could not take every annotation; it was completed without the rest"
			}
			notes = append(notes, strings.ToUpper(what[:1])+what[1:]+": "+reason+". The findings are annotated through workflow commands instead.")
			// The reason can quote what the API sent back of a request
			// that carried names a plugin chose.
			fmt.Fprintf(log, "vigiles: %s: %s; annotating through workflow commands instead\n", what, NoMatch(InertLine(oneLine(textcut.End(reason, 500)))))
		} else {
			notes = append(notes, "The findings are annotated on the check run "+CheckName(r.Command, o.Scope, r.Shard, getenv("GITHUB_JOB"))+".")
		}
	}
	if o.Err == nil && ctx.Err() != nil {
		// The signal came while the check run was posted (or just
		// before): nothing written from here reads pass. A check run
		// completed before it stays as it concluded.
		res.Interrupted = context.Cause(ctx)
		errored := *r
		errored.Verdict = report.VerdictError
		r = &errored
		notes = append(notes, fmt.Sprintf("vigiles %s was interrupted (%s) while it reported, so the step fails.", oneLine(textcut.End(r.Command, 20)), oneLine(textcut.End(res.Interrupted.Error(), 100))))
	}
	// The step's annotations come last, once it is known whether the
	// step fails for an error of vigiles' own (o.Err, or the outputs or
	// summary not written), which the caller then annotates: one error
	// annotation is kept for it.
	if outputFile != nil {
		out := Outputs{Verdict: r.Verdict, Findings: len(r.Findings), Failed: Failed(r, o.FailLevel), Report: o.ReportPath}
		if out.Verdict != report.VerdictPass && out.Verdict != report.VerdictFail {
			out.Verdict = report.VerdictError
		}
		if err := writeOutputs(outputFile, out); err != nil {
			failed = append(failed, fmt.Errorf("writing step outputs: %w", err))
		}
	}
	// GitHub shows MaxAnnotationsPerJob in the job: earlier vigiles steps
	// of the job left their count in RUNNER_TEMP, which is the job's.
	counter := ""
	if t := getenv("RUNNER_TEMP"); t != "" {
		counter = filepath.Join(t, "vigiles", "annotations-made")
	}
	earlier := readCount(counter)
	within := func() budget {
		b := budget{made: o.Made, earlier: earlier}
		if o.Err != nil || res.Interrupted != nil || len(failed) > 0 {
			b.reserved = 1
		}
		return b
	}
	if summaryFile != nil {
		var hidden Hidden
		if !posted {
			hidden = writeAnnotations(nil, r.Findings, within())
		}
		s := Summary(r, SummaryOptions{
			ServerURL: getenv("GITHUB_SERVER_URL"), Repo: repo, SHA: sha,
			FailLevel: o.FailLevel, Hidden: hidden, Notes: notes,
		})
		if err := writeFileCommand(summaryFile, s); err != nil {
			failed = append(failed, fmt.Errorf("writing job summary: %w", err))
		}
	}
	made := earlier + o.Made.total() + within().reserved
	if !posted {
		res.Hidden = writeAnnotations(log, r.Findings, within())
		made += len(r.Findings) - res.Hidden.Total()
	}
	if counter != "" {
		// Best effort: without it a later step counts from 0, as before.
		_ = writeCount(counter, made)
	}
	if o.RawLogs {
		if err := WriteHookLogs(log, r.Runs); err != nil {
			failed = append(failed, err)
		}
	}
	err = nil
	for _, f := range failed {
		if err == nil {
			err = f
		} else {
			err = fmt.Errorf("%w; %w", err, f)
		}
	}
	return res, err
}

// readCount reads the annotations earlier steps of the job made from
// path; 0 when there is none or it is not a count.
func readCount(path string) int {
	if path == "" {
		return 0
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || n < 0 {
		return 0
	}
	return n
}

// writeCount records n, the annotations the job has made, at path.
func writeCount(path string, n int) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, []byte(strconv.Itoa(n)+"\n"), 0o644)
}
