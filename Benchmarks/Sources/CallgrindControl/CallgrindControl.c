#include "CallgrindControl.h"

#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#define HAS_CALLGRIND 1
#endif

void callgrind_section_begin(void) {
#ifdef HAS_CALLGRIND
    CALLGRIND_ZERO_STATS;
    CALLGRIND_START_INSTRUMENTATION;
#endif
}

void callgrind_section_end(void) {
#ifdef HAS_CALLGRIND
    CALLGRIND_STOP_INSTRUMENTATION;
    CALLGRIND_DUMP_STATS_AT("section");
#endif
}
