'use strict';
// GetRange, BatchGetRow and BatchWriteRow through the official Node SDK:
// what samples/getRange, batchGetRow and batchWriteRow do, with assertions:
// paging with limit and at the 5000-row cap through next_start_primary_key,
// both directions, per-row results and errors of the batches.
const assert = require('assert');
const {
    TableStore, Long, call, expectError, tableName, createTable, dropTable, int, columns, pk, condition,
} = require('./lib');

const ROWS = 5100;

async function writeRows(table, from, to) {
    // BatchWriteRow takes at most 200 rows
    for (let start = from; start < to; start += 200) {
        const rows = [];
        for (let i = start; i < Math.min(start + 200, to); i++) {
            rows.push({
                type: 'PUT', condition: condition('IGNORE'), primaryKey: [{ id: Long.fromNumber(i) }],
                attributeColumns: [{ n: Long.fromNumber(i) }, { s: `row${i}` }],
                returnContent: { returnType: TableStore.ReturnType.Primarykey },
            });
        }
        const r = await call('batchWriteRow', { tables: [{ tableName: table, rows }] });
        assert.strictEqual(r.tables.length, rows.length);
        r.tables.forEach((row, j) => {
            assert.strictEqual(row.isOk, true, `row ${start + j}: ${row.errorCode} ${row.errorMessage}`);
            assert.strictEqual(row.tableName, table);
            assert.deepStrictEqual(pk(row), [['id', start + j]], 'RT_PK in a batch');
        });
    }
}

function range(table, start, end, extra) {
    return call('getRange', Object.assign({
        tableName: table, direction: TableStore.Direction.FORWARD, maxVersions: 1,
        inclusiveStartPrimaryKey: [{ id: start }], exclusiveEndPrimaryKey: [{ id: end }],
    }, extra || {}));
}

