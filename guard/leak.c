// SPDX-License-Identifier: GPL-2.0
/*
 * guard.raises_are_lowered: what the guard raises for a mapping on its way
 * in, it lowers, whatever the path and however the thread ends.
 *
 * 6.12's remap_file_pages() asks security_mmap_file() about a shared
 * writable mapping; a thread calls it through the i386 entry (int 0x80,
 * which Debian's CONFIG_IA32_EMULATION keeps) and exits.  Then:
 *
 *   - chattr +i of the file, which nothing maps any more, must succeed
 *     (a raise left behind refuses it, for good, with nothing for lsof
 *     to find);
 *   - after THREADS such threads, a shared writable mapping of another
 *     file must still be made (a per-thread table that they filled
 *     refuses every one on the system).
 *
 * Runs where remap_file_pages() works through int 0x80 (x86_64 with IA32
 * emulation); skips elsewhere (without it, int 0x80 faults: caught).  $IMMUTABLE_RACE_SECONDS=0 skips it too,
 * like guard/race.c.  Prints TAP, one test.  No timing: every step waits
 * for the one before (pthread_join).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "guest.h"

#define NAME	"guard.raises_are_lowered"
#define SIZE	(2 * 4096)
#define THREADS	17000
#define NR_REMAP_FILE_PAGES_I386	257

static unsigned char *map;

/* remap_file_pages(map, 4096, 0, 1, 0) through the i386 system call entry */
static long remap_i386(void)
{
	long ret;

	asm volatile("int $0x80"
		     : "=a"(ret)
		     : "a"(NR_REMAP_FILE_PAGES_I386), "b"((long)map), "c"(4096L),
		       "d"(0L), "S"(1L), "D"(0L)
		     : "memory");
	return ret;
}


static void *remapper(void *arg)
{
	sigjmp_buf here;

	if (sigsetjmp(here, 1) == 0) {
		jb = &here;
		*(long *)arg = remap_i386();
	} else {
		*(long *)arg = -ENOSYS;
	}
	jb = NULL;
	return NULL;
}

static long remap_in_thread(void)
{
	long ret = -1;
	pthread_t t;

	if (pthread_create(&t, NULL, remapper, &ret))
		return -EAGAIN;
	pthread_join(t, NULL);
	return ret;
}


static int make_file(const char *dir, const char *name, char *path, size_t len)
{
	static char buf[SIZE];
	int fd;

	snprintf(path, len, "%s/%s.%d", dir, name, getpid());
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd >= 0 && write(fd, buf, SIZE) != SIZE) {
		close(fd);
		fd = -1;
	}
	return fd;
}

int main(void)
{
	const char *dir = getenv("IMMUTABLE_DIR");
	const char *s = getenv("IMMUTABLE_RACE_SECONDS");
	char path[4096], other[4096];
	int fd, ofd, ret, fails = 0;
	long r;
	void *p;

	/* without IA32 emulation, int 0x80 is a general protection fault */
	catch_faults();
	printf("TAP version 13\n1..1\n");
	if (s && *s && atol(s) <= 0) {
		printf("ok 1 " NAME " # SKIP IMMUTABLE_RACE_SECONDS is %s\n", s);
		return 0;
	}
	dir = dir && *dir ? dir : ".";
	fd = make_file(dir, "leak", path, sizeof(path));
	ofd = make_file(dir, "leak-other", other, sizeof(other));
	if (fd < 0 || ofd < 0) {
		printf("not ok 1 " NAME " # cannot create files in %s: %s\n",
		       dir, strerror(errno));
		return 1;
	}
	ret = set_immutable(fd, 1);
	if (ret == -EOPNOTSUPP || ret == -ENOTTY) {
		printf("ok 1 " NAME " # SKIP no FS_IMMUTABLE_FL here\n");
		goto out;
	}
	set_immutable(fd, 0);

	/* below 4 GiB, so that the i386 entry can name it */
	map = mmap(NULL, SIZE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_32BIT,
		   fd, 0);
	if (map == MAP_FAILED) {
		printf("not ok 1 " NAME " # mmap: %s\n", strerror(errno));
		fails++;
		goto out;
	}
	r = remap_in_thread();
	if (r < 0 && r != -EPERM) {
		munmap(map, SIZE);
		printf("ok 1 " NAME " # SKIP remap_file_pages() through int 0x80: %s\n",
		       strerror(-r));
		goto out;
	}
	munmap(map, SIZE);
	ret = set_immutable(fd, 1);
	if (ret) {
		printf("# chattr +i of a file nothing maps, after one remap: %s\n",
		       strerror(-ret));
		fails++;
	}
	set_immutable(fd, 0);

	/* many threads that each leave the same way */
	map = mmap(NULL, SIZE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_32BIT,
		   fd, 0);
	for (int i = 0; map != MAP_FAILED && i < THREADS; i++)
		remap_in_thread();
	if (map != MAP_FAILED)
		munmap(map, SIZE);
	p = mmap(NULL, SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, ofd, 0);
	if (p == MAP_FAILED) {
		printf("# a shared writable mmap of another file after %d threads: %s\n",
		       THREADS, strerror(errno));
		fails++;
	} else {
		munmap(p, SIZE);
	}
	ret = set_immutable(fd, 1);
	if (ret) {
		printf("# chattr +i after %d threads: %s\n", THREADS,
		       strerror(-ret));
		fails++;
	}
	set_immutable(fd, 0);
	printf("%s 1 " NAME "\n", fails ? "not ok" : "ok");
out:
	close(fd);
	close(ofd);
	unlink(path);
	unlink(other);
	return fails ? 1 : 0;
}
