// Package allocs reports what a benchmark's step allocates, for the
// benchmarks whose figures are bytes, not times (docs/performance.md). It
// is imported by tests only, and never linked into a binary
// (test/deps, TestTestOnlyPackagesStayOutOfBinaries).
package allocs
