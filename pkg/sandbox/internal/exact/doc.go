// Package exact holds the JSON forms in which the broker, the init and the
// reaper hand each other paths, arguments and environment values: bytes
// the kernel takes as they are, which a JSON string cannot hold unless
// they are UTF-8 (encoding/json writes each invalid byte as U+FFFD). A
// value that is UTF-8 travels as a JSON string, as before; any other as
// {"bytes":"<base64>"}, which reading it back restores byte for byte.
// It must never import anything but the standard library: the reaper's
// binary links it (test/deps).
package exact
