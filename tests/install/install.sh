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
complete "theory statements" "$src/theory" "*.md" "$share/theory"
doc=$(find "$tmp/root" -type d -path '*/share/doc/srlab' | head -n 1)
[ -n "$doc" ] && [ -f "$doc/README.md" ] && [ -f "$doc/docs/design.md" ] &&
    ok "README.md and docs/ in share/doc/srlab" || bad "no share/doc/srlab with README.md and docs/design.md"
SRLAB_THEORY=$share/theory "$exe" theory T05 | grep -qF "(see $share/theory/T05-gd-quadratic.md)" &&
    ok "srlab theory names the installed statement" || bad "srlab theory T05 does not name $share/theory"

# ---- the reference pages: srlab(1) with SEE ALSO, srlab(3), srlab-MODULE(3), a page per name ----
man1=$(find "$tmp/root" -type d -path '*/man/man1' | head -n 1)
man3=$(find "$tmp/root" -type d -path '*/man/man3' | head -n 1)
see=$(sed -n '/^\.SH SEE ALSO/,$p' "$man1/srlab.1" 2>/dev/null)
echo "$see" | grep -q 'srlab(3)' && ok "srlab(1) has SEE ALSO naming srlab(3)" || bad "srlab(1): no SEE ALSO srlab(3)"
pages=$(echo "$see" | grep -o 'srlab\\-[a-z]*(1)' | sed 's/\\-/-/; s/(1)$//')
n=0 missing=""
for p in $pages; do n=$((n + 1)); [ -f "$man1/$p.1" ] || missing="$missing $p"; done
[ "$n" -gt 10 ] && [ -z "$missing" ] && ok "the $n pages srlab(1) names are installed" ||
    bad "srlab(1) SEE ALSO: $n pages, missing:$missing"
n=0 missing=""
for h in "$src"/include/srlab/*.h; do
    m=${h##*/}
    n=$((n + 1))
    [ -s "$man3/srlab-${m%.h}.3" ] || missing="$missing srlab-${m%.h}.3"
done
[ -s "$man3/srlab.3" ] && [ -z "$missing" ] && ok "srlab(3) and a man3 page for each of the $n headers" ||
    bad "man3 pages missing:$([ -s "$man3/srlab.3" ] || echo ' srlab.3')$missing"
grep -ohE '\bsrl_[a-z0-9_]+[[:space:]]*\(' "$src"/include/srlab/*.h | sed -E 's/[[:space:]]*\($//' |
    sort -u >"$tmp/functions"
missing=$(while read -r f; do [ -f "$man3/$f.3" ] || printf ' %s' "$f"; done <"$tmp/functions")
[ -z "$missing" ] && ok "a man3 page for each of the $(wc -l <"$tmp/functions") functions the headers declare" ||
    bad "no man3 page for:$missing"
if command -v man >/dev/null 2>&1; then
    MANWIDTH=100 man -M "${man3%/man3}" 3 srl_round_array 2>"$tmp/man.err" >"$tmp/man.out"
    grep -q 'SRLAB-ROUNDING(3)' "$tmp/man.out" && grep -q 'srl_round_array(' "$tmp/man.out" &&
        [ ! -s "$tmp/man.err" ] && ok "man srl_round_array shows srlab-rounding(3), its declaration in it" ||
        bad "man srl_round_array: $(head -c 300 "$tmp/man.err")$(head -5 "$tmp/man.out")"
else
    echo "SKIP: man is not installed: the pages are not rendered"
fi

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
