package cmdutil

import (
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/modelgateway/gw/api"
)

// Completions of flag values that several commands share. A command registers them on its own flags
// (cmd.RegisterFlagCompletionFunc). Completion runs on every tab press: these read only the built-in
// catalogue, never the network or the keychain, and offer no file names.

// CompleteModelID completes one model id from the catalogue, with its display name.
func CompleteModelID(_ *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	return catalogIDs("", toComplete, nil), cobra.ShellCompDirectiveNoFileComp
}

// CompleteModelList completes the id after the last comma of a comma-separated list, keeping the ids before
// it and leaving out those already given; "all" is offered only as the whole value.
func CompleteModelList(_ *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	i := strings.LastIndex(toComplete, ",")
	if i < 0 {
		out := catalogIDs("", toComplete, nil)
		if strings.HasPrefix("all", toComplete) {
			out = append(out, cobra.CompletionWithDesc("all", "every model the subscription includes"))
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
	head := toComplete[:i+1]
	return catalogIDs(head, toComplete[i+1:], strings.Split(toComplete[:i], ",")), cobra.ShellCompDirectiveNoFileComp
}

// CompleteWords completes a flag that takes one of a few words, each with what it means.
func CompleteWords(words ...[2]string) cobra.CompletionFunc {
	return func(_ *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		var out []cobra.Completion
		for _, w := range words {
			if strings.HasPrefix(w[0], toComplete) {
				out = append(out, cobra.CompletionWithDesc(w[0], w[1]))
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}

// catalogIDs is the catalogue's ids that start with prefix, each after head, with its display name.
func catalogIDs(head, prefix string, given []string) []cobra.Completion {
	var out []cobra.Completion
	for _, e := range api.Catalog() {
		if strings.HasPrefix(e.ID, prefix) && !slices.Contains(given, e.ID) {
			out = append(out, cobra.CompletionWithDesc(head+e.ID, e.Name))
		}
	}
	return out
}
