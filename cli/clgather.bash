# SPDX-License-Identifier: Apache-2.0
# bash completion for clgather (docs/cli.md, "Man pages and completion").
# `cmake --install` puts it in share/bash-completion/completions/clgather,
# where bash-completion finds it the first time clgather is completed;
# without bash-completion, `source` it.
#
# What it offers comes from the tool being completed (the first word of
# the line, e.g. build/cli/clgather), read from its own --help, so that it
# follows the tool rather than a copy of its options:
#   the command          the "Commands:" list of `clgather --help`
#   an option            the option lines of `clgather COMMAND --help`
#   an option's value    by the word its --help writes after it:
#                        SPEC  gpu, cpu, accelerator and the P:D of each
#                              device `clgather devices` lists
#                        MODE  raise, wrap, clip, fill (--oob)
#                        NAME  the workloads of `clgather bench --list`
#                        DIR   directory names
#                        FILE  file names
#                        a word the usage spells as a|b (--op): those
#                        N, F and others: nothing
#   an operand           the choices the usage spells (a|b) (run's
#                        operator) until one is given, then DIRs where
#                        the usage takes DIR..., else file names
# Needs bash 4; uses no helper of bash-completion.

# The options of a --help text on stdin, one "OPTION<TAB>VALUE" line each
# (VALUE empty for an option without a value; a short option takes the
# value its long form on the same line has: "-d, --device SPEC").
_clgather_options()
{
    awk '
        match($0, /^ +-/) && RLENGTH <= 11 {
            line = $0
            sub(/^ +/, "", line)
            cut = index(line, "  ")
            if (cut > 0)
                line = substr(line, 1, cut - 1)
            n = split(line, items, /, /)
            value = ""
            for (k = n; k >= 1; k--) {
                split(items[k], w, " ")
                if (w[2] != "")
                    value = w[2]
                else if (w[1] !~ /^--/)
                    w[2] = value
                out[k] = w[1] "\t" w[2]
            }
            for (k = 1; k <= n; k++)
                print out[k]
        }'
}

# COMPREPLY: the words of $1 (white space between them) that start with
# $cur.
_clgather_words()
{
    local IFS=$' \t\n'
    COMPREPLY=($(compgen -W "$1" -- "$cur"))
}

# COMPREPLY: file names (directories with -d).
_clgather_files()
{
    local IFS=$'\n'
    compopt -o filenames 2>/dev/null
    if [ "${1:-}" = -d ]; then
        COMPREPLY=($(compgen -d -- "$cur"))
    else
        COMPREPLY=($(compgen -f -- "$cur"))
    fi
}

# The value of option $1 whose --help word is $2, in command $3's usage.
_clgather_value()
{
    local option=$1 kind=$2 usage=$3 exe=$4 words
    case "$kind" in
    SPEC)
        words="gpu cpu accelerator $("$exe" devices 2>/dev/null |
            awk '$1 ~ /^[0-9]+:[0-9]+$/ { print $1 }')"
        _clgather_words "$words"
        ;;
    MODE) _clgather_words "raise wrap clip fill" ;;
    NAME)
        _clgather_words "$("$exe" bench --list 2>/dev/null |
            awk 'NR > 1 { print $1 }')"
        ;;
    DIR) _clgather_files -d ;;
    FILE) _clgather_files ;;
    *)
        # "--op gather|gather-elements" in the usage: those words
        words="$(grep -oE -- "$option [a-z0-9|-]+\|[a-z0-9|-]+" <<<"$usage" |
            head -n 1 | cut -d' ' -f2 | tr '|' ' ')"
        [ -n "$words" ] && _clgather_words "$words"
        ;;
    esac
}

