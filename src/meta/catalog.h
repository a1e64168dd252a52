/*-------------------------------------------------------------------------
 * src/meta/catalog.h
 *	  ots table metadata (ots.tables) as seen by the hot paths: resolved
 *	  from a table-name argument, cached per backend, invalidated when any
 *	  session changes or drops the table.
 *
 * How a table is stored (its relations, columns and stored key) is
 * storage.h's; this module checks that the storage is that.
 *-------------------------------------------------------------------------
 */
#ifndef OTS_CATALOG_H
#define OTS_CATALOG_H

#include "postgres.h"

#include "access/htup.h"
#include "access/tupdesc.h"
#include "utils/snapshot.h"

#include "ots_limits.h"
#include "format/value.h"

typedef struct OtsPkColumn
{
	char		name[NAMEDATALEN];
	uint32		namelen;
	OtsValueType type;			/* STRING, INTEGER or BINARY */
	bool		auto_increment;
} OtsPkColumn;

/* a predefined (defined) column: a name with a type, which secondary indexes can use */
typedef struct OtsDefinedColumn
{
	char		name[NAMEDATALEN];
	uint32		namelen;
	OtsValueType type;
} OtsDefinedColumn;

typedef struct OtsTable
{
	Oid			view_oid;		/* s.t: the name users call the table by */
	Oid			data_oid;		/* its storage table (storage.h) */
	Oid			seq_oid;		/* its AUTO_INCREMENT sequence or InvalidOid */
	Oid			chunk_oid;		/* its chunk relation (storage.h), or InvalidOid:
								 * a table of 0.2.0 before ALTER EXTENSION ots
								 * UPDATE, or one a restore has not made yet */
	char		schema_name[NAMEDATALEN];
	char		table_name[NAMEDATALEN];
	int			npk;
	OtsPkColumn pk[OTS_MAX_KEY_COLUMNS];
	int			auto_increment_col; /* index into pk[], or -1 */
	int32		max_versions;
	int64		time_to_live;	/* seconds, -1 = forever */
	int64		max_version_offset; /* seconds */
	bool		allow_update;
	bool		update_full_row;	/* an update writes every column at its version */
	int32		partitions;
	int32		hash_prefix_len;	/* 0 = none */
	int			ndefined;
	OtsDefinedColumn defined[OTS_MAX_DEFINED_COLUMNS];	/* by name (ots.tables: as defined) */
	/* a secondary index: the read-only table index_of's rows are copied to */
	bool		is_index;
	char		index_of[NAMEDATALEN];	/* its base table, in the same schema */
	bool		index_local;	/* LOCAL: keyed by the base's partition key first */
	int			index_nkeys;	/* pk[0 .. index_nkeys-1] are the key it was given */
	bool		index_building; /* backfill not complete: reads refused */
	bool		index_partial;	/* made without the rows before it (include_base_data) */
	TransactionId index_ready_xmin; /* the transaction that last changed its row (made it complete) */
	/* a table with secondary indexes: their storage tables, in name order */
	int			nindexes;
	Oid			index_data_oids[OTS_MAX_INDEXES];
	/*
	 * its search indexes (ots.search_indexes, search/search_index.h): their
	 * storage tables, in index-name order
	 */
	int			nsearch;
	Oid			search_data_oids[OTS_MAX_SEARCH_INDEXES];
	/*
	 * the columns their fields read, which a write of a split row loads
	 * (rowneeds_init_write): name i is search_field_names[off[i] .. off[i + 1]),
	 * bytewise sorted; search_fields_whole when there are more than fit
	 * (the write loads the whole row)
	 */
	int			search_nfields;
	bool		search_fields_whole;
	uint16		search_field_off[OTS_MAX_SEARCH_LOADED_FIELDS + 1];
	char		search_field_names[OTS_MAX_SEARCH_LOADED_BYTES];
	/* Stream (stream.h): enabled when stream_id is set; its log and records */
	bool		stream_enabled;
	char		stream_id[NAMEDATALEN];
	int32		stream_expiration_hours;
	Oid			stream_log_oid;
	Oid			stream_rec_oid;
	/*
	 * its original columns, whose values before a change a record carries,
	 * bytewise sorted: name i is stream_original_names[off[i] .. off[i + 1])
	 * (catalog_original_name); packed, as every backend caches each table
	 */
	int			stream_noriginal;
	uint16		stream_original_off[OTS_MAX_STREAM_ORIGINAL_COLUMNS + 1];
	char		stream_original_names[OTS_MAX_STREAM_ORIGINAL_BYTES];
	bool		valid;			/* cleared by invalidation */
} OtsTable;

