package sandbox

import (
	"errors"
	"fmt"
	"strings"

	"golang.org/x/sys/unix"
)

// The broker's own set-up of a run (its pipes and control socket, the
// fork and exec of bubblewrap and of the network connector, the cgroup
// files, /proc/self/mountinfo, the id-mapped tree, the descriptors the
// sandbox sends) takes a few dozen descriptors a run, all at once under
// --jobs. A broker at its open-files limit fails closed: the run is
// refused, the command never started. outOfFiles makes that refusal say
// so, and name the fix, whichever step it hit.

// nofileFix is what a run refused for want of descriptors tells the user.
const nofileFix = "raise the open-files limit vigiles runs under (ulimit -n; setting a sandbox up takes a few dozen descriptors, for each run at once under --jobs), or run fewer hooks at once (--jobs)"

// enfileFix is the fix where the host's own table of open files is full.
const enfileFix = "end what holds so many files open on this host, or raise the system-wide limit (sysctl fs.file-max); vigiles' own limit (ulimit -n) is not what ran out"

// outOfFiles turns err, a run's failure before its command started, into
// a refusal that says the command did not run and names the fix, where it
// comes from the broker (or the sandbox's init, which inherits its limit)
// running out of descriptors: EMFILE, the process's own open-files limit
// (a control message the kernel cut for it too, see errDescriptorsCut),
// or ENFILE, the system-wide table. Any other err is returned as it is.
// Only an error that wraps the errno counts: text that merely says "too
// many open files" (a hook's own, relayed) does not.
func outOfFiles(err error) error {
	msg, ok := outOfFilesReason(err)
	if !ok {
		return err
	}
	return &outOfFilesError{msg: msg, err: err}
}

// outOfFilesReason is outOfFiles' refusal, without its "run refused: "
// (as the sandbox's init reports one); false where err is not about
// descriptors.
func outOfFilesReason(err error) (string, bool) {
	var why, fix string
	switch {
	case errors.Is(err, unix.ENFILE):
		why = "the system's table of open files is full (ENFILE: every process on the host together)"
		fix = enfileFix
	case errors.Is(err, unix.EMFILE):
		why = "vigiles ran out of file descriptors (EMFILE: its open-files limit"
		var lim unix.Rlimit
		if unix.Getrlimit(unix.RLIMIT_NOFILE, &lim) == nil {
			why += fmt.Sprintf(", %d here", lim.Cur)
		}
		why += ")"
		fix = nofileFix
	default:
		return "", false
	}
	detail := strings.TrimPrefix(err.Error(), ErrRefused.Error()+": ")
	if i := strings.Index(detail, "; fix: "); i >= 0 {
		detail = detail[:i] // a fix for another cause than this
	}
	return fmt.Sprintf("%s: %s while it set up the sandbox, so the hook's command did not run; fix: %s", detail, why, fix), true
}

// outOfFilesError is outOfFiles' refusal: it wraps ErrRefused (the run is
// refused) and the errno (the cause stays testable).
type outOfFilesError struct {
	msg string
	err error
}

func (e *outOfFilesError) Error() string   { return ErrRefused.Error() + ": " + e.msg }
func (e *outOfFilesError) Unwrap() []error { return []error{ErrRefused, e.err} }

// errDescriptorsCut is a message on which the kernel set MSG_CTRUNC
// although its buffer had room for every descriptor the peer may send
// (maxPassed): it could not install them in the receiver, which is at
// its open-files limit (the only other cause, a security module refusing
// the file, would refuse every run alike). It is EMFILE to errors.Is.
var errDescriptorsCut = descriptorsCut{}

type descriptorsCut struct{}

func (descriptorsCut) Error() string {
	return "the kernel could not give this process the descriptors that came with it (MSG_CTRUNC)"
}
func (descriptorsCut) Is(target error) bool { return target == unix.EMFILE }

// maxPassed is how many descriptors a control message's buffer has room
// for: more than any message on the control socket carries, so that a
// truncation (MSG_CTRUNC) can only mean the descriptors could not be
// installed, not that the buffer was short.
const maxPassed = 8
