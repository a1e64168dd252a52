/*-------------------------------------------------------------------------
 * test/fuzz/fuzz_check.h
 *	  CHECK, the assertion of the fuzz harnesses: on failure it prints where
 *	  and why and aborts, so libFuzzer keeps the input and ASan the stack.
 *-------------------------------------------------------------------------
 */
#ifndef FUZZ_CHECK_H
#define FUZZ_CHECK_H

#include <stdio.h>
#include <stdlib.h>

#define CHECK(cond, ...) \
	do { \
		if (!(cond)) \
		{ \
			fprintf(stderr, "%s:%d: CHECK(%s) failed: ", __FILE__, __LINE__, #cond); \
			fprintf(stderr, __VA_ARGS__); \
			fputc('\n', stderr); \
			abort(); \
		} \
	} while (0)

#endif							/* FUZZ_CHECK_H */
