#!/bin/sh
# tests/house/exports.sh SRCDIR LIBSRLAB_SO: the shared library exports the public API, no more
# and no less.
#
# The public API is every function and object named srl_... that include/srlab/*.h declares;
# private names start with srl__ (src/libsrlab.map keeps them, and everything else, local).
# Three checks on `nm -D --defined-only`:
#   private   no exported name starts with srl__ or lacks the srl_ prefix;
#   declared  every exported name is declared in a public header (a word of include/srlab/*.h);
#   complete  every function a public header declares is exported, except its static inline ones.
# Each violation is printed; the exit status is the number found (capped).
set -u
src=$1
so=$2
[ -f "$so" ] || { echo "exports: no shared library '$so'" >&2; exit 1; }
command -v nm >/dev/null 2>&1 || { echo "exports: nm not found (binutils)"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/srlab-exports.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
bad=0
fail() {
    echo "exports: $*" >&2
    bad=$((bad + 1))
}

# Exported definitions; an ifunc's resolver (NAME.resolver) goes with NAME.
nm -D --defined-only "$so" | awk 'NF >= 3 { print $3 }' | sed 's/\.resolver$//' | sort -u >"$tmp/exported"
[ -s "$tmp/exported" ] || fail "nm found no exported symbol in $so"
cat "$src"/include/srlab/*.h >"$tmp/headers"
while read -r s; do
    case $s in
    srl__*) fail "private symbol exported: $s" ;;
    srl_*) grep -qw "$s" "$tmp/headers" || fail "exported but declared in no public header: $s" ;;
    *) fail "exported outside the srl_ namespace: $s" ;;
    esac
done <"$tmp/exported"

# Every declared function, less the static inline ones, is exported.
grep -ohE '\bsrl_[a-z0-9_]+[[:space:]]*\(' "$src"/include/srlab/*.h | sed -E 's/[[:space:]]*\($//' |
    sort -u >"$tmp/declared"
grep -hE '^static inline' "$src"/include/srlab/*.h | grep -oE '\bsrl_[a-z0-9_]+[[:space:]]*\(' |
    sed -E 's/[[:space:]]*\($//' | sort -u >"$tmp/inline"
comm -23 "$tmp/declared" "$tmp/inline" >"$tmp/wanted"
[ "$(wc -l <"$tmp/wanted")" -gt 100 ] || fail "found only $(wc -l <"$tmp/wanted") declared functions: the header scan is broken"
comm -23 "$tmp/wanted" "$tmp/exported" >"$tmp/missing"
while read -r s; do fail "declared in a public header but not exported: $s"; done <"$tmp/missing"

n=$(wc -l <"$tmp/exported")
[ $bad -eq 0 ] && echo "exports: $n symbols, each a public srl_ name declared in include/srlab/"
[ $bad -gt 100 ] && bad=100
exit $bad
