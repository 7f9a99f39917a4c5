/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * perf_unwind.c - user stacks of --call-graph dwarf samples, unwound from
 * the copied stack (the perf.data reader; see read_perf.c and pc_perf.h).
 *
 * perf record --call-graph dwarf sets exclude_callchain_user: a sample's
 * callchain holds only its kernel part, and the user part must be rebuilt
 * from PERF_SAMPLE_REGS_USER (the user registers at the sample or at the
 * kernel entry) and PERF_SAMPLE_STACK_USER (a copy of the user stack from
 * the stack pointer up, dyn_size bytes valid).  Each frame's pc is mapped to
 * its binary through the process's mappings; the binary's call frame
 * information (found like its symbols, pc_find_cfi()) gives the caller's
 * registers (pc_cfi_step()); saved registers are read from the stack copy.
 * The user frames are appended to the kernel part as [PERF_CONTEXT_USER, pc,
 * return addresses...], the layout a frame-pointer callchain has, so the rest
 * of the reader (frames, nudged return addresses, stacks, the chain cache)
 * treats both alike.  This is what perf script shows for the same sample.
 *
 * A chain ends at the outermost frame (return address undefined, as _start's
 * CFI says), at an address outside every mapping, at a binary whose tables
 * cannot be found (a counted warning naming it), when a saved register lies
 * outside the stack copy (perf copies 8 KiB by default), when the CFI cannot
 * be evaluated, when the stack pointer does not grow (a loop), or after
 * MAX_USER_FRAMES frames.  It never fails the conversion.
 */
#include "core/pc_config.h"

#include "readers/pc_perf.h"
#include "symbolicate/pc_cfi.h"
#include "symbolicate/pc_symbolicate.h"
#include "symbolicate/pc_symsrc.h"

#define MAX_USER_FRAMES 1024
#define WHY_LEN 2048

static enum pc_arch recording_arch(const struct perf *p)
{
	if (p->f_arch) {
		if (strcmp(p->f_arch, "x86_64") == 0)
			return PC_ARCH_X86_64;
		if (strcmp(p->f_arch, "aarch64") == 0 || strcmp(p->f_arch, "arm64") == 0)
			return PC_ARCH_AARCH64;
		return PC_ARCH_UNKNOWN;
	}
	/* pipe mode writes ARCH too; a file without it was made here, most likely */
#if defined(__x86_64__)
	return PC_ARCH_X86_64;
#elif defined(__aarch64__)
	return PC_ARCH_AARCH64;
#else
	return PC_ARCH_UNKNOWN;
#endif
}

struct stack_copy {
	const unsigned char *data;
	uint64_t size, sp;
	int swap;
};

static int read_stack(void *user, uint64_t addr, uint64_t *val)
{
	const struct stack_copy *sc = user;

	if (addr < sc->sp || addr - sc->sp > sc->size || sc->size - (addr - sc->sp) < 8)
		return -1;
	*val = pc_load_u64(sc->data + (addr - sc->sp), sc->swap);
	return 0;
}

/*
 * One step by the frame pointer, for code no CFI describes (a binary without
 * tables, or code no FDE covers: crt's _init/_fini, hand-written assembly,
 * JIT code): the frame record at rbp (x29 on aarch64) holds the caller's
 * frame pointer and the return address.  perf's unwinders (libunwind's
 * x86_64 step, libdw's) do the same.  0 stepped, -1 not possible.
 */
static int fp_step(int arch, struct pc_cfi_regs *regs, struct stack_copy *sc)
{
	unsigned fp = arch == PC_ARCH_AARCH64 ? 29 : 6, sp = arch == PC_ARCH_AARCH64 ? 31 : 7;
	unsigned ra = arch == PC_ARCH_AARCH64 ? 30 : 16;
	uint64_t f, nfp, ret;

	if (!(regs->valid & (1ull << fp)))
		return -1;
	f = regs->r[fp];
	if (f < regs->r[sp] || read_stack(sc, f, &nfp) || read_stack(sc, f + 8, &ret))
		return -1;
	regs->r[fp] = nfp;
	regs->r[sp] = f + 16;
	regs->r[ra] = ret;
	regs->valid |= 1ull << ra;
	regs->pc = arch == PC_ARCH_AARCH64 ? ret & 0x0000ffffffffffffULL : ret;
	regs->exact_pc = 0;
	return 0;
}

