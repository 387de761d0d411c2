// Package ptytest opens pseudo-terminals for tests of what reaches a
// terminal.
//
// It is imported by tests only, and never linked into a binary
// (test/deps, TestTestOnlyPackagesStayOutOfBinaries).
package ptytest
