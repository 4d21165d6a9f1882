/* src/cli/set.h: output sets. The files one `srlab sweep` or `srlab merge` writes belong
 * together; they are replaced as one transaction, by one srlab at a time, and every reader checks
 * that the files it reads belong together (issue 28, item 2; docs/reliability.md says it for
 * users).
 *
 * A set is named by its rows file OUT (-o OUT, not ending in .runs.csv or .summary.csv: a file
 * is a member of one set, and readers tell its part by its name); NAME is OUT without ".csv"
 * (cli_sweep_sibling):
 *   OUT               the rows                         member
 *   NAME.runs.csv     one line per run                 member
 *   NAME.summary.csv  one line per grid point          member (a shard's set has none)
 *   NAME.journal      a sweep's finished runs, its work towards the next set; and the lock
 *   NAME.commit       the commit record: there only while a commit is under way, or after one
 *                     was interrupted
 *
 * Stamp. Every member ends its '#' lines with "# set: HEX" (SRL_SWEEP_SET_LINE, srlab/sweep.h),
 *   HEX being 16 hex digits of FNV-1a 64 over the members' texts without that line (rows, runs,
 *   summary, each preceded by its role and length). The stamp is a function of the contents,
 *   not a random draw, so that what srlab promises byte for byte -- a sweep on 1 or 8 threads,
 *   a resumed sweep, the merge of its shards -- stays true of the whole files; two sets whose
 *   contents differ have different stamps (barring a 64-bit collision). A set with the same
 *   contents as the one it replaces has its stamp too, and cannot be told from it: nor need it.
 *
 * Lock. cli_lock_take flocks a file (exclusive, without waiting: a second writer is refused at
 *   once, exit 2, and does no work); a set's lock file is NAME.journal, created when missing and
 *   removed when its holder leaves it empty. `srlab sweep` (and so each sweep `srlab reproduce`
 *   runs) and `srlab merge` take it before they read anything of the set; `srlab reproduce`
 *   takes the same lock on DIR/reproduce.lock for its folder.
 *
 * Commit (cli_set_commit, lock held, every input read and checked by the caller):
 *   1. every member's path is checked: absent or a regular file, and no file this run read
 *      (an output that is also an input is refused here, before anything is replaced);
 *   2. each member is written to a temporary file beside it (.MEMBER.tmp-set-XXXXXX) with its
 *      stamp, fsync'ed and closed, each call checked;
 *   3. the commit record (each temporary and its member; the members the new set has not, such
 *      as a shard's summary, to remove) is written the same way and renamed to NAME.commit, and
 *      the folder fsync'ed: from here the new set is the set;
 *   4. each temporary is renamed over its member, the members to remove are removed, the folder
 *      fsync'ed, NAME.commit removed, the folder fsync'ed.
 *   A kill before 3 leaves the old set whole (and temporaries); a kill after 3 leaves NAME.commit.
 *   Whoever takes the lock next first recovers (cli_set_lock): it rolls a commit record forward
 *   (step 4) and removes the temporaries no record names. In between, a reader may meet members
 *   of both sets: their stamps differ, and it refuses them.
 *
 * Readers (plot --in, compare, merge's shards) call cli_set_check on each member they read: the
 *   file's stamp must be the stamp of every member beside it (files without stamps, written by an
 *   srlab before sets, are accepted when none beside them has one). */
#ifndef SRL_CLI_SET_H
#define SRL_CLI_SET_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* ---- locks ---- */

typedef struct cli_lock {
    int fd;     /* the flock'ed file, or -1 */
    char *path;
    dev_t dev;  /* its identity, so that release removes no other file */
    ino_t ino;
} cli_lock;

/* Take the lock of path (created when missing; a regular file, never a link or a device: exit 2
 * otherwise). Held by another process: exit 2 after "PATH is in use: BUSY". Returns 0 or an exit
 * status. */
int cli_lock_take(cli_lock *l, const char *cmd, const char *what, const char *path,
                  const char *busy);
/* Remove the file when it is empty (nothing in it to resume) and still the one locked, then
 * unlock. NULL-safe and safe on a lock not taken (fd -1). */
void cli_lock_release(cli_lock *l);

/* ---- sets ---- */

typedef struct cli_set {
    const char *cmd;
    char *rows, *runs, *summary; /* the members' paths */
    char *journal, *commit;      /* NAME.journal (the lock), NAME.commit */
    cli_lock lock;
} cli_set;

/* The set of rows file out (not standard output): its paths; exit 2 when out would be its own
 * runs or summary file. Nothing is opened. */
int cli_set_init(cli_set *s, const char *cmd, const char *out);
/* Each member can be written (cli_out_check_file: a regular file or absent, its folder exists):
 * for a command to check before any work. Returns 0 or an exit status. */
int cli_set_check_paths(const cli_set *s, bool summary);
/* Take the set's lock (NAME.journal) and recover: a commit record rolled forward, uncommitted
 * temporaries removed (messages on failure). Returns 0 or an exit status. */
int cli_set_lock(cli_set *s);
/* Replace the set by rows, runs and summary (NULL: a set without summary, whose old summary is
 * removed), texts without stamps: the commit above. Lock held. Returns 0 or an exit status; on
 * an error before the commit record the old set is untouched. */
int cli_set_commit(cli_set *s, const char *rows, size_t rows_len, const char *runs,
                   size_t runs_len, const char *summary, size_t summary_len);
/* Release the lock, free the names. */
void cli_set_free(cli_set *s);

/* The stamp of a file's text (its '#' lines' "# set: HEX"): true and hex[0..16] set, else
 * false. */
bool cli_set_stamp(const char *text, size_t len, char hex[17]);
/* A reader's check of the file path, whose text it read: its stamp and the stamp of every
 * member of its set beside it (by its name: NAME.summary.csv, NAME.runs.csv, else rows) agree;
 * else exit 2 after a message naming both files and saying why (an interrupted commit: the next
 * srlab sweep or merge on the set completes it). what: how the user named the file ("--in"). */
int cli_set_check(const char *cmd, const char *what, const char *path, const char *text,
                  size_t len);

#endif
