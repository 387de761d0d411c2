package allocs

import "testing"

var sink []byte

// TestFewest: a step that allocates once counts one, however little
// else runs, and one that allocates nothing counts none.
func TestFewest(t *testing.T) {
	if n := Fewest(10, func() { sink = make([]byte, 64) }); n != 1 {
		t.Errorf("a step of one allocation counted %v", n)
	}
	if n := Fewest(10, func() { sink = sink[:0] }); n != 0 {
		t.Errorf("a step of no allocation counted %v", n)
	}
}