extern void catalog_init(void);

/* catalog_original_name: the name of t's stream original column i, its length in *len */
static inline const char *
catalog_original_name(const OtsTable *t, int i, uint32 *len)
{
	*len = t->stream_original_off[i + 1] - t->stream_original_off[i];
	return t->stream_original_names + t->stream_original_off[i];
}

/*
 * catalog_lookup resolves a table-name argument ("t", "s.t", "\"S\".t") to
 * its metadata, raising OTSParameterInvalid for a malformed name and
 * OTSObjectNotExist when no ots table has that name.  The result stays
 * valid until the next invalidation; callers copy what they keep longer
 * than the current call.
 */
extern OtsTable *catalog_lookup(text *name);

/*
 * catalog_lookup_quiet is catalog_lookup returning NULL instead of raising
 * OTSObjectNotExist or OTSParameterInvalid for a malformed name.
 */
extern OtsTable *catalog_lookup_quiet(text *name);

/* catalog_lookup_by_view_oid: the table whose view (the name users call it by) is view_oid; NULL if none */
extern OtsTable *catalog_lookup_by_view_oid(Oid view_oid);

/*
 * catalog_lookup_view is catalog_lookup for a table known by its view's
 * OID (a statement on the view): the storage locked, OTSObjectNotExist
 * when there is no such table
 */
extern OtsTable *catalog_lookup_view(Oid view_oid);

/*
 * catalog_read_registered: t as ots.tables registers it (key, options and
 * the storage's OID only, no view needed: a restore's); false if it is not
 */
extern bool catalog_read_registered(const char *schema, const char *table, OtsTable *t);

/* catalog_lookup_by_data_oid: the same for the storage table's OID; NULL if none */
extern OtsTable *catalog_lookup_by_data_oid(Oid data_oid);

/*
 * The columns of ots.tables an OtsTable is made of, in the order
 * catalog_read_row reads them.
 */
#define CATALOG_ROW_COLUMNS_0_1 \
	"pk_names, pk_types, auto_increment, max_versions, time_to_live," \
	" max_version_offset, allow_update, partitions, hash_prefix_length"
#define CATALOG_ROW_COLUMNS CATALOG_ROW_COLUMNS_0_1 \
	", defined_names, defined_types, index_of, index_type, index_key_count, index_phase," \
	" stream_id, stream_expiration_hours, " CATALOG_UPDATE_FULL_ROW ", " CATALOG_STREAM_ORIGINAL
/* the number of CATALOG_ROW_COLUMNS */
#define CATALOG_ROW_NCOLUMNS 19
/*
 * update_full_row, of a row of ots.tables aliased t: read through the row's
 * jsonb, because 0.2.0's SQL (before ALTER EXTENSION ots UPDATE) writes and
 * reads an ots.tables without it, whose tables do not update whole rows
 */
#define CATALOG_UPDATE_FULL_ROW \
	"coalesce((pg_catalog.to_jsonb(t) OPERATOR(pg_catalog.->>) 'update_full_row')::pg_catalog.bool, false)"
