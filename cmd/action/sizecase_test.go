package main

import (
	"strings"
	"testing"
)

// TestSizeWrittenOtherwiseSaysTheSizeMeant: a size flag given a unit in
// lower case (--output-cap 64k, --limit-memory 2gb, as other tools take
// them) or a fraction (--limit-memory 1.5GiB) is bad usage whose one line
// names the size meant as vigiles reads it; a value that means no size
// keeps the form alone.
func TestSizeWrittenOtherwiseSaysTheSizeMeant(t *testing.T) {
	const form = "want a size such as 1048576, 64KiB, 512MiB or 2GiB"
	for _, c := range []struct {
		flag, value, meant string
	}{
		{"--output-cap", "64k", "64KiB"},
		{"--output-cap", "1mb", "1MiB"},
		{"--output-cap", "512 kib", "512KiB"},
		{"--output-cap", "4096b", "4KiB"},
		{"--limit-memory", "2gb", "2GiB"},
		{"--limit-memory", "1.5GiB", "1536MiB"},
		{"--limit-scratch", "0.5g", "512MiB"},
		{"--limit-file-size", "1t", "1TiB"},
		{"--output-cap", "1.3", ""},
		{"--output-cap", "1.1KiB", ""},
		{"--output-cap", "64x", ""},
		{"--output-cap", "big", ""},
	} {
		t.Run(c.flag+"="+c.value, func(t *testing.T) {
			code, out, errs := runCLI(t, "run", c.flag, c.value, "--", "true")
			hint := "did you mean " + c.meant + "?"
			if code != 2 || out != "" || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, form) {
				t.Fatalf("exit %d, stdout %q, stderr %q: want status 2 and one line with %q", code, out, errs, form)
			}
			if c.meant != "" && !strings.Contains(errs, hint) {
				t.Errorf("stderr %q does not say %q", errs, hint)
			}
			if c.meant == "" && strings.Contains(errs, "did you mean") {
				t.Errorf("stderr %q names a size for a value that means none", errs)
			}
		})
	}
}
