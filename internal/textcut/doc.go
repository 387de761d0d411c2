// Package textcut shortens text to a limit of characters visibly: from
// its end, or in its middle, where what a message is about comes first
// and what to do last.
//
// It must import nothing but the standard library (test/deps): the
// runner and the annotation layer, which never import each other, both
// cut with it.
package textcut
