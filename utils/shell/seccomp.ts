import { endianness } from 'node:os';

/**
 * The seccomp filter every sandboxed command runs under, as the classic BPF program bubblewrap's
 * `--seccomp FD` loads (an array of `struct sock_filter`: u16 code, u8 jt, u8 jf, u32 k, in the machine's
 * byte order). It refuses two kinds of call and allows every other:
 * - with EPERM, the three system calls of the kernel keyring, `add_key`, `request_key` and `keyctl`. The
 *   kernel keyring is not namespaced: a user namespace keeps the session keyring it was started in, so
 *   without this a command could read every key of the session clawcode runs in (a login's or a CI runner's
 *   tokens). Container runtimes refuse the same three calls in their default profiles for that reason;
 * - with EOPNOTSUPP, `fallocate`, as a file system without it answers (glibc's `posix_fallocate` then writes
 *   the blocks, and tools fall back the same way). With `FALLOC_FL_KEEP_SIZE` it allocates blocks past the
 *   file's size, which the file-size cap (RLIMIT_FSIZE) never sees: a 0-byte file held 100 GiB of the disk;
 * - with ENOSYS, `io_uring_setup`, as a kernel without io_uring answers (libuv and others then use plain calls).
 *   A ring's operations (fallocate among them) run without passing this filter.
 *
 * The filter checks the calling convention (`seccomp_data.arch`) before the number, since the numbers differ
 * per convention and a 64-bit x86 process can still enter through the 32-bit one (`int 0x80`): x86-64 (x32
 * numbers too, which carry bit 30), i386, AArch64, 32-bit ARM and RISC-V 64. A call through any other
 * convention is allowed: no kernel clawcode supports offers one beside these.
 *
 * @returns the program, 8 bytes per instruction
 */
export function sandboxFilter(): Buffer {
  const program: Instruction[] = [load(ARCH_OFFSET)];
  // One jump per convention to its block; the blocks follow the final ALLOW of the dispatch.
  const blocks = CONVENTIONS.map((c) => block(c));
  let blockStart = CONVENTIONS.length + 2; // after the load, one jump per convention and the dispatch's ALLOW
  CONVENTIONS.forEach((c, i) => {
    const here = 1 + i;
    program.push(jumpIfEqual(c.arch, blockStart - (here + 1), 0));
    blockStart += blocks[i]!.length;
  });
  program.push(ret(SECCOMP_RET_ALLOW));
  for (const b of blocks) program.push(...b);
  const deny = program.length;
  program.push(ret(SECCOMP_RET_ERRNO | EPERM));
  const unsupported = program.length;
  program.push(ret(SECCOMP_RET_ERRNO | EOPNOTSUPP));
  const absent = program.length;
  program.push(ret(SECCOMP_RET_ERRNO | ENOSYS));
  // The blocks' jumps to the two refusals are resolved now that the program's length is known.
  const out = Buffer.alloc(program.length * 8);
  const little = endianness() === 'LE';
  program.forEach((ins, i) => {
    const target = { deny, unsupported, absent }[ins.to ?? 'deny'];
    const jt = ins.to ? target - (i + 1) : ins.jt;
    if (jt > 255) throw new Error('seccomp filter: jump too long');
    if (little) {
      out.writeUInt16LE(ins.code, i * 8);
      out.writeUInt32LE(ins.k >>> 0, i * 8 + 4);
    } else {
      out.writeUInt16BE(ins.code, i * 8);
      out.writeUInt32BE(ins.k >>> 0, i * 8 + 4);
    }
    out.writeUInt8(jt, i * 8 + 2);
    out.writeUInt8(ins.jf, i * 8 + 3);
  });
  return out;
}

/** The file descriptor the sandboxed process receives the filter on (bubblewrap reads it, then closes it). */
export const SECCOMP_FD = 3;

interface Instruction {
  code: number;
  jt: number;
  jf: number;
  k: number;
  /** the true branch goes to the EPERM, EOPNOTSUPP or ENOSYS return (resolved once the program's length is known) */
  to?: 'deny' | 'unsupported' | 'absent';
}

/**
 * A calling convention: its `AUDIT_ARCH_*` value, the numbers of add_key, request_key and keyctl in it, and
 * the number of fallocate.
 */
interface Convention {
  arch: number;
  numbers: readonly [number, number, number];
  fallocate: number;
  /** bits of the number to clear first (x32 calls are the x86-64 numbers with bit 30 set) */
  clear?: number;
}

// From the kernel's uapi headers (linux/audit.h, and each architecture's system call table).
const CONVENTIONS: readonly Convention[] = [
  { arch: 0xc000003e, numbers: [248, 249, 250], fallocate: 285, clear: 0x40000000 }, // x86-64 and x32
  { arch: 0x40000003, numbers: [286, 287, 288], fallocate: 324 }, // i386
  { arch: 0xc00000b7, numbers: [217, 218, 219], fallocate: 47 }, // AArch64 (the generic table)
  { arch: 0x40000028, numbers: [309, 310, 311], fallocate: 352 }, // 32-bit ARM (EABI)
  { arch: 0xc00000f3, numbers: [217, 218, 219], fallocate: 47 }, // RISC-V 64 (the generic table)
];

// linux/bpf_common.h and linux/seccomp.h
const BPF_LD_W_ABS = 0x20;
const BPF_JMP_JEQ_K = 0x15;
const BPF_ALU_AND_K = 0x54;
const BPF_RET_K = 0x06;
const SECCOMP_RET_ALLOW = 0x7fff0000;
const SECCOMP_RET_ERRNO = 0x00050000;
const EPERM = 1;
const EOPNOTSUPP = 95;
const ENOSYS = 38;
/** io_uring_setup: one number in every convention's table (the calls added since 5.1 share them) */
const IO_URING_SETUP = 425;
/** offsets in `struct seccomp_data`: the call number, then the calling convention */
const NR_OFFSET = 0;
const ARCH_OFFSET = 4;

function load(offset: number): Instruction {
  return { code: BPF_LD_W_ABS, jt: 0, jf: 0, k: offset };
}
function jumpIfEqual(k: number, jt: number, jf: number): Instruction {
  return { code: BPF_JMP_JEQ_K, jt, jf, k };
}
function ret(k: number): Instruction {
  return { code: BPF_RET_K, jt: 0, jf: 0, k };
}

/** Load the number, clear the convention's bits, refuse the keyring calls, fallocate and io_uring, else allow. */
function block(c: Convention): Instruction[] {
  const out: Instruction[] = [load(NR_OFFSET)];
  if (c.clear !== undefined) out.push({ code: BPF_ALU_AND_K, jt: 0, jf: 0, k: ~c.clear >>> 0 });
  for (const n of c.numbers) out.push({ ...jumpIfEqual(n, 0, 0), to: 'deny' });
  out.push({ ...jumpIfEqual(c.fallocate, 0, 0), to: 'unsupported' });
  out.push({ ...jumpIfEqual(IO_URING_SETUP, 0, 0), to: 'absent' });
  out.push(ret(SECCOMP_RET_ALLOW));
  return out;
}