describe('ranges and batches', function () {
    const t = tableName('gw_range');
    const t2 = tableName('gw_batch');

    before(async function () {
        this.timeout(300000);
        await createTable(t, [{ name: 'id', type: 'INTEGER' }]);
        await createTable(t2, [{ name: 'gid', type: 'INTEGER' }, { name: 'uid', type: 'INTEGER' }]);
        await writeRows(t, 0, ROWS);
    });
    after(async function () {
        await dropTable(t);
        await dropTable(t2);
    });

    it('getRange pages with limit through next_start_primary_key', async function () {
        let start = TableStore.INF_MIN;
        const seen = [];
        let pages = 0;
        for (;;) {
            const r = await range(t, start, Long.fromNumber(250), { limit: 100 });
            pages += 1;
            assert.ok(r.rows.length <= 100);
            for (const row of r.rows) {
                const id = pk(row)[0][1];
                const c = columns(row);
                assert.strictEqual(int(c.n[0].value), id);
                assert.strictEqual(c.s[0].value, `row${id}`);
                seen.push(id);
            }
            if (!r.nextStartPrimaryKey) {
                break;
            }
            assert.strictEqual(r.nextStartPrimaryKey.length, 1);
            assert.strictEqual(r.nextStartPrimaryKey[0].name, 'id');
            assert.strictEqual(int(r.nextStartPrimaryKey[0].value), seen[seen.length - 1] + 1, 'next = the first row not returned');
            start = r.nextStartPrimaryKey[0].value;
            assert.ok(pages < 10, 'paging ends');
        }
        assert.strictEqual(pages, 3, 'pages of 100, 100, 50');
        assert.deepStrictEqual(seen, Array.from({ length: 250 }, (_, i) => i));
    });

    it('getRange: exactly limit rows left means no next key', async function () {
        const r = await range(t, Long.fromNumber(10), Long.fromNumber(60), { limit: 50 });
        assert.strictEqual(r.rows.length, 50);
        assert.strictEqual(r.nextStartPrimaryKey, null);
        const r2 = await range(t, Long.fromNumber(10), Long.fromNumber(61), { limit: 50 });
        assert.strictEqual(r2.rows.length, 50);
        assert.strictEqual(int(r2.nextStartPrimaryKey[0].value), 60);
    });

    it(`getRange without limit stops at 5000 rows of ${ROWS}`, async function () {
        this.timeout(120000);
        const first = await range(t, TableStore.INF_MIN, TableStore.INF_MAX);
        assert.strictEqual(first.rows.length, 5000);
        assert.strictEqual(pk(first.rows[4999])[0][1], 4999);
        assert.strictEqual(int(first.nextStartPrimaryKey[0].value), 5000);
        assert.ok(first.consumed.capacityUnit.read >= 1);
        const second = await range(t, first.nextStartPrimaryKey[0].value, TableStore.INF_MAX);
        assert.strictEqual(second.rows.length, ROWS - 5000);
        assert.strictEqual(pk(second.rows[0])[0][1], 5000);
        assert.strictEqual(second.nextStartPrimaryKey, null);
    });

    it('getRange BACKWARD, columnsToGet, a filter, an empty range', async function () {
        const r = await call('getRange', {
            tableName: t, direction: TableStore.Direction.BACKWARD, maxVersions: 1, limit: 3,
            inclusiveStartPrimaryKey: [{ id: Long.fromNumber(20) }], exclusiveEndPrimaryKey: [{ id: Long.fromNumber(10) }],
            columnsToGet: ['s'],
        });
        assert.deepStrictEqual(r.rows.map((row) => pk(row)[0][1]), [20, 19, 18]);
        assert.deepStrictEqual(r.rows.map((row) => Object.keys(columns(row))), [['s'], ['s'], ['s']]);
        assert.strictEqual(int(r.nextStartPrimaryKey[0].value), 17);

        const even = new TableStore.SingleColumnCondition('s', 'row15', TableStore.ComparatorType.GREATER_EQUAL);
        const f = await range(t, Long.fromNumber(10), Long.fromNumber(20), { columnFilter: even });
        // strings compare bytewise: row15..row19 (and not row10..row14)
        assert.deepStrictEqual(f.rows.map((row) => pk(row)[0][1]), [15, 16, 17, 18, 19]);

        const empty = await range(t, Long.fromNumber(ROWS + 10), Long.fromNumber(ROWS + 20));
        assert.deepStrictEqual(empty.rows, []);
        assert.strictEqual(empty.nextStartPrimaryKey, null);

        await expectError(range(t, Long.fromNumber(20), Long.fromNumber(10)), 400, 'OTSParameterInvalid',
            'Begin key must less than end key in FORWARD');
    });

    it('batchWriteRow (the sample): UPDATE and PUT rows, per-row results', async function () {
        const r = await call('batchWriteRow', {
            tables: [{
                tableName: t2,
                rows: [
                    {
                        type: 'UPDATE', condition: condition('IGNORE'), primaryKey: [{ gid: Long.fromNumber(8) }, { uid: Long.fromNumber(80) }],
                        attributeColumns: [{ PUT: [{ attrCol1: 'test3' }, { attrCol2: 'test4' }] }], returnContent: { returnType: 1 },
                    },
                    {
                        type: 'PUT', condition: condition('IGNORE'), primaryKey: [{ gid: Long.fromNumber(8) }, { uid: Long.fromNumber(81) }],
                        attributeColumns: [{ attrCol1: 'test1' }, { attrCol2: 'test2' }], returnContent: { returnType: TableStore.ReturnType.Primarykey },
                    },
                    // fails its condition, alone
                    {
                        type: 'PUT', condition: condition('EXPECT_EXIST'), primaryKey: [{ gid: Long.fromNumber(8) }, { uid: Long.fromNumber(82) }],
                        attributeColumns: [{ attrCol1: 'never' }],
                    },
                    {
                        type: 'DELETE', condition: condition('IGNORE'), primaryKey: [{ gid: Long.fromNumber(8) }, { uid: Long.fromNumber(83) }],
                    },
                ],
            }],
        });
        assert.deepStrictEqual(r.tables.map((row) => [row.isOk, row.errorCode]),
            [[true, null], [true, null], [false, 'OTSConditionCheckFail'], [true, null]]);
        assert.strictEqual(r.tables[2].errorMessage, 'Condition check failed.');
        assert.deepStrictEqual(pk(r.tables[0]), [['gid', 8], ['uid', 80]]);
        assert.deepStrictEqual(pk(r.tables[1]), [['gid', 8], ['uid', 81]]);

        const g = await call('getRow', { tableName: t2, primaryKey: [{ gid: Long.fromNumber(8) }, { uid: Long.fromNumber(80) }] });
        assert.deepStrictEqual(Object.fromEntries(Object.entries(columns(g.row)).map(([k, v]) => [k, v[0].value])),
            { attrCol1: 'test3', attrCol2: 'test4' });
        const none = await call('getRow', { tableName: t2, primaryKey: [{ gid: Long.fromNumber(8) }, { uid: Long.fromNumber(82) }] });
        assert.deepStrictEqual(none.row, {}, 'the failed row wrote nothing');
    });

    it('batchGetRow (the sample): rows in request order, a missing row, per-row errors', async function () {
        const missingTable = tableName('gw_nosuch');
        const r = await call('batchGetRow', {
            tables: [
                {
                    tableName: t2,
                    primaryKey: [
                        [{ gid: Long.fromNumber(8) }, { uid: Long.fromNumber(81) }],
                        [{ gid: Long.fromNumber(20015) }, { uid: Long.fromNumber(20015) }],
                        [{ gid: Long.fromNumber(8) }, { uid: Long.fromNumber(80) }],
                        [{ gid: 'wrong type' }, { uid: Long.fromNumber(1) }],
                    ],
                    startColumn: 'attrCol1', endColumn: 'attrCol2',
                },
                { tableName: missingTable, primaryKey: [[{ id: Long.fromNumber(1) }]] },
            ],
        });
        assert.strictEqual(r.tables.length, 2);
        const [rows, missing] = r.tables;
        assert.deepStrictEqual(rows.map((row) => row.isOk), [true, true, true, false]);
        assert.deepStrictEqual(pk(rows[0]), [['gid', 8], ['uid', 81]]);
        // start_column inclusive, end_column exclusive
        assert.deepStrictEqual(Object.keys(columns(rows[0])), ['attrCol1']);
        assert.strictEqual(rows[1].primaryKey, null, 'a missing row is ok and empty');
        assert.deepStrictEqual(pk(rows[2]), [['gid', 8], ['uid', 80]]);
        assert.strictEqual(rows[3].errorCode, 'OTSInvalidPK');
        assert.ok(/^Validate PK type fail/.test(rows[3].errorMessage), rows[3].errorMessage);
        assert.strictEqual(missing.length, 1);
        assert.strictEqual(missing[0].isOk, false);
        assert.strictEqual(missing[0].errorCode, 'OTSObjectNotExist');
        assert.strictEqual(missing[0].errorMessage, 'Requested table does not exist.');
    });

    it('batch limits: 201 rows, an empty batch', async function () {
        const rows = [];
        for (let i = 0; i < 201; i++) {
            rows.push({ type: 'PUT', condition: condition('IGNORE'), primaryKey: [{ id: Long.fromNumber(i) }], attributeColumns: [{ a: 'x' }] });
        }
        await expectError(call('batchWriteRow', { tables: [{ tableName: t, rows }] }), 400, 'OTSParameterInvalid',
            'Rows count exceeds the upper limit: 200.');
        const keys = [];
        for (let i = 0; i < 101; i++) {
            keys.push([{ id: Long.fromNumber(i) }]);
        }
        await expectError(call('batchGetRow', { tables: [{ tableName: t, primaryKey: keys }] }), 400, 'OTSParameterInvalid',
            'Rows count exceeds the upper limit: 100.');
        // a table entry without keys reads nothing and is no error (Tablestore: the Python SDK's
        // test_no_item_in_batch_ops); one without rows to write is
        const r = await call('batchGetRow', {
            tables: [{ tableName: t2, primaryKey: [[{ gid: Long.fromNumber(8) }, { uid: Long.fromNumber(81) }]] },
                { tableName: t, primaryKey: [] }],
        });
        assert.deepStrictEqual(r.tables.map((table) => table.length), [1, 0]);
        assert.strictEqual(r.tables[0][0].isOk, true);
        const only = await call('batchGetRow', { tables: [{ tableName: t, primaryKey: [] }] });
        assert.deepStrictEqual(only.tables.map((table) => table.length), [0]);
        await expectError(call('batchWriteRow', { tables: [{ tableName: t, rows: [] }] }), 400, 'OTSParameterInvalid',
            `No operation is specified for table: '${t}'.`);
    });
});
