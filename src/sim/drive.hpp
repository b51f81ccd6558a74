// The simulated drive: the mechanics behind a command queue, a host-side queue and a virtual
// clock. Shared by the command interface (SimDevice) and the block-I/O interface (SimIoEngine),
// so that SET FEATURES changes what the I/O sees.
//
// Queueing: the host may have up to 256 requests outstanding. The drive holds `queue.depth` of
// them (1 for protocol none) and, whenever the mechanism is free, picks the next in `policy`
// order: fifo, or the shortest positioning time from where the head is then (sptf; among the
// queue.window oldest only, and the oldest first once it has waited queue.max_wait_ms). Requests
// beyond the drive's depth wait on the host side in submission order.
//
// Actuators (model key "actuators"): each LBA range has its own Mechanics (positioner, buffer,
// read-ahead); a command goes to the range of its first LBA. Whenever a positioner is free it
// takes the next command of its own range (fifo or sptf as above), so commands in different
// ranges overlap while those in one range serialise. The drive's queue depth counts the commands
// of all ranges together. Without the key there is one range and everything is as before.
//
// Drive-managed SMR (model key "smr", sim/smr.hpp): each command's access is routed through the
// shingled translation when the mechanism takes it (a write to the media cache, forced cleans
// first; a read of cached data to the cache), and a drive that had nothing to do for
// smr.idle_delay_ms cleans bands until the next command comes. Without the key nothing changes.
//
// Zoned drives (model key "zoned", sim/zoned.hpp): a block-I/O write that a host-managed drive
// refuses (not at its zone's write pointer, or across a zone boundary) completes at once with
// -EIO, as Linux reports an UNALIGNED WRITE COMMAND; a write taken moves the write pointer when it
// is submitted. Without the key nothing changes.
//
// Host time (format /2 noise.host_latency_us, host_stall): a completion reaches the host some
// time after the drive finished it; the drive goes on meanwhile, the stamp and the clock the host
// sees are the later time.
//
// Service breakdown (sim/breakdown.hpp): with a hook set (set_service_hook), every block-I/O
// request the drive served is reported when its completion reaches the host, with its time from
// submission split into parts that sum to complete_ns − submit_ns. Without a hook nothing is
// kept.
#pragma once
#include <algorithm>
#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "drivescope/expected.hpp"
#include "drivescope/io.hpp"
#include "sim/breakdown.hpp"
#include "sim/mechanics.hpp"
#include "sim/model.hpp"
#include "sim/smr.hpp"
#include "sim/sptf.hpp"
#include "sim/zoned.hpp"

namespace ds::sim {

// A served block-I/O request and where its time went.
struct ServiceRecord {
  std::uint64_t tag = 0;
  std::uint64_t lba = 0;
  std::uint32_t sectors = 0;
  bool write = false;
  std::int64_t submit_ns = 0, complete_ns = 0;  // as the completion carries them
  ServiceBreakdown parts;                       // parts.total() == complete_ns − submit_ns
};
using ServiceHook = std::function<void(const ServiceRecord&)>;

class SimDrive {
 public:
  static constexpr std::size_t kHostDepth = 256;

  static Expected<std::shared_ptr<SimDrive>> create(DiskModel model, std::uint64_t seed);

  const DiskModel& model() const { return model_; }
  const Layout& layout() const { return mechs_[0]->layout(); }
  const SeekCurve& seek_curve() const { return mechs_[0]->seek(); }
  std::int64_t now_ns() const { return now_; }
  std::uint64_t capacity() const { return mechs_[0]->layout().capacity(); }
  // The positioning ranges (model key "actuators"); one range of the whole capacity without it.
  std::vector<ActuatorRange> positioning_ranges() const;

  // ---- feature state (SET FEATURES, MODE SELECT) ----
  bool write_cache() const { return mechs_[0]->write_cache(); }
  void set_write_cache(bool on);
  bool look_ahead() const { return mechs_[0]->look_ahead(); }
  void set_look_ahead(bool on) {
    for (auto& m : mechs_) m->set_look_ahead(on);
  }
  bool aam_enabled() const { return aam_enabled_; }
  std::uint8_t aam_level() const { return aam_level_; }
  // Level 128 (quietest) .. 254 (fastest); false for a level outside that range or no AAM.
  bool set_aam_level(std::uint8_t level);
  void disable_aam();
  double seek_scale() const { return seek_scale_; }
  double rate_scale() const { return rate_scale_; }

