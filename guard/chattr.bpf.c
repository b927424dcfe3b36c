// SPDX-License-Identifier: GPL-2.0
/*
 * immguard, concern 3: setting +i or +a while the file has shared writable
 * mappings, and ioctls that change the file they are called on.
 *
 *  - lsm/file_ioctl (and file_ioctl_compat where the kernel has it) notes,
 *    per thread, the file of an FS_IOC_SETFLAGS / FS_IOC_FSSETXATTR, and
 *    fails it early with EBUSY where it would set +i or +a on a file that
 *    has shared writable mappings, ETXTBSY on an active swapfile (a best
 *    effort: it reads the new flags from user memory, which can change
 *    under it); on vfat it notes FAT_IOCTL_SET_ATTRIBUTES too, which sets
 *    S_IMMUTABLE from ATTR_SYS on a mount with -o sys_immutable;
 *  - lsm/capable(CAP_LINUX_IMMUTABLE), which fileattr_set_prepare(), fat's
 *    and bcachefs' own ioctls ask under the inode lock only when +i or +a
 *    (ATTR_SYS) change, is the check that holds: if neither flag is set on
 *    the inode now, the call sets one; it raises the mark of the inode's
 *    slot (full barrier), then fails the capability (the caller sees EPERM)
 *    if an mmap is on its way in (the slot's maps counter, mmap.bpf.c) or a
 *    shared mapping that can be made writable exists
 *    (mapping->i_mmap_writable);
 *  - fexit/vfs_fileattr_set of the outermost call lowers the mark: the flag
 *    is in i_flags by then.  Where the filesystem sets its flags in its own
 *    ioctl (vfat's attributes; bcachefs, whose FS_IOC_SETFLAGS passes
 *    vfs_fileattr_set() with -ENOIOCTLCMD on the way), the fexit of the
 *    ioctl system call does;
 *  - FS_IOC_SETVERSION, EXT4_IOC_MOVE_EXT, XFS_IOC_SWAPEXT and the btrfs
 *    defrag ioctls on an immutable or append-only file fail with EPERM.
 */
#include "guard.bpf.h"

char LICENSE[] SEC("license") = "GPL";

IG_DEFINE_SLOTS;

struct ig_chattr {
	__u64 file;		/* the struct file of the ioctl */
	__u32 marked[2];	/* slot + 1 of each mark raised, 0: none */
	__u32 depth;		/* vfs_fileattr_set() calls under way */
};

/*
 * Per thread: its FS_IOC_SETFLAGS / FS_IOC_FSSETXATTR under way (file != 0).
 * Task storage: freed with the task, so a thread that dies between the
 * ioctl and vfs_fileattr_set() leaks nothing.
 */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct ig_chattr);
} ig_chattr SEC(".maps");

static __always_inline struct ig_chattr *record(bool create)
{
	return bpf_task_storage_get(&ig_chattr, bpf_get_current_task_btf(), 0,
				    create ? BPF_LOCAL_STORAGE_GET_F_CREATE : 0);
}

/* the thread's chattr under way, if any */
static __always_inline struct ig_chattr *current_chattr(void)
{
	struct ig_chattr *c = record(false);

	return c && c->file ? c : NULL;
}

static __always_inline void unmark(struct ig_chattr *c)
{
	for (int i = 0; i < 2; i++) {
		__u32 slot = c->marked[i] - 1;
		struct ig_slot *s;

		if (!c->marked[i])
			continue;
		s = bpf_map_lookup_elem(&ig_slots, &slot);
		if (s)
			ig_add_full(&s->marks, -1);
		c->marked[i] = 0;
	}
}

/* forget the thread's last chattr, lowering a mark it leaked */
static __always_inline void forget(struct ig_chattr *c)
{
	if (!c)
		return;
	unmark(c);
	c->file = 0;
	c->depth = 0;
}

/* Whether an mmap is on its way in or a writable shared mapping exists. */
static __always_inline bool mapped(struct inode *inode, bool full_barrier)
{
	struct address_space *m;
	struct ig_slot *s;
	__u32 slot;
	bool none;

	slot = slot_of(inode);
	s = bpf_map_lookup_elem(&ig_slots, &slot);
	if (!s)
		return true;
	if ((full_barrier ? ig_load_full(&s->maps) : s->maps) > 0)
		return true;
	m = mapping_of(inode, &none);
	if (!m)
		return !none;	/* cannot tell: refuse */
	if (BPF_CORE_READ(m, i_mmap_writable.counter) > 0)
		return true;
	/* an mmap of the upper file itself (not through the overlay) */
	if (is_overlay(inode)) {
		struct inode *real = BPF_CORE_READ(m, host);

		slot = slot_of(real);
		s = bpf_map_lookup_elem(&ig_slots, &slot);
		if (!s || (full_barrier ? ig_load_full(&s->maps) : s->maps) > 0)
			return true;
	}
	return false;
}

