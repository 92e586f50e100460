// Package keychain keeps the API key: in the OS keychain, in an explicitly
// insecure file, or read from GW_API_KEY. It also cleans pasted keys and masks
// them for display.
//
// It owns where a key is kept and the order it is looked up in (Resolve:
// GW_API_KEY › the OS keychain › the file). It never writes the key anywhere
// but the store it was given, never falls back to the file on its own (the
// caller passes the file store only when the user chose --insecure-storage),
// never says what to do in words (its errors carry remedies: TimeoutError and
// UnavailableError remedy.RepairKeychain, PermissionError ProtectKeyFile,
// DamagedError FixCredentials, a missing key Login, an unusable GW_API_KEY
// FixEnvKey), and knows nothing of commands or the network.
//
// # Where the key is looked up
//
// The OS store or the file given to Resolve may be nil: pass the file store only when the config has
// insecure_storage (and to logout regardless). A GW_API_KEY that fails Sanitize is an error, not skipped. A
// keychain error other than not-found is returned as Resolved.Warning when the file has the key, and as the
// error (not ErrNotFound) when nothing has one. Session gives one command one deadline for every call to the
// OS keychain, naming the backend included, so a keychain that does not answer costs one time-out.
//
// The go-keyring item has attributes service=gw, username=<account> (secret-tool lookup service gw username
// default). scripts/with-keyring.sh CMD... runs CMD in a throwaway D-Bus session with an unlocked
// gnome-keyring (tests use it; it sets GW_ISOLATED_KEYRING=1 for the command) and stops both daemons however
// CMD ends, also when the script itself is interrupted or terminated.
package keychain
