# artcarve - one Makefile (targets: all check asan fuzz check-layers deps demo samples bench clean)
CC      ?= cc
PKGS    := libelf capstone sqlite3 zlib libzstd liblz4
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null)
WARN    := -std=c11 -Wall -Wextra -Werror -Wshadow -Wvla -Wstrict-prototypes
DEFS    := -D_DEFAULT_SOURCE -D_POSIX_C_SOURCE=200809L -D_FILE_OFFSET_BITS=64
OPT     ?= -O2 -g
CFLAGS_ALL = $(WARN) $(DEFS) $(OPT) -I. $(PKG_CFLAGS) $(CFLAGS)
LDLIBS_ALL = $(PKG_LIBS) -lm $(LDLIBS)
SAN     := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined

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

$(B)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -MMD -MP -c $< -o $@

$(BA)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(SAN) -O1 -MMD -MP -c $< -o $@

$(B)/libartcarve.a: $(call lib_objs,$(B))
	@rm -f $@; ar rcs $@ $^

$(BA)/libartcarve.a: $(call lib_objs,$(BA))
	@rm -f $@; ar rcs $@ $^

$(B)/artcarve: $(B)/obj/carver/cli/main.o $(B)/libartcarve.a
	$(CC) $(CFLAGS_ALL) -o $@ $^ $(LDLIBS_ALL)

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

# real libFuzzer builds (clang), for `make fuzz`
# (the command layer and its CLI helpers are left out: they need main.c)
FUZZ_LIB_SRCS := $(filter-out carver/cli/%,$(LIB_SRCS))
$(B)/libfuzzer/%: tests/fuzz/%.c $(FUZZ_LIB_SRCS)
	@mkdir -p $(dir $@)
	clang $(WARN) $(DEFS) -O1 -g -I. $(PKG_CFLAGS) -fsanitize=fuzzer,address,undefined -o $@ $^ $(LDLIBS_ALL)

UNIT_BINS  := $(patsubst tests/unit/%.c,$(B)/tests/%,$(UNIT_SRCS))
ASAN_BINS  := $(patsubst tests/unit/%.c,$(BA)/tests/%,$(UNIT_SRCS))
FUZZ_BINS  := $(patsubst tests/fuzz/%.c,$(BA)/fuzz/%,$(FUZZ_SRCS))
LIBFUZZ_BINS := $(patsubst tests/fuzz/%.c,$(B)/libfuzzer/%,$(FUZZ_SRCS))

asan: $(ASAN_BINS) $(FUZZ_BINS) $(BA)/artcarve $(BA)/tools/sweep_classes

check: all asan
	@./tests/run.sh

check-layers:
	@./tests/check_layers.sh

FUZZ_SECONDS ?= 60
fuzz: $(LIBFUZZ_BINS)
	@for f in $(LIBFUZZ_BINS); do t=$$(basename $$f); mkdir -p $(B)/fuzz-corpus/$$t; \
	  echo "fuzzing $$t for $(FUZZ_SECONDS)s"; \
	  $$f -max_total_time=$(FUZZ_SECONDS) -artifact_prefix=$(B)/ $(B)/fuzz-corpus/$$t tests/fuzz/corpus/$$t || exit 1; done

DEB_PKGS := build-essential pkg-config clang libclang-rt-14-dev libelf-dev libcapstone-dev \
	libsqlite3-dev sqlite3 zlib1g-dev libzstd-dev zstd liblz4-dev default-jdk-headless \
	dexdump binutils-multiarch gzip groff-base visualvm jq time python3
deps:
	@if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
	missing=$$(for p in $(DEB_PKGS); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	if [ -n "$$missing" ]; then echo "installing:" $$missing; \
	  $$SUDO apt-get update -q && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -q $$missing; \
	else echo "all build and test dependencies are installed"; fi

demo: deps all
	@./samples/demo.sh

# samples/: small images made by the generator; `make samples` regenerates them byte for byte
SAMPLES_DIR ?= samples
SAMPLES := android6.0-32bit:6.0:32 android7.1-64bit:7.1:64 android11-64bit:11:64
samples: $(B)/synth
	@for s in $(SAMPLES); do n=$${s%%:*}; r=$${s#*:}; \
	  $(B)/synth --version $${r%%:*} --bits $${r#*:} --seed 1 --size tiny --out $(SAMPLES_DIR)/$$n || exit 1; \
	  echo "$(SAMPLES_DIR)/$$n"; done
	@cd $(SAMPLES_DIR) && sha256sum $(foreach s,$(SAMPLES),$(addprefix $(firstword $(subst :, ,$(s)))/,core maps truth.jsonl truth.json truth.hprof hooks.json README)) >SHA256SUMS

# benchmarks, not part of check: codec throughput on a >= 100 MB JVM heap dump (bench/codec.sh);
# generation speed of a multi-GB synthetic image (bench/synth.sh)
bench: all
	@./bench/codec.sh
	@sh ./bench/synth.sh

clean:
	rm -rf $(B) artcarve

man: $(B)/artcarve
	sh tests/tools/genman.sh $(B)/artcarve > doc/artcarve.1

.PHONY: man all asan check check-layers fuzz deps demo samples clean bench
.SECONDARY:

-include $(shell find $(B) -name '*.d' 2>/dev/null)
