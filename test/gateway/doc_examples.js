// test/gateway/doc_examples.js: the complete Node.js program of README.md
// ("Tablestore SDKs: the protocol gateway") runs against otsd as printed,
// its endpoint, instance and key being the test's; it must print "new".
// Prints "test NAME ... ok|FAILED" lines.
'use strict';
const fs = require('fs');
const path = require('path');
const { execFileSync } = require('child_process');

const root = path.resolve(__dirname, '..', '..');
const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
const section = readme.split('## Tablestore SDKs: the protocol gateway')[1] || '';
const block = /```js\n([\s\S]*?)```/.exec(section);
let status = 0;

function report(name, ok, detail) {
    console.log(`test ${name} ... ${ok ? 'ok' : 'FAILED'}${detail ? ` (${detail})` : ''}`);
    if (!ok) status = 1;
}

if (!block) {
    report('readme_example', false, 'no js block in the README section');
} else {
    // the demo's endpoint and instance, as printed, become the test's
    const program = block[1]
        .replace("'http://127.0.0.1:8800'", JSON.stringify(process.env.endpoint))
        .replace("'ots-demo'", JSON.stringify(process.env.instancename));
    // beside node_modules, so that require('tablestore') finds the pinned SDK
    const file = path.join(__dirname, '.readme_example.js');
    fs.writeFileSync(file, program);
    try {
        const out = execFileSync(process.execPath, [file], {
            env: Object.assign({}, process.env, {
                OTS_KEY_ID: process.env.accessKeyId, OTS_SECRET: process.env.secretAccessKey,
            }),
            encoding: 'utf8', timeout: 60000,
        });
        report('readme_example', out.trim() === 'new', `printed ${JSON.stringify(out.trim())}`);
    } catch (err) {
        report('readme_example', false, String(err.stderr || err.message).split('\n').slice(0, 5).join(' '));
    } finally {
        fs.unlinkSync(file);
    }
}
process.exit(status);
