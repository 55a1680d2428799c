# artcarve - one Makefile (targets: all check check-quick asan fuzz fuzz-short check-layers deps demo
# samples bench clean)
CC      ?= cc
# pkg-config module -> the Debian package that ships its .pc file
PKG_DEB := libelf:libelf-dev capstone:libcapstone-dev sqlite3:libsqlite3-dev zlib:zlib1g-dev \
	libzstd:libzstd-dev liblz4:liblz4-dev yara:libyara-dev
PKGS    := $(foreach m,$(PKG_DEB),$(firstword $(subst :, ,$(m))))
# The flags are computed when a recipe first needs them, not when make reads this file: `make
# demo` installs the packages (deps) before anything is compiled.  A missing .pc file is an
# error naming the package.  Each variable is expanded once, then kept (a self-replacing eval).
pkg_check = $(if $(shell command -v pkg-config),,$(error pkg-config is not installed: run 'make deps' (Debian package pkg-config)))$(foreach m,$(PKG_DEB),$(if $(shell pkg-config --exists $(firstword $(subst :, ,$(m))) && echo y),,$(error pkg-config finds no $(firstword $(subst :, ,$(m))).pc: run 'make deps' (Debian package $(lastword $(subst :, ,$(m)))))))
PKG_CFLAGS = $(eval PKG_CFLAGS := $(pkg_check)$(shell pkg-config --cflags $(PKGS)))$(PKG_CFLAGS)
PKG_LIBS   = $(eval PKG_LIBS := $(pkg_check)$(shell pkg-config --libs $(PKGS)))$(PKG_LIBS)
WARN    := -std=c11 -Wall -Wextra -Werror -Wshadow -Wvla -Wstrict-prototypes
DEFS    := -D_DEFAULT_SOURCE -D_POSIX_C_SOURCE=200809L -D_FILE_OFFSET_BITS=64
OPT     ?= -O2 -g
CFLAGS_ALL = $(WARN) $(DEFS) $(OPT) -I. $(PKG_CFLAGS) $(CFLAGS)
LDLIBS_ALL = $(PKG_LIBS) -lm $(LDLIBS)
# The tool itself links statically: a dynamic libcapstone alone applies ~80,000 relocations at
# every start, 3.3 MB of resident pages before main (the sanitizer builds stay dynamic).
PKG_LIBS_STATIC = $(eval PKG_LIBS_STATIC := $(pkg_check)$(shell pkg-config --static --libs $(PKGS)))$(PKG_LIBS_STATIC)
# libmagic.a, which the static libyara needs, names neither its lzma nor its bzip2 library.
# (libyara also defines a global dex_parse, its dex module: art/format/dex.c's parser is
# dex_load so that neither the static nor the dynamic link mixes them up.)
LDSTATIC_ALL = -static $(PKG_LIBS_STATIC) -llzma -lbz2 -lm $(LDLIBS)
# UBSan is fatal in every sanitizer build: undefined behaviour fails the test or fuzz run
SAN     := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all

