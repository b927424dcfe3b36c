// SPDX-License-Identifier: GPL-2.0
/*
 * guard.mmap_races_chattr: shared mappings through a writable descriptor
 * against chattr +i, in a tight loop, on the file system of
 * $IMMUTABLE_DIR.  A search, not a proof (guard/README.md has the proof);
 * it runs in the suite of every side of make guard-check.
 *
 *   mapper:  mmap shared, writable or (every other time) read-only and
 *            then made writable by mprotect(); while it holds the
 *            writable mapping, read the flags (with
 *            $IMMUTABLE_REFUSES_MAPPED, which the guard sides set: +i must
 *            not be set, the policy refuses the flag on a file with a
 *            shared mapping that may write); store through it; munmap
 *   chattr:  chattr +i; the file must not change while the flag is set
 *            (checksummed twice); chattr -i
 *
 * Fails if the frozen file changed, or with $IMMUTABLE_REFUSES_MAPPED if a
 * mapping and the flag were seen together, or if chattr +i was refused
 * while nothing was mapped.  $IMMUTABLE_RACE_SECONDS (5): the search;
 * 0 skips.  Prints TAP, one test.
 *
 * What the search finds depends on timing; that it searched does not: the
 * chattr thread starts after the mapper's first mmap(), which nothing can
 * refuse, and after HOLD_AFTER refusals in a row it parks the mapper
 * between two mappings, where chattr +i must succeed.  So every run maps
 * the file and sets the flag, however the threads are scheduled (a guard
 * that refuses every chattr of a file mapped now and then would otherwise
 * set it only when the mapper happens to be between two mappings).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "guest.h"

#define NAME	"guard.mmap_races_chattr"
#define SIZE	(64 * 1024)
#define HOLD_AFTER	256

static const char *path;
static atomic_bool stop;
static atomic_long mapped, refused, both, stores, faults, frozen, busy, broken;
static long idle_busy, holds;

/* the handshake between the two threads (see the top) */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static bool started, hold, parked;


static int guard, mapfd;

/* Between two mappings: say that one was tried, stay while asked to. */
static void park(void)
{
	pthread_mutex_lock(&lock);
	started = true;
	if (hold) {
		parked = true;
		pthread_cond_broadcast(&cond);
		while (hold)
			pthread_cond_wait(&cond, &lock);
		parked = false;
	}
	pthread_cond_broadcast(&cond);
	pthread_mutex_unlock(&lock);
}

static void *mapper(void *arg)
{
	int fd = mapfd;
	unsigned int seed = 1, flags;

	for (unsigned long n = 0; fd >= 0 && !atomic_load(&stop); n++) {
		/* every other time read-only, made writable by mprotect() */
		int prot = n & 1 ? PROT_READ : PROT_READ | PROT_WRITE;
		unsigned char *p = mmap(NULL, SIZE, prot, MAP_SHARED, fd, 0);
		sigjmp_buf here;

		if (p == MAP_FAILED) {
			atomic_fetch_add(&refused, 1);
			park();
			continue;
		}
		atomic_fetch_add(&mapped, 1);
		/* one made read-only after the flag may stay, and never write */
		if (!(prot & PROT_WRITE) &&
		    mprotect(p, SIZE, PROT_READ | PROT_WRITE)) {
			atomic_fetch_add(&refused, 1);
			munmap(p, SIZE);
			park();
			continue;
		}
		if (guard && !ioctl(fd, FS_IOC_GETFLAGS, &flags) &&
		    (flags & FS_IMMUTABLE_FL))
			atomic_fetch_add(&both, 1);
		if (sigsetjmp(here, 1) == 0) {
			jb = &here;
			p[rand_r(&seed) % SIZE] = (unsigned char)seed;
			atomic_fetch_add(&stores, 1);
		} else {
			atomic_fetch_add(&faults, 1);
		}
		jb = NULL;
		munmap(p, SIZE);
		park();
	}
	park();
	(void)arg;
	return NULL;
}

/* Park the mapper (hold) or let it go on. */
static void hold_mapper(bool on)
{
	pthread_mutex_lock(&lock);
	hold = on;
	pthread_cond_broadcast(&cond);
	while (on && !parked)
		pthread_cond_wait(&cond, &lock);
	pthread_mutex_unlock(&lock);
}

