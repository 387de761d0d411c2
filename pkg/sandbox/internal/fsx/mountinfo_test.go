package fsx

import (
	"slices"
	"testing"
)

// A mount point's space, tab, newline and backslash come escaped in octal,
// and are read back as they are in the path.
func TestParseMountPoints(t *testing.T) {
	info := "22 1 254:0 / / rw,relatime shared:1 - ext4 /dev/vda rw\n" +
		`90 22 0:50 / /w/a\040b\011c\012d\134e rw - tmpfs tmpfs rw` + "\n" +
		`91 22 0:51 / /w/odd\\x\0 rw - tmpfs tmpfs rw` + "\n\n"
	got := parseMountPoints(info)
	want := []string{"/", "/w/a b\tc\nd\\e", `/w/odd\\x\0`}
	if !slices.Equal(got, want) {
		t.Errorf("parseMountPoints = %q, want %q", got, want)
	}
}
