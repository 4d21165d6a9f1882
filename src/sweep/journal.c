/* src/sweep/journal.c: the journal (include/srlab/sweep.h, "Journal"; its format is in
 * src/sweep/sweep_impl.h): writing its header and records, reading it back with every torn or
 * damaged tail detected, deciding whether it belongs to a sweep, and the rows and runs files
 * it holds, assembled in run order whatever the order the runs finished in. */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "srlab/rng.h"
#include "sweep/sweep_impl.h"

#define JOURNAL_MAGIC "srlab-sweep-journal 1\n"

/* The checksum of a record: FNV-1a over its run number in decimal, its rows, its summary. */
static uint64_t record_hash(size_t run, const char *rows, size_t rl, const char *sum, size_t sl)
{
    char buf[32];
    int k = snprintf(buf, sizeof buf, "%zu", run);
    uint64_t h = srl_fnv1a64(buf, (size_t)k, SRL_FNV1A64_BASIS);
    h = srl_fnv1a64(rows, rl, h);
    return srl_fnv1a64(sum, sl, h);
}

/* ---- writing ---- */

int srl_sweep_journal_start(const srl_sweep *s, const char *preamble, char **out, size_t *len)
{
    *out = NULL;
    *len = 0;
    if (!s->prepared)
        return SRL_EINVAL;
    srl__sw_text b = {0};
    srl__sw_puts(&b, JOURNAL_MAGIC);
    srl__sw_puts(&b, preamble);
    srl__sw_printf(&b, "%s\n%s\n@begin\n", s->rows_header, s->runs_header);
    *out = srl__sw_take(&b);
    *len = *out ? strlen(*out) : 0;
    return *out ? SRL_OK : SRL_ENOMEM;
}

int srl_sweep_journal_entry(const srl_sweep_record *rec, char **out, size_t *len)
{
    srl__sw_text b = {0};
    uint64_t h = record_hash(rec->run, rec->rows, rec->rows_len, rec->summary, rec->summary_len);
    srl__sw_printf(&b, "@run %zu rows %zu summary %zu fnv %016" PRIx64 "\n", rec->run,
                   rec->rows_len, rec->summary_len, h);
    srl__sw_put(&b, rec->rows, rec->rows_len);
    srl__sw_put(&b, rec->summary, rec->summary_len);
    *out = srl__sw_take(&b);
    *len = b.len;
    return *out ? SRL_OK : SRL_ENOMEM;
}

/* ---- reading ---- */

void srl__sw_journal_clear(srl_sweep_journal *j)
{
    if (!j)
        return;
    free(j->preamble);
    free(j->rows_header);
    free(j->runs_header);
    free(j->entries);
    free(j->by_run);
    free(j->damage);
    memset(j, 0, sizeof *j);
}

/* "@run R rows A summary B fnv H", exactly as srl_sweep_journal_entry writes it. */
static bool parse_record_line(const char *l, size_t n, size_t *run, size_t *ra, size_t *sa,
                              uint64_t *h)
{
    char buf[160];
    if (n >= sizeof buf)
        return false;
    memcpy(buf, l, n);
    buf[n] = 0;
    char hex[17];
    unsigned long long r, a, b;
    int used = 0;
    if (sscanf(buf, "@run %llu rows %llu summary %llu fnv %16[0-9a-f]%n", &r, &a, &b, hex,
               &used) != 4 || (size_t)used != n || strlen(hex) != 16)
        return false;
    char canon[160];
    snprintf(canon, sizeof canon, "@run %llu rows %llu summary %llu fnv %s", r, a, b, hex);
    if (strcmp(canon, buf))
        return false; /* leading zeros, signs, spaces: not a line this code wrote */
    *run = (size_t)r;
    *ra = (size_t)a;
    *sa = (size_t)b;
    *h = strtoull(hex, NULL, 16);
    return true;
}

/* The header: magic, '#' lines, the two column lines, "@begin". *pos after it; SRL_OK with
 * complete_header false when it is torn. */
