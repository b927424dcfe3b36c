/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers of the immguard BPF programs: which inode carries the flags of a
 * file, on overlayfs too, read with CO-RE so that one object runs on 6.1
 * and 6.12.
 */
#ifndef GUARD_BPF_H
#define GUARD_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>
#include "immguard.h"

/*
 * overlayfs' inode, from the module's BTF (libbpf looks there when vmlinux
 * has no such type): only the fields read here.  Without the module's BTF
 * (overlay not loaded when immguard started) the type does not exist and
 * overlay files are handled fail-closed (see mapping_of()).
 */
struct ovl_inode___ig {
	struct inode vfs_inode;
	struct dentry *__upperdentry;
} __attribute__((preserve_access_index));

/* 6.12: struct backing_file, the real file behind an overlay file */
struct backing_file___ig {
	struct file file;
	struct path user_path;
} __attribute__((preserve_access_index));

static __always_inline bool is_overlay(struct inode *inode)
{
	return inode && BPF_CORE_READ(inode, i_sb, s_magic) == IG_OVERLAYFS_MAGIC;
}

/*
 * The inode the user sees for @file.  On 6.1 overlayfs opens the real file
 * with f_path pointing at the overlay dentry, so f_path gives the overlay
 * inode; on 6.12 the real file is a backing file (FMODE_BACKING) and the
 * user's path is in struct backing_file.  Elsewhere this is file_inode().
 */
static __always_inline struct inode *user_inode(struct file *file)
{
	struct inode *inode;

	if (bpf_core_type_exists(struct backing_file___ig)) {
		unsigned int mode = BPF_CORE_READ(file, f_mode);

		if (mode & IG_FMODE_BACKING_6_12) {
			struct backing_file___ig *bf = (void *)file -
				bpf_core_field_offset(struct backing_file___ig, file);

			inode = BPF_CORE_READ(bf, user_path.dentry, d_inode);
			if (is_overlay(inode))
				return inode;
		}
	}
	inode = BPF_CORE_READ(file, f_path.dentry, d_inode);
	return inode ? inode : BPF_CORE_READ(file, f_inode);
}

/*
 * Whether every flag that counts for @file is in file->f_inode->i_flags:
 * not an overlay inode, not a real file that overlayfs opened (6.1: its
 * f_path is the overlay dentry; 6.12: a backing file).  These are fixed
 * for the life of the file, so the hot paths may test them before their
 * handshake and read the flags after it.  Read directly, not with
 * BPF_CORE_READ(): the hooks' arguments are BTF pointers, and a direct
 * load is one instruction where BPF_CORE_READ() calls a helper per field
 * (immguard's write and mmap overhead, make guard-bench).
 */
static __always_inline bool flags_in_f_inode(struct file *file)
{
	struct inode *inode = file->f_inode;

	if (inode->i_sb->s_magic == IG_OVERLAYFS_MAGIC)
		return false;
	if (file->f_path.dentry->d_inode != inode)
		return false;
	return !(bpf_core_type_exists(struct backing_file___ig) &&
		 (file->f_mode & IG_FMODE_BACKING_6_12));
}

/* whether @file's own inode carries +i or +a, read directly */
static __always_inline bool f_inode_flagged(struct file *file)
{
	return file->f_inode->i_flags & (IG_S_IMMUTABLE | IG_S_APPEND);
}

static __always_inline bool is_regular(struct inode *inode)
{
	return (BPF_CORE_READ(inode, i_mode) & IG_S_IFMT) == IG_S_IFREG;
}

/*
 * The page cache whose shared writable mappings count for @inode: its own,
 * or for an overlay inode that of its upper (real) inode.  Returns NULL
 * when it cannot be known (overlay without the module's BTF): the caller
 * refuses.  *none is set where there is no upper inode yet, hence no
 * writable mapping.
 */
static __always_inline struct address_space *mapping_of(struct inode *inode,
							 bool *none)
{
	*none = false;
	if (!is_overlay(inode))
		return BPF_CORE_READ(inode, i_mapping);
	if (!bpf_core_type_exists(struct ovl_inode___ig))
		return NULL;
	{
		struct ovl_inode___ig *oi = (void *)inode -
			bpf_core_field_offset(struct ovl_inode___ig, vfs_inode);
		struct dentry *upper = BPF_CORE_READ(oi, __upperdentry);
		struct inode *real = upper ? BPF_CORE_READ(upper, d_inode) : NULL;

		if (!real) {
			*none = true;
			return NULL;
		}
		return BPF_CORE_READ(real, i_mapping);
	}
}

