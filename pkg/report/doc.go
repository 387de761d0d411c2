// Package report defines vigiles.report/v1: the one document that
// `vigiles test` and `vigiles audit` write and that every reporter reads,
// and the neutral Finding type that producers and reporters share.
//
// It is data only: it must never run anything, talk to GitHub, or import
// pkg/sandbox, pkg/egress, pkg/runner or pkg/annotate.
package report
