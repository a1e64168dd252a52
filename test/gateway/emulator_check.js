// test/gateway/emulator_check.js: run inside `tools/emulator run -- node
// emulator_check.js` (or after `eval "$(tools/emulator start)"`): the official
// Node SDK, configured only by the variables the emulator exports, makes a
// table (one stream shard), writes a row and reads it back; the variables the Python, Go and Java
// SDKs read name the same endpoint and key. Prints "dir=<OTS_EMULATOR_DIR>"
// for emulator_test.sh, then "ok" or an error (exit status 1).
'use strict';
const { execFileSync } = require('child_process');
const TableStore = require('tablestore');

const env = process.env;
function fail(why) {
    console.log(`error: ${why}`);
    process.exit(1);
}

console.log(`dir=${env.OTS_EMULATOR_DIR || ''}`);
const same = [
    ['endpoint', 'OTS_TEST_ENDPOINT'],
    ['instancename', 'OTS_TEST_INSTANCE', 'OTS_TEST_INSTANCENAME'],
    ['accessKeyId', 'OTS_TEST_ACCESS_KEY_ID', 'OTS_TEST_KEYID', 'accesskeyid'],
    ['secretAccessKey', 'OTS_TEST_ACCESS_KEY_SECRET', 'OTS_TEST_SECRET', 'accesskeysecret'],
];
for (const names of same) {
    if (!env[names[0]]) fail(`${names[0]} is not set`);
    for (const n of names.slice(1)) {
        if (env[n] !== env[names[0]]) fail(`${n} (${env[n]}) differs from ${names[0]} (${env[names[0]]})`);
    }
}

const client = new TableStore.Client({
    accessKeyId: env.accessKeyId,
    secretAccessKey: env.secretAccessKey,
    endpoint: env.endpoint,
    instancename: env.instancename,
    maxRetries: 0,
});
const table = 'emulator_check';
const value = `v${process.pid}`;

(async () => {
    await client.createTable({
        tableMeta: { tableName: table, primaryKey: [{ name: 'id', type: 'STRING' }] },
        reservedThroughput: { capacityUnit: { read: 0, write: 0 } },
        tableOptions: { timeToLive: -1, maxVersions: 1 },
        streamSpecification: { enableStream: true, expirationTime: 24 },
    });
    // a new table has one stream shard, one partition, as a new Tablestore table has
    // (the Go SDK's TestStream asserts it; the Node SDK has no Stream calls to ask)
    const partitions = execFileSync('psql', [env.OTS_EMULATOR_PG, '-Atc',
        `SELECT partitions FROM ots.tables WHERE table_name = '${table}'`]).toString().trim();
    if (partitions !== '1') fail(`a new table has ${partitions} partitions (stream shards), not 1`);
    await client.putRow({
        tableName: table,
        condition: new TableStore.Condition(TableStore.RowExistenceExpectation.EXPECT_NOT_EXIST, null),
        primaryKey: [{ id: 'a' }],
        attributeColumns: [{ note: value }],
    });
    const got = await client.getRow({ tableName: table, primaryKey: [{ id: 'a' }], maxVersions: 1 });
    const cells = (got.row && got.row.attributes) || [];
    if (cells.length !== 1 || cells[0].columnName !== 'note' || cells[0].columnValue !== value) {
        fail(`read back ${JSON.stringify(cells)}, not note = ${value}`);
    }
    console.log('ok');
})().catch((err) => fail(err.message || String(err)));
