// Package reaper is the sandbox's reaper: pid 1 of the command's own pid
// namespace, which applies the layers the command inherits (read-only
// mounts, rlimits, no capabilities, no_new_privs, Landlock, seccomp),
// starts it, reaps everything and reports to the init. It is a package of
// its own so that its binary, vigiles-reaper, links nothing of the init's
// egress layer and starts in about the time of a minimal Go program.
//
// It must import nothing of the module but pkg/sandbox/landlock,
// pkg/sandbox/seccomp, pkg/sandbox/internal/fsx and
// pkg/sandbox/internal/exact, and nothing of github.com, x/net or
// gopkg.in (test/deps).
package reaper
