// stream_probe: the streams of small sequential reads that a drive's track structure is read from
// (tests/structure.hpp analyses their completion stamps), run on a drive. A plain stream
// (probe_stream), which also times its steady rate; a stream through a slow region, with two read
// sizes and the per-command cost fitted out (probe_cost_stream); and the search for a read size at
// which a stream follows the media (choose_stream). The transfer test samples the span with them,
// and the track-to-track probe (track_seek) reads its zone's layout with them (docs/methods.md,
// "Track structure from completion stamps").
#pragma once
#include <cstdint>
#include <optional>

#include "drivescope/io.hpp"
#include "tests/common.hpp"
#include "tests/structure.hpp"

namespace ds::measure {

// The largest read of a stream: 512 KiB, or what the kernel takes as one command. A larger read
// reaches the drive as several commands that may arrive in any order (through QEMU's AHCI disk,
// whose limit is 128 KiB, they did): a piece passed over and read a revolution later is a step
// in the stamps that looks like a track switch.
std::uint64_t max_stream_read_bytes(const IoEngine& io);

// How a plain stream runs and when it ends.
struct StreamOptions {
  // The drive time it reads for: it ends once its in-order prefix (what the analysis reads) covers
  // this, or earlier when a held read would make it starve the rest (stream_probe.cpp). 0.3 s, the
  // track-to-track probe's zone stream and the shortest rate sample: 36 revolutions at 7200 rpm.
  double max_s = 0.3;
  // Reads kept in the drive at once: the next ones must be there before the current one ends, so
  // that their command overhead overlaps the media transfer. 8: the transfer test's default
  // (TransferOptions::queue_depth), which it lowers to what the drive queues.
  unsigned queue_depth = 8;
  // 0: the stream ends on time alone. n: it may end earlier, once a surface count stands (settled,
  // or told by surfaces_hint) and the stream has crossed n + 1 cylinders' worth of boundaries; a
  // long structure stream so stops when it has what it came for.
  unsigned want_cyl_switches = 0;
  // The stream reads no LBA from here on (the zone's or the span's end); the end of the target
  // by default.
  std::uint64_t end_lba = UINT64_MAX;
  // A surface count told elsewhere (0: none). The analysis is given it, and with it a stream that
  // wants cylinder switches needs only to see them, not to settle the count itself.
  unsigned surfaces_hint = 0;
};

// Stream small sequential reads of `blocks` blocks from `lba` for opt.max_s of drive time (drawn
// from `budget`), and analyse the stamps.
struct StreamProbe {
  TrackStructure t;
  std::uint64_t end_lba = 0;  // first LBA after the last completed read
  std::int64_t drive_ns = 0;
  // The stream's rate without its track structure, from its steady part (steady_rate in
  // stream_probe.cpp; 0: too few reads).
  double steady_bytes_s = 0;
  std::optional<Error> error;
};
StreamProbe probe_stream(IoEngine& io, std::uint64_t lba, std::uint32_t blocks, Budget& budget,
                         const StreamOptions& opt = {});

// How a stream through a slow region runs, and what its structure must agree with.
struct CostStreamOptions {
  // The drive time it reads for at most. Each command there may cost tens of milliseconds, so
  // the few boundaries it needs take seconds: 3 s (the transfer test's retries use that).
  double max_s = 3.0;
  // The drive's revolution measured elsewhere (no zone changes it). The structure is kept only
  // if its sector time and track size make this revolution within 1 %; 0 (none) keeps none.
  double rotation_ns = 0;
  // The stream ends as soon as its fitted stamps show this many track boundaries (0: as soon as
  // a structure is fitted at all).
  unsigned want_boundaries = 0;
  // As in StreamOptions: no LBA from here on, and a surface count told elsewhere.
  std::uint64_t end_lba = UINT64_MAX;
  unsigned surfaces_hint = 0;
};

// A stream inside a region where every command costs far more than its media time: 10 reads of
// m_large/2 blocks, then reads of m_large blocks (queue depth 2) until the stamps, with the fitted
// per-command cost taken off (analyse_cost_stream), show opt.want_boundaries track boundaries, or
// opt.max_s has passed. The structure is kept only if it is consistent: a sector time and a track
// size whose product is opt.rotation_ns (within 1 %); otherwise t.sectors_per_track stays 0 (no
// structure told).
struct CostProbe {
  CostStream s;
  std::uint64_t end_lba = 0;
  std::int64_t drive_ns = 0;
  std::optional<Error> error;
  bool consistent = false;
};
CostProbe probe_cost_stream(IoEngine& io, std::uint64_t lba, std::uint32_t m_large, Budget& budget,
                            const CostStreamOptions& opt = {});

// How the read-size search streams.
struct StreamSearchOptions {
  unsigned queue_depth = 8;            // each size's stream, as StreamOptions::queue_depth
  std::uint64_t end_lba = UINT64_MAX;  // as StreamOptions::end_lba
};

// Find a read size at which the stream follows the media (boundaries visible) near `lba`.
struct ProbeChoice {
  std::uint32_t blocks = 0;
  TrackStructure t;
  std::uint64_t end_lba = 0;  // the probes read up to here (re-reading it would hit the cache)
};
ProbeChoice choose_stream(IoEngine& io, std::uint64_t lba, Budget& budget, const StreamSearchOptions& opt = {});

}  // namespace ds::measure
