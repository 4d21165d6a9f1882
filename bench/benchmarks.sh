#!/bin/sh
# bench/benchmarks.sh: BENCHMARKS.md, regenerated on this machine (issue 30, item 4): a table per
# machine of srlab beside memcpy, a streaming copy, and the peers whose checkouts or libraries
# are given; the method; the python binding's section; the tables recorded on other machines
# (bench/recorded/*.md, copied unchanged). The file holds today's numbers only: its history is in
# git.
#
# Usage: bench/benchmarks.sh [--quick] [--cpfloat DIR] [--pcg DIR] [--llmc DIR]
#                            [--openblas LIB] [--machine TEXT] [--sched fifo|other]
#                            [--build DIR] [-o FILE]
#   --cpfloat DIR, --pcg DIR, --llmc DIR, --openblas LIB   as bench/peers.sh takes them (a part
#                  whose peer is not given is left out, and the file says so)
#   --machine TEXT the machine's name in the section's title (default: the CPU's model name and
#                  the number of CPUs)
#   --sched fifo|other  how the timed programs are scheduled (default: fifo where `chrt -f 1` is
#                  permitted, else other): fifo runs each driver under SCHED_FIFO priority 1, so
#                  that its threads run on free CPUs at once, ahead of the machine's other work;
#                  other under the normal policy (bench/args.sh's `timed`; the method says why)
#   --build DIR    srlab's release build (default: build, next to this script's folder)
#   -o FILE        where to write (default: BENCHMARKS.md next to this script's folder); written
#                  to a temporary file and renamed, so a failed run leaves the old file whole
#   --quick        tiny sizes and one repeat (seconds, not minutes): for the test that the script
#                  runs and writes a well-formed file (tests/cli/benchmarks_quick.sh); its numbers
#                  mean nothing
# Each part runs one of the project's own drivers: bench/levels.sh (bulk rounding beside memcpy),
# srlab bench kernels, train and sweep (against in-process references), bench/peers.sh (CPFloat
# with its streaming-copy ceiling, OpenBLAS, llm.c), python/bench_torch.py (when torch and the
# build's python module import). The full run took 7 minutes on 2 idle cores (Zen 5 VM, every
# peer given) with one round of size g; with its three rounds, 14 minutes on the Zen 4 VM.
# Exit status: 2 for a bad argument (the message names it), 1 if a part fails (its message is
# printed, and the old file is kept).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
cpfloat='' pcg='' llmc='' openblas='' machine='' build="$root/build" out="$root/BENCHMARKS.md" quick=0
sched=''
# shellcheck disable=SC2034 # me: read by args.sh
me=benchmarks.sh
# shellcheck source=bench/args.sh
. "$here/args.sh"
while [ $# -gt 0 ]; do
    if [ "$1" = --quick ]; then quick=1; shift; continue; fi
    [ $# -ge 2 ] || bad "'$1' needs a value"
    case "$1" in
    --cpfloat) cpfloat=$2 ;;
    --pcg) pcg=$2 ;;
    --llmc) llmc=$2 ;;
    --openblas) openblas=$2 ;;
    --machine) machine=$2 ;;
    --sched) sched=$2 ;;
    --build) build=$2 ;;
    -o) out=$2 ;;
    *) bad "unknown argument '$1'" ;;
    esac
    shift 2
done
[ -f "$build/src/libsrlab.a" ] && [ -x "$build/src/cli/srlab" ] ||
    bad "--build '$build': no src/libsrlab.a and src/cli/srlab there (run meson compile first)"
build=$(cd "$build" && pwd)
[ -z "$cpfloat" ] || [ -f "$cpfloat/src/cpfloat_binary64.h" ] || bad "--cpfloat '$cpfloat': no src/cpfloat_binary64.h there"
[ -z "$pcg" ] || [ -n "$cpfloat" ] || bad "--pcg '$pcg': only with --cpfloat"
[ -z "$llmc" ] || [ -f "$llmc/train_gpt2.c" ] || bad "--llmc '$llmc': no train_gpt2.c there"
[ -z "$openblas" ] || [ "$openblas" = system ] || [ -f "$openblas" ] || bad "--openblas '$openblas': no such file (give the library, or 'system')"
case "$machine" in *'
'*) bad "--machine: one line" ;; esac
case "$sched" in
'') sched=other; chrt -f 1 true 2>/dev/null && sched=fifo ;;
other) ;;
fifo) chrt -f 1 true 2>/dev/null || bad "--sched fifo: 'chrt -f 1' is not permitted here (it needs CAP_SYS_NICE); give --sched other" ;;
*) bad "--sched '$sched': not fifo or other" ;;
esac
SRL_BENCH_SCHED=$sched
export SRL_BENCH_SCHED
outdir=$(dirname "$out")
[ -d "$outdir" ] && [ -w "$outdir" ] || bad "-o '$out': its folder is not a writable folder"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/srlab-benchmarks.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
started=$(date +%s)
srlab="$build/src/cli/srlab"
py=/usr/bin/python3
[ -x "$py" ] || py=python3

