#ifndef WIDGETBUS_CFILESYSTEM_H
#define WIDGETBUS_CFILESYSTEM_H

/// Flushes every dirty page and all metadata of the file system holding `descriptor` to the
/// device and waits for it: one barrier for many files, where fsync is one per file. Glibc
/// declares syncfs(2) only under _GNU_SOURCE, which Swift's Glibc module does not set.
/// Returns 0, or -1 with errno set. Elsewhere than Linux there is no such call: sync(2), which
/// does not wait on every system, stands in (the services run on Linux).
int widgetbus_syncfs(int descriptor);

#endif
