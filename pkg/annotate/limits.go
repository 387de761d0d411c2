package annotate

import "time"

// GitHub's limits, each with where it comes from. Code in this package
// never hard-codes one of these numbers.
const (
	// MaxAnnotationsPerLevel is how many error, warning and notice
	// annotations GitHub shows per step from workflow commands; the rest
	// are dropped silently by GitHub, so we show the most severe and count
	// the rest in the summary.
	// Source: docs.github.com, "Workflow commands for GitHub Actions" /
	// annotation limits ("10 error, 10 warning and 10 notice annotations
	// per step").
	MaxAnnotationsPerLevel = 10

	// MaxAnnotationsPerJob is how many workflow-command annotations GitHub
	// shows in a job, over all its steps; the rest are dropped silently.
	// Source: actions/toolkit, docs/problem-matchers.md, "Limitations":
	// "50 annotations per job (sum of annotations from all the steps)".
	MaxAnnotationsPerJob = 50

	// MaxMessageChars is the length at which we cut an annotation message.
	// Source: docs.github.com, "Workflow commands for GitHub Actions" and
	// the actions/runner annotation size limit (4 KiB per message).
	MaxMessageChars = 4096

	// MaxStepSummaryBytes is the size of one step's job summary.
	// Source: docs.github.com, "Workflow commands for GitHub Actions",
	// "Adding a job summary": "the maximum size for a step summary is
	// 1MiB". We stay below it with SummaryReserveBytes to spare.
	MaxStepSummaryBytes = 1 << 20

	// SummaryReserveBytes is kept free at the end of the summary for the
	// "N more not shown" lines and notes appended after the tables.
	SummaryReserveBytes = 16 << 10

	// MaxCheckRunAnnotationsPerRequest is how many annotations one create
	// or update request of a check run may carry.
	// Source: docs.github.com REST API, "Update a check run":
	// "The Checks API limits the number of annotations to a maximum of 50
	// per API request. To create more than 50 annotations, you have to
	// make multiple requests to the Update a check run endpoint."
	MaxCheckRunAnnotationsPerRequest = 50

	// MaxCheckRunAnnotations is our own bound on the annotations of one
	// check run (20 requests of 50). GitHub documents no total, but every
	// request counts against the token's secondary rate limits; the rest
	// are counted in the check run's summary and all are in the job
	// summary and the JSON report.
	MaxCheckRunAnnotations = 1000

	// MaxRateLimitWait is our own bound on the time one check run waits,
	// in all, for GitHub's secondary rate limits: a request refused with
	// Retry-After (or, without it, a minute: "wait at least one minute
	// before retrying") is sent once more after that wait while the waits
	// fit in it. Source: docs.github.com REST API, "Rate limits for the
	// REST API", "Exceeding the rate limit".
	MaxRateLimitWait = 2 * time.Minute

	// CheckRunCompleteTimeout is our own bound on the request that
	// completes a check run whose batch failed, which is sent even when
	// the step is being cancelled: the runner sends SIGTERM 7.5 s after
	// SIGINT (actions/runner, ProcessInvoker), so it stays well within.
	CheckRunCompleteTimeout = 5 * time.Second

	// MaxCheckRunSummaryChars is the longest output.summary (and
	// output.text) of a check run, in bytes of UTF-8.
	// Source: docs.github.com REST API, "Create a check run",
	// output.summary: "Maximum length: 65535 characters"; GitHub counts
	// bytes, though: a longer summary of fewer characters is refused
	// with 422, "summary exceeds a maximum bytesize of 65535"
	// (github/docs#35252).
	MaxCheckRunSummaryChars = 65535

	// MaxCheckRunTitleChars caps the check run's output.title; GitHub
	// documents no number, so we keep it to one readable line.
	MaxCheckRunTitleChars = 255

	// MaxCheckRunAnnotationDetailsBytes caps an annotation's raw_details.
	// Source: docs.github.com REST API, "Create a check run",
	// annotations[].raw_details: "The maximum size is 64 KB".
	MaxCheckRunAnnotationDetailsBytes = 64 << 10
)

// SARIF limits that GitHub code scanning enforces on upload.
// Source: docs.github.com, "SARIF support for code scanning",
// "Validating your SARIF file" / "Limits on SARIF upload"
// (https://docs.github.com/en/code-security/code-scanning/integrating-with-code-scanning/sarif-support-for-code-scanning).
const (
	// SARIFMaxRuns: runs per file.
	SARIFMaxRuns = 20
	// SARIFMaxResultsPerRun: results per run; a run with more is
	// rejected ("Maximum values" in the limits table).
	SARIFMaxResultsPerRun = 25000
	// SARIFMaxResultsShown: of a run's results, code scanning keeps
	// "only the top 5,000 results ..., prioritized by severity" (the
	// table's "Data truncation limits"); more are uploaded, not shown.
	SARIFMaxResultsShown = 5000
	// SARIFMaxRulesPerRun: rules per run.
	SARIFMaxRulesPerRun = 25000
	// SARIFMaxLocationsPerResult: locations per result.
	SARIFMaxLocationsPerResult = 1000
	// SARIFMaxFileBytes is the largest upload, measured as GitHub
	// measures it: "For each gzip-compressed SARIF file, SARIF upload
	// supports a maximum size of 10 MB" (read as 10,000,000 bytes, the
	// smaller reading). vigiles holds its file to SARIFFileBytesTarget.
	SARIFMaxFileBytes = 10_000_000
	// SARIFFileBytesTarget is our own bound on the file gzip-compressed
	// (compress/gzip, default level): 95% of SARIFMaxFileBytes. What
	// GitHub measures is not vigiles' file: upload-sarif adds
	// automationDetails and a primaryLocationLineHash partial fingerprint
	// to each result, then compresses JSON.stringify of that with zlib
	// (level 6). A file measured at 9,998,032 bytes was 10,053,119 as
	// uploaded, over the limit; the 5% margin is for what upload-sarif
	// adds and the two compressors' differences.
	SARIFFileBytesTarget = SARIFMaxFileBytes / 100 * 95
	// SARIFMaxRawBytes is our own bound on the uncompressed file, which
	// GitHub does not limit: upload-sarif reads the whole file into one
	// JavaScript string (at most 512 MiB), and vigiles holds it in
	// memory. Findings that compress well could otherwise make a file of
	// hundreds of megabytes within 10 MB compressed.
	SARIFMaxRawBytes = 128 << 20
	// SARIFMaxMessageChars is our own cut for result messages, so that the
	// per-result size stays bounded whatever a hook printed.
	SARIFMaxMessageChars = MaxMessageChars
)

// SARIF format constants.
// Source: OASIS SARIF 2.1.0, and the schema URI GitHub documents.
const (
	SARIFVersion = "2.1.0"
	SARIFSchema  = "https://json.schemastore.org/sarif-2.1.0.json"
)
