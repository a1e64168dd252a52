'use strict';
/*
 * test/gateway/samples.js: runs the Tablestore Node SDK's own table and row
 * samples (node_modules/tablestore/samples/*.js), unchanged, against otsd.
 * The samples only print, so each one passes when it exits with status 0
 * within its time, printed no "error:" line and nothing on stderr, and
 * printed what it prints on success (its "success:" lines, counted). What a
 * sample needs and does not create itself (a table, a row) is made first
 * through the SDK.  Prints "test sample_NAME ... ok|FAILED" and
 * "skip sample_NAME (why)" lines; exits 1 when one failed.
 * Our own assertions on the values the same calls return are in sdk_*.test.js.
 */
const path = require('path');
const { spawn } = require('child_process');
const {
    TableStore, Long, call, createTable, dropTable, waitIndexes, errorOf,
} = require('./lib');

const samplesDir = path.join(path.dirname(require.resolve('tablestore/package.json')), 'samples');

function runSample(name, timeoutMs) {
    return new Promise((resolve) => {
        const child = spawn(process.execPath, [path.join(samplesDir, `${name}.js`)], {
            cwd: samplesDir, env: process.env, stdio: ['ignore', 'pipe', 'pipe'],
        });
        let stdout = '';
        let stderr = '';
        let timedOut = false;
        child.stdout.on('data', (d) => { stdout += d; });
        child.stderr.on('data', (d) => { stderr += d; });
        const timer = setTimeout(() => { timedOut = true; child.kill('SIGKILL'); }, timeoutMs);
        child.on('close', (code, signal) => {
            clearTimeout(timer);
            resolve({ code, signal, timedOut, stdout, stderr });
        });
    });
}

const count = (text, re) => (text.match(new RegExp(re.source, re.flags.includes('g') ? re.flags : `${re.flags}g`)) || []).length;

/*
 * The samples in the order they build on each other (createTable makes
 * sampleTable, putRow its row, ...).  expect: [regex, how many times].
 * check: further checks on the output; returns a problem or null.
 */
