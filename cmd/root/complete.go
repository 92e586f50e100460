package root

import (
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/modelgateway/gw/api"
	"github.com/modelgateway/gw/cmd/initcmd/agent"
)

// flagCompletion is what the shell offers for a flag's value, by flag name, in every command that has a
// flag of that name (nil: cobra's default). Completion runs on every tab press: it reads only the built-in
// catalogue, never the network or the keychain.
func flagCompletion(name string) cobra.CompletionFunc {
	switch name {
	case "mode":
		return completeMode
	case "model", "default", "small-model":
		return completeModelID
	case "models":
		return completeModelList
	}
	return nil
}

// registerCompletions walks the command tree, as wrapArgs does, and gives each flag named in
// flagCompletion its completion, unless the command registered one of its own.
func registerCompletions(c *cobra.Command) {
	c.Flags().VisitAll(func(fl *pflag.Flag) {
		fn := flagCompletion(fl.Name)
		if fn == nil {
			return
		}
		if _, ok := c.GetFlagCompletionFunc(fl.Name); ok {
			return
		}
		_ = c.RegisterFlagCompletionFunc(fl.Name, fn) // fails only for a flag the command lacks
	})
	for _, sub := range c.Commands() {
		registerCompletions(sub)
	}
}

func completeMode(_ *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	var out []cobra.Completion
	for _, m := range []struct{ name, desc string }{
		{agent.ModeProxy, "through gw serve on localhost; the key stays in the keychain"},
		{agent.ModeDirect, "straight to the service; the key comes from GW_API_KEY"},
	} {
		if strings.HasPrefix(m.name, toComplete) {
			out = append(out, cobra.CompletionWithDesc(m.name, m.desc))
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

func completeModelID(_ *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	return modelIDs("", toComplete, nil), cobra.ShellCompDirectiveNoFileComp
}

// completeModelList completes the id after the last comma of a comma-separated list, keeping the ids
// before it and leaving out those already given; "all" is offered only as the whole value.
func completeModelList(_ *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	i := strings.LastIndex(toComplete, ",")
	if i < 0 {
		out := modelIDs("", toComplete, nil)
		if strings.HasPrefix("all", toComplete) {
			out = append(out, cobra.CompletionWithDesc("all", "every model the subscription includes"))
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
	head := toComplete[:i+1]
	return modelIDs(head, toComplete[i+1:], strings.Split(toComplete[:i], ",")), cobra.ShellCompDirectiveNoFileComp
}

// modelIDs is the catalogue's ids that start with prefix, each after head, with its display name.
func modelIDs(head, prefix string, given []string) []cobra.Completion {
	var out []cobra.Completion
	for _, e := range api.Catalog() {
		if strings.HasPrefix(e.ID, prefix) && !slices.Contains(given, e.ID) {
			out = append(out, cobra.CompletionWithDesc(head+e.ID, e.Name))
		}
	}
	return out
}
