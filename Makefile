# Makefile for the bloomfilter PostgreSQL extension (PGXS)
#
#   make deps        install missing build/test dependencies (apt-get; prints the command when not root)
#   make             build bloomfilter.so
#   make install     install into the PostgreSQL 15 found through PG_CONFIG
#   make installcheck  pg_regress against a running server (PG* environment variables)
#   make check-core  core unit tests (test/core/*.c), plain and under ASan+UBSan
#   make test        deps, build, check-core, a short fuzz pass, install, then pg_regress and
#                    test/cluster/*.sh inside one throwaway cluster (pg_virtualenv); what .ci/run calls
#   make test-pg-suite  PostgreSQL's own regression suite (its core schedule, from Debian's source
#                    package) against the server with the library preloaded, judged against a
#                    baseline without it (scripts/pg-suite.sh); part of make test-all
#   make demo        deps, build, install, then scripts/demo.sql in a throwaway cluster
#   make bench       deps, build, install, then the benchmarks with their targets (SQL ratios in a
#                    throwaway cluster, core micro-benchmarks); report in build/bench-report.txt
#   make fuzz        libFuzzer targets of the core (test/fuzz/), FUZZ_SECONDS (default 300) each;
#                    crashing inputs are kept in test/fuzz/regressions/
#   make install-script  write bloomfilter--VERSION.sql from its template bloomfilter.sql.in
#   make fuzz-corpus regenerate the seed corpus test/fuzz/corpus/ with test/fuzz/make_corpus.c

PG_MAJOR ?= 15
# /usr/bin/pg_config on Debian follows the newest installed server; pin the one we target.
PG_CONFIG ?= $(firstword $(wildcard /usr/lib/postgresql/$(PG_MAJOR)/bin/pg_config) pg_config)

