// Package textdist measures how far apart two words are, for the
// "did you mean" of an error: a slip of the keys, not a spelling model.
//
// It must import nothing but the standard library (test/deps).
package textdist
