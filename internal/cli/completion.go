package cli

import (
	"fmt"
	"io"
	"regexp"
	"sort"
	"strings"

	"github.com/reconsim/reconsim/explore"
	"github.com/reconsim/reconsim/internal/suggest"
	"github.com/reconsim/reconsim/scenarios"
)

const completionUsage = `Usage:
  sim completion bash|zsh|fish

Prints a shell completion script for sim: commands, their flags, built-in scenario
names, scenario files, 'sim explain' keys, and --set keys. The script is static: print it
again after upgrading sim.

Examples:
  source <(sim completion bash)                       # bash, this shell
  sim completion bash > /etc/bash_completion.d/sim    # bash, every shell
  sim completion zsh > "${fpath[1]}/_sim"             # zsh (then restart it)
  sim completion fish > ~/.config/fish/completions/sim.fish
`

const schemaUsage = `Usage:
  sim schema

Prints the JSON Schema of the scenario format (draft-07), generated from the simulator's
own types; scenarios/schema.json in the repository is the same file. Editors that use
yaml-language-server (VS Code's YAML extension, Neovim, Helix, ...) validate and complete
scenarios with it: put this line at the top of a scenario

  # yaml-language-server: $schema=./schema.json

Examples:
  sim schema > schema.json
  sim schema | jq '.definitions.timelineEntry.oneOf[].title'
`

func (c *cli) cmdSchema(args []string) int {
	_, done, code := c.positional("schema", args, schemaUsage, 0, "redirect the output to save it: sim schema > schema.json")
	if done {
		return code
	}
	c.stdout.Write(scenarios.Schema())
	return exitOK
}

func (c *cli) cmdCompletion(args []string) int {
	pos, done, code := c.positional("completion", args, completionUsage, 1, "one shell (bash, zsh or fish)")
	if done {
		return code
	}
	spec := completionSpec()
	switch pos[0] {
	case "bash":
		writeBashCompletion(c.stdout, spec)
	case "zsh":
		writeZshCompletion(c.stdout, spec)
	case "fish":
		writeFishCompletion(c.stdout, spec)
	default:
		msg := fmt.Sprintf("unsupported shell %q", pos[0])
		if s := suggest.Command(pos[0], []string{"bash", "zsh", "fish"}); s != "" {
			msg += fmt.Sprintf("; did you mean %q?", s)
		}
		return c.usageError("completion", "%s (want bash, zsh or fish)", msg)
	}
	return exitOK
}

// completionFlag is one flag of a command, as its usage text lists it.
type completionFlag struct {
	long, short string
	// arg is the placeholder of the flag's value ("" for a boolean flag).
	arg string
}

// completionCommand is what completion knows about one command.
type completionCommand struct {
	name, summary string
	flags         []completionFlag
	// words are the values its arguments complete to; files says whether files do too, and
	// dirs whether directories do.
	words       []string
	files, dirs bool
}

// flagLine matches a flag line of a usage text: "  -o, --output FORMAT   text: ...".
var flagLine = regexp.MustCompile(`^\s+(?:-([a-zA-Z]), )?--([a-z][a-z-]*)(?: ([^\s]+))?(?:\s{2,}|$)`)

// usageFlags reads the flags a usage text lists in its Flags: section.
func usageFlags(usage string) []completionFlag {
	var out []completionFlag
	inFlags := false
	for _, line := range strings.Split(usage, "\n") {
		switch {
		case strings.HasPrefix(line, "Flags:"):
			inFlags = true
			continue
		case line != "" && !strings.HasPrefix(line, " "):
			inFlags = false
		}
		if !inFlags {
			continue
		}
		if m := flagLine.FindStringSubmatch(line); m != nil {
			out = append(out, completionFlag{short: m[1], long: m[2], arg: m[3]})
		}
	}
	return out
}

// completionSpec collects the commands, their flags and the words their arguments take.
func completionSpec() []completionCommand {
	builtins := scenarios.BuiltinNames()
	var out []completionCommand
	for _, cmd := range commands {
		cc := completionCommand{name: cmd.name, summary: cmd.summary, flags: usageFlags(cmd.usage)}
		switch cmd.name {
		case "run", "validate", "show", "explore":
			cc.words, cc.files = builtins, true
		case "explain":
			cc.words = scenarios.ExplainTopics()
		case "completion":
			cc.words = []string{"bash", "zsh", "fish"}
		case "merge":
			cc.dirs = true
		case "schema", "list", "version":
		default:
			cc.files = true
		}
		out = append(out, cc)
	}
	return out
}

