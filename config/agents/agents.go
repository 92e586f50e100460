// Package agents holds what every coding agent's config writer shares: what
// gw declares (the service or gw serve, the token reference, the models),
// what a merge returns, how gw run starts an agent, and what doctor reads
// back. An Agent is its Info and the interfaces below it implements
// (ConfigWriter, Runner, DirectRefuser, …), which gw init agent, gw run and
// gw doctor test for, so that none of them names an agent: its
// own format and files live in a package below this one (opencode,
// claudecode, codex, qwencode, continuedev, cline, kilo, crush, pi, droid,
// copilot, gemini; opencodefmt is the format OpenCode and Kilo share), and
// package all lists them. Reading, locking and writing an agent's config
// files is config/agentfile's, the same for every agent: a Merge and an
// Inspect take and return bytes, and Files only looks at which of an agent's
// files exist. What else an agent's package reads or writes (Gemini CLI's
// home for one gw run, an agent's installed version) goes through
// internal/fsutil.
//
// Every Merge has the same guarantees: it takes the file's bytes (nil when
// there is none) and never modifies them; it returns the new bytes with
// everything it does not own kept byte for byte (comments, order, spacing,
// CRLF, a byte-order mark, other providers); a file it cannot parse is a
// *ParseError with line and column and nothing is produced.
package agents

import (
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tailscale/hujson"

	"github.com/modelgateway/gw/config"
	"github.com/modelgateway/gw/config/jsonc"
	"github.com/modelgateway/gw/config/textedit"
	"github.com/modelgateway/gw/internal/remedy"
)

// Mode is how an agent reaches the service.
type Mode string

const (
	// Proxy: through gw serve on this machine, with its local token.
	Proxy Mode = "proxy"
	// Direct: straight to the service, the key read from an environment
	// variable the agent expands (never written into the file).
	Direct Mode = "direct"
)

// Protocol is the API an agent speaks.
type Protocol string

const (
	ChatCompletions   Protocol = "chat completions"   // POST /v1/chat/completions
	AnthropicMessages Protocol = "Anthropic messages" // POST /v1/messages, through gw serve's translation
	Responses         Protocol = "OpenAI responses"   // POST /v1/responses, through gw serve's translation
	GeminiAPI         Protocol = "Gemini API"         // POST /v1beta/models/…:generateContent, through gw serve's translation
)

// ProviderID is the name gw's entry has in every agent's config.
const ProviderID = "gw"

// ProviderName is its display name.
const ProviderName = "Model Gateway"

// DefaultKeyEnv is the variable a direct-mode config names for the key.
const DefaultKeyEnv = "GW_API_KEY"

// TokenEnv is the variable gw run sets to the local token for agents that
// read their key from a variable they are told the name of.
const TokenEnv = "GW_LOCAL_TOKEN"

// Model is one model declared to an agent.
type Model struct {
	ID        string // exactly as the service lists it
	Name      string // display name
	Context   int    // context window in tokens
	Output    int    // maximum output tokens
	Reasoning bool
	// Attachment: the model accepts images (and PDFs).
	Attachment bool
}

// Declaration is what gw writes into an agent's config.
type Declaration struct {
	Mode Mode
	// BaseURL is the OpenAI-style base URL, ending in /v1: gw serve's
	// (http://127.0.0.1:PORT/v1) in proxy mode, the service's in direct mode.
	BaseURL string
	// Token is gw serve's local token (proxy mode), written where the agent
	// reads its key. Never the API key.
	Token string
	// Credential, when set, is gw's credential command, which an agent that
	// is a CredentialCommander runs for the token instead (proxy mode): the
	// token is then not written.
	Credential *CredentialCommand
	// KeyEnv is the variable holding the API key in direct mode
	// (DefaultKeyEnv when empty); each agent writes its own reference syntax for it.
	KeyEnv string
	Models []Model
	// Default and Small are ids from Models; "" leaves the agent's choice.
	Default, Small string
	// StatusLine is the command an agent with a status line (Claude Code)
	// is given for it where the user has none of their own: gw statusline.
	// "" gives none.
	StatusLine string
}

