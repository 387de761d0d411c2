// Package sandboxtest holds test helpers for code that runs the real
// sandbox engine. It is imported by tests only, and never linked
// into a binary (test/deps, TestTestOnlyPackagesStayOutOfBinaries).
package sandboxtest
