# shellcheck shell=sh disable=SC2154 # me: set by the sourcing script
# bench/args.sh: argument checks shared by bench/peers.sh and bench/levels.sh (sourced; the
# caller sets `me`, its name in messages). Every failed check prints "$me: ..." naming the
# argument on standard error and exits with status 2.
#   bad TEXT                     the message and exit
#   posint OPTION VALUE MIN      VALUE is a decimal integer >= MIN (and below 10^9)
#   nwords LIST                  the number of words in LIST
#   oneof OPTION LIST ALLOWED... every word of LIST is one of ALLOWED, and LIST is not empty
#   srlab_libs BUILD             the libraries the static BUILD/src/libsrlab.a needs, as meson
#                                recorded them (BUILD/meson-uninstalled/srlab-uninstalled.pc).
#                                The drivers link the static library: they call private entry
#                                points (srl__...), which the shared one does not export.
bad() { echo "$me: $1" >&2; exit 2; }
posint() {
    case "$2" in
    '' | *[!0-9]* | 0[0-9]* | ??????????*) bad "$1 '$2': not a positive integer" ;;
    esac
    [ "$2" -ge "$3" ] || bad "$1 '$2': must be at least $3"
}
nwords() { echo $#; }
oneof() {
    opt=$1 list=$2
    shift 2
    # shellcheck disable=SC2086
    [ "$(nwords $list)" -gt 0 ] || bad "$opt: empty list"
    for w in $list; do
        ok=0
        for a in "$@"; do [ "$w" = "$a" ] && ok=1; done
        [ $ok = 1 ] || bad "$opt: '$w' is not one of: $*"
    done
}
srlab_libs() {
    l=$(PKG_CONFIG_PATH="$1/meson-uninstalled" pkg-config --static --libs-only-l srlab 2>/dev/null) ||
        bad "--build '$1': pkg-config finds no meson-uninstalled/srlab-uninstalled.pc there"
    echo "${l#-lsrlab }"
}