/* Notes of the table search go on to the conversion's context (-v). */
static void finder_diag(void *user, const struct profconv_diag *d)
{
	struct perf *p = user;

	if (d->severity == PROFCONV_NOTE)
		pc_note(p->ctx, "%s", d->message);
}

/*
 * The context the table search and the tables run on: one of its own, as
 * symbolication's jobs have, so that a damaged candidate file (an error the
 * search clears to pass it over) is never a diagnostic of the conversion.
 */
static struct profconv_ctx *finder_ctx(struct perf *p)
{
	struct perf_unwind *u = &p->uw;

	if (u->fctx)
		return u->fctx;
	u->fctx = profconv_ctx_new();
	if (!u->fctx || pc_options_copy(u->fctx, p->ctx)) {
		profconv_ctx_free(u->fctx);
		u->fctx = NULL;
		pc_fail(p->ctx, PROFCONV_ERR_NOMEM, NULL, "out of memory");
		return NULL;
	}
	u->fctx->mem_limit = p->ctx->mem_limit;
	u->fctx->verbose = p->ctx->verbose;
	profconv_set_diagnostics(u->fctx, finder_diag, p);
	return u->fctx;
}

/* The unwind tables of a lib, looked up once; NULL when it has none. */
static struct pc_symsrc *lib_tables(struct perf *p, uint32_t lib, uint64_t off)
{
	struct perf_unwind *u = &p->uw;
	struct unwind_lib *ul;

	if (lib >= u->nlibs) {
		uint32_t n = u->nlibs;

		if (pc_grow(p->ctx, (void **)&u->libs, sizeof(*u->libs), &u->libs_cap,
			    (size_t)lib + 1))
			return NULL;
		memset(u->libs + n, 0, ((size_t)lib + 1 - n) * sizeof(*u->libs));
		u->nlibs = lib + 1;
	}
	ul = &u->libs[lib];
	if (!ul->tried) {
		char *why = pc_alloc(p->ctx, WHY_LEN);
		const char *name = pc_str(p->m, p->m->libs.rows[lib].path);
		enum pc_arch arch = PC_ARCH_UNKNOWN;

		ul->tried = 1;
		if (!why || !finder_ctx(p)) {
			pc_free(p->ctx, why);
			return NULL;
		}
		why[0] = 0;
		if (pc_find_cfi(u->fctx, p->m, lib, &ul->src, why, WHY_LEN)) {
			pc_fail(p->ctx, u->fctx->status, NULL, "%s", profconv_errmsg(u->fctx));
			pc_free(p->ctx, why);
			return NULL;
		}
		if (ul->src && (!pc_elf_cfi(ul->src, &arch) || arch != (enum pc_arch)u->arch)) {
			pc_snprintf(why, WHY_LEN, "%s: its machine is not the recording's",
				    ul->src->path);
			pc_symsrc_close(ul->src);
			ul->src = NULL;
		}
		if (ul->src) {
			pc_note(p->ctx, "unwind tables for %s: %s (%llu FDEs)", name, ul->src->path,
				(unsigned long long)pc_cfi_fde_count(pc_elf_cfi(ul->src, NULL)));
		} else if (pc_warn(p->ctx, W_UNWIND_NO_CFI,
				   &(struct pc_loc){ p->path, off, 0, 0 },
				   "no unwind tables for %s: user stacks go on through it only by "
				   "frame pointers, where it keeps them (tried: %s); give its binary "
				   "or the perf build-id cache with --symbol-dir",
				   name, why)) {
			pc_free(p->ctx, why);
			return NULL;
		}
		pc_free(p->ctx, why);
	}
	return ul->src;
}

/* Store v in the file's byte order at b. */
static void store64(const struct perf *p, unsigned char *b, uint64_t v)
{
	if (p->swap)
		v = __builtin_bswap64(v);
	memcpy(b, &v, 8);
}

static int chain_room(struct perf *p, size_t words)
{
	return pc_grow(p->ctx, (void **)&p->uw.chain, 8, &p->uw.chain_cap, words);
}

/*
 * Walk the user stack of s; the frames go into the chain buffer from word
 * *n on.  Returns 0, or an error that must stop the conversion (memory,
 * strict mode).
 */
