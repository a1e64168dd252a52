/*-------------------------------------------------------------------------
 * src/ddl/search_catalog.h
 *	  The writers of ots.search_indexes (search_catalog.c), and a restore's
 *	  registration of a search index by its storage's comment.
 *-------------------------------------------------------------------------
 */
#ifndef OTS_SEARCH_CATALOG_H
#define OTS_SEARCH_CATALOG_H

#include "postgres.h"

/*
 * search_catalog_comment: COMMENT ON TABLE of relation relid, named as a
 * search index's storage: refused on a registered storage unless it gives
 * the comment it has; a comment carrying a definition registers the index
 */
extern void search_catalog_comment(Oid relid, const char *comment);

#endif							/* OTS_SEARCH_CATALOG_H */
