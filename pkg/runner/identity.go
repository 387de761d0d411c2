package runner

import (
	"crypto/sha256"
	"strings"
)

// runIdentity holds the ids one run sends its hook in place of the fixed
// ones its plan and its payload hold (sessionID, defaultToolUseID,
// defaultTurnID, defaultMessageID, defaultPromptID, defaultAgentID, and the
// uuids of its transcripts' entries): of the form Claude Code's have, and
// each run's own, so that a hook cannot tell an audit by ids that no
// session would have (a run of zeros). They are drawn from a hash of the
// run's id, so a run gets the same ones in every audit: a hook that
// names a file or a host by a part or a hash of its session id does the
// same from audit to audit, and the baseline stays true. What the run
// records is written back with the fixed ones (restore), so that reports
// read as the plan does. Each id has the length of the fixed one it
// stands for, so sizes in the record stay true, and enough bits of the
// hash that it names nothing else.
type runIdentity struct {
	send, restore *strings.Replacer
}

func newRunIdentity(run string) *runIdentity {
	draw := func(what string) []byte {
		h := sha256.Sum256([]byte("vigiles run identity\x00" + what + "\x00" + run))
		return h[:]
	}
	fresh := map[string]string{
		sessionID:        uuid4(draw("session")),
		defaultToolUseID: "toolu_01" + base62(draw("tool use"), len(defaultToolUseID)-len("toolu_01")),
		defaultTurnID:    uuid4(draw("turn")),
		defaultMessageID: uuid4(draw("message")),
		defaultPromptID:  uuid4(draw("prompt")),
		defaultAgentID:   "a" + hexOf(draw("agent"), len(defaultAgentID)-1),
		// The uuids of the entries of its transcripts (transcriptFiles).
		defaultUserEntryID:      uuid4(draw("transcript user")),
		defaultAssistantEntryID: uuid4(draw("transcript assistant")),
		defaultAgentUserEntryID: uuid4(draw("subagent transcript user")),
		defaultAgentAssistantID: uuid4(draw("subagent transcript assistant")),
	}
	var send, back []string
	for fixed, f := range fresh {
		send = append(send, fixed, f)
		back = append(back, f, fixed)
	}
	// A TeammateIdle team_name is session-derived: "session-" and the
	// session id's first 8 characters. It is sent, and not put back: in
	// what a hook writes, "session-" before its whole session id must
	// stay so (that id is put back), and the name is the run's own, the
	// same in every audit, all the same.
	send = append(send, defaultTeamName, "session-"+fresh[sessionID][:8])
	return &runIdentity{send: strings.NewReplacer(send...), restore: strings.NewReplacer(back...)}
}

// uuid4 is a version 4 UUID, as Claude Code's session ids are, of the
// first 16 bytes of h.
func uuid4(h []byte) string {
	var b [16]byte
	copy(b[:], h)
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

// base62 is n letters and digits drawn from h (n <= len(h)), as the
// tail of an API's tool use id.
func base62(h []byte, n int) string {
	const abc = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	b := make([]byte, n)
	for i := range b {
		b[i] = abc[int(h[i])%len(abc)]
	}
	return string(b)
}

// hexOf is n hex digits drawn from h (n <= 2*len(h)).
func hexOf(h []byte, n int) string {
	const hex = "0123456789abcdef"
	out := make([]byte, 0, n+1)
	for _, c := range h {
		out = append(out, hex[c>>4], hex[c&15])
		if len(out) >= n {
			break
		}
	}
	return string(out[:n])
}
