package runner

import (
	"crypto/rand"
	"strings"
)

// runIdentity holds the ids one run sends its hook in place of the fixed
// ones its plan and its payload hold (sessionID, defaultToolUseID,
// defaultTurnID, defaultMessageID): fresh for each run, as each Claude
// Code session and tool call has its own, so that a hook cannot tell an
// audit by ids it has seen before or that no session would have. What
// the run records is written back with the fixed ones (restore), so
// that reports and baselines read the same from run to run. Each fresh id
// has the length of the fixed one it stands for, so sizes in the record
// stay true, and enough random bits that it names nothing else.
type runIdentity struct {
	send, restore *strings.Replacer
}

func newRunIdentity() *runIdentity {
	fresh := map[string]string{
		sessionID:        uuid4(),
		defaultToolUseID: "toolu_01" + base62(len(defaultToolUseID)-len("toolu_01")),
		defaultTurnID:    uuid4(),
		defaultMessageID: uuid4(),
	}
	var send, back []string
	for fixed, f := range fresh {
		send = append(send, fixed, f)
		back = append(back, f, fixed)
	}
	return &runIdentity{send: strings.NewReplacer(send...), restore: strings.NewReplacer(back...)}
}

// uuid4 is a random version 4 UUID, as Claude Code's session ids are.
func uuid4() string {
	var b [16]byte
	rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	const hex = "0123456789abcdef"
	out := make([]byte, 0, 36)
	for i, c := range b {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			out = append(out, '-')
		}
		out = append(out, hex[c>>4], hex[c&15])
	}
	return string(out)
}

// base62 is n random letters and digits, as the tail of an API's tool
// use id.
func base62(n int) string {
	const abc = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	b := make([]byte, n)
	rand.Read(b)
	for i := range b {
		b[i] = abc[int(b[i])%len(abc)]
	}
	return string(b)
}