static int parse_header(const char *text, size_t len, size_t *pos, srl_sweep_journal *j,
                        srl_err *err)
{
    size_t ml = strlen(JOURNAL_MAGIC);
    if (len < ml) {
        if (memcmp(text, JOURNAL_MAGIC, len))
            return srl_err_set(err, SRL_EPARSE, "not a srlab sweep journal");
        return SRL_OK; /* torn while its header was written */
    }
    if (memcmp(text, JOURNAL_MAGIC, ml))
        return srl_err_set(err, SRL_EPARSE, "not a srlab sweep journal");
    *pos = ml;
    const char *l = NULL;
    size_t ll = 0;
    size_t pre0 = *pos, pre1 = *pos;
    while (srl__sw_next_line(text, len, pos, &l, &ll) && ll && l[0] == '#')
        pre1 = *pos;
    if (*pos == pre1)
        return SRL_OK; /* torn header */
    /* l is the rows header. */
    const char *rh = l, *sh, *be;
    size_t rhl = ll, shl, bel;
    if (!srl__sw_next_line(text, len, pos, &sh, &shl) ||
        !srl__sw_next_line(text, len, pos, &be, &bel))
        return SRL_OK;
    if (bel != 6 || memcmp(be, "@begin", 6) || memchr(text, 0, *pos))
        return srl_err_set(err, SRL_EPARSE, "a sweep journal with a damaged header");
    j->preamble = srl__sw_dupn(text + pre0, pre1 - pre0);
    j->rows_header = srl__sw_dupn(rh, rhl);
    j->runs_header = srl__sw_dupn(sh, shl);
    if (!j->preamble || !j->rows_header || !j->runs_header)
        return srl_err_set(err, SRL_ENOMEM, "out of memory");
    j->complete_header = true;
    return SRL_OK;
}

/* Add a record's entry unless its run is already there (the first record of a run is kept). */
static int add_entry(srl_sweep_journal *j, size_t *cap, size_t run, size_t pos, size_t ra,
                     size_t sa)
{
    for (size_t k = 0; k < j->nentries; k++)
        if (j->entries[k].run == run)
            return SRL_OK;
    if (j->nentries == *cap) {
        size_t c = *cap ? 2 * *cap : 64;
        srl__sw_journal_entry *e = realloc(j->entries, c * sizeof *e);
        if (!e)
            return SRL_ENOMEM;
        j->entries = e;
        *cap = c;
    }
    j->entries[j->nentries++] = (srl__sw_journal_entry){run, pos, ra, pos + ra, sa};
    return SRL_OK;
}

/* What is at a record's start. */
enum { REC_OK, REC_TORN, REC_BAD };

/* The record starting at *pos: REC_OK (its run, lengths, *pos after it) when its line parses,
 * its lengths fit in the text and its checksum matches; REC_TORN when the text ends inside it
 * (its line, or its rows and summary); REC_BAD when it is complete but its line does not parse
 * or its checksum does not match (*run is then what the line claims, or SIZE_MAX). */
static int read_record(const char *text, size_t len, size_t *pos, size_t *run, size_t *ra,
                       size_t *sa)
{
    const char *l;
    size_t ll, p = *pos;
    uint64_t h;
    *run = SIZE_MAX;
    const char *nl = memchr(text + p, '\n', len - p);
    if (!nl)
        return REC_TORN;
    if (!srl__sw_next_line(text, len, &p, &l, &ll) || !parse_record_line(l, ll, run, ra, sa, &h))
        return REC_BAD;
    if (*ra > len - p || *sa > len - p - *ra)
        return REC_TORN;
    /* a NUL is never written (rows are text): a record holding one is damaged, even if a
     * forger made its checksum match */
    if (record_hash(*run, text + p, *ra, text + p + *ra, *sa) != h ||
        memchr(text + p, 0, *ra + *sa))
        return REC_BAD;
    *pos = p + *ra + *sa;
    return REC_OK;
}

/* The start of the next record after `from` that verifies (at a line start), or len. */
static size_t next_good_record(const char *text, size_t len, size_t from)
{
    for (const char *p = text + from; p < text + len;) {
        const char *nl = memchr(p, '\n', (size_t)(text + len - p));
        if (!nl)
            break;
        size_t at = (size_t)(nl + 1 - text), q = at, run, ra, sa;
        if (len - at > 5 && !memcmp(text + at, "@run ", 5) &&
            read_record(text, len, &q, &run, &ra, &sa) == REC_OK)
            return at;
        p = nl + 1;
    }
    return len;
}

/* One line of j->damage: what was dropped from [from, to) and why. */
static void describe_drop(srl__sw_text *d, const char *text, size_t len, size_t from, size_t to,
                          int why, size_t run)
{
    size_t line = 1;
    for (const char *c = text; (c = memchr(c, '\n', (size_t)(text + from - c))); c++)
        line++;
    if (why == REC_TORN && to == len) {
        srl__sw_printf(d, "a record cut short by the interruption (%zu bytes at line %zu)\n",
                       len - from, line);
        return;
    }
    if (run != SIZE_MAX)
        srl__sw_printf(d, "the record of run %zu at line %zu (%zu bytes): its %s does not match "
                       "its contents\n", run, line, to - from,
                       why == REC_TORN ? "length" : "checksum");
    else
        srl__sw_printf(d, "the record at line %zu (%zu bytes): its '@run' line is damaged\n",
                       line, to - from);
}

