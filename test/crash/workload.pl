#!/usr/bin/perl
# test/crash/workload.pl: the writers and the checker of test/crash/run.sh.
#
#   workload.pl gen CLIENT CYCLE SEED
#       prints an endless psql script for writer CLIENT: before each write
#       "\echo S <seq> <op> <key...> <tag>", after it "\echo A <seq>" when the
#       server acknowledged it (autocommit, synchronous_commit = on) or
#       "\echo E <seq> <sqlstate>" when it failed. psql exits when the server
#       goes away, so a client's log ends with at most one write in flight.
#   workload.pl check BASELINE FOUND LOG...
#       checks the state found after crash recovery (FOUND: "g<TAB>n<TAB>
#       attributes" lines) against BASELINE (the state found after the
#       previous recovery, same format) and the writes the logs acknowledged;
#       prints the figures and the violations; exit status 1 on a violation.
#
# Keys of table crash_t (g string, n integer), client c:
#   p<c>/0..4  put_row (attributes v, a, b, d all derived from the tag) or delete_row
#   u<c>/0..4  update_row put {"v": tag} + increment {"cnt": 1}, one statement
#   ctr/0..4   update_row increment {"cnt": 1, "c<c>": 1}, shared by all clients
#   b<c>/0..3  batch_write_row of 4 PUTs {"v": tag}, is_atomic
#   t<c>a/0, t<c>b/0   two put_row calls in one statement (one transaction)
use strict;
use warnings;
use JSON::PP;
use MIME::Base64;

my $mode = shift // '';
if ($mode eq 'gen') {
	gen(@ARGV);
} elsif ($mode eq 'check') {
	exit(check(@ARGV));
} else {
	die "usage: $0 gen CLIENT CYCLE SEED | check BASELINE FOUND LOG...\n";
}

sub put_attrs {
	my ($tag, $seq) = @_;
	return sprintf('{"v": "%s", "a": %d, "b": {"$binary": "%s"}, "d": 1.5}', $tag, $seq, encode_base64($tag, ''));
}

sub gen {
	my ($c, $cycle, $seed) = @_;
	srand($seed * 1000 + $c * 17 + $cycle);
	$| = 0;
	print "\\o /dev/null\n";
	for (my $seq = 1;; $seq++) {
		my $tag = "c$c-$cycle-$seq";
		my $r = rand();
		my ($desc, $sql);
		if ($r < 0.30) {
			my $n = int(rand(5));
			$desc = "put p$c $n $tag";
			$sql = "SELECT ots.put_row('crash_t', '{\"g\": \"p$c\", \"n\": $n}', '" . put_attrs($tag, $seq) . "');";
		} elsif ($r < 0.35) {
			my $n = int(rand(5));
			$desc = "delete p$c $n $tag";
			$sql = "SELECT ots.delete_row('crash_t', '{\"g\": \"p$c\", \"n\": $n}');";
		} elsif ($r < 0.55) {
			my $n = int(rand(5));
			$desc = "update u$c $n $tag";
			$sql = "SELECT ots.update_row('crash_t', '{\"g\": \"u$c\", \"n\": $n}', put => '{\"v\": \"$tag\"}', "
				. "increment => '{\"cnt\": 1}');";
		} elsif ($r < 0.80) {
			my $n = int(rand(5));
			$desc = "incr ctr $n $tag";
			$sql = "SELECT ots.update_row('crash_t', '{\"g\": \"ctr\", \"n\": $n}', "
				. "increment => '{\"cnt\": 1, \"c$c\": 1}');";
		} elsif ($r < 0.90) {
			$desc = "batch b$c - $tag";
			my $rows = join(', ', map {
				"{\"type\": \"PUT\", \"primary_key\": {\"g\": \"b$c\", \"n\": $_}, \"attributes\": {\"v\": \"$tag\"}}"
			} 0 .. 3);
			$sql = "SELECT crash_batch('[{\"table_name\": \"crash_t\", \"rows\": [$rows]}]');";
		} else {
			$desc = "txn t$c - $tag";
			$sql = "SELECT ots.put_row('crash_t', '{\"g\": \"t${c}a\", \"n\": 0}', '{\"v\": \"$tag\"}'), "
				. "ots.put_row('crash_t', '{\"g\": \"t${c}b\", \"n\": 0}', '{\"v\": \"$tag\"}');";
		}
		print "\\echo S $seq $desc\n$sql\n\\if :ERROR\n\\echo E $seq :LAST_ERROR_SQLSTATE\n\\else\n\\echo A $seq\n\\endif\n";
	}
}

