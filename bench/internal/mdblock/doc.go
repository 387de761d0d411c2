// Package mdblock replaces a generated block of a markdown file: the text
// between the lines "<!-- NAME:begin -->" and "<!-- NAME:end -->". The
// bench programs use it to keep docs/performance.md's tables regenerable.
//
// It lies under bench/internal, so the go command lets only packages
// under bench/ import it: it is never linked into a binary of vigiles.
package mdblock
