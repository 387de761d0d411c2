package egress

import (
	"errors"
	"net"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// childNFLOGBehind logs 40 datagrams to a reader that takes 50 ms over
// each, and stops it with 20 ms to read them: most are still queued.
func childNFLOGBehind() int {
	if err := setupLoopback(false); err != nil {
		return emit(childResult{SetupErr: "loopback: " + err.Error()})
	}
	if out, err := exec.Command("nft", "add table inet t; add chain inet t o { type filter hook output priority 0; }; add rule inet t o udp dport 9 log prefix \"vigiles-drop\" group 7 snaplen 128 queue-threshold 1").CombinedOutput(); err != nil {
		return emit(childResult{SetupErr: "nft: " + err.Error() + ": " + string(out)})
	}
	l, err := openNFLOG(7, func(packetEvent) { time.Sleep(50 * time.Millisecond) })
	if err != nil {
		return emit(childResult{SetupErr: err.Error()})
	}
	// Unconnected, so the port unreachable that answers the first does
	// not fail the next.
	c, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		return emit(childResult{SetupErr: err.Error()})
	}
	to := &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 9}
	for range 40 {
		if _, err := c.WriteTo([]byte("x"), to); err != nil {
			return emit(childResult{SetupErr: err.Error()})
		}
	}
	c.Close()
	nflogStopMax = 20 * time.Millisecond
	res := childResult{}
	if _, err := l.stop(); err != nil {
		res.FinishErr = err.Error()
		if errors.Is(err, ErrIncomplete) {
			res.FinishErr += " (incomplete)"
		}
	}
	return emit(res)
}

// TestNFLOGStoppedBehindIsIncomplete: log messages still queued when the
// reader's time runs out make the record incomplete; before, they were
// dropped unread and the record was short without a word (review Q).
func TestNFLOGStoppedBehindIsIncomplete(t *testing.T) {
	needNamespaces(t)
	res := runChild(t, "nflog-behind", childSpec{}, nil)
	if res.SetupErr != "" {
		t.Fatal(res.SetupErr)
	}
	if !strings.HasSuffix(res.FinishErr, "(incomplete)") {
		t.Errorf("stop with 40 log messages unread: error %q, want one that makes the record incomplete", res.FinishErr)
	}
}
