// The probe half of bench/batch_order.sh: hands N reads to the kernel in one io_submit call (or
// N calls of one, "single") at offsets 1 MiB apart in a shuffled order, waits for them, and
// prints the order it submitted them in, as 512-byte sector numbers (what the block layer's
// tracepoints print), one line. The script compares that with the order block_rq_issue saw.
//
//   batch_order DEVICE N batch|single [SEED]
#include <fcntl.h>
#include <libaio.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: %s DEVICE N batch|single [SEED]\n", argv[0]);
    return 2;
  }
  const int n = std::atoi(argv[2]);
  const bool batch = std::strcmp(argv[3], "batch") == 0;
  unsigned seed = argc > 4 ? static_cast<unsigned>(std::strtoul(argv[4], nullptr, 10)) : 1;
  if (n < 1 || n > 256) return 2;
  const int fd = ::open(argv[1], O_RDONLY | O_DIRECT);
  if (fd < 0) {
    std::perror(argv[1]);
    return 1;
  }
  io_context_t ctx = nullptr;
  if (io_setup(n, &ctx) != 0) return 1;
  // Offsets k MiB apart (never adjacent: nothing to merge), in a shuffled order (Fisher-Yates,
  // a linear congruential generator: the order only has to be no order the kernel would choose).
  std::vector<int> order(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) order[static_cast<std::size_t>(i)] = i;
  for (int i = n - 1; i > 0; --i) {
    seed = seed * 1103515245u + 12345u;
    std::swap(order[static_cast<std::size_t>(i)], order[(seed >> 8) % static_cast<unsigned>(i + 1)]);
  }
  constexpr long kBytes = 4096, kStride = 1 << 20;
  std::vector<iocb> cbs(static_cast<std::size_t>(n));
  std::vector<iocb*> ptrs(static_cast<std::size_t>(n));
  std::vector<void*> bufs(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    const auto k = static_cast<std::size_t>(i);
    if (posix_memalign(&bufs[k], 4096, kBytes) != 0) return 1;
    io_prep_pread(&cbs[k], fd, bufs[k], kBytes, static_cast<long long>(order[k]) * kStride);
    ptrs[k] = &cbs[k];
  }
  int sent = 0;
  if (batch) {
    sent = io_submit(ctx, n, ptrs.data());
  } else {
    for (int i = 0; i < n; ++i) sent += io_submit(ctx, 1, &ptrs[static_cast<std::size_t>(i)]) == 1 ? 1 : 0;
  }
  if (sent != n) {
    std::fprintf(stderr, "io_submit: %d of %d\n", sent, n);
    return 1;
  }
  std::vector<io_event> ev(static_cast<std::size_t>(n));
  for (int got = 0; got < n;) {
    const int r = io_getevents(ctx, 1, n, ev.data(), nullptr);
    if (r <= 0) return 1;
    got += r;
  }
  std::string line;
  for (int i = 0; i < n; ++i) line += std::to_string(static_cast<long>(order[static_cast<std::size_t>(i)]) * kStride / 512) + " ";
  std::printf("%s\n", line.c_str());
  io_destroy(ctx);
  ::close(fd);
  return 0;
}