int srl__sw_journal_parse(const char *text, size_t len, srl_sweep_journal *j, srl_err *err)
{
    memset(j, 0, sizeof *j);
    j->text = text;
    size_t pos = 0;
    int st = parse_header(text, len, &pos, j, err);
    if (st || !j->complete_header) {
        if (st)
            srl__sw_journal_clear(j);
        return st;
    }
    j->good_len = pos;
    size_t cap = 0;
    srl__sw_text damage = {0};
    while (pos < len) {
        size_t start = pos, run, ra, sa;
        int r = read_record(text, len, &pos, &run, &ra, &sa);
        if (r != REC_OK) {
            /* a damaged record: keep every record after it that verifies (issue 12, item 9) */
            size_t next = next_good_record(text, len, start);
            describe_drop(&damage, text, len, start, next, r, run);
            if (next == len)
                break; /* nothing valid after it: cut there when appending */
            pos = next;
            continue;
        }
        if (add_entry(j, &cap, run, pos - ra - sa, ra, sa)) {
            free(damage.p);
            srl__sw_journal_clear(j);
            return srl_err_set(err, SRL_ENOMEM, "out of memory");
        }
        j->good_len = pos;
    }
    if (damage.oom) {
        free(damage.p);
        srl__sw_journal_clear(j);
        return srl_err_set(err, SRL_ENOMEM, "out of memory");
    }
    j->damage = damage.p;
    return SRL_OK;
}

const char *srl_sweep_journal_damage(const srl_sweep_journal *j)
{
    return j->damage ? j->damage : "";
}

static int entry_cmp(const void *pa, const void *pb)
{
    size_t x = ((const srl__sw_journal_entry *)pa)->run;
    size_t y = ((const srl__sw_journal_entry *)pb)->run;
    return x < y ? -1 : x > y;
}

int srl_sweep_journal_read(srl_sweep_journal **out, const char *text, size_t len, srl_err *err)
{
    *out = NULL;
    srl_sweep_journal *j = calloc(1, sizeof *j);
    if (!j)
        return srl_err_set(err, SRL_ENOMEM, "out of memory");
    int st = srl__sw_journal_parse(text, len, j, err);
    if (st || !j->complete_header) {
        srl_sweep_journal_free(j);
        return st;
    }
    j->by_run = malloc((j->nentries + 1) * sizeof *j->by_run);
    if (!j->by_run) {
        srl_sweep_journal_free(j);
        return srl_err_set(err, SRL_ENOMEM, "out of memory");
    }
    if (j->nentries)
        memcpy(j->by_run, j->entries, j->nentries * sizeof *j->by_run);
    qsort(j->by_run, j->nentries, sizeof *j->by_run, entry_cmp);
    *out = j;
    return SRL_OK;
}

void srl_sweep_journal_free(srl_sweep_journal *j)
{
    srl__sw_journal_clear(j);
    free(j);
}

size_t srl_sweep_journal_valid_len(const srl_sweep_journal *j)
{
    return j->good_len;
}

