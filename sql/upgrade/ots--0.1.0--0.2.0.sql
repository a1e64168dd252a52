-- ots 0.1.0 -> 0.2.0: security and data safety (issue 12).
-- Every change here is also made in src/sql/ (what a fresh 0.2.0 install
-- runs); test/upgrade/run.sh shows the two arrive at the same objects.
\echo Use "ALTER EXTENSION ots UPDATE TO '0.2.0'" to load this file. \quit
