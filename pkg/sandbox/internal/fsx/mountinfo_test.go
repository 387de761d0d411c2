package fsx

import (
	"slices"
	"testing"
)

// A mount point's space, tab, newline and backslash come escaped in octal,
// and are read back as they are in the path, a mount's root's too; the
// device and root precede the point, the type follows the "-".
func TestParseMounts(t *testing.T) {
	info := "22 1 254:0 / / rw,relatime shared:1 - ext4 /dev/vda rw\n" +
		`90 22 0:50 /h\040x /w/a\040b\011c\012d\134e rw - tmpfs tmpfs rw` + "\n" +
		`91 22 0:51 / /w/odd\\x\0 rw shared:2 master:3 - proc proc rw` + "\n\n"
	got := parseMounts(info)
	want := []Mount{{"/", "ext4", "254:0", "/"}, {"/w/a b\tc\nd\\e", "tmpfs", "0:50", "/h x"}, {`/w/odd\\x\0`, "proc", "0:51", "/"}}
	if !slices.Equal(got, want) {
		t.Errorf("parseMounts = %q, want %q", got, want)
	}
}

// Only space, tab, newline and backslash are escaped: the other bytes of
// a mount point come as they are, vertical tab, form feed, carriage return
// and the UTF-8 of U+0085 and U+00A0 too, which strings.Fields takes for
// blanks. Split there, a mask at such a path was no mount point to the
// reaper (left writable), and a mount point "p\v-\vtmpfs" gave a proc the
// type tmpfs.
func TestParseMountsOddBytes(t *testing.T) {
	info := "90 22 0:50 / /w/p\v-\vtmpfs rw - proc proc rw\n" +
		"91 22 0:51 / /w/a\rb\fc rw shared:4 - tmpfs tmpfs rw\n" +
		"92 22 0:52 / /w/d\u0085e\u00a0f rw - tmpfs none rw\n"
	got := parseMounts(info)
	want := []Mount{{"/w/p\v-\vtmpfs", "proc", "0:50", "/"}, {"/w/a\rb\fc", "tmpfs", "0:51", "/"}, {"/w/d\u0085e\u00a0f", "tmpfs", "0:52", "/"}}
	if !slices.Equal(got, want) {
		t.Errorf("parseMounts = %q, want %q", got, want)
	}
}
