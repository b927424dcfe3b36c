// SPDX-License-Identifier: GPL-2.0
/*
 * immguard, concern 2: shared mappings that can write.
 *
 *  - mmap(PROT_WRITE, MAP_SHARED) of an immutable or append-only file
 *    fails with EPERM (lsm/mmap_file; EACCES for an append-only one, as
 *    do_mmap() says after the hook), and so does mprotect(PROT_WRITE) of
 *    a shared mapping of one (lsm/file_mprotect); on tmpfs, whose holes
 *    userfaultfd fills through any mapping that may write (VM_MAYWRITE),
 *    so does a read-only shared mapping through a writable descriptor;
 *  - every shared mapping through a descriptor open for writing, the ones
 *    that mapping->i_mmap_writable counts, PROT_READ included, raises the
 *    maps counter of its inode's slot *before* it looks at the flags and
 *    at chattr's mark, and keeps it raised until do_mmap() returns (fexit),
 *    by when the mapping is counted in i_mmap_writable.  chattr.bpf.c holds
 *    the other half of that handshake; guard/README.md has the proof.
 *
 * The raise is noted in task storage, freed with the thread: lowered by
 * the fexit of do_mmap() (6.12; on 6.1 those of its callers), by the
 * thread's next mmap_file if do_mmap() never ran (a fatal signal before
 * mmap_lock), or when the thread is freed.
 */
#include "guard.bpf.h"

char LICENSE[] SEC("license") = "GPL";

IG_DEFINE_SLOTS;

/* per thread: slot + 1 of the raise its mmap_file made, 0: none */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, __u32);
} ig_mmap_raised SEC(".maps");

static __always_inline void lower(__u32 *raised)
{
	__u32 slot = *raised - 1;
	struct ig_slot *s;

	if (!*raised)
		return;
	*raised = 0;
	s = bpf_map_lookup_elem(&ig_slots, &slot);
	if (s)
		ig_add_full(&s->maps, -1);
}

static __always_inline __u32 *raised_of(struct task_struct *task, bool create)
{
	return bpf_task_storage_get(&ig_mmap_raised, task, 0,
				    create ? BPF_LOCAL_STORAGE_GET_F_CREATE : 0);
}

/* tmpfs' magic: its holes can be filled through a read-only mapping */
#define IG_TMPFS_MAGIC	0x01021994

/* Whether the flags of @file refuse this shared mapping, and how. */
static __always_inline int refused(struct file *file, bool write)
{
	unsigned int iflags = file_iflags(file);

	if (!(iflags & (IG_S_IMMUTABLE | IG_S_APPEND)))
		return 0;
	/*
	 * do_mmap() refuses a shared mapping of an append-only file through
	 * a writable descriptor with EACCES, after this hook: the same answer
	 * here.
	 */
	if (!(iflags & IG_S_IMMUTABLE))
		return ig_refuse_file(IG_OP_MMAP, file, iflags, IG_EACCES);
	if (write || BPF_CORE_READ(file, f_inode, i_sb, s_magic) == IG_TMPFS_MAGIC)
		return ig_refuse_file(IG_OP_MMAP, file, iflags, IG_EPERM);
	return 0;
}

SEC("lsm/mmap_file")
int BPF_PROG(ig_mmap_file, struct file *file, unsigned long reqprot,
	     unsigned long prot, unsigned long flags, int ret)
{
	unsigned long type = flags & IG_MAP_TYPE;
	bool write = (prot | reqprot) & IG_PROT_WRITE;
	struct ig_slot *s;
	struct inode *inode;
	__u32 slot, *raised;
	bool plain;
	int err;

	if (ret || !file)
		return ret;
	if (type != IG_MAP_SHARED && type != IG_MAP_SHARED_VALIDATE)
		return 0;
	/* only these can write; do_mmap() refuses PROT_WRITE of the others */
	if (!(file->f_mode & IG_FMODE_WRITE))
		return 0;
	if ((file->f_inode->i_mode & IG_S_IFMT) != IG_S_IFREG)
		return 0;
	plain = flags_in_f_inode(file);

	raised = raised_of(bpf_get_current_task_btf(), true);
	if (!raised)
		/* cannot track it: refuse only what the flags forbid */
		return refused(file, write);
	/* raised by a call whose do_mmap() never ran */
	lower(raised);

	/* 1. raise the counter of the user's inode (full barrier) */
	if (plain)	/* the address, as a number, for the hash */
		bpf_probe_read_kernel(&inode, sizeof(inode), &file->f_inode);
	else
		inode = user_inode(file);
	slot = slot_of(inode);
	s = bpf_map_lookup_elem(&ig_slots, &slot);
	if (!s)
		return refused(file, write);
	ig_add_full(&s->maps, 1);
	*raised = slot + 1;

	/* 2. then look at chattr's mark and at the flags */
	if (ig_load_full(&s->marks) > 0) {
		/* a chattr is setting the flag: no flag to report yet */
		err = ig_refuse_file(IG_OP_MMAP, file, 0, IG_EPERM);
		if (err)
			lower(raised);
		return err;
	}
	if (plain && !f_inode_flagged(file))
		return 0;
	err = refused(file, write);
	if (err)
		lower(raised);
	return err;
}

/* 3. the mapping is in i_mmap_writable now, or failed: lower the counter */
static __always_inline void done(void)
{
	__u32 *raised = raised_of(bpf_get_current_task_btf(), false);

	if (raised)
		lower(raised);
}

/*
 * Every caller of security_mmap_file() goes on to do_mmap() (mmap, SysV
 * shmat(), remap_file_pages(), on any entry: int 0x80 too); its arguments
 * differ between 6.1 and 6.12, and none is read.  6.1 cannot attach to a
 * function of more than six arguments: there the exits of the callers
 * below lower the raise, after MAP_POPULATE, and lsm/task_free the rest.
 */
SEC("fexit/do_mmap")
int BPF_PROG(ig_mmap_done)
{
	done();
	return 0;
}

SEC("fexit/vm_mmap_pgoff")
int BPF_PROG(ig_mmap_pgoff_done)
{
	done();
	return 0;
}

SEC("fexit/do_shmat")
int BPF_PROG(ig_shmat_done)
{
	done();
	return 0;
}

SEC("fexit/__x64_sys_remap_file_pages")
int BPF_PROG(ig_remap_done)
{
	done();
	return 0;
}

SEC("fexit/__ia32_sys_remap_file_pages")
int BPF_PROG(ig_remap32_done)
{
	done();
	return 0;
}

/* a raise that nothing lowered goes with the thread */
SEC("lsm/task_free")
int BPF_PROG(ig_task_free, struct task_struct *task)
{
	__u32 *raised = raised_of(task, false);

	if (raised)
		lower(raised);
	return 0;
}

SEC("lsm/file_mprotect")
int BPF_PROG(ig_file_mprotect, struct vm_area_struct *vma,
	     unsigned long reqprot, unsigned long prot, int ret)
{
	unsigned int flags;
	struct file *file;

	if (ret)
		return ret;
	file = BPF_CORE_READ(vma, vm_file);
	if (!file || !((prot | reqprot) & IG_PROT_WRITE))
		return 0;
	if (!(BPF_CORE_READ(vma, vm_flags) & IG_VM_SHARED))
		return 0;
	if (!is_regular(BPF_CORE_READ(file, f_inode)))
		return 0;
	flags = file_iflags(file);
	if (flags & (IG_S_IMMUTABLE | IG_S_APPEND))
		return ig_refuse_file(IG_OP_MPROTECT, file, flags, IG_EPERM);
	return 0;
}
