// SPDX-License-Identifier: GPL-2.0
/*
 * Crash consistency of chattr +i, run in the guest by scripts/crash.sh.
 *
 *   crash write DIR   write 4 MiB with write() and 4 MiB through a shared
 *                     mapping, none of it synced, set FS_IMMUTABLE_FL and
 *                     print "IMM-MARK <sum> <size>"; then keep the disk
 *                     busy with other files until the host pulls the plug
 *   crash check DIR   after the reboot: "IMM-CRASH flag=0", or
 *                     "IMM-CRASH flag=1 sum=<sum> size=<size>"
 *
 * The host compares the sum after the cut with the one at the mark: a file
 * that is immutable after a crash must hold what it held when the ioctl
 * returned.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define HALF	(4 << 20)
#define NAME	"crash.data"

static void die(const char *what)
{
	printf("IMM-CRASH-ERROR %s: %s\n", what, strerror(errno));
	exit(1);
}

static uint64_t sum(const unsigned char *p, size_t n)
{
	uint64_t h = 1469598103934665603ULL;

	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 1099511628211ULL;
	return h;
}

static void __attribute__((noreturn)) do_write(const char *dir)
{
	static unsigned char buf[2 * HALF];
	char path[4096], other[4096];
	unsigned int flags, seed = time(NULL) ^ getpid();
	unsigned char *map;
	int fd;

	snprintf(path, sizeof(path), "%s/" NAME, dir);
	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = rand_r(&seed);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		die("open");
	if (pwrite(fd, buf, HALF, 0) != HALF || ftruncate(fd, 2 * HALF))
		die("write");
	map = mmap(NULL, 2 * HALF, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		die("mmap");
	memcpy(map + HALF, buf + HALF, HALF);
	if (ioctl(fd, FS_IOC_GETFLAGS, &flags))
		die("getflags");
	flags |= FS_IMMUTABLE_FL;
	if (ioctl(fd, FS_IOC_SETFLAGS, &flags))
		die("setflags");
	printf("IMM-MARK %016llx %d\n", (unsigned long long)sum(buf, sizeof(buf)),
	       2 * HALF);
	fflush(stdout);
	/* other work, so that the cut lands in a busy filesystem */
	snprintf(other, sizeof(other), "%s/other", dir);
	for (;;) {
		int o = open(other, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		if (o < 0 || write(o, buf, HALF) != HALF)
			die("other");
		close(o);
	}
}

static int do_check(const char *dir)
{
	static unsigned char buf[4 * HALF];
	char path[4096];
	unsigned int flags;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/" NAME, dir);
	fd = open(path, O_RDONLY);
	if (fd < 0 || ioctl(fd, FS_IOC_GETFLAGS, &flags) ||
	    !(flags & FS_IMMUTABLE_FL)) {
		printf("IMM-CRASH flag=0\n");
		return 0;
	}
	n = pread(fd, buf, sizeof(buf), 0);
	if (n < 0)
		die("read");
	printf("IMM-CRASH flag=1 sum=%016llx size=%zd\n",
	       (unsigned long long)sum(buf, n), n);
	/* leave the image reusable for the next cut */
	flags &= ~FS_IMMUTABLE_FL;
	ioctl(fd, FS_IOC_SETFLAGS, &flags);
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 3 && !strcmp(argv[1], "write"))
		do_write(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "check"))
		return do_check(argv[2]);
	fprintf(stderr, "usage: crash write|check DIR\n");
	return 2;
}
