# bash completion for srlab (installed as share/bash-completion/completions/srlab).
#
# Every list comes from srlab itself (`srlab help --complete WHAT [COMMAND]`, a hidden command
# that reads the same tables and --help texts the commands use), so the completion cannot drift
# from the program: commands, the options of each command, formats, rounding modes, problems,
# strategies, optimizers, figures (plots/NAME.gp), a figure's --set variables (from `srlab plot
# NAME --help`, made from its script's declarations) and spec names (experiments/NAME.ini).

# The words of list WHAT (for COMMAND), from the srlab being completed.
_srlab_words()
{
    "${_srlab_bin:-srlab}" help --complete "$@" 2>/dev/null
}

_srlab()
{
    local cur prev cmd i
    _srlab_bin=${COMP_WORDS[0]}
    cur=${COMP_WORDS[COMP_CWORD]}
    prev=
    [ "$COMP_CWORD" -gt 0 ] && prev=${COMP_WORDS[COMP_CWORD - 1]}
    COMPREPLY=()
    if [ "$COMP_CWORD" -le 1 ]; then
        COMPREPLY=($(compgen -W "$(_srlab_words commands) --help --version -h -V" -- "$cur"))
        return 0
    fi
    cmd=${COMP_WORDS[1]}
    case $prev in
    -f | --format | --*-format | --acc-format)
        COMPREPLY=($(compgen -W "$(_srlab_words formats)" -- "$cur")); return 0 ;;
    --scale)
        COMPREPLY=($(compgen -W "ocp 3/4 ceil" -- "$cur")); return 0 ;;
    -r | --rounding | --*-rounding)
        COMPREPLY=($(compgen -W "$(_srlab_words modes)" -- "$cur")); return 0 ;;
    --problem)
        case $cmd in
        run) COMPREPLY=($(compgen -W "$(_srlab_words experiments)" -- "$cur")) ;;
        train) COMPREPLY=($(compgen -W "$(_srlab_words trainings)" -- "$cur")) ;;
        *) COMPREPLY=($(compgen -W "$(_srlab_words problems)" -- "$cur")) ;;
        esac
        return 0 ;;
    --strategy)
        COMPREPLY=($(compgen -W "$(_srlab_words strategies)" -- "$cur")); return 0 ;;
    --mx)
        COMPREPLY=($(compgen -W "off mxfp8 fp4-rn fp4-fprop fp4-dgrad fp4-wgrad fp4-sr fp4-sr-rht fp4-had" -- "$cur")); return 0 ;;
    --opt)
        COMPREPLY=($(compgen -W "$(_srlab_words optimizers)" -- "$cur")); return 0 ;;
    -o | --output | --in | --plot | --table | --data)
        COMPREPLY=($(compgen -f -- "$cur")); return 0 ;;
    --set) # the variables the figure's script declares, from `srlab plot NAME --help`
        for ((i = 2; i < COMP_CWORD - 1; i++)); do
            case ${COMP_WORDS[i]} in -o | --output | --in | --set) ((i++)) ;; -*) ;; *) break ;; esac
        done
        [ "$cmd" = plot ] && [ "$i" -lt $((COMP_CWORD - 1)) ] &&
            COMPREPLY=($(compgen -W "$("$_srlab_bin" plot "${COMP_WORDS[i]}" --help 2>/dev/null |
                sed -n 's/^  --set \([A-Za-z_0-9]*=\).*/\1/p')" -- "$cur"))
        return 0 ;;
    esac
    if [ "${cur#-}" != "$cur" ]; then
        COMPREPLY=($(compgen -W "$(_srlab_words options "$cmd") --help" -- "$cur"))
        return 0
    fi
    # the first positional argument of the commands that take a name
    for ((i = 2; i < COMP_CWORD; i++)); do
        case ${COMP_WORDS[i]} in -*) ;; *) [ "$cmd" != help ] && [ "$cmd" != round ] && return 0 ;; esac
    done
    case $cmd in
    plot) COMPREPLY=($(compgen -W "$(_srlab_words figures)" -- "$cur")) ;;
    sweep) COMPREPLY=($(compgen -W "$(_srlab_words specs)" -- "$cur") $(compgen -f -- "$cur")) ;;
    formats) COMPREPLY=($(compgen -W "$(_srlab_words formats)" -- "$cur")) ;;
    help) COMPREPLY=($(compgen -W "$(_srlab_words commands)" -- "$cur")) ;;
    op) COMPREPLY=($(compgen -W "add sub mul fma div sqrt" -- "$cur")) ;;
    demo) COMPREPLY=($(compgen -W "accumulate harmonic gd replicas crossover" -- "$cur")) ;;
    theory | check) COMPREPLY=($(compgen -W "T01 T02 T03 T04 T05 T06 T07 T08 T09 T10 T11 T12 T13" -- "$cur")) ;;
    esac
    return 0
}
complete -F _srlab srlab
