// SPDX-License-Identifier: GPL-2.0
/*
 * guard.reload_leaves_no_gap: "immguard load" on a loaded guard (what
 * systemctl restart and a package upgrade run) replaces the programs with
 * no moment unguarded.
 *
 * A descriptor is opened for writing, the file made immutable; then
 * immguard load runs with IMMGUARD_SWAP_PAUSE naming a FIFO, and stops
 * where both sets of programs are attached.  There, and after it has
 * finished, a write through the early descriptor must fail with EPERM,
 * and the load must succeed.  No timing: the FIFO is the handshake, and a
 * load that ends without reaching that point (today's guard refuses to
 * load twice) is seen by its pidfd, not waited for.
 *
 * Skips where the guard is not loaded (the sides without it).  Prints
 * TAP, one test.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "guest.h"

#define NAME	"guard.reload_leaves_no_gap"
#define PINS	"/sys/fs/bpf/immguard"

static int write_refused(int fd)
{
	return pwrite(fd, "x", 1, 0) < 0 && errno == EPERM;
}

int main(void)
{
	const char *dir = getenv("IMMUTABLE_DIR");
	char path[512], fifo[] = "/tmp/immguard-swap", line[16] = "";
	int fd, during = 0, after = 0, status = -1;
	struct stat st;
	FILE *f;
	pid_t pid;

	printf("TAP version 13\n1..1\n");
	if (stat(PINS, &st)) {
		printf("ok 1 " NAME " # SKIP immguard is not loaded (%s)\n", PINS);
		return 0;
	}
	snprintf(path, sizeof(path), "%s/guard-reload", dir ? dir : "/tmp");
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || pwrite(fd, "data", 4, 0) != 4) {
		printf("not ok 1 " NAME " # cannot write %s: %s\n", path, strerror(errno));
		return 1;
	}
	if (set_immutable(fd, 1)) {
		printf("ok 1 " NAME " # SKIP no FS_IMMUTABLE_FL here\n");
		unlink(path);
		return 0;
	}
	unlink(fifo);
	if (mkfifo(fifo, 0600)) {
		printf("not ok 1 " NAME " # mkfifo: %s\n", strerror(errno));
		return 1;
	}
	pid = fork();
	if (!pid) {
		int null = open("/dev/null", O_WRONLY);

		dup2(null, 1);
		dup2(null, 2);
		setenv("IMMGUARD_SWAP_PAUSE", fifo, 1);
		execl("/bin/immguard", "immguard", "load", (char *)NULL);
		_exit(127);
	}
	/*
	 * immguard opens the FIFO to write "both" only when it gets there;
	 * if it exits first, its pidfd says so.
	 */
	{
		int rfd = open(fifo, O_RDONLY | O_NONBLOCK);
		int pidfd = syscall(SYS_pidfd_open, pid, 0);
		struct pollfd p[2] = {
			{ .fd = rfd, .events = POLLIN },
			{ .fd = pidfd, .events = POLLIN },
		};
		ssize_t n = 0;

		while (rfd >= 0 && pidfd >= 0 && poll(p, 2, -1) >= 0) {
			if (p[0].revents & POLLIN) {
				n = read(rfd, line, sizeof(line) - 1);
				break;
			}
			if (p[1].revents)
				break;
		}
		line[n > 0 ? n : 0] = 0;
		if (rfd >= 0)
			close(rfd);
		if (pidfd >= 0)
			close(pidfd);
	}
	if (!strcmp(line, "both\n")) {
		during = write_refused(fd);
		f = fopen(fifo, "w");
		if (f) {
			fputs("go\n", f);
			fclose(f);
		}
	}
	waitpid(pid, &status, 0);
	after = write_refused(fd);
	set_immutable(fd, 0);
	close(fd);
	unlink(path);
	unlink(fifo);
	if (strcmp(line, "both\n"))
		printf("# immguard load never reached the point where both sets are attached\n");
	printf("# load: exit %d; a write through the early descriptor with both sets attached: %s; after: %s\n",
	       WIFEXITED(status) ? WEXITSTATUS(status) : -1,
	       during ? "refused" : "NOT refused", after ? "refused" : "NOT refused");
	printf("%s 1 " NAME "\n",
	       during && after && WIFEXITED(status) && !WEXITSTATUS(status) ? "ok" : "not ok");
	return 0;
}
