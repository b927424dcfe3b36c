// SPDX-License-Identifier: GPL-2.0
/*
 * Guest-side benchmarks of the paths the series touches.  Run under QEMU
 * with -icount, where the guest clock counts instructions, so that the
 * numbers track the work done rather than the host's load.
 *
 *   bench pwrite DIR CALLS      4 KiB pwrite() to a page-cached file
 *   bench fault DIR MIB ROUNDS  first store to each page of a fresh
 *                               shared mapping of a cached file
 *   bench mmap DIR CALLS        mmap() and munmap() of one page of a
 *                               cached file, shared and writable
 *   bench chattr DIR MIB        chattr +i with MIB of dirty data, against
 *                               fsync() of the same amount
 *   bench reader DIR MIB        chattr +i of a file with MIB cached that
 *                               was mapped shared and writable, with and
 *                               without a reader holding its first page
 *                               in 1,280 pipe buffers (a pin to the kernel)
 *
 * Each prints "BENCH <name> <value> <unit>" lines for the host to collect.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#define PG 4096

static const char *fsname = "?";

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void die(const char *what)
{
	fprintf(stderr, "bench: %s: %s\n", what, strerror(errno));
	exit(1);
}

static int open_file(const char *dir, const char *name)
{
	char path[4096];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		die(path);
	unlink(path);
	return fd;
}

static void fill(int fd, size_t bytes, int seed)
{
	static char buf[1 << 20];
	size_t done = 0;

	memset(buf, seed, sizeof(buf));
	while (done < bytes) {
		size_t n = bytes - done < sizeof(buf) ? bytes - done : sizeof(buf);

		if (pwrite(fd, buf, n, done) != (ssize_t)n)
			die("fill");
		done += n;
	}
}

static void bench_pwrite(const char *dir, long calls)
{
	static char buf[PG];
	int fd = open_file(dir, "bench.pwrite");
	double t0, t1;

	fill(fd, PG, 1);
	for (long i = 0; i < calls / 10; i++)	/* warm up */
		pwrite(fd, buf, PG, 0);
	t0 = now_ns();
	for (long i = 0; i < calls; i++)
		if (pwrite(fd, buf, PG, 0) != PG)
			die("pwrite");
	t1 = now_ns();
	printf("BENCH pwrite-%s %.1f ns/call\n", fsname, (t1 - t0) / calls);
	close(fd);
}

static void bench_fault(const char *dir, long mib, int rounds)
{
	size_t len = mib << 20;
	int fd = open_file(dir, "bench.fault");
	double total = 0;

	fill(fd, len, 2);
	if (fsync(fd))
		die("fsync");
	for (int r = 0; r < rounds; r++) {
		char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED,
			       fd, 0);
		double t0;

		if (p == MAP_FAILED)
			die("mmap");
		t0 = now_ns();
		for (size_t off = 0; off < len; off += PG)
			p[off] = r;
		total += now_ns() - t0;
		munmap(p, len);
	}
	printf("BENCH fault-%s %.1f ns/page\n", fsname,
	       total / rounds / (len / PG));
	close(fd);
}

/*
 * One mmap() per call, where fault maps once per round: a shared writable
 * mapping through an O_RDWR descriptor is what security_mmap_file() (and
 * immguard's lsm/mmap_file) looks at hardest.
 */
static void map_once(int fd)
{
	char *p = mmap(NULL, PG, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);

	if (p == MAP_FAILED)
		die("mmap");
	if (munmap(p, PG))
		die("munmap");
}

static void bench_mmap(const char *dir, long calls)
{
	int fd = open_file(dir, "bench.mmap");
	double t0, t1;

	fill(fd, PG, 6);
	for (long i = 0; i < calls / 10; i++)	/* warm up */
		map_once(fd);
	t0 = now_ns();
	for (long i = 0; i < calls; i++)
		map_once(fd);
	t1 = now_ns();
	printf("BENCH mmap-%s %.1f ns/call\n", fsname, (t1 - t0) / calls);
	close(fd);
}