# Sizes: the full run, or --quick's (words split on spaces: lists are passed on their own,
# quoted).
if [ $quick = 1 ]; then
    lv="--n 20000 --reps 1" pe="--n 20000 --reps 1" ob="--blas-reps 1" ob_sizes=64 ob_cores=Haswell
    gp="--gpt-steps 2 --gpt-rounds 1" gp_sizes=a gp_strategies=fp32
    to="--n 4096 --params 1000 --batch 8 --features 16 --reps 2"
else
    lv="--n 10000000 --reps 7" pe="--n 10000000 --reps 7" ob="--blas-reps 7" ob_sizes="512 1024"
    ob_cores="SkylakeX Haswell"
    gp="--gpt-steps 5 --gpt-rounds 2" gp_sizes="b c" gp_strategies="fp32 mp bf16-rn bf16-sr bf16-kahan"
    to="--reps 11"
fi

# ---- the machine ----
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
fam=$(sed -n 's/^cpu family[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
mdl=$(sed -n 's/^model[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
mhz=$(sed -n 's/^cpu MHz[[:space:]]*: \([0-9]*\).*/\1/p' /proc/cpuinfo | head -n 1)
flags=" $(sed -n 's/^flags[[:space:]]*: //p' /proc/cpuinfo | head -n 1) "
has() { case "$flags" in *" $1 "*) return 0 ;; esac; return 1; }
level=x86-64
if has avx2 && has fma && has bmi2 && has movbe; then level=x86-64-v3; fi
if [ $level = x86-64-v3 ] && has avx512f && has avx512bw && has avx512dq && has avx512vl; then level=x86-64-v4; fi
fl=$level
for f in avx512ifma avx512_bf16 avx512_vnni avx512vbmi; do has $f && fl="$fl, $f"; done
ncpu=$(nproc)
[ -n "$machine" ] || machine="$cpu, $ncpu CPUs"
commit=$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)
[ -z "$(git -C "$root" status --porcelain --untracked-files=no 2>/dev/null)" ] || commit="$commit (with uncommitted changes)"
when=$(date -u '+%Y-%m-%d %H:%M UTC')
load0=$(cut -d' ' -f1-3 /proc/loadavg)
# the scheduler's settings that decide where a woken thread runs (the method says why)
kern=''
for k in sched_autogroup_enabled sched_vcpu_pack; do
    [ -r "/proc/sys/kernel/$k" ] && kern="$kern${kern:+, }$k=$(cat "/proc/sys/kernel/$k")"
done
case $sched in fifo) schedtxt='SCHED_FIFO 1 (`chrt -f 1`)' ;; *) schedtxt=normal ;; esac
# the probe of where the kernel runs a woken OpenMP worker, under each policy it may use
"${CC:-cc}" -O2 -std=c11 -fopenmp -o "$tmp/wake_driver" "$here/wake_driver.c" ||
    { echo "benchmarks.sh: building bench/wake_driver.c failed" >&2; exit 1; }
wr=20
[ $quick = 0 ] || wr=3
wake_other=$(OMP_WAIT_POLICY=passive "$tmp/wake_driver" $wr) || wake_other="the probe failed"
wake_fifo="not permitted here"
if chrt -f 1 true 2>/dev/null; then
    wake_fifo=$(OMP_WAIT_POLICY=passive chrt -f 1 "$tmp/wake_driver" $wr) || wake_fifo="the probe failed"
fi
peerset="${cpfloat:+ --cpfloat CPFLOAT}${pcg:+ --pcg PCG-C}${llmc:+ --llmc LLM.C}${openblas:+ --openblas $openblas}"

