// Package runner is what users come to vigiles for: it discovers the hooks
// a repository declares (Claude Code first, behind the Adapter seam), runs
// each one the way the agent would — the event JSON on stdin, the
// environment the agent sets, its timeout — through a sandbox executor,
// reads the hook's decision, checks the expectations written in
// .vigiles.yml, compares an audit with its baseline, and produces one
// vigiles.report/v1 document (pkg/report).
//
// The pure steps (parsing with positions, matcher and `if` semantics,
// payloads, outcome rules, expectations, baseline drift, sharding, merge)
// are plain functions; only the Executor touches processes.
//
// It must never import pkg/annotate, go-github or pflag, never talk to
// GitHub, never run a hook except through its Executor, never trust
// anything a hook prints (stdout, stderr, file and host names are hostile
// data), and never turn evidence that was not recorded into a pass.
package runner
