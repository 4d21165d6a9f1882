#!/bin/sh
# tests/install/install.sh SRCDIR BUILDDIR CC CLIENT_C (CC: the compiler command, words): `meson install` of the build into a
# temporary root (DESTDIR), then the installed tree used as a user would use it:
#   - every public header (include/srlab/*.h), plot script (plots/*.gp) and spec
#     (experiments/*.ini) of the source tree is installed, and libsrlab shared and static, srlab.pc
#     and the srlab binary;
#   - CLIENT_C (a program outside the project) builds against it with `pkg-config --cflags --libs
#     srlab`, and statically with `pkg-config --static`, and both run and pass;
#   - the installed `srlab reproduce --quick` run from a folder outside the source tree exits 0
#     and writes report/index.html (exit 0: every spec ran, every figure was drawn, every check
#     passed).
# The installed binary's data folder is compiled in from the prefix, which DESTDIR moves; the
# test points srlab at the installed plots and specs with SRLAB_PLOTS and SRLAB_EXPERIMENTS (the
# overrides `srlab plot --help` and `srlab reproduce --help` document), and pkg-config at the
# installed srlab.pc with PKG_CONFIG_SYSROOT_DIR (pkg-config's way of using a staged tree).
# Everything is written inside one temporary folder, removed at the end: `meson install` writes
# its log next to the install data it reads (meson-private/../meson-logs), so it reads a copy of
# the build folder made of symbolic links, with meson-private and meson-logs of its own.
set -u
src=$1 build=$2 cc=$3 client=$4
case $client in /*) ;; *) client=$(pwd)/$client ;; esac
command -v pkg-config >/dev/null 2>&1 || { echo "SKIP: pkg-config is not installed"; exit 77; }
command -v gnuplot >/dev/null 2>&1 || { echo "SKIP: gnuplot is not installed"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/srlab-install.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM
fails=0
ok() { echo "PASS: $1"; }
bad() { fails=$((fails + 1)); echo "FAIL: $1"; }

# ---- meson install into $tmp/root ----
mkdir "$tmp/stage" "$tmp/stage/meson-private" "$tmp/stage/meson-logs" || exit 1
for e in "$build"/* "$build"/.[!.]*; do
    case ${e##*/} in meson-private | meson-logs | '.[!.]*') ;; *) ln -s "$e" "$tmp/stage/" ;; esac
done
for e in "$build"/meson-private/*; do ln -s "$e" "$tmp/stage/meson-private/"; done
if meson install -C "$tmp/stage" --no-rebuild --quiet --destdir "$tmp/root" >"$tmp/install.log" 2>&1
then ok "meson install --destdir"
else cat "$tmp/install.log"; bad "meson install --destdir"; exit 1; fi

# ---- what was installed ----
pc=$(find "$tmp/root" -name srlab.pc | head -n 1)
[ -n "$pc" ] && ok "srlab.pc installed" || { bad "no srlab.pc installed"; exit 1; }
export PKG_CONFIG_PATH="${pc%/*}" PKG_CONFIG_SYSROOT_DIR="$tmp/root"
installed() { # a folder variable of srlab.pc, in the root (pkgconf adds the sysroot itself)
    v=$(pkg-config --variable="$1" srlab)
    case $v in "$tmp/root"/*) echo "$v" ;; *) echo "$tmp/root$v" ;; esac
}
libdir=$(installed libdir)
incdir=$(installed includedir)/srlab
[ -f "$libdir/libsrlab.a" ] && ok "static libsrlab.a in the libdir" || bad "no $libdir/libsrlab.a"
ls "$libdir"/libsrlab.so.* >/dev/null 2>&1 && [ -e "$libdir/libsrlab.so" ] &&
    ok "shared libsrlab.so in the libdir" || bad "no shared libsrlab in $libdir"
exe=$(find "$tmp/root" -type f -name srlab -perm -u+x | head -n 1)
[ -n "$exe" ] && ok "srlab binary installed" || { bad "no srlab binary installed"; exit 1; }
share=$(find "$tmp/root" -type d -path '*/share/srlab' | head -n 1)
[ -n "$share" ] || { bad "no share/srlab folder installed"; exit 1; }
# every file of the source folders, by name (a test that fails when a new one is not installed)
complete() { # what SRCFOLDER GLOB INSTALLEDFOLDER
    n=0 missing=""
    for f in "$2"/$3; do
        n=$((n + 1))
        [ -f "$4/${f##*/}" ] || missing="$missing ${f##*/}"
    done
    [ -z "$missing" ] && ok "all $n $1 installed" || bad "$1 not installed:$missing"
}
complete "public headers" "$src/include/srlab" "*.h" "$incdir"
complete "plot scripts" "$src/plots" "*.gp" "$share/plots"
complete "specs" "$src/experiments" "*.ini" "$share/experiments"

# ---- a program built against the installed library ----
cd "$tmp" || exit 1
# shellcheck disable=SC2046 # pkg-config's output is a list of flags
# shellcheck disable=SC2086 # $cc is a command of words
if $cc -std=c11 -Wall -Werror -o client "$client" $(pkg-config --cflags --libs srlab) \
    2>"$tmp/cc.log"; then
    ok "client built with pkg-config --cflags --libs srlab"
    if LD_LIBRARY_PATH=$libdir ./client; then ok "client (shared) runs and passes"
    else bad "client (shared) failed"; fi
else
    cat "$tmp/cc.log"; bad "client does not build with pkg-config --cflags --libs srlab"
fi
# shellcheck disable=SC2046
# shellcheck disable=SC2086
if $cc -std=c11 -Wall -Werror -static -o client-static "$client" \
    $(pkg-config --static --cflags --libs srlab) 2>"$tmp/cc.log"; then
    ok "client built with pkg-config --static (a fully static program)"
    if ./client-static; then ok "client (static) runs and passes"
    else bad "client (static) failed"; fi
else
    cat "$tmp/cc.log"; bad "client does not build with pkg-config --static --cflags --libs srlab"
fi

# ---- the installed srlab, from a folder outside the source tree ----
mkdir "$tmp/work" && cd "$tmp/work" || exit 1
unset SRLAB_REPRODUCE_EXE
SRLAB_PLOTS=$share/plots SRLAB_EXPERIMENTS=$share/experiments \
    "$exe" reproduce --quick -o report >reproduce.out 2>reproduce.err
got=$?
if [ "$got" -eq 0 ] && [ -s report/index.html ]; then
    ok "installed srlab reproduce --quick: exit 0, report/index.html written"
else
    cat reproduce.err
    bad "installed srlab reproduce --quick: exit $got$([ -s report/index.html ] || echo ', no report/index.html')"
fi
[ "$fails" -eq 0 ] && echo "install: all passed" || echo "install: $fails failed"
[ "$fails" -eq 0 ]
