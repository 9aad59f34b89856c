/* A stand-in for a file that vanishes between two ranks' opens, for exit_status_cli.sh:
 * loaded with LD_PRELOAD, it makes open() of a path ending in $REFUSE_OPEN_SUFFIX fail with
 * ENOENT on the rank named by $REFUSE_OPEN_RANK, whenever the open does not create the file.
 * Rank 0 creates, the others open what rank 0 created, so this is exactly what a user's
 * `rm -rf` between the two leaves behind. Every other open goes through untouched. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

typedef int (*open_function)(const char*, int, ...);

static int refused(const char* path, int flags) {
  const char* suffix = getenv("REFUSE_OPEN_SUFFIX");
  const char* victim = getenv("REFUSE_OPEN_RANK");
  const char* rank = getenv("OMPI_COMM_WORLD_RANK");
  if (!rank) rank = getenv("PMIX_RANK");
  if (!suffix || !victim || !rank || strcmp(rank, victim) != 0 || (flags & O_CREAT)) return 0;
  const size_t length = strlen(path), suffix_length = strlen(suffix);
  return length >= suffix_length && strcmp(path + length - suffix_length, suffix) == 0;
}

static int forward(const char* name, const char* path, int flags, va_list modes) {
  const mode_t mode = (flags & (O_CREAT | O_TMPFILE)) ? va_arg(modes, mode_t) : 0;
  if (refused(path, flags)) {
    errno = ENOENT;
    return -1;
  }
  const open_function real = (open_function)dlsym(RTLD_NEXT, name);
  return real(path, flags, mode);
}

int open(const char* path, int flags, ...) {
  va_list modes;
  va_start(modes, flags);
  const int result = forward("open", path, flags, modes);
  va_end(modes);
  return result;
}

int open64(const char* path, int flags, ...) {
  va_list modes;
  va_start(modes, flags);
  const int result = forward("open64", path, flags, modes);
  va_end(modes);
  return result;
}
