/*-------------------------------------------------------------------------
 * gateway/action_txn.c
 *	  Local transactions: StartLocalTransaction, CommitTransaction,
 *	  AbortTransaction.  Each transaction is one PostgreSQL transaction on a
 *	  connection pinned to it (pool.c); row actions naming its id run there.
 *
 * Tablestore asks for enable_local_txn at CreateTable; every ots table
 * allows them.
 *-------------------------------------------------------------------------
 */
#include <stdlib.h>
#include <string.h>

#include "action.h"

void
action_start_local_transaction(Call *call)
{
	Otsp__StartLocalTransactionRequest *req = UNPACK(start_local_transaction_request, call);
	Otsp__StartLocalTransactionResponse resp = OTSP__START_LOCAL_TRANSACTION_RESPONSE__INIT;
	PbRow		key;
	SqlCall		q;
	PGresult   *res;
	char	   *partition = NULL;
	const char *first;

	if (req == NULL)
	{
		reply_malformed(call);
		return;
	}
	if (!table_name_valid(call, req->table_name) || !decode_one_row(call, &req->key, &key))
		goto done;
	if (json_array_size(key.pk_order) != 1)
	{
		call_parameter_invalid(call, "StartLocalTransaction support only one primary key.");
		goto done_key;
	}
	/*
	 * the table must exist and the column be its partition key; and the role
	 * may write it (a row privilege on its storage "t$data"): the transaction
	 * holds the partition against every other writer, which a role that may
	 * only read must not be able to do
	 */
	sql_begin(&q, "SELECT ots.describe_table(");
	sql_arg(&q, req->table_name, "text");
	sql_end(&q, ") OPERATOR(pg_catalog.->) 'primary_key' OPERATOR(pg_catalog.->) 0 "
			"OPERATOR(pg_catalog.->>) 'name', " SQL_MAY_WRITE);
	res = sql_run(call, NULL, &q);
	sql_free(&q);
	if (res == NULL)
		goto done_key;
	if (strcmp(PQgetvalue(res, 0, 1), "t") != 0)
	{
		call_error(call, 403, "OTSNoPermissionAccess",
				   "You have no permission to access the requested resource, please contact the resource owner "
				   "(a local transaction needs INSERT, UPDATE or DELETE on ots table %s)", req->table_name);
		PQclear(res);
		goto done_key;
	}
	first = json_string_value(json_array_get(key.pk_order, 0));
	if (PQgetisnull(res, 0, 0) || strcmp(PQgetvalue(res, 0, 0), first) != 0)
	{
		call_error(call, 400, "OTSInvalidPK", "Validate PK name fail. Input: %s, Meta: %s.",
				   first, PQgetisnull(res, 0, 0) ? "" : PQgetvalue(res, 0, 0));
		PQclear(res);
		goto done_key;
	}
	PQclear(res);
	partition = partition_key_text(&key);
	resp.transaction_id = call_txn_start(call, req->table_name, partition);
	if (resp.transaction_id != NULL)
		call_reply(call, &resp.base);
	free(resp.transaction_id);
	free(partition);
done_key:
	pb_row_free(&key);
done:
	FREE(req);
}

void
action_commit_transaction(Call *call)
{
	Otsp__CommitTransactionRequest *req = UNPACK(commit_transaction_request, call);
	Otsp__CommitTransactionResponse resp = OTSP__COMMIT_TRANSACTION_RESPONSE__INIT;

	if (req == NULL)
	{
		reply_malformed(call);
		return;
	}
	if (call_txn_end(call, req->transaction_id, true))
		call_reply(call, &resp.base);
	FREE(req);
}

void
action_abort_transaction(Call *call)
{
	Otsp__AbortTransactionRequest *req = UNPACK(abort_transaction_request, call);
	Otsp__AbortTransactionResponse resp = OTSP__ABORT_TRANSACTION_RESPONSE__INIT;

	if (req == NULL)
	{
		reply_malformed(call);
		return;
	}
	resp.transaction_id = req->transaction_id;
	if (call_txn_end(call, req->transaction_id, false))
		call_reply(call, &resp.base);
	FREE(req);
}
