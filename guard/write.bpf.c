// SPDX-License-Identifier: GPL-2.0
/*
 * immguard, concern 1: writes through descriptors opened before the flag.
 *
 * security_file_permission(MAY_WRITE) runs in rw_verify_area() and its
 * kin, so one hook covers write, pwrite, writev, pwritev2, O_DIRECT, AIO,
 * io_uring, splice, sendfile, copy_file_range, FICLONE(RANGE),
 * FIDEDUPERANGE and fallocate.  Truncation has its own hooks: 6.1 calls
 * security_path_truncate() for ftruncate(), 6.12 security_file_truncate();
 * both run before do_truncate() takes the inode lock, so a size change is
 * refused again under it, in security_inode_setattr(), where a chattr that
 * the truncation queued behind has set the flag already.
 *
 * A file that is immutable refuses every write; one that is append-only
 * refuses writes through a descriptor without O_APPEND, except a
 * pwritev2(RWF_APPEND) (noted by the fentry on do_pwritev()) where the
 * flag reaches the filesystem, an allocating fallocate() (mode 0 or
 * FALLOC_FL_KEEP_SIZE, noted by the fentry on vfs_fallocate()), which
 * changes no byte that is there and which the kernel allows on an
 * append-only file, and a dedupe (noted by the fentry on
 * vfs_dedupe_file_range()), which rewrites no data.
 */
#include "guard.bpf.h"

char LICENSE[] SEC("license") = "GPL";

/*
 * Per thread, in task storage (no table to fill, freed with the thread):
 * inside pwritev2(RWF_APPEND), inside vfs_fallocate() with an allocating
 * mode, inside vfs_dedupe_file_range().  A record that cannot be made
 * refuses only writes to an append-only file that the exception would
 * have let through.
 */
struct ig_write {
	__u8 rwf_append;
	__u8 allocating;
	__u8 deduping;
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct ig_write);
} ig_write SEC(".maps");

static __always_inline struct ig_write *write_record(bool create)
{
	return bpf_task_storage_get(&ig_write, bpf_get_current_task_btf(), 0,
				    create ? BPF_LOCAL_STORAGE_GET_F_CREATE : 0);
}

/*
 * 6.1's overlayfs hands a write to the real file without RWF_APPEND
 * (ovl_iocb_to_rwf() knows no IOCB_APPEND), so it lands at the caller's
 * offset: such a real file, with the overlay dentry in f_path, gets no
 * exception.  6.12's backing files pass every flag on.
 */
static __always_inline bool drops_rwf_append(struct file *file)
{
	return BPF_CORE_READ(file, f_path.dentry, d_inode) !=
	       BPF_CORE_READ(file, f_inode);
}

static __always_inline int write_refused(struct file *file)
{
	struct ig_write *w;
	unsigned int flags;

	if (!file || !is_regular(BPF_CORE_READ(file, f_inode)))
		return 0;
	flags = file_iflags(file);
	if (flags & IG_S_IMMUTABLE)
		return ig_refuse_file(IG_OP_WRITE, file, flags, IG_EPERM);
	if (!(flags & IG_S_APPEND))
		return 0;
	if (BPF_CORE_READ(file, f_flags) & IG_O_APPEND)
		return 0;
	w = write_record(false);
	if (w && w->rwf_append && !drops_rwf_append(file))
		return 0;
	if (w && (w->allocating || w->deduping))
		return 0;
	return ig_refuse_file(IG_OP_WRITE, file, flags, IG_EPERM);
}

SEC("lsm/file_permission")
int BPF_PROG(ig_file_permission, struct file *file, int mask, int ret)
{
	if (ret || !(mask & IG_MAY_WRITE))
		return ret;
	/* every write on the system comes here: the common case first */
	if (flags_in_f_inode(file) && !f_inode_flagged(file))
		return 0;
	return write_refused(file);
}

/* 6.2 and later: do_ftruncate() */
SEC("lsm/file_truncate")
int BPF_PROG(ig_file_truncate, struct file *file, int ret)
{
	unsigned int flags;

	if (ret)
		return ret;
	flags = file_iflags(file);
	if (flags & (IG_S_IMMUTABLE | IG_S_APPEND))
		return ig_refuse_file(IG_OP_TRUNCATE, file, flags, IG_EPERM);
	return 0;
}

