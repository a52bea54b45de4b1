#ifndef HEAP_STATS_H
#define HEAP_STATS_H

#include <stddef.h>

/// Bytes malloc has handed out and not had back, over every arena (glibc's mallinfo2: in-use chunks plus mmapped
/// ones); 0 where the C library does not say.
size_t heap_stats_bytes_in_use(void);

#endif
