// test/gateway/doc_examples.js: README's examples run as printed.
//  - readme_example: the complete Node.js program of README.md ("Tablestore
//    SDKs: the protocol gateway") against otsd, its endpoint, instance and key
//    being the test's, twice (a reader runs it again): each run must print
//    "new".
//  - readme_getting_started_in_demo: README's "Getting started" SQL, typed
//    into the demo's psql: in a database made as tools/demo makes ots_demo
//    (CREATE EXTENSION ots, then tools/demo.sql), as the superuser, with
//    ON_ERROR_STOP; it must run through.
// Prints "test NAME ... ok|FAILED" lines.
'use strict';
const fs = require('fs');
const path = require('path');
const { execFileSync } = require('child_process');

const root = path.resolve(__dirname, '..', '..');
const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
let status = 0;

function report(name, ok, detail) {
    console.log(`test ${name} ... ${ok ? 'ok' : 'FAILED'}${detail ? ` (${detail})` : ''}`);
    if (!ok) status = 1;
}

// the first ```lang block of README's section under heading
function readmeBlock(heading, lang) {
    const section = readme.split(`## ${heading}`)[1] || '';
    const block = new RegExp('```' + lang + '\\n([\\s\\S]*?)```').exec(section.split('\n## ')[0]);
    return block ? block[1] : null;
}

function failure(err) {
    return String(err.stderr || err.message).split('\n').filter(Boolean).slice(0, 5).join(' ');
}

function nodeProgram() {
    const block = readmeBlock('Tablestore SDKs: the protocol gateway', 'js');
    if (!block) {
        report('readme_example', false, 'no js block in the README section');
        return;
    }
    // the demo's endpoint and instance, as printed, become the test's
    const program = block
        .replace("'http://127.0.0.1:8800'", JSON.stringify(process.env.endpoint))
        .replace("'ots-demo'", JSON.stringify(process.env.instancename));
    // beside node_modules, so that require('tablestore') finds the pinned SDK
    const file = path.join(__dirname, '.readme_example.js');
    fs.writeFileSync(file, program);
    const printed = [];
    try {
        for (let run = 1; run <= 2; run++) {
            const out = execFileSync(process.execPath, [file], {
                env: Object.assign({}, process.env, {
                    OTS_KEY_ID: process.env.accessKeyId, OTS_SECRET: process.env.secretAccessKey,
                }),
                encoding: 'utf8', timeout: 60000,
            });
            printed.push(JSON.stringify(out.trim()));
        }
        report('readme_example', printed.every(p => p === '"new"'), `printed ${printed.join(', then ')}`);
    } catch (err) {
        report('readme_example', false, `run ${printed.length + 1}: ${failure(err)}`);
    } finally {
        fs.unlinkSync(file);
    }
}

function gettingStarted() {
    const sql = readmeBlock('Getting started', 'sql');
    const psql = process.env.OTSGW_PSQL;
    const db = 'ots_readme_demo';
    if (!sql || !psql) {
        report('readme_getting_started_in_demo', false, !sql ? 'no sql block under Getting started' : 'OTSGW_PSQL is not set');
        return;
    }
    const run = (args, input) => execFileSync(psql, ['-X', '-q', '-v', 'ON_ERROR_STOP=1', ...args],
        { input, encoding: 'utf8', timeout: 120000, stdio: ['pipe', 'pipe', 'pipe'] });
    try {
        run(['-d', 'postgres', '-c', `DROP DATABASE IF EXISTS ${db}`, '-c', `CREATE DATABASE ${db}`]);
        run(['-d', db, '-c', 'CREATE EXTENSION ots']);
        run(['-d', db, '-f', '-'], fs.readFileSync(path.join(root, 'tools', 'demo.sql'), 'utf8'));
        const out = run(['-d', db, '-At', '-f', '-'], sql);
        report('readme_getting_started_in_demo', true,
            `after tools/demo.sql; its last query returned ${out.trim().split('\n').slice(-1)[0]}`);
    } catch (err) {
        report('readme_getting_started_in_demo', false, failure(err));
    } finally {
        try {
            run(['-d', 'postgres', '-c', `DROP DATABASE IF EXISTS ${db}`]);
        } catch (err) {
            // reported above if it matters
        }
    }
}

nodeProgram();
gettingStarted();
process.exit(status);
