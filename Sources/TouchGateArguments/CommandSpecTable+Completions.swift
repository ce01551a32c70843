import TouchGateCore

extension CommandSpecTable {
    /// The bash completion script (touchgate's `touchgate completions bash`,
    /// completions/touchgate.bash), with `header` as its second comment line.
    ///
    /// Plain `complete -F` without the bash-completion package's helpers, so it works in any
    /// interactive bash. A word of the command line is an option, an option's value (also after
    /// `=`, which bash splits off), the command (and its subcommand) or one of its arguments.
    package func bashCompletions(header: String) -> String {
        let valueOptions = allOptions.filter(\.takesValue).flatMap(\.spellings)
        var script = """
            # bash completion for \(program)(1)
            # \(header)

            _\(program)() {
                local cur=${COMP_WORDS[COMP_CWORD]} prev= word command= key i
                local -a arguments=()
                (( COMP_CWORD > 0 )) && prev=${COMP_WORDS[COMP_CWORD-1]}
                # --name=value: bash splits it into --name, = and value.
                if [[ $cur == = ]]; then cur=
                elif [[ $prev == = ]] && (( COMP_CWORD > 1 )); then prev=${COMP_WORDS[COMP_CWORD-2]}
                fi
                for (( i = 1; i < COMP_CWORD; i++ )); do
                    word=${COMP_WORDS[i]}
                    case $word in
                        \(valueOptions.joined(separator: "|")))
                            [[ ${COMP_WORDS[i+1]-} == = ]] && (( i++ ))
                            (( i++ )) ;;
                        -*) ;;
                        *) if [[ -z $command ]]; then command=$word; else arguments+=("$word"); fi ;;
                    esac
                done
                case $prev in

            """
        for option in allOptions where option.takesValue {
            script += "        \(option.spellings.joined(separator: "|"))) \(bashReply(option.values)); return ;;\n"
        }
        script += """
                esac
                key=$command

            """
        for word in commandWords where commands(withWord: word).count > 1 {
            let subcommands = commands(withWord: word).compactMap(\.subcommand).joined(separator: " ")
            script += """
                    if [[ $command == \(word) ]]; then
                        if (( ${#arguments[@]} == 0 )); then
                            [[ $cur == -* ]] || { COMPREPLY=($(compgen -W "\(subcommands)" -- "$cur")); return; }
                        else
                            key="\(word) ${arguments[0]}"
                            arguments=("${arguments[@]:1}")
                        fi
                    fi

                """
        }
        script += """
                if [[ $cur == -* ]]; then
                    local options="\(globalOptions.flatMap(\.spellings).joined(separator: " "))"
                    case $key in

            """
        for command in commands where !command.options.isEmpty {
            let spellings = command.options.flatMap(\.spellings).joined(separator: " ")
            script += "            \"\(command.name)\") options+=\" \(spellings)\" ;;\n"
        }
        script += """
                    esac
                    COMPREPLY=($(compgen -W "$options" -- "$cur"))
                    return
                fi
                if [[ -z $command ]]; then
                    COMPREPLY=($(compgen -W "\(commandWords.joined(separator: " "))" -- "$cur"))
                    return
                fi
                case "$key:${#arguments[@]}" in

            """
        for command in commands {
            for (position, argument) in command.arguments.enumerated() where argument.values != .none {
                script += "        \"\(command.name):\(position)\") \(bashReply(argument.values)) ;;\n"
            }
        }
        script += """
                esac
            }
            complete -F _\(program) \(program)

            """
        return script
    }

    /// The bash code that completes a value of `values` in `COMPREPLY`.
    private func bashReply(_ values: CompletionValues) -> String {
        switch values {
        case .none: return ":"
        case .files: return "compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -f -- \"$cur\"))"
        case .directories: return "compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -d -- \"$cur\"))"
        case .users: return "COMPREPLY=($(compgen -u -- \"$cur\"))"
        default: return "COMPREPLY=($(compgen -W \"\((words(of: values) ?? []).joined(separator: " "))\" -- \"$cur\"))"
        }
    }

    /// The zsh completion function (touchgate's `touchgate completions zsh`,
    /// completions/_touchgate), for a directory in `fpath` (compinit autoloads it by its
    /// `#compdef` line), with `header` as its third comment line.
    package func zshCompletions(header: String) -> String {
        let global = globalOptions.map(zshOptionSpec).map { "    " + $0 }.joined(separator: "\n")
        var script = """
            #compdef \(program)
            # zsh completion for \(program)(1)
            # \(header)

            _\(program)() {
              local curcontext=$curcontext state line ret=1
              local -a global commands subcommands
              global=(
            \(global)
              )
              _arguments -C $global '1: :->command' '*:: :->argument' && ret=0
              case $state in
                command)
                  commands=(
            \(commandWords.map { word in
                "        " + shellQuoted(word + ":" + commands(withWord: word).map(\.summary).joined(separator: "; "))
            }.joined(separator: "\n"))
                  )
                  _describe -t commands '\(program) command' commands && ret=0
                  ;;
                argument)
                  curcontext=${curcontext%:*:*}:\(program)-$words[1]:
                  case $words[1] in

            """
        for word in commandWords {
            let group = commands(withWord: word)
            if group.count == 1 {
                script += "        \(word)) _arguments \(zshArguments(group[0])) && ret=0 ;;\n"
                continue
            }
            script += """
                        \(word))
                          if (( CURRENT == 2 )); then
                            subcommands=(\(group.map { shellQuoted(($0.subcommand ?? "") + ":" + $0.summary) }.joined(separator: " ")))
                            _describe -t commands '\(word) subcommand' subcommands && ret=0
                          else
                            shift words; (( CURRENT-- ))
                            case $words[1] in

                """
            for command in group {
                script += "                \(command.subcommand ?? "")) _arguments \(zshArguments(command)) && ret=0 ;;\n"
            }
            script += """
                            esac
                          fi
                          ;;

                """
        }
        script += """
                  esac
                  ;;
              esac
              return ret
            }

            _\(program) "$@"

            """
        return script
    }

    /// `_arguments`' words for `command`: the global options, its options, its arguments.
    private func zshArguments(_ command: CommandSpec) -> String {
        (["$global"] + command.options.map(zshOptionSpec) + command.arguments.enumerated().map { position, argument in
            shellQuoted("\(position + 1):\(argument.optional ? ":" : "")\(argument.name):\(zshAction(argument.values))")
        }).joined(separator: " ")
    }

    /// One option for `_arguments`: `'--store=[the store …]:PATH:_files'`, or both spellings of a
    /// short and long option, which exclude each other.
    private func zshOptionSpec(_ option: OptionSpec) -> String {
        let description = "[" + option.help.replacingEvery("\\", with: "\\\\")
            .replacingEvery("[", with: "\\[").replacingEvery("]", with: "\\]") + "]"
        let value = option.valueName.map { ":\($0):\(zshAction(option.values))" } ?? ""
        let suffix = shellQuoted((option.takesValue ? "=" : "") + description + value)
        guard let short = option.short else { return option.long + suffix }
        return shellQuoted("(\(short) \(option.long))") + "{\(short),\(option.long)}" + suffix
    }

    private func zshAction(_ values: CompletionValues) -> String {
        switch values {
        case .none: " "
        case .files: "_files"
        case .directories: "_files -/"
        case .users: "_users"
        default: "(" + (words(of: values) ?? []).joined(separator: " ") + ")"
        }
    }
}
