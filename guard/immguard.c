// SPDX-License-Identifier: GPL-2.0
/*
 * immguard: load, attach and pin the BPF LSM programs that make chattr +i
 * and +a hold against descriptors and mappings made before the flag, on
 * kernels without the series (Debian 12's 6.1 and 6.12).  See README.md.
 *
 *   immguard load      check the BPF LSM, load, attach, pin the links under
 *                      /sys/fs/bpf/immguard, exit (the programs stay); when
 *                      loaded already, replace the programs without a gap:
 *                      the new ones attach, sharing the old ones' maps,
 *                      before the old ones detach
 *   immguard run       the same, then stay: log each refusal (the service)
 *   --audit            (load, run) log what would be refused, and allow it
 *   immguard unload    remove the pins: the programs detach
 *   immguard status    exit 0 when every required program is attached
 *   immguard -v ...    libbpf's messages too
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <signal.h>
#include <stddef.h>
#include <time.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "write.skel.h"
#include "mmap.skel.h"
#include "chattr.skel.h"
#include "immguard.h"

#define PIN_DIR		"/sys/fs/bpf/immguard"
/* bpffs refuses dots in names (reserved for the kernel) */
#define NEW_DIR		PIN_DIR "-new"
#define OLD_DIR		PIN_DIR "-old"
#define LSM_LIST	"/sys/kernel/security/lsm"
#define BPF_FS_MAGIC_NR	0xcafe4a11

static bool verbose;

static int print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level == LIBBPF_DEBUG || (level == LIBBPF_INFO && !verbose))
		return 0;
	return vfprintf(stderr, fmt, ap);
}

