#ifndef WIDGETBUS_CMEMORY_H
#define WIDGETBUS_CMEMORY_H

/// Gives every whole page the heaps hold free back to the system (glibc's malloc_trim(0), which
/// Swift's Glibc module does not declare: it is in <malloc.h>). Elsewhere than glibc, nothing.
void widgetbus_return_freed_memory(void);

#endif
