/* Callgrind's client requests for the instruction-count benchmarks (benchmarks/callgrind.py).
 * Client requests are inline machine code, so Python reaches them through this library and ctypes.
 * Stock callgrind zeroes its counts when instrumentation stops, so a window is zeroed at its start
 * and dumped at its end while instrumentation stays on. */
#include <valgrind/callgrind.h>

int eqxb_on_valgrind(void) { return RUNNING_ON_VALGRIND; }
void eqxb_instrument(void) { CALLGRIND_START_INSTRUMENTATION; }
void eqxb_zero(void) { CALLGRIND_ZERO_STATS; }
void eqxb_dump(const char *name) { CALLGRIND_DUMP_STATS_AT(name); }