static void say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("immguard: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

/*
 * The programs, in attach order: each mmap counter before the check that
 * reads it, each fexit before its fentry.  func: the kernel function whose
 * presence decides whether an optional program loads.
 */
struct prog {
	const char *name;	/* pin name and program name */
	const char *func;	/* in the kernel's BTF */
	bool required;
	bool may_fail;		/* the kernel may refuse to attach it */
	bool fallback;		/* only where ig_mmap_done cannot attach */
	struct bpf_program *p;
};

static struct prog progs[] = {
	{ "ig_task_free", "bpf_lsm_task_free", true },
	/*
	 * 6.1 attaches to no function of more than six arguments: there the
	 * exit of vm_mmap_pgoff() lowers the raise instead (on 6.12 it would
	 * be a second trampoline on every mmap, make guard-bench).  shmat()
	 * and remap_file_pages() can fail after security_mmap_file() without
	 * reaching do_mmap(): their exits stay everywhere.
	 */
	{ "ig_mmap_done", "do_mmap", false, true },
	{ "ig_mmap_pgoff_done", "vm_mmap_pgoff", true, false, true },
	{ "ig_shmat_done", "do_shmat", false },
	{ "ig_remap_done", "__x64_sys_remap_file_pages", false },
	{ "ig_remap32_done", "__ia32_sys_remap_file_pages", false },
	{ "ig_chattr_task_free", "bpf_lsm_task_free", true },
	{ "ig_mmap_file", "bpf_lsm_mmap_file", true },
	{ "ig_file_mprotect", "bpf_lsm_file_mprotect", true },
	{ "ig_fileattr_done", "vfs_fileattr_set", true },
	{ "ig_fileattr_in", "vfs_fileattr_set", true },
	{ "ig_ioctl_done", "__x64_sys_ioctl", true },
	{ "ig_ioctl32_done", "__ia32_compat_sys_ioctl", false },
	{ "ig_ioctlx32_done", "__x64_compat_sys_ioctl", false },
	{ "ig_file_ioctl", "bpf_lsm_file_ioctl", true },
	{ "ig_file_ioctl_compat", "bpf_lsm_file_ioctl_compat", false },
	{ "ig_capable", "bpf_lsm_capable", true },
	{ "ig_file_permission", "bpf_lsm_file_permission", true },
	{ "ig_file_truncate", "bpf_lsm_file_truncate", false },
	{ "ig_path_truncate", "bpf_lsm_path_truncate", false },
	{ "ig_inode_setattr", "bpf_lsm_inode_setattr", true },
	{ "ig_pwritev_out", "do_pwritev", false },
	{ "ig_pwritev_in", "do_pwritev", false },
	{ "ig_fallocate_out", "vfs_fallocate", false },
	{ "ig_fallocate_in", "vfs_fallocate", false },
	{ "ig_dedupe_out", "vfs_dedupe_file_range", false },
	{ "ig_dedupe_in", "vfs_dedupe_file_range", false },
};
#define NPROGS (sizeof(progs) / sizeof(progs[0]))

static struct prog *prog_named(const char *name)
{
	for (size_t i = 0; i < NPROGS; i++)
		if (!strcmp(progs[i].name, name))
			return &progs[i];
	return NULL;
}

/* The active LSMs; 0 if "bpf" is one of them. */
static int check_lsm(void)
{
	char buf[512] = "";
	struct statfs sfs;
	FILE *f;
	char *tok, *save, copy[512];

	if (statfs("/sys/kernel/security", &sfs) == 0 &&
	    access(LSM_LIST, R_OK) != 0)
		mount("securityfs", "/sys/kernel/security", "securityfs", 0, NULL);
	f = fopen(LSM_LIST, "r");
	if (!f) {
		say("cannot read %s (%s): is securityfs mounted?", LSM_LIST,
		    strerror(errno));
		return -1;
	}
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = 0;
	fclose(f);
	buf[strcspn(buf, "\n")] = 0;
	snprintf(copy, sizeof(copy), "%s", buf);
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
		if (!strcmp(tok, "bpf"))
			return 0;
	say("the BPF LSM is not active on this kernel (active: %s)", buf);
	say("enable it: add bpf to the kernel's lsm= list, e.g. lsm=%s%sbpf", buf,
	    *buf ? "," : "");
	say("(Debian: GRUB_CMDLINE_LINUX in /etc/default/grub, update-grub, reboot;");
	say(" the kernel needs CONFIG_BPF_LSM=y, which Debian 12's 6.1 and 6.12 have)");
	return -1;
}

static int mount_bpffs(void)
{
	struct statfs sfs;

	if (statfs("/sys/fs/bpf", &sfs) == 0 && sfs.f_type == BPF_FS_MAGIC_NR)
		return 0;
	mkdir("/sys/fs/bpf", 0700);
	if (mount("bpf", "/sys/fs/bpf", "bpf", 0, "mode=0700")) {
		say("cannot mount the BPF filesystem on /sys/fs/bpf: %s",
		    strerror(errno));
		return -1;
	}
	return 0;
}

/* Decide which programs load: the optional ones whose kernel function exists. */
static int choose(struct btf *vmlinux, struct bpf_object *obj)
{
	struct bpf_program *p;

	bpf_object__for_each_program(p, obj) {
		struct prog *pr = prog_named(bpf_program__name(p));
		bool have;

		if (!pr) {
			say("program %s is not in the table", bpf_program__name(p));
			return -1;
		}
		pr->p = p;
		have = btf__find_by_name_kind(vmlinux, pr->func, BTF_KIND_FUNC) > 0;
		if (!have && pr->required) {
			say("this kernel has no %s, which %s needs", pr->func, pr->name);
			return -1;
		}
		bpf_program__set_autoload(p, have);
	}
	return 0;
}

/* remove the pins in DIR (its links detach) and DIR; the number removed */
static int unpin_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[512];
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (unlink(path) == 0)
			n++;
	}
	closedir(d);
	rmdir(dir);
	return n;
}

/*
 * The maps of the programs pinned in PIN_DIR, by name ("ig_*": the state
 * the programs share: slots, per-task marks), so that a new set of
 * programs takes them over and nothing in flight is forgotten.
 */
#define MAX_OLD_MAPS 16
static struct { char name[BPF_OBJ_NAME_LEN]; int fd; } old_maps[MAX_OLD_MAPS];
static int n_old_maps;