/* Whether the ioctl would set +i or +a, as far as user memory tells. */
static __always_inline bool sets_flag(unsigned int cmd, unsigned long arg)
{
	__u32 v = 0;

	if (bpf_probe_read_user(&v, sizeof(v), (void *)arg))
		return true;
	if (cmd == IG_FS_IOC_FSSETXATTR)	/* fsx_xflags comes first */
		return v & (IG_FS_XFLAG_IMMUTABLE | IG_FS_XFLAG_APPEND);
	return v & (IG_FS_IMMUTABLE_FL | IG_FS_APPEND_FL);
}

static __always_inline int on_ioctl(struct file *file, unsigned int cmd,
				    unsigned long arg)
{
	struct ig_chattr *c = record(false);
	struct inode *inode;
	unsigned int flags;
	int err = 0;

	/*
	 * overlayfs asks the LSMs about the real file from inside
	 * vfs_fileattr_set() (ovl_security_fileattr(): FS_IOC_GETFLAGS and
	 * FS_IOC_SETFLAGS with no argument): leave the chattr under way alone.
	 */
	if (c && c->file && c->depth)
		return 0;
	forget(c);
	switch (cmd) {
	case IG_FS_IOC_SETVERSION:
	case IG_FS_IOC32_SETVERSION:
	case IG_EXT4_IOC_MOVE_EXT:
	case IG_XFS_IOC_SWAPEXT:
	case IG_BTRFS_IOC_DEFRAG:
	case IG_BTRFS_IOC_DEFRAG_RANGE:
		flags = file_iflags(file);
		if (is_regular(BPF_CORE_READ(file, f_inode)) &&
		    (flags & (IG_S_IMMUTABLE | IG_S_APPEND)))
			return ig_refuse_file(IG_OP_IOCTL, file, flags, IG_EPERM);
		return 0;
	case IG_FS_IOC_SETFLAGS:
	case IG_FS_IOC32_SETFLAGS:
	case IG_FS_IOC_FSSETXATTR:
	case IG_FAT_IOCTL_SET_ATTRIBUTES:
		break;
	default:
		return 0;
	}
	inode = user_inode(file);
	if (!inode || !is_regular(inode))
		return 0;
	/* the same number is exfat's, which has no immutable flag */
	if (cmd == IG_FAT_IOCTL_SET_ATTRIBUTES &&
	    BPF_CORE_READ(inode, i_sb, s_magic) != IG_MSDOS_SUPER_MAGIC)
		return 0;
	c = record(true);
	if (!c)		/* cannot track it: refuse */
		return ig_refuse_file(IG_OP_CHATTR, file, 0, IG_EBUSY);
	c->file = (__u64)file;
	/*
	 * ATTR_SYS means immutable only with -o sys_immutable, which lives in
	 * the fat module's superblock info: no early check, lsm/capable
	 * (asked only on such a mount) refuses.
	 */
	if (cmd == IG_FAT_IOCTL_SET_ATTRIBUTES)
		return 0;
	flags = BPF_CORE_READ(inode, i_flags);
	if ((flags & (IG_S_IMMUTABLE | IG_S_APPEND)) || !sets_flag(cmd, arg))
		return 0;
	/* an active swapfile is written behind every hook */
	if (flags & IG_S_SWAPFILE)
		err = ig_refuse_file(IG_OP_CHATTR, file, flags, IG_ETXTBSY);
	else if (mapped(inode, false))
		err = ig_refuse_file(IG_OP_CHATTR, file, flags, IG_EBUSY);
	if (err)
		c->file = 0;
	return err;
}

SEC("lsm/file_ioctl")
int BPF_PROG(ig_file_ioctl, struct file *file, unsigned int cmd,
	     unsigned long arg, int ret)
{
	return ret ? ret : on_ioctl(file, cmd, arg);
}