/*
 * i_flags of the user's inode and of the real one, or'ed; for an overlay
 * file also those of its upper inode, which carries the flag first: the
 * overlay's chattr sets it there, then copies it up to the overlay inode.
 */
static __always_inline unsigned int file_iflags(struct file *file)
{
	struct inode *user = user_inode(file);
	struct inode *real = BPF_CORE_READ(file, f_inode);
	unsigned int flags = BPF_CORE_READ(real, i_flags);

	if (user && user != real)
		flags |= BPF_CORE_READ(user, i_flags);
	if (is_overlay(user)) {
		bool none;
		struct address_space *m = mapping_of(user, &none);

		if (m)
			flags |= BPF_CORE_READ(m, host, i_flags);
	}
	return flags;
}

/* the slot of an inode in the striped state (a pointer hash) */
static __always_inline __u32 slot_of(void *inode)
{
	__u64 h = (__u64)inode * 0x9E3779B97F4A7C15ULL;

	return (__u32)(h >> 48) & (IG_SLOTS - 1);
}

/*
 * A load that is a full barrier: BPF atomics with BPF_FETCH are fully
 * ordered (a locked instruction on x86).
 */
#define ig_load_full(p)		__sync_fetch_and_or((p), 0)
/*
 * An add that is a full barrier: clang emits a plain BPF_ADD (no fetch,
 * not ordered in the BPF memory model) where the old value is unused, so
 * use it.
 */
#define ig_add_full(p, v) ({						\
	long long __old = __sync_fetch_and_add((p), (v));		\
	asm volatile("" : : "r"(__old));				\
})

/*
 * Refusals as events, and audit mode: the ring buffer "immguard run" reads
 * and the one-entry config, in every object; the loader makes the three
 * objects share one of each, and a reload keeps them.
 */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, IG_EVENTS_SIZE);
} ig_events SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ig_config);
} ig_config SEC(".maps");

/*
 * Refuse @op on the file at @dentry, which carries @flags, with -@err, and
 * say so in ig_events; in audit mode say so and allow it.  A full ring
 * buffer loses the record, not the refusal.
 */
static __always_inline int ig_refuse(int op, struct dentry *dentry,
				     unsigned int flags, int err)
{
	struct inode *inode = BPF_CORE_READ(dentry, d_inode);
	struct ig_config *cfg;
	struct ig_event *e;
	__u32 zero = 0;
	bool audit;

	cfg = bpf_map_lookup_elem(&ig_config, &zero);
	audit = cfg && cfg->audit;
	e = bpf_ringbuf_reserve(&ig_events, sizeof(*e), 0);
	if (!e) {
		if (cfg)
			__sync_fetch_and_add(&cfg->lost, 1);
		return audit ? 0 : -err;
	}
	e->version = IG_EVENT_VERSION;
	e->pad = 0;
	e->boot_ns = bpf_ktime_get_boot_ns();
	e->ino = inode ? BPF_CORE_READ(inode, i_ino) : 0;
	e->dev = inode ? BPF_CORE_READ(inode, i_sb, s_dev) : 0;
	e->flags = flags & (IG_S_IMMUTABLE | IG_S_APPEND | IG_S_SWAPFILE);
	e->pid = bpf_get_current_pid_tgid() >> 32;
	e->uid = (__u32)bpf_get_current_uid_gid();
	e->op = op;
	e->audit = audit;
	e->err = err;
	bpf_get_current_comm(e->comm, sizeof(e->comm));
	bpf_probe_read_kernel_str(e->name, sizeof(e->name),
				  BPF_CORE_READ(dentry, d_name.name));
	bpf_ringbuf_submit(e, 0);
	return audit ? 0 : -err;
}

/* the same, for the file of a call */
static __always_inline int ig_refuse_file(int op, struct file *file,
					  unsigned int flags, int err)
{
	return ig_refuse(op, BPF_CORE_READ(file, f_path.dentry), flags, err);
}

#endif

/*
 * The striped per-inode state, shared by mmap.bpf.c and chattr.bpf.c: the
 * loader creates it with the first object and hands its descriptor to the
 * second (bpf_map__reuse_fd).
 */
#define IG_DEFINE_SLOTS							\
struct {								\
	__uint(type, BPF_MAP_TYPE_ARRAY);				\
	__uint(max_entries, IG_SLOTS);					\
	__type(key, __u32);						\
	__type(value, struct ig_slot);					\
} ig_slots SEC(".maps")
