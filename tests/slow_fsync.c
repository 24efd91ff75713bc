/* A slow card for tests and benchmarks, without root: preloaded into a child process
 * (LD_PRELOAD, see tests/slow_disk.py), every fsync and fdatasync first sleeps
 * GOLDTABLE_SLOW_FSYNC_MS milliseconds (200 unless set), as an SD card's flush can take. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <time.h>

static void slow(void) {
    const char *ms = getenv("GOLDTABLE_SLOW_FSYNC_MS");
    long delay = ms ? atol(ms) : 200;
    struct timespec pause = {delay / 1000, (delay % 1000) * 1000000L};
    nanosleep(&pause, NULL);
}

int fsync(int fd) {
    static int (*real)(int);
    if (!real) real = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
    slow();
    return real(fd);
}

int fdatasync(int fd) {
    static int (*real)(int);
    if (!real) real = (int (*)(int))dlsym(RTLD_NEXT, "fdatasync");
    slow();
    return real(fd);
}