/* stream_original_columns as jsonb, read the same way for the same reason */
#define CATALOG_STREAM_ORIGINAL \
	"(pg_catalog.to_jsonb(t) OPERATOR(pg_catalog.->) 'stream_original_columns')"
/* the same of a 0.1.0 ots.tables, until ALTER EXTENSION ots UPDATE: no defined columns, no index */
#define CATALOG_ROW_COLUMNS_BEFORE_UPDATE CATALOG_ROW_COLUMNS_0_1 \
	", '{}'::pg_catalog.text[], '{}'::pg_catalog.text[], NULL::pg_catalog.name," \
	" NULL::pg_catalog.text, NULL::pg_catalog.int2, NULL::pg_catalog.text," \
	" NULL::pg_catalog.text, NULL::pg_catalog.int4, false, NULL::pg_catalog.jsonb"

/*
 * catalog_read_row fills t (schema_name and table_name set) from a row of
 * CATALOG_ROW_COLUMNS and catalog_check_storage finds and checks its
 * storage in schema nsp (false when the storage or view is missing); both
 * raise data_corrupted for anything create_table would not have made.
 */
extern void catalog_read_row(OtsTable *t, HeapTuple tup, TupleDesc desc);

/*
 * catalog_check_definition: catalog_read_row and catalog_check_storage_shape
 * of a definition a role hands in (a restore's comment), whose errors are
 * invalid_parameter_value
 */
extern void catalog_check_definition(OtsTable *t, HeapTuple tup, TupleDesc desc, Oid nsp);

/* catalog_stream_id_valid: could s (len bytes) be a stream id ots made (a UUID's text)? */
extern bool catalog_stream_id_valid(const char *s, size_t len);

/* catalog_defined_column: t's defined column of that name, or NULL */
extern const OtsDefinedColumn *catalog_defined_column(const OtsTable *t, const char *name,
														uint32 namelen);

/*
 * catalog_index_base: the base table of index t (locked as catalog_lookup
 * locks), or damaged when it is gone; catalog_check_index_readable raises
 * Tablestore's error while t's backfill runs.
 */
extern OtsTable *catalog_index_base(const OtsTable *t);
extern void catalog_check_index_readable(const OtsTable *t);

/*
 * catalog_index_usable: may a query with that snapshot read index t as
 * complete (built, by a transaction the snapshot sees committed)?
 */
extern bool catalog_index_usable(const OtsTable *t, Snapshot snapshot);
extern bool catalog_check_storage(OtsTable *t, Oid nsp);

/*
 * catalog_has_primary_key: has the relation a primary key?  A registered
 * storage without one is a table a restore has not made all of yet.
 */
extern bool catalog_has_primary_key(Oid relid);

/*
 * catalog_check_leaf raises data_corrupted unless partition leaf of t's
 * storage is a plain table on the ots access method with a btree primary
 * key on the key columns (at keys[], 0 where missing); catalog_report_damaged
 * raises it saying what is wrong.
 */
extern void catalog_check_leaf(const OtsTable *t, Oid leaf, const AttrNumber *keys);
extern void catalog_report_damaged(const OtsTable *t, const char *what) pg_attribute_noreturn();

/* catalog_owns: does the current user own the relation (through membership too)? */
extern bool catalog_owns(Oid relid);

/*
 * catalog_lookup_owned: ots table schema.table (names, not an argument to
 * resolve), which the current user owns; OTSObjectNotExist when there is
 * no such table, insufficient_privilege when it is another's
 */
extern OtsTable *catalog_lookup_owned(const char *schema, const char *table);
/*
 * catalog_may_see: may the current user see the ots table nsp.table_name
 * (its owner, or USAGE on nsp and some privilege on its view or storage)?
 * catalog_may_see_storage: the same by the storage table's OID.
 */
extern bool catalog_may_see(Oid nsp, const char *table_name);
extern bool catalog_may_see_storage(Oid data_oid);

#endif							/* OTS_CATALOG_H */
