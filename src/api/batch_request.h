/*-------------------------------------------------------------------------
 * src/api/batch_request.h
 *	  The shape of batch_get_row's and batch_write_row's requests, read and
 *	  checked for batch.c, which runs their rows.
 *-------------------------------------------------------------------------
 */
#ifndef OTS_BATCH_REQUEST_H
#define OTS_BATCH_REQUEST_H

#include "postgres.h"
#include "utils/jsonb.h"

#include "meta/catalog.h"
#include "format/request_fields.h"
#include "api/request.h"
#include "api/row_ops.h"

/* the forms of the members of a row or table entry, as request fields take them */
typedef enum BatchMemberForm
{
	BATCH_OWN,					/* read by the batch itself ("type", "primary_key") */
	BATCH_JSONB,				/* any JSON: Jsonb * */
	BATCH_STRING,				/* a JSON string: const char * */
	BATCH_NAMES					/* a JSON array of column names: text[] */
} BatchMemberForm;

/* a member of a batch_write_row row and the request field it fills */
typedef struct BatchMember
{
	const char *key;
	BatchMemberForm form;
	size_t		field;			/* offsetof(RowWriteRequest, ...) */
} BatchMember;

/*
 * a row "type" of batch_write_row: the write it runs and every member a
 * row of that type has, the ones that write reads in the order it reads
 * them; they are the row's fields (a row with any other is refused), so
 * the members are the list of its RequestFields
 */
typedef struct BatchWriteType
{
	const char *name;			/* "PUT" */
	RowWriteKind kind;
	bool		bulk;			/* a plain row may take the bulk path */
	const BatchMember *members; /* fields.n of them */
	RequestFields fields;
} BatchWriteType;

/* one row of a batch_write_row request, as the checks and both write paths see it */
typedef struct BatchRow
{
	JsonbContainer *row;
	const BatchWriteType *type;
	JsonbValue	pk;				/* jbvNull when absent */
	Datum		pk_jsonb;		/* the same as a jsonb Datum, when an object */
	uint32		pk_hash;
	bool		repeated;		/* another row of its table (in any entry) has the same key */
} BatchRow;

/* the rows of a batch_write_row request, by table entry */
typedef struct BatchWrite
{
	int			ntables;
	int			total;			/* rows */
	BatchRow  **tables;			/* tables[i][r]: row r of entry i */
	const char **names;			/* the entries' table names */
	int		   *counts;			/* the entries' row counts */
} BatchWrite;

/* batch_entry returns table entry i and its table name */
extern JsonbContainer *batch_entry(Jsonb *request, int i, const char **table_name);

/* batch_list returns the entry's array member "key" */
extern JsonbContainer *batch_list(JsonbContainer *entry, const char *key, const char *table_name);

/* batch_get_read checks a batch_get_row request's shape; returns its number of keys */
extern int	batch_get_read(Jsonb *request, int *ntables);

/* batch_get_request reads a batch_get_row table entry's read options into its rows' request */
extern void batch_get_request(RowGetRequest *req, const char *name, JsonbContainer *entry);

/* batch_write_check_count refuses more rows than a batch_write_row request may have */
extern void batch_write_check_count(int nrows);

/* batch_write_read reads every row of a batch_write_row request and applies its whole-request checks */
extern void batch_write_read(BatchWrite *bw, Jsonb *request);

/* batch_is_plain: a PUT or DELETE that needs no read and returns nothing (the bulk path's) */
extern bool batch_is_plain(const BatchRow *br);

/* batch_partition_key renders a row key's partition-key value for messages; NULL: none */
extern char *batch_partition_key(const OtsTable *t, JsonbValue *pk);

/* batch_put_attributes: a PUT row's attributes (NULL: none) */
extern Jsonb *batch_put_attributes(const BatchRow *row);

/* batch_write_request builds the write request of one row */
extern void batch_write_request(RowWriteRequest *req, text *table_name, const BatchRow *br);

#endif							/* OTS_BATCH_REQUEST_H */