static uint64_t sum(int fd)
{
	static unsigned char buf[SIZE];
	uint64_t h = 1469598103934665603ULL;

	if (pread(fd, buf, SIZE, 0) != SIZE)
		return 0;
	for (int i = 0; i < SIZE; i++)
		h = (h ^ buf[i]) * 1099511628211ULL;
	return h;
}

int main(void)
{
	const char *dir = getenv("IMMUTABLE_DIR");
	const char *g = getenv("IMMUTABLE_REFUSES_MAPPED");
	const char *s = getenv("IMMUTABLE_RACE_SECONDS");
	long seconds = s && *s ? atol(s) : 5;
	static char buf[SIZE], p[4096];
	pthread_t th;
	time_t end;
	int fd, ret, run = 0;

	printf("TAP version 13\n1..1\n");
	if (seconds <= 0) {
		printf("ok 1 " NAME " # SKIP IMMUTABLE_RACE_SECONDS is %ld\n", seconds);
		return 0;
	}
	snprintf(p, sizeof(p), "%s/race.%d", dir && *dir ? dir : ".", getpid());
	path = p;
	catch_faults();
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, buf, SIZE) != SIZE) {
		printf("not ok 1 " NAME " # cannot create %s: %s\n", path, strerror(errno));
		return 1;
	}
	ret = set_immutable(fd, 1);
	if (ret == -EOPNOTSUPP || ret == -ENOTTY) {
		unlink(path);
		printf("ok 1 " NAME " # SKIP no FS_IMMUTABLE_FL here\n");
		return 0;
	}
	set_immutable(fd, 0);
	guard = g && *g && strcmp(g, "0");
	/* opened before the first +i, which would refuse the open */
	mapfd = open(path, O_RDWR);
	if (mapfd < 0) {
		printf("not ok 1 " NAME " # cannot open %s: %s\n", path, strerror(errno));
		return 1;
	}
	pthread_create(&th, NULL, mapper, NULL);
	/* the mapper's first mmap(), with no chattr under way */
	pthread_mutex_lock(&lock);
	while (!started)
		pthread_cond_wait(&cond, &lock);
	pthread_mutex_unlock(&lock);
	end = time(NULL) + seconds;
	while (time(NULL) < end) {
		bool held = run >= HOLD_AFTER;
		uint64_t s0, s1;

		if (held) {
			hold_mapper(true);
			holds++;
			run = 0;
		}
		ret = set_immutable(fd, 1);
		if (ret) {
			atomic_fetch_add(&busy, 1);
			run++;
			if (held) {
				printf("# chattr +i refused with nothing mapped: %s\n",
				       strerror(-ret));
				idle_busy++;
				hold_mapper(false);
			}
			continue;
		}
		run = 0;
		atomic_fetch_add(&frozen, 1);
		/* windows for a racing store, not an ordering */
		s0 = sum(fd);
		usleep(200);
		s1 = sum(fd);
		if (s0 != s1)
			atomic_fetch_add(&broken, 1);
		ret = set_immutable(fd, 0);
		if (held)
			hold_mapper(false);
		if (ret) {
			printf("# chattr -i failed: %s\n", strerror(-ret));
			atomic_fetch_add(&broken, 1);
			break;
		}
		/*
		 * a window with the flag clear, where the patched kernel
		 * (which sets it at once) lets the mapper in
		 */
		usleep(200);
	}
	atomic_store(&stop, 1);
	pthread_join(th, NULL);
	set_immutable(fd, 0);
	close(mapfd);
	close(fd);
	unlink(path);
	printf("# %ld chattr +i (%ld refused), %ld mmaps (%ld refused), %ld stores, %ld faults\n",
	       frozen, busy, mapped, refused, stores, faults);
	printf("# mapper parked %ld times, chattr +i refused with nothing mapped %ld times\n",
	       holds, idle_busy);
	printf("# the frozen file changed %ld times; mapping and flag together %ld times%s\n",
	       broken, both, guard ? "" : " (not checked: no IMMUTABLE_REFUSES_MAPPED)");
	if (broken || both || idle_busy || !frozen || !mapped) {
		printf("not ok 1 " NAME "\n");
		return 1;
	}
	printf("ok 1 " NAME "\n");
	return 0;
}