LIB_SRCS  := $(filter-out carver/cli/main.c,$(wildcard carver/*/*.c art/*/*.c rosalloc/*.c rosalloc/*/*.c output/*/*.c))
UNIT_SRCS := $(wildcard tests/unit/test_*.c)
FUZZ_SRCS := $(wildcard tests/fuzz/fuzz_*.c)
SYNTH_SRCS := $(wildcard tests/synth/*.c)
# test helper programs (tests/tools/NAME.c -> build/tools/NAME), linked with the library
TOOL_SRCS := $(wildcard tests/tools/*.c)
TOOL_BINS := $(patsubst tests/tools/%.c,build/tools/%,$(TOOL_SRCS))
# the synthetic generator may share only the foundation (constants, cursor, buffers)
FOUND_SRCS := $(wildcard carver/base/*.c)

B  := build
BA := build/asan

lib_objs  = $(patsubst %.c,$(1)/obj/%.o,$(LIB_SRCS))

all: $(B)/artcarve $(patsubst tests/unit/%.c,$(B)/tests/%,$(UNIT_SRCS)) $(if $(SYNTH_SRCS),$(B)/synth) $(TOOL_BINS)
	@ln -sf $(B)/artcarve artcarve

# the product's own code is also -Wconversion clean (a narrowing says so with a cast or a
# check); tests, tools and the generator are not held to it
$(foreach d,carver art rosalloc output,$(B)/obj/$(d)/%.o $(BA)/obj/$(d)/%.o): WARN_CONV := -Wconversion

$(B)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(WARN_CONV) -MMD -MP -c $< -o $@

$(BA)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(WARN_CONV) $(SAN) -O1 -MMD -MP -c $< -o $@

$(B)/libartcarve.a: $(call lib_objs,$(B))
	@rm -f $@; ar rcs $@ $^

$(BA)/libartcarve.a: $(call lib_objs,$(BA))
	@rm -f $@; ar rcs $@ $^

$(B)/artcarve: $(B)/obj/carver/cli/main.o $(B)/libartcarve.a
	@rm -f $@
	@# sqlite's loadable-extension code and libcrypto's socket code (never used here) make the
	@# linker warn about dlopen and the resolver
	$(CC) $(CFLAGS_ALL) -o $@ $^ $(LDSTATIC_ALL) 2>&1 | { grep -v "unixDlOpen\|Using '[a-z]*' in statically\|libcrypto.a(.*in function" >&2 || :; }
	@test -x $@

$(BA)/artcarve: $(BA)/obj/carver/cli/main.o $(BA)/libartcarve.a
	$(CC) $(CFLAGS_ALL) $(SAN) -o $@ $^ $(LDLIBS_ALL)

$(B)/tests/%: $(B)/obj/tests/unit/%.o $(B)/libartcarve.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -o $@ $^ $(LDLIBS_ALL)

$(BA)/tests/%: $(BA)/obj/tests/unit/%.o $(BA)/libartcarve.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(SAN) -o $@ $^ $(LDLIBS_ALL)

$(B)/tools/%: $(B)/obj/tests/tools/%.o $(B)/libartcarve.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -o $@ $^ $(LDLIBS_ALL)

$(BA)/tools/%: $(BA)/obj/tests/tools/%.o $(BA)/libartcarve.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(SAN) -o $@ $^ $(LDLIBS_ALL)

$(B)/synth: $(patsubst %.c,$(B)/obj/%.o,$(SYNTH_SRCS) $(FOUND_SRCS))
	$(CC) $(CFLAGS_ALL) -o $@ $^ $(LDLIBS_ALL)

# image test tools (tests/tools/img_*.c: libc + the foundation only)
IMGTOOL_SRCS := $(wildcard tests/tools/img_*.c)
IMGTOOL_BINS := $(patsubst tests/tools/%.c,$(B)/tools/%,$(IMGTOOL_SRCS))
all: $(IMGTOOL_BINS)
$(B)/tools/img_%: $(B)/obj/tests/tools/img_%.o $(patsubst %.c,$(B)/obj/%.o,$(FOUND_SRCS))
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -o $@ $^ $(LDLIBS_ALL)

# ground-truth generators that must not share code with what they test (tests/tools/nd_*.c:
# libc only)
NDTOOL_SRCS := $(wildcard tests/tools/nd_*.c)
all: $(patsubst tests/tools/%.c,$(B)/tools/%,$(NDTOOL_SRCS))
$(B)/tools/nd_%: $(B)/obj/tests/tools/nd_%.o
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -o $@ $^

# codec test tools (tests/tools/bmd_*.c: link the library)
BMDTOOL_SRCS := $(wildcard tests/tools/bmd_*.c)
BMDTOOL_BINS := $(patsubst tests/tools/%.c,$(B)/tools/%,$(BMDTOOL_SRCS))
all: $(BMDTOOL_BINS)
$(B)/tools/bmd_%: $(B)/obj/tests/tools/bmd_%.o $(B)/libartcarve.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -o $@ $^ $(LDLIBS_ALL)

# fuzz targets replayed (gcc + ASan/UBSan) over their corpus and regressions
$(BA)/fuzz/%: $(BA)/obj/tests/fuzz/%.o $(BA)/obj/tests/fuzz/run_one.o $(BA)/libartcarve.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(SAN) -o $@ $^ $(LDLIBS_ALL)

# real libFuzzer builds (clang), for `make fuzz`: the library is compiled once with coverage
# (fuzzer-no-link) and linked into every target (the command layer and its CLI helpers are left
# out: they need main.c)
# (the carving pipeline, carver/pipeline, stays: fuzz_damage carves in-process)
FUZZ_LIB_SRCS := $(filter-out carver/cli/%,$(LIB_SRCS))
LF_CFLAGS = $(WARN) $(DEFS) -O1 -g -I. $(PKG_CFLAGS) -fsanitize=address,undefined -fno-sanitize-recover=all \
	-fno-omit-frame-pointer
$(B)/libfuzzer/obj/%.o: %.c
	@mkdir -p $(dir $@)
	clang $(LF_CFLAGS) -fsanitize=fuzzer-no-link -MMD -MP -c $< -o $@

$(B)/libfuzzer/%: $(B)/libfuzzer/obj/tests/fuzz/%.o $(patsubst %.c,$(B)/libfuzzer/obj/%.o,$(FUZZ_LIB_SRCS))
	@mkdir -p $(dir $@)
	clang $(LF_CFLAGS) -fsanitize=fuzzer -o $@ $^ $(LDLIBS_ALL)

UNIT_BINS  := $(patsubst tests/unit/%.c,$(B)/tests/%,$(UNIT_SRCS))
ASAN_BINS  := $(patsubst tests/unit/%.c,$(BA)/tests/%,$(UNIT_SRCS))
FUZZ_BINS  := $(patsubst tests/fuzz/%.c,$(BA)/fuzz/%,$(FUZZ_SRCS))
LIBFUZZ_BINS := $(patsubst tests/fuzz/%.c,$(B)/libfuzzer/%,$(FUZZ_SRCS))

asan: $(ASAN_BINS) $(FUZZ_BINS) $(BA)/artcarve $(BA)/tools/sweep_classes $(BA)/tools/sweep_walk

# T=PATTERN (either target): only the test programs whose name contains PATTERN, a substring or
# shell glob (tests/run.sh PATTERN), e.g. `make check T=validate`
check: all asan
	@set -f; ./tests/run.sh $(T)

# the quick tier: unit tests (both builds), fuzz replay, the layer check and the shell tests
# marked "# tier: quick"; `make check` stays the full gate
check-quick: all asan
	@set -f; ./tests/run.sh --quick $(T)

check-layers:
	@./tests/check_layers.sh

FUZZ_SECONDS ?= 60
fuzz: $(LIBFUZZ_BINS)
	@for f in $(LIBFUZZ_BINS); do t=$$(basename $$f); mkdir -p $(B)/fuzz-corpus/$$t $(B)/fuzz-artifacts; \
	  if [ -d tests/fuzz/regress/$$t ]; then echo "replaying tests/fuzz/regress/$$t (clang's UBSan checks more than gcc's)"; \
	    UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 $$f tests/fuzz/regress/$$t/* >/dev/null 2>&1 || \
	    { echo "$$t: a regression input fails again: $$f tests/fuzz/regress/$$t/*"; exit 1; }; fi; \
	  echo "fuzzing $$t for $(FUZZ_SECONDS)s"; \
	  UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 $$f -max_total_time=$(FUZZ_SECONDS) \
	    -artifact_prefix=$(B)/fuzz-artifacts/$$t- $(B)/fuzz-corpus/$$t tests/fuzz/corpus/$$t || exit 1; done

# CI's short pass: every target for FUZZ_SHORT_SECONDS (a crash, leak or UB report fails it)
FUZZ_SHORT_SECONDS ?= 20
fuzz-short: $(LIBFUZZ_BINS)
	@$(MAKE) --no-print-directory fuzz FUZZ_SECONDS=$(FUZZ_SHORT_SECONDS)

# Debian packages: BUILD_DEBS to build and run the tool (`make demo`), TEST_DEBS for `make check`
# (clang/libFuzzer, a JDK to make test heap dumps, reference peers, VisualVM's heap library).
BUILD_DEBS := build-essential pkg-config $(foreach m,$(PKG_DEB),$(lastword $(subst :, ,$(m))))
TEST_DEBS  := $(BUILD_DEBS) clang libclang-rt-14-dev sqlite3 zstd default-jdk-headless dexdump \
	binutils-multiarch gzip groff-base visualvm jq time python3 chromium bsdutils hprof-conv \
	python3-selenium chromium-driver openssl
APT_GET ?= apt-get
SUDO    ?= sudo
# Installs the missing packages of $(1): as root directly, else through $(SUDO) (e.g. SUDO=doas);
# without either, one line saying what to run as root.
define install_debs
	@missing=$$(for p in $(1); do \
	  dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q '^install ok installed$$' || echo $$p; done); \
	if [ -z "$$missing" ]; then echo "deps: all $(words $(1)) packages are installed"; exit 0; fi; \
	if [ "$$(id -u)" = 0 ]; then su=; \
	elif command -v $(SUDO) >/dev/null 2>&1; then su=$(SUDO); \
	else echo "deps: missing packages, not root and no $(SUDO): run as root: $(APT_GET) update && $(APT_GET) install -y$$(printf ' %s' $$missing)" >&2; exit 1; fi; \
	echo "deps: installing $$(echo $$missing | wc -w) packages:" $$missing; \
	$$su $(APT_GET) update -q && $$su env DEBIAN_FRONTEND=noninteractive $(APT_GET) install -y -q $$missing
endef
deps:
	$(call install_debs,$(TEST_DEBS))
deps-build:
	$(call install_debs,$(BUILD_DEBS))
# the demo also asks case.db a question through the sqlite3 shell
deps-demo:
	$(call install_debs,$(BUILD_DEBS) sqlite3)

# Sequential on purpose (also under -j): the packages, then the build (a new make reads the
# flags of the packages just installed), then the sample.
demo:
	@$(MAKE) --no-print-directory deps-demo
	@$(MAKE) --no-print-directory all
	@./samples/demo.sh

# samples/: small images made by the generator; `make samples` regenerates them byte for byte
SAMPLES_DIR ?= samples
SAMPLES := android6.0-32bit:6.0:32 android7.1-64bit:7.1:64 android11-64bit:11:64 android14-64bit-cmc:14:64:cmc
samples: $(B)/synth
	@for s in $(SAMPLES); do n=$${s%%:*}; r=$${s#*:}; v=$${r%%:*}; r=$${r#*:}; b=$${r%%:*}; h=$${r#$$b}; \
	  $(B)/synth --version $$v --bits $$b $${h:+--heap $${h#:}} --seed 1 --size tiny --out $(SAMPLES_DIR)/$$n || exit 1; \
	  echo "$(SAMPLES_DIR)/$$n"; done
	@cd $(SAMPLES_DIR) && sha256sum $(foreach s,$(SAMPLES),$(addprefix $(firstword $(subst :, ,$(s)))/,core maps truth.jsonl truth.json truth.hprof hooks.json README)) >SHA256SUMS

# benchmarks, not part of check: codec throughput on a >= 100 MB JVM heap dump (bench/codec.sh);
# generation speed of a multi-GB synthetic image (bench/synth.sh); walkers and carving on
# multi-GB synthetic heaps and the real captures (bench/walk.sh, bench/carve.sh); parse speed
# of a 100 MB native heap dump against wc -l (bench/native_dump.sh)
bench: all
	@./bench/codec.sh
	@sh ./bench/synth.sh
	@sh ./bench/walk.sh
	@sh ./bench/carve.sh
	@sh ./bench/native_dump.sh

clean:
	rm -rf $(B) artcarve

man: $(B)/artcarve
	sh tests/tools/genman.sh $(B)/artcarve > doc/artcarve.1

.PHONY: man all asan check check-quick check-layers fuzz fuzz-short deps deps-build deps-demo demo samples clean bench
.SECONDARY:

-include $(shell find $(B) -name '*.d' 2>/dev/null)
