#ifndef WIDGETBUS_CFILESYSTEM_H
#define WIDGETBUS_CFILESYSTEM_H

/// Flushes every dirty page and all metadata of the file system holding `descriptor` to the
/// device and waits for it: one barrier for many files, where fsync is one per file. Glibc
/// declares syncfs(2) only under _GNU_SOURCE, which Swift's Glibc module does not set.
/// Returns 0, or -1 with errno set. Elsewhere than Linux there is no such call: sync(2), which
/// does not wait on every system, stands in (the services run on Linux).
int widgetbus_syncfs(int descriptor);

/// Swaps the files named `first` and `second` in one atomic step (renameat2 with
/// RENAME_EXCHANGE): a reader opening either name sees one file or the other, never neither.
/// Returns 0, or -1 with errno set: ENOENT when either is missing, EINVAL or ENOSYS where the
/// file system or system cannot (not Linux, or a file system without it).
int widgetbus_exchange(const char *first, const char *second);

/// Whether no other open file description refers to the file of `descriptor`: 1 if so, 0 if
/// one does or it cannot be told (leases unavailable, not the file's owner, not Linux). It takes
/// a write lease, which Linux grants only then, and gives it up at once. A process that opens the
/// file in that instant breaks the lease, which sends SIGIO to the holder: the first call makes
/// the process ignore SIGIO, whose default action would end it.
int widgetbus_is_open_only_here(int descriptor);

#endif
