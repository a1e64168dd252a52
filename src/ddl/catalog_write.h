/*-------------------------------------------------------------------------
 * src/ddl/catalog_write.h
 *	  What the storage guard asks of the writers of ots.tables
 *	  (src/ddl/catalog_write.c): a table registered from its storage's
 *	  comment, its chunk relation made when a restore brings none, and the
 *	  comment made to carry a table's definition.
 *-------------------------------------------------------------------------
 */
#ifndef OTS_CATALOG_WRITE_H
#define OTS_CATALOG_WRITE_H

#include "postgres.h"

/* catalog_write_restore registers the ots table whose storage a restore gives comment */
extern bool catalog_write_restore(Oid storage, const char *comment, const char *only_index_of);

/* catalog_write_carry_table makes the comment of schema.table's storage carry its definition */
extern void catalog_write_carry_table(const char *schema, const char *table);

/*
 * catalog_write_restore_chunk makes the chunk relation of the table whose
 * registered storage a restore gives its primary key, if it has none
 */
extern void catalog_write_restore_chunk(Oid storage);

#endif							/* OTS_CATALOG_WRITE_H */
