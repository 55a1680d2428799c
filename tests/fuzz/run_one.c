/* run_one.c - replays files (or every file in directories) through a fuzz target's
 * LLVMFuzzerTestOneInput without libFuzzer, so `make check` runs corpora under ASan/UBSan.
 * usage: fuzz_<t> PATH... [--optional PATH...]: a missing or unreadable PATH, or a directory
 * holding no input, is a failure (a corpus that is not there tests nothing); paths after
 * --optional (regression folders a target may not have yet) may be absent.
 * Prints "RESULT <files replayed> <failures>"; a crash aborts the process, which the runner
 * counts. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static unsigned replayed, failures;

static int replay_file(const char *path)
{
	FILE *fp = fopen(path, "rb");
	uint8_t *buf = NULL;
	long n;

	if (!fp) {
		printf("FAIL %s: cannot open\n", path);
		failures++;
		return -1;
	}
	if (fseek(fp, 0, SEEK_END) != 0 || (n = ftell(fp)) < 0 || fseek(fp, 0, SEEK_SET) != 0) {
		printf("FAIL %s: cannot size\n", path);
		failures++;
		fclose(fp);
		return -1;
	}
	buf = malloc((size_t)n + 1);
	if (!buf || fread(buf, 1, (size_t)n, fp) != (size_t)n) {
		printf("FAIL %s: cannot read %ld bytes\n", path, n);
		failures++;
		free(buf);
		fclose(fp);
		return -1;
	}
	fclose(fp);
	LLVMFuzzerTestOneInput(buf, (size_t)n);
	free(buf);
	replayed++;
	return 0;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void replay_path(const char *path, int optional)
{
	struct stat st;
	DIR *d;
	struct dirent *de;
	char **names = NULL;
	size_t count = 0, cap = 0;

	if (stat(path, &st) != 0) {
		if (!optional) {
			printf("FAIL %s: missing\n", path);
			failures++;
		}
		return;
	}
	if (!S_ISDIR(st.st_mode)) {
		replay_file(path);
		return;
	}
	d = opendir(path);
	if (!d) {
		printf("FAIL %s: cannot list\n", path);
		failures++;
		return;
	}
	while ((de = readdir(d)) != NULL) {
		size_t len;
		if (de->d_name[0] == '.')
			continue;
		if (count == cap) {
			cap = cap ? cap * 2 : 64;
			names = realloc(names, cap * sizeof(*names));
			if (!names)
				abort();
		}
		len = strlen(path) + strlen(de->d_name) + 2;
		names[count] = malloc(len);
		if (!names[count])
			abort();
		snprintf(names[count++], len, "%s/%s", path, de->d_name);
	}
	closedir(d);
	if (count > 1)
		qsort(names, count, sizeof(*names), cmp_names);
	if (count == 0 && !optional) {
		printf("FAIL %s: no input in the directory\n", path);
		failures++;
	}
	for (size_t i = 0; i < count; i++) {
		replay_path(names[i], optional);
		free(names[i]);
	}
	free(names);
}

int main(int argc, char **argv)
{
	int optional = 0;

	if (argc < 2) {
		printf("FAIL usage: %s PATH... [--optional PATH...]\n", argv[0]);
		failures++;
	}
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--optional")) {
			optional = 1;
			continue;
		}
		replay_path(argv[i], optional);
	}
	printf("replayed %u inputs\nRESULT %u %u\n", replayed, replayed, failures);
	return failures ? 1 : 0;
}
