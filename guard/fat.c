// SPDX-License-Identifier: GPL-2.0
/*
 * vfat mounted -o sys_immutable makes a file immutable when its ATTR_SYS
 * attribute is set, through FAT_IOCTL_SET_ATTRIBUTES (busybox fatattr), not
 * through chattr: fat's own ioctl asks capable(CAP_LINUX_IMMUTABLE) and
 * sets S_IMMUTABLE, with no vfs_fileattr_set() around it.
 *
 *   guard.vfat_system_attribute_stops_mapped_stores: a store through a
 *   shared writable mapping made before ATTR_SYS never changes the file
 *   once it is immutable: setting the attribute is refused while the
 *   mapping exists (the guard) or the store fails (the series); stock
 *   kernels let it land;
 *   guard.vfat_attribute_change_leaves_no_mark: a thread sets ATTR_SYS on
 *   an unmapped file and exits; once the attribute is cleared, the file
 *   maps shared and writable again (a mark raised for the ioctl and never
 *   lowered refuses that mapping for good).
 *
 * The vfat is made here: a 4 MiB image in $IMMUTABLE_DIR, mkdosfs, a loop
 * device.  Prints TAP.  No timing: the thread is joined before the next
 * step.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/loop.h>
#include <linux/msdos_fs.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "guest.h"

#define STORES	"guard.vfat_system_attribute_stops_mapped_stores"
#define MARK	"guard.vfat_attribute_change_leaves_no_mark"
#define SIZE	(2 * 4096)

static char img[4096], mnt[4096], loopdev[64];
static int loopfd = -1;

/* set or clear ATTR_SYS on @fd; 0 or -errno */
static int set_sys(int fd, int on)
{
	__u32 attr;

	if (ioctl(fd, FAT_IOCTL_GET_ATTRIBUTES, &attr))
		return -errno;
	attr = on ? attr | ATTR_SYS : attr & ~ATTR_SYS;
	return ioctl(fd, FAT_IOCTL_SET_ATTRIBUTES, &attr) ? -errno : 0;
}

static int has_sys(int fd)
{
	__u32 attr = 0;

	ioctl(fd, FAT_IOCTL_GET_ATTRIBUTES, &attr);
	return !!(attr & ATTR_SYS);
}

/* a vfat -o sys_immutable on a loop device over an image in @dir */
static const char *mount_vfat(const char *dir)
{
	char cmd[8300];
	int ctl, n, fd;

	snprintf(img, sizeof(img), "%s/fat.img.%d", dir, getpid());
	fd = open(img, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || ftruncate(fd, 4 << 20))
		return "cannot create the image";
	snprintf(cmd, sizeof(cmd), "mkdosfs '%s' >/dev/null 2>&1", img);
	if (system(cmd)) {
		close(fd);
		return "no mkdosfs";
	}
	ctl = open("/dev/loop-control", O_RDWR);
	n = ctl < 0 ? -1 : ioctl(ctl, LOOP_CTL_GET_FREE);
	if (ctl >= 0)
		close(ctl);
	if (n < 0) {
		close(fd);
		return "no loop device";
	}
	snprintf(loopdev, sizeof(loopdev), "/dev/loop%d", n);
	loopfd = open(loopdev, O_RDWR);
	if (loopfd < 0 || ioctl(loopfd, LOOP_SET_FD, fd)) {
		close(fd);
		return "cannot set up the loop device";
	}
	close(fd);
	snprintf(mnt, sizeof(mnt), "/tmp/guard-fat.%d", getpid());
	mkdir(mnt, 0700);
	if (mount(loopdev, mnt, "vfat", 0, "sys_immutable"))
		return errno == ENODEV ? "no vfat in this kernel" : "cannot mount vfat";
	return NULL;
}

static void unmount_vfat(void)
{
	umount(mnt);
	rmdir(mnt);
	if (loopfd >= 0) {
		ioctl(loopfd, LOOP_CLR_FD, 0);
		close(loopfd);
	}
	unlink(img);
}

