// Package fsutil holds gw's file operations that a hostile or broken file system must not turn against
// the user: reading a file only when it is a regular one of a sane size (a config symlinked to /dev/zero
// or a named pipe is refused at once, never read until memory runs out or waited on forever), replacing
// a file atomically while keeping its owner, group and mode, writing a backup without ever writing
// through a link, and file locks whose lock file cannot be a planted link.
//
// Every file gw reads, writes, lists, renames or removes goes through it: config.json and its lock, the
// insecure credentials file, every agent's config, their backups, temporary files and locks, the request
// log and gw serve's address file, gw run's private directories, and the system's own files gw reads
// (/proc, /etc/os-release, D-Bus's service files). Elsewhere package os only looks at a path, sets the
// times of a file being written and opens the null device; what the standard library reads on its own
// (the system's TLS roots, the user database behind os/user) is its own. It never writes through a link it did not
// follow on the user's behalf, and never decides what a file means.
//
// # Ownership when run as root
//
// Run as root (sudo -E in the user's HOME), a rewritten file keeps its owner and group, and a new file or
// directory gets the owner of the directory it is created in.
package fsutil