static void collect_old_maps(void)
{
	DIR *d = opendir(PIN_DIR);
	struct dirent *e;
	char path[512];

	if (!d)
		return;
	while ((e = readdir(d))) {
		struct bpf_link_info li = {};
		struct bpf_prog_info pi = {};
		__u32 ids[16], len = sizeof(li), nids;
		int lfd, pfd;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", PIN_DIR, e->d_name);
		lfd = bpf_obj_get(path);
		if (lfd < 0)
			continue;
		if (bpf_obj_get_info_by_fd(lfd, &li, &len) ||
		    (pfd = bpf_prog_get_fd_by_id(li.prog_id)) < 0) {
			close(lfd);
			continue;
		}
		close(lfd);
		len = sizeof(pi);
		pi.nr_map_ids = 16;
		pi.map_ids = (__u64)(unsigned long)ids;
		if (bpf_obj_get_info_by_fd(pfd, &pi, &len)) {
			close(pfd);
			continue;
		}
		close(pfd);
		nids = pi.nr_map_ids < 16 ? pi.nr_map_ids : 16;
		for (__u32 i = 0; i < nids && n_old_maps < MAX_OLD_MAPS; i++) {
			struct bpf_map_info mi = {};
			__u32 mlen = sizeof(mi);
			int mfd = bpf_map_get_fd_by_id(ids[i]), k;

			if (mfd < 0)
				continue;
			if (bpf_obj_get_info_by_fd(mfd, &mi, &mlen) ||
			    strncmp(mi.name, "ig_", 3)) {
				close(mfd);
				continue;
			}
			for (k = 0; k < n_old_maps; k++)
				if (!strcmp(old_maps[k].name, mi.name))
					break;
			if (k < n_old_maps) {
				close(mfd);
				continue;
			}
			snprintf(old_maps[n_old_maps].name, BPF_OBJ_NAME_LEN, "%s", mi.name);
			old_maps[n_old_maps++].fd = mfd;
		}
	}
	closedir(d);
}

/* hand the old maps to an object before it loads */
static int reuse_old_maps(struct bpf_object *obj)
{
	struct bpf_map *m;

	bpf_object__for_each_map(m, obj)
		for (int k = 0; k < n_old_maps; k++)
			if (!strcmp(bpf_map__name(m), old_maps[k].name) &&
			    bpf_map__reuse_fd(m, old_maps[k].fd))
				return -1;
	return 0;
}

/*
 * A test's handshake (make guard-check): with IMMGUARD_SWAP_PAUSE=FIFO,
 * a replacement stops when both sets are attached, says "both" on FIFO
 * and goes on when it reads a line from it.
 */
static void swap_pause(void)
{
	const char *fifo = getenv("IMMGUARD_SWAP_PAUSE");
	char line[16];
	FILE *f;

	if (!fifo)
		return;
	f = fopen(fifo, "w");
	if (f) {
		fputs("both\n", f);
		fclose(f);
	}
	f = fopen(fifo, "r");
	if (f) {
		if (!fgets(line, sizeof(line), f))
			line[0] = 0;
		fclose(f);
	}
}

static int unload(bool quiet)
{
	int n;

	unpin_dir(NEW_DIR);
	unpin_dir(OLD_DIR);
	n = unpin_dir(PIN_DIR);
	if (n < 0) {
		if (!quiet)
			say("not loaded (no %s)", PIN_DIR);
		return quiet ? 0 : 1;
	}
	if (!quiet)
		say("unloaded: %d links unpinned, the programs are detached", n);
	return 0;
}

