/* Replays saved inputs (files, or every file of directories) through a fuzz target, for make check. */
#include "config.h"
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "atomicfile.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static int
run(const char *path)
{
	size_t len;
	char *data = file_read(path, &len);
	if (data == NULL) {
		perror(path);
		return 1;
	}
	LLVMFuzzerTestOneInput((const uint8_t *)data, len);
	free(data);
	return 0;
}

int
main(int argc, char **argv)
{
	int inputs = 0, rc = 0;
	for (int i = 1; i < argc; i++) {
		struct stat st;
		DIR *d;
		struct dirent *de;
		if (stat(argv[i], &st) != 0 || !S_ISDIR(st.st_mode)) {
			rc |= run(argv[i]);
			inputs++;
			continue;
		}
		if ((d = opendir(argv[i])) == NULL)
			continue;
		while ((de = readdir(d)) != NULL) {
			char path[4096];
			if (de->d_name[0] == '.')
				continue;
			snprintf(path, sizeof path, "%s/%s", argv[i], de->d_name);
			rc |= run(path);
			inputs++;
		}
		closedir(d);
	}
	printf("%s: %d inputs replayed\n", argv[0], inputs);
	return rc || inputs == 0;
}
