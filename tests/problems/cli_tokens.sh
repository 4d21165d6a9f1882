#!/bin/sh
# tests/problems/cli_tokens.sh SRLAB: `srlab train --problem gpt --data FILE` with token files as
# llm.c writes them (issue 33, item 4): a header of 256 little-endian int32 (magic 20240520,
# version 1, the token count), then uint16 tokens. Each header field wrong in turn, a file cut
# short (in the header, mid-token, a token short), trailing bytes, a token not below --vocab, a
# single distinct token: exit status 2, one line naming the file and what is wrong. Good files:
# the vocabulary from the largest token (auto) or --vocab up to 65536, and a short training run
# on a token file whose output is the same bytes on 1 and 2 threads.
set -u
. "$(dirname "$0")/../cli_lib.sh"
cli_setup tokens "$1"
usage_tail="-o out.csv"

# le32 V: the four bytes of the int32 V, little endian, as printf escapes
le32() {
    v=$1
    [ "$v" -ge 0 ] || v=$((v + 4294967296))
    printf '\\%03o\\%03o\\%03o\\%03o' $((v & 255)) $((v >> 8 & 255)) $((v >> 16 & 255)) $((v >> 24 & 255))
}
# tokens N V [HI]: N uint16 tokens below V, a fixed pattern with structure (and 0 .. V-1 all
# used when N >= V), as printf escapes; HI: token N-1 is HI instead
tokens() {
    awk -v n="$1" -v v="$2" -v hi="${3:--1}" 'BEGIN {
        for (i = 0; i < n; i++) {
            t = (i < v) ? i : (i * 7 + int(i / 5) * 3) % v
            if (i == n - 1 && hi >= 0) t = hi
            printf "\\%03o\\%03o", t % 256, int(t / 256)
        }
    }'
}
# tokfile FILE MAGIC VERSION COUNT NTOK V [HI]: a header (magic, version, count, 253 zero int32)
# and NTOK tokens below V
tokfile() {
    # shellcheck disable=SC2059 # the escapes are the format
    { printf "$(le32 "$2")$(le32 "$3")$(le32 "$4")"; head -c 1012 /dev/zero; printf "$(tokens "$5" "$6" "${7:-}")"; } >"$1"
}
G="train --problem gpt --steps 2 --n-layer 1 --n-embd 16 --n-head 2 --block-size 16"
tokfile good.bin 20240520 1 3000 3000 700
[ "$(wc -c <good.bin)" -eq 7024 ] && ok "the test's token file: 1024 + 2 x 3000 bytes" || bad "good.bin: $(wc -c <good.bin) bytes"

