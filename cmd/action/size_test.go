package main

import (
	"errors"
	"strconv"
	"testing"

	"github.com/vigiles/action/pkg/runner"
)

// TestSizeAgreesWithPolicy: a size means the same on the command line as
// in .vigiles.yml, and what one refuses the other refuses.
func TestSizeAgreesWithPolicy(t *testing.T) {
	for _, s := range []string{
		"0", "1", "1048576", "64KiB", "64K", "64Ki", "64KB", "512MiB", "512M", "2GiB", "2G", "2GB", "1TiB", "3T",
		"10B", " 2GiB ", "2 GiB", "007",
		"", "2gib", "2GiBs", "2 G iB", "1.5GiB", "-1", "+1", "0x10", "1_000", "2EiB", "GiB", "2iB", "2Bi",
		"18446744073709551615", "18446744073709551616", "16777216TiB", "16777215TiB", "١٢٣",
	} {
		t.Run(s, func(t *testing.T) {
			var got uint64
			err := sizeFlag{&got}.Set(s)
			cfg, perr := runner.ParseConfig("p.yml", []byte("defaults:\n  limits:\n    memory: "+strconv.Quote(s)+"\n"))
			var ces runner.ConfigErrors
			if perr != nil && !errors.As(perr, &ces) {
				t.Fatalf("policy: %v", perr)
			}
			if (err == nil) != (perr == nil) {
				t.Fatalf("--limit-memory %q = %d, %v; the policy says %v", s, got, err, perr)
			}
			if err == nil && got != cfg.Defaults.Limits.MemoryBytes {
				t.Errorf("--limit-memory %q = %d, the policy %d", s, got, cfg.Defaults.Limits.MemoryBytes)
			}
		})
	}
}
