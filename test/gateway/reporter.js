'use strict';
// A mocha reporter printing one "test NAME ... ok|FAILED" line per test, the
// lines tools/test counts (NAME without spaces: suite/title, spaces as _).
const Mocha = require('mocha');

const { EVENT_TEST_PASS, EVENT_TEST_FAIL, EVENT_TEST_PENDING, EVENT_RUN_END } = Mocha.Runner.constants;

// OTSGW_TEST_PREFIX names a second run of the same tests (run.sh's nowire part)
function name(test) {
    return (process.env.OTSGW_TEST_PREFIX || '') + test.titlePath().join('/').replace(/\s+/g, '_');
}

class LineReporter extends Mocha.reporters.Base {
    constructor(runner, options) {
        super(runner, options);
        runner.on(EVENT_TEST_PASS, (test) => {
            console.log(`test ${name(test)} ... ok (${test.duration} ms)`);
        });
        runner.on(EVENT_TEST_FAIL, (test, err) => {
            const first = String((err && (err.message || err)) || 'failed').split('\n').slice(0, 30).join('\n    ');
            console.log(`test ${name(test)} ... FAILED`);
            console.log(`    ${first}`);
            if (err && err.stack && !(err instanceof Error && err.name === 'AssertionError')) {
                console.log(err.stack.split('\n').slice(1, 4).join('\n'));
            }
        });
        runner.on(EVENT_TEST_PENDING, (test) => {
            console.log(`skip ${name(test)}`);
        });
        runner.once(EVENT_RUN_END, () => {
            const s = this.stats;
            console.log(`(mocha: ${s.passes} passing, ${s.failures} failing, ${s.pending} pending)`);
        });
    }
}

module.exports = LineReporter;
