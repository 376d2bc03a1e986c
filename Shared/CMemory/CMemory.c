#include "CMemory.h"
#if defined(__linux__)
#include <malloc.h>
#endif

void widgetbus_return_freed_memory(void) {
#if defined(__GLIBC__)
    malloc_trim(0);
#endif
}
