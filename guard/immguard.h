/* SPDX-License-Identifier: GPL-2.0 */
/*
 * immguard: what the BPF programs and the loader share.  The BPF side
 * includes vmlinux.h, which has none of the uapi macros below, so they are
 * spelled out here once (values of x86_64, the same on 6.1 and 6.12).
 */
#ifndef IMMGUARD_H
#define IMMGUARD_H

/* striped per-inode state: a collision only refuses too much */
#define IG_SLOTS		65536

struct ig_slot {
	long long maps;		/* mmap()s of the inode on their way in */
	long long marks;	/* chattr +i/+a on their way in */
};

/*
 * A refusal, or in audit mode a call that would have been refused: one
 * record in the ring buffer ig_events, which "immguard run" logs.
 */
enum ig_op {
	IG_OP_WRITE = 1,	/* write(), fallocate() and kin */
	IG_OP_TRUNCATE,
	IG_OP_MMAP,		/* a shared mapping that could write */
	IG_OP_MPROTECT,
	IG_OP_CHATTR,		/* +i/+a on a file mapped shared and writable */
	IG_OP_IOCTL,		/* an ioctl that changes the file it is called on */
};

#define IG_EVENT_VERSION	1	/* of struct ig_event: the loader and the
					 * programs may differ while one replaces
					 * the other */

struct ig_event {
	__u32 version;		/* IG_EVENT_VERSION */
	__u32 pad;
	__u64 boot_ns;		/* when: bpf_ktime_get_boot_ns() */
	__u64 ino;
	__u32 dev;		/* the kernel's dev_t: major << 20 | minor */
	__u32 pid;		/* thread group */
	__u32 uid;
	__u32 flags;		/* the file's IG_S_IMMUTABLE, _APPEND, _SWAPFILE */
	__u16 op;		/* enum ig_op */
	__u16 audit;		/* allowed: audit mode */
	__s32 err;		/* the errno the call got (or would have) */
	char comm[16];
	char name[64];		/* the file's last path component */
};

/* one entry, shared by all programs and kept across a reload */
struct ig_config {
	__u32 audit;		/* log, and allow */
	__u32 pad;
	__u64 lost;		/* records the full ring buffer dropped */
};

#define IG_EVENTS_SIZE		(256 * 1024)

#define IG_EPERM		1
#define IG_EACCES		13
#define IG_EBUSY		16
#define IG_ETXTBSY		26
#define IG_ENOIOCTLCMD		515	/* the kernel's, never seen by users */

/* inode->i_flags */
#define IG_S_APPEND		(1 << 2)
#define IG_S_IMMUTABLE		(1 << 3)
#define IG_S_SWAPFILE		(1 << 8)
#define IG_S_IFMT		0170000
#define IG_S_IFREG		0100000

/* FS_IOC_GETFLAGS / FS_IOC_FSGETXATTR bits */
#define IG_FS_IMMUTABLE_FL	0x00000010
#define IG_FS_APPEND_FL		0x00000020
#define IG_FS_XFLAG_IMMUTABLE	0x00000008
#define IG_FS_XFLAG_APPEND	0x00000010

/* ioctls that set the flags */
#define IG_FS_IOC_SETFLAGS	0x40086602
#define IG_FS_IOC32_SETFLAGS	0x40046602
#define IG_FS_IOC_FSSETXATTR	0x401c5820
/* vfat's attributes: ATTR_SYS is S_IMMUTABLE with -o sys_immutable */
#define IG_FAT_IOCTL_SET_ATTRIBUTES 0x40047211
/* ioctls that change the file they are called on without write() */
#define IG_FS_IOC_SETVERSION	0x40087602
#define IG_FS_IOC32_SETVERSION	0x40047602
#define IG_EXT4_IOC_MOVE_EXT	0xc028660f
#define IG_XFS_IOC_SWAPEXT	0xc0c0586d
#define IG_BTRFS_IOC_DEFRAG	0x50009402
#define IG_BTRFS_IOC_DEFRAG_RANGE 0x40309410

#define IG_MAY_WRITE		0x2
#define IG_O_APPEND		02000
#define IG_RWF_APPEND		0x10
#define IG_FALLOC_FL_KEEP_SIZE	0x01
#define IG_ATTR_SIZE		(1 << 3)
#define IG_PROT_WRITE		0x2
#define IG_MAP_SHARED		0x1
#define IG_MAP_SHARED_VALIDATE	0x3
#define IG_MAP_TYPE		0xf
#define IG_VM_SHARED		0x8
#define IG_FMODE_WRITE		0x2
/* 6.12's FMODE_BACKING (include/linux/fs.h); only read where the kernel
 * has struct backing_file, and then checked against the overlay magic */
#define IG_FMODE_BACKING_6_12	(1U << 24)
#define IG_OVERLAYFS_MAGIC	0x794c7630
#define IG_MSDOS_SUPER_MAGIC	0x4d44
#define IG_CAP_LINUX_IMMUTABLE	9

#endif