MODULE_big = bloomfilter
OBJS = $(patsubst %.c,%.o,$(sort $(wildcard src/*.c src/join_filter/*.c src/core/*.c)))
PGFILEDESC = "bloomfilter - Bloom filters as a SQL type"

EXTENSION = bloomfilter
DATA = $(sort $(wildcard bloomfilter--*.sql))

# Every sql/*.sql is a pg_regress test: setup (the extension and the shared helpers) first,
# then the others in name order.
REGRESS = setup $(filter-out setup,$(sort $(basename $(notdir $(wildcard sql/*.sql)))))

# (src/ for the files of src/join_filter/, which include the glue's headers)
PG_CPPFLAGS += -I$(srcdir)/src/core -I$(srcdir)/src
SHLIB_LINK += -lxxhash -lm
# Calls between the library's own files bind inside it (no PLT stub per call on the per-row
# paths, and no symbol of the server's can stand in for one of ours)
SHLIB_LINK += -Wl,-Bsymbolic

# PGXS tracks no header dependencies: rebuild every object (and JIT bitcode file) when any
# header changes, so that no stale object survives a change of a struct or an ops table.
BF_HEADERS = $(wildcard src/*.h src/join_filter/*.h src/core/*.h)

# (the src globs also catch objects whose .c file has since been removed or renamed)
EXTRA_CLEAN = build/ results/ regression.diffs regression.out log/ tmp_check/ \
	src/*.o src/*.bc src/join_filter/*.o src/join_filter/*.bc src/core/*.o src/core/*.bc

# pg_config can exist without the PGXS makefiles (Debian's libpq-dev ships /usr/bin/pg_config),
# so test for the file itself.  Without it only the targets below that bootstrap work.
PGXS := $(wildcard $(shell $(PG_CONFIG) --pgxs 2>/dev/null))
ifneq ($(PGXS),)
include $(PGXS)
else
all install installcheck:
	@echo "PGXS for PostgreSQL $(PG_MAJOR) not found (PG_CONFIG=$(PG_CONFIG))." >&2
	@echo "Run 'make deps' (installs postgresql-server-dev-$(PG_MAJOR)) or set PG_CONFIG." >&2
	@exit 1

clean:
	rm -f $(OBJS) $(patsubst %.o,%.bc,$(OBJS)) bloomfilter.so bloomfilter.bc
	rm -rf $(EXTRA_CLEAN)
endif

$(OBJS) $(OBJS:.o=.bc): $(BF_HEADERS)

# bloomtool (src/bloomtool/, doc/bloomtool.md) and the core as a static library for other
# programs, both compiled apart from the extension as plain C99.  PGXS builds a PROGRAM only
# without MODULE_big, hence the explicit rules.  make install puts them in pg_config's bindir,
# pkglibdir and includedir-server/extension/bloomfilter/.
BLOOMTOOL = build/bin/bloomtool
BF_CORE_LIB = build/lib/libbloomfilter.a
BF_CORE_LIB_OBJS = $(patsubst src/core/%.c,build/lib/obj/%.o,$(sort $(wildcard src/core/*.c)))
BF_TOOL_CFLAGS = -std=c99 -O2 -Wall -Wextra -fPIC
# the Debian package adds dpkg-buildflags' hardening flags here
BF_TOOL_LDFLAGS =
BF_VERSION := $(shell sed -n "s/^default_version *= *'\(.*\)'/\1/p" bloomfilter.control)

all: $(BLOOMTOOL) $(BF_CORE_LIB)

build/lib/obj/%.o: src/core/%.c $(wildcard src/core/*.h)
	@mkdir -p $(@D)
	$(CC) $(BF_TOOL_CFLAGS) -c $< -o $@

$(BF_CORE_LIB): $(BF_CORE_LIB_OBJS)
	rm -f $@
	$(AR) crs $@ $^

BLOOMTOOL_SRCS = $(sort $(wildcard src/bloomtool/*.c))

$(BLOOMTOOL): $(BLOOMTOOL_SRCS) src/bloomtool/bloomtool.h src/core/bf.h $(BF_CORE_LIB)
	@mkdir -p $(@D)
	$(CC) $(BF_TOOL_CFLAGS) -Isrc/core -DBLOOMTOOL_VERSION='"$(BF_VERSION)"' \
		$(BLOOMTOOL_SRCS) $(BF_CORE_LIB) $(BF_TOOL_LDFLAGS) -lxxhash -lm -o $@

ifneq ($(PGXS),)
.PHONY: install-bloomtool uninstall-bloomtool
# BF_INSTALL_TOOLS=no installs the extension alone (the Debian package ships bloomtool
# in a package of its own, in /usr/bin)
ifneq ($(BF_INSTALL_TOOLS),no)
install: install-bloomtool
uninstall: uninstall-bloomtool
endif

BF_INCLUDEDIR = $(includedir_server)/extension/bloomfilter

install-bloomtool: $(BLOOMTOOL) $(BF_CORE_LIB)
	$(MKDIR_P) '$(DESTDIR)$(bindir)' '$(DESTDIR)$(pkglibdir)' '$(DESTDIR)$(BF_INCLUDEDIR)'
	$(INSTALL_PROGRAM) $(BLOOMTOOL) '$(DESTDIR)$(bindir)/bloomtool'
	$(INSTALL_STLIB) $(BF_CORE_LIB) '$(DESTDIR)$(pkglibdir)/libbloomfilter.a'
	$(INSTALL_DATA) src/core/bf.h '$(DESTDIR)$(BF_INCLUDEDIR)/bf.h'

uninstall-bloomtool:
	rm -f '$(DESTDIR)$(bindir)/bloomtool' '$(DESTDIR)$(pkglibdir)/libbloomfilter.a' \
		'$(DESTDIR)$(BF_INCLUDEDIR)/bf.h'
endif

# The targets below are shell scripts under scripts/.  PG_CONFIG is passed on only when the
# user chose it: the default is resolved again once deps.sh has installed PostgreSQL.  "+"
# hands make's jobserver to the scripts that run make themselves.
BF_ENV = MAKE="$(MAKE)" PG_MAJOR="$(PG_MAJOR)" \
	$(if $(filter file,$(origin PG_CONFIG)),,PG_CONFIG="$(PG_CONFIG)")

.PHONY: deps check-core test test-all test-pg-suite demo bench dist deb deb-check

deps:
	@$(BF_ENV) bash scripts/deps.sh

check-core:
	@$(BF_ENV) bash scripts/check-core.sh

test:
	+@$(BF_ENV) bash scripts/test.sh

test-all:
	+@$(BF_ENV) bash scripts/test.sh all

test-pg-suite:
	+@$(BF_ENV) bash scripts/pg-suite.sh

demo:
	+@$(BF_ENV) bash scripts/demo.sh

bench:
	+@$(BF_ENV) bash scripts/bench.sh

# The install script of the default version, from its template (one block of overloads for
# all seven element types).  Not a dependency of the build: released scripts are frozen, and
# make test checks that the committed script is what the template gives.
.PHONY: install-script
install-script:
	awk -f scripts/gen-install-script.awk bloomfilter.sql.in >bloomfilter--$(BF_VERSION).sql

# libFuzzer (scripts/fuzz.sh); make test runs a short pass of the same targets
FUZZ_SECONDS ?= 300

.PHONY: fuzz fuzz-corpus

fuzz:
	@$(BF_ENV) FUZZ_SECONDS="$(FUZZ_SECONDS)" bash scripts/fuzz.sh run

fuzz-corpus:
	@$(BF_ENV) bash scripts/fuzz.sh corpus

# Releases: make dist writes build/dist/bloomfilter-VERSION.tar.gz (git archive of HEAD);
# make deb builds the Debian packages for this machine's PostgreSQL and runs lintian; make
# deb-check installs them with apt-get on a fresh Debian 12 root (debootstrap) and in the
# roots of the other versions, and tries them (scripts/deb.sh).
dist:
	@$(BF_ENV) bash scripts/deb.sh dist

deb:
	@$(BF_ENV) bash scripts/deb.sh build

deb-check:
	@$(BF_ENV) bash scripts/deb.sh check
