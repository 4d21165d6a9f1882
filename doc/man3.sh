#!/bin/sh
# doc/man3.sh: the C library's reference as man pages, made from the public headers.
#
#   sh man3.sh page HEADER VERSION     srlab-MODULE(3) for include/srlab/MODULE.h, on stdout
#   sh man3.sh index VERSION HEADER... srlab(3): the modules, one line each, on stdout
#   sh man3.sh aliases DIR HEADER...   DIR/NAME.3 for every srl_ function and type a header
#                                      declares, each a `.so` link to its module's page
#   sh man3.sh aliases --install MANDIR HEADER...
#                                      the same into MANDIR/man3 of meson install's staged prefix
#
# A page is its header as the compiler reads it: NAME from the first sentence of the header's
# opening comment, SYNOPSIS the #include line and how to link, DESCRIPTION that comment, and
# DECLARATIONS every line after the include guard, comments included, verbatim. The headers are
# the contract (docs/design.md says so), so the pages cannot say other than the code.
# doc/meson.build makes the pages at build time and installs them with the aliases.
set -eu

module() { # include/srlab/format.h -> format
    m=${1##*/}
    echo "${m%.h}"
}

# The text of the header's opening comment, without its comment marks.
opening() {
    awk 'NR == 1 { sub(/^\/\* */, "") }
         { line = $0; end = sub(/ *\*\/.*$/, "", line); sub(/^ \* ?/, "", line); sub(/^ \*$/, "", line)
           print line; if (end) exit }' "$1"
}

# The first sentence of the opening comment after "srlab/MODULE.h: ", without a trailing
# "(docs/design.md ...)".
summary() {
    opening "$1" | awk 'BEGIN { s = "" } /^$/ { exit } { s = s (s == "" ? "" : " ") $0 }
        END { sub(/^srlab\/[a-z_]*\.h: */, "", s)
              i = index(s, ". "); if (i) s = substr(s, 1, i - 1)
              gsub(/ *\(docs\/design\.md[^)]*\)/, "", s); sub(/\.$/, "", s); print s }'
}

# roff-safe text inside .nf: backslashes as \e, a leading . or ' made literal, - as \-.
roff() {
    sed -e 's/\\/\\e/g' -e 's/-/\\-/g' -e "s/^\\([.']\\)/\\\\\\&\\1/"
}

page() {
    h=$1 v=$2
    m=$(module "$h")
    M=$(echo "srlab-$m" | tr 'a-z' 'A-Z')
    echo ".\\\" srlab-$m(3): made by doc/man3.sh from include/srlab/$m.h; do not edit."
    echo ".TH $M 3 \"\" \"srlab $v\" \"srlab library\""
    echo ".SH NAME"
    echo "srlab-$m \\- $(summary "$h" | roff)"
    echo ".SH SYNOPSIS"
    echo ".nf"
    echo "#include <srlab/$m.h>"
    echo ""
    echo "cc ... \$(pkg\\-config \\-\\-cflags \\-\\-libs srlab)"
    echo ".fi"
    echo ".SH DESCRIPTION"
    echo ".nf"
    opening "$h" | roff
    echo ".fi"
    echo ".SH DECLARATIONS"
    echo ".nf"
    # everything after the include guard's #define, less the guard's #endif and the C++ wrapper
    awk 'done { print; next } /^#define SRLAB_[A-Z_]*_H$/ { done = 1 }' "$h" |
        sed -e '/^#ifdef __cplusplus$/,/^#endif$/d' -e '$ { /^#endif/d; }' | roff
    echo ".fi"
    echo ".SH SEE ALSO"
    echo "srlab(3) (every module), srlab(1) (the command); docs/design.md, the contracts between"
    echo "the modules (share/doc/srlab/design.md after meson install)."
}

index() {
    v=$1
    shift
    echo ".\\\" srlab(3): made by doc/man3.sh from include/srlab/*.h; do not edit."
    echo ".TH SRLAB 3 \"\" \"srlab $v\" \"srlab library\""
    echo ".SH NAME"
    echo "srlab \\- the C library of srlab: exact emulation of number formats and rounding modes"
    echo ".SH SYNOPSIS"
    echo ".nf"
    echo "#include <srlab/MODULE.h>"
    echo ""
    echo "cc ... \$(pkg\\-config \\-\\-cflags \\-\\-libs srlab)"
    echo "cc ... \$(pkg\\-config \\-\\-static \\-\\-cflags \\-\\-libs srlab)"
    echo ".fi"
    echo ".SH DESCRIPTION"
    echo "One header per module, one page per header; every function and type has a page of its"
    echo "own name that shows its module's page (man srl_round, man srl_format)."
    echo "Functions are named srl_MODULE_VERB and return an int status (SRL_OK, or a negative"
    echo "code that srl_strerror names, with a message in an srl_err when they take one); the"
    echo "library never prints or exits. Every random draw is a pure function of (seed, stream,"
    echo "counter), so results do not depend on the number of threads."
    echo ".SH MODULES"
    for h in "$@"; do
        echo ".TP"
        echo ".BR srlab\\-$(module "$h") (3)"
        summary "$h" | roff
    done
    echo ".SH SEE ALSO"
    echo "srlab(1); docs/design.md and docs/architecture.md (share/doc/srlab after meson install)."
}

# The srl_ functions and types a header declares (not those it only mentions): a function's
# name before its '(' on a declaration line at column 0, a type's after a typedef's '}' or at
# the end of a one-line typedef.
declared() {
    grep -E '^[a-z][^(;]*[ *]srl_[a-z0-9_]+\(' "$1" | sed -E 's/^[^(]*[ *](srl_[a-z0-9_]+)\(.*/\1/'
    grep -E '^\} srl_[a-z0-9_]+;|^typedef [^;]* srl_[a-z0-9_]+;' "$1" |
        sed -E 's/.*(srl_[a-z0-9_]+);.*/\1/'
}

aliases() {
    dir=$1
    shift
    if [ "$dir" = --install ]; then # meson's install script: DIR is MANDIR/man3 in the staged prefix
        case $1 in
        /*) dir=${DESTDIR:-}$1/man3 ;;
        *) dir=${MESON_INSTALL_DESTDIR_PREFIX:?run by meson install}/$1/man3 ;;
        esac
        shift
    fi
    mkdir -p "$dir"
    for h in "$@"; do
        m=$(module "$h")
        declared "$h" | while read -r n; do
            echo ".so man3/srlab-$m.3" >"$dir/$n.3"
        done
    done
}

what=${1:-}
[ $# -gt 0 ] && shift
case $what in
page) page "$@" ;;
index) index "$@" ;;
aliases) aliases "$@" ;;
*)
    echo "usage: sh man3.sh page HEADER VERSION | index VERSION HEADER... | aliases DIR|--install MANDIR HEADER..." >&2
    exit 2
    ;;
esac
