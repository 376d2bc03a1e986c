#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>
#include "CFileSystem.h"

int widgetbus_syncfs(int descriptor) {
#if defined(__linux__)
    return syncfs(descriptor);
#else
    (void)descriptor;
    sync();
    return 0;
#endif
}

int widgetbus_exchange(const char *first, const char *second) {
#if defined(__linux__) && defined(RENAME_EXCHANGE)
    return renameat2(AT_FDCWD, first, AT_FDCWD, second, RENAME_EXCHANGE);
#else
    (void)first;
    (void)second;
    errno = ENOSYS;
    return -1;
#endif
}

#if defined(__linux__)
static pthread_once_t ignoringLeaseBreaks = PTHREAD_ONCE_INIT;

static void ignoreLeaseBreaks(void) {
    signal(SIGIO, SIG_IGN);
}
#endif

int widgetbus_lease_if_open_only_here(int descriptor) {
#if defined(__linux__)
    pthread_once(&ignoringLeaseBreaks, ignoreLeaseBreaks);
    return fcntl(descriptor, F_SETLEASE, F_WRLCK) == 0;
#else
    (void)descriptor;
    return 0;
#endif
}
