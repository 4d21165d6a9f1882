/* src/cli/reproduce/reproduce.c: the helpers the parts of `srlab reproduce` share
 * (src/cli/reproduce/reproduce.h). */
#include "cli/reproduce/reproduce.h"

#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

bool rp_step_ok(const rp_step *s)
{
    return s->ran && s->status == 0;
}

int rp_step_push(rp_step *s, const char *arg)
{
    char **v = realloc(s->argv, ((size_t)s->argc + 2) * sizeof *v);
    if (!v)
        return -1;
    s->argv = v;
    if (!(v[s->argc] = strdup(arg)))
        return -1;
    v[++s->argc] = NULL;
    return 0;
}

void rp_step_free(rp_step *s)
{
    for (int i = 0; i < s->argc; i++)
        free(s->argv[i]);
    free(s->argv);
    free(s->log);
    free(s->last);
    memset(s, 0, sizeof *s);
}

char *rp_command(int argc, char **argv)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    if (!fp)
        return NULL;
    cli_fprint_command(fp, argc, argv);
    if (fclose(fp) != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

void rp_duration(char *buf, size_t len, double s)
{
    if (s < 100)
        snprintf(buf, len, "%.1f s", s);
    else if (s < 3600)
        snprintf(buf, len, "%d min %02d s", (int)(s / 60), (int)s % 60);
    else
        snprintf(buf, len, "%d h %02d min", (int)(s / 3600), (int)(s / 60) % 60);
}
