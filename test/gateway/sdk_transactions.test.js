'use strict';
// Local transactions through the official Node SDK (StartLocalTransaction,
// CommitTransaction, AbortTransaction; reads and writes with transactionId):
// visibility before and after commit, abort discards, one transaction per
// partition key, finished ids refused.  (The SDK has no Stream calls; the
// Stream actions are exercised in protocol_test.py.)
const assert = require('assert');
const {
    TableStore, Long, call, other, expectError, errorOf, tableName, createTable, dropTable, int, columns, condition,
} = require('./lib');

/*
 * The Node SDK 5.6.5 decodes an AbortTransaction reply as an
 * AbortTransactionRequest, whose transaction_id is required: otsd echoes the
 * id in its reply (field 1, which other SDKs skip as unknown), so the call
 * succeeds; the tests also prove the abort by its effects.
 */
async function abort(id) {
    return await call('abortTransaction', { transactionId: id });
}

describe('local transactions', function () {
    const t = tableName('gw_txn');
    const row = (p, s) => [{ p }, { s: Long.fromNumber(s) }];
    const read = async (p, s, txn) => {
        const params = { tableName: t, primaryKey: row(p, s) };
        if (txn) {
            params.transactionId = txn;
        }
        const got = await call('getRow', params);
        const c = columns(got.row);
        return c.v ? int(c.v[0].value) : null;
    };
    const put = (p, s, v, txn) => {
        const params = { tableName: t, condition: condition('IGNORE'), primaryKey: row(p, s), attributeColumns: [{ v: Long.fromNumber(v) }] };
        if (txn) {
            params.transactionId = txn;
        }
        return call('putRow', params);
    };
    const start = async (p) => {
        const r = await call('startLocalTransaction', { tableName: t, primaryKey: [{ p }] });
        assert.ok(typeof r.transactionId === 'string' && r.transactionId.length >= 8, `a transaction id: ${r.transactionId}`);
        return r.transactionId;
    };

    before(async function () {
        await createTable(t, [{ name: 'p', type: 'STRING' }, { name: 's', type: 'INTEGER' }]);
        await put('a', 1, 100);
    });
    after(async function () {
        await dropTable(t);
    });

    it('writes inside are visible inside, invisible outside until commit', async function () {
        const id = await start('a');
        await put('a', 1, 101, id);
        await put('a', 2, 200, id);
        await call('updateRow', {
            tableName: t, condition: condition('EXPECT_EXIST'), primaryKey: row('a', 1), transactionId: id,
            updateOfAttributeColumns: [{ INCREMENT: [{ v: Long.fromNumber(1) }] }],
        });
        assert.strictEqual(await read('a', 1, id), 102, 'the transaction reads its own writes');
        assert.strictEqual(await read('a', 2, id), 200);
        const r = await call('getRange', {
            tableName: t, direction: 'FORWARD', transactionId: id,
            inclusiveStartPrimaryKey: [{ p: 'a' }, { s: TableStore.INF_MIN }], exclusiveEndPrimaryKey: [{ p: 'a' }, { s: TableStore.INF_MAX }],
        });
        assert.strictEqual(r.rows.length, 2, 'GetRange in the transaction sees both rows');

        assert.strictEqual(await read('a', 1), 100, 'outside: the committed value');
        assert.strictEqual(await read('a', 2), null, 'outside: no row yet');

        const c = await call('commitTransaction', { transactionId: id });
        assert.ok(c, 'a CommitTransactionResponse');
        assert.strictEqual(await read('a', 1), 102, 'committed');
        assert.strictEqual(await read('a', 2), 200, 'committed');

        await expectError(call('commitTransaction', { transactionId: id }), 404, 'OTSSessionNotExist',
            'Session not exist or may be timeout.');
    });

    it('abort discards the transaction\'s writes', async function () {
        const id = await start('a');
        await put('a', 1, 999, id);
        await call('deleteRow', { tableName: t, condition: condition('IGNORE'), primaryKey: row('a', 2), transactionId: id });
        assert.strictEqual(await read('a', 1, id), 999);
        assert.strictEqual(await read('a', 2, id), null);
        await abort(id);
        assert.strictEqual(await read('a', 1), 102, 'the put was discarded');
        assert.strictEqual(await read('a', 2), 200, 'the delete was discarded');
        await expectError(call('commitTransaction', { transactionId: id }), 404, 'OTSSessionNotExist',
            'Session not exist or may be timeout.');
    });

    it('one transaction per partition key: a second start and outside writes conflict (409)', async function () {
        const id = await start('b');
        await expectError(call('startLocalTransaction', { tableName: t, primaryKey: [{ p: 'b' }] }), 409, 'OTSRowOperationConflict');
        await expectError(put('b', 1, 1), 409, 'OTSRowOperationConflict');
        // another partition key is free
        const idc = await start('c');
        await put('c', 1, 1, idc);
        await call('commitTransaction', { transactionId: idc });
        assert.strictEqual(await read('c', 1), 1);
        // a transaction writes only its own partition key
        let e;
        try {
            await put('c', 2, 2, id);
        } catch (err) {
            e = errorOf(err);
        }
        assert.ok(e && e.status >= 400 && e.status < 500, `a write of another partition key in the transaction: ${e && e.text}`);
        await abort(id);
        // once it ended, the key is free again
        await put('b', 1, 1);
        assert.strictEqual(await read('b', 1), 1);
    });

    it('ids: empty, not one otsd issues, unknown, and another key\'s are refused', async function () {
        await expectError(call('commitTransaction', { transactionId: '' }), 400, 'OTSParameterInvalid', 'TransactionID is invalid.');
        // an id otsd could not have issued is the client's mistake (Tablestore: 400); one it
        // could have issued whose session is gone, 404
        for (const bad of ['no-such-transaction-0000', '0'.repeat(31), '0'.repeat(33), 'A'.repeat(32)]) {
            await expectError(call('commitTransaction', { transactionId: bad }), 400, 'OTSParameterInvalid', 'TransactionID is invalid.');
            await expectError(call('getRow', { tableName: t, primaryKey: [{ p: 'z' }, { s: Long.fromNumber(1) }], transactionId: bad }),
                400, 'OTSParameterInvalid', 'TransactionID is invalid.');
        }
        await expectError(call('commitTransaction', { transactionId: '0'.repeat(32) }), 404, 'OTSSessionNotExist');
        const id = await start('d');
        await expectError(call('commitTransaction', { transactionId: id }, other()), 404, 'OTSSessionNotExist');
        await call('commitTransaction', { transactionId: id });
    });

    it('StartLocalTransaction takes the partition key only', async function () {
        await expectError(call('startLocalTransaction', { tableName: t, primaryKey: [{ p: 'e' }, { s: Long.fromNumber(1) }] }),
            400, 'OTSParameterInvalid', 'StartLocalTransaction support only one primary key.');
    });
});
