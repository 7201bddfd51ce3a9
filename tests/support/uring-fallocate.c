// fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, length) through io_uring, past seccomp (tests/e2e/attack-sandbox-disk.test.ts).
// Usage: uring-fallocate FILE LENGTH; prints "ring-setup-failed ERRNO" or "ring-fallocate RESULT".
#include <linux/io_uring.h>
#include <sys/syscall.h>
#include <sys/mman.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <errno.h>

int main(int argc, char **argv) {
  struct io_uring_params p;
  memset(&p, 0, sizeof p);
  int ring = syscall(__NR_io_uring_setup, 4, &p);
  if (ring < 0) { printf("ring-setup-failed %d\n", errno); return 0; }
  int fd = open(argv[1], O_RDWR | O_CREAT, 0644);
  size_t sqsz = p.sq_off.array + p.sq_entries * sizeof(unsigned);
  size_t cqsz = p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe);
  char *sq = mmap(0, sqsz, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, ring, IORING_OFF_SQ_RING);
  char *cq = mmap(0, cqsz, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, ring, IORING_OFF_CQ_RING);
  struct io_uring_sqe *sqes = mmap(0, p.sq_entries * sizeof(struct io_uring_sqe), PROT_READ | PROT_WRITE,
                                   MAP_SHARED | MAP_POPULATE, ring, IORING_OFF_SQES);
  struct io_uring_sqe *e = &sqes[0];
  memset(e, 0, sizeof *e);
  e->opcode = IORING_OP_FALLOCATE;
  e->fd = fd;
  e->off = 0;
  e->addr = strtoull(argv[2], 0, 10); // length
  e->len = 1;                           // mode: FALLOC_FL_KEEP_SIZE
  unsigned *tail = (unsigned *)(sq + p.sq_off.tail);
  unsigned *array = (unsigned *)(sq + p.sq_off.array);
  array[*tail & *(unsigned *)(sq + p.sq_off.ring_mask)] = 0;
  __atomic_store_n(tail, *tail + 1, __ATOMIC_RELEASE);
  int n = syscall(__NR_io_uring_enter, ring, 1, 1, IORING_ENTER_GETEVENTS, 0, 0);
  if (n < 0) { printf("ring-enter-failed %d\n", errno); return 0; }
  unsigned head = *(unsigned *)(cq + p.cq_off.head);
  struct io_uring_cqe *cqes = (struct io_uring_cqe *)(cq + p.cq_off.cqes);
  printf("ring-fallocate %d\n", cqes[head & *(unsigned *)(cq + p.cq_off.ring_mask)].res);
  return 0;
}