/* the shared config: audit mode on or off, the loss counter kept */
static int set_mode(int config_fd, bool audit)
{
	struct ig_config cfg = {};
	__u32 zero = 0;

	bpf_map_lookup_elem(config_fd, &zero, &cfg);
	cfg.audit = audit;
	if (bpf_map_update_elem(config_fd, &zero, &cfg, BPF_ANY)) {
		say("cannot set the mode: %s", strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * Load and attach the programs (or replace the loaded ones), in audit mode
 * or not; with @events_fd, hand back descriptors of the shared ring buffer
 * and config (-1 on failure).
 */
static int load(bool audit, int *events_fd, int *config_fd)
{
	struct guard_write *w = NULL;
	struct guard_mmap *m = NULL;
	struct guard_chattr *c = NULL;
	struct bpf_object *objs[3];
	struct btf *vmlinux;
	int err = 1, n = 0;
	char path[512];

	const char *dir = PIN_DIR;
	bool swap = false, mmap_done = false;
	int lock;

	if (check_lsm() || mount_bpffs())
		return 2;
	/* one loader at a time (the unit's start, its reload, postinst, a user) */
	lock = open("/sys/fs/bpf", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (lock >= 0)
		flock(lock, LOCK_EX);
	/*
	 * What a replacement killed half way left: a new set not yet in
	 * place goes; an old set moved aside but not unpinned comes back.
	 */
	unpin_dir(NEW_DIR);
	if (access(PIN_DIR, F_OK) != 0 && access(OLD_DIR, F_OK) == 0)
		rename(OLD_DIR, PIN_DIR);
	else
		unpin_dir(OLD_DIR);
	if (access(PIN_DIR, F_OK) == 0) {
		swap = true;
		dir = NEW_DIR;
		collect_old_maps();
	}
	vmlinux = btf__load_vmlinux_btf();
	if (!vmlinux) {
		say("cannot read the kernel's BTF (/sys/kernel/btf/vmlinux): %s",
		    strerror(errno));
		goto out;
	}
	w = guard_write__open();
	m = guard_mmap__open();
	c = guard_chattr__open();
	if (!w || !m || !c) {
		say("cannot open the BPF objects");
		goto out;
	}
	objs[0] = m->obj, objs[1] = c->obj, objs[2] = w->obj;
	for (int i = 0; i < 3; i++)
		if (choose(vmlinux, objs[i]) || reuse_old_maps(objs[i]))
			goto out;
	if (!bpf_program__autoload(prog_named("ig_file_truncate")->p) &&
	    !bpf_program__autoload(prog_named("ig_path_truncate")->p)) {
		say("this kernel has neither the file_truncate nor the path_truncate hook");
		goto out;
	}
	if (guard_mmap__load(m)) {
		say("cannot load mmap.bpf.o");
		goto out;
	}
	/*
	 * One striped state for both halves of the mmap/chattr handshake, one
	 * ring buffer and config for all: mmap.bpf.o's, which are the old
	 * set's where there is one.
	 */
	if (bpf_map__reuse_fd(c->maps.ig_slots, bpf_map__fd(m->maps.ig_slots)) ||
	    bpf_map__reuse_fd(c->maps.ig_events, bpf_map__fd(m->maps.ig_events)) ||
	    bpf_map__reuse_fd(c->maps.ig_config, bpf_map__fd(m->maps.ig_config)) ||
	    guard_chattr__load(c)) {
		say("cannot load chattr.bpf.o");
		goto out;
	}
	if (bpf_map__reuse_fd(w->maps.ig_events, bpf_map__fd(m->maps.ig_events)) ||
	    bpf_map__reuse_fd(w->maps.ig_config, bpf_map__fd(m->maps.ig_config)) ||
	    guard_write__load(w)) {
		say("cannot load write.bpf.o");
		goto out;
	}
	if (mkdir(dir, 0700)) {
		say("cannot create %s: %s", dir, strerror(errno));
		goto out;
	}
	for (size_t i = 0; i < NPROGS; i++) {
		struct bpf_link *l;

		if (!progs[i].p || !bpf_program__autoload(progs[i].p))
			continue;
		if (progs[i].fallback && mmap_done)
			continue;
		l = bpf_program__attach(progs[i].p);
		if (l && !strcmp(progs[i].name, "ig_mmap_done"))
			mmap_done = true;
		if (!l && progs[i].may_fail) {
			printf("immguard: not attached on this kernel: %s (%s)\n",
			       progs[i].name, progs[i].func);
			continue;
		}
		if (!l) {
			say("cannot attach %s: %s", progs[i].name, strerror(errno));
			goto unpin;
		}
		snprintf(path, sizeof(path), "%s/%s", dir, progs[i].name);
		if (bpf_link__pin(l, path)) {
			say("cannot pin %s: %s", path, strerror(errno));
			bpf_link__destroy(l);
			goto unpin;
		}
		/* the pin keeps the link; drop our reference */
		bpf_link__disconnect(l);
		bpf_link__destroy(l);
		n++;
	}
	if (swap) {
		int old;

		/*
		 * Both sets are attached now; the old one detaches only after
		 * the new one holds the name.  A kill between the renames
		 * leaves OLD_DIR, which the next load puts back.
		 */
		swap_pause();
		if (rename(PIN_DIR, OLD_DIR) || rename(NEW_DIR, PIN_DIR)) {
			say("cannot move %s into place: %s", NEW_DIR, strerror(errno));
			goto unpin;
		}
		old = unpin_dir(OLD_DIR);
		set_mode(bpf_map__fd(m->maps.ig_config), audit);
		printf("immguard: replaced, %d programs attached and pinned in %s, sharing the old maps (%d); %d old links detached\n",
		       n, PIN_DIR, n_old_maps, old);
	} else {
		printf("immguard: loaded, %d programs attached and pinned in %s\n",
		       n, PIN_DIR);
	}
	if (!swap && set_mode(bpf_map__fd(m->maps.ig_config), audit))
		goto unpin;
	printf("immguard: %s\n", audit ?
	       "audit mode: what would be refused is logged and allowed" :
	       "enforcing");
	for (size_t i = 0; i < NPROGS; i++)
		if (progs[i].p && !bpf_program__autoload(progs[i].p))
			printf("immguard: not on this kernel: %s (%s)\n",
			       progs[i].name, progs[i].func);
	if (events_fd) {
		*events_fd = dup(bpf_map__fd(m->maps.ig_events));
		*config_fd = dup(bpf_map__fd(m->maps.ig_config));
	}
	err = 0;
	goto out;
unpin:
	if (swap)
		unpin_dir(NEW_DIR);
	else
		unload(true);
out:
	for (int k = 0; k < n_old_maps; k++)
		close(old_maps[k].fd);
	guard_chattr__destroy(c);
	guard_mmap__destroy(m);
	guard_write__destroy(w);
	btf__free(vmlinux);
	if (lock >= 0)
		close(lock);
	return err;
}

static int status(void)
{
	char path[512];
	int missing = 0, n = 0;
	bool mmap_done;

	snprintf(path, sizeof(path), "%s/ig_mmap_done", PIN_DIR);
	mmap_done = access(path, F_OK) == 0;
	for (size_t i = 0; i < NPROGS; i++) {
		struct bpf_link_info info;
		__u32 len = sizeof(info);
		int fd;

		snprintf(path, sizeof(path), "%s/%s", PIN_DIR, progs[i].name);
		fd = bpf_obj_get(path);
		if (fd < 0) {
			if (progs[i].required && !(progs[i].fallback && mmap_done)) {
				printf("immguard: %s: not attached\n", progs[i].name);
				missing++;
			}
			continue;
		}
		memset(&info, 0, sizeof(info));
		if (bpf_obj_get_info_by_fd(fd, &info, &len) == 0)
			printf("immguard: %s: attached (link %u, program %u)\n",
			       progs[i].name, info.id, info.prog_id);
		close(fd);
		n++;
	}
	printf("immguard: %s, %d programs attached\n",
	       missing ? "NOT loaded" : "loaded", n);
	return missing ? 1 : 0;
}

/*
 * "immguard run": the service.  Load (or replace), tell systemd it is
 * ready, then log every record of the ring buffer as one line on stdout
 * (the journal: <4> is warning, <5> notice), at most RATE a second with a
 * burst of BURST; what is left out and what the full ring buffer lost is
 * counted in a line of its own.  SIGTERM ends the logging, not the guard:
 * the programs stay attached ("immguard unload" detaches them).
 */
#define RATE	20
#define BURST	200
/* per uid: one user's refusals cannot crowd out another's */
#define BUCKETS	64

static volatile sig_atomic_t stopping;
static struct bucket {
	__u32 uid;
	bool used;
	double tokens;
	struct timespec last;
	unsigned long long suppressed;
} buckets[BUCKETS];
static unsigned long long lost_seen;

static void on_stop(int sig)
{
	(void)sig;
	stopping = 1;
}

/* sd_notify(READY=1) without libsystemd */
static void notify_ready(void)
{
	const char *path = getenv("NOTIFY_SOCKET");
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	size_t len;
	int fd;

	if (!path || (path[0] != '/' && path[0] != '@'))
		return;
	len = strlen(path);
	if (len >= sizeof(sa.sun_path))
		return;
	memcpy(sa.sun_path, path, len);
	if (sa.sun_path[0] == '@')
		sa.sun_path[0] = 0;
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return;
	sendto(fd, "READY=1", 7, MSG_NOSIGNAL, (struct sockaddr *)&sa,
	       offsetof(struct sockaddr_un, sun_path) + len);
	close(fd);
}

static void say_suppressed(struct bucket *b)
{
	if (!b->suppressed)
		return;
	printf("<4>immguard: %llu refusals of uid %u not logged (more than %d a second)\n",
	       b->suppressed, b->uid, RATE);
	b->suppressed = 0;
}

/* a token of @uid's bucket (a full table shares the last one) */
static struct bucket *take_token(__u32 uid, bool *ok)
{
	struct bucket *b = &buckets[BUCKETS - 1];
	struct timespec now;
	double dt;

	for (int i = 0; i < BUCKETS; i++) {
		if (buckets[i].used && buckets[i].uid != uid)
			continue;
		b = &buckets[i];
		break;
	}
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (!b->used) {
		b->used = true;
		b->uid = uid;
		b->tokens = BURST;
		b->last = now;
	}
	dt = (now.tv_sec - b->last.tv_sec) + (now.tv_nsec - b->last.tv_nsec) / 1e9;
	b->last = now;
	b->tokens = b->tokens + dt * RATE > BURST ? BURST : b->tokens + dt * RATE;
	*ok = b->tokens >= 1;
	if (*ok)
		b->tokens -= 1;
	return b;
}

/*
 * The path of the file, where the process still has it open: the
 * programs know its name and inode number, and bpf_d_path() is not
 * allowed in most of the hooks they run in.  Matched by the inode number
 * in /proc/PID/fdinfo/N and the link's last component, so that nothing
 * asks the file's filesystem (a stat() would: a FUSE server that never
 * answers would stall the logging); at most MAX_FDS descriptors.
 */
#define MAX_FDS	1024

static unsigned long long fdinfo_ino(const char *path)
{
	unsigned long long ino = 0;
	char line[128];
	FILE *f = fopen(path, "re");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "ino: %llu", &ino) == 1)
			break;
	fclose(f);
	return ino;
}

static bool path_of(const struct ig_event *e, char *buf, size_t len)
{
	char dir[64], link[320];
	struct dirent *d;
	bool found = false;
	int scanned = 0;
	DIR *fds;

	snprintf(dir, sizeof(dir), "/proc/%u/fd", e->pid);
	fds = opendir(dir);
	if (!fds)
		return false;
	while (!found && scanned < MAX_FDS && (d = readdir(fds))) {
		const char *base;
		ssize_t n;

		if (d->d_name[0] == '.')
			continue;
		scanned++;
		snprintf(link, sizeof(link), "/proc/%u/fdinfo/%s", e->pid, d->d_name);
		if (fdinfo_ino(link) != e->ino)
			continue;
		snprintf(link, sizeof(link), "%s/%s", dir, d->d_name);
		n = readlink(link, buf, len - 1);
		if (n <= 0)
			continue;
		buf[n] = 0;
		base = strrchr(buf, '/');
		found = base && !strncmp(base + 1, e->name, sizeof(e->name));
	}
	closedir(fds);
	return found;
}

/*
 * @in as printable text in @out: a file name or a command name is the
 * user's, and a newline in it would start a line of its own in the
 * journal, with any priority; control and non-ASCII bytes become \xNN.
 */
static const char *printable(const char *in, size_t inlen, char *out, size_t outlen)
{
	size_t o = 0;

	for (size_t i = 0; i < inlen && in[i] && o + 5 < outlen; i++) {
		unsigned char c = in[i];

		if (c < 0x20 || c >= 0x7f || c == '\\')
			o += snprintf(out + o, outlen - o, "\\x%02x", c);
		else
			out[o++] = c;
	}
	out[o] = 0;
	return out;
}

static const char *op_name(int op)
{
	switch (op) {
	case IG_OP_WRITE:	return "write to";
	case IG_OP_TRUNCATE:	return "truncation of";
	case IG_OP_MMAP:	return "shared mapping that can write of";
	case IG_OP_MPROTECT:	return "mprotect(PROT_WRITE) of a shared mapping of";
	case IG_OP_CHATTR:	return "chattr +i/+a of";
	case IG_OP_IOCTL:	return "ioctl that changes";
	}
	return "call on";
}

static const char *why(const struct ig_event *e)
{
	if (e->flags & IG_S_SWAPFILE)
		return "an active swapfile";
	if (e->op == IG_OP_CHATTR)
		return "mapped shared and writable, or being mapped";
	if (e->flags & IG_S_IMMUTABLE)
		return "immutable";
	if (e->flags & IG_S_APPEND)
		return "append-only";
	return "being made immutable or append-only";
}

static int on_event(void *ctx, void *data, size_t size)
{
	const struct ig_event *e = data;
	char path[300], name[4 * 300], comm[4 * 16];
	struct bucket *b;
	bool ok;

	(void)ctx;
	if (size < sizeof(*e) || e->version != IG_EVENT_VERSION)
		return 0;
	b = take_token(e->uid, &ok);
	if (!ok) {
		b->suppressed++;
		return 0;
	}
	say_suppressed(b);
	if (!path_of(e, path, sizeof(path)))
		snprintf(path, sizeof(path), ".../%.*s", (int)sizeof(e->name), e->name);
	printf("<%d>immguard: %s %s %s (%s; device %u:%u, inode %llu) by pid %u (%s), uid %u: %s\n",
	       e->audit ? 5 : 4, e->audit ? "audit: would refuse" : "refused",
	       op_name(e->op), printable(path, sizeof(path), name, sizeof(name)),
	       why(e), e->dev >> 20, e->dev & 0xfffff, (unsigned long long)e->ino,
	       e->pid, printable(e->comm, sizeof(e->comm), comm, sizeof(comm)),
	       e->uid, strerror(e->err));
	return 0;
}

static void count_lost(int config_fd)
{
	struct ig_config cfg = {};
	__u32 zero = 0;

	if (bpf_map_lookup_elem(config_fd, &zero, &cfg) || cfg.lost <= lost_seen)
		return;
	printf("<4>immguard: the ring buffer was full: %llu refusals not recorded\n",
	       (unsigned long long)(cfg.lost - lost_seen));
	lost_seen = cfg.lost;
}

static int run(bool audit)
{
	struct sigaction sa = { .sa_handler = on_stop };
	int events_fd = -1, config_fd = -1, err;
	struct ring_buffer *rb;
	__u32 zero = 0;
	struct ig_config cfg = {};

	setvbuf(stdout, NULL, _IOLBF, 0);
	err = load(audit, &events_fd, &config_fd);
	if (err)
		return err;
	if (events_fd < 0 || config_fd < 0) {
		say("cannot keep the ring buffer: %s", strerror(errno));
		return 1;
	}
	rb = ring_buffer__new(events_fd, on_event, NULL, NULL);
	if (!rb) {
		say("cannot read the ring buffer: %s", strerror(errno));
		return 1;
	}
	if (!bpf_map_lookup_elem(config_fd, &zero, &cfg))
		lost_seen = cfg.lost;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	notify_ready();
	printf("immguard: logging refusals\n");
	while (!stopping) {
		err = ring_buffer__poll(rb, 1000);
		if (err < 0 && err != -EINTR) {
			say("reading the ring buffer: %s", strerror(-err));
			break;
		}
		count_lost(config_fd);
		for (int i = 0; i < BUCKETS; i++)
			say_suppressed(&buckets[i]);
	}
	ring_buffer__consume(rb);
	for (int i = 0; i < BUCKETS; i++)
		say_suppressed(&buckets[i]);
	ring_buffer__free(rb);
	printf("immguard: stopped logging; the programs stay attached\n");
	return stopping ? 0 : 1;
}

int main(int argc, char **argv)
{
	const char *cmd;
	bool audit = false;
	int i = 1;

	if (i < argc && !strcmp(argv[i], "-v")) {
		verbose = true;
		i++;
	}
	cmd = i < argc ? argv[i++] : "";
	if (i < argc && !strcmp(argv[i], "--audit")) {
		audit = true;
		i++;
	}
	libbpf_set_print(print);
	if (i == argc && !strcmp(cmd, "load"))
		return load(audit, NULL, NULL);
	if (i == argc && !strcmp(cmd, "run"))
		return run(audit);
	if (i == argc && !audit && !strcmp(cmd, "unload"))
		return unload(false);
	if (i == argc && !audit && !strcmp(cmd, "status"))
		return status();
	fprintf(stderr, "usage: immguard [-v] load|run [--audit]\n"
			"       immguard [-v] unload|status\n");
	return 64;	/* EX_USAGE: 2 is "no BPF LSM" */
}