sub read_state {
	my ($file) = @_;
	my %state;
	open(my $fh, '<', $file) or die "$file: $!\n";
	while (my $line = <$fh>) {
		chomp $line;
		my ($g, $n, $attrs) = split(/\t/, $line, 3);
		$state{"$g/$n"} = decode_json($attrs);
	}
	close($fh);
	return \%state;
}

sub check {
	my ($baseline_file, $found_file, @logs) = @_;
	my $base = read_state($baseline_file);
	my $found = read_state($found_file);
	my @violations;
	my %fig;    # figures: acknowledged, in flight, per kind
	my %expect; # key => [allowed states], each a code ref checking the found attributes (undef = absent)
	my %ctr_acked;   # "n/c" => acknowledged increments this cycle
	my %ctr_flight;  # "n/c" => 1 when that client's increment to n is in flight

	for my $log (@logs) {
		my ($c) = $log =~ /client(\d+)/ or die "$log: no client number in the name\n";
		my (@ops, %ack);
		open(my $fh, '<', $log) or die "$log: $!\n";
		while (my $line = <$fh>) {
			chomp $line;
			if ($line =~ /^S (\d+) (\w+) (\S+) (\S+) (\S+)$/) {
				push @ops, {seq => $1, op => $2, g => $3, n => $4, tag => $5};
			} elsif ($line =~ /^A (\d+)$/) {
				$ack{$1} = 1;
			} elsif ($line =~ /^E (\d+) (\S*)$/) {
				push @violations, "client $c: write $1 failed with SQLSTATE $2";
				$ack{$1} = -1;
			}
		}
		close($fh);
		my @flight = grep { !$ack{$_->{seq}} } @ops;
		if (@flight > 1 || (@flight && $flight[0] != $ops[-1])) {
			push @violations, "client $c: more than one write without an answer";
		}
		$_->{flight} = 1 for @flight;
		$fig{flight} += @flight;
		for my $op (@ops) {
			next if ($ack{$op->{seq}} // 0) < 0;
			$fig{acked}++ unless $op->{flight};
			$fig{"acked_$op->{op}"}++ unless $op->{flight};
			if ($op->{op} eq 'incr') {
				$ctr_acked{"$op->{n}/$c"} += $op->{flight} ? 0 : 1;
				$ctr_flight{"$op->{n}/$c"} = 1 if $op->{flight};
				next;
			}
			# every other kind: the keys it writes, and the state it leaves
			my @keys = $op->{op} eq 'batch' ? map { "$op->{g}/$_" } 0 .. 3
				: $op->{op} eq 'txn' ? ("$op->{g}a/0", "$op->{g}b/0")
				: ("$op->{g}/$op->{n}");
			for my $k (@keys) {
				my $kind = $op->{op} eq 'delete' ? 'put' : $op->{op};
				my $e = $expect{$k} //= {kind => $kind, state => state_of_base($kind, $base->{$k})};
				my $next = next_state($op, $e->{state});
				if ($op->{flight}) {
					$e->{flight} = $next;
				} else {
					$e->{state} = $next;
					$e->{acked}++;
				}
			}
		}
	}

	# rows written this cycle: the found row is the last acknowledged state or
	# the in-flight write's state, whole
	my %group_tag;
	for my $k (sort keys %expect) {
		my $e = $expect{$k};
		my $f = $found->{$k};
		my @allowed = ($e->{state});
		push @allowed, $e->{flight} if $e->{flight};
		my $got = describe($f);
		$fig{row_writes} += $e->{acked} // 0;
		if (grep { describe_state($_) eq $got } @allowed) {
			$fig{row_writes_found} += $e->{acked} // 0;
			$fig{keys_ok}++;
		} else {
			push @violations, "$k ($e->{kind}): found $got, expected "
				. join(' or ', map { describe_state($_) } @allowed);
		}
		# the rows of one atomic batch or transaction carry one tag
		if ($e->{kind} eq 'batch' || $e->{kind} eq 'txn') {
			(my $group = $k) =~ s{(a|b)?/\d+$}{};
			$group_tag{$group}{$got} = 1;
		}
	}
	for my $group (sort keys %group_tag) {
		my @tags = sort keys %{$group_tag{$group}};
		push @violations, "$group: an atomic write is half applied: " . join(', ', @tags) if @tags > 1;
	}

	# counters: per client column within [acked, acked + in flight] of the
	# baseline, and cnt equal to their sum (both columns change in one write)
	my ($sum_acked, $sum_found, $sum_flight, $sum_base) = (0, 0, 0, 0);
	for my $n (0 .. 4) {
		my $f = $found->{"ctr/$n"} // {};
		my $b = $base->{"ctr/$n"} // {};
		my $cols = 0;
		for my $col (grep { /^c\d+$/ } keys %$f) {
			$cols += $f->{$col};
		}
		if (($f->{cnt} // 0) != $cols) {
			push @violations, "ctr/$n: cnt is " . ($f->{cnt} // 0) . " but its per-client columns sum to $cols";
		}
		my %clients = map { (split m{/})[1] => 1 } grep { m{^$n/} } (keys %ctr_acked, keys %ctr_flight);
		$clients{$_} = 1 for map { /^c(\d+)$/ ? $1 : () } keys %$f;
		for my $c (sort keys %clients) {
			my $lo = ($b->{"c$c"} // 0) + ($ctr_acked{"$n/$c"} // 0);
			my $hi = $lo + ($ctr_flight{"$n/$c"} // 0);
			my $got = $f->{"c$c"} // 0;
			push @violations, "ctr/$n column c$c: found $got, acknowledged increments say $lo" .
				($hi > $lo ? "..$hi" : '') if $got < $lo || $got > $hi;
			$sum_acked += $ctr_acked{"$n/$c"} // 0;
			$sum_flight += $ctr_flight{"$n/$c"} // 0;
			$sum_base += $b->{"c$c"} // 0;
			$sum_found += $got;
		}
	}

	# rows nobody wrote this cycle are as the previous recovery left them
	for my $k (sort keys %$found) {
		next if $expect{$k} || $k =~ m{^ctr/};
		push @violations, "$k: found " . describe($found->{$k}) . ", not written this cycle, was "
			. describe($base->{$k}) if describe($found->{$k}) ne describe($base->{$k});
	}
	for my $k (sort keys %$base) {
		next if $expect{$k} || $found->{$k} || $k =~ m{^ctr/};
		push @violations, "$k: lost (" . describe($base->{$k}) . ")";
	}

	printf "  acknowledged writes: %d (put %d, delete %d, update %d, increment %d, atomic batch %d, "
		. "two-row statement %d), in flight at the crash: %d\n", $fig{acked} // 0,
		map({ $fig{"acked_$_"} // 0 } qw(put delete update incr batch txn)), $fig{flight} // 0;
	printf "  found: %d of %d written keys in their last acknowledged (or the in-flight) state, whole; "
		. "%d of %d acknowledged row writes present or superseded by a later acknowledged one\n",
		$fig{keys_ok} // 0, scalar(keys %expect), $fig{row_writes_found} // 0, $fig{row_writes} // 0;
	printf "  counters: %d found = %d before + %d acknowledged + %d of %d in flight\n",
		$sum_found, $sum_base, $sum_acked, $sum_found - $sum_base - $sum_acked, $sum_flight;
	print "  VIOLATION: $_\n" for @violations;
	return @violations ? 1 : 0;
}

# the state model: undef (absent) or {tag, kind, cnt}; describe() renders a
# found row and describe_state() an expected state the same way, so that
# they compare as strings
sub state_of_base {
	my ($kind, $attrs) = @_;
	return undef unless $attrs;
	return {raw => describe($attrs)};
}

sub next_state {
	my ($op, $prev) = @_;
	return undef if $op->{op} eq 'delete';
	if ($op->{op} eq 'update') {
		my $cnt = 0;
		if ($prev) {
			($cnt) = ($prev->{raw} // '') =~ /cnt=(\d+)/ unless exists $prev->{cnt};
			$cnt = $prev->{cnt} if exists $prev->{cnt};
		}
		return {kind => 'update', tag => $op->{tag}, cnt => ($cnt // 0) + 1};
	}
	my ($seq) = $op->{tag} =~ /-(\d+)$/;
	return {kind => $op->{op}, tag => $op->{tag}, seq => $seq};
}

sub describe_state {
	my ($s) = @_;
	return 'absent' unless $s;
	return $s->{raw} if exists $s->{raw};
	return "update v=$s->{tag} cnt=$s->{cnt}" if $s->{kind} eq 'update';
	return "put v=$s->{tag} whole" if $s->{kind} eq 'put';
	return "row v=$s->{tag}";
}

sub describe {
	my ($a) = @_;
	return 'absent' unless $a;
	my @keys = sort keys %$a;
	my $v = $a->{v} // '?';
	if ("@keys" eq 'a b d v') {
		my ($seq) = $v =~ /-(\d+)$/;
		my $whole = defined $seq && $a->{a} eq $seq && ref $a->{b} eq 'HASH'
			&& decode_base64($a->{b}{'$binary'} // '') eq $v && $a->{d} == 1.5;
		return "put v=$v " . ($whole ? 'whole' : 'TORN ' . encode_json($a));
	}
	return "update v=$v cnt=$a->{cnt}" if "@keys" eq 'cnt v';
	return "row v=$v" if "@keys" eq 'v';
	return 'other ' . JSON::PP->new->canonical->encode($a);
}
