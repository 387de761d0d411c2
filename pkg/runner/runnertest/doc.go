// Package runnertest holds fakes for testing pkg/runner without the real
// sandbox: an executor that runs the command directly (recording nothing,
// like a direct run), one that returns canned results, and a progress
// writer a fake executor can wait on.
//
// It is for tests only and must never be wired into the vigiles binary:
// no binary links it (test/deps, TestTestOnlyPackagesStayOutOfBinaries).
package runnertest
