package main

import "testing"

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
