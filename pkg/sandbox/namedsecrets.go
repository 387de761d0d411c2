package sandbox

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/vigiles/action/pkg/sandbox/internal/fsx"
)

// namedSecretFiles are the host's secret files that its own
// configuration names, wherever they are, beside secretFiles' usual
// paths: its swap files (/proc/swaps), whose pages hold whatever a
// process of the host had in memory, a job's tokens among it, and the
// key files of its encrypted volumes (/etc/crypttab's third field). Each
// is at the path its links lead to, where bubblewrap's cover covers
// every name that leads to it.
func namedSecretFiles() []string {
	var named []string
	if b, err := os.ReadFile("/proc/swaps"); err == nil {
		named = append(named, swapFiles(b)...)
	}
	if b, err := readSmallRegular("/etc/crypttab", maxSystemCredentialFile); err == nil {
		named = append(named, crypttabKeyFiles(b)...)
	}
	var out []string
	for _, p := range named {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			out = append(out, real)
		}
	}
	return out
}

// swapFiles are the swap files /proc/swaps lists (b), by their paths,
// the kernel's octal escapes (\040 for a space) undone; a partition is
// none, as the sandbox's /dev holds no block device.
func swapFiles(b []byte) []string {
	var out []string
	for i, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if i == 0 || len(f) < 2 || f[1] != "file" {
			continue
		}
		if p := unescapeOctal(f[0]); filepath.IsAbs(p) {
			out = append(out, filepath.Clean(p))
		}
	}
	return out
}

// crypttabKeyFiles are the key files the lines of an /etc/crypttab (b)
// name in their third field: an absolute path, not none or -, nor one
// on another device (PATH:DEVICE, systemd's form), nor one of the
// kernel's or the sandbox's own (/dev/urandom for an encrypted swap, a
// file of /proc or /sys).
func crypttabKeyFiles(b []byte) []string {
	var out []string
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) < 3 || strings.HasPrefix(f[0], "#") {
			continue
		}
		k := unescapeOctal(f[2])
		if !filepath.IsAbs(k) || strings.Contains(k, ":") {
			continue
		}
		k = filepath.Clean(k)
		if fsx.Under(k, "/dev") || fsx.Under(k, "/proc") || fsx.Under(k, "/sys") {
			continue
		}
		out = append(out, k)
	}
	return out
}

// unescapeOctal undoes the \ooo escapes the kernel (/proc/swaps, a
// mount point in /proc/PID/mountinfo) and crypttab (a space in a path)
// write; any other backslash is kept.
func unescapeOctal(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+4 <= len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
