#!/bin/sh
# tests/train/cli_mx.sh SRLAB: block-scaled GEMMs in MLP and GPT training (keys mx, mx-fprop,
# mx-dgrad, mx-wgrad; srlab/strategy.h, src/problems/mlp_tpl.h, gpt_tpl.h: the GPT's linear
# layers qkv, proj, fc, fcproj) from the outside (suite cli).
#   Exactness: with weights, activations and gradients stored with 4 significant bits and an
#   mxfp8 GEMM of blocks of 1 with the ceil rule (every such value is exact in it; the products
#   and the binary32 accumulation those of --accum prod=fp64:rn,acc=fp32:rn), each GEMM switched
#   on alone, and all three, give the kernels' run bit for bit: a GEMM whose operands or layout
#   were wrong would differ.
#   A quick fp4-sr-rht run: the same bytes at 1 and 3 threads, and not the run without it.
#   Bad input: exit 2, one line naming the key.
set -u
. "$(dirname "$0")/../cli_lib.sh"
cli_setup train_mx "$1"
usage_tail="-o out.csv"

F="p=4,emax=15"
E="train --problem mlp --task teacher --depth 2 --width 32 --steps 20 --log-every 10 --lr 0.01
   --param-format $F --act-format $F --grad-format $F --accum prod=fp64:rn,acc=fp32:rn"
X="fmt=mxfp8,block=1,scale=ceil"
# the data rows from the seed on (the columns before hold the keys given)
rows() {
    grep -v '^#' "$1" | awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "seed") n = NF - i + 1; next }
        { s = $(NF - n + 1); for (i = NF - n + 2; i <= NF; i++) s = s "," $i; print s }'
}
G="train --problem gpt --n-layer 1 --n-embd 16 --n-head 2 --block-size 8 --steps 6 --log-every 3
   --lr 0.01 --param-format $F --act-format $F --grad-format $F --accum prod=fp64:rn,acc=fp32:rn"
for p in mlp gpt; do
    [ $p = mlp ] && run="$E" || run="$G"
    "$srlab" $run -o base.csv 2>stderr || bad "exact $p: the run without mx failed: $(cat stderr)"
    for k in mx mx-fprop mx-dgrad mx-wgrad; do
        "$srlab" $run --$k "$X" -o $k.csv 2>stderr || { bad "exact $p: --$k: $(cat stderr)"; continue; }
        rows base.csv >a.rows
        rows $k.csv >b.rows
        [ -s a.rows ] && cmp -s a.rows b.rows && ok "exact $p: --$k $X equals the kernels" ||
            bad "exact $p: --$k $X differs from the kernels: $(diff a.rows b.rows | head -3)"
    done
done

Q="train --problem mlp --task teacher --depth 2 --width 32 --steps 20 --log-every 10 --lr 0.01
   --strategy mp"
OMP_NUM_THREADS=1 "$srlab" $Q --mx fp4-sr-rht -o t1.csv 2>stderr || bad "fp4-sr-rht: $(cat stderr)"
OMP_NUM_THREADS=3 "$srlab" $Q --mx fp4-sr-rht -o t3.csv 2>stderr || bad "fp4-sr-rht: $(cat stderr)"
grep -v "^# command" t1.csv >t1.x; grep -v "^# command" t3.csv >t3.x
cmp -s t1.x t3.x && ok "fp4-sr-rht: 1 and 3 threads agree" || bad "fp4-sr-rht: threads differ"
"$srlab" $Q -o t0.csv 2>/dev/null
[ "$(rows t0.csv | tail -n 1)" != "$(rows t1.csv | tail -n 1)" ] &&
    ok "fp4-sr-rht: not the run without it" || bad "fp4-sr-rht: the same as without mx"
grep -q '^# strategy: mp' t1.csv && ok "fp4-sr-rht: strategy line" || bad "fp4-sr-rht: strategy line"
# the GPT: fp4-sr-rht thread-invariant, and each recipe changes the run
Q="train --problem gpt --n-layer 1 --n-embd 32 --n-head 2 --block-size 16 --steps 4 --log-every 2
   --strategy mp"
OMP_NUM_THREADS=1 "$srlab" $Q --mx fp4-sr-rht -o g1.csv 2>stderr || bad "gpt fp4-sr-rht: $(cat stderr)"
OMP_NUM_THREADS=3 "$srlab" $Q --mx fp4-sr-rht -o g3.csv 2>stderr || bad "gpt fp4-sr-rht: $(cat stderr)"
grep -v "^# command" g1.csv >g1.x; grep -v "^# command" g3.csv >g3.x
cmp -s g1.x g3.x && ok "gpt fp4-sr-rht: 1 and 3 threads agree" || bad "gpt fp4-sr-rht: threads differ"
"$srlab" $Q -o g0.csv 2>/dev/null
last0=$(rows g0.csv | tail -n 1)
for r in fp4-fprop fp4-dgrad fp4-wgrad fp4-had; do
    "$srlab" $Q --mx $r -o g.csv 2>stderr || bad "gpt --mx $r: $(cat stderr)"
    [ "$(rows g.csv | tail -n 1)" != "$last0" ] && ok "gpt --mx $r: not the run without it" ||
        bad "gpt --mx $r: the same as without mx"
done

M="train --problem mlp --steps 2"
usage_error "unknown recipe" "^srlab train: --mx: 'fp5' is not off, a recipe" $M --mx fp5
usage_error "bad spec" "^srlab train: --mx-wgrad: " $M --mx-wgrad fmt=mxfp9
usage_error "bad rotation block" "^srlab train: --mx-dgrad: " $M --mx-dgrad rot=rht,rot-block=3
exit $fail
