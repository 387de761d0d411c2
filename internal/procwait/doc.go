// Package procwait waits for a child's exit in the Go runtime's poller
// rather than in a blocking wait system call, and reads what /proc says of
// a process (Stat, Gone: whether a broker that left a cgroup or a
// directory named after it is gone).
//
// A goroutine blocked in wait4 or waitid keeps its P in a system call.
// While any P is so held, the runtime's sysmon thread keeps waking to look
// at it: every 20 µs at first, backing off to 10 ms, and back to 20 µs
// each time it takes the P away after 10 ms. On a nested virtual machine
// each of those wakeups programs a timer and halts, both of which trap to
// the hypervisor: about 2 ms of CPU for a 20 ms wait, in a process that
// does nothing (docs/performance.md, item 21). A pidfd waited on in the
// poller leaves every P idle, and sysmon then sleeps.
//
// It must import nothing of the module, of github.com, x/net or gopkg.in
// (test/deps): pkg/sandbox and pkg/egress, which never import each other,
// both use it, and it must bring neither along. x/sys is all it takes
// beyond the standard library.
package procwait