static int walk(struct perf *p, struct process *pr, const struct sample *s,
		struct pc_cfi_regs *regs, uint64_t off, size_t *n)
{
	struct perf_unwind *u = &p->uw;
	struct stack_copy sc;
	uint32_t depth;
	uint64_t sp_reg = u->arch == PC_ARCH_AARCH64 ? 31 : 7;
	int exact = 1, reached = 0;

	sc.data = s->stack;
	sc.size = s->stack ? s->stack_size : 0;
	sc.sp = regs->r[sp_reg];
	sc.swap = p->swap;
	for (depth = 0;; depth++) {
		const struct mapping *mp;
		struct pc_symsrc *src;
		uint64_t look, svma, old_sp = regs->r[sp_reg];
		int r;

		if (chain_room(p, *n + 1))
			return PROFCONV_ERR_NOMEM;
		store64(p, u->chain + 8 * *n, regs->pc);
		++*n;
		u->frames++;
		if (depth + 1 >= MAX_USER_FRAMES) {
			u->stop_depth++;
			return 0;
		}
		look = exact || regs->pc == 0 ? regs->pc : regs->pc - 1;
		mp = perf_find_mapping(pr, look);
		if (!mp || mp->lib == PC_NONE) {
			u->stop_no_map++;
			return 0;
		}
		src = lib_tables(p, mp->lib, off);
		if (!src && p->ctx->status)
			return p->ctx->status;
		if (!src) {
			/* each sample counts once, at the first such binary it reaches
			 * (the first sample of each binary was warned about already) */
			if (!reached++ && ++u->libs[mp->lib].cut > 1)
				u->cut_more++;
			r = PC_CFI_NO_FDE;
		} else if (pc_elf_cfi_svma(src, look - mp->rel_base, &svma)) {
			r = PC_CFI_NO_FDE;
		} else {
			r = pc_cfi_step(pc_elf_cfi(src, NULL), svma, regs, read_stack, &sc);
			if (u->fctx->status) /* out of memory for the row cache */
				return pc_fail(p->ctx, u->fctx->status, NULL, "%s",
					       profconv_errmsg(u->fctx));
		}
		if (r == PC_CFI_NO_FDE) {
			/* no CFI for this code: its frame record, if it keeps one */
			if (fp_step(u->arch, regs, &sc) == 0) {
				r = PC_CFI_STEPPED;
				u->fp_frames++;
			} else if (!src) {
				u->stop_no_cfi++;
				return 0;
			}
		}
		if (r == PC_CFI_END) {
			u->stop_end++;
			return 0;
		}
		if (r != PC_CFI_STEPPED) {
			if (r == PC_CFI_MEMORY)
				u->stop_stack++;
			else if (r == PC_CFI_NO_FDE)
				u->stop_no_fde++;
			else if (r == PC_CFI_NO_REG)
				u->stop_regs++;
			else
				u->stop_cfi++;
			return 0;
		}
		if (regs->r[sp_reg] < old_sp || (regs->r[sp_reg] == old_sp && depth > 0) ||
		    regs->pc == 0) {
			/* a stack that does not grow loops (only the innermost frame may
			 * leave it as it is: an aarch64 leaf keeps its return address in
			 * x30); pc 0 ends the chain (glibc's clone() leaves it for
			 * threads) */
			if (regs->pc == 0)
				u->stop_end++;
			else
				u->stop_loop++;
			return 0;
		}
		exact = regs->exact_pc;
	}
}