// Validate checks d before anything is written.
func (d Declaration) Validate() error {
	switch d.Mode {
	case Proxy:
		if d.Token == "" {
			return errors.New("no local token for gw serve")
		}
		if !strings.HasPrefix(d.Token, config.LocalTokenPrefix) {
			return fmt.Errorf("the token for gw serve does not start with %s; only gw serve's local token is written into agent configs", config.LocalTokenPrefix)
		}
	case Direct:
		if d.Token != "" {
			return errors.New("direct mode writes a reference to an environment variable, never a token")
		}
	default:
		return fmt.Errorf("unknown mode %q", d.Mode)
	}
	u, err := url.Parse(d.BaseURL)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return fmt.Errorf("base URL %q is not a URL", d.BaseURL)
	}
	if len(d.Models) == 0 {
		return errors.New("no models to write")
	}
	seen, err := CheckModels(d.Models, "")
	if err != nil {
		return err
	}
	for _, id := range []string{d.Default, d.Small} {
		if id != "" && !seen[id] {
			return fmt.Errorf("default model %q is not among the models being written", id)
		}
	}
	return nil
}

// KeyVar is the variable holding the key in direct mode.
func (d Declaration) KeyVar() string {
	if d.KeyEnv != "" {
		return d.KeyEnv
	}
	return DefaultKeyEnv
}

// Model returns the declared model id.
func (d Declaration) Model(id string) (Model, bool) {
	i := slices.IndexFunc(d.Models, func(m Model) bool { return m.ID == id })
	if i < 0 {
		return Model{}, false
	}
	return d.Models[i], true
}

// DefaultModel is Default, else the first model.
func (d Declaration) DefaultModel() Model {
	if m, ok := d.Model(d.Default); ok {
		return m
	}
	return d.Models[0]
}

// SmallModel is Small, else the default model.
func (d Declaration) SmallModel() Model {
	if m, ok := d.Model(d.Small); ok {
		return m
	}
	return d.DefaultModel()
}

// IDs are the model ids, in order.
func (d Declaration) IDs() []string {
	ids := make([]string, len(d.Models))
	for i, m := range d.Models {
		ids[i] = m.ID
	}
	return ids
}

// CheckMerged checks what a merge made, read back as after (err: reading it back failed), before anything
// is written: it parses and declares exactly d's models under d's base URL. Else it is an internal error
// naming what was made ("the merged config") that says nothing was written.
func (d Declaration) CheckMerged(made string, after Inspection, err error) error {
	switch {
	case err != nil:
		return fmt.Errorf("internal error: %s does not parse (%v); nothing was written", made, err)
	case after.BaseURL != d.BaseURL || !SameIDs(after.Models, d.IDs()):
		return fmt.Errorf("internal error: %s does not hold gw's models; nothing was written", made)
	}
	return nil
}