// flagValueWords returns the words a flag's value completes to, and whether it is a
// directory or a file (for --out and the like).
func flagValueWords(f completionFlag) (words []string, dir bool) {
	switch f.long {
	case "output":
		return []string{"text", "json"}, false
	case "set":
		keys := scenarios.OverrideKeys()
		for i := range keys {
			keys[i] += "="
		}
		return keys, false
	case "out":
		return nil, true
	case "strategy":
		return explore.Strategies(), false
	}
	return nil, false
}

// shellWords joins words for a shell's word list, one per line-free token.
// casePattern is the "command:word-before-the-cursor" case pattern (bash and zsh) that
// matches flag f of command c, by its long and its short name.
func casePattern(c completionCommand, f completionFlag) string {
	pattern := c.name + ":--" + f.long
	if f.short != "" {
		pattern += "|" + c.name + ":-" + f.short
	}
	return pattern
}

// flagWords lists the command's flags as a user types them, long and short, and --help.
func (c completionCommand) flagWords() []string {
	var flags []string
	for _, f := range c.flags {
		flags = append(flags, "--"+f.long)
		if f.short != "" {
			flags = append(flags, "-"+f.short)
		}
	}
	return append(flags, "--help")
}

func shellWords(words []string) string { return strings.Join(words, " ") }

// commandNames lists the names of spec's commands, in spec's order.
func commandNames(spec []completionCommand) []string {
	var names []string
	for _, c := range spec {
		names = append(names, c.name)
	}
	return names
}

// eachValueFlag calls write for every flag of spec that takes a value, in spec's order, with
// its case pattern (casePattern) and the words or directories its value completes to
// (flagValueWords): the cases of the bash and zsh scripts' "command:previous word" switch.
func eachValueFlag(spec []completionCommand, write func(f completionFlag, pattern string, words []string, dir bool)) {
	for _, c := range spec {
		for _, f := range c.flags {
			if f.arg == "" {
				continue
			}
			words, dir := flagValueWords(f)
			write(f, casePattern(c, f), words, dir)
		}
	}
}

func writeBashCompletion(w io.Writer, spec []completionCommand) {
	names := commandNames(spec)
	fmt.Fprintf(w, `# bash completion for sim; generated by 'sim completion bash'.
_sim() {
    local cur prev cmd
    cur="${COMP_WORDS[COMP_CWORD]}"
    prev="${COMP_WORDS[COMP_CWORD-1]}"
    if [[ ${COMP_CWORD} -eq 1 ]]; then
        COMPREPLY=( $(compgen -W "help %s" -- "$cur") )
        return 0
    fi
    cmd="${COMP_WORDS[1]}"
    if [[ "$cmd" == help ]]; then
        COMPREPLY=( $(compgen -W "%s" -- "$cur") )
        return 0
    fi
    case "$cmd:$prev" in
`, shellWords(names), shellWords(names))
	eachValueFlag(spec, func(_ completionFlag, pattern string, words []string, dir bool) {
		switch {
		case len(words) > 0:
			fmt.Fprintf(w, "        %s)\n            compopt -o nospace 2>/dev/null\n            COMPREPLY=( $(compgen -W \"%s\" -- \"$cur\") )\n            [[ ${#COMPREPLY[@]} -eq 1 && ${COMPREPLY[0]} != *= ]] && compopt +o nospace 2>/dev/null\n            return 0 ;;\n", pattern, shellWords(words))
		case dir:
			fmt.Fprintf(w, "        %s)\n            COMPREPLY=( $(compgen -d -- \"$cur\") )\n            return 0 ;;\n", pattern)
		default:
			fmt.Fprintf(w, "        %s)\n            return 0 ;;\n", pattern)
		}
	})
	fmt.Fprint(w, "    esac\n    case \"$cmd\" in\n")
	for _, c := range spec {
		flags := c.flagWords()
		fmt.Fprintf(w, "        %s)\n            if [[ \"$cur\" == -* ]]; then\n                COMPREPLY=( $(compgen -W \"%s\" -- \"$cur\") )\n                return 0\n            fi\n", c.name, shellWords(flags))
		fmt.Fprintf(w, "            COMPREPLY=( $(compgen -W \"%s\" -- \"$cur\") )\n", shellWords(c.words))
		switch {
		case c.files:
			fmt.Fprint(w, "            COMPREPLY+=( $(compgen -f -X '!*.@(yaml|yml)' -- \"$cur\") $(compgen -d -S / -- \"$cur\") )\n            compopt -o filenames 2>/dev/null\n")
		case c.dirs:
			fmt.Fprint(w, "            COMPREPLY+=( $(compgen -d -- \"$cur\") )\n")
		}
		fmt.Fprint(w, "            return 0 ;;\n")
	}
	fmt.Fprint(w, "    esac\n}\nshopt -s extglob 2>/dev/null\ncomplete -F _sim sim\n")
}

