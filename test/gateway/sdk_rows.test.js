'use strict';
// Single-row actions through the official Node SDK, with assertions on every
// returned value: what samples/putRow, getRow, updateRow, deleteRow,
// conditionUpdateRow, increment, multiVersion, primarykey and AutoIncrement
// do, and the SDK's own data_opration test (a Binary key column).
const assert = require('assert');
const {
    TableStore, Long, call, expectError, tableName, createTable, dropTable, int, columns, pk, condition,
} = require('./lib');

const key = (g, u) => [{ gid: Long.fromNumber(g) }, { uid: u }];

describe('rows', function () {
    const t = tableName('gw_rows');
    const auto = tableName('gw_autoinc_rows');
    const bin = tableName('gw_binpk');

    before(async function () {
        await createTable(t, [{ name: 'gid', type: 'INTEGER' }, { name: 'uid', type: 'STRING' }], { maxVersions: 3 });
    });
    after(async function () {
        for (const name of [t, auto, bin]) {
            await dropTable(name);
        }
    });

    it('putRow then getRow: every value type comes back as written', async function () {
        const before = Date.now();
        const given = before - 60000; // a timestamp of its own, within the max version offset (1 day)
        const blob = Buffer.from([0x00, 0xff, 0x10, 0x80, 0x7f]);
        const put = await call('putRow', {
            tableName: t, condition: condition('IGNORE'), primaryKey: key(20013, 'u1'),
            attributeColumns: [
                { str: '表格存储' },
                { ts_given: 'v', timestamp: given },
                { dbl: 3.1 },
                { neg_dbl: -0.32 },
                { whole_dbl: 3 }, // a JS number: the SDK sends a Double, which must stay a Double
                { int: Long.fromNumber(123456789) },
                { neg_int: Long.fromNumber(-42) },
                { big_int: Long.fromString('9007199254740993') }, // past 2^53
                { yes: true },
                { no: false },
                { bin: blob },
                { empty: '' },
            ],
            returnContent: { returnType: TableStore.ReturnType.Primarykey },
        });
        const after = Date.now();
        assert.deepStrictEqual(pk(put.row), [['gid', 20013], ['uid', 'u1']], 'RT_PK returns the key');
        assert.ok(put.consumed && put.consumed.capacityUnit, 'consumed.capacity_unit');
        assert.ok(put.consumed.capacityUnit.write >= 1, `write CU ${put.consumed.capacityUnit.write}`);

        const got = await call('getRow', { tableName: t, primaryKey: key(20013, 'u1') });
        assert.deepStrictEqual(pk(got.row), [['gid', 20013], ['uid', 'u1']]);
        assert.ok(got.consumed.capacityUnit.read >= 1, `read CU ${got.consumed.capacityUnit.read}`);
        const c = columns(got.row);
        // in column name order, bytewise, as Tablestore returns a row's columns (not jsonb's
        // shorter-names-first order)
        const order = got.row.attributes.map((a) => a.columnName);
        assert.deepStrictEqual(order, [...order].sort((x, y) => Buffer.compare(Buffer.from(x), Buffer.from(y))),
            `columns in name order: ${order}`);
        assert.deepStrictEqual(Object.keys(c).sort(),
            ['big_int', 'bin', 'dbl', 'empty', 'int', 'neg_dbl', 'neg_int', 'no', 'str', 'ts_given', 'whole_dbl', 'yes'],
            'all the columns, once each (max_versions 1 read)');
        assert.strictEqual(c.str[0].value, '表格存储');
        assert.strictEqual(c.ts_given[0].value, 'v');
        assert.strictEqual(int(c.ts_given[0].timestamp), given, 'the given timestamp');
        assert.strictEqual(c.dbl[0].value, 3.1);
        assert.strictEqual(c.neg_dbl[0].value, -0.32);
        assert.strictEqual(typeof c.whole_dbl[0].value, 'number', 'a whole Double is still a Double');
        assert.strictEqual(c.whole_dbl[0].value, 3);
        assert.strictEqual(int(c.int[0].value), 123456789);
        assert.strictEqual(int(c.neg_int[0].value), -42);
        assert.strictEqual(c.big_int[0].value.toString(), '9007199254740993', 'int64 beyond 2^53 exact');
        assert.strictEqual(c.yes[0].value, true);
        assert.strictEqual(c.no[0].value, false);
        assert.ok(Buffer.isBuffer(c.bin[0].value), 'Binary comes back as a Buffer');
        assert.ok(c.bin[0].value.equals(blob), `binary bytes ${c.bin[0].value.toString('hex')}`);
        assert.strictEqual(c.empty[0].value, '');
        // cells without a timestamp get the server's time of the write
        const stamp = int(c.str[0].timestamp);
        assert.ok(stamp >= before - 1000 && stamp <= after + 1000, `server timestamp ${stamp} within [${before}, ${after}]`);
    });

    it('getRow: columnsToGet, a missing row, a filter', async function () {
        const some = await call('getRow', { tableName: t, primaryKey: key(20013, 'u1'), columnsToGet: ['str', 'int', 'nothere'] });
        assert.deepStrictEqual(Object.keys(columns(some.row)).sort(), ['int', 'str']);
        assert.deepStrictEqual(pk(some.row), [['gid', 20013], ['uid', 'u1']], 'the key always comes back');

        const none = await call('getRow', { tableName: t, primaryKey: key(1, 'nobody') });
        assert.deepStrictEqual(none.row, {}, 'a missing row is no row, not an error');

        // the sample's filter: col1 = ... AND col5 = ...
        const pass = new TableStore.CompositeCondition(TableStore.LogicalOperator.AND);
        pass.addSubCondition(new TableStore.SingleColumnCondition('str', '表格存储', TableStore.ComparatorType.EQUAL));
        pass.addSubCondition(new TableStore.SingleColumnCondition('int', Long.fromNumber(123456789), TableStore.ComparatorType.EQUAL));
        const hit = await call('getRow', { tableName: t, primaryKey: key(20013, 'u1'), columnFilter: pass });
        assert.deepStrictEqual(pk(hit.row), [['gid', 20013], ['uid', 'u1']]);

        const fail = new TableStore.SingleColumnCondition('int', Long.fromNumber(5), TableStore.ComparatorType.GREATER_THAN, true);
        const gt = await call('getRow', { tableName: t, primaryKey: key(20013, 'u1'), columnFilter: fail });
        assert.deepStrictEqual(pk(gt.row), [['gid', 20013], ['uid', 'u1']], 'int > 5 passes');
        const lt = new TableStore.SingleColumnCondition('int', Long.fromNumber(5), TableStore.ComparatorType.LESS_THAN, true);
        const miss = await call('getRow', { tableName: t, primaryKey: key(20013, 'u1'), columnFilter: lt });
        assert.deepStrictEqual(miss.row, {}, 'int < 5 filters the row out');

        // a missing column passes only with pass_if_missing
        const absentPass = new TableStore.SingleColumnCondition('absent', 'x', TableStore.ComparatorType.EQUAL, true);
        const absentFail = new TableStore.SingleColumnCondition('absent', 'x', TableStore.ComparatorType.EQUAL, false);
        assert.ok((await call('getRow', { tableName: t, primaryKey: key(20013, 'u1'), columnFilter: absentPass })).row.primaryKey);
        assert.deepStrictEqual((await call('getRow', { tableName: t, primaryKey: key(20013, 'u1'), columnFilter: absentFail })).row, {});

        // column pagination: offset 1, limit 2 over the columns in name order
        const page = await call('getRow', {
            tableName: t, primaryKey: key(20013, 'u1'), columnFilter: new TableStore.ColumnPaginationFilter(2, 1),
        });
        assert.deepStrictEqual(Object.keys(columns(page.row)), ['bin', 'dbl']);
    });

    it('putRow replaces the whole row', async function () {
        await call('putRow', {
            tableName: t, condition: condition('IGNORE'), primaryKey: key(20013, 'u1'), attributeColumns: [{ only: 'one' }],
        });
        const got = await call('getRow', { tableName: t, primaryKey: key(20013, 'u1') });
        assert.deepStrictEqual(Object.keys(columns(got.row)), ['only']);
    });

    it('updateRow: PUT, DELETE of one version, DELETE_ALL; versions and time ranges', async function () {
        const k = key(9, 'u90');
        // versions of their own, within the max version offset (1 day)
        const t0 = Date.now() - 10000;
        const [t1, t2, t3] = [t0 + 1000, t0 + 2000, t0 + 3000];
        await call('updateRow', {
            tableName: t, condition: condition('IGNORE'), primaryKey: k,
            updateOfAttributeColumns: [{ PUT: [{ col1: 'v1', timestamp: t1 }, { col2: 'keep' }, { col3: Long.fromNumber(3) }] }],
        });
        await call('updateRow', {
            tableName: t, condition: condition('IGNORE'), primaryKey: k,
            updateOfAttributeColumns: [{ PUT: [{ col1: 'v2', timestamp: t2 }] }],
        });
        await call('updateRow', {
            tableName: t, condition: condition('EXPECT_EXIST'), primaryKey: k,
            updateOfAttributeColumns: [{ PUT: [{ col1: 'v3', timestamp: t3 }] }],
        });
        let got = await call('getRow', { tableName: t, primaryKey: k, maxVersions: 3 });
        let c = columns(got.row);
        assert.deepStrictEqual(c.col1.map((v) => [v.value, int(v.timestamp)]), [['v3', t3], ['v2', t2], ['v1', t1]],
            'three versions, newest first');

        got = await call('getRow', { tableName: t, primaryKey: k, maxVersions: 1 });
        assert.deepStrictEqual(columns(got.row).col1.map((v) => v.value), ['v3']);

        // (a specific_time cannot be read through this SDK: it always sends max_versions too,
        // which Tablestore refuses with a specific time)
        got = await call('getRow', { tableName: t, primaryKey: k, maxVersions: 3, timeRange: { startTime: String(t1), endTime: String(t3) } });
        assert.deepStrictEqual(columns(got.row).col1.map((v) => v.value), ['v2', 'v1'], 'time range [t1, t3)');

        // the updateRow sample: PUT some, DELETE one version, DELETE_ALL another
        await call('updateRow', {
            tableName: t, condition: condition('IGNORE'), primaryKey: k,
            updateOfAttributeColumns: [
                { PUT: [{ col4: Long.fromNumber(4) }, { col5: '5' }] },
                { DELETE: [{ col1: Long.fromNumber(t2) }] },
                { DELETE_ALL: ['col3'] },
            ],
            returnContent: { returnType: TableStore.ReturnType.Primarykey },
        });
        got = await call('getRow', { tableName: t, primaryKey: k, maxVersions: 3 });
        c = columns(got.row);
        assert.deepStrictEqual(c.col1.map((v) => int(v.timestamp)), [t3, t1], 'version t2 deleted');
        assert.strictEqual(c.col3, undefined, 'col3 deleted');
        assert.strictEqual(c.col2[0].value, 'keep');
        assert.strictEqual(int(c.col4[0].value), 4);
        assert.strictEqual(c.col5[0].value, '5');
    });

    it('conditions: row existence and column conditions, 403 OTSConditionCheckFail', async function () {
        const k = key(20015, 'cond');
        await expectError(call('updateRow', {
            tableName: t, condition: condition('EXPECT_EXIST'), primaryKey: k, updateOfAttributeColumns: [{ PUT: [{ a: 'x' }] }],
        }), 403, 'OTSConditionCheckFail', 'Condition check failed.');
        await expectError(call('deleteRow', { tableName: t, condition: condition('EXPECT_EXIST'), primaryKey: k }),
            403, 'OTSConditionCheckFail', 'Condition check failed.');

        await call('putRow', {
            tableName: t, condition: condition('EXPECT_NOT_EXIST'), primaryKey: k,
            attributeColumns: [{ name: 'john' }, { addr: 'china' }, { n: Long.fromNumber(1) }],
        });
        await expectError(call('putRow', {
            tableName: t, condition: condition('EXPECT_NOT_EXIST'), primaryKey: k, attributeColumns: [{ name: 'x' }],
        }), 403, 'OTSConditionCheckFail', 'Condition check failed.');

        // the conditionUpdateRow sample: EXPECT_EXIST and name = john AND addr = china
        const both = new TableStore.CompositeCondition(TableStore.LogicalOperator.AND);
        both.addSubCondition(new TableStore.SingleColumnCondition('name', 'john', TableStore.ComparatorType.EQUAL));
        both.addSubCondition(new TableStore.SingleColumnCondition('addr', 'china', TableStore.ComparatorType.EQUAL));
        await call('updateRow', {
            tableName: t, condition: condition('EXPECT_EXIST', both), primaryKey: k,
            updateOfAttributeColumns: [{ PUT: [{ col1: 'test6' }] }],
        });
        let got = await call('getRow', { tableName: t, primaryKey: k });
        assert.strictEqual(columns(got.row).col1[0].value, 'test6');

        const wrong = new TableStore.SingleColumnCondition('name', 'jane', TableStore.ComparatorType.EQUAL);
        await expectError(call('updateRow', {
            tableName: t, condition: condition('EXPECT_EXIST', wrong), primaryKey: k,
            updateOfAttributeColumns: [{ PUT: [{ col1: 'never' }] }],
        }), 403, 'OTSConditionCheckFail', 'Condition check failed.');
        const ne = new TableStore.SingleColumnCondition('n', Long.fromNumber(1), TableStore.ComparatorType.NOT_EQUAL);
        await expectError(call('putRow', {
            tableName: t, condition: condition('IGNORE', ne), primaryKey: k, attributeColumns: [{ col1: 'never' }],
        }), 403, 'OTSConditionCheckFail');
        got = await call('getRow', { tableName: t, primaryKey: k });
        assert.strictEqual(columns(got.row).col1[0].value, 'test6', 'a failed condition writes nothing');
    });

    it('deleteRow removes the row', async function () {
        const k = key(20015, 'cond');
        const del = await call('deleteRow', { tableName: t, condition: condition('EXPECT_EXIST'), primaryKey: k });
        assert.ok(del.consumed.capacityUnit.write >= 1);
        const got = await call('getRow', { tableName: t, primaryKey: k });
        assert.deepStrictEqual(got.row, {});
        // deleting a missing row with IGNORE succeeds
        await call('deleteRow', { tableName: t, condition: condition('IGNORE'), primaryKey: k });
    });

    it('increment: RT_AFTER_MODIFY returns the new value; a missing column counts as 0', async function () {
        const k = key(7, 'order_id_001');
        await call('putRow', { tableName: t, condition: condition('IGNORE'), primaryKey: k, attributeColumns: [{ price: Long.fromNumber(10) }] });
        const inc = (delta, col) => call('updateRow', {
            tableName: t, condition: condition('EXPECT_EXIST'), primaryKey: k,
            updateOfAttributeColumns: [{ INCREMENT: [{ [col]: Long.fromNumber(delta) }] }],
            returnContent: { returnColumns: [col], returnType: TableStore.ReturnType.AfterModify },
        });
        let r = await inc(1, 'price');
        assert.ok(r.row && r.row.attributes, `RT_AFTER_MODIFY returned no columns: ${JSON.stringify(r.row)}`);
        assert.deepStrictEqual(r.row.attributes.map((a) => [a.columnName, int(a.columnValue)]), [['price', 11]]);
        r = await inc(-30, 'price');
        assert.ok(r.row && r.row.attributes, `RT_AFTER_MODIFY returned no columns: ${JSON.stringify(r.row)}`);
        assert.deepStrictEqual(r.row.attributes.map((a) => [a.columnName, int(a.columnValue)]), [['price', -19]]);
        r = await inc(5, 'fresh');
        assert.ok(r.row && r.row.attributes, `RT_AFTER_MODIFY returned no columns: ${JSON.stringify(r.row)}`);
        assert.deepStrictEqual(r.row.attributes.map((a) => [a.columnName, int(a.columnValue)]), [['fresh', 5]]);

        // in a batch too (the increment sample's second half)
        const b = await call('batchWriteRow', {
            tables: [{
                tableName: t,
                rows: [{
                    type: 'UPDATE', condition: condition('EXPECT_EXIST'), primaryKey: k,
                    attributeColumns: [{ INCREMENT: [{ price: Long.fromNumber(1) }] }],
                    returnContent: { returnColumns: ['price'], returnType: TableStore.ReturnType.AfterModify },
                }],
            }],
        });
        assert.strictEqual(b.tables.length, 1);
        assert.strictEqual(b.tables[0].isOk, true);
        assert.ok(b.tables[0].attributes, `RT_AFTER_MODIFY in a batch returned no columns: ${JSON.stringify(b.tables[0])}`);
        assert.deepStrictEqual(b.tables[0].attributes.map((a) => [a.columnName, int(a.columnValue)]), [['price', -18]]);

        const got = await call('getRow', { tableName: t, primaryKey: k });
        const c = columns(got.row);
        assert.strictEqual(int(c.price[0].value), -18);
        assert.strictEqual(int(c.fresh[0].value), 5);

        // incrementing a String is refused
        await call('putRow', { tableName: t, condition: condition('IGNORE'), primaryKey: k, attributeColumns: [{ price: 'ten' }] });
        await expectError(inc(1, 'price'), 400, 'OTSParameterInvalid');
    });

    it('AUTO_INCREMENT key: RT_PK returns the assigned value, increasing', async function () {
        await createTable(auto, [{ name: 'stringPK', type: 'STRING' }, { name: 'integerPK', type: 'INTEGER' },
            { name: 'binaryPK', type: 'BINARY' }, { name: 'autoIncPK', type: 'INTEGER', option: 'AUTO_INCREMENT' }]);
        const ids = [];
        for (let i = 0; i < 3; i++) {
            const put = await call('putRow', {
                tableName: auto, condition: condition('IGNORE'),
                primaryKey: [{ stringPK: 'pk1' }, { integerPK: Long.fromNumber(1) }, { binaryPK: Buffer.from('test') },
                    { autoIncPK: TableStore.PK_AUTO_INCR }],
                attributeColumns: [{ col1: `col1val${i}` }],
                returnContent: { returnType: TableStore.ReturnType.Primarykey },
            });
            const key4 = put.row.primaryKey;
            assert.deepStrictEqual(key4.map((c) => c.name), ['stringPK', 'integerPK', 'binaryPK', 'autoIncPK']);
            assert.ok(key4[2].value.equals(Buffer.from('test')));
            ids.push(int(key4[3].value));
            // the primarykey sample: read the row back by the returned key
            const got = await call('getRow', {
                tableName: auto,
                primaryKey: [{ stringPK: key4[0].value }, { integerPK: key4[1].value }, { binaryPK: key4[2].value }, { autoIncPK: key4[3].value }],
            });
            assert.strictEqual(columns(got.row).col1[0].value, `col1val${i}`);
        }
        assert.ok(ids[0] < ids[1] && ids[1] < ids[2], `increasing: ${ids}`);
        // a read cannot name PK_AUTO_INCR
        await expectError(call('getRow', {
            tableName: auto,
            primaryKey: [{ stringPK: 'pk1' }, { integerPK: Long.fromNumber(1) }, { binaryPK: Buffer.from('test') }, { autoIncPK: TableStore.PK_AUTO_INCR }],
        }), 400, 'OTSParameterInvalid');
    });

    it('a Binary key column (the SDK data_opration test)', async function () {
        await createTable(bin, [{ name: 'stringPK', type: 'STRING' }, { name: 'integerPK', type: 'INTEGER' }, { name: 'binaryPK', type: 'BINARY' }]);
        const binaryData = Buffer.from('中华人民共和国');
        const k = [{ stringPK: '表格存储' }, { integerPK: Long.fromNumber(10) }, { binaryPK: binaryData }];
        await call('putRow', {
            tableName: bin, condition: condition('IGNORE'), primaryKey: k,
            attributeColumns: [{ col1: '表格存储' }, { col2: '2' }, { col3: 3.1 }, { col4: -0.32 }, { col5: Long.fromNumber(123456789) }],
        });
        const got = await call('getRow', { tableName: bin, primaryKey: k });
        assert.strictEqual(got.row.primaryKey[0].value, '表格存储');
        assert.strictEqual(int(got.row.primaryKey[1].value), 10);
        assert.ok(got.row.primaryKey[2].value.equals(binaryData));
        const c = columns(got.row);
        assert.deepStrictEqual([c.col1[0].value, c.col2[0].value, c.col3[0].value, c.col4[0].value, int(c.col5[0].value)],
            ['表格存储', '2', 3.1, -0.32, 123456789]);
        const range = await call('getRange', {
            tableName: bin, direction: TableStore.Direction.FORWARD, maxVersions: 10, limit: 2,
            inclusiveStartPrimaryKey: [{ stringPK: TableStore.INF_MIN }, { integerPK: TableStore.INF_MIN }, { binaryPK: TableStore.INF_MIN }],
            exclusiveEndPrimaryKey: [{ stringPK: TableStore.INF_MAX }, { integerPK: TableStore.INF_MAX }, { binaryPK: TableStore.INF_MAX }],
        });
        assert.strictEqual(range.rows.length, 1);
        assert.strictEqual(range.nextStartPrimaryKey, null);
    });
});
