'use strict';
// Table actions through the official Node SDK, with assertions on what
// otsd returns: what samples/createTable, describeTable, listTable,
// updateTable, deleteTable, createTableWithGlobalIndex, createGlobalIndex
// and deleteGlobalIndex do.
const assert = require('assert');
const {
    TableStore, call, expectError, tableName, createTable, dropTable, waitIndexes, sql,
} = require('./lib');

// protobufjs gives int64 fields as Long objects, int32 as numbers
const num = (v) => (v !== null && typeof v === 'object' && typeof v.toNumber === 'function' ? v.toNumber() : v);

describe('tables', function () {
    const t = tableName('gw_tables');
    const auto = tableName('gw_autoinc');
    const indexed = tableName('gw_indexed');

    after(async function () {
        for (const name of [t, auto, indexed]) {
            await dropTable(name);
        }
    });

    it('createTable makes a table that describeTable shows as created', async function () {
        const before = Math.floor(Date.now() / 1000);
        const created = await call('createTable', {
            tableMeta: { tableName: t, primaryKey: [{ name: 'gid', type: 'INTEGER' }, { name: 'uid', type: 'STRING' }] },
            reservedThroughput: { capacityUnit: { read: 0, write: 0 } },
            tableOptions: { timeToLive: -1, maxVersions: 1 },
            streamSpecification: { enableStream: true, expirationTime: 24 },
        });
        assert.ok(created, 'a CreateTableResponse');

        const d = await call('describeTable', { tableName: t });
        assert.strictEqual(d.tableMeta.tableName, t);
        assert.deepStrictEqual(d.tableMeta.primaryKey.map((p) => [p.name, p.type]),
            [['gid', TableStore.PrimaryKeyType.INTEGER], ['uid', TableStore.PrimaryKeyType.STRING]]);
        assert.strictEqual(num(d.tableOptions.timeToLive), -1);
        assert.strictEqual(num(d.tableOptions.maxVersions), 1);
        assert.strictEqual(d.tableOptions.allowUpdate, true, 'allow_update defaults to true');
        assert.strictEqual(num(d.tableOptions.deviationCellVersionInSec), 86400, 'max version offset defaults to 86400 s');
        assert.strictEqual(num(d.reservedThroughputDetails.capacityUnit.read), 0);
        assert.strictEqual(num(d.reservedThroughputDetails.capacityUnit.write), 0);
        assert.ok(num(d.reservedThroughputDetails.lastIncreaseTime) >= 0, 'last_increase_time is set');
        assert.strictEqual(d.tableStatus, 1, 'ACTIVE');
        assert.ok(d.streamDetails, 'stream_details');
        assert.strictEqual(d.streamDetails.enableStream, true);
        assert.strictEqual(num(d.streamDetails.expirationTime), 24);
        assert.ok(typeof d.streamDetails.streamId === 'string' && d.streamDetails.streamId.length > 0, 'a stream id');
        const enabled = num(d.streamDetails.lastEnableTime);
        assert.ok(enabled === undefined || enabled === null || enabled >= before - 5, `last_enable_time ${enabled}`);
        assert.deepStrictEqual(d.indexMetas || [], []);
    });

    it('createTable of an existing name: 409 OTSObjectAlreadyExist', async function () {
        await expectError(createTable(t, [{ name: 'gid', type: 'INTEGER' }]), 409, 'OTSObjectAlreadyExist',
            'Requested table already exists.');
    });

    it('listTable names the table', async function () {
        const l = await call('listTable', {});
        assert.ok(Array.isArray(l.tableNames));
        assert.ok(l.tableNames.includes(t), `${t} in ${l.tableNames}`);
    });

    it('listSearchIndex: the search indexes of a table or of all; deleteTable refuses a table with one; a missing table 404', async function () {
        const of = await call('listSearchIndex', { tableName: t });
        assert.deepStrictEqual(of.indices, []);
        // made in SQL (CreateSearchIndex is not served yet), as the table's owner
        sql(`SELECT ots.create_search_index('${t}', 'gw_si', '{"field_schemas": [{"field_name": "c", "field_type": "KEYWORD"}]}')`);
        try {
            const listed = await call('listSearchIndex', { tableName: t });
            assert.deepStrictEqual(listed.indices.map((i) => [i.tableName, i.indexName]), [[t, 'gw_si']]);
            const all = await call('listSearchIndex', {});
            assert.ok(all.indices.some((i) => i.tableName === t && i.indexName === 'gw_si'), JSON.stringify(all.indices));
            await expectError(call('deleteTable', { tableName: t }), 400, 'OTSParameterInvalid', 'search index');
        } finally {
            sql(`SELECT ots.delete_search_index('${t}', 'gw_si')`);
        }
        assert.deepStrictEqual((await call('listSearchIndex', { tableName: t })).indices, []);
        await expectError(call('listSearchIndex', { tableName: tableName('gw_nosuch') }), 404, 'OTSObjectNotExist',
            'Requested table does not exist.');
    });

    it('createSearchIndex, describeSearchIndex, updateSearchIndex, deleteSearchIndex: the schema back as given, with every default', async function () {
        await call('createSearchIndex', {
            tableName: t, indexName: 'gw_life',
            schema: {
                fieldSchemas: [
                    { fieldName: 'k', fieldType: TableStore.FieldType.KEYWORD, index: true, enableSortAndAgg: true },
                    { fieldName: 's', fieldType: TableStore.FieldType.TEXT, analyzer: 'split', analyzerParameter: { delimiter: ',' } },
                    { fieldName: 'f', fieldType: TableStore.FieldType.TEXT, analyzer: 'fuzzy', analyzerParameter: { minChars: 2, maxChars: 4 } },
                    { fieldName: 'w', fieldType: TableStore.FieldType.TEXT, analyzer: 'single_word', analyzerParameter: { caseSensitive: true, delimitWord: true } },
                    { fieldName: 'd', fieldType: TableStore.FieldType.DATE, dateFormats: ['yyyy-MM-dd', 'epoch_millis'] },
                    { fieldName: 'n', fieldType: TableStore.FieldType.NESTED, fieldSchemas: [{ fieldName: 'x', fieldType: TableStore.FieldType.LONG }] },
                ],
            },
        });
        try {
            const d = await call('describeSearchIndex', { tableName: t, indexName: 'gw_life' });
            const byName = Object.fromEntries(d.schema.fieldSchemas.map((f) => [f.fieldName, f]));
            assert.deepStrictEqual(Object.keys(byName), ['k', 's', 'f', 'w', 'd', 'n']);
            assert.strictEqual(byName.k.fieldType, TableStore.FieldType.KEYWORD);
            assert.strictEqual(byName.k.docValues, true);
            assert.strictEqual(byName.s.analyzerParameter.delimiter, ',');
            assert.strictEqual(byName.f.analyzerParameter.minChars, 2);
            assert.strictEqual(byName.f.analyzerParameter.maxChars, 4);
            assert.strictEqual(byName.w.analyzerParameter.caseSensitive, true);
            assert.strictEqual(byName.w.analyzerParameter.delimitWord, true);
            assert.deepStrictEqual(byName.d.dateFormats, ['yyyy-MM-dd', 'epoch_millis']);
            assert.deepStrictEqual(byName.n.fieldSchemas.map((f) => [f.fieldName, f.fieldType]), [['x', TableStore.FieldType.LONG]]);
            assert.strictEqual(num(d.timeToLive), -1);
            assert.ok([2, 'INCR'].includes(d.syncStat.syncPhase), `sync phase ${d.syncStat.syncPhase}`);
            // an index TTL needs a table without updates (Tablestore's rule)
            await expectError(call('updateSearchIndex', { tableName: t, indexName: 'gw_life', timeToLive: 172800 }), 400,
                'OTSParameterInvalid', "Don't support allow update operation on table with search index and ttl.");
            await call('updateTable', { tableName: t, tableOptions: { allowUpdate: false } });
            await call('updateSearchIndex', { tableName: t, indexName: 'gw_life', timeToLive: 172800 });
            assert.strictEqual(num((await call('describeSearchIndex', { tableName: t, indexName: 'gw_life' })).timeToLive), 172800);
            // Tablestore's refusals, through ots: a second index of the name, a VECTOR field, a short TTL
            await expectError(call('createSearchIndex', {
                tableName: t, indexName: 'gw_life', schema: { fieldSchemas: [{ fieldName: 'k', fieldType: TableStore.FieldType.KEYWORD }] },
            }), 409, 'OTSObjectAlreadyExist');
            await expectError(call('updateSearchIndex', { tableName: t, indexName: 'gw_life', timeToLive: 3600 }), 400, 'OTSParameterInvalid');
            await expectError(call('describeSearchIndex', { tableName: t, indexName: 'gw_nosuch' }), 404, 'OTSObjectNotExist');
        } finally {
            await call('deleteSearchIndex', { tableName: t, indexName: 'gw_life' });
            await call('updateTable', { tableName: t, tableOptions: { allowUpdate: true } });
        }
        await expectError(call('deleteSearchIndex', { tableName: t, indexName: 'gw_life' }), 404, 'OTSObjectNotExist');
    });

    it('updateTable changes the options it names and keeps the others', async function () {
        const u = await call('updateTable', {
            tableName: t,
            reservedThroughput: { capacityUnit: { read: 0, write: 0 } },
            tableOptions: { maxVersions: 10, allowUpdate: false },
        });
        assert.strictEqual(num(u.tableOptions.maxVersions), 10);
        assert.strictEqual(u.tableOptions.allowUpdate, false);
        assert.strictEqual(num(u.tableOptions.timeToLive), -1, 'TTL kept');
        assert.strictEqual(num(u.reservedThroughputDetails.capacityUnit.read), 0);

        const d = await call('describeTable', { tableName: t });
        assert.strictEqual(num(d.tableOptions.maxVersions), 10);
        assert.strictEqual(d.tableOptions.allowUpdate, false);
        assert.strictEqual(num(d.tableOptions.timeToLive), -1);

        // allow_update false refuses UpdateRow
        await expectError(call('updateRow', {
            tableName: t, condition: new TableStore.Condition(TableStore.RowExistenceExpectation.IGNORE, null),
            primaryKey: [{ gid: TableStore.Long.fromNumber(1) }, { uid: 'a' }],
            updateOfAttributeColumns: [{ PUT: [{ c: 'x' }] }],
        }), 400, 'OTSParameterInvalid', 'Update operation is not allowed');

        await call('updateTable', { tableName: t, tableOptions: { allowUpdate: true, timeToLive: 86400 * 2 } });
        const d2 = await call('describeTable', { tableName: t });
        assert.strictEqual(d2.tableOptions.allowUpdate, true);
        assert.strictEqual(num(d2.tableOptions.timeToLive), 172800);
        assert.strictEqual(num(d2.tableOptions.maxVersions), 10, 'max versions kept');
    });

    it('an AUTO_INCREMENT key column is described with its option', async function () {
        await createTable(auto, [{ name: 's', type: 'STRING' }, { name: 'id', type: 'INTEGER', option: 'AUTO_INCREMENT' }]);
        const d = await call('describeTable', { tableName: auto });
        // (protobufjs shows an absent enum as its first value: ask whether it was sent)
        const option = (p) => (Object.prototype.hasOwnProperty.call(p, 'option') ? p.option : null);
        assert.deepStrictEqual(d.tableMeta.primaryKey.map((p) => [p.name, p.type, option(p)]),
            [['s', TableStore.PrimaryKeyType.STRING, null],
                ['id', TableStore.PrimaryKeyType.INTEGER, TableStore.PrimaryKeyOption.AUTO_INCREMENT]]);
    });

    it('defined columns and global indexes: created with the table, added, dropped', async function () {
        await createTable(indexed, [{ name: 'pk1', type: 'INTEGER' }, { name: 'pk2', type: 'INTEGER' }], {
            definedColumn: [{ name: 'col1', type: TableStore.DefinedColumnType.DCT_INTEGER },
                { name: 'col2', type: TableStore.DefinedColumnType.DCT_STRING }],
            indexMetas: [{ name: `${indexed}_i1`, primaryKey: ['pk2'], definedColumn: ['col1', 'col2'] }],
        });
        let d = await call('describeTable', { tableName: indexed });
        assert.deepStrictEqual(d.tableMeta.definedColumn.map((c) => [c.name, c.type]),
            [['col1', TableStore.DefinedColumnType.DCT_INTEGER], ['col2', TableStore.DefinedColumnType.DCT_STRING]]);
        assert.strictEqual(d.indexMetas.length, 1);
        const i1 = d.indexMetas[0];
        assert.strictEqual(i1.name, `${indexed}_i1`);
        // the key as given (the table's key columns it leaves out are appended, but not listed)
        assert.deepStrictEqual(i1.primaryKey, ['pk2']);
        assert.deepStrictEqual(i1.definedColumn, ['col1', 'col2']);
        assert.strictEqual(i1.indexType, TableStore.IndexType.IT_GLOBAL_INDEX);
        // Tablestore's global indexes are asynchronous; ots keeps every index in the writing
        // transaction and may say so
        assert.ok([TableStore.IndexUpdateMode.IUM_ASYNC_INDEX, TableStore.IndexUpdateMode.IUM_SYNC_INDEX].includes(i1.indexUpdateMode),
            `index_update_mode ${i1.indexUpdateMode}`);

        await call('createIndex', {
            mainTableName: indexed, includeBaseData: true,
            indexMeta: {
                name: `${indexed}_i2`, primaryKey: ['col1'], definedColumn: ['col2'],
                indexUpdateMode: TableStore.IndexUpdateMode.IUM_ASYNC_INDEX, indexType: TableStore.IndexType.IT_GLOBAL_INDEX,
            },
        });
        d = await call('describeTable', { tableName: indexed });
        assert.deepStrictEqual(d.indexMetas.map((m) => m.name).sort(), [`${indexed}_i1`, `${indexed}_i2`]);
        const i2 = d.indexMetas.find((m) => m.name === `${indexed}_i2`);
        assert.deepStrictEqual(i2.primaryKey, ['col1']);

        // a row reaches the index; the index is read by its name with its own key, once built
        await waitIndexes(indexed);
        await call('putRow', {
            tableName: indexed, condition: new TableStore.Condition(TableStore.RowExistenceExpectation.IGNORE, null),
            primaryKey: [{ pk1: TableStore.Long.fromNumber(1) }, { pk2: TableStore.Long.fromNumber(2) }],
            attributeColumns: [{ col1: TableStore.Long.fromNumber(7) }, { col2: 'seven' }],
        });
        const viaIndex = await call('getRow', {
            tableName: `${indexed}_i1`,
            primaryKey: [{ pk2: TableStore.Long.fromNumber(2) }, { pk1: TableStore.Long.fromNumber(1) }],
        });
        assert.deepStrictEqual(viaIndex.row.primaryKey.map((c) => [c.name, c.value.toNumber()]), [['pk2', 2], ['pk1', 1]]);
        const cols = Object.fromEntries(viaIndex.row.attributes.map((a) => [a.columnName,
            typeof a.columnValue === 'string' ? a.columnValue : a.columnValue.toNumber()]));
        assert.deepStrictEqual(cols, { col1: 7, col2: 'seven' });

        // an index cannot be written directly
        await expectError(call('putRow', {
            tableName: `${indexed}_i1`, condition: new TableStore.Condition(TableStore.RowExistenceExpectation.IGNORE, null),
            primaryKey: [{ pk2: TableStore.Long.fromNumber(3) }, { pk1: TableStore.Long.fromNumber(3) }],
            attributeColumns: [{ col1: TableStore.Long.fromNumber(1) }],
        }), 400, 'OTSParameterInvalid');

        await call('dropIndex', { mainTableName: indexed, indexName: `${indexed}_i1` });
        d = await call('describeTable', { tableName: indexed });
        assert.deepStrictEqual(d.indexMetas.map((m) => m.name), [`${indexed}_i2`]);
    });

    it('describeTable, updateTable, deleteTable of a missing table: 404 OTSObjectNotExist', async function () {
        const missing = tableName('gw_missing');
        await expectError(call('describeTable', { tableName: missing }), 404, 'OTSObjectNotExist', 'Requested table does not exist.');
        await expectError(call('deleteTable', { tableName: missing }), 404, 'OTSObjectNotExist', 'Requested table does not exist.');
        await expectError(call('updateTable', { tableName: missing, tableOptions: { maxVersions: 2 } }),
            404, 'OTSObjectNotExist', 'Requested table does not exist.');
    });

    it('an invalid table name: 400 OTSParameterInvalid', async function () {
        await expectError(createTable('1 bad-name', [{ name: 'a', type: 'STRING' }]), 400, 'OTSParameterInvalid',
            "Invalid table name: '1 bad-name'.");
    });

    it('deleteTable removes the table from listTable', async function () {
        await call('deleteTable', { tableName: t });
        const l = await call('listTable', {});
        assert.ok(!l.tableNames.includes(t), `${t} still listed`);
        await expectError(call('describeTable', { tableName: t }), 404, 'OTSObjectNotExist');
    });
});