# The words of the line up to the cursor into _clgather_line, the index
# of the current one into _clgather_cword: COMP_WORDS with the pieces that
# bash splits at ':' and '=' (COMP_WORDBREAKS) joined again wherever no
# white space stood between them in COMP_LINE, so that "--data=x" and
# "0:1" are one word each.
_clgather_rejoin()
{
    local i p=0 word rest lead
    _clgather_line=()
    _clgather_cword=-1
    for ((i = 0; i < ${#COMP_WORDS[@]} && i <= COMP_CWORD; i++)); do
        word=${COMP_WORDS[i]}
        rest=${COMP_LINE:p}
        if [ -n "$word" ]; then
            lead=${rest%%"$word"*}
        else
            lead=${rest%%[![:space:]]*}
        fi
        p=$((p + ${#lead} + ${#word}))
        if [ "$i" -gt 0 ] && [ -z "$lead" ] && [ "$_clgather_cword" -ge 0 ]; then
            _clgather_line[_clgather_cword]+=$word
        else
            _clgather_line+=("$word")
            _clgather_cword=$((${#_clgather_line[@]} - 1))
        fi
    done
}

_clgather()
{
    local cur prev exe command="" help usage options opt value brk k
    local i c word operands=0 skip=0 _clgather_line _clgather_cword
    COMPREPLY=()
    _clgather_rejoin
    c=$_clgather_cword
    cur=${_clgather_line[c]}
    prev=""
    [ "$c" -gt 0 ] && prev=${_clgather_line[c - 1]}
    if [[ "$cur" == --*=* ]]; then # --option=value
        prev=${cur%%=*}
        cur=${cur#*=}
    fi
    exe=${_clgather_line[0]}
    exe=${exe/#\~/$HOME}

    # The command: the first word after the tool's own options.
    for ((i = 1; i < c; i++)); do
        word=${_clgather_line[i]}
        case "$word" in
        -*) ;;
        *)
            command=$word
            break
            ;;
        esac
    done
    _clgather_complete
    # readline replaces only the text after the last word-break character
    # (':' in "0:1", '=' in "--data=x"): drop what comes before it.
    brk=""
    for ((k = ${#cur} - 1; k >= 0; k--)); do
        if [[ "$COMP_WORDBREAKS" == *"${cur:k:1}"* ]]; then
            brk=${cur:0:k+1}
            break
        fi
    done
    if [ -n "$brk" ] && [ "${#COMPREPLY[@]}" -gt 0 ]; then
        COMPREPLY=("${COMPREPLY[@]#"$brk"}")
    fi
    return 0
}

# COMPREPLY for _clgather's cur, prev, command and exe.
_clgather_complete()
{
    if [ -z "$command" ]; then
        help="$("$exe" --help 2>/dev/null)" || return 0
        if [[ "$cur" == -* ]]; then
            _clgather_words "$(_clgather_options <<<"$help" | cut -f1)"
        else
            _clgather_words "$(awk '/^Commands:/ { on = 1; next }
                on && /^$/ { exit } on { print $1 }' <<<"$help")"
        fi
        return 0
    fi

    help="$("$exe" "$command" --help 2>/dev/null)" || return 0
    usage="$(awk '/^Usage: / { on = 1 } on && /^[^ \t]/ && !/^Usage: / { exit }
        on' <<<"$help")"
    options="$(_clgather_options <<<"$help")"
    # A value for the option before the cursor.
    if [[ "$prev" == -* ]]; then
        value="$(awk -F'\t' -v o="$prev" '$1 == o { print $2; exit }' <<<"$options")"
        if [ -n "$value" ]; then
            _clgather_value "$prev" "$value" "$usage" "$exe"
            return 0
        fi
    fi
    if [[ "$cur" == -* ]]; then
        _clgather_words "$(cut -f1 <<<"$options")"
        return 0
    fi
    # An operand: count those given after the command, skipping values.
    for ((i = i + 1; i < c; i++)); do
        word=${_clgather_line[i]}
        if [ "$skip" = 1 ]; then
            skip=0
        elif [[ "$word" == --*=* ]]; then
            :
        elif [[ "$word" == -* ]]; then
            opt="$(awk -F'\t' -v o="$word" '$1 == o { print $2; exit }' <<<"$options")"
            [ -n "$opt" ] && skip=1
        else
            operands=$((operands + 1))
        fi
    done
    value="$(grep -oE "$command \(([a-z0-9-]+\|)+[a-z0-9-]+\)" <<<"$usage" |
        head -n 1 | sed -E 's/^[^(]*\(//; s/\)$//' | tr '|' ' ')"
    if [ -n "$value" ] && [ "$operands" = 0 ]; then
        _clgather_words "$value"
    elif grep -q 'DIR\.\.\.' <<<"$usage"; then
        _clgather_files -d
    else
        _clgather_files
    fi
}

complete -F _clgather clgather
