// Package agentfile is how gw reads and writes a coding agent's config file, whatever the agent and the
// format: Read takes only a regular file of sane size, Lock orders two gw processes writing the same file,
// Write replaces it atomically through a symlink after keeping the previous content as a private backup, and
// Diff shows a change as a patch for --dry-run. The formats themselves live with each agent, under
// config/agents; nothing here parses a file.
package agentfile