tokfile magic.bin 20240521 1 3000 3000 700
usage_error "magic wrong" "^srlab train: --data: 'magic.bin' looks binary .*token file as llm.c writes them (its first int32 20240520; this file's is 20240521)" $G --data magic.bin
tokfile version.bin 20240520 2 3000 3000 700
usage_error "version 2" "^srlab train: --data: 'version.bin': token file version 2 (header int32 1); srlab reads version 1" $G --data version.bin
tokfile version0.bin 20240520 0 3000 3000 700
usage_error "version 0" "'version0.bin': token file version 0" $G --data version0.bin
tokfile count0.bin 20240520 1 0 0 700
usage_error "count 0" "^srlab train: --data: 'count0.bin': the token count (header int32 2) is 0; it must be positive" $G --data count0.bin
tokfile countneg.bin 20240520 1 -3000 3000 700
usage_error "count negative" "'countneg.bin': the token count (header int32 2) is -3000" $G --data countneg.bin
tokfile countbig.bin 20240520 1 3001 3000 700
usage_error "count above the tokens" "^srlab train: --data: 'countbig.bin': its header counts 3001 tokens (6002 bytes after the 1024-byte header) but 6000 bytes follow it (truncated)" $G --data countbig.bin
tokfile countsmall.bin 20240520 1 2999 3000 700
usage_error "count below the tokens" "'countsmall.bin': its header counts 2999 tokens .* but 6000 bytes follow it (trailing bytes)" $G --data countsmall.bin
head -c 600 good.bin >header.bin
usage_error "header cut short" "^srlab train: --data: 'header.bin' is a token file (its first int32 is 20240520) cut short: 600 bytes, less than its 1024-byte header" $G --data header.bin
head -c 7023 good.bin >midtoken.bin
usage_error "cut mid-token" "'midtoken.bin': its header counts 3000 tokens (6000 bytes .*) but 5999 bytes follow it (truncated)" $G --data midtoken.bin
tokfile high.bin 20240520 1 3000 3000 700 700
usage_error "token = vocab" "^srlab train: --data: 'high.bin': token 700 at position 2999 is not below vocab = 700" $G --data high.bin --vocab 700
usage_error "token above vocab" "'good.bin': token 500 at position 500 is not below vocab = 500" $G --data good.bin --vocab 500
usage_error "vocab above 65536" "^srlab train: --vocab: 65537 is outside" $G --data good.bin --vocab 65537
tokfile one.bin 20240520 1 3000 3000 1
usage_error "one distinct token" "^srlab train: --data: 'one.bin' holds a single distinct token (0)" $G --data one.bin
tokfile short.bin 20240520 1 20 20 10
usage_error "too short for the block" "'short.bin' is too short: its 20 tokens split into 18 for training and 2 for validation (val-frac 0.1), and each part must hold block-size + 1 = 17 tokens" $G --data short.bin
usage_error "vocab with a text file" "^srlab train: --vocab: applies only to data=markov and token files" $G --data "$SRL_SRCDIR/README.md" --vocab 8

# good files: auto is the largest token + 1; --vocab up to 65536 (the parameter count shows V:
# V C + T C + L (12 C^2 + 4 C) + 2 C with C = 16, T = 16, L = 1)
model() { grep '^# model: ' "$1" | sed 's/^# model: \([0-9]*\) .*/\1/'; }
"$srlab" $G --data good.bin -o a.csv 2>stderr || bad "good token file refused: $(cat stderr)"
[ "$(model a.csv)" = $((700 * 16 + 3424)) ] && ok "vocab auto: 700" || bad "vocab auto: $(model a.csv) parameters"
"$srlab" $G --data good.bin --vocab 65536 -o b.csv 2>stderr || bad "vocab 65536: $(cat stderr)"
[ "$(model b.csv)" = $((65536 * 16 + 3424)) ] && ok "vocab 65536" || bad "vocab 65536: $(model b.csv) parameters"
"$srlab" $G --data high.bin --vocab 701 -o c.csv 2>stderr || bad "vocab 701: $(cat stderr)"
[ "$(model c.csv)" = $((701 * 16 + 3424)) ] && ok "vocab 701 with a token 700" || bad "vocab 701: $(model c.csv) parameters"

# the same bits on 1 and 2 threads: a vocabulary large enough that the head, the loss and the
# products fork (B T V = 8 x 32 x 3000 values)
tokfile big.bin 20240520 1 20000 20000 3000
R="train --problem gpt --data big.bin --steps 3 --log-every 1 --n-layer 1 --n-embd 32 --n-head 2 --block-size 32 --batch-size 8 --eval-windows 2 --strategy bf16-sr --opt adamw --lr 1e-3"
OMP_NUM_THREADS=1 "$srlab" $R -o t1.csv 2>e1 && OMP_NUM_THREADS=2 "$srlab" $R -o t2.csv 2>e2 || bad "threads run failed: $(cat e1 e2)"
rows=$(grep -vc '^#' t1.csv)
if [ "$rows" -ge 4 ] && [ "$(grep -v '^#' t1.csv)" = "$(grep -v '^#' t2.csv)" ]; then
    ok "1 and 2 threads: the same $rows lines"
else
    bad "1 and 2 threads differ ($rows lines): $(diff t1.csv t2.csv | head -5)"
fi
exit $fail
