package main

import (
	"os"
	"strings"
	"testing"
)

// TestSizeFlag: a size flag reads its value as .vigiles.yml reads a size
// (runner.ParseSize, tested there).
func TestSizeFlag(t *testing.T) {
	var got uint64
	if err := (sizeFlag{&got}).Set("2GiB"); err != nil || got != 2<<30 {
		t.Errorf("2GiB = %d, %v; want %d", got, err, 2<<30)
	}
	if err := (sizeFlag{&got}).Set("1.5GiB"); err == nil {
		t.Error("1.5GiB: want an error")
	}
}

// TestSizeUnitsAreBinaryAndSaidSo: 1MB and 2GB are read as MiB and GiB,
// as runner.ParseSize means them, and vigiles run --help, README.md and
// examples/README.md's .vigiles.yml reference say so: a reader who means
// 10^6 bytes is told what they get.
func TestSizeUnitsAreBinaryAndSaidSo(t *testing.T) {
	var got uint64
	if err := (sizeFlag{&got}).Set("1MB"); err != nil || got != 1<<20 {
		t.Errorf("1MB = %d, %v; want %d", got, err, 1<<20)
	}
	if err := (sizeFlag{&got}).Set("2GB"); err != nil || got != 2<<30 {
		t.Errorf("2GB = %d, %v; want %d", got, err, 2<<30)
	}
	code, out, _ := runCLI(t, "run", "--help")
	if flat := strings.Join(strings.Fields(out), " "); code != 0 || !strings.Contains(flat, "KB, MB and GB are read as KiB, MiB and GiB: 1MB is 1048576 bytes") {
		t.Errorf("vigiles run --help (exit %d) does not say that MB is MiB:\n%s", code, out)
	}
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if flat := strings.Join(strings.Fields(string(b)), " "); !strings.Contains(flat, "`KB`, `MB`, `GB` are read as `KiB`, `MiB`, `GiB` (`1MB` is 1048576 bytes") {
		t.Error("README.md does not say that MB is read as MiB")
	}
	if b, err = os.ReadFile("../../examples/README.md"); err != nil {
		t.Fatal(err)
	}
	if _, ref, _ := strings.Cut(string(b), "## `.vigiles.yml`, in full"); !strings.Contains(ref, "KB, MB and GB are read as KiB, MiB and GiB: 1MB is 1048576 bytes") {
		t.Error("examples/README.md's .vigiles.yml reference does not say that MB is read as MiB")
	}
}
