'use strict';
// Errors as the Node SDK sees them (HTTP status + the protobuf Error's code
// and message) and privileges: the second access key acts as gw_other, a role
// with no privilege on the first key's (gw_app's) tables.
const assert = require('assert');
const {
    TableStore, Long, call, other, expectError, errorOf, tableName, createTable, dropTable, columns, condition,
} = require('./lib');

describe('errors', function () {
    const t = tableName('gw_errors');

    before(async function () {
        await createTable(t, [{ name: 'gid', type: 'INTEGER' }, { name: 'uid', type: 'INTEGER' }]);
        await call('putRow', {
            tableName: t, condition: condition('IGNORE'), primaryKey: [{ gid: Long.fromNumber(1) }, { uid: Long.fromNumber(1) }],
            attributeColumns: [{ secret: 'only gw_app reads this' }],
        });
    });
    after(async function () {
        await dropTable(t);
    });

    it('a missing table: 404 OTSObjectNotExist for reads and writes', async function () {
        const missing = tableName('gw_missing');
        const k = [{ id: 'x' }];
        await expectError(call('getRow', { tableName: missing, primaryKey: k }), 404, 'OTSObjectNotExist', 'Requested table does not exist.');
        await expectError(call('putRow', { tableName: missing, condition: condition('IGNORE'), primaryKey: k, attributeColumns: [{ a: 1.5 }] }),
            404, 'OTSObjectNotExist', 'Requested table does not exist.');
        await expectError(call('getRange', {
            tableName: missing, direction: 'FORWARD', inclusiveStartPrimaryKey: [{ id: TableStore.INF_MIN }],
            exclusiveEndPrimaryKey: [{ id: TableStore.INF_MAX }],
        }), 404, 'OTSObjectNotExist', 'Requested table does not exist.');
    });

    it('a primary key unlike the table\'s: 400 OTSInvalidPK', async function () {
        await expectError(call('getRow', { tableName: t, primaryKey: [{ gid: Long.fromNumber(1) }] }), 400, 'OTSInvalidPK',
            'Validate PK size fail. Input: 1, Meta: 2.');
        await expectError(call('getRow', { tableName: t, primaryKey: [{ gid: Long.fromNumber(1) }, { other: Long.fromNumber(1) }] }),
            400, 'OTSInvalidPK', 'Validate PK name fail. Input: other, Meta: uid.');
        await expectError(call('putRow', {
            tableName: t, condition: condition('IGNORE'), primaryKey: [{ gid: 'one' }, { uid: Long.fromNumber(1) }], attributeColumns: [{ a: 'x' }],
        }), 400, 'OTSInvalidPK', 'Validate PK type fail. Input: VT_STRING, Meta: VT_INTEGER.');
    });

    it('parameter errors: 400 OTSParameterInvalid with Tablestore\'s text', async function () {
        await expectError(call('updateRow', {
            tableName: t, condition: condition('IGNORE'), primaryKey: [{ gid: Long.fromNumber(1) }, { uid: Long.fromNumber(1) }],
            updateOfAttributeColumns: [],
        }), 400, 'OTSParameterInvalid');
        await expectError(call('getRange', {
            tableName: t, direction: 'FORWARD', limit: -1, // (the SDK does not send a limit of 0)
            inclusiveStartPrimaryKey: [{ gid: TableStore.INF_MIN }, { uid: TableStore.INF_MIN }],
            exclusiveEndPrimaryKey: [{ gid: TableStore.INF_MAX }, { uid: TableStore.INF_MAX }],
        }), 400, 'OTSParameterInvalid', 'The limit must be greater than 0.');
        await expectError(call('putRow', {
            tableName: t, condition: condition('IGNORE'), primaryKey: [{ gid: Long.fromNumber(1) }, { uid: Long.fromNumber(1) }],
            attributeColumns: [{ 'bad name': 'x' }],
        }), 400, 'OTSParameterInvalid', "Invalid column name: 'bad name'.");
    });

    describe('privileges (a second key, a role without grants)', function () {
        const k = [{ gid: Long.fromNumber(1) }, { uid: Long.fromNumber(1) }];

        it('may not read the other role\'s table: 403 OTSNoPermissionAccess', async function () {
            await expectError(call('getRow', { tableName: t, primaryKey: k }, other()), 403, 'OTSNoPermissionAccess');
            await expectError(call('getRange', {
                tableName: t, direction: 'FORWARD',
                inclusiveStartPrimaryKey: [{ gid: TableStore.INF_MIN }, { uid: TableStore.INF_MIN }],
                exclusiveEndPrimaryKey: [{ gid: TableStore.INF_MAX }, { uid: TableStore.INF_MAX }],
            }, other()), 403, 'OTSNoPermissionAccess');
        });

        it('may not write it, and nothing is written', async function () {
            await expectError(call('putRow', {
                tableName: t, condition: condition('IGNORE'), primaryKey: k, attributeColumns: [{ secret: 'overwritten' }],
            }, other()), 403, 'OTSNoPermissionAccess');
            await expectError(call('updateRow', {
                tableName: t, condition: condition('IGNORE'), primaryKey: k, updateOfAttributeColumns: [{ PUT: [{ secret: 'changed' }] }],
            }, other()), 403, 'OTSNoPermissionAccess');
            await expectError(call('deleteRow', { tableName: t, condition: condition('IGNORE'), primaryKey: k }, other()),
                403, 'OTSNoPermissionAccess');
            const got = await call('getRow', { tableName: t, primaryKey: k });
            assert.strictEqual(columns(got.row).secret[0].value, 'only gw_app reads this');
        });

        it('a batch of it is refused whole', async function () {
            // ots refuses a batch without privileges for the whole call, never as a row's result
            await expectError(call('batchGetRow', { tables: [{ tableName: t, primaryKey: [k] }] }, other()), 403, 'OTSNoPermissionAccess');
            await expectError(call('batchWriteRow', {
                tables: [{ tableName: t, rows: [{ type: 'PUT', condition: condition('IGNORE'), primaryKey: k, attributeColumns: [{ a: 'x' }] }] }],
            }, other()), 403, 'OTSNoPermissionAccess');
        });

        it('does not see it in listTable; may not drop it or create tables', async function () {
            const mine = await call('listTable', {});
            assert.ok(mine.tableNames.includes(t));
            const theirs = await call('listTable', {}, other());
            assert.ok(!theirs.tableNames.includes(t), `${t} listed for gw_other`);
            let e;
            try {
                await call('deleteTable', { tableName: t }, other());
            } catch (err) {
                e = errorOf(err);
            }
            assert.ok(e, 'deleteTable by gw_other succeeded');
            assert.ok((e.status === 403 && e.code === 'OTSNoPermissionAccess') || (e.status === 404 && e.code === 'OTSObjectNotExist'),
                `deleteTable by gw_other: ${e.status} ${e.code}`);
            await call('describeTable', { tableName: t }); // still there
            await expectError(createTable(tableName('gw_other_t'), [{ name: 'a', type: 'STRING' }], {}, other()),
                403, 'OTSNoPermissionAccess');
        });
    });
});
