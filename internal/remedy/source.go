package remedy

// Source is where a value a fix is about came from (the API key, the base URL), as the package that read it
// says it: the renderer words the fix after it without knowing the stores. GW_API_KEY overrides the stored
// key and GW_BASE_URL and --base-url the configured base URL, so a fix for a value that came from one of
// those says to change it, not to log in again. keychain.Source.Fix and config.Source.Fix make it.
type Source struct {
	Kind SourceKind
	// Name is the environment variable (FromEnv) or the flag (FromFlag) that gave the value, as the user
	// would type it; "" for the other kinds.
	Name string
}

// SourceKind is the kind of place a value came from.
type SourceKind string

// The kinds. The zero Source is FromUnknown, said as for the store.
const (
	FromUnknown SourceKind = ""
	FromEnv     SourceKind = "env"   // an environment variable, Name
	FromFlag    SourceKind = "flag"  // a command-line flag, Name
	FromFile    SourceKind = "file"  // the file the user chose for the key instead of the OS keychain (--insecure-storage)
	FromStore   SourceKind = "store" // where gw keeps it: the OS keychain, the config file, the build's default
)

// EnvKey is the environment variable that overrides the stored API key. It is named here, where fixes are
// made, because a fix names it whatever the key's source (set it instead of storing a key); keychain reads it
// under this name (keychain.EnvVar).
const EnvKey = "GW_API_KEY"
