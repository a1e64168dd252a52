/*-------------------------------------------------------------------------
 * test/fuzz/pg_stubs.h
 *	  What the stubbed backend (pg_stubs.c) exposes to the harness: where an
 *	  ERROR jumps to, and the code, message and detail it carried.
 *-------------------------------------------------------------------------
 */
#ifndef OTS_FUZZ_PG_STUBS_H
#define OTS_FUZZ_PG_STUBS_H

#include <setjmp.h>

extern sigjmp_buf *stub_error_jmp;	/* NULL: an ERROR aborts the harness */
extern int	stub_error_code;
extern char stub_error_message[1024];
extern char stub_error_detail[1024];

/* stub_free_all frees every palloc'd chunk, like resetting a memory context */
extern void stub_free_all(void);

#endif							/* OTS_FUZZ_PG_STUBS_H */
