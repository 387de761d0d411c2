package testbin

import (
	"io"
	"os"
	"path/filepath"
	"testing"
)

// Copy copies the running test binary to dir/name, mode 0755, and
// returns its path: the go tool builds it in a directory only its builder
// may read, so a test that runs itself as another user (runuser -u
// nobody) runs this copy, in a directory that user may enter.
func Copy(t testing.TB, dir, name string) string {
	t.Helper()
	bin := filepath.Join(dir, name)
	src, err := os.Open(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dst, err := os.OpenFile(bin, os.O_CREATE|os.O_WRONLY|os.O_EXCL, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		dst.Close()
		t.Fatal(err)
	}
	if err := dst.Close(); err != nil {
		t.Fatal(err)
	}
	return bin
}
