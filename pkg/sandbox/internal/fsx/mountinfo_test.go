package fsx

import (
	"slices"
	"testing"
)

// A mount point's space, tab, newline and backslash come escaped in octal,
// and are read back as they are in the path; the type follows the "-".
func TestParseMounts(t *testing.T) {
	info := "22 1 254:0 / / rw,relatime shared:1 - ext4 /dev/vda rw\n" +
		`90 22 0:50 / /w/a\040b\011c\012d\134e rw - tmpfs tmpfs rw` + "\n" +
		`91 22 0:51 / /w/odd\\x\0 rw shared:2 master:3 - proc proc rw` + "\n\n"
	got := parseMounts(info)
	want := []Mount{{"/", "ext4"}, {"/w/a b\tc\nd\\e", "tmpfs"}, {`/w/odd\\x\0`, "proc"}}
	if !slices.Equal(got, want) {
		t.Errorf("parseMounts = %q, want %q", got, want)
	}
}