# md: a driver's output as markdown: its '# ' comment lines become plain lines ending in a hard
# break, a blank line before and after every table.
md() {
    awk '
        /^\|/ { if (!intab) print ""; intab = 1; print; next }
        { if (intab) print ""; intab = 0 }
        /^# / { sub(/^# /, ""); print $0 "  "; next }
        /^$/ { next }
        { print }
        END { if (intab) print "" }'
}
# part md|code TITLE COMMAND...: a subsection holding COMMAND's output, as markdown (md) or as a
# code block; a failure stops the script with COMMAND's messages.
part() {
    kind=$1 title=$2
    shift 2
    [ $# -gt 0 ] || { echo "benchmarks.sh: $title: no command (a broken line?)" >&2; exit 1; }
    if ! "$@" >"$tmp/part" 2>"$tmp/err"; then
        echo "benchmarks.sh: $title: '$*' failed:" >&2
        tail -n 20 "$tmp/err" >&2
        exit 1
    fi
    {
        printf '### %s\n\n' "$title"
        if [ "$kind" = md ]; then md <"$tmp/part" && echo; else printf '```\n%s\n```\n\n' "$(cat "$tmp/part")"; fi
    } >>"$tmp/body"
}
skipped() { printf '### %s\n\nNot measured in this run: %s.\n\n' "$1" "$2" >>"$tmp/body"; }
: >"$tmp/body"
# libgomp's idle threads spin a while before they sleep (its default): under SCHED_FIFO that
# costs only the machine's other work, and a worker that spins needs no waking; under the normal
# policy their spinning would take CPU from the timed threads themselves on a shared machine
[ "$sched" = fifo ] || export OMP_WAIT_POLICY="${OMP_WAIT_POLICY:-passive}"

# ---- the parts ----
# shellcheck disable=SC2086 # the size lists: words on purpose
part md "Bulk rounding beside memcpy, every instruction-set level (\`bench/levels.sh\`)" \
    sh "$here/levels.sh" --build "$build" $lv --threads 1 --dist normal
if [ $quick = 1 ]; then
    skipped "\`srlab bench round\`, \`kernels\`, \`train\`, \`sweep\`" "--quick"
else
    # shellcheck disable=SC2016 # $1: the inner shell's
    part code "Bulk rounding and block quantization against memcpy and bf16 rounding (\`srlab bench round\`)" \
        timed "$srlab" bench round
    part code "Products, training steps and sweeps against in-process references (\`srlab bench kernels\`, \`train\`, \`sweep\`)" \
        timed sh -c '"$1" bench kernels && echo && "$1" bench train && echo && "$1" bench sweep' sh "$srlab"
fi
if [ -n "$cpfloat" ]; then
    # shellcheck disable=SC2086
    part md "Bulk rounding beside CPFloat, memcpy and a streaming copy (\`bench/peers.sh --cpfloat\`)" \
        sh "$here/peers.sh" --build "$build" --cpfloat "$cpfloat" ${pcg:+--pcg "$pcg"} $pe --threads "1 2" --dist normal
else
    skipped "Bulk rounding beside CPFloat and a streaming copy" "no --cpfloat checkout given"
fi
if [ -n "$openblas" ]; then
    # shellcheck disable=SC2086
    part md "binary32 matrix products beside OpenBLAS (\`bench/peers.sh --openblas\`)" \
        sh "$here/peers.sh" --build "$build" --openblas "$openblas" $ob --blas-sizes "$ob_sizes" --blas-cores "$ob_cores" --threads "1 2"
else
    skipped "binary32 matrix products beside OpenBLAS" "no --openblas library given"
fi
if [ -n "$llmc" ]; then
    # shellcheck disable=SC2086
    part md "GPT training beside llm.c (\`bench/peers.sh --llmc\`)" \
        sh "$here/peers.sh" --build "$build" --llmc "$llmc" $gp --gpt-sizes "$gp_sizes" --gpt-strategies "$gp_strategies" --threads "1 2"
    if [ $quick = 1 ]; then
        skipped "GPT-2's shapes beside llm.c, on one token file" "--quick (3 GB and minutes a run)"
    else
        # three rounds of 2 timed steps (one gave a single pair of steps per speedup, too noisy on
        # a shared VM): about 2 minutes a round, most of it llm.c's one-thread steps (19.5 s each)
        part md "GPT-2's shapes beside llm.c, on one token file (\`bench/peers.sh --llmc --gpt-sizes g\`)" \
            sh "$here/peers.sh" --build "$build" --llmc "$llmc" --gpt-sizes g --gpt-steps 3 --gpt-rounds 3 \
            --gpt-strategies "fp32 bf16-sr" --threads "1 2"
    fi
else
    skipped "GPT training beside llm.c" "no --llmc checkout given"
fi

# ---- python/bench_torch.py: the python helper's section (issue 31, item 7) ----
{
    echo "<!-- section of helper \`python\` (issue 31, item 7): made by bench/benchmarks.sh from python/bench_torch.py -->"
    echo "## srlab.torch beside torch's own operations (\`python/bench_torch.py\`)"
    echo
    echo "Each row pairs an srlab.torch call with the torch operation a user would otherwise write for"
    echo "the same job, on the same tensors, timed interleaved in one process; the ratio is srlab.torch /"
    echo "torch (below 1: srlab.torch is faster). One thread, the process's CPU time (steadier than"
    echo "wall time on a shared machine); the minima are the figures to read."
    echo
    # shellcheck disable=SC2086
    if timed env PYTHONPATH="$build/python" "$py" "$root/python/bench_torch.py" --threads 1 --clock cpu $to >"$tmp/torch" 2>"$tmp/err"; then
        echo "    PYTHONPATH=build/python /usr/bin/python3 python/bench_torch.py --threads 1 --clock cpu $to"
        echo
        md <"$tmp/torch"
    else
        echo "Not measured in this run: python/bench_torch.py did not run ($(tail -n 1 "$tmp/err"))."
        echo
    fi
    echo "<!-- end of the section of helper \`python\` -->"
} >"$tmp/python"

# ---- the file ----
took=$(($(date +%s) - started))
{
    cat <<'EOF'
# Benchmarks

Today's numbers, made by one script on the machine each section names:

    bench/benchmarks.sh [--cpfloat DIR --pcg DIR] [--llmc DIR] [--openblas LIB]

A claim holds on the machine its table names. Tests never assert speed. Older figures, and how
they were reached, are in the history of this file (`git log -p BENCHMARKS.md`).

## Method

- **Ratios in one process.** Every figure is read beside a reference timed in the same process
  and the same run (memcpy of the same bytes, a copy with streaming stores, CPFloat, llm.c's
  CPU trainer, OpenBLAS's sgemm, a plain float loop, torch's own operation). Contenders run in
  turn within each repeat, so a change of load hits all alike; the tables give medians. A ratio
  is the median of the ratios within each repeat (bulk rounding, block quantization, matrix
  products), not a ratio of two medians: on the shared VMs below the memory bandwidth left to a
  process moved by a factor 2 from one minute to the next, and only runs made moments apart see
  the same machine. Ratios carry over between machines better than rates, and on a shared
  machine better than either.
- **Clocks.** One thread: the process's (or the calling thread's) CPU time, so that other
  processes on a loaded machine count less. More threads: wall-clock time (CPU time would add
  the cores). GPT steps: both, per step, the first step of every run a warm-up.
- **Build.** srlab's default release build (`-O3 -std=c11 -ffp-contract=off`, no
  `-march=native`, no fast-math; the hot loops pick their AVX2 or AVX-512 copy at run time).
  The peers are built as their projects build them (CPFloat `-O3 -march=native -fopenmp`;
  llm.c's `train_gpt2` with the flags its Makefile gives on the machine, `-Ofast
  -march=native` among them), compiled in a temporary folder outside the repository and never
  linked into srlab. OpenBLAS is Debian's `libopenblas-dev` (0.3.21), loaded with `dlopen` by the
  driver, one run per kernel it is told to use (`OPENBLAS_CORETYPE`: on AMD Zen it picks an AVX2
  kernel by default, `SkylakeX` its AVX-512 one).
- **Bulk rounding** (`bench/levels.sh`, `bench/peers.sh --cpfloat`): 10^7 standard normal
  values, binary64 and binary32 in and out, every case at every instruction-set level the CPU
  has; "same" says the outputs are byte-identical (every level; srlab and CPFloat in the
  deterministic modes). The streaming copy moves the same bytes with non-temporal stores: for
  arrays beyond the caches it is about the fastest any elementwise pass can go, so "ceiling"
  (streaming copy / CPFloat) is the most any rounding kernel could gain on CPFloat there.
  Before each contender the arrays (16 MiB or more) are flushed from the caches, untimed, so
  that every one starts from memory: without it the streaming copy, run after memcpy, found
  the input's last lines still cached.
- **Matrix products** (`bench/peers.sh --openblas`): n x n x n binary32 products,
  srlab's `prod=fp32:rn,acc=fp32:rn` (each output summed in a fixed order, the same bits on
  every thread count and instruction set) against `cblas_sgemm`; each call after a 0.2 s pause
  so that the previous call's threads have stopped spinning, then once more at once ("back to
  back": threads spinning, operands in the caches; the last two columns are those speedups).
- **GPT training** (`bench/peers.sh --llmc`): the same model sizes in llm.c's `train_gpt2.c` and
  in `srlab train --problem gpt`, AdamW (lr 1e-3, weight decay 0.1); sizes a = 2 layers, width
  64, 2 heads, context 32, batch 16; b = 3, 96, 4, 64, 8; c = 4, 256, 4, 128, 8 (vocabulary 16,
  random tokens for llm.c, the Markov source for srlab); g = GPT-2's shapes at two layers (2,
  768, 12 heads, context 256, batch 4, vocabulary 50257), both reading one token file in llm.c's
  format that the script writes (2^20 tokens; llm.c pads the vocabulary to 50304, as GPT-2's
  checkpoints do, which its tiled matrix product needs). Within a round the contenders run one after another, each contender's thread counts back to
  back; the speedup over one thread is paired by round.
- **In-process references** (`srlab bench round|kernels|train|sweep`): memcpy of the same
  bytes, bf16 rounding of the same array in the same mode (for the block-scaled formats), a
  plain float triple loop, a plain float AdamW loop, the same GPT written with plain loops, the
  sweep on one thread. Nothing is flushed between runs: where the last-level cache holds
  `bench round`'s 10^7-value arrays (the Xeon's 480 MiB) its ratios are of the work in the
  caches, where it does not (the Zen 4 VM's) of memory traffic.
- **Python** (`python/bench_torch.py`): srlab.torch beside the torch call a user would write.
- **Scheduling.** The timed programs run under `SCHED_FIFO` priority 1 where the script may
  use it (`--sched`; each table says which): the kernel then runs each of their threads on a
  free CPU at once and the machine's other work waits. Under the normal policy the kernel of
  the 2-vCPU Zen 5 VM below (its `kernel.sched_vcpu_pack`, a setting of that kernel's own)
  wakes a sleeping thread on the vCPU of the thread that woke it, so that two OpenMP threads
  take turns on one vCPU and a two-thread product takes as long as one thread's: each section
  prints the probe that shows it (`bench/wake_driver.c`: how many two-thread regions started
  on one CPU, and their time against the work of one thread). The one-thread figures do not
  depend on the policy.
- **Load.** Every section gives the load average when it started; the drivers print it before
  each part. Under SCHED_FIFO OpenMP keeps libgomp's default wait policy (an idle thread spins
  a while before it sleeps, as users' runs do); under the normal policy the script sets
  `OMP_WAIT_POLICY=passive` unless it is set (spinning threads would otherwise take the timed
  threads' CPU on a shared machine). Each table's header says which policy was in force.
- **Regenerating.** Run the script on the final code; it rewrites this file whole (7 minutes
  with every peer on the idle 2-core Zen 5 VM, 14 on the Zen 4 VM with size g's three rounds;
  each section's header says how long its run took). `--quick` runs every part on tiny sizes for the test
  (tests/cli/benchmarks_quick.sh), whose numbers mean nothing. A machine's tables that should
  stay once it is gone are copied into `bench/recorded/` and included below as recorded.
EOF
    echo
    echo "## $machine ($when)"
    echo
    echo "| commit | CPU | flags | date | threads | load average at start | run took | scheduling | kernel |"
    echo "|---|---|---|---|---|---|---|---|---|"
    echo "| $commit | $cpu, family $fam model $mdl, ${mhz:-?} MHz | $fl | $when | $ncpu | $load0 | $((took / 60)) min $((took % 60)) s | $schedtxt | ${kern:-$(uname -r)} |"
    echo
    q=''
    [ $quick = 0 ] || q=' --quick'
    echo "Made by \`bench/benchmarks.sh$peerset$q\`; $(cc --version 2>/dev/null | head -n 1)."
    echo
    echo "Where the kernel runs a woken thread (\`bench/wake_driver.c\`, $wr regions of two threads after a 0.2 s pause each, \`OMP_WAIT_POLICY=passive\`): normal policy: $wake_other; SCHED_FIFO: $wake_fifo."
    echo
    cat "$tmp/body"
    cat "$tmp/python"
    for r in "$here"/recorded/*.md; do
        [ -f "$r" ] || continue
        echo
        cat "$r"
    done
} >"$tmp/out.md"
# The file, atomically: a temporary file in the target's folder, renamed over it.
new=$(mktemp "$outdir/.benchmarks.XXXXXX")
cat -s "$tmp/out.md" >"$new" && chmod 644 "$new" && mv -f "$new" "$out" || { rm -f "$new"; echo "benchmarks.sh: cannot write '$out'" >&2; exit 1; }
echo "benchmarks.sh: wrote $out ($(wc -l <"$out") lines) in $((took / 60)) min $((took % 60)) s" >&2
