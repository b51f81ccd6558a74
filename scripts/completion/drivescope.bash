# bash completion for drivescope. Installed as share/bash-completion/completions/drivescope; to
# try it from a checkout: `source scripts/completion/drivescope.bash`.
#
# The commands and options are read from the binary's own --help when TAB is pressed (as
# bash-completion's _longopt does), so the completion cannot fall behind the program: a new
# option is offered as soon as it is in --help. Value completion knows targets (/dev/sd*, sim:
# presets from `drivescope sim list`, files), file and directory options, --tests names and the
# {a,b,c} choices CLI11 prints.

# The help text of the words given ("" for the top level), from the binary that is completed.
_drivescope_help() {
  local bin=$1
  shift
  "$bin" "$@" --help 2> /dev/null
}

# Option names of a help text: the lines that start with an option ("  -h,--help", "  --json [=c]").
_drivescope_options() {
  sed -n 's/^ \{1,\}\(-[a-zA-Z], *\)\{0,1\}\(--[a-z][a-z0-9-]*\).*/\2/p'
}

# Command names of a help text: its "Subcommands:" block.
_drivescope_commands() {
  awk '/^(SUBCOMMANDS|Subcommands):/ { inside = 1; next }
       inside && /^ +[a-z]/ { print $1; next }
       inside { inside = 0 }'
}

# The values an option takes, when it says: CLI11's "TEXT:{a,b,c}", also on a line that names a
# short and a long form ("-d,--device-type TEXT:{...}"), for either name.
_drivescope_choices() {
  local opt=$1
  sed -n "s/^ *\(-[a-zA-Z],\)\{0,1\}$opt[ ,][^:]*:{\([^}]*\)}.*/\2/p" | tr ',' ' '
}

_drivescope() {
  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}
  local bin=${COMP_WORDS[0]}
  command -v "$bin" > /dev/null 2>&1 || bin=drivescope
  COMPREPLY=()

  # The command (and sim's nested one): the first words that are not options. Top-level
  # options take no value, so the first such word is always the command.
  local -a cmd=()
  local i
  for ((i = 1; i < COMP_CWORD; i++)); do
    case ${COMP_WORDS[i]} in
      -*) ;;
      *) cmd+=("${COMP_WORDS[i]}") ;;
    esac
    [[ ${#cmd[@]} -ge 1 && ${cmd[0]} != sim ]] && break
    [[ ${#cmd[@]} -ge 2 ]] && break
  done

  if [[ ${#cmd[@]} -eq 0 || (${cmd[0]} == sim && ${#cmd[@]} -eq 1 && $cur != -*) ]]; then
    local help words
    help=$(_drivescope_help "$bin" "${cmd[@]}")
    words="$(_drivescope_commands <<< "$help")"
    [[ $cur == -* ]] && words="$(_drivescope_options <<< "$help")"
    COMPREPLY=($(compgen -W "$words" -- "$cur"))
    return
  fi

  local help
  help=$(_drivescope_help "$bin" "${cmd[@]}")
  case $prev in
    --prom | --from-file | --html | --drivedb | --output | -o)
      COMPREPLY=($(compgen -f -- "$cur"))
      return ;;
    --state-dir | --svg)
      COMPREPLY=($(compgen -d -- "$cur"))
      return ;;
    --tests)
      # comma-separated: complete the last name
      local done_part="" last=$cur
      [[ $cur == *,* ]] && done_part=${cur%,*}, && last=${cur##*,}
      COMPREPLY=($(compgen -P "$done_part" -W "access transfer cache blocksize queue patterns" -- "$last"))
      compopt -o nospace 2> /dev/null
      return ;;
    -[a-zA-Z] | --*)
      local choices
      choices=$(_drivescope_choices "$prev" <<< "$help")
      if [[ -n $choices ]]; then
        COMPREPLY=($(compgen -W "$choices" -- "$cur"))
        return
      fi
      # An option with a value (its help line has a type after the name): nothing to offer.
      if grep -q -- "^ *$prev [A-Z]" <<< "$help"; then return; fi ;;
  esac
  if [[ $cur == -* ]]; then
    COMPREPLY=($(compgen -W "$(_drivescope_options <<< "$help")" -- "$cur"))
    return
  fi

  # Targets. With ':' in COMP_WORDBREAKS (bash's default) "sim:ra" arrives as sim, :, ra.
  local presets
  presets=$("$bin" sim list 2> /dev/null | awk 'NR > 1 && $2 ~ /^[0-9]+$/ { print $1 }')
  if [[ $cur == : && $prev == sim ]]; then
    COMPREPLY=($(compgen -W "$presets" --))
    return
  fi
  if [[ $prev == : && ${COMP_WORDS[COMP_CWORD - 2]} == sim ]]; then
    COMPREPLY=($(compgen -W "$presets" -- "$cur"))
    return
  fi
  local p sims=""
  for p in $presets; do sims+=" sim:$p"; done
  COMPREPLY=($(compgen -W "$sims $(compgen -G '/dev/sd[a-z]*' 2> /dev/null) $(compgen -G '/dev/sg[0-9]*' 2> /dev/null)" -- "$cur")
             $(compgen -f -- "$cur"))
  # Without ':' in COMP_WORDBREAKS the whole "sim:ra" is one word and the above fits it.
}

complete -F _drivescope drivescope
