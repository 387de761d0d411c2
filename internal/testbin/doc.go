// Package testbin hands the running test binary to another user. It is
// imported by tests only, and never linked into a binary
// (test/deps, TestTestOnlyPackagesStayOutOfBinaries).
package testbin
