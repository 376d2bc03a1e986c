import CMemory

/// Gives the pages of memory the process has freed back to the system.
///
/// glibc returns freed memory to the system only from the top of each heap: a burst of
/// allocations that is freed again (a backlog of events drained, libzmq's queue emptied) leaves
/// whole pages free in the middle of the heaps, and the process keeps them — its resident memory
/// stays at its peak, and the next burst lands beside what the last one left. A service whose
/// memory comes and goes in bursts trims its heaps now and then, so that what it holds follows
/// what it uses. A trim walks the free chunks: a few milliseconds at most, once a second.
public enum FreedMemory {
    /// Releases every whole free page of every heap (`malloc_trim(0)`); nothing where the C
    /// library has no such call.
    public static func returnToSystem() {
        widgetbus_return_freed_memory()
    }
}
