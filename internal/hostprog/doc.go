// Package hostprog finds the programs vigiles runs on the host, outside
// any sandbox and before one exists (bubblewrap, the egress connectors,
// getent), where only root or the caller could have put them.
//
// Not through PATH: a caller's PATH may name a directory of the very
// checkout under audit (`npm run` puts its node_modules/.bin first, direnv
// a bin/ of the tree, an activated virtualenv its bin/), and a bwrap found
// there would run the whole run on the host, unconfined, while its record
// said confined. Go's os/exec refuses a relative PATH entry; these are
// absolute.
//
// It must import nothing of the module, of github.com, x/net or gopkg.in
// (test/deps): pkg/sandbox and pkg/egress, which never import each other,
// both use it. x/sys is all it takes beyond the standard library.
package hostprog