static int make_file(const char *name)
{
	static char buf[SIZE];
	char path[8300];
	int fd;

	memset(buf, 'a', sizeof(buf));
	snprintf(path, sizeof(path), "%s/%s", mnt, name);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd >= 0 && pwrite(fd, buf, SIZE, 0) != SIZE) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/* store through @p where a fault may come (the series: SIGBUS) */
static void store(volatile char *p, char c)
{
	sigjmp_buf here;

	if (sigsetjmp(here, 1) == 0) {
		jb = &here;
		/* jb is no volatile: keep its stores on either side */
		asm volatile("" ::: "memory");
		*p = c;
		asm volatile("" ::: "memory");
	}
	jb = NULL;
}

static int stops_mapped_stores(void)
{
	char before[SIZE], after[SIZE];
	int fd = make_file("stores"), ret, fails = 0;
	char *map;

	if (fd < 0) {
		printf("# cannot create a file on vfat: %s\n", strerror(errno));
		return 1;
	}
	map = mmap(NULL, SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED) {
		printf("# mmap: %s\n", strerror(errno));
		close(fd);
		return 1;
	}
	store(map, 'b');		/* before the attribute: lands */
	ret = set_sys(fd, 1);
	if (ret == -EPERM || ret == -EBUSY) {
		/* refused while mapped: nothing may have changed */
		if (has_sys(fd)) {
			printf("# ATTR_SYS refused (%s) but set\n", strerror(-ret));
			fails++;
		}
	} else if (ret) {
		printf("# FAT_IOCTL_SET_ATTRIBUTES: %s\n", strerror(-ret));
		fails++;
	} else {
		if (pread(fd, before, SIZE, 0) != SIZE)
			fails++;
		store(map + 1, 'c');
		if (pread(fd, after, SIZE, 0) != SIZE || memcmp(before, after, SIZE)) {
			printf("# a store through a mapping made before ATTR_SYS changed the immutable file\n");
			fails++;
		}
		set_sys(fd, 0);
	}
	munmap(map, SIZE);
	close(fd);
	return fails;
}

static void *setter(void *arg)
{
	*(int *)arg = set_sys(*(int *)arg, 1);
	return NULL;
}

static int leaves_no_mark(void)
{
	int fd = make_file("mark"), arg, ret, fails = 0;
	pthread_t t;
	char *map;

	if (fd < 0) {
		printf("# cannot create a file on vfat: %s\n", strerror(errno));
		return 1;
	}
	arg = fd;
	if (pthread_create(&t, NULL, setter, &arg)) {
		close(fd);
		return 1;
	}
	pthread_join(t, NULL);
	if (arg) {
		printf("# ATTR_SYS on a file nothing maps: %s\n", strerror(-arg));
		fails++;
	}
	ret = set_sys(fd, 0);
	if (ret) {
		printf("# clearing ATTR_SYS: %s\n", strerror(-ret));
		fails++;
	}
	map = mmap(NULL, SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED) {
		printf("# a shared writable mmap after ATTR_SYS was set and cleared: %s\n",
		       strerror(errno));
		fails++;
	} else {
		munmap(map, SIZE);
	}
	close(fd);
	return fails;
}

int main(void)
{
	const char *dir = getenv("IMMUTABLE_DIR");
	const char *why;
	int stores, mark;

	catch_faults();
	printf("TAP version 13\n1..2\n");
	why = mount_vfat(dir && *dir ? dir : ".");
	if (why) {
		printf("ok 1 " STORES " # SKIP %s\n", why);
		printf("ok 2 " MARK " # SKIP %s\n", why);
		unmount_vfat();
		return 0;
	}
	stores = stops_mapped_stores();
	printf("%s 1 " STORES "\n", stores ? "not ok" : "ok");
	mark = leaves_no_mark();
	printf("%s 2 " MARK "\n", mark ? "not ok" : "ok");
	unmount_vfat();
	return stores || mark;
}
