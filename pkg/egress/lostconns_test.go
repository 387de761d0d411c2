package egress

import (
	"strings"
	"testing"
)

// TestLostConnsSaysWhy: an incomplete record's error says how many
// connections were lost each way (the listener's queue, the command's
// kernel, the stream's own reading), not one sum of the three, so that a
// loss seen once (a CI run) says where to look.
func TestLostConnsSaysWhy(t *testing.T) {
	l := lostConns{dropped: 1}.add(lostConns{discarded: 2, unread: 3})
	if l.total() != 6 {
		t.Errorf("total %d, want 6", l.total())
	}
	for _, want := range []string{"1 refused while its queue was full", "2 thrown away by the command's kernel", "3 not read to the end"} {
		if !strings.Contains(l.String(), want) {
			t.Errorf("%q lacks %q", l.String(), want)
		}
	}
}
