import { endianness } from 'node:os';
import { describe, expect, it } from 'vitest';
import { sandboxFilter } from '../../../utils/shell/seccomp.js';

// The filter is run here by a small classic-BPF interpreter over `struct seccomp_data` (nr, arch), covering the
// four instruction kinds the program uses; the sandbox tests run it in the kernel.

const ALLOW = 0x7fff0000;
const EPERM = 0x00050001;
const EOPNOTSUPP = 0x0005005f;
const ENOSYS = 0x00050026;

function run(program: Buffer, nr: number, arch: number): number {
  const le = endianness() === 'LE';
  let acc = 0;
  for (let pc = 0; pc < program.length / 8; pc++) {
    const at = pc * 8;
    const code = le ? program.readUInt16LE(at) : program.readUInt16BE(at);
    const jt = program.readUInt8(at + 2);
    const jf = program.readUInt8(at + 3);
    const k = le ? program.readUInt32LE(at + 4) : program.readUInt32BE(at + 4);
    if (code === 0x20) acc = k === 0 ? nr : k === 4 ? arch : NaN;
    else if (code === 0x54) acc = (acc & k) >>> 0;
    else if (code === 0x15) pc += acc === k ? jt : jf;
    else if (code === 0x06) return k;
    else throw new Error(`unexpected instruction ${code.toString(16)} at ${pc}`);
  }
  throw new Error('fell off the end of the program');
}

const X86_64 = 0xc000003e;
const I386 = 0x40000003;
const AARCH64 = 0xc00000b7;
const ARM = 0x40000028;
const RISCV64 = 0xc00000f3;

describe('sandboxFilter', () => {
  const program = sandboxFilter();

  it('refuses add_key, request_key and keyctl in every calling convention a 64-bit kernel offers', () => {
    for (const [arch, numbers] of [
      [X86_64, [248, 249, 250]],
      [X86_64, [248, 249, 250].map((n) => (n | 0x40000000) >>> 0)], // x32
      [I386, [286, 287, 288]],
      [AARCH64, [217, 218, 219]],
      [ARM, [309, 310, 311]],
      [RISCV64, [217, 218, 219]],
    ] as const)
      for (const nr of numbers) expect(run(program, nr, arch), `${arch.toString(16)} ${nr}`).toBe(EPERM);
  });

  it('answers fallocate as unsupported in every calling convention (blocks past the size escape the file cap)', () => {
    for (const [arch, nr] of [
      [X86_64, 285],
      [(X86_64 >>> 0) as number, (285 | 0x40000000) >>> 0], // x32
      [I386, 324],
      [AARCH64, 47],
      [ARM, 352],
      [RISCV64, 47],
    ] as const)
      expect(run(program, nr, arch), `${arch.toString(16)} ${nr}`).toBe(EOPNOTSUPP);
    expect(run(program, 47, X86_64)).toBe(ALLOW); // recvmsg on x86-64
  });

  it('answers io_uring_setup as absent in every calling convention (a ring runs its calls past the filter)', () => {
    for (const arch of [X86_64, I386, AARCH64, ARM, RISCV64])
      expect(run(program, 425, arch), arch.toString(16)).toBe(ENOSYS);
    expect(run(program, (425 | 0x40000000) >>> 0, X86_64)).toBe(ENOSYS); // x32
    expect(run(program, 426, X86_64)).toBe(ALLOW); // io_uring_enter needs a ring first
  });

  it('allows every other call, and the same numbers where they name other calls', () => {
    expect(run(program, 0, X86_64)).toBe(ALLOW); // read
    expect(run(program, 59, X86_64)).toBe(ALLOW); // execve
    expect(run(program, 217, X86_64)).toBe(ALLOW); // getdents64 on x86-64, add_key on AArch64
    expect(run(program, 250, AARCH64)).toBe(ALLOW);
    expect(run(program, 248, I386)).toBe(ALLOW);
    expect(run(program, 250, 0x12345678)).toBe(ALLOW); // a convention it does not know
  });
});
