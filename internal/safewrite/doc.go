// Package safewrite writes a file into a directory of a tree that another
// party controls (the checkout under review, whose hooks ran, or still
// run, there) so that a symbolic link put on the way at the last moment
// is not followed out of it.
//
// The directory is opened, and held, before anything is written: OpenDir
// opens it one component at a time from "/", and OpenDirWithin from the
// root of the tree (a repository's, a workspace's), making what is
// missing on the way. Replace then makes
// the file in the held directory as a temporary file (O_EXCL|O_NOFOLLOW)
// and renames it over the name within that directory, which replaces
// whatever has the name, a link too, without following it. A link put in
// place of a directory on the way once it is held changes nothing: the
// file goes into the directory that was opened.
//
// Resolve looks a path up inside such a tree the same way without opening
// anything: the check before a read, or before a write says where it
// goes.
//
// It never follows a symbolic link out of the directory that holds it
// (a *LinkedOutError, found before anything outside is looked at), and
// never leaves a name half-written: the name takes the whole file or
// keeps what it had, a failed write's temporary file removed.
package safewrite
