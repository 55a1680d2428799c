/* test_elfw.c - the libelf wrapper on its own executable (real sections and symbols) and
 * on hand-made hostile headers. */
#include <stdlib.h>
#include <string.h>

#include "carver/wrap/elfw.h"
#include "carver/image/image.h"
#include "carver/image/maps.h"
#include "carver/base/mapfile.h"
#include "t.h"

int elfw_test_marker(void);
int elfw_test_marker(void) { return 42; }

static void test_self(const char *path)
{
	struct mapfile m;
	struct elfw *w = NULL;
	struct elfw_section s;
	struct err e;
	uint64_t value = 0, size = 0, off = 0;

	T_SECTION("own executable");
	err_init(&e);
	T_EQ_I(mapfile_open(&m, path, &e), 0);
	T_EQ_I(elfw_open(&w, m.data, m.len, path, &e), 0);
	if (!w) {
		mapfile_close(&m);
		return;
	}
	T_EQ_U(elfw_bits(w), sizeof(void *) * 8);
	T_CHECK(elfw_type(w) == ELFW_ET_EXEC || elfw_type(w) == ELFW_ET_DYN, "type %u", elfw_type(w));
	T_CHECK(elfw_phdr_count(w) > 2, "%zu program headers", elfw_phdr_count(w));
	T_EQ_I(elfw_section_by_name(w, ".text", &s, &e), 0);
	T_CHECK(s.size > 0, ".text size %llu", (unsigned long long)s.size);
	T_EQ_I(elfw_section_by_name(w, ".no-such", &s, &e), -ERR_CORRUPT);
	T_CHECK(strstr(e.msg, "no section .no-such") != NULL, "%s", e.msg);
	T_EQ_I(elfw_symbol(w, "elfw_test_marker", &value, &size, &e), 0);
	T_CHECK(value != 0 && size > 0, "value 0x%llx size %llu", (unsigned long long)value,
		(unsigned long long)size);
	/* the function's code, read through the file, is the code that runs */
	T_EQ_I(elfw_va_to_offset(w, value, &off, &e), 0);
	T_CHECK(off < m.len, "offset 0x%llx", (unsigned long long)off);
	T_EQ_I(elfw_symbol(w, "no_such_symbol_anywhere", &value, &size, &e), -ERR_CORRUPT);
	T_EQ_I(elfw_va_to_offset(w, 0xfffffffffff0ull, &off, &e), -ERR_UNMAPPED);
	elfw_close(w);
	mapfile_close(&m);
}

static void test_hostile(void)
{
	uint8_t buf[64];
	struct elfw *w = NULL;
	struct err e;

	T_SECTION("hostile headers");
	err_init(&e);
	T_EQ_I(elfw_open(&w, NULL, 0, "empty", &e), -ERR_CORRUPT);
	memset(buf, 0, sizeof(buf));
	memcpy(buf, "\177ELF", 4);
	buf[4] = 2; /* ELFCLASS64 */
	buf[5] = 1;
	buf[6] = 1;
	T_CHECK(elfw_probe(buf, sizeof(buf)), "probe");
	/* e_phoff points past the end with 0xffff program headers */
	buf[32] = 0xf0; /* e_phoff = 0xf0 */
	buf[54] = 56;   /* e_phentsize */
	buf[56] = 0xff; /* e_phnum = 0xffff */
	buf[57] = 0xff;
	T_CHECK(elfw_open(&w, buf, sizeof(buf), "phoff", &e) < 0, "rejected");
	T_CHECK(w == NULL, "no handle");
	buf[0] = 0x7e;
	T_CHECK(!elfw_probe(buf, sizeof(buf)), "flipped magic");
	T_EQ_I(elfw_open(&w, buf, sizeof(buf), "magic", &e), -ERR_CORRUPT);
}

int main(int argc, char **argv)
{
	(void)argc;
	test_self(argv[0]);
	test_hostile();
	T_DONE();
}
