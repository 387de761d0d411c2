// Package loopfs mounts a file system of the kernel's own (ext4, XFS,
// btrfs) from an image file, for tests that need a real one. It is
// imported by tests only, and never linked into a binary
// (test/deps, TestTestOnlyPackagesStayOutOfBinaries).
package loopfs
