/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the guard's guest programs (race.c, leak.c) share: the flag, and a
 * fault caught in the thread that took it.
 */
#ifndef GUARD_GUEST_H
#define GUARD_GUEST_H

#include <errno.h>
#include <linux/fs.h>
#include <setjmp.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <unistd.h>

/* set or clear FS_IMMUTABLE_FL on @fd; 0 or -errno */
static inline int set_immutable(int fd, int on)
{
	unsigned int flags;

	if (ioctl(fd, FS_IOC_GETFLAGS, &flags))
		return -errno;
	flags = on ? flags | FS_IMMUTABLE_FL : flags & ~FS_IMMUTABLE_FL;
	return ioctl(fd, FS_IOC_SETFLAGS, &flags) ? -errno : 0;
}

/* where a thread that set it goes on after SIGBUS or SIGSEGV */
static __thread sigjmp_buf *jb;

static void on_fault(int sig)
{
	static const char msg[] = "# a fault where no store was expected: exit 99\n";

	(void)sig;
	if (jb)
		siglongjmp(*jb, 1);
	if (write(1, msg, sizeof(msg) - 1) < 0)
		_exit(98);
	_exit(99);
}

/* catch SIGBUS and SIGSEGV with on_fault() */
static inline void catch_faults(void)
{
	struct sigaction sa = { .sa_handler = on_fault };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGBUS, &sa, NULL);
	sigaction(SIGSEGV, &sa, NULL);
}

#endif
