#define _GNU_SOURCE
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
