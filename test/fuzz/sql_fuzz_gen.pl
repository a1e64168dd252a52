#!/usr/bin/perl
# test/fuzz/sql_fuzz_gen.pl: writes the inputs of test/fuzz/sql_fuzz.sh.
#
#   perl sql_fuzz_gen.pl COUNT SEED NOW_MS > inputs.copy
#
# One line per input, in COPY text format: kind, table, input text. Inputs
# are JSON documents of the shapes each target expects (ots.cells text form,
# primary keys, attribute maps, update operations, filters and column
# conditions, range bounds, time ranges, batch requests), built from edge
# values and special keys, about a quarter of them then mutated as text
# (bytes flipped, cut, repeated, inserted), so most reach ots's own checks
# and some only the jsonb parser. The same COUNT, SEED and NOW_MS give the
# same file.
use strict;
use warnings;

my ($count, $seed, $now) = @ARGV;
die "usage: $0 COUNT SEED NOW_MS\n" unless defined $now;
srand($seed);

# the targets (see sql_fuzz.sql) with their relative weights
my @kinds = (
	[cells_text => 14], [put_pk => 8], [put_attrs => 12], [put_cond => 5],
	[update_ops => 12], [update_cond => 4], [delete_pk => 3], [get_filter => 10],
	[range_filter => 8], [range_bounds => 8], [time_range => 4], [batch_write => 8],
	[batch_get => 4], [stream_read => 4], [analyze => 4], [wire_row => 6], [search => 6]);
my $kind_total = 0;
$kind_total += $_->[1] for @kinds;

# the tables sql_fuzz.sql creates, and their primary keys
my %pk = (
	fz_s => [[id => 'string']],
	fz_i => [[a => 'integer'], [b => 'string']],
	fz_b => [[k => 'binary'], [n => 'integer']],
	fz_h => [[p => 'string'], [q => 'integer']],
	fz_v => [[id => 'string'], [seq => 'integer']]);
my @tables = sort keys %pk;

sub pick { return $_[int(rand(@_))]; }
sub chance { return rand() < $_[0]; }

