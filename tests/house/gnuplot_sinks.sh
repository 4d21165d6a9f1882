#!/bin/sh
# tests/house/gnuplot_sinks.sh PLOTSDIR: no plots/*.gp or *.gpi uses a gnuplot feature that runs
# a command or opens a file on a variable (issue 28, item 1; the features are listed in
# plots/common.gpi's header, the rule in docs/security.md). srlab plot gives a script only typed
# values and fixed file names; this keeps the scripts from turning a value into a command:
#   never      system (function or command), backquotes, !, shell, eval, call, import, cd, save,
#              history, update, bind, pause, fit, set loadpath/fontpath/history/fit;
#   load       only plotdir."NAME.gpi";
#   macros     @NAME only for a NAME assigned once, from one single-quoted literal (@showranges);
#   set print  only to a $BLOCK, to debug (an OUTFILE) or back to the terminal; set output only
#              to out; set table only to a $BLOCK;
#   data       plot, splot and stats read only in, runs, perrun, data, an OUTFILE/INFILE variable,
#              a $BLOCK or an array (a function of x is no file);
#   files      an assignment to one of those file variables holds no declared user variable and
#              no literal beginning with '<' or '|';
#   declared   each `# --set NAME=TYPE` line has a type of the fixed list, every variable a script
#              tests with exists() is declared (or is in, out, fmt, ARG0), and every declared one
#              is used (so srlab plot --help, made from the declarations, cannot drift).
# Each violation is printed as FILE:LINE: why; the exit status is their number (at most 100).
set -u
dir=${1:?usage: gnuplot_sinks.sh PLOTSDIR}
set -- "$dir"/*.gp "$dir"/*.gpi
[ -e "$1" ] || { echo "no scripts in $dir"; exit 1; }
awk -v types="NUMBER INTEGER COLUMN METRIC COLUMNS FILTER TEXT INFILE OUTFILE" '
BEGIN { split("in out runs perrun data debug", fv, " "); for (k in fv) filev[fv[k]] = 1 }
function bad(msg) { print FILENAME ":" lineno ": " msg; nbad++ }
function isid(c) { return c ~ /[A-Za-z0-9_]/ }
# code with its string literals replaced by S<k> (their texts in lit[k]) and its comment cut
function strip(s,    out, i, c, q, t) {
    out = ""; q = ""
    for (i = 1; i <= length(s); i++) {
        c = substr(s, i, 1)
        if (q == "") {
            if (c == "#") break
            if (c == "\"" || c == "\047") { q = c; t = ""; continue }
            out = out c
        } else if (q == "\"" && c == "\\") { t = t c substr(s, i + 1, 1); i++
        } else if (q == "\047" && c == "\047" && substr(s, i + 1, 1) == "\047") { t = t c; i++
        } else if (c == q) { nlit++; lit[nlit] = t; out = out " S" nlit " "; q = ""
        } else t = t c
    }
    return out
}
# the text of s after the balanced group that opens at its first character ( or [
function after_group(s,    i, d, c, o, e) {
    o = substr(s, 1, 1); e = (o == "(") ? ")" : "]"; d = 0
    for (i = 1; i <= length(s); i++) {
        c = substr(s, i, 1)
        if (c == o) d++
        else if (c == e && --d == 0) return substr(s, i + 1)
    }
    return ""
}
function trim(s) { sub(/^[ \t]+/, "", s); sub(/[ \t]+$/, "", s); return s }
function litno(tok) { return (tok ~ /^S[0-9]+$/) ? substr(tok, 2) + 0 : 0 }
# the identifiers of code s, space-separated, each once
function idents(s,    r, w) {
    r = " "
    while (match(s, /[A-Za-z_][A-Za-z0-9_]*/)) {
        w = substr(s, RSTART, RLENGTH)
        if (w !~ /^S[0-9]+$/ && index(r, " " w " ") == 0) r = r w " "
        s = substr(s, RSTART + RLENGTH)
    }
    return r
}
function isuser(w) { return (w in user) }
function isfile(w) { return (w in filev) }
# one data source of plot/stats: the start of one comma-separated part
function source(p,    w, ids, n, k, id) {
    p = trim(p)
    while (p ~ /^for[ \t]*\[/) { sub(/^for[ \t]*/, "", p); p = trim(after_group(p)) }
    if (p ~ /^\$/) return
    if (p ~ /^\(/) {
        ids = idents(substr(p, 1, length(p) - length(after_group(p))))
        n = split(ids, id, " ")
        for (k = 1; k <= n; k++)
            if (!isfile(id[k]) && id[k] != "ne" && id[k] != "eq") bad("data from an expression of " id[k])
        return
    }
    if (match(p, /^S[0-9]+/)) { bad("data from a literal file name \"" lit[litno(substr(p, 1, RLENGTH))] "\""); return }
    if (!match(p, /^[A-Za-z_][A-Za-z0-9_]*/)) return
    w = substr(p, 1, RLENGTH)
    if (trim(substr(p, RLENGTH + 1)) ~ /^\(/ || w == "x") return  # a function of x
    if (isuser(w)) bad("data from the user variable " w)
    else if (!isfile(w) && !(w in arrays) && !((w in assigned) && !(w in nonnum)))
        bad("data from " w ", which is no file variable, array or number")
}
function sources(s,    i, c, d, part) {
    d = 0; part = ""
    for (i = 1; i <= length(s); i++) {
        c = substr(s, i, 1)
        if (c == "(" || c == "[") d++
        else if (c == ")" || c == "]") d--
        if (c == "," && d == 0) { source(part); part = "" } else part = part c
    }
    source(part)
}
function statement(st,    w, rest, n, t, lt, tt, ids, k, id, name) {
    st = trim(st)
    for (;;) {  # if (...), else, do for [...], while (...) before the statement itself
        if (st ~ /^(if|while)[ \t]*\(/) { sub(/^(if|while)[ \t]*/, "", st); st = trim(after_group(st)) }
        else if (st ~ /^else([ \t]|$)/) st = trim(substr(st, 5))
        else if (st ~ /^do[ \t]+for[ \t]*\[/) { sub(/^do[ \t]+for[ \t]*/, "", st); st = trim(after_group(st)) }
        else break
    }
    if (st == "") return
    if (st ~ /^!/) { bad("a shell command (!)"); return }
    match(st, /^[A-Za-z_]+/); w = substr(st, 1, RLENGTH); rest = trim(substr(st, RLENGTH + 1))
    if (w ~ /^(system|eval|call|import|shell|cd|save|history|update|bind|pause|fit|test)$/ && rest !~ /^=[^=]/ && rest !~ /^\(.*\)[ \t]*=[^=]/)
        bad("the command " w)
    if (w == "load") {
        lt = rest; gsub(/[ \t]/, "", lt)
        if (!(lt ~ /^plotdir\.S[0-9]+$/ && lit[litno(substr(lt, 9))] ~ /^[a-z_]+\.gpi$/)) bad("load of " rest)
    }
    if (w == "set" || w == "unset") {
        n = split(rest, t, /[ \t]+/)
        if (t[1] ~ /^(loadpath|fontpath|history|fit)$/) bad("set " t[1])
        if (w == "set" && t[1] == "print" && n > 1 && !(t[2] ~ /^\$/ || (t[2] == "debug" && (n == 2 || t[3] == "append"))))
            bad("set print to " t[2])
        if (w == "set" && t[1] ~ /^out(put)?$/ && n > 1 && !(n == 2 && t[2] == "out")) bad("set output to " t[2])
        if (w == "set" && t[1] == "table" && !(n > 1 && t[2] ~ /^\$/)) bad("set table to " (n > 1 ? t[2] : "a file"))
    }
    if (w == "plot" || w == "splot" || w == "stats" || w == "replot") sources(rest)
    if (match(st, /^[A-Za-z_][A-Za-z0-9_]*[ \t]*=[^=]/)) {  # an assignment
        name = st; sub(/[ \t]*=.*/, "", name)
        rest = st; sub(/^[^=]*=/, "", rest)
        if (isfile(name)) {
            n = split(idents(rest), id, " ")
            for (k = 1; k <= n; k++) if (isuser(id[k])) bad("the file variable " name " is made from the user variable " id[k])
            tt = rest
            while (match(tt, /S[0-9]+/)) {
                if (lit[substr(tt, RSTART + 1, RLENGTH - 1) + 0] ~ /^[<|]/) bad("the file variable " name " holds a command")
                tt = substr(tt, RSTART + RLENGTH)
            }
        }
    }
}
# ---- pass 1 (every file): declarations, arrays, literal macros, exists() ----
FNR == 1 { file = FILENAME; sub(/.*\//, "", file); pass = (file in seen) ? 2 : 1; seen[file] = 1; header = 1; cont = "" }
pass == 1 && header && /^#/ {
    if (match($0, /^# --set [A-Za-z_][A-Za-z0-9_]*=[A-Z]*/)) {
        decl = substr($0, 9, RLENGTH - 8); split(decl, d, "=")
        if (index(" " types " ", " " d[2] " ") == 0) { lineno = FNR; bad("--set " d[1] ": unknown type " d[2]) }
        declared[file, d[1]] = d[2]; ndecl[file] = ndecl[file] " " d[1]
        if (d[2] == "INFILE" || d[2] == "OUTFILE") filev[d[1]] = 1; else user[d[1]] = 1
        if (d[2] == "NUMBER" || d[2] == "INTEGER") numuser[d[1]] = 1
    } else if ($0 ~ /^# --set/) { lineno = FNR; bad("not a declaration: " $0) }
    next
}
{ header = 0 }
pass == 1 {
    s = $0
    while (match(s, /(^|[^A-Za-z0-9_])array[ \t]+[A-Za-z_][A-Za-z0-9_]*/)) { a = substr(s, RSTART, RLENGTH); sub(/.*[ \t]/, "", a); arrays[a] = 1; s = substr(s, RSTART + RLENGTH) }
    s = $0
    while (match(s, /exists\("[A-Za-z_0-9]*"\)/)) { v = substr(s, RSTART + 8, RLENGTH - 10); tested[file, v] = 1; anytest[v] = 1; s = substr(s, RSTART + RLENGTH) }
    if (match($0, /^[ \t]*[A-Za-z_][A-Za-z0-9_]*[ \t]*=[ \t]*\047[^\047]*\047[ \t]*$/)) { m = $0; sub(/^[ \t]*/, "", m); sub(/[ \t]*=.*/, "", m); macrolit[m]++ }
    s = $0  # every assignment NAME = RHS on the line; a NAME is a number if no RHS of it can be text
    while (match(s, /(^|[^A-Za-z0-9_.])[A-Za-z_][A-Za-z0-9_]*[ \t]*=[^=]/)) {
        m = substr(s, RSTART, RLENGTH - 1); sub(/^[^A-Za-z_]/, "", m); sub(/[ \t]*=$/, "", m)
        s = substr(s, RSTART + RLENGTH - 1); r = s; sub(/[;}].*/, "", r)
        assigned[m]++
        if (r ~ /["\047]/ || r ~ /(strcol|stringcolumn|columnhead|sprintf|gprintf|word|substr|strftime|system|value|trim)[ \t]*\(/) nonnum[m] = 1
        else { n = split(idents(r), id, " "); for (k = 1; k <= n; k++) if ((id[k] in user) && !(id[k] in numuser)) nonnum[m] = 1 }
    }
    next
}
# ---- pass 2: the statements ----
pass == 2 {
    if ($0 ~ /\\$/) {  # a continued line: the statement ends on a later line
        if (cont == "") contline = FNR
        cont = cont substr($0, 1, length($0) - 1) " "
        next
    }
    line = cont $0
    lineno = (cont == "") ? FNR : contline
    cont = ""
    if (line ~ /^[ \t]*#/) next
    if (index(line, "`")) bad("a backquote")
    code = strip(line)
    s = code
    while (match(s, /@[A-Za-z_][A-Za-z0-9_]*/)) {
        m = substr(s, RSTART + 1, RLENGTH - 1)
        if (macrolit[m] != 1 || assigned[m] != 1) bad("the macro @" m " (not one literal assigned once)")
        else body[m] = 1
        s = substr(s, RSTART + RLENGTH)
    }
    if (match(code, /(^|[^A-Za-z0-9_])system[ \t]*\(/)) bad("system()")
    gsub(/[{}]/, ";", code)
    n = split(code, sts, ";")
    for (k = 1; k <= n; k++) statement(sts[k])
    # a macro body is code too: check the literal it holds as statements
    if (match(line, /^[ \t]*[A-Za-z_][A-Za-z0-9_]*[ \t]*=[ \t]*\047/)) {
        m = line; sub(/^[ \t]*/, "", m); sub(/[ \t]*=.*/, "", m)
        if (macrolit[m] == 1 && match(code, /S[0-9]+/)) {
            mb = strip(lit[substr(code, RSTART + 1, RLENGTH - 1) + 0]); gsub(/[{}]/, ";", mb)
            n = split(mb, sts, ";")
            for (k = 1; k <= n; k++) statement(sts[k])
        }
    }
}
END {
    for (key in tested) {
        split(key, kv, SUBSEP)
        if (kv[1] ~ /\.gp$/ && !((kv[1], kv[2]) in declared) && kv[2] !~ /^(in|out|fmt|ARG0)$/) {
            print dir "/" kv[1] ": exists(\"" kv[2] "\") tests a variable it does not declare (# --set " kv[2] "=TYPE)"; nbad++
        }
    }
    for (key in declared) {
        split(key, kv, SUBSEP)
        if (!((kv[1], kv[2]) in tested) && !(("common.gpi", kv[2]) in tested)) {
            print dir "/" kv[1] ": declares " kv[2] ", which it never reads (exists(\"" kv[2] "\"))"; nbad++
        }
    }
    if (nbad) print nbad " violation(s)"
    exit (nbad > 100 ? 100 : nbad)
}' dir="$dir" "$@" "$@"
