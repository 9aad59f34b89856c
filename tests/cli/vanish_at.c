/* An output directory removed at a chosen moment, for vanish_sweep_cli.sh. Loaded with
 * LD_PRELOAD into every rank, it watches the calls that name a file inside $VANISH_DIR (open,
 * stat, statfs, statvfs, access, rename: those the solver, HDF5 and MPI-IO make on their files)
 * on the rank named by $VANISH_RANK, and just before the $VANISH_AT-th of them renames the
 * directory away to $VANISH_DIR.removed, as a user's `mv` or `rm -rf` would. A user's removal
 * can fall between any two file operations of any rank; sweeping $VANISH_AT over every call of
 * each rank tries every such moment, once each, where a loop of timed removals finds a bad one
 * only by chance. With $VANISH_AT=0 it only counts, and writes the count to $VANISH_COUNT when
 * the process ends. Every other call goes through untouched. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>

static long calls = 0;
static int removed = 0;

/* Whether this process is the rank that watches; read once. */
static int watching(void) {
  static int answer = -1;
  if (answer < 0) {
    const char* rank = getenv("OMPI_COMM_WORLD_RANK");
    if (!rank) rank = getenv("PMIX_RANK");
    const char* victim = getenv("VANISH_RANK");
    answer = rank && victim && getenv("VANISH_DIR") && strcmp(rank, victim) == 0;
  }
  return answer;
}

/* Called before every watched call on `path`. */
static void before(const char* path) {
  if (!path || !watching() || removed) return;
  const char* dir = getenv("VANISH_DIR");
  const size_t length = strlen(dir);
  /* Files in it, not the directory itself: the set-up's looks at the directory come before the
   * run has taken it, and a removal there only makes the run create it again. */
  if (strncmp(path, dir, length) != 0 || path[length] != '/') return;
  ++calls;
  const char* at = getenv("VANISH_AT");
  if (!at || atol(at) != calls) return;
  removed = 1;
  char away[4096];
  snprintf(away, sizeof away, "%s.removed", dir);
  int (*real_rename)(const char*, const char*) =
      (int (*)(const char*, const char*))dlsym(RTLD_NEXT, "rename");
  if (real_rename(dir, away) != 0) perror("vanish_at: rename");
}

__attribute__((destructor)) static void report(void) {
  const char* at = getenv("VANISH_AT");
  const char* count = getenv("VANISH_COUNT");
  if (!watching() || !at || atol(at) != 0 || !count) return;
  FILE* out = fopen(count, "w");
  if (!out) return;
  fprintf(out, "%ld\n", calls);
  fclose(out);
}

#define OPEN_LIKE(name)                                                        \
  int name(const char* path, int flags, ...) {                                 \
    mode_t mode = 0;                                                           \
    if (flags & (O_CREAT | O_TMPFILE)) {                                       \
      va_list modes;                                                           \
      va_start(modes, flags);                                                  \
      mode = va_arg(modes, mode_t);                                            \
      va_end(modes);                                                           \
    }                                                                          \
    before(path);                                                              \
    int (*real)(const char*, int, ...) =                                       \
        (int (*)(const char*, int, ...))dlsym(RTLD_NEXT, #name);               \
    return real(path, flags, mode);                                            \
  }

#define PATH_CALL(name, Argument)                                              \
  int name(const char* path, Argument argument) {                              \
    before(path);                                                              \
    int (*real)(const char*, Argument) =                                       \
        (int (*)(const char*, Argument))dlsym(RTLD_NEXT, #name);               \
    return real(path, argument);                                               \
  }

OPEN_LIKE(open)
OPEN_LIKE(open64)
PATH_CALL(stat, struct stat*)
PATH_CALL(stat64, struct stat64*)
PATH_CALL(statfs, struct statfs*)
PATH_CALL(statfs64, struct statfs64*)
PATH_CALL(statvfs, struct statvfs*)
PATH_CALL(statvfs64, struct statvfs64*)
PATH_CALL(access, int)
PATH_CALL(rename, const char*)
