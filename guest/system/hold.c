// SPDX-License-Identifier: GPL-2.0
/*
 * imm-hold FILE: the earlier descriptor of make check-system's scenarios.
 * Opens FILE for reading and writing, says "held" on stdout and waits for
 * a line on stdin (the caller sets the flag meanwhile); then reads the
 * file's first bytes and writes the same bytes back through the earlier
 * descriptor, and says what happened:
 *   "overwrite refused: <strerror>"   the flag holds against it
 *   "overwrite written"               the write went through (6.12)
 * Nothing in the file changes either way: the bytes are its own.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char buf[4096], line[64];
	ssize_t n, w;
	int fd;

	if (argc != 2) {
		fprintf(stderr, "usage: imm-hold FILE\n");
		return 2;
	}
	fd = open(argv[1], O_RDWR);
	if (fd < 0) {
		printf("open failed: %s\n", strerror(errno));
		return 1;
	}
	printf("held\n");
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		return 1;
	n = pread(fd, buf, sizeof(buf), 0);
	if (n <= 0) {
		printf("read failed: %s\n", n ? strerror(errno) : "empty file");
		return 1;
	}
	w = pwrite(fd, buf, n, 0);
	if (w < 0)
		printf("overwrite refused: %s\n", strerror(errno));
	else
		printf("overwrite written\n");
	return 0;
}
