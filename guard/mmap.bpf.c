// SPDX-License-Identifier: GPL-2.0
/*
 * immguard, concern 2: shared writable mappings.
 *
 *  - mmap(PROT_WRITE, MAP_SHARED) of an immutable or append-only file
 *    fails with EPERM (lsm/mmap_file; EACCES for an append-only one, as
 *    do_mmap() says after the hook), and so does mprotect(PROT_WRITE) of
 *    a shared mapping of one (lsm/file_mprotect);
 *  - every mmap(PROT_WRITE, MAP_SHARED) raises the maps counter of its
 *    inode's slot *before* it looks at the flags and at chattr's mark, and
 *    keeps it raised until vm_mmap_pgoff() returns (fexit), by when the
 *    mapping is counted in mapping->i_mmap_writable.  chattr.bpf.c holds the
 *    other half of that handshake; guard/README.md has the proof.
 */
#include "guard.bpf.h"

char LICENSE[] SEC("license") = "GPL";

IG_DEFINE_SLOTS;

/* thread -> slot + 1 that its mmap_file raised */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, IG_TASKS);
	__type(key, __u32);
	__type(value, __u32);
} ig_mmap_raised SEC(".maps");

static __always_inline void lower(__u32 slot)
{
	struct ig_slot *s = bpf_map_lookup_elem(&ig_slots, &slot);

	if (s)
		ig_add_full(&s->maps, -1);
}

SEC("lsm/mmap_file")
int BPF_PROG(ig_mmap_file, struct file *file, unsigned long reqprot,
	     unsigned long prot, unsigned long flags, int ret)
{
	__u32 t = tid(), slot, one, *old;
	struct ig_slot *s;
	unsigned long type = flags & IG_MAP_TYPE;
	unsigned int iflags;
	long long marks;

	if (ret || !file)
		return ret;
	if (type != IG_MAP_SHARED && type != IG_MAP_SHARED_VALIDATE)
		return 0;
	if (!((prot | reqprot) & IG_PROT_WRITE))
		return 0;
	/* do_mmap() refuses it with EACCES after this hook */
	if (!(BPF_CORE_READ(file, f_mode) & IG_FMODE_WRITE))
		return 0;
	if (!is_regular(BPF_CORE_READ(file, f_inode)))
		return 0;

	/* 1. raise the counter of the user's inode (full barrier) */
	slot = slot_of(user_inode(file));
	s = bpf_map_lookup_elem(&ig_slots, &slot);
	if (!s)
		return -IG_EPERM;
	old = bpf_map_lookup_elem(&ig_mmap_raised, &t);
	if (old) {
		/* raised by a path that vm_mmap_pgoff() did not end (shmat) */
		lower(*old - 1);
		bpf_map_delete_elem(&ig_mmap_raised, &t);
	}
	one = slot + 1;
	if (bpf_map_update_elem(&ig_mmap_raised, &t, &one, BPF_ANY))
		return -IG_EPERM;	/* cannot track it: refuse */
	ig_add_full(&s->maps, 1);

	/* 2. then look at chattr's mark and at the flags */
	marks = ig_load_full(&s->marks);
	iflags = file_iflags(file);
	if (marks > 0 || (iflags & (IG_S_IMMUTABLE | IG_S_APPEND))) {
		ig_add_full(&s->maps, -1);
		bpf_map_delete_elem(&ig_mmap_raised, &t);
		/*
		 * do_mmap() refuses a shared mapping of an append-only file
		 * through a writable descriptor with EACCES, after this hook:
		 * the same answer here.
		 */
		if ((iflags & (IG_S_IMMUTABLE | IG_S_APPEND)) == IG_S_APPEND)
			return -IG_EACCES;
		return -IG_EPERM;
	}
	return 0;
}

static __always_inline void done(void)
{
	__u32 t = tid(), *raised = bpf_map_lookup_elem(&ig_mmap_raised, &t);

	if (raised) {
		lower(*raised - 1);
		bpf_map_delete_elem(&ig_mmap_raised, &t);
	}
}

/* 3. the mapping is in i_mmap_writable now, or failed: lower the counter */
SEC("fexit/vm_mmap_pgoff")
int BPF_PROG(ig_mmap_done, struct file *file, unsigned long addr,
	     unsigned long len, unsigned long prot, unsigned long flag,
	     unsigned long pgoff, unsigned long ret)
{
	done();
	return 0;
}

/*
 * The other callers of security_mmap_file(): SysV shmat() and, since 6.12,
 * remap_file_pages() (on a VMA that i_mmap_writable counts already).  A
 * raise they leave is lowered here, or at the thread's next mmap_file.
 */
SEC("fexit/do_shmat")
int BPF_PROG(ig_shmat_done, int shmid, char *shmaddr, int shmflg,
	     unsigned long *raddr, unsigned long shmlba, long ret)
{
	done();
	return 0;
}

SEC("fexit/__x64_sys_remap_file_pages")
int BPF_PROG(ig_remap_done, struct pt_regs *regs, long ret)
{
	done();
	return 0;
}

SEC("lsm/file_mprotect")
int BPF_PROG(ig_file_mprotect, struct vm_area_struct *vma,
	     unsigned long reqprot, unsigned long prot, int ret)
{
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
	if (file_iflags(file) & (IG_S_IMMUTABLE | IG_S_APPEND))
		return -IG_EPERM;
	return 0;
}
