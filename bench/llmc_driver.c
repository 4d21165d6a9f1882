/* bench/llmc_driver.c: llm.c's CPU trainer (train_gpt2.c: fp32 forward, backward, AdamW) timed
 * per step on a GPT of a given size, for bench/peers.sh (issue 16). Not part of srlab.
 *
 * peers.sh compiles this file with the flags llm.c's Makefile gives train_gpt2 on this machine
 * and with -I on the user's llm.c checkout and -Dmain=llmc_upstream_main: the #include below
 * brings in the user's train_gpt2.c unchanged, its main renamed out of the way (#undef'd before
 * ours). train_gpt2.c loads a model only from a checkpoint file, so this driver first writes
 * one in llm.c's format (a header of 256 int32: magic 20240326, version 3, max_seq_len, vocab,
 * layers, heads, channels, padded vocab; then the 16 parameter tensors in float32, in the
 * order and sizes of train_gpt2.c's own fill_in_parameter_sizes) at the path --ckpt names,
 * initialised as GPT-2 is: matrices N(0, 0.02^2), the residual projections N(0, (0.02 /
 * sqrt(2 L))^2), position embeddings N(0, 0.01^2), layer-norm gains 1, every bias 0. The
 * vocabulary is padded to itself (no padding), as srlab has none. Each step trains on a fresh
 * micro-batch of B rows of T+1 tokens drawn uniformly from the vocabulary, with lr 1e-3,
 * betas 0.9 / 0.999, eps 1e-8 and weight decay 0.1 (srlab bench train's AdamW).
 * With --data FILE (a token file, as llm.c's data scripts write them) the micro-batches are
 * llm.c's own DataLoader's, read from that file in order, and the vocabulary is padded to a
 * multiple of 128 as in GPT-2's checkpoints (50257 -> 50304: llm.c's tiled matrix product
 * needs the output width a multiple of its unrolling).
 * Usage: llmc_driver --layers L --width C --heads H --context T --batch B --vocab V --steps S
 *                    --ckpt FILE [--data FILE] */
#include "train_gpt2.c"
#undef main

#include <math.h>
#include <stdint.h>

#include "gpt_steps.h"

/* splitmix64: the driver's own draws (weights and tokens). */
static uint64_t mix_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* A standard normal draw (Box-Muller on two 53-bit uniforms in (0, 1]). */
static double mix_normal(uint64_t *s)
{
    const double u = ((double)(mix_next(s) >> 11) + 1.0) * 0x1p-53;
    const double v = (double)(mix_next(s) >> 11) * 0x1p-53;
    return sqrt(-2.0 * log(u)) * cos(6.283185307179586 * v);
}

/* Write the checkpoint; 0 on success. */
static int write_checkpoint(const char *path, const gpt_size *g)
{
    const int padded = g->data ? (int)((g->vocab + 127) / 128 * 128) : (int)g->vocab;
    GPT2Config cfg = {(int)g->context, (int)g->vocab, padded, (int)g->layers,
                      (int)g->heads,   (int)g->width};
    size_t sizes[NUM_PARAMETER_TENSORS];
    fill_in_parameter_sizes(sizes, cfg);
    int header[256] = {20240326, 3, cfg.max_seq_len, cfg.vocab_size, cfg.num_layers,
                       cfg.num_heads, cfg.channels, cfg.padded_vocab_size};
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    int bad = fwrite(header, sizeof header, 1, f) != 1;
    const double proj = 0.02 / sqrt(2.0 * (double)g->layers);
    uint64_t s = 1;
    for (int j = 0; j < NUM_PARAMETER_TENSORS && !bad; j++) {
        /* tensors 0 wte, 1 wpe, 4 qkvw, 6 attprojw, 10 fcw, 12 fcprojw are matrices; the
         * layer-norm gains are 2, 8, 14; every other tensor is a bias */
        const double sd = j == 0 || j == 4 || j == 10 ? 0.02 : j == 1 ? 0.01
                          : j == 6 || j == 12         ? proj : 0.0;
        const float fill = j == 2 || j == 8 || j == 14 ? 1.0f : 0.0f;
        for (size_t i = 0; i < sizes[j] && !bad; i++) {
            const float x = sd > 0 ? (float)(sd * mix_normal(&s)) : fill;
            bad = fwrite(&x, sizeof x, 1, f) != 1;
        }
    }
    return fclose(f) || bad ? -1 : 0;
}

int main(int argc, char **argv)
{
    const gpt_size g = gpt_size_parse(argc, argv, "--ckpt");
    if (write_checkpoint(g.extra, &g)) {
        fprintf(stderr, "%s: --ckpt '%s': cannot write the checkpoint\n", argv[0], g.extra);
        return 3;
    }
    GPT2 model;
    gpt2_build_from_checkpoint(&model, g.extra);
    const size_t B = (size_t)g.batch, T = (size_t)g.context;
    int *tok = malloc((B * T + 1) * sizeof *tok);
    if (!tok)
        return 3;
    uint64_t s = 2;
    DataLoader dl;
    if (g.data)
        dataloader_init(&dl, g.data, B, T, 0, 1, 0);
    step_clock k;
    step_clock_start(&k);
    for (long t = 1; t <= g.steps; t++) {
        if (g.data) {
            dataloader_next_batch(&dl);
            gpt2_forward(&model, dl.inputs, dl.targets, B, T);
        } else {
            for (size_t i = 0; i < B * T + 1; i++)
                tok[i] = (int)(mix_next(&s) % (uint64_t)g.vocab);
            gpt2_forward(&model, tok, tok + 1, B, T);
        }
        gpt2_zero_grad(&model);
        gpt2_backward(&model);
        gpt2_update(&model, 1e-3f, 0.9f, 0.999f, 1e-8f, 0.1f, (int)t);
        step_clock_lap(&k, t);
    }
    printf("loss %.6f params %zu\n", model.mean_loss, model.num_parameters);
    if (g.data)
        dataloader_free(&dl);
    gpt2_free(&model);
    free(tok);
    return 0;
}
