#!/bin/sh
# tests/problems/cli_models.sh SRLAB: `srlab train --problem gpt|mlp` from the outside (suite cli).
#   Bad input: exit status 2, exactly one line on standard error naming the argument, standard
#   output empty, an existing -o FILE untouched. A data file that is missing, empty, binary or
#   too short for the block size; n-embd not divisible by n-head; zero replicas; a model too
#   large for the memory limit (refused at once, before allocating: the command must finish
#   quickly); keys that do not apply. Good runs: a text file at character level (the README's
#   example), the Markov source's columns, the MLP's two tasks, replicas.
set -u
. "$(dirname "$0")/../cli_lib.sh"
cli_setup models "$1"
usage_tail="-o out.csv"

G="train --problem gpt --steps 2 --n-layer 1 --n-embd 16"
: >empty.txt
printf 'some text\000with a NUL\n' >binary.txt
printf 'abcdefghij\n' >short.txt
head -c 20000 /dev/urandom >random.bin
i=0
while [ $i -lt 300 ]; do echo "the quick brown fox jumps over the lazy dog $i"; i=$((i + 1)); done >text.txt
usage_error "missing data file" "^srlab train: --data: cannot read 'nonexistent.txt': No such file" $G --data nonexistent.txt
usage_error "empty data file" "^srlab train: --data: 'empty.txt' is empty" $G --data empty.txt
usage_error "binary data file (NUL)" "^srlab train: --data: 'binary.txt' looks binary" $G --data binary.txt
usage_error "binary data file (random)" "looks binary" $G --data random.bin
usage_error "directory as data" "^srlab train: --data: .* is not a regular file" $G --data .
usage_error "file shorter than the block" "too short.*block-size + 1 = 33" $G --data short.txt --block-size 32
usage_error "markov too short" "^srlab train: --data-tokens: 40 symbols" $G --data-tokens 40 --block-size 32
usage_error "n-embd not divisible" "^srlab train: --n-embd: 30 is not divisible by n-head = 4" train --problem gpt --n-embd 30 --n-head 4
usage_error "zero replicas" "^srlab train: --replicas: 0 replicas" $G --replicas 0
usage_error "bad sr-seed" "^srlab train: --sr-seed: unknown value 'both'" $G --sr-seed both
usage_error "vocab with a file" "^srlab train: --vocab: applies only to data=markov" $G --data text.txt --vocab 8
usage_error "vocab 1" "^srlab train: --vocab: 1 is outside" $G --vocab 1
usage_error "val-frac 1" "^srlab train: --val-frac: 1 is outside (0, 1)" $G --val-frac 1
usage_error "bad mem-limit" "^srlab train: --mem-limit: '12X' is not a positive size" $G --mem-limit 12X
usage_error "mlp mixture of one class" "^srlab train: --out-dim: a mixture needs at least 2" train --problem mlp --task mixture --out-dim 1
usage_error "mlp activation" "^srlab train: --activation: unknown value 'sigmoid'" train --problem mlp --activation sigmoid
usage_error "mlp zero replicas" "^srlab train: --replicas: 0 replicas" train --problem mlp --replicas 0
usage_error "act-format fp64" "^srlab train: --act-format: fp64 is not a subset of binary32" $G --act-format fp64
usage_error "accum into fp64" "^srlab train: --accum: fp64 is not a subset of binary32" train --problem mlp --accum prod=fp32:rn,acc=fp64:rn
usage_error "mlp too deep" "^srlab train: --depth: 16 is outside" train --problem mlp --depth 16

# a model that cannot fit: refused before allocating anything, so at once
start=$(date +%s)
usage_error "model too large" "^srlab train: the model needs about .* more than the limit" \
    train --problem gpt --n-layer 1000 --n-embd 100000 --n-head 1 --block-size 1024 --batch-size 64
usage_error "model above mem-limit" "^srlab train: the model needs about .*(mem-limit=1M)" $G --mem-limit 1M
usage_error "mlp above mem-limit" "^srlab train: the model needs about .*(mem-limit=64K)" train --problem mlp --mem-limit 64K
end=$(date +%s)
[ $((end - start)) -le 5 ] && ok "refusals are immediate" || bad "refusals took $((end - start)) s"

