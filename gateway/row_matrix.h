/*-------------------------------------------------------------------------
 * gateway/row_matrix.h
 *	  Tablestore's SimpleRowMatrix block (row_matrix.c).
 *-------------------------------------------------------------------------
 */
#ifndef OTSD_ROW_MATRIX_H
#define OTSD_ROW_MATRIX_H

#include <stddef.h>

#include <jansson.h>

typedef struct Buf Buf;

/*
 * rm_write appends a SimpleRowMatrix block of rows (ots's get_range rows:
 * [{"primary_key", "attributes"}]): the key columns in pk_order, then
 * columns (ncolumns of them; the key columns among them left out), or,
 * without them, every attribute column the rows have, by name
 */
extern void rm_write(Buf *out, json_t *rows, json_t *pk_order, char **columns, size_t ncolumns);

#endif							/* OTSD_ROW_MATRIX_H */
