# shellcheck shell=sh disable=SC2154 # me: set by the sourcing script
# bench/args.sh: argument checks shared by bench/peers.sh and bench/levels.sh (sourced; the
# caller sets `me`, its name in messages). Every failed check prints "$me: ..." naming the
# argument on standard error and exits with status 2.
#   bad TEXT                     the message and exit
#   posint OPTION VALUE MIN      VALUE is a decimal integer >= MIN (and below 10^9)
#   nwords LIST                  the number of words in LIST
#   oneof OPTION LIST ALLOWED... every word of LIST is one of ALLOWED, and LIST is not empty
#   timed COMMAND...             COMMAND under the scheduling SRL_BENCH_SCHED names: `fifo`
#                                (SCHED_FIFO priority 1, by chrt: the kernel then places each
#                                thread on a free CPU and other processes wait) or `other` (the
#                                default: the normal policy); anything else is a usage error
#   sched_check                  SRL_BENCH_SCHED is one of those, and fifo is permitted here
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
timed() {
    case "${SRL_BENCH_SCHED:-other}" in
    fifo) chrt -f 1 "$@" ;;
    other) "$@" ;;
    *) bad "SRL_BENCH_SCHED '${SRL_BENCH_SCHED}': not fifo or other" ;;
    esac
}
sched_check() {
    case "${SRL_BENCH_SCHED:-other}" in
    other) ;;
    fifo) chrt -f 1 true 2>/dev/null ||
        bad "SRL_BENCH_SCHED=fifo: 'chrt -f 1' is not permitted here (it needs CAP_SYS_NICE); use other" ;;
    *) bad "SRL_BENCH_SCHED '${SRL_BENCH_SCHED}': not fifo or other" ;;
    esac
}
srlab_libs() {
    l=$(PKG_CONFIG_PATH="$1/meson-uninstalled" pkg-config --static --libs-only-l srlab 2>/dev/null) ||
        bad "--build '$1': pkg-config finds no meson-uninstalled/srlab-uninstalled.pc there"
    echo "${l#-lsrlab }"
}
