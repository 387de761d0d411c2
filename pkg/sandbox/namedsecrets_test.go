package sandbox

import (
	"slices"
	"testing"
)

// TestSwapFiles: of /proc/swaps, the files (a space in a name as the
// kernel escapes it), not the header or a partition.
func TestSwapFiles(t *testing.T) {
	b := []byte("Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n" +
		"/dev/sda2                               partition\t8388604\t\t0\t\t-2\n" +
		"/swapfile                               file\t\t2097148\t\t0\t\t-3\n" +
		"/data/my\\040swap                        file\t\t1024\t\t0\t\t-4\n" +
		"/zram0                                  partition\t1024\t0\t100\n")
	if got, want := swapFiles(b), []string{"/swapfile", "/data/my swap"}; !slices.Equal(got, want) {
		t.Errorf("swapFiles = %q, want %q", got, want)
	}
}

// TestCrypttabKeyFiles: of /etc/crypttab, the key files by absolute path,
// not none, -, a relative name, one on another device, the random
// devices an encrypted swap is keyed from, or a comment's.
func TestCrypttabKeyFiles(t *testing.T) {
	b := []byte("# <target name> <source device> <key file> <options>\n" +
		"vault UUID=0f1e-22 /etc/luks/vault.key luks,discard\n" +
		"home  /dev/sda3 none luks\n" +
		"data  /dev/sdb1 - luks\n" +
		"swap  /dev/sda4 /dev/urandom swap,cipher=aes-xts-plain64\n" +
		"usb   /dev/sdc1 /keys/usb.key:UUID=77aa luks\n" +
		"rel   /dev/sdd1 keys/rel.key luks\n" +
		"#old  /dev/sde1 /etc/luks/old.key luks\n" +
		"  sp  /dev/sdf1   /etc/luks/with\\040space.key\tluks\n" +
		"short /dev/sdg1\n")
	if got, want := crypttabKeyFiles(b), []string{"/etc/luks/vault.key", "/etc/luks/with space.key"}; !slices.Equal(got, want) {
		t.Errorf("crypttabKeyFiles = %q, want %q", got, want)
	}
}

// TestUnescapeOctal: \ooo is the byte it names; a backslash before
// anything else, or too near the end, stays.
func TestUnescapeOctal(t *testing.T) {
	for in, want := range map[string]string{`a\040b`: "a b", `\011x`: "\tx", `a\\b`: `a\\b`, `end\04`: `end\04`, `\777`: `\777`, `plain`: "plain", `\134`: `\`} {
		if got := unescapeOctal(in); got != want {
			t.Errorf("unescapeOctal(%q) = %q, want %q", in, got, want)
		}
	}
}
