// Package annotatetest reads a GitHub Actions step log the way the runner
// does, so tests can assert which workflow commands a log really issues,
// and which annotations the problem matchers that other steps registered
// would make of its plain lines; and it serves a fake GitHub API
// (GitHubAPI) that keeps what a real client sent it.
//
// It is for tests only and must never be used to produce output:
// no binary links it (test/deps, TestTestOnlyPackagesStayOutOfBinaries).
package annotatetest
