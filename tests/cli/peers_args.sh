#!/bin/sh
# tests/cli/peers_args.sh PEERS_SH BUILD_DIR: bench/peers.sh checks every argument before it
# builds or runs anything (issue 16, item 2). A missing peer checkout, a bad value, an unknown
# option or an option without its value exits with status 2 and a message on standard error
# naming the argument, prints nothing on standard output and leaves no temporary directory.
# Needs no peer: the checkouts are fakes holding the files the script looks for.
. "$(dirname "$0")/../cli_lib.sh"
cli_setup peers-args "$1"
peers=$srlab
build=$2
mkdir fakellmc fakecpf fakecpf/src && touch fakellmc/train_gpt2.c fakellmc/Makefile fakecpf/src/cpfloat_binary64.h
export TMPDIR="$tmp/t"
mkdir "$TMPDIR"

# refused NAME PATTERN ARGS...: exit 2, PATTERN on standard error, standard output empty, no
# srlab-peers.* directory made
refused() { script_refuses "$peers" "$@"; }
L="--llmc fakellmc --build $build"
refused "no peer" "--cpfloat DIR, --llmc DIR" --build "$build"
refused "missing llm.c" "--llmc 'nosuchdir'" --llmc nosuchdir --build "$build"
refused "llm.c without train_gpt2.c" "--llmc 'fakecpf'" --llmc fakecpf --build "$build"
refused "missing CPFloat" "--cpfloat 'nosuchdir'" --cpfloat nosuchdir $L
refused "pcg without CPFloat" "--pcg 'fakecpf': only with --cpfloat" --pcg fakecpf $L
refused "missing pcg-c" "--pcg 'nosuchdir'" --cpfloat fakecpf --pcg nosuchdir $L
refused "missing build" "--build 'nosuchdir'" --llmc fakellmc --build nosuchdir
refused "unknown option" "unknown argument '--steps'" --steps 3 $L
refused "option without value" "'--gpt-steps' needs a value" $L --gpt-steps
refused "steps not a number" "--gpt-steps 'x'" $L --gpt-steps x
refused "steps below 2" "--gpt-steps '1': must be at least 2" $L --gpt-steps 1
refused "rounds zero" "--gpt-rounds '0'" $L --gpt-rounds 0
refused "rounds negative" "--gpt-rounds '-1'" $L --gpt-rounds -1
refused "rounds too large" "--gpt-rounds '10000000000'" $L --gpt-rounds 10000000000
refused "n with a suffix" "--n '10M'" $L --n 10M
refused "reps zero" "--reps '0'" $L --reps 0
refused "threads zero" "--threads '0'" $L --threads "1 0"
refused "threads empty" "--threads: empty list" $L --threads " "
refused "size d" "--gpt-sizes: 'd' is not one of" $L --gpt-sizes "a d"
refused "strategy custom" "--gpt-strategies: 'custom' is not one of" $L --gpt-strategies "fp32 custom"
refused "strategies empty" "--gpt-strategies: empty list" $L --gpt-strategies ""
refused "distribution" "--dist: 'gauss' is not one of" --cpfloat fakecpf --build "$build" --dist gauss
SRL_BENCH_SCHED=rr refused "scheduling" "SRL_BENCH_SCHED 'rr': not fifo or other" $L
refused "isa v5" "--isa: 'v5' is not one of" --cpfloat fakecpf --build "$build" --isa v5
refused "isa without CPFloat" "--isa 'v3': only with --cpfloat" $L --isa v3
refused "alternate not a number" "--gpt-alternate 'x'" $L --gpt-alternate x
refused "alternate without llm.c" "--gpt-alternate '2': only with --llmc" --cpfloat fakecpf --build "$build" --gpt-alternate 2
# the same fakes with good values get past the checks: the script then needs a real peer
sh "$peers" $L --gpt-sizes a --gpt-steps 2 --gpt-rounds 1 --threads 1 --gpt-strategies fp32 --gpt-alternate 1 >stdout 2>stderr
rc=$?
if [ $rc -eq 2 ]; then bad "good arguments refused: $(cat stderr)"
elif [ $rc -eq 0 ]; then bad "an empty llm.c checkout passed"
elif [ -n "$(ls -A "$TMPDIR")" ]; then bad "good arguments: left $(ls -A "$TMPDIR")"
else ok "good arguments accepted (exit $rc at the fake checkout's build)"; fi
exit $fail