/* 6.1: ftruncate() and truncate(); 6.12: truncate() */
SEC("lsm/path_truncate")
int BPF_PROG(ig_path_truncate, const struct path *path, int ret)
{
	struct dentry *dentry;
	struct inode *inode;
	unsigned int flags;

	if (ret)
		return ret;
	dentry = BPF_CORE_READ(path, dentry);
	inode = BPF_CORE_READ(dentry, d_inode);
	flags = inode ? BPF_CORE_READ(inode, i_flags) : 0;
	if (flags & (IG_S_IMMUTABLE | IG_S_APPEND))
		return ig_refuse(IG_OP_TRUNCATE, dentry, flags, IG_EPERM);
	return 0;
}

SEC("fentry/do_pwritev")
int BPF_PROG(ig_pwritev_in, unsigned long fd, const void *vec,
	     unsigned long vlen, long long pos, int flags)
{
	struct ig_write *w;

	if (flags & IG_RWF_APPEND) {
		w = write_record(true);
		if (w)
			w->rwf_append = 1;
	}
	return 0;
}

SEC("fexit/do_pwritev")
int BPF_PROG(ig_pwritev_out, unsigned long fd, const void *vec,
	     unsigned long vlen, long long pos, int flags, long ret)
{
	struct ig_write *w = write_record(false);

	if (w)
		w->rwf_append = 0;
	return 0;
}

/*
 * fallocate(), io_uring's included: only modes 0 and FALLOC_FL_KEEP_SIZE,
 * the ones that add blocks and change no byte that is there, are noted;
 * vfs_fallocate() refuses every other mode on an append-only inode by
 * itself, and the hook still refuses them all if +a comes in between.
 */
SEC("fentry/vfs_fallocate")
int BPF_PROG(ig_fallocate_in, struct file *file, int mode, long long offset,
	     long long len)
{
	struct ig_write *w;

	if (!(mode & ~IG_FALLOC_FL_KEEP_SIZE)) {
		w = write_record(true);
		if (w)
			w->allocating = 1;
	}
	return 0;
}

SEC("fexit/vfs_fallocate")
int BPF_PROG(ig_fallocate_out, struct file *file, int mode, long long offset,
	     long long len, long ret)
{
	struct ig_write *w = write_record(false);

	if (w)
		w->allocating = 0;
	return 0;
}

/*
 * FIDEDUPERANGE, overlayfs' included: the kernel compares the ranges and
 * shares the blocks of identical data; an immutable destination is still
 * refused above.
 */
SEC("fentry/vfs_dedupe_file_range")
int BPF_PROG(ig_dedupe_in, struct file *file, void *same)
{
	struct ig_write *w = write_record(true);

	if (w)
		w->deduping = 1;
	return 0;
}

SEC("fexit/vfs_dedupe_file_range")
int BPF_PROG(ig_dedupe_out, struct file *file, void *same, int ret)
{
	struct ig_write *w = write_record(false);

	if (w)
		w->deduping = 0;
	return 0;
}

/*
 * A truncation that passed the hooks above before the flag was set, then
 * queued on the inode lock behind the chattr that sets it: notify_change()
 * asks security_inode_setattr() under that lock, with the flag in i_flags
 * by then.  Nothing may change the size of an immutable or append-only
 * inode anyway (open(O_TRUNC) and truncate() refuse it, ftruncate() the
 * hooks above), so a size change there is refused.  The hook's arguments
 * differ (6.1: dentry, attr; 6.3 and later: idmap, dentry, attr): the
 * last two are read by position.
 */
SEC("lsm/inode_setattr")
int ig_inode_setattr(__u64 *ctx)
{
	__u64 n = bpf_get_func_arg_cnt(ctx), dentry = 0, attr = 0;
	struct inode *inode;
	unsigned int flags;

	if (n < 2 || bpf_get_func_arg(ctx, n - 2, &dentry) ||
	    bpf_get_func_arg(ctx, n - 1, &attr))
		return 0;
	if (!(BPF_CORE_READ((struct iattr *)attr, ia_valid) & IG_ATTR_SIZE))
		return 0;
	inode = BPF_CORE_READ((struct dentry *)dentry, d_inode);
	if (!inode || !is_regular(inode))
		return 0;
	flags = BPF_CORE_READ(inode, i_flags);
	if (flags & (IG_S_IMMUTABLE | IG_S_APPEND))
		return ig_refuse(IG_OP_TRUNCATE, (struct dentry *)dentry, flags,
				 IG_EPERM);
	return 0;
}
