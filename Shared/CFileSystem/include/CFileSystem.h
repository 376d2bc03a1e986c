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

/// Takes a write lease on the file of `descriptor` if no other open file description refers to
/// it (Linux grants a write lease only then): 1 if taken, 0 if another one is open or it cannot
/// be told (leases unavailable, not the file's owner, not Linux). While the lease is held, anyone
/// else's open of the file waits; closing `descriptor` gives the lease up. Such an open sends the
/// holder SIGIO, whose default action would end the process: the first call makes the process
/// ignore SIGIO.
int widgetbus_lease_if_open_only_here(int descriptor);

#endif