  // ---- block I/O ----
  // Accept up to kHostDepth − in_flight() requests, stamped at now. A request that is malformed,
  // out of range or a write on a read-only target completes at once with −errno.
  std::size_t submit(std::span<const IoRequest> reqs, bool writable);
  // Run the drive until min_events completions are ready (or nothing is left to run, or the
  // virtual deadline passes; deadline < 0: none) and move up to out.size() of them into out.
  std::size_t reap(std::span<IoCompletion> out, std::size_t min_events, std::int64_t deadline_ns);
  // Let virtual time pass to t, serving what is queued meanwhile.
  void advance_to(std::int64_t t);
  std::size_t in_flight() const { return unreaped_; }
  // The virtual time of the next thing the drive will do (a command ends, a completion reaches
  // the host, a queued command starts: now), or -1 when it has nothing to do (or stopped
  // answering). For a driver that keeps the clock on real time (src/serve): it sleeps until then
  // instead of running the drive ahead of requests that have not arrived yet.
  std::int64_t next_event_ns() const;
  // FLUSH CACHE: commit every buffered write to the media; returns the virtual time when that is
  // done (now when nothing was buffered). The clock is left where it is: the caller waits.
  std::int64_t flush_cache() { return std::max(now_, flush_all()); }
  // Injected failures (sim/faults.hpp), from the model's "faults".
  const FaultState& faults() const { return faults_; }
  // The shingled translation (model key "smr"; disabled without it), for tests.
  const ShingledTranslation& smr() const { return smr_; }
  // The zone list and write pointers (model key "zoned"; disabled without it). submit() checks
  // and applies block-I/O writes here; the command interface (SimDevice) its SCSI writes,
  // REPORT ZONES and RESET WRITE POINTER.
  const ZoneTable& zones() const { return zones_; }
  ZoneTable& zones() { return zones_; }

  // The service breakdown of every block-I/O request served from now on, as its completion
  // reaches the host (requests refused at once are not reported); an empty hook: none.
  void set_service_hook(ServiceHook hook) {
    hook_ = std::move(hook);
    for (auto& m : mechs_) m->set_breakdown(static_cast<bool>(hook_));
  }

  // A media command from the command interface (READ VERIFY, SCSI READ): served after all
  // queued I/O, synchronously; returns its duration in virtual ns.
  std::int64_t run_command(std::uint64_t lba, std::uint32_t sectors, bool write);
  // Controller time of a non-media command (IDENTIFY, SET FEATURES...): advances the clock.
  std::int64_t run_control();

 private:
  SimDrive(DiskModel model, std::vector<std::unique_ptr<Mechanics>> mechs, std::uint64_t seed);
  struct Slot {
    IoRequest req;
    std::int64_t submit_ns = 0;
    Access access;
    std::uint8_t actuator = 0;  // the positioner whose range holds its first LBA
    bool served = false;        // by the mechanism (parts is its breakdown when a hook is set)
    std::int64_t drive_done = 0;  // when the drive completed it
    ServiceBreakdown parts;
  };
  // One positioner: the command it serves (slot, -1: idle) and when it is done.
  struct Positioner {
    int current = -1;
    std::int64_t done = 0;
  };
  std::uint8_t actuator_of(std::uint64_t lba) const;
  std::int64_t flush_all();
  std::size_t busy() const;  // positioners serving a command
  bool has_work(std::size_t k) const { return !held_[k].empty(); }  // a command of range k waits in the drive
  void push_ready(std::uint16_t slot, std::int64_t done, std::int32_t result);
  void refill();
  void dispatch(std::size_t k);
  // The slot of positioner k's next command by SPTF.
  std::uint16_t pick_sptf(std::size_t k);
  // Positioner k finished its command: hand it to the host (now or later).
  void finish(std::size_t k);
  std::int64_t host_delay_ns();  // what the host adds to one completion
  // Process completions up to t (inclusive) until `want` are ready; returns false when idle.
  void run(std::int64_t limit, std::size_t want);
  void update_aam();

  DiskModel model_;
  std::vector<std::unique_ptr<Mechanics>> mechs_;  // one per positioning range (one without "actuators")
  std::int64_t now_ = 0;
  bool aam_enabled_ = false;
  std::uint8_t aam_level_ = 254;
  double seek_scale_ = 1.0, rate_scale_ = 1.0;

  std::array<Slot, kHostDepth> slots_{};
  std::vector<std::uint16_t> free_;          // free slot indices (stack)
  std::array<std::uint16_t, kHostDepth> host_{};  // host FIFO ring
  std::size_t host_head_ = 0, host_count_ = 0;
  // In the drive, waiting for the mechanism: per positioner, in arrival order; held_count_ in all.
  std::vector<CommandQueue> held_;
  std::size_t held_count_ = 0;
  std::vector<Positioner> pos_;              // one per mechs_
  std::array<IoCompletion, kHostDepth> ready_{};
  std::size_t ready_head_ = 0, ready_count_ = 0;
  std::size_t unreaped_ = 0;
  std::uint32_t depth_ = 1;
  FaultState faults_;
  ShingledTranslation smr_;
  ZoneTable zones_;
  bool idle_ = true;              // nothing in the drive since idle_since_ (SMR idle cleaning)
  std::int64_t idle_since_ = 0;
  // Positioner k serves a command through the shingled translation (idle cleans first); returns
  // its completion.
  std::int64_t smr_serve(std::size_t k, const Access& a);
  // Completions the drive is done with that the host has not seen yet (host latency), unordered.
  struct Delayed {
    std::uint16_t slot;
    std::int64_t visible_ns;
    std::int32_t result;
  };
  std::vector<Delayed> delayed_;
  Rng host_rng_;
  ServiceHook hook_;
  // The hook's record of slot's request, completed at done (as the host sees it).
  void report(std::uint16_t slot, std::int64_t done);
};

}  // namespace ds::sim
