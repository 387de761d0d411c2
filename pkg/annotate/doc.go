// Package annotate turns one vigiles.report/v1 document into every GitHub
// surface a reviewer looks at: workflow-command annotations, the raw hook
// log when asked for (fenced so nothing in it is parsed as a command), the
// job summary, step outputs, a check run on the pull request's head
// commit, and SARIF 2.1.0 for code scanning. It also decides, from the
// fail level, whether the step fails.
//
// Every value that came from a hook or a plugin (output, file names, host
// names, messages) is hostile. This package must never write such a value
// unescaped to the log, the summary, a check run or SARIF, never write one
// to GITHUB_OUTPUT at all, never quote one in a log line with its ':'
// (NoMatch: problem matchers read the log), and never print raw hook
// output outside a ::stop-commands:: block, nor unless asked: the
// matchers read inside the block too. It must never run hooks, read the
// sandbox or import pkg/sandbox, pkg/egress or pkg/runner: it depends only
// on pkg/report, pkg/evidence, the standard library, go-githubactions and
// go-github. Every GitHub limit it honours is a named constant in
// limits.go with the place it comes from.
package annotate