const steps = [
    { name: 'createTable', setup: () => dropTable('sampleTable'), expect: [[/^success:/m, 1]] },
    { name: 'describeTable', expect: [[/^success:/m, 1], [/sampleTable/, 1]] },
    { name: 'listTable', expect: [[/^success:/m, 1], [/'sampleTable'/, 1]] },
    { name: 'updateTable', expect: [[/^success:/m, 1]] },
    { name: 'putRow', expect: [[/^success:/m, 1]] },
    // the row of putRow passes the sample's filter (col1 = '表格存储' AND col5 = 123456789)
    { name: 'getRow', expect: [[/^success:/m, 1], [/primaryKey: \[/, 1]] },
    { name: 'updateRow', expect: [[/^success:/m, 1]] },
    // EXPECT_EXIST on putRow's row, columns name/addr missing: the condition passes (pass_if_missing)
    { name: 'conditionUpdateRow', expect: [[/^success:/m, 1]] },
    { name: 'batchWriteRow', expect: [[/^success:/m, 1]] },
    {
        name: 'getRange',
        // pages of 2 rows (limit 2) until next_start_primary_key is empty; the
        // last line is every row: putRow's, updateRow's and batchWriteRow's two
        check: (out) => {
            const lines = out.trim().split('\n');
            let rows;
            try {
                rows = JSON.parse(lines[lines.length - 1]);
            } catch (e) {
                return `the last line is not the JSON array of all rows: ${lines[lines.length - 1]}`;
            }
            if (!Array.isArray(rows) || rows.length !== 4) {
                return `${Array.isArray(rows) ? rows.length : 'no'} rows in all, expected 4`;
            }
            const pages = count(out, /"nextStartPrimaryKey"/);
            return pages >= 2 ? null : `${pages} pages printed, expected at least 2 (limit 2, 4 rows)`;
        },
    },
    { name: 'batchGetRow', expect: [[/^success:/m, 1], [/"isOk": true/, 2]] },
    {
        name: 'increment',
        setup: async () => {
            await dropTable('orderHistory');
            await createTable('orderHistory', [{ name: 'order_id', type: 'STRING' }]);
            await call('putRow', {
                tableName: 'orderHistory', condition: new TableStore.Condition(TableStore.RowExistenceExpectation.IGNORE, null),
                primaryKey: [{ order_id: 'order_id_001' }], attributeColumns: [{ increment: Long.fromNumber(10) }],
            });
        },
        // UpdateRow and BatchWriteRow, each +1 with RT_AFTER_MODIFY of "increment". The
        // sample prints the batch reply with JSON.stringify, whose protobufjs toJSON keeps
        // only the fields of the wire message (tableName): its row shows in UpdateRow's
        // print alone (sdk_rows.test.js checks both values).
        expect: [[/^success:/m, 2], [/"columnName": "increment"/, 1], [/"tableName": "orderHistory"/, 1]],
    },
    {
        name: 'multiVersion',
        // as shipped it only reads (its writes are never called) and prints nothing
        setup: async () => {
            await dropTable('maxVersionsTestTable');
            await createTable('maxVersionsTestTable', [{ name: 'pk1', type: 'STRING' }, { name: 'pk2', type: 'STRING' }],
                { maxVersions: 10 });
        },
        expect: [],
    },
    {
        name: 'primarykey',
        setup: () => dropTable('autoIncTable'),
        expect: [[/^create table success/m, 1], [/^put row success/m, 1], [/^get row success:/m, 1]],
    },
    // as shipped, every call of AutoIncrement.js is commented out: it must load and exit
    { name: 'AutoIncrement', expect: [] },
    { name: 'createTableWithGlobalIndex', setup: () => dropTable('sdkGlobalTest'), expect: [[/^success:/m, 1]] },
    { name: 'createGlobalIndex', expect: [[/^success:/m, 2]] },
    {
        name: 'getRowByGlobalIndex',
        // it reads index "index1" by (pk2, pk1): an index on pk2 over a row (pk1 1, pk2 2)
        setup: async () => {
            await call('createIndex', {
                mainTableName: 'sdkGlobalTest', includeBaseData: true,
                indexMeta: {
                    name: 'index1', primaryKey: ['pk2'], definedColumn: ['col1'],
                    indexUpdateMode: TableStore.IndexUpdateMode.IUM_ASYNC_INDEX, indexType: TableStore.IndexType.IT_GLOBAL_INDEX,
                },
            });
            await call('putRow', {
                tableName: 'sdkGlobalTest', condition: new TableStore.Condition(TableStore.RowExistenceExpectation.IGNORE, null),
                primaryKey: [{ pk1: Long.fromNumber(1) }, { pk2: Long.fromNumber(2) }],
                attributeColumns: [{ col1: Long.fromNumber(10) }, { col2: Long.fromNumber(20) }],
            });
            await waitIndexes('sdkGlobalTest');
        },
        expect: [[/^success:/m, 1], [/"name": "pk2"/, 1], [/"columnName": "col1"/, 1]],
    },
    { name: 'deleteGlobalIndex', expect: [[/^success:/m, 1]] },
    { name: 'deleteRow', expect: [[/^success:/m, 1]] },
    {
        // the sample's index routes by pic_id and count, which must be the table's key columns
        name: 'createSearchIndex',
        setup: async () => {
            await dropSearchIndexes('nestedTag');
            await dropTable('nestedTag');
            await createTable('nestedTag', [{ name: 'pic_id', type: 'STRING' }, { name: 'count', type: 'INTEGER' }]);
        },
        expect: [[/^success:/m, 1]],
    },
    {
        // every field of the sample's schema back (the analyzers' parameters the sample cannot
        // print: sdk_tables.test.js reads them)
        name: 'describeSearchIndex',
        expect: [[/^success:/m, 1], [/"fieldName": "/, 12], [/"routingFields": \[\s*"count",\s*"pic_id"\s*\]/, 1]],
    },
    { name: 'listSearchIndex', expect: [[/^success:/m, 1], [/"indexName": "testIndex"/, 1]] },
    {
        // a nested query (match_all in pic_tag) sorted by count descending: the rows with a pic_tag
        name: 'search',
        setup: async () => {
            for (let i = 0; i < 3; i++) {
                await call('putRow', {
                    tableName: 'nestedTag', condition: new TableStore.Condition(TableStore.RowExistenceExpectation.IGNORE, null),
                    primaryKey: [{ pic_id: `pic_id_${i}` }, { count: Long.fromNumber(i) }],
                    attributeColumns: i < 2 ? [{ pic_tag: JSON.stringify([{ sub_tag_name: `s${i}`, tag_name: 't' }]) }, { time_stamp: Long.fromNumber(i) }]
                        : [{ time_stamp: Long.fromNumber(i) }],
                });
            }
        },
        expect: [[/^success:/m, 1]],
        check: (out) => (/"pic_id_1"[\s\S]*"pic_id_0"/.test(out) && !/pic_id_2/.test(out) ? null : 'not the rows with a pic_tag, count descending'),
    },
    // a page of one row by pic_id descending, then the rest by its token
    { name: 'searchPaginateByToken', expect: [[/^success:/m, 1], [/^token success:/m, 1]] },
    { name: 'deleteSearchIndex', expect: [[/^success:/m, 1]] },
    {
        name: 'deleteTable',
        setup: async () => {
            await dropTable('nestedTag');
            await createTable('nestedTag', [{ name: 'id', type: 'STRING' }]);
        },
        expect: [[/^success:/m, 1]],
    },
];

const skipped = {
    computeSplits: 'the sample asks for a table named "tableName": sdk_search.test.js calls ComputeSplits',
    parallelScan: 'the sample awaits outside a function (a syntax error in CommonJS): sdk_search.test.js calls ParallelScan',
    updateSearchIndex: 'the sample names variables it never defines (tableName, indexName): it cannot run as it ships',
    sql: 'SQLQuery: not served by otsd (PostgreSQL itself is the SQL interface)',
    stsTokenClient: 'STS temporary credentials: otsd has static access keys only',
    domainError: 'demonstrates a DNS failure of an unknown endpoint: no request reaches otsd',
};

// a table's search indexes deleted, so that it can be (a sample's run before may have left one)
async function dropSearchIndexes(table) {
    try {
        const l = await call('listSearchIndex', { tableName: table });
        for (const i of l.indices || []) {
            await call('deleteSearchIndex', { tableName: table, indexName: i.indexName });
        }
    } catch (err) {
        if (errorOf(err).code !== 'OTSObjectNotExist') {
            throw err;
        }
    }
}

async function main() {
    let failed = 0;
    for (const step of steps) {
        const label = `sample_${step.name}`;
        let problem = null;
        let result = null;
        try {
            if (step.setup) {
                await step.setup();
            }
        } catch (err) {
            problem = `setup through the SDK failed: ${String(err.message || err).replace(/[^\x20-\x7e]/g, '.')}`;
        }
        if (!problem) {
            result = await runSample(step.name, 60000);
            const out = result.stdout;
            if (result.timedOut) {
                problem = 'no exit within 60 s';
            } else if (result.code !== 0) {
                problem = `exit status ${result.code}${result.signal ? ` (${result.signal})` : ''}`;
            } else if (/error:/i.test(out)) {
                problem = 'printed an error';
            } else if (result.stderr.trim() !== '') {
                problem = 'wrote to stderr';
            } else {
                for (const [re, n] of step.expect || []) {
                    const seen = count(out, re);
                    if (seen !== n) {
                        problem = `${re} printed ${seen} times, expected ${n}`;
                        break;
                    }
                }
                if (!problem && step.check) {
                    problem = step.check(out);
                }
            }
        }
        if (problem) {
            failed += 1;
            console.log(`test ${label} ... FAILED (${problem})`);
            if (result) {
                const show = (result.stdout + result.stderr).trim().split("\n").slice(0, 60);
                for (const line of show) {
                    console.log(`    ${line}`);
                }
            }
        } else {
            console.log(`test ${label} ... ok`);
        }
    }
    for (const [name, why] of Object.entries(skipped)) {
        console.log(`skip sample_${name} (${why})`);
    }
    // leave nothing behind for the SDK's own tests
    for (const t of ['sampleTable', 'orderHistory', 'maxVersionsTestTable', 'autoIncTable', 'sdkGlobalTest']) {
        try {
            await dropTable(t);
        } catch (err) {
            console.log(`note: dropping ${t}: ${String(err.message || err).replace(/[^\x20-\x7e]/g, '.')}`);
        }
    }
    process.exit(failed ? 1 : 0);
}

main().catch((err) => {
    console.log(`test samples ... FAILED (${err.stack || err})`);
    process.exit(1);
});