# good runs
if "$srlab" $G --data text.txt --block-size 16 --log-every 1 -o txt.csv 2>stderr; then
    hdr=$(grep -v '^#' txt.csv | head -1)
    case $hdr in
    *step,lr_used,loss,loss_gap,dist_to_opt,grad_norm,lost_update_frac,status,val_loss,fstar,replica_div,replica_diff_frac,replica_d2,replica_d2_pred) ok "text file: columns" ;;
    *) bad "text file: header $hdr" ;;
    esac
    rows=$(grep -v '^#' txt.csv | tail -n +2 | wc -l)
    [ "$rows" -eq 3 ] && ok "text file: 3 rows" || bad "text file: $rows rows"
    grep -v '^#' txt.csv | tail -1 | grep -q ',nan,0,0,0,0$' && ok "text file: fstar nan" || bad "text file: last row $(tail -1 txt.csv)"
else
    bad "text file run failed: $(cat stderr)"
fi
if [ -r /usr/share/common-licenses/GPL-3 ]; then
    "$srlab" $G --data /usr/share/common-licenses/GPL-3 -o gpl.csv 2>stderr && ok "GPL-3 text" || bad "GPL-3: $(cat stderr)"
fi
if "$srlab" train --problem gpt --n-layer 1 --n-embd 16 --replicas 2 --sr-seed independent --strategy bf16-sr --opt adamw --steps 3 --log-every 1 -o rep.csv 2>stderr; then
    last=$(grep -v '^#' rep.csv | tail -1)
    div=$(echo "$last" | awk -F, '{print $(NF-3)}')
    awk "BEGIN{exit !($div > 0)}" && ok "independent replicas drift" || bad "replica_div $div in $last"
else
    bad "replicas run failed: $(cat stderr)"
fi
for task in teacher mixture; do
    "$srlab" train --problem mlp --task $task --steps 3 -o mlp.csv 2>stderr && ok "mlp $task" || bad "mlp $task: $(cat stderr)"
done
"$srlab" train --problem mixture --help >/dev/null 2>&1 && bad "help of an unknown problem" || ok "unknown problem"
"$srlab" train --problem gpt --help >help.txt 2>&1 && grep -q -- "--n-embd" help.txt && grep -q -- "--sr-seed" help.txt && ok "gpt help" || bad "gpt help"
# The '# model:' line counts what was built. GPT: V C + T C + L (12 C^2 + 4 C) + 2 C (token and
# position embeddings, per block qkv 3C^2 + projection C^2 + MLP 8C^2 and two layer norms 4C, the
# final layer norm; no biases): V 16, T 32, C 64, L 2 give 1024 + 2048 + 2 * 49408 + 128 = 102016
# in 12 tensors (wte, wpe, the block's ln1 w/b, qkv, attention projection, ln2 w/b, fc, fc
# projection, each stacked over the L layers, and the final ln w/b). MLP 16-64-64-4 with biases: 16*64+64 + 64*64+64 + 64*4+4 = 5508
# in 6 tensors.
"$srlab" train --problem gpt --steps 0 --n-layer 2 --n-embd 64 --n-head 4 --block-size 32 \
    --vocab 16 --seeds 2 >gpt.csv 2>err.txt
n=$(grep -c '^# model:' gpt.csv)
grep -q '^# model: 102016 trainable parameters in 12 tensors, 1 replica$' gpt.csv && [ "$n" -eq 1 ] &&
    ok "gpt: # model line (102016 parameters, once for 2 seeds)" || bad "gpt: # model line: $(grep '^# model' gpt.csv)"
"$srlab" train --problem mlp --steps 0 --replicas 2 >mlp.csv 2>err.txt
grep -q '^# model: 5508 trainable parameters in 6 tensors, 2 replicas$' mlp.csv &&
    ok "mlp: # model line (5508 parameters)" || bad "mlp: # model line: $(grep '^# model' mlp.csv)"
exit $fail
