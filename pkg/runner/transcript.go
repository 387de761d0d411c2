package runner

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/vigiles/action/pkg/sandbox"
)

// The fixed uuids of a transcript's entries (transcriptFiles), which each
// run replaces by its own (runIdentity), as it does the session id.
const (
	defaultUserEntryID       = "00000000-0000-4000-8000-000000000004"
	defaultAssistantEntryID  = "00000000-0000-4000-8000-000000000005"
	defaultAgentUserEntryID  = "00000000-0000-4000-8000-000000000006"
	defaultAgentAssistantID  = "00000000-0000-4000-8000-000000000007"
	defaultUserPrompt        = "Add a unit test for the parser"
	defaultAssistantMessage  = "I added the test and it passes."
	defaultSubagentPrompt    = "Find all API endpoints"
	defaultSubagentMessage   = "Analysis complete. Found 3 potential issues."
	transcriptUserAge        = 40 * time.Second // how long before the run the user's entry was written
	transcriptAssistantAge   = 5 * time.Second  // and the assistant's
	transcriptTimestampShape = "2006-01-02T15:04:05.000Z"
)

// transcriptEntry is one line of a Claude Code transcript (JSONL), in its
// key order, with what a hook that reads one looks at: the entry's type,
// its message (role and content), the session, cwd, time and the chain of
// uuids.
type transcriptEntry struct {
	ParentUUID  *string           `json:"parentUuid"`
	IsSidechain bool              `json:"isSidechain"`
	UserType    string            `json:"userType"`
	Cwd         string            `json:"cwd"`
	SessionID   string            `json:"sessionId"`
	AgentID     string            `json:"agentId,omitempty"`
	Type        string            `json:"type"`
	Message     transcriptMessage `json:"message"`
	UUID        string            `json:"uuid"`
	Timestamp   string            `json:"timestamp"`
}

type transcriptMessage struct {
	Role string `json:"role"`
	// Content is the user's text, or the assistant's content blocks.
	Content any `json:"content"`
}

type textBlock struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// transcriptFiles are the transcripts the payload in names, as Claude Code
// has them while its session runs: transcript_path's, and a subagent's
// agent_transcript_path's where the payload has one, each a user entry
// and the assistant's answer, with the payload's session id and cwd, its
// prompt where it has one (the user's) and its last_assistant_message
// where it has one; the assistant's entry was written at now less
// transcriptAssistantAge. They are by their paths relative to the
// sandbox's HOME: a path that is not beneath it (a payloads: entry's own)
// has no file. The ids are the fixed ones, as in the payload, for the run
// to replace.
func transcriptFiles(in map[string]any, now time.Time) map[string][]byte {
	str := func(k, dflt string) string {
		if s, ok := in[k].(string); ok {
			return s
		}
		return dflt
	}
	sid, cwd := str("session_id", sessionID), str("cwd", "")
	at := func(age time.Duration) string { return now.Add(-age).UTC().Format(transcriptTimestampShape) }
	files := map[string][]byte{}
	add := func(key string, user, assistant transcriptEntry) {
		p, ok := in[key].(string)
		rel, beneath := strings.CutPrefix(p, sandbox.Home+"/")
		if !ok || !beneath {
			return
		}
		for _, e := range []*transcriptEntry{&user, &assistant} {
			e.UserType, e.Cwd, e.SessionID = "external", cwd, sid
		}
		user.Type, user.Timestamp = "user", at(transcriptUserAge)
		assistant.Type, assistant.Timestamp = "assistant", at(transcriptAssistantAge)
		assistant.ParentUUID = &user.UUID
		var b bytes.Buffer
		enc := json.NewEncoder(&b) // one line each
		enc.SetEscapeHTML(false)
		for _, e := range []transcriptEntry{user, assistant} {
			if err := enc.Encode(e); err != nil {
				panic("runner: marshalling a transcript: " + err.Error()) // strings only
			}
		}
		files[rel] = b.Bytes()
	}
	add("transcript_path",
		transcriptEntry{UUID: defaultUserEntryID, Message: transcriptMessage{Role: "user", Content: str("prompt", defaultUserPrompt)}},
		transcriptEntry{UUID: defaultAssistantEntryID, Message: transcriptMessage{Role: "assistant",
			Content: []textBlock{{"text", str("last_assistant_message", defaultAssistantMessage)}}}})
	agent := str("agent_id", defaultAgentID)
	add("agent_transcript_path",
		transcriptEntry{UUID: defaultAgentUserEntryID, IsSidechain: true, AgentID: agent, Message: transcriptMessage{Role: "user", Content: defaultSubagentPrompt}},
		transcriptEntry{UUID: defaultAgentAssistantID, IsSidechain: true, AgentID: agent, Message: transcriptMessage{Role: "assistant",
			Content: []textBlock{{"text", str("last_assistant_message", defaultSubagentMessage)}}}})
	return files
}

// withTranscripts gives spec the transcripts of its run's payload (the
// fixed ids in paths and content replaced by the run's own, send) as
// files the sandbox makes in HOME before the hook starts
// (sandbox.Spec.HomeFiles): no write of the hook's, unless it changes
// them. One that cannot be made beside what spec already makes there (a
// payloads: entry that points it at the env file, or too large) is left
// out.
func withTranscripts(spec sandbox.Spec, in map[string]any, send *strings.Replacer, now time.Time) sandbox.Spec {
	files := transcriptFiles(in, now)
	for _, rel := range slices.Sorted(maps.Keys(files)) {
		try := maps.Clone(spec.HomeFiles)
		if try == nil {
			try = map[string][]byte{}
		}
		try[send.Replace(rel)] = []byte(send.Replace(string(files[rel])))
		next := spec
		next.HomeFiles = try
		if sandbox.HomeFilesFit(next) == nil {
			spec = next
		}
	}
	return spec
}
