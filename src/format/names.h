/*-------------------------------------------------------------------------
 * src/format/names.h
 *	  Tablestore's rule for table and column names, as ots applies it
 *	  (src/format/names.c).
 *-------------------------------------------------------------------------
 */
#ifndef OTS_NAMES_H
#define OTS_NAMES_H

#include "postgres.h"

/*
 * PostgreSQL identifiers hold NAMEDATALEN-1 bytes; a leaf's name is longer
 * than its table's by its suffix "$p<i>" (src/meta/storage.h), at most 6
 * bytes: "$p1023"
 */
#define NAMES_MAX_TABLE_LEN (NAMEDATALEN - 1 - 6)

/* names_valid: is name (len bytes) a Tablestore name of at most maxlen bytes? */
extern bool names_valid(const char *name, int len, int maxlen);

/*
 * names_check_table validates the unqualified table name against
 * Tablestore's rules (and PostgreSQL's identifier length), raising
 * "Invalid table name: '<name>'." otherwise.
 */
extern void names_check_table(const char *name, int len);

/* names_check_column: the same for attribute and pk column names */
extern void names_check_column(const char *name, int len);

#endif							/* OTS_NAMES_H */