// SameIDs says whether a and b hold the same ids, in any order.
func SameIDs(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

// Origin is BaseURL without its /v1: the address Anthropic-style clients
// take (they add /v1/messages themselves).
func (d Declaration) Origin() string {
	return strings.TrimSuffix(strings.TrimSuffix(d.BaseURL, "/"), "/v1")
}

// ErrDirectRefused is wrapped by the agents that only work through gw serve.
var ErrDirectRefused = errors.New("direct mode is not possible")

// Result is the outcome of a merge.
type Result struct {
	Data    []byte   // the new file content
	Changed bool     // Data differs from the input
	Created bool     // gw's entry did not exist before
	Added   []string // model ids added
	Removed []string // model ids removed (no longer in the subscription)
	Updated []string // model ids whose settings were corrected
	// Warnings are things the user should know that were not changed.
	Warnings []string
	// Notes say how the agent uses what was written, where gw chose for the
	// user (Claude Code's model tiers).
	Notes []string
}

// ParseError is a config that does not parse (line and column); the file
// is left alone. Every editor (JSON, TOML, YAML) returns this one type.
type ParseError = textedit.ParseError

// ConflictError is a config that parses but that gw will not edit
// automatically; Msg says what to fix. The file is left alone. Every editor
// returns this one type.
type ConflictError = textedit.ConflictError

// Scope says which config of an agent is meant.
type Scope string

const (
	Global  Scope = "global"
	Project Scope = "project"
)

// Place is where the user runs gw, as an agent's files are found from it: the environment and the
// working directory.
type Place struct {
	Getenv  func(string) string
	WorkDir string
}

// Home is $HOME (or %USERPROFILE%), joined with elem.
func (e Place) Home(elem ...string) (string, error) {
	h := e.Getenv("HOME")
	if h == "" {
		h = e.Getenv("USERPROFILE")
	}
	if h == "" {
		return "", errors.New("neither HOME nor USERPROFILE is set")
	}
	return join(h, elem), nil
}

// HomeOr is file in the directory $env names when it is set, else in ~/dir: an agent's own directory, which
// the agent lets a variable move.
func (e Place) HomeOr(env, dir, file string) (string, error) {
	if d := e.Getenv(env); d != "" {
		return filepath.Join(d, file), nil
	}
	return e.Home(dir, file)
}

// EitherFile is first, unless only second exists: the file an agent reads of the two names it takes in one
// directory.
func EitherFile(first, second string) string {
	if _, err := os.Lstat(first); errors.Is(err, fs.ErrNotExist) {
		if _, err := os.Lstat(second); err == nil {
			return second
		}
	}
	return first
}

// XDGConfig is $XDG_CONFIG_HOME, else ~/.config (on every OS: the agents
// that use it do so on macOS and Windows too), joined with elem.
func (e Place) XDGConfig(elem ...string) (string, error) {
	if x := e.Getenv("XDG_CONFIG_HOME"); x != "" {
		if !strings.HasPrefix(x, "/") && !(len(x) > 2 && x[1] == ':') {
			return "", fmt.Errorf("XDG_CONFIG_HOME=%q is not an absolute path; set it to an absolute path or unset it", x)
		}
		return join(x, elem), nil
	}
	h, err := e.Home()
	if err != nil {
		return "", err
	}
	return join(h+"/.config", elem), nil
}

func join(dir string, elem []string) string {
	if len(elem) == 0 {
		return dir
	}
	return filepath.Join(append([]string{dir}, elem...)...)
}

// RunSpec is how gw run starts an agent pointed at gw serve with nothing
// written: variables to add to its environment and arguments to put before
// the user's. The local token is only ever in Env (arguments show in ps).
type RunSpec struct {
	Env  []string // KEY=VALUE
	Args []string
	// Notes say how the agent uses what it is given (as Result.Notes).
	Notes []string
	// Files are for an agent that takes its settings only from a file named
	// on its command line (pi's extension, Factory droid's runtime
	// settings): gw run writes them into a new directory only the user can
	// read, for the agent's lifetime, and removes it when the agent ends.
	// They hold no secret: the token stays in Env.
	Files map[string][]byte
	// Prepare, when set, runs once that directory is made, Files in it,
	// before the agent starts, and returns the spec to run with: the
	// arguments that name the files (RunPlace.Dir), or settings made from
	// the user's own files, which it only reads (Gemini CLI's settings with
	// the API key route chosen, for a user who never chose a sign-in).
	Prepare func(spec RunSpec, p RunPlace) (RunSpec, error)
	// Warnings are settings of the user's that keep the agent from gw serve
	// all the same (said as warnings).
	Warnings []string
}

// InRunDir is a Prepare that puts the arguments args gives for the run's
// directory (naming files of RunSpec.Files there) before spec's.
func InRunDir(args func(dir string) []string) func(RunSpec, RunPlace) (RunSpec, error) {
	return func(spec RunSpec, p RunPlace) (RunSpec, error) {
		spec.Args = append(args(p.Dir), spec.Args...)
		return spec, nil
	}
}

// RunPlace is where gw run starts an agent, for RunSpec.Prepare.
type RunPlace struct {
	Dir  string   // the run's private directory, made for it, Files in it
	User Place    // the user's environment and working directory
	Args []string // the user's arguments to the agent
	// Terminal: the agent's input and output are a terminal, so it may be
	// interactive.
	Terminal bool
}

// KeyKind says what an agent's key setting holds, without its text.
type KeyKind string

const (
	KeyNone       KeyKind = "none"        // no key setting
	KeyLocalToken KeyKind = "local token" // gw serve's token
	KeyEnvRef     KeyKind = "env"         // a reference to an environment variable
	KeyLiteral    KeyKind = "literal"     // a key written into the file
	// KeyCommand: a command the agent runs for its key (a CredentialCommander's setting).
	KeyCommand KeyKind = "credential command"
)

// Inspection is what doctor reads back from an agent's config.
type Inspection struct {
	Configured bool   // gw's entry is there
	BaseURL    string // as written
	KeyKind    KeyKind
	// KeyRef is the variable a reference names ("" for other kinds).
	KeyRef string
	// KeyCommand is the command line of a KeyCommand, as written; GwCommand says it is gw's credential
	// command (IsCredentialCommand).
	KeyCommand string
	GwCommand  bool
	// LocalToken is the local token written, to compare with gw's (only
	// set for KeyLocalToken: a literal key is never carried).
	LocalToken string
	// Models are the declared ids, spelled as written, in file order.
	Models []string
	// Default and Small are the models the agent starts with, as written.
	Default, Small string
	// Notes are things doctor should say about the file (a setting that
	// hides gw's entry, a second file that overrides this one).
	Notes []string
}

// SetKey sets in.KeyKind and in.KeyRef to what key holds (ClassifyKey), and in.LocalToken to key when it is
// gw serve's local token.
func (in *Inspection) SetKey(key string, envRef func(string) string) {
	in.KeyKind, in.KeyRef = ClassifyKey(key, envRef)
	if in.KeyKind == KeyLocalToken {
		in.LocalToken = key
	}
}

// ClassifyKey says what a key setting holds. envRef extracts the variable
// of the agent's reference syntax ("" when key is not a reference).
func ClassifyKey(key string, envRef func(string) string) (KeyKind, string) {
	key = strings.TrimSpace(key)
	switch {
	case key == "":
		return KeyNone, ""
	case strings.HasPrefix(key, config.LocalTokenPrefix):
		return KeyLocalToken, ""
	}
	if envRef != nil {
		if v := envRef(key); v != "" {
			return KeyEnvRef, v
		}
	}
	return KeyLiteral, ""
}

// ModelChanges are the model ids added and removed from a config read as before to the same config read
// as after: all of after's are added when before was not configured.
func ModelChanges(before, after Inspection) (added, removed []string) {
	if !before.Configured {
		return after.Models, nil
	}
	for _, id := range after.Models {
		if !slices.Contains(before.Models, id) {
			added = append(added, id)
		}
	}
	for _, id := range before.Models {
		if !slices.Contains(after.Models, id) {
			removed = append(removed, id)
		}
	}
	return added, removed
}

// Agent is one supported agent: Info, and the behaviour it has as the
// interfaces below (ConfigWriter, Runner, …), which gw init agent, gw run
// and gw doctor test for; an agent that does not implement one lacks that
// feature. Adding an agent is one package implementing what it supports,
// listed in config/agents/all.
type Agent interface{ Info() Info }

// Info is what gw knows of every agent.
type Info struct {
	Name    string // the --agent value: "qwen-code"
	Display string // "Qwen Code"
	Binary  string // the command on PATH: "qwen"
	Version string // the version its format was checked against
	Install string // how to install it: "npm install -g opencode-ai"
	// Package is its npm package, whose package.json tells the installed version (doctor notes one other
	// than Version); "" when gw does not look.
	Package string
	// Entry names what gw owns in its config, for messages: `provider "gw"`, `[model_providers.gw]`.
	Entry    string
	Protocol Protocol
	// UserAgents are the first products of the User-Agent header its requests carry, lower-case
	// ("claude-cli" of claude-cli/2.1.3), so that gw serve's request log names the agent; none shared.
	UserAgents []string
	// Unavailable names what of the agent does not work through the service, in gw doctor's agent
	// check: "its WebSearch tool (the service has no web search)"; "" when all of it works.
	Unavailable string
	// FileNames are the names of its config files, for gw doctor --agent-config; none shared.
	FileNames []string
	// NoConfig says why the agent is no ConfigWriter (it takes gw's settings only from its
	// environment), NoRun why it is no Runner: what gw init agent and gw run answer instead.
	NoConfig, NoRun string
}

// RemedyAgent is the agent as a fix names it (remedy.Remedy's Agent).
func (i Info) RemedyAgent() remedy.Agent { return remedy.Agent{Name: i.Name, Display: i.Display} }

// ConfigWriter is an agent gw init agent writes a config for and gw doctor reads back. Files are its
// config files for scope, in the order Merge and Inspect take their contents (nil for a missing file);
// a scope it has none for is an error that says so. Merge returns one Result per file.
type ConfigWriter interface {
	Files(s Scope, p Place) ([]string, error)
	Merge(srcs [][]byte, d Declaration) ([]Result, error)
	Inspect(srcs [][]byte) (Inspection, error)
}

// Runner is an agent gw run starts pointed at gw serve with nothing written.
type Runner interface {
	Run(d Declaration) (RunSpec, error)
}

// DirectRefuser is an agent that only works through gw serve: its Merge refuses direct mode
// (RefuseDirect) for the reason DirectRefusal gives.
type DirectRefuser interface{ DirectRefusal() string }

// ModelChooser is an agent that chooses a model itself where gw names none. def: it has no
// default-model setting (Continue starts with its first chat model), so none is reported. small: it
// takes its own small model (Claude Code: its Haiku tier), so gw does not make the default the small one.
type ModelChooser interface{ ChoosesOwn() (def, small bool) }

// PlainKeyRemover says what plain-text key a merge took out of a file (old, then new content), which then
// lives on only in its backup; "" when none. For the others, the key setting read before and after tells.
type PlainKeyRemover interface{ PlainKeysRemoved(old, new []byte) string }

// RunOverrider is an agent whose config, inspected as in, can hold what wins over gw run's environment.
type RunOverrider interface {
	RunOverride(in Inspection, d Declaration) (o Override, ok bool)
}

// Override is what in an agent's config wins over gw run's environment: a key it sets in one of
// KeyVars, in Block, which it sends instead of gw run's token (Claude Code's "env"); else gw's models
// declared under BaseURL, which it uses instead of gw run's for the same ids (Qwen Code).
type Override struct {
	KeyVars        []string
	Block, BaseURL string
}

// CompanionReader is an agent that reads another file beside its config at path and merges the two
// (OpenCode's opencode.json beside opencode.jsonc); ok is false when there is none.
type CompanionReader interface {
	Companion(path string) (c Companion, ok bool)
}

// ProviderLister is an agent whose config declares providers of the user's besides gw's: Providers lists
// every OpenAI-compatible one, so that gw doctor checks each that reaches the service (OpenCode). An
// unparsable file is a *ParseError.
type ProviderLister interface {
	Providers(src []byte) ([]Provider, error)
}

// ServeRouter is an agent that asks gw serve for paths gw serve answers itself from the account's
// models (Codex's model catalog).
type ServeRouter interface{ ServeRoutes() []ServeRoute }

// ServeRoute is a GET of Path under gw serve's /v1, answered with Answer's JSON of the models, its
// errors in Protocol's shape.
type ServeRoute struct {
	Path     string
	Protocol Protocol
	Answer   func(models []Model) ([]byte, error)
}

// Companion is another file an agent reads beside its config and merges with it, as far as gw's entry
// goes: what it sets for gw still applies, or even wins, whatever gw writes into the config.
type Companion struct {
	Path string // the other file
	// Wins: the agent reads Path after the config, so what Path sets wins key by key.
	Wins bool
	// Unreadable: Path could not be read or does not parse, so it may still set something.
	Unreadable bool
	// Problem says why Path matters when it sets something for gw ("" when it sets nothing), Fix what
	// to do about it, Note what Path is when it raises no problem.
	Problem, Fix, Note string
}

// Provider is one OpenAI-compatible provider a config declares, as gw doctor reads it.
type Provider struct {
	Name    string // its key in the config
	BaseURL string // as written
	// Models are the ids it declares, then the default and small models the config names in it.
	Models []string
	// Declared are the ids it declares.
	Declared []string
	// Undeclared are the default-model settings that name this provider but a model it does not
	// declare (`"model" is "gw/<id>"`): the agent cannot start with them.
	Undeclared []string
	// LiteralKey: the API key is written into the file.
	LiteralKey bool
	// LocalToken is gw serve's token written as the key ("" for other keys).
	LocalToken string
	// Disabled: the config turns the provider off ("disabled_providers").
	Disabled bool
}

// OneFile is the ConfigWriter of an agent whose config is one file: File names it for a scope,
// MergeFile and InspectFile read its contents (nil for a missing file).
type OneFile struct {
	File        func(Scope, Place) (string, error)
	MergeFile   func([]byte, Declaration) (Result, error)
	InspectFile func([]byte) (Inspection, error)
}

func (o OneFile) Files(s Scope, p Place) ([]string, error) {
	f, err := o.File(s, p)
	return []string{f}, err
}
func (o OneFile) Inspect(srcs [][]byte) (Inspection, error) { return o.InspectFile(srcs[0]) }
func (o OneFile) Merge(srcs [][]byte, d Declaration) ([]Result, error) {
	r, err := o.MergeFile(srcs[0], d)
	return []Result{r}, err
}

// OpenJSON begins a Merge into a JSON or JSONC config src (nil or empty: a
// new file): d is checked, what src held before is read with inspect, and
// src is parsed in dialect, with its top-level object. A nil inspect reads nothing before.
func OpenJSON(src []byte, d Declaration, inspect func([]byte) (Inspection, error), dialect jsonc.Dialect) (Inspection, *jsonc.File, jsonc.ObjRef, error) {
	if err := d.Validate(); err != nil {
		return Inspection{}, nil, jsonc.ObjRef{}, err
	}
	var before Inspection
	if inspect != nil {
		var err error
		if before, err = inspect(src); err != nil {
			return Inspection{}, nil, jsonc.ObjRef{}, err
		}
	}
	f, err := jsonc.Parse(src, dialect)
	if err != nil {
		return Inspection{}, nil, jsonc.ObjRef{}, err
	}
	top, err := f.Top(dialect.Agent)
	if err != nil {
		return Inspection{}, nil, jsonc.ObjRef{}, err
	}
	return before, f, top, nil
}

// SyncModels makes the array member key of o (created when missing) hold entry(m) for each of d's models,
// matched by "id", beside the elements ours does not accept (nil: it accepts all): jsonc's SyncList.
func SyncModels(f *jsonc.File, o jsonc.ObjRef, key string, ours func(*hujson.Object) bool, d Declaration, entry func(Model) jsonc.Keyed) (added, removed, updated []string, err error) {
	list, err := f.List(o, key)
	if err != nil {
		return nil, nil, nil, err
	}
	var wants []jsonc.Keyed
	for _, m := range d.Models {
		wants = append(wants, entry(m))
	}
	if ours == nil {
		ours = func(*hujson.Object) bool { return true }
	}
	return f.SyncList(list, "id", ours, wants)
}

// RefuseDirect is the error of an agent that only works through gw serve.
func RefuseDirect(display, reason string) error {
	return fmt.Errorf("%w for %s: %s; use --mode proxy (gw serve translates)", ErrDirectRefused, display, reason)
}

// CheckModels checks a list of models an agent's file gets: each has an id,
// none is listed twice, each has its context and output limits (why names
// what the agent needs them for, "" for nothing more). It returns the ids.
func CheckModels(models []Model, why string) (map[string]bool, error) {
	seen := map[string]bool{}
	for _, m := range models {
		switch {
		case m.ID == "":
			return nil, errors.New("a model has an empty id")
		case seen[m.ID]:
			return nil, fmt.Errorf("model %q is listed twice", m.ID)
		case m.Context <= 0 || m.Output <= 0:
			return nil, fmt.Errorf("model %q has no context/output limit%s", m.ID, why)
		}
		seen[m.ID] = true
	}
	return seen, nil
}