/* The entry of a run, or NULL (binary search in by_run: runs are distinct). */
static const srl__sw_journal_entry *find_entry(const srl_sweep_journal *j, size_t run)
{
    size_t lo = 0, hi = j->nentries;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const srl__sw_journal_entry *e = &j->by_run[mid];
        if (e->run == run)
            return e;
        if (e->run < run)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

size_t srl_sweep_journal_count(const srl_sweep_journal *j)
{
    return j->nentries;
}

const char *srl_sweep_journal_preamble(const srl_sweep_journal *j)
{
    return j->preamble;
}

bool srl_sweep_journal_has(const srl_sweep_journal *j, size_t run)
{
    return find_entry(j, run) != NULL;
}

bool srl_sweep_journal_date(const srl_sweep_journal *j, char *buf, size_t len)
{
    for (const char *p = j->preamble; *p;) {
        size_t n = strcspn(p, "\n");
        if (n > 8 && !memcmp(p, "# date: ", 8)) {
            if (n - 8 >= len)
                return false;
            memcpy(buf, p + 8, n - 8);
            buf[n - 8] = 0;
            return true;
        }
        p += n + (p[n] ? 1 : 0);
    }
    return false;
}

size_t srl_sweep_journal_differs(const srl_sweep_journal *j, const srl_sweep *s,
                                 const char *preamble, char *theirs, size_t tlen, char *ours,
                                 size_t olen)
{
    size_t no = srl__sw_preamble_diff(j->preamble, preamble, theirs, tlen, ours, olen);
    if (no)
        return no;
    if (strcmp(j->rows_header, s->rows_header)) {
        snprintf(theirs, tlen, "columns %.280s", j->rows_header);
        snprintf(ours, olen, "columns %.280s", s->rows_header);
        return 1;
    }
    if (strcmp(j->runs_header, s->runs_header)) {
        snprintf(theirs, tlen, "runs columns %.270s", j->runs_header);
        snprintf(ours, olen, "runs columns %.270s", s->runs_header);
        return 1;
    }
    return 0;
}

/* ---- the files it holds ---- */

/* The entries of the listed runs; an error names a run the journal does not hold. */
static int entries_of(const srl_sweep_journal *j, const size_t *runs, size_t n,
                      const srl__sw_journal_entry ***out, srl_err *err)
{
    const srl__sw_journal_entry **e = malloc((n + 1) * sizeof *e);
    if (!e)
        return srl_err_set(err, SRL_ENOMEM, "out of memory");
    for (size_t k = 0; k < n; k++)
        if (!(e[k] = find_entry(j, runs[k]))) {
            free(e);
            return srl_err_set(err, SRL_EINVAL, "run %zu is not in the journal", runs[k]);
        }
    *out = e;
    return SRL_OK;
}

/* The start of a file of the listed runs: their entries (malloc'd), then the preamble and the
 * column line in *b. */
static int file_start(const srl_sweep_journal *j, const size_t *runs, size_t n,
                      const char *preamble, const char *header,
                      const srl__sw_journal_entry ***e, srl__sw_text *b, srl_err *err)
{
    int st = entries_of(j, runs, n, e, err);
    if (st)
        return st;
    srl__sw_puts(b, preamble);
    srl__sw_printf(b, "%s\n", header);
    return SRL_OK;
}

int srl_sweep_journal_rows(const srl_sweep_journal *j, const srl_sweep *s,
                           const char *preamble, const size_t *runs, size_t n, char **out,
                           size_t *len, srl_err *err)
{
    *out = NULL;
    *len = 0;
    const srl__sw_journal_entry **e;
    srl__sw_text b = {0};
    int st = file_start(j, runs, n, preamble, s->rows_header, &e, &b, err);
    if (st)
        return st;
    for (size_t k = 0; k < n; k++)
        srl__sw_put(&b, j->text + e[k]->rows_off, e[k]->rows_len);
    free(e);
    *len = b.len;
    if (!(*out = srl__sw_take(&b)))
        return srl_err_set(err, SRL_ENOMEM, "out of memory");
    return SRL_OK;
}

int srl_sweep_journal_runs(const srl_sweep_journal *j, const srl_sweep *s,
                           const char *preamble, const size_t *runs, size_t n, char **out,
                           size_t *len, srl_err *err)
{
    *out = NULL;
    *len = 0;
    const srl__sw_journal_entry **e;
    srl__sw_text b = {0};
    int st = file_start(j, runs, n, preamble, s->runs_header, &e, &b, err);
    if (st)
        return st;
    for (size_t k = 0; k < n; k++)
        srl__sw_put(&b, j->text + e[k]->summary_off, e[k]->summary_len);
    free(e);
    *len = b.len;
    if (!(*out = srl__sw_take(&b)))
        return srl_err_set(err, SRL_ENOMEM, "out of memory");
    return SRL_OK;
}

int srl_sweep_journal_row_counts(const srl_sweep_journal *j, const size_t *runs, size_t n,
                                 char **line, srl_err *err)
{
    *line = NULL;
    const srl__sw_journal_entry **e;
    int st = entries_of(j, runs, n, &e, err);
    if (st)
        return st;
    srl__sw_text b = {0};
    srl__sw_puts(&b, "# rows per run:");
    for (size_t k = 0; k < n;) {
        size_t c = srl__sw_count_lines(j->text + e[k]->rows_off, e[k]->rows_len), same = 1;
        while (k + same < n &&
               srl__sw_count_lines(j->text + e[k + same]->rows_off, e[k + same]->rows_len) == c)
            same++;
        if (same > 1)
            srl__sw_printf(&b, " %zu*%zu", c, same);
        else
            srl__sw_printf(&b, " %zu", c);
        k += same;
    }
    srl__sw_putc(&b, '\n');
    free(e);
    if (!(*line = srl__sw_take(&b)))
        return srl_err_set(err, SRL_ENOMEM, "out of memory");
    return SRL_OK;
}
