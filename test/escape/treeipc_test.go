package escape

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// TestHostSocketAndFIFOInTheTree: a unix socket a host process listens on,
// and a FIFO it reads, inside the work tree (a development server's socket
// in the checkout, a tool's control FIFO). The run does not cover them as
// it covers the host's sockets elsewhere: the overlay and the copy show the
// command entries of their own, with nothing of the host's behind them.
// For every caller and both ways of recording writes, the hook's connect
// and write reach nothing, and the host process gets no byte.
func TestHostSocketAndFIFOInTheTree(t *testing.T) {
	requireBwrap(t)
	for _, r := range runners(t) {
		for _, method := range []string{"overlay", "copy"} {
			t.Run(r.name+"/"+method, func(t *testing.T) {
				dir := workTree(t)
				l, err := net.Listen("unix", filepath.Join(dir, "host.sock"))
				if err != nil {
					t.Fatal(err)
				}
				defer l.Close()
				got := make(chan struct{}, 1)
				go func() {
					if c, err := l.Accept(); err == nil {
						got <- struct{}{}
						c.Close()
					}
				}()
				fifo := filepath.Join(dir, "host.fifo")
				if err := unix.Mkfifo(fifo, 0o666); err != nil {
					t.Fatal(err)
				}
				fd, err := unix.Open(fifo, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
				if err != nil {
					t.Fatal(err)
				}
				defer unix.Close(fd)
				for _, p := range []string{dir, filepath.Join(dir, "host.sock"), fifo} {
					os.Chmod(p, 0o777)
				}
				res := vigiles(t, r, dir, nil, "--writes", method, "--", "python3", "treeipc.py")
				checkAttempts(t, res, 2)
				if res.ExitCode != 0 {
					t.Errorf("exit %d: %s", res.ExitCode, res.Stderr)
				}
				select {
				case <-got:
					t.Error("the host's socket in the work tree accepted a connection from the hook")
				default:
				}
				buf := make([]byte, 64)
				// Nothing written: end of file (no writer came) or EAGAIN.
				if n, err := unix.Read(fd, buf); n > 0 || err != nil && !errors.Is(err, unix.EAGAIN) {
					t.Errorf("the host's FIFO in the work tree: read %q, %v; want nothing", buf[:max(n, 0)], err)
				}
			})
		}
	}
}
