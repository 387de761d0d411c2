// Package allocs reports what a benchmark's step allocates, for the
// benchmarks whose figures are bytes, not times (docs/performance.md), and
// counts what a step allocates for the tests that say it allocates
// nothing (Fewest). It is imported by tests only, and never linked into a binary
// (test/deps, TestTestOnlyPackagesStayOutOfBinaries).
package allocs