static int set_immutable(int fd, int on)
{
	unsigned int flags;

	if (ioctl(fd, FS_IOC_GETFLAGS, &flags))
		return -1;
	flags = on ? flags | FS_IMMUTABLE_FL : flags & ~FS_IMMUTABLE_FL;
	return ioctl(fd, FS_IOC_SETFLAGS, &flags);
}

/* How long chattr +i of @fd takes; the flag is cleared again. */
static double time_chattr_on(int fd)
{
	double t0 = now_ns(), t;

	if (set_immutable(fd, 1))
		die("chattr +i");
	t = now_ns() - t0;
	if (set_immutable(fd, 0))
		die("chattr -i");
	return t;
}

/*
 * Both measure the same work from the same start: a fresh file whose MIB
 * of data are dirty and not yet allocated on disk.
 */
static void bench_chattr(const char *dir, long mib)
{
	int fd = open_file(dir, "bench.chattr");
	double t0, t_chattr, t_fsync;

	fill(fd, mib << 20, 3);
	t_chattr = time_chattr_on(fd);
	close(fd);

	fd = open_file(dir, "bench.fsync");
	fill(fd, mib << 20, 4);
	t0 = now_ns();
	if (fsync(fd))
		die("fsync");
	t_fsync = now_ns() - t0;
	printf("BENCH chattr%ldM-%s %.0f us\n", mib, fsname, t_chattr / 1e3);
	printf("BENCH fsync%ldM-%s %.0f us\n", mib, fsname, t_fsync / 1e3);
	close(fd);
}

#define PIPES	80	/* 16 buffers each: more than GUP_PIN_COUNTING_BIAS */

/* Hold the first page of @fd in 16 buffers of each of PIPES pipes. */
static void hold_in_pipes(int fd, int (*pfd)[2])
{
	for (int i = 0; i < PIPES; i++) {
		if (pipe(pfd[i]))
			die("pipe");
		for (int j = 0; j < 16; j++) {
			loff_t off = 0;

			if (splice(fd, &off, pfd[i][1], NULL, PG,
				   SPLICE_F_NONBLOCK) != PG)
				die("splice");
		}
	}
}

static double time_chattr(const char *dir, const char *name, long mib,
			  int reader)
{
	static int pfd[PIPES][2];
	int fd = open_file(dir, name);
	double t;
	char *p;

	fill(fd, mib << 20, 5);
	if (fsync(fd))
		die("fsync");
	/* scanned for pins from now on: mapped shared through O_RDWR */
	p = mmap(NULL, PG, PROT_READ, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		die("mmap");
	munmap(p, PG);
	if (reader)
		hold_in_pipes(fd, pfd);
	t = time_chattr_on(fd);
	for (int i = 0; reader && i < PIPES; i++) {
		close(pfd[i][0]);
		close(pfd[i][1]);
	}
	close(fd);
	return t;
}

static void bench_reader(const char *dir, long mib)
{
	double alone = time_chattr(dir, "bench.alone", mib, 0);
	double reader = time_chattr(dir, "bench.reader", mib, 1);

	printf("BENCH chattr-alone%ldM-%s %.0f us\n", mib, fsname, alone / 1e3);
	printf("BENCH chattr-reader%ldM-%s %.0f us\n", mib, fsname,
	       reader / 1e3);
}

int main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, "usage: bench pwrite|fault|mmap|chattr|reader DIR N [ROUNDS]\n");
		return 2;
	}
	fsname = getenv("BENCH_FS") ? getenv("BENCH_FS") : "?";
	if (!strcmp(argv[1], "pwrite"))
		bench_pwrite(argv[2], atol(argv[3]));
	else if (!strcmp(argv[1], "fault"))
		bench_fault(argv[2], atol(argv[3]), argc > 4 ? atoi(argv[4]) : 3);
	else if (!strcmp(argv[1], "mmap"))
		bench_mmap(argv[2], atol(argv[3]));
	else if (!strcmp(argv[1], "chattr"))
		bench_chattr(argv[2], atol(argv[3]));
	else if (!strcmp(argv[1], "reader"))
		bench_reader(argv[2], atol(argv[3]));
	else
		return 2;
	return 0;
}
