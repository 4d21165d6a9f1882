#!/bin/sh
# tests/house/layers.sh SRCDIR BUILDDIR: the library's layers depend only downward.
#
# The order is the one src/meson.build builds them in (core first, cli last). Two checks:
#   includes  a file in src/LAYER/ includes only public headers (include/srlab/M.h) of modules
#             at LAYER or below, and private headers ("FOLDER/x.h") of folders at LAYER or below;
#   symbols   every srl* symbol that libsrlab_LAYER.a needs is defined in libsrlab_LAYER.a or the
#             archive of a layer below it (nm), so no layer calls upward, by any route.
# Each violation is printed with its file or symbol; the exit status is the number found (capped).
set -u
src=$1
build=$2
layers="core round ops linalg train theory problems run sweep check cli"

rank() { # rank of a layer folder, 0 if unknown
    i=1
    for l in $layers; do
        [ "$l" = "$1" ] && { echo $i; return; }
        i=$((i + 1))
    done
    echo 0
}
# The layer of each public header (include/srlab/NAME.h).
module_layer() {
    case $1 in
    common | format | mode | rng | config | rows | number) echo core ;;
    rounding | mpfr) echo round ;;
    ops | ops_mpfr | mx) echo ops ;;
    kernels | tensor | mxgemm) echo linalg ;;
    strategy | optim | train) echo train ;;
    theory) echo theory ;;
    markov) echo problems ;;
    run) echo run ;;
    sweep | compare) echo sweep ;;
    check) echo check ;;
    *) echo unknown ;;
    esac
}

bad=0
fail() {
    echo "layers: $*" >&2
    bad=$((bad + 1))
}

# Every public header has a layer.
for h in "$src"/include/srlab/*.h; do
    m=$(basename "$h" .h)
    [ "$(module_layer "$m")" = unknown ] && fail "include/srlab/$m.h has no layer in tests/house/layers.sh"
done

# includes
for layer in $layers; do
    own=$(rank "$layer")
    [ -d "$src/src/$layer" ] || { fail "src/$layer is missing"; continue; }
    for f in $(find "$src/src/$layer" -name '*.[ch]' | sort); do
        rel=${f#"$src"/}
        grep -o '^[[:space:]]*#[[:space:]]*include[[:space:]]*"[^"]*"' "$f" | sed 's/.*"\(.*\)"/\1/' |
            while read -r inc; do
                case $inc in
                srlab/*.h)
                    m=$(basename "$inc" .h)
                    to=$(module_layer "$m")
                    ;;
                srl_*.h) continue ;; # generated configuration headers
                */*) to=${inc%%/*} ;;
                *) to=$layer ;; # a header beside the file
                esac
                r=$(rank "$to")
                if [ "$r" -eq 0 ] || [ "$r" -gt "$own" ]; then
                    echo "$rel includes \"$inc\" (layer $to, above $layer)"
                fi
            done
    done
done >"$build/layers-includes.txt"
if [ -s "$build/layers-includes.txt" ]; then
    while read -r line; do fail "$line"; done <"$build/layers-includes.txt"
fi

# symbols
defined=""
for layer in $layers; do
    [ "$layer" = cli ] && break
    a="$build/src/libsrlab_$layer.a"
    [ -f "$a" ] || { fail "$a was not built"; continue; }
    nm -g --defined-only "$a" 2>/dev/null | awk 'NF == 3 && $3 ~ /^srl/ {print $3}' >>"$build/layers-defined.$$"
    nm -g --undefined-only "$a" 2>/dev/null | awk '$NF ~ /^srl/ {print $NF}' | sort -u |
        while read -r s; do
            grep -qx "$s" "$build/layers-defined.$$" || echo "libsrlab_$layer.a needs $s, defined in no layer at or below $layer"
        done >>"$build/layers-symbols.$$"
done
if [ -s "$build/layers-symbols.$$" ]; then
    while read -r line; do fail "$line"; done <"$build/layers-symbols.$$"
fi
n=$(sort -u "$build/layers-defined.$$" | wc -l)
rm -f "$build/layers-defined.$$" "$build/layers-symbols.$$" "$build/layers-includes.txt"

if [ "$bad" -ne 0 ]; then
    echo "layers: $bad violation(s)" >&2
    exit 1
fi
echo "layers: 11 layers, every include and every one of $n library symbols points downward"
