# ots: Tablestore's wide-column data model for PostgreSQL 15 (PGXS build).
EXTENSION  = ots ots_proxy
EXTVERSION = $(shell sed -n "s/^default_version = '\(.*\)'/\1/p" ots.control)
PROXY_VERSION = $(shell sed -n "s/^default_version = '\(.*\)'/\1/p" ots_proxy.control)

MODULE_big = ots
# src/ holds the core services; its folders the layers and features (src/README.md)
OBJS       = $(patsubst %.c,%.o,$(sort $(wildcard src/*.c src/*/*.c)))

# The install script is assembled from src/sql/*.sql, one file per concern, in name order.
SQL_PARTS  = $(sort $(wildcard src/sql/*.sql))
# ots_proxy (the cluster's proxy database) likewise from proxy/sql/*.sql; its C module,
# ots_proxy.so, is built by proxy/Makefile (below).
PROXY_PARTS = $(sort $(wildcard proxy/sql/*.sql))
DATA_built = ots--$(EXTVERSION).sql ots_proxy--$(PROXY_VERSION).sql
# the upgrade scripts of both extensions, ots--<old>--<new>.sql and
# ots_proxy--<old>--<new>.sql (docs/development.md, Releases)
DATA       = $(wildcard sql/upgrade/ots--*--*.sql sql/upgrade/ots_proxy--*--*.sql)

PG_CPPFLAGS = -Isrc -std=gnu11 -Wall -Wextra -Wno-unused-parameter \
              -Wno-missing-field-initializers -Wno-sign-compare
ifdef CI
PG_CPPFLAGS += -Werror
endif

# pg_regress: sql/<name>.sql against expected/<name>.out, in a temporary instance
# with pg_cron preloaded (test/ots.conf). pgTAP runs inside these files.
REGRESS      = $(patsubst sql/%.sql,%,$(sort $(wildcard sql/*.sql)))
REGRESS_OPTS = --temp-instance=./tmp_check --temp-config=test/ots.conf

# isolation specs for concurrency: test/specs/<name>.spec against test/expected/<name>.out
ISOLATION      := $(patsubst test/specs/%.spec,%,$(sort $(wildcard test/specs/*.spec)))
ISOLATION_OPTS = --inputdir=test --temp-instance=./tmp_check_iso --temp-config=test/ots_iso.conf

EXTRA_CLEAN = $(DATA_built) tmp_check tmp_check_iso output_iso results regression.diffs regression.out

PG_CONFIG ?= $(shell command -v pg_config >/dev/null 2>&1 && echo pg_config || echo /usr/lib/postgresql/15/bin/pg_config)
PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

ots--$(EXTVERSION).sql: $(SQL_PARTS) ots.control
	cat $(SQL_PARTS) > $@

# ... and the list of error codes from its one owner, src/ots_error_codes.h
ots_proxy--$(PROXY_VERSION).sql: $(PROXY_PARTS) ots_proxy.control src/ots_error_codes.h
	{ cat $(PROXY_PARTS); \
	  echo '-- the error codes of src/ots_error_codes.h (written by the Makefile)'; \
	  sed -n "s/.*X('\(.\)','\(.\)','\(.\)','\(.\)','\(.\)', *[A-Z_]*, *\"\([A-Za-z]*\)\").*/INSERT INTO ots_cluster.error_codes VALUES ('\1\2\3\4\5', '\6');/p" \
		src/ots_error_codes.h; } > $@

$(OBJS): $(wildcard src/*.h src/*/*.h)

# ots_proxy.so (proxy/*.c, the proxy's range merges) by its own PGXS make
# in proxy/, which the top targets run too
PROXY_MAKE = $(MAKE) -C proxy PG_CONFIG=$(PG_CONFIG) $(if $(CI),CI=1)
.PHONY: proxy-all proxy-install proxy-clean
all: proxy-all
install: proxy-install
clean: proxy-clean
proxy-all:
	+$(PROXY_MAKE)
proxy-install:
	+$(PROXY_MAKE) install
proxy-clean:
	+$(PROXY_MAKE) clean