int perf_unwind_sample(struct perf *p, uint16_t misc, struct process *pr, struct sample *s,
		       uint64_t off)
{
	struct perf_unwind *u = &p->uw;
	struct pc_cfi_regs regs;
	uint64_t vals[64];
	size_t n = 0, i;
	uint32_t k;
	int err;

	if (u->off || !(s->attr->sample_type & S_REGS_USER)) {
		return pc_warn(p->ctx, W_NO_USER_STACK, &(struct pc_loc){ p->path, off, 0, 0 },
			       "recorded with --call-graph dwarf, and unwinding is off: samples "
			       "keep their kernel frames and sampled instruction only");
	}
	if (!s->regs_abi || !s->nregs)
		return 0; /* no user context (a kernel thread): the kernel chain alone */
	if (s->regs_abi != 2) {
		return pc_warn(p->ctx, W_UNWIND_ABI, &(struct pc_loc){ p->path, off, 0, 0 },
			       "a sample of a 32-bit process (register ABI %llu): its user stack "
			       "is not unwound", (unsigned long long)s->regs_abi);
	}
	if (!u->arch)
		u->arch = recording_arch(p);
	if (s->nregs > PC_ARRAY_SIZE(vals))
		return 0;
	for (k = 0; k < s->nregs; k++)
		vals[k] = ld64(p, s->regs + 8 * (size_t)k);
	if (pc_cfi_perf_regs((enum pc_arch)u->arch, s->attr->regs_user, vals, s->nregs, &regs)) {
		return pc_warn(p->ctx, W_UNWIND_ARCH, &(struct pc_loc){ p->path, off, 0, 0 },
			       "user stacks of %s with registers 0x%llx are not unwound (x86_64 "
			       "and aarch64 with the pc and stack pointer are)",
			       p->f_arch ? p->f_arch : "an unknown architecture",
			       (unsigned long long)s->attr->regs_user);
	}
	/* the kernel part of the recorded chain, without any user part */
	if (chain_room(p, (size_t)s->nr + 2))
		return PROFCONV_ERR_NOMEM;
	for (i = 0; i < s->nr; i++) {
		uint64_t w = ld64(p, s->ips + 8 * i);

		if (w == CTX_USER)
			break;
		store64(p, u->chain + 8 * n++, w);
	}
	if (n == 0 && (misc & MISC_CPUMODE_MASK) == MISC_KERNEL && (s->attr->sample_type & S_IP)) {
		/* a kernel sample without a recorded chain: its ip alone */
		store64(p, u->chain + 8 * n++, CTX_KERNEL);
		store64(p, u->chain + 8 * n++, s->ip);
	}
	store64(p, u->chain + 8 * n++, CTX_USER);
	u->samples++;
	err = walk(p, pr, s, &regs, off, &n);
	if (err)
		return err;
	s->ips = u->chain;
	s->nr = n;
	return 0;
}

int perf_unwind_report(struct perf *p)
{
	const struct perf_unwind *u = &p->uw;
	uint32_t i;

	if (!u->samples)
		return 0;
	pc_note(p->ctx,
		"unwound %llu user stacks, %llu frames (%llu through frame pointers where no CFI "
		"covered the code); chains ended: %llu at the outermost frame, "
		"%llu at the end of the stack copy, %llu outside every mapping, %llu at binaries "
		"without unwind tables, %llu at code no CFI covers, %llu by CFI that could not be "
		"evaluated, %llu for an unrecorded register, %llu where the stack did not grow, "
		"%llu at %d frames",
		(unsigned long long)u->samples, (unsigned long long)u->frames,
		(unsigned long long)u->fp_frames,
		(unsigned long long)u->stop_end, (unsigned long long)u->stop_stack,
		(unsigned long long)u->stop_no_map, (unsigned long long)u->stop_no_cfi,
		(unsigned long long)u->stop_no_fde,
		(unsigned long long)u->stop_cfi, (unsigned long long)u->stop_regs,
		(unsigned long long)u->stop_loop, (unsigned long long)u->stop_depth,
		MAX_USER_FRAMES);
	for (i = 0; i < u->nlibs; i++)
		if (u->libs[i].cut)
			pc_note(p->ctx, "  %llu user stacks reached %s (no unwind tables)",
				(unsigned long long)u->libs[i].cut,
				pc_str(p->m, p->m->libs.rows[i].path));
	return u->cut_more ? pc_warn_n(p->ctx, W_UNWIND_NO_CFI, u->cut_more, NULL, "%s",
				       W_UNWIND_NO_CFI)
			   : 0;
}

void perf_unwind_free(struct perf *p)
{
	struct perf_unwind *u = &p->uw;
	uint32_t i;

	for (i = 0; i < u->nlibs; i++)
		pc_symsrc_close(u->libs[i].src);
	profconv_ctx_free(u->fctx);
	pc_free(p->ctx, u->libs);
	pc_free(p->ctx, u->chain);
	memset(u, 0, sizeof(*u));
}
