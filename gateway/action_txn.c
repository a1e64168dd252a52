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

/*
 * StartLocalTransaction: the key's role must be able to write the table
 * (a row privilege on its storage "t$data"): the transaction holds its
 * partition against every other writer, which a role that may only read
 * must not be able to do.  The partition is the table as the role
 * resolves the name and the value of its partition-key column, the one
 * cell the request's key holds.
 */
void
action_start_local_transaction(Call *call)
{
	Otsp__StartLocalTransactionRequest *req = UNPACK(start_local_transaction_request, call);
	Otsp__StartLocalTransactionResponse resp = OTSP__START_LOCAL_TRANSACTION_RESPONSE__INIT;
	PbRow		key;
	ResolvedTable table = {0};
	const char *given;
	char	   *value;

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
	if (!table_resolve(call, req->table_name, false, &table))
		goto done_key;
	if (!table.may_write)
	{
		call_error(call, 403, "OTSNoPermissionAccess",
				   "You have no permission to access the requested resource, please contact the resource owner "
				   "(a local transaction needs INSERT, UPDATE or DELETE on ots table %s)", req->table_name);
		goto done_key;
	}
	given = json_string_value(json_array_get(key.pk_order, 0));
	if (strcmp(given, table.column) != 0)
	{
		call_error(call, 400, "OTSInvalidPK", "Validate PK name fail. Input: %s, Meta: %s.",
				   given, table.column);
		goto done_key;
	}
	value = json_text(json_object_get(key.primary_key, given));
	resp.transaction_id = call_txn_start(call, &(TxnPartition) {
		req->table_name, table.resolved, table.column, value
	});
	if (resp.transaction_id != NULL)
		call_reply(call, &resp.base);
	free(resp.transaction_id);
	free(value);
done_key:
	resolved_table_free(&table);
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
