// Package tapkeep makes the tap a network connector (slirp4netns) is
// attached to persistent, from outside the connector, so that the
// connector's exit only detaches from the tap instead of unregistering
// it. Unregistering a network device ends in an RCU barrier
// (netdev_run_todo's rcu_barrier): 20-40 ms on the development VM, in the
// exiting process, which vigiles waits for before it exits. A persistent
// tap goes with its network namespace instead, which the kernel tears
// down in a worker of its own (docs/performance.md, item 22). The egress
// layer keeps every slirp4netns's tap; vigiles doctor says whether this
// host lets it.
//
// It must import nothing of the module, of github.com, x/net or gopkg.in
// (test/deps): x/sys is all it takes beyond the standard library.
package tapkeep