SEC("lsm/file_ioctl_compat")
int BPF_PROG(ig_file_ioctl_compat, struct file *file, unsigned int cmd,
	     unsigned long arg, int ret)
{
	return ret ? ret : on_ioctl(file, cmd, arg);
}

static __always_inline void mark(struct ig_chattr *c, int i, struct inode *inode)
{
	__u32 slot = slot_of(inode);
	struct ig_slot *s;

	if (c->marked[i])
		return;
	s = bpf_map_lookup_elem(&ig_slots, &slot);
	if (!s)
		return;
	ig_add_full(&s->marks, 1);	/* full barrier */
	c->marked[i] = slot + 1;
}

SEC("lsm/capable")
int BPF_PROG(ig_capable, const struct cred *cred, struct user_namespace *ns,
	     int cap, unsigned int opts, int ret)
{
	struct ig_chattr *c;
	struct inode *inode;
	struct file *file;
	unsigned int flags;

	if (ret || cap != IG_CAP_LINUX_IMMUTABLE)
		return ret;
	c = current_chattr();
	if (!c)
		return 0;
	file = (struct file *)c->file;
	inode = user_inode(file);
	if (!inode)
		return 0;
	flags = BPF_CORE_READ(inode, i_flags);
	/* a flag is set already: this call clears or swaps them */
	if (flags & (IG_S_IMMUTABLE | IG_S_APPEND))
		return 0;
	if (flags & IG_S_SWAPFILE)
		return ig_refuse_file(IG_OP_CHATTR, file, flags, IG_EPERM);
	mark(c, 0, inode);
	if (is_overlay(inode)) {
		bool none;
		struct address_space *m = mapping_of(inode, &none);

		if (m)
			mark(c, 1, BPF_CORE_READ(m, host));
	}
	/* no mark, no check: refuse */
	if (!c->marked[0] || mapped(inode, true))
		return ig_refuse_file(IG_OP_CHATTR, file, flags, IG_EPERM);
	return 0;
}

SEC("fentry/vfs_fileattr_set")
int BPF_PROG(ig_fileattr_in, void *idmap, struct dentry *dentry, void *fa)
{
	struct ig_chattr *c = current_chattr();

	if (c)
		c->depth++;
	return 0;
}

/*
 * The outermost vfs_fileattr_set() returns: the flag is in i_flags (or the
 * call failed), mmap_file sees it from now on, and the mark can go.  On
 * overlayfs the inner call, on the upper inode, returns before the outer
 * one has copied the flag to the overlay inode: the mark stays until then.
 */
SEC("fexit/vfs_fileattr_set")
int BPF_PROG(ig_fileattr_done, void *idmap, struct dentry *dentry,
	     void *fa, int ret)
{
	struct ig_chattr *c = current_chattr();

	if (!c)
		return 0;
	if (c->depth > 1) {
		c->depth--;
		return 0;
	}
	/*
	 * No ->fileattr_set (bcachefs): the filesystem's own ioctl comes next
	 * and asks capable() there; the ioctl's fexit below forgets it.
	 */
	if (ret == -IG_ENOIOCTLCMD) {
		c->depth = 0;
		return 0;
	}
	forget(c);
	return 0;
}

/*
 * The ioctl system call returns: whatever chattr it made is over.  This
 * lowers the mark of a filesystem that sets the flag in its own ioctl, and
 * of any call whose vfs_fileattr_set() fexit did not run.
 */
/*
 * A thread that entered its ioctl before these programs were attached,
 * and exits without the exits above having seen it, takes its mark with
 * it here: the slots outlive a reload.
 */
SEC("lsm/task_free")
int BPF_PROG(ig_chattr_task_free, struct task_struct *task)
{
	struct ig_chattr *c = bpf_task_storage_get(&ig_chattr, task, 0, 0);

	if (c)
		unmark(c);
	return 0;
}

SEC("fexit/__x64_sys_ioctl")
int BPF_PROG(ig_ioctl_done, struct pt_regs *regs, long ret)
{
	forget(current_chattr());
	return 0;
}

SEC("fexit/__ia32_compat_sys_ioctl")
int BPF_PROG(ig_ioctl32_done, struct pt_regs *regs, long ret)
{
	forget(current_chattr());
	return 0;
}

SEC("fexit/__x64_compat_sys_ioctl")
int BPF_PROG(ig_ioctlx32_done, struct pt_regs *regs, long ret)
{
	forget(current_chattr());
	return 0;
}