func writeZshCompletion(w io.Writer, spec []completionCommand) {
	fmt.Fprint(w, "#compdef sim\n# zsh completion for sim; generated by 'sim completion zsh'.\n_sim() {\n    local -a commands\n    commands=(\n")
	for _, c := range spec {
		fmt.Fprintf(w, "        %s\n", zshQuote(c.name+":"+c.summary))
	}
	fmt.Fprint(w, "    )\n    if (( CURRENT == 2 )); then\n        _describe 'command' commands\n        return\n    fi\n    local cmd=${words[2]}\n    case \"$cmd:${words[CURRENT-1]}\" in\n")
	eachValueFlag(spec, func(f completionFlag, pattern string, words []string, dir bool) {
		switch {
		case len(words) > 0 && f.long == "set":
			fmt.Fprintf(w, "        %s) compadd -S '' -- %s; return ;;\n", pattern, shellWords(words))
		case len(words) > 0:
			fmt.Fprintf(w, "        %s) compadd -- %s; return ;;\n", pattern, shellWords(words))
		case dir:
			fmt.Fprintf(w, "        %s) _files -/; return ;;\n", pattern)
		default:
			fmt.Fprintf(w, "        %s) return ;;\n", pattern)
		}
	})
	fmt.Fprint(w, "    esac\n    case $cmd in\n")
	for _, c := range spec {
		flags := c.flagWords()
		fmt.Fprintf(w, "        %s)\n            if [[ ${words[CURRENT]} == -* ]]; then compadd -- %s; return; fi\n", c.name, shellWords(flags))
		if len(c.words) > 0 {
			fmt.Fprintf(w, "            compadd -- %s\n", shellWords(c.words))
		}
		switch {
		case c.files:
			fmt.Fprint(w, "            _files -g '*.(yaml|yml)'\n")
		case c.dirs:
			fmt.Fprint(w, "            _files -/\n")
		}
		fmt.Fprint(w, "            ;;\n")
	}
	fmt.Fprint(w, "    esac\n}\ncompdef _sim sim\n")
}

// zshQuote quotes s for zsh in single quotes.
func zshQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func writeFishCompletion(w io.Writer, spec []completionCommand) {
	fmt.Fprint(w, "# fish completion for sim; generated by 'sim completion fish'.\ncomplete -c sim -f\n")
	names := commandNames(spec)
	sort.Strings(names)
	for _, c := range spec {
		fmt.Fprintf(w, "complete -c sim -n '__fish_use_subcommand' -a %s -d %s\n", c.name, zshQuote(c.summary))
	}
	for _, c := range spec {
		cond := fmt.Sprintf("'__fish_seen_subcommand_from %s'", c.name)
		for _, f := range c.flags {
			line := fmt.Sprintf("complete -c sim -n %s -l %s", cond, f.long)
			if f.short != "" {
				line += " -s " + f.short
			}
			if f.arg != "" {
				words, dir := flagValueWords(f)
				switch {
				case len(words) > 0:
					line += " -x -a " + zshQuote(shellWords(words))
				case dir:
					line += " -x -a '(__fish_complete_directories)'"
				default:
					line += " -x"
				}
			}
			fmt.Fprintln(w, line)
		}
		if len(c.words) > 0 {
			fmt.Fprintf(w, "complete -c sim -n %s -a %s\n", cond, zshQuote(shellWords(c.words)))
		}
		switch {
		case c.files:
			fmt.Fprintf(w, "complete -c sim -n %s -a '(__fish_complete_suffix .yaml; __fish_complete_suffix .yml)'\n", cond)
		case c.dirs:
			fmt.Fprintf(w, "complete -c sim -n %s -a '(__fish_complete_directories)'\n", cond)
		}
	}
	fmt.Fprintf(w, "complete -c sim -n '__fish_seen_subcommand_from help' -a %s\n", zshQuote(shellWords(names)))
}