sub jstr {
	my ($s) = @_;
	$s =~ s/(["\\])/\\$1/g;
	$s =~ s/([\x00-\x1f])/sprintf('\\u%04x', ord($1))/ge;
	return "\"$s\"";
}

my @names = (qw(a b c price status location col_1 _x Z9 value ts row_ts cells id key column and or not
	attributes), '$binary', '$inf');

sub name {
	my $r = rand();
	return pick(@names) if $r < 0.75;
	return join('', map { pick('a' .. 'z', '_', '0' .. '9') } 1 .. 1 + int(rand(12))) if $r < 0.9;
	return pick('', '0a', 'a-b', 'a b', "\x{e9}t\x{e9}", 'x' x 255, 'y' x 256, "n\\u0000", 'A' x int(rand(40)));
}

sub b64 {
	return pick('', 'AA==', 'AAEC', 'AAE=', 'QUJD', '////', 'A', 'AA=', '=', 'AA==AA==', '@@@@', 'AA\\nAA==',
		'A' x 1400);
}

my $huge_left = 6;
my @ints = ('0', '1', '-1', '42', '9223372036854775807', '-9223372036854775808', '9223372036854775808',
	'-9223372036854775809', '99999999999999999999999', '2147483648', '1e3', '1E18', '1e19', '-0');
my @doubles = ('0.5', '3.0', '-2.25', '1e300', '1e-300', '1.7976931348623157e308', '1e309', '-0.0',
	'123456789012345678901234567890.5', '0.1', '1e-400');

sub timestamp {
	my $r = rand();
	return $now - int(rand(3_600_000)) if $r < 0.7;
	return $now + int(rand(3_600_000)) if $r < 0.8;
	return pick('0', '-1', '1', '9223372036854775', '9223372036854774', '9223372036854775807', '1.5', '"5"',
		'null', $now - 86_400_000 * 2, $now + 86_400_000 * 2, $now - 86_399_000, '1e15', 'true');
}

sub scalar_value {
	my $r = rand();
	return pick(@ints) if $r < 0.25;
	return pick(@doubles) if $r < 0.4;
	return pick('true', 'false', 'null') if $r < 0.5;
	return jstr(pick('', 'x', 'shanghai', "\x{4e0a}\x{6d77}", 'a' x 1024, 'b' x 1025, '$inf', "tab\tnl\n"))
		if $r < 0.7;
	if ($r < 0.702 && $huge_left > 0) {
		$huge_left--;    # a few values around the 2 MB limit per run
		return '"' . ('s' x (2_097_152 + pick(-1, 0, 1))) . '"';
	}
	return '{"$binary": "' . b64() . '"}' if $r < 0.8;
	return '{"$double": ' . pick(@doubles, @ints, '"NaN"', '"Infinity"', '"-Infinity"', '"1.5"', '"x"', 'null')
		. '}' if $r < 0.88;
	return pick('{"$inf": "min"}', '{"$inf": "max"}', '{"$inf": "mid"}', '{"$auto_increment": true}',
		'{"$auto_increment": false}', '{"$binary": 1}', '{"$double": 1, "x": 2}', '[]', '{}', '[1, 2]');
}

sub cell {
	my $r = rand();
	return scalar_value() if $r < 0.4;
	return '{"value": ' . scalar_value() . ', "ts": ' . timestamp() . '}' if $r < 0.8;
	return '{"value": ' . scalar_value() . '}' if $r < 0.85;
	return '{"ts": ' . timestamp() . '}' if $r < 0.9;
	return '{"value": ' . scalar_value() . ', "ts": ' . timestamp() . ', "x": 1}';
}

sub column_cells {
	return cell() if chance(0.6);
	return '[' . join(', ', map { cell() } 1 .. int(rand(5))) . ']' if chance(0.97);
	# versions of one column around the 1024-cell limit
	return '[' . join(', ', map { '{"value": ' . $_ . ', "ts": ' . ($now - $_) . '}' } 1 .. pick(1023, 1024, 1025))
		. ']';
}

sub attributes {
	return '{' . join(', ', map { jstr(name()) . ': ' . column_cells() } 1 .. int(rand(6))) . '}' if chance(0.97);
	# many columns around the 1024-cell limit, one small cell each
	my $n = pick(1023, 1024, 1025, 40);
	return '{' . join(', ', map { jstr("c$_") . ': ' . pick(@ints, '"x"', '{"value": 1, "ts": ' . timestamp() . '}') }
		1 .. $n) . '}';
}

sub pk_value {
	my ($type) = @_;
	if (chance(0.75)) {
		return jstr(chance(0.9) ? 'k' . int(rand(20)) : pick('', 'x' x 1024, 'x' x 1025, "\x{e9}", 'a/b'))
			if $type eq 'string';
		return pick(int(rand(20)), @ints) if $type eq 'integer';
		return '{"$binary": "' . pick('AA==', 'AAE=', 'AAEC', '', 'QUJD', '////') . '"}';
	}
	return scalar_value();
}

sub primary_key {
	my ($table) = @_;
	my @cols = @{$pk{$table}};
	my @parts = map { jstr($_->[0]) . ': ' . pk_value($_->[1]) } @cols;
	my $r = rand();
	if ($r < 0.1) {
		pop @parts;
	} elsif ($r < 0.2) {
		push @parts, jstr(name()) . ': ' . scalar_value();
	} elsif ($r < 0.25) {
		@parts = reverse @parts;
	} elsif ($r < 0.28) {
		return pick('[]', '{}', '1', '"k"', 'null', '[{"id": "k"}]');
	}
	return '{' . join(', ', @parts) . '}';
}

sub bound {
	my ($table) = @_;
	my @parts = map {
		jstr($_->[0]) . ': ' . (chance(0.4) ? pick('{"$inf": "min"}', '{"$inf": "max"}') : pk_value($_->[1]))
	} @{$pk{$table}};
	pop @parts if chance(0.1);
	return '{' . join(', ', @parts) . '}';
}

my @comparators = ('=', '!=', '>', '>=', '<', '<=', 'EQUAL', 'NOT_EQUAL', 'GREATER_THAN', 'GREATER_EQUAL',
	'LESS_THAN', 'LESS_EQUAL', 'LIKE', '', '==');

sub filter {
	my ($depth) = @_;
	my $r = rand();
	if ($r < 0.55 || $depth > 5) {
		my @f = ('"column": ' . jstr(name()), '"comparator": ' . jstr(pick(@comparators)),
			'"value": ' . scalar_value());
		push @f, '"pass_if_missing": ' . pick('true', 'false', '1', '"yes"') if chance(0.3);
		push @f, '"latest_version_only": ' . pick('true', 'false', 'null') if chance(0.3);
		push @f, '"extra": 1' if chance(0.03);
		@f = grep { chance(0.93) } @f;
		return '{' . join(', ', @f) . '}';
	}
	if ($r < 0.85) {
		my $op = pick('and', 'and', 'or', 'or', 'not', 'not', 'nor');
		# wide nodes (around the 32-node limit) only have leaves below them
		my $n = chance(0.9) ? int(rand(4)) : 20 + int(rand(20));
		return '{"' . $op . '": [' . join(', ', map { filter($n > 4 ? 99 : $depth + 1) } 1 .. $n) . ']}';
	}
	if ($r < 0.95) {
		return '{"column_pagination": {"offset": ' . pick(0, 1, -1, 5, '1e3', '"2"', 9223372036854775807)
			. ', "limit": ' . pick(0, 1, 2, -1, 100, 'null') . '}}';
	}
	return pick('[]', '{}', 'null', '1', '"x"', '{"and": {}}', '{"not": [{"column": "a", "comparator": "=", '
		. '"value": 1}, {"column": "b", "comparator": "=", "value": 1}]}');
}

sub time_range {
	my $r = rand();
	return '{"specific_time": ' . timestamp() . '}' if $r < 0.3;
	return '{"start_time": ' . timestamp() . ', "end_time": ' . timestamp() . '}' if $r < 0.7;
	return '{"start_time": ' . timestamp() . '}' if $r < 0.8;
	return '{"start_time": 1, "end_time": 2, "specific_time": 3}' if $r < 0.85;
	return '{"start_time": ' . timestamp() . ', "end_time": ' . timestamp() . ', ' . foreign_field() . '}' if $r < 0.88;
	return pick('{}', '[]', '5', '{"end_time": 0}', '{"start_time": "1", "end_time": "2"}');
}

sub update_ops {
	my @ops;
	push @ops, '"put": ' . attributes() if chance(0.5);
	push @ops, '"delete": {' . join(', ', map {
		jstr(name()) . ': ' . (chance(0.5) ? timestamp() : '[' . join(', ', map { timestamp() } 0 .. rand(3)) . ']')
	} 0 .. rand(3)) . '}' if chance(0.3);
	push @ops, '"delete_all": [' . join(', ', map { jstr(name()) } 0 .. rand(3)) . ']' if chance(0.3);
	push @ops, '"increment": {' . join(', ', map {
		jstr(name()) . ': ' . (chance(0.7) ? pick(1, -1, 0, 5, @ints) : scalar_value())
	} 0 .. rand(3)) . '}' if chance(0.5);
	return '{' . join(', ', @ops) . '}';
}

# foreign_field: a field no shape of ots knows (or one of another shape),
# which must fail the request it is in (sql_fuzz.sql's fuzz_unknown_field)
sub foreign_field {
	return '"' . pick('attribute_columns', 'token', 'extra', 'row_existence', 'return_content', 'Type',
		'$entry', 'transaction_id', 'max_versions') . '": ' . pick('1', '"x"', '{}', '[]', 'null');
}

sub write_row {
	my ($table, $small) = @_;
	$table = 'fz_s' unless $pk{$table};
	my $type = pick('PUT', 'PUT', 'UPDATE', 'UPDATE', 'DELETE', 'put', 'GET');
	# the fields of the row's type, now and then one of another type
	my $is = sub { return uc($type) eq $_[0] || chance(0.03); };
	my @f = ('"type": ' . jstr($type), '"primary_key": ' . primary_key($table));
	push @f, '"attributes": ' . ($small ? '{"a": ' . scalar_value() . '}' : attributes())
		if $is->('PUT') && chance(0.7);
	push @f, '"put": ' . ($small ? '{"b": ' . cell() . '}' : attributes()) if $is->('UPDATE') && chance(0.5);
	push @f, '"increment": {"c": ' . pick(1, -1, @ints) . '}' if $is->('UPDATE') && chance(0.4);
	push @f, '"delete_all": [' . jstr(name()) . ']' if $is->('UPDATE') && chance(0.2);
	push @f, '"condition": ' . jstr(pick('IGNORE', 'EXPECT_EXIST', 'EXPECT_NOT_EXIST', 'NEVER')) if chance(0.3);
	push @f, '"column_condition": ' . filter($small ? 99 : 0) if chance(0.15);
	push @f, '"return_type": ' . jstr(pick('RT_NONE', 'RT_PK', 'RT_AFTER_MODIFY', 'RT_X')) if chance(0.2);
	push @f, foreign_field() if chance(0.03);
	return '{' . join(', ', @f) . '}';
}

sub batch_write {
	my @t = map {
		my $table = chance(0.95) ? pick(@tables) : pick('nope', '', 'fz_s$data');
		my $n = chance(0.95) ? int(rand(6)) : pick(200, 201);
		'{"table_name": ' . jstr($table) . ', "rows": [' . join(', ', map { write_row($table, $n > 10) } 1 .. $n) . ']'
			. (chance(0.03) ? ', ' . foreign_field() : '') . '}'
	} 0 .. rand(2);
	return '[' . join(', ', @t) . ']';
}

sub batch_get {
	my @t = map {
		my $table = pick(@tables);
		my $n = chance(0.95) ? int(rand(6)) : pick(100, 101);
		my @f = ('"table_name": ' . jstr($table),
			'"primary_keys": [' . join(', ', map { primary_key($table) } 1 .. $n) . ']');
		push @f, '"columns_to_get": [' . join(', ', map { jstr(name()) } 0 .. rand(3)) . ']' if chance(0.3);
		push @f, '"max_versions": ' . pick(1, 2, 0, -1, '"x"') if chance(0.3);
		push @f, '"time_range": ' . time_range() if chance(0.2);
		push @f, '"filter": ' . filter(0) if chance(0.3);
		push @f, '"with_timestamps": ' . pick('true', 'false', 'null', '"yes"') if chance(0.1);
		push @f, foreign_field() if chance(0.03);
		'{' . join(', ', @f) . '}'
	} 0 .. rand(2);
	return '[' . join(', ', @t) . ']';
}

# stored_cell: a cell of the text form, which needs its timestamp
sub stored_cell {
	return cell() if chance(0.1);
	return '{"ts": ' . timestamp() . ', "value": ' . scalar_value() . '}';
}

sub cells_text {
	my $r = rand();
	my $cells = '{' . join(', ', map {
		jstr(name()) . ': ' . (chance(0.5) ? stored_cell() : '[' . join(', ', map { stored_cell() } 0 .. rand(3)) . ']')
	} 0 .. rand(5) - 1) . '}';
	return '{"row_ts": ' . timestamp() . ', "cells": ' . $cells . '}' if $r < 0.8;
	return '{"cells": ' . $cells . ', "row_ts": ' . timestamp() . '}' if $r < 0.85;
	return '{"row_ts": ' . timestamp() . '}' if $r < 0.88;
	return '{"row_ts": 1, "cells": {}, "x": 1}' if $r < 0.9;
	return pick('', ' ', 'null', '[]', '{}', '1', '"x"', '{"row_ts": 1, "cells": []}', 'nonsense',
		'{"row_ts": 1, "cells": {"a": []}}');
}

# shard_iterator: a stream iterator "<stream id>:<shard>:<position>:<n>"; @SID@
# stands for the table's stream id (sql_fuzz.sql puts it in)
sub shard_iterator {
	my $number = sub {
		return pick('0', '1', '7', '-1', '2147483647', '2147483648', '9223372036854775807',
					'9223372036854775808', '99999999999999999999', '', ' 1', '+1', '1e3', '0x10',
					int(rand(2**31)) . '', (time() * 1000000 + int(rand(1e9)) - 5e8) . '');
	};
	my @parts = (pick('@SID@', '@SID@', '@SID@', '', 'x', '00000000-0000-0000-0000-000000000000', name()),
				 $number->(), $number->(), $number->());
	splice(@parts, int(rand(@parts)), 1) if chance(0.1);
	push(@parts, $number->()) if chance(0.1);
	return join(pick(':', ':', ':', ':', ';', '::'), @parts);
}

# mutate: byte-level damage to a JSON text
sub mutate {
	my ($s) = @_;
	for (1 .. 1 + int(rand(3))) {
		my $len = length($s);
		my $pos = $len ? int(rand($len)) : 0;
		my $r = rand();
		if ($r < 0.2 && $len) {
			substr($s, $pos, 1) = pick('"', '{', '}', '[', ']', ':', ',', '\\', '0', '-', 'e', '.', ' ', 'x');
		} elsif ($r < 0.35) {
			$s = substr($s, 0, $pos);
		} elsif ($r < 0.5 && $len) {
			substr($s, $pos, int(rand(8))) = '';
		} elsif ($r < 0.65 && $len) {
			my $piece = substr($s, $pos, 1 + int(rand(16)));
			substr($s, $pos, 0) = $piece x (1 + int(rand(3)));
		} elsif ($r < 0.8) {
			substr($s, $pos, 0) = pick('\\u0000', '\\ud800', '\\udc00\\ud800', "\x{7f}", "\x{fffd}", '\\"',
				'1e999999', '-', '{"$inf": "max"}', 'null', '[' x 50, '{"a":' x 30);
		} elsif ($len) {
			my $c = ord(substr($s, $pos, 1));
			substr($s, $pos, 1) = chr(($c ^ (1 << int(rand(7)))) || 32);
		}
	}
	return $s;
}

sub copy_escape {
	my ($s) = @_;
	$s =~ s/\\/\\\\/g;
	$s =~ s/\t/\\t/g;
	$s =~ s/\n/\\n/g;
	$s =~ s/\r/\\r/g;
	return $s;
}

# a search of fz_s's search index fx (sql_fuzz.sql): queries on its fields
# (and others), sorts, paging, aggregations and group-bys, mostly well formed
my @search_fields = qw(a b c price status location value col_1 Z9 id nope);
sub search_value {
	return pick(@ints, @doubles, 'true', 'false', 'null', '"x"', '"k3"', '"1"', '"2024-01-01"', '"30.5,120.1"',
		'"[1,2]"', '{}', '[]', jstr('x' x 40));
}
sub search_query {
	my ($depth) = @_;
	my $f = jstr(pick(@search_fields));
	my $r = rand();
	if ($r < 0.15 && $depth < 4) {
		my @lists = map { '"' . $_ . '": [' . join(', ', map { search_query($depth + 1) } 1 .. int(rand(3))) . ']' }
			grep { chance(0.5) } qw(must_queries must_not_queries filter_queries should_queries);
		push @lists, '"minimum_should_match": ' . pick(0, 1, 2, 5, -1, '"x"') if chance(0.3);
		return '{"bool_query": {' . join(', ', @lists) . '}}';
	}
	return '{"match_all_query": {}}' if $r < 0.2;
	return "{\"term_query\": {\"field_name\": $f, \"term\": " . search_value() . '}}' if $r < 0.35;
	return "{\"terms_query\": {\"field_name\": $f, \"terms\": [" . join(', ', map { search_value() } 0 .. int(rand(4))) . ']}}'
		if $r < 0.42;
	return "{\"range_query\": {\"field_name\": $f, \"range_from\": " . search_value() . ', "range_to": ' . search_value()
		. ', "include_lower": ' . pick('true', 'false', '1') . '}}' if $r < 0.55;
	return "{\"prefix_query\": {\"field_name\": $f, \"prefix\": " . jstr(pick('k', 'x%', '_', '', 'a' x 1001)) . '}}' if $r < 0.6;
	return "{\"wildcard_query\": {\"field_name\": $f, \"value\": " . jstr(pick('k*', '?', '*%_\\', '', 'x' x 33)) . '}}' if $r < 0.65;
	return "{\"exists_query\": {\"field_name\": $f}}" if $r < 0.7;
	return "{\"match_query\": {\"field_name\": $f, \"text\": " . jstr(pick('shanghai x', '', "\x{4e0a}\x{6d77} s", 'a' x 100))
		. ', "operator": ' . pick('"AND"', '"OR"', '"XOR"', 'null') . ', "minimum_should_match": ' . pick(0, 1, 3, 'null') . '}}'
		if $r < 0.78;
	return "{\"match_phrase_query\": {\"field_name\": $f, \"text\": " . jstr(pick('x', 'shanghai x', '', "\x{4e0a}\x{6d77}")) . '}}'
		if $r < 0.84;
	return "{\"geo_distance_query\": {\"field_name\": $f, \"center_point\": " . jstr(pick('30,120', '91,0', 'x', '0,0'))
		. ', "distance": ' . pick(1, 1e7, -1, '"x"', 1e308) . '}}' if $r < 0.89;
	return "{\"geo_bounding_box_query\": {\"field_name\": $f, \"top_left\": \"31,119\", \"bottom_right\": "
		. jstr(pick('30,121', '32,118', '30,-179')) . '}}' if $r < 0.92;
	return "{\"geo_polygon_query\": {\"field_name\": $f, \"points\": [\"30,120\", \"31,120\", \"31,121\"]}}" if $r < 0.94;
	return pick('{"const_score_query": {"filter": {"match_all_query": {}}}}', '{"nested_query": {}}',
		'{"knn_vector_query": {}}', '{}', '{"term_query": null}', '[]', '{"a": {}, "b": {}}');
}
sub search_agg {
	my ($depth) = @_;
	my $type = pick(qw(avg sum max min count distinct_count percentiles top_rows nope));
	return '{"name": ' . jstr(pick('a', 'b', '', 'c')) . ', "type": "' . $type . '", "field_name": ' . jstr(pick(@search_fields))
		. (chance(0.3) ? ', "missing": ' . search_value() : '')
		. ($type eq 'percentiles' ? ', "percentiles": [' . join(', ', map { pick(0, 50, 100, 101, -1, 33.3) } 0 .. int(rand(3))) . ']' : '')
		. '}';
}
sub search_group_by {
	my ($depth) = @_;
	my $type = pick(qw(field range filter histogram geo_distance date_histogram nope));
	my $g = '{"name": ' . jstr(pick('g', 'h', '')) . ', "type": "' . $type . '", "field_name": ' . jstr(pick(@search_fields));
	$g .= ', "size": ' . pick(1, 3, 2000, 2001, 0) if chance(0.3);
	$g .= ', "min_doc_count": ' . pick(1, 0, 3000000000, -5) if chance(0.2);
	$g .= ', "sort": {"sorters": [{"' . pick('row_count_sort', 'group_key_sort', 'sub_agg_sort') . '": {"order": "'
		. pick('ASC', 'DESC', 'D') . '"}}]}' if chance(0.2);
	$g .= ', "ranges": [' . join(', ', map { '{"from": ' . search_value() . ', "to": ' . search_value() . '}' } 0 .. int(rand(3))) . ']'
		if $type eq 'range' || $type eq 'geo_distance';
	$g .= ', "origin": {"lat": ' . pick(30, 91, '"x"') . ', "lon": 120}' if $type eq 'geo_distance';
	$g .= ', "filters": [' . join(', ', map { search_query(3) } 0 .. int(rand(3))) . ']' if $type eq 'filter';
	$g .= ', "interval": ' . pick(1, 0.5, 0, -1, 1e-9, 100) . ', "offset": ' . pick(0, 1, 0.5)
		. (chance(0.3) ? ', "field_range": {"min": 0, "max": ' . pick(10, 1e300) . '}' : '') if $type eq 'histogram';
	$g .= ', "sub_aggs": [' . search_agg($depth + 1) . ']' if chance(0.3);
	$g .= ', "sub_group_bys": [' . search_group_by($depth + 1) . ']' if chance(0.25) && $depth < 5;
	return $g . '}';
}
sub search_request {
	my @parts = ('"query": ' . search_query(0));
	push @parts, '"sort": {"sorters": [' . join(', ', map {
		pick('{"field_sort": {"field_name": ' . jstr(pick(@search_fields)) . ', "order": "' . pick('ASC', 'DESC') . '"'
			. (chance(0.3) ? ', "mode": "' . pick('MIN', 'MAX', 'AVG', 'X') . '"' : '')
			. (chance(0.2) ? ', "missing_value": ' . search_value() : '') . '}}',
			'{"primary_key_sort": {"order": "' . pick('ASC', 'DESC') . '"}}', '{"score_sort": {}}') } 0 .. int(rand(3))) . ']}'
		if chance(0.4);
	push @parts, '"limit": ' . pick(0, 1, 5, 100, 101, -1) if chance(0.5);
	push @parts, '"offset": ' . pick(0, 3, 100000, -1) if chance(0.2);
	push @parts, '"get_total_count": ' . pick('true', 'false') if chance(0.4);
	push @parts, '"token": ' . jstr(pick('', 'eyJ9', 'eyJrZXkiOiBbMV0sICJzb3J0IjogW10sICJhZnRlciI6IFtdfQ==', 'x' x 20)) if chance(0.1);
	push @parts, '"aggs": [' . join(', ', map { search_agg(0) } 0 .. int(rand(3))) . ']' if chance(0.35);
	push @parts, '"group_bys": [' . join(', ', map { search_group_by(0) } 0 .. int(rand(2))) . ']' if chance(0.35);
	return '{' . join(', ', @parts) . '}';
}

# text for ots.search_analyze: pieces of every script and class its
# analyzers tell apart (Han, kana, Hangul, Latin-1, Greek, Cyrillic,
# fullwidth, emoji, punctuation, spaces, digits), short and past the fuzzy
# analyzer's 1,024 characters
my @text_pieces = ('Hang Zhou', 'IPhone6s', "\x{676d}\x{5dde}", "\x{83ca}\x{82b1}\x{8336}", "\x{3072}\x{3089}",
	"\x{30ab}\x{30bf}", "\x{d55c}\x{ad6d}", "\x{c9}COLE", "\x{391}\x{398}", "\x{41c}\x{41e}", "\x{ff21}\x{ff11}",
	"\x{1f642}", "\x{3002}", ', ', '  ', "\t", '-', '||', '#', '2024', '_', '@', "e\x{301}", "\x{20000}", 'a');

sub analyze_text {
	my $n = pick(0, 1, 2, 5, 20, 200, 1100);
	return join('', map { pick(@text_pieces) } 1 .. $n);
}

# an analyzer with parameters it takes
my @analyzers_valid = (['single_word', 'null'], ['single_word', '{"case_sensitive": true, "delimit_word": true}'],
	['single_word', '{"delimit_word": true}'], ['split', 'null'], ['split', '{"delimiter": "||"}'],
	['split', '{"delimiter": "\u676d", "case_sensitive": true}'], ['fuzzy', 'null'],
	['fuzzy', '{"min_chars": 1, "max_chars": 32}'], ['fuzzy', '{"min_chars": 3, "max_chars": 3}'],
	['fuzzy', '{"min_chars": 1, "max_chars": 4, "case_sensitive": true}'], ['fuzzy', '{"case_sensitive": true}'],
	['split', '{"delimiter": "||", "case_sensitive": true}'], ['split', '{"delimiter": " ", "case_sensitive": true}'],
	['max_word', 'null'], ['min_word', '{}']);

sub analyze_request {
	if (chance(0.6)) {
		my $v = pick(@analyzers_valid);
		return '{"t": ' . jstr(analyze_text()) . ', "a": "' . $v->[0] . '", "p": ' . $v->[1] . '}';
	}
	my $analyzer = pick('single_word', 'single_word', 'split', 'fuzzy', 'fuzzy', 'max_word', 'min_word', 'SPLIT',
		'', 'standard', undef);
	my $param = pick('null', '{}', '{"case_sensitive": true}', '{"delimit_word": true}', '{"delimit_word": 1}',
		'{"delimiter": "-"}', '{"delimiter": "||"}', '{"delimiter": ""}', '{"delimiter": "\u676d"}',
		'{"min_chars": 1, "max_chars": 32}', '{"min_chars": 2, "max_chars": 3, "case_sensitive": false}',
		'{"min_chars": 0}', '{"max_chars": 33}', '{"min_chars": 1e9}', '{"min_chars": -1}', '{"x": 1}', '[]', '"x"');
	return '{"t": ' . jstr(analyze_text()) . ', "a": ' . (defined $analyzer ? jstr($analyzer) : 'null')
		. ', "p": ' . $param . '}';
}

# a wire_row input: which stored row seeds it, the bytes to set, where to cut,
# and the wire write that takes it
sub wire_row {
	my @m;
	my $n = pick(0, 0, 1, 1, 2, 3, 8);
	push @m, '[' . int(rand(400)) . ', ' . pick(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 0x75, 0x7f, 0x80, 0xff, int(rand(256))) . ']'
		for 1 .. $n;
	my $doc = '{"k": ' . int(rand(20)) . ', "op": "' . pick('put', 'put', 'update', 'update', 'delete', 'batch') . '"'
		. ', "m": [' . join(', ', @m) . ']'
		. ', "cond": ' . pick('"IGNORE"', '"IGNORE"', '"EXPECT_EXIST"', '"EXPECT_NOT_EXIST"', 'null', '"BAD"')
		. ', "rt": ' . pick('"RT_NONE"', '"RT_PK"', '"RT_AFTER_MODIFY"', 'null', '"RT_X"');
	$doc .= ', "cut": ' . int(rand(200)) if chance(0.15);
	$doc .= ', "type": "' . pick('put', 'update', 'delete', 'x') . '"' if chance(0.5);
	$doc .= ', "atomic": true' if chance(0.2);
	return $doc . '}';
}

binmode(STDOUT, ':encoding(UTF-8)');
for my $i (1 .. $count) {
	my $w = rand($kind_total);
	my $kind;
	for (@kinds) {
		$kind = $_->[0];
		last if ($w -= $_->[1]) < 0;
	}
	my $table = pick(@tables);
	my $input =
		$kind eq 'cells_text' ? cells_text()
		: $kind eq 'put_pk' || $kind eq 'delete_pk' ? primary_key($table)
		: $kind eq 'put_attrs' ? attributes()
		: $kind eq 'put_cond' || $kind eq 'update_cond' ? filter(0)
		: $kind eq 'update_ops' ? update_ops()
		: $kind eq 'get_filter' || $kind eq 'range_filter' ? filter(0)
		: $kind eq 'range_bounds' ? '[' . bound($table) . ', ' . bound($table) . ']'
		: $kind eq 'time_range' ? time_range()
		: $kind eq 'batch_write' ? batch_write()
		: $kind eq 'stream_read' ? shard_iterator()
		: $kind eq 'analyze' ? analyze_request()
		: $kind eq 'wire_row' ? wire_row()
		: $kind eq 'search' ? search_request()
		: batch_get();
	# a wire_row input is the harness's parameters, its damage is inside
	$input = mutate($input) if chance(0.25) && $kind ne 'wire_row';
	print join("\t", $kind, $table, copy_escape($input)), "\n";
}
