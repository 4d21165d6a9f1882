#!/bin/sh
# tests/house/doc_refs.sh SRCDIR: README.md and docs/*.md name only files that exist (issue 30:
# docs/design.md named theory_sum.h, theory_opt.h, src/format.c and src/problems_*.c long after
# they were gone).
#   links   every relative Markdown link [text](path) resolves from the page's folder
#           (web addresses and #anchors are left alone);
#   paths   every path of the tree a page writes (src/..., include/..., tests/..., docs/...,
#           experiments/..., plots/..., theory/..., bench/..., python/..., data/..., doc/...)
#           exists from the top of the tree, or is a target its folder's meson.build builds;
#   names   every bare header name in backquotes (`format.h`, `cli.h`) is a file somewhere in
#           the tree (other names may be the user's files or another project's).
# A statement's id (theory/T05) stands for its file theory/T05-*.md.
# Placeholders are not paths: a word with two capitals in a row (NAME, TNN, MODULE) or a '*'.
# Pages that work in progress elsewhere announces may be linked before they land: they are
# listed in `pending` and reported as PENDING while missing (drop a name once its page is here).
set -u
pending="docs/security.md docs/reliability.md"
src=$(cd "$1" && pwd)
cd "$src" || exit 1
fail=0
n=0
bad() { echo "FAIL $1"; fail=1; }
placeholder() { echo "$1" | grep -Eq '[A-Z]{2}|\*'; }

for page in README.md docs/*.md; do
    dir=$(dirname "$page")
    # links
    grep -oE '\]\([^) ]+\)' "$page" | sed 's/^](//; s/)$//; s/#.*$//' | while read -r t; do
        case $t in '' | http://* | https://* | mailto:*) continue ;; esac
        [ -e "$dir/$t" ] && continue
        case " $pending " in *" $(echo "$dir/$t" | sed 's#^\./##') "*)
            echo "PENDING $page: link to $t (announced, not here yet)"; continue ;; esac
        echo "FAIL $page: link to $t: no such file" >&2
    done 2>>"$src/.doc_refs.$$"
    # paths of the tree
    grep -oE '(^|[^A-Za-z0-9_./-])(src|include|tests|experiments|plots|theory|docs|doc|data|bench|python)/[A-Za-z0-9_./*-]*[A-Za-z0-9_/*]' "$page" |
        sed -E 's/^[^A-Za-z]//' | sort -u | while read -r t; do
        placeholder "$t" && continue
        case $t in theory/T[0-9][0-9]) ls "$t"-*.md >/dev/null 2>&1 && continue ;; esac # an id
        [ -e "$t" ] && continue
        case " $pending " in *" $t "*) continue ;; esac
        # a build target (ninja -C build src/cli/srlab): a name its folder's meson.build builds
        grep -q "(.$(basename "$t")'," "$(dirname "$t")/meson.build" 2>/dev/null && continue
        echo "FAIL $page: $t: no such file or folder" >&2
    done 2>>"$src/.doc_refs.$$"
    # bare file names
    grep -oE '`[a-z0-9_]+\.h`' "$page" | tr -d '`' | sort -u | while read -r t; do
        [ -n "$(find src include tests experiments plots bench python doc data -name "$t" 2>/dev/null | head -1)" ] ||
            echo "FAIL $page: \`$t\`: no file of that name in the tree" >&2
    done 2>>"$src/.doc_refs.$$"
    n=$((n + 1))
done
if [ -s "$src/.doc_refs.$$" ]; then
    cat "$src/.doc_refs.$$"
    fail=1
fi
rm -f "$src/.doc_refs.$$"
[ $fail -eq 0 ] && echo "PASS the $n pages (README.md, docs/*.md) name only files that exist"
exit $fail
