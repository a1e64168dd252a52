/*-------------------------------------------------------------------------
 * src/view/view_shape.h
 *	  Which subqueries of a statement are ots tables' views, and what each
 *	  of their columns is (view_shape.c).
 *-------------------------------------------------------------------------
 */
#ifndef OTS_VIEW_SHAPE_H
#define OTS_VIEW_SHAPE_H

#include "postgres.h"
#include "nodes/parsenodes.h"

#include "meta/catalog.h"

/* what one output column of a table's view is */
typedef enum OtsViewColumnKind
{
	VIEW_COLUMN_OTHER = 0,		/* none of those below */
	VIEW_COLUMN_KEY,			/* a key column of the table: its storage's column */
	VIEW_COLUMN_ATTRIBUTES,		/* ots.row_attributes(cells, storage): the jsonb */
	VIEW_COLUMN_TYPED,			/* ots.row_<type>(cells, storage, 'name') of a defined column */
	VIEW_COLUMN_ATTRIBUTE_TEXT, /* ots.row_attribute_text(cells, storage, 'name') */
	VIEW_COLUMN_ATTRIBUTE		/* ots.row_attribute(cells, storage, 'name') */
} OtsViewColumnKind;

typedef struct OtsViewColumn
{
	OtsViewColumnKind kind;
	const char *name;			/* the key or attribute column it reads */
	OtsValueType type;			/* VIEW_COLUMN_TYPED: its defined column's type */
} OtsViewColumn;

/* a table's view at a query level, as ots.sync_table_view made it */
typedef struct OtsView
{
	const OtsTable *table;		/* whose view it is, by the catalog */
	RangeTblEntry *rte;			/* the view's subquery in the query level's range table */
	Index		rti;			/* its index there */
	Query	   *query;			/* the view's query */
	RangeTblEntry *storage;		/* the table's storage in the view's FROM */
	Index		storage_rti;	/* its index in the view's range table */
	AttrNumber	attributes_attno;	/* the view's ots.row_attributes column */
	FuncExpr   *row_attributes; /* that column's call */
} OtsView;

/* the functions of ots that make a view's columns (ots's schema, by OID) */
typedef struct OtsViewFuncs
{
	Oid			index_readable;
	Oid			row_exists;
	Oid			row_attributes;
	Oid			row_attribute_text;
	Oid			row_attribute;
	Oid			typed[OTS_VT_BINARY + 1];	/* row_string ... row_binary, by value type */
	Oid			search_match;	/* full-text matching (search_plan.c); InvalidOid when ots has none */
	Oid			search_match_tokens;
} OtsViewFuncs;

/*
 * view_shape_funcs: ots's view functions, looked up once per backend (again
 * after a change of pg_proc); NULL when ots's schema lacks one of them
 */
extern const OtsViewFuncs *view_shape_funcs(void);

/*
 * view_shape_recognize: is rte (entry rti of a query level) the view ots
 * made for a table, over that table's storage, with every column as
 * ots.sync_table_view makes them?  Fills view when it is.
 */
extern bool view_shape_recognize(RangeTblEntry *rte, Index rti, const OtsViewFuncs *funcs,
								 OtsView *view);

/* view_shape_column: what output column attno of a recognised view is */
extern OtsViewColumn view_shape_column(const OtsView *view, const OtsViewFuncs *funcs,
									   AttrNumber attno);

/* view_shape_init watches pg_proc for view_shape_funcs (_PG_init) */
extern void view_shape_init(void);

#endif							/* OTS_VIEW_SHAPE_H */
