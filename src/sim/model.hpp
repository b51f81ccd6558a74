// The disk model: a drive described physically (formats drivescope-disk-model/1 and /2, see
// docs/disk-model.md and docs/simulator.md). Only the simulator reads these; the
// measurement modules must recover them by timing alone.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "drivescope/expected.hpp"
#include "sim/faults.hpp"
#include "sim/layout_spec.hpp"

namespace ds::sim {

inline constexpr std::string_view kModelFormat = "drivescope-disk-model/1";
inline constexpr std::string_view kModelFormat2 = "drivescope-disk-model/2";

enum class Transport : std::uint8_t { ata, scsi };
enum class QueueProtocol : std::uint8_t { none, ncq, tcq };
enum class QueuePolicy : std::uint8_t { fifo, sptf };

std::string_view to_string(Transport t);
std::string_view to_string(QueueProtocol p);
std::string_view to_string(QueuePolicy p);

struct Identity {
  std::string vendor;    // SCSI vendor (8 chars); "ATA" for ATA drives
  std::string model;
  std::string serial;
  std::string firmware;
};

struct Zone {
  std::uint32_t cylinders = 0;
  std::uint32_t sectors_per_track = 0;
  std::optional<std::uint32_t> track_skew_sectors;     // else the model default, else derived
  std::optional<std::uint32_t> cylinder_skew_sectors;
  std::vector<std::uint32_t> spt_per_surface;  // /2: one per surface (else empty); [0] above
};

struct SeekSpec {
  double track_to_track_ms = 0;  // 1-cylinder seek
  double average_ms = 0;         // mean over uniformly random pairs of cylinders
  double full_stroke_ms = 0;
  std::vector<std::pair<double, double>> curve;  // (cylinders, ms); empty: fit the figures
};

struct CacheSpec {
  std::uint64_t bytes = 0;
  std::uint32_t segments = 1;
  std::uint32_t read_ahead_sectors = 0;
  bool write_back = false;  // the write cache's initial state (SET FEATURES can change it)
  bool zero_latency_read = false;  // /2: a miss landing inside its track reads from the head on
};

struct QueueSpec {
  QueueProtocol protocol = QueueProtocol::none;
  std::uint32_t depth = 1;
  QueuePolicy policy = QueuePolicy::fifo;
  std::uint32_t window = 0;  // /2: SPTF picks among this many oldest commands (0: all)
  double max_wait_ms = 0;    // /2: a command waiting this long is served next (0: no bound)
};

struct AamSpec {
  bool supported = false;
  std::uint8_t default_level = 254;
  double quiet_seek_scale = 1.0;  // seek time multiplier at level 128
  double quiet_rate_scale = 1.0;  // sequential rate multiplier at level 128 (as switch time)
  std::uint32_t short_seek_cylinders = 0;  // /2: seeks up to this distance ignore the level
};

struct DefectRegion {
  std::uint64_t first_lba = 0;
  std::uint64_t sectors = 0;
  double extra_ms = 0;
};

struct NoiseSpec {
  std::uint64_t seed = 1;
  double seek_jitter_pct = 0;  // /1: uniform ±pct on seeks; /2: normal sd, settle included
  double overhead_jitter_ms = 0;  // /2: sd of the command overhead
  double host_latency_us = 0;     // /2: median host time added to each completion (lognormal)
  double host_stall_probability = 0;  // /2: noise.host_stall: a completion delayed by ...
  double host_stall_ms = 0;           //   ... this much, with this probability
};

struct RemappedLba {  // /2: a grown defect, its sector moved to the spare area
  std::uint64_t lba = 0;
  double extra_ms = 0;
};

struct RecalibrationSpec {  // /2: the drive serves nothing for duration_ms every every_s
  double every_s = 0;       // 0: never
  double duration_ms = 0;
};

// Optional "controller" object (formats /1 and /2): DiskSim's per-drive controller parameters
// that the rest of the format has no place for (docs/disk-model.md, "Controller keys"). Every
// member unset is today's behaviour exactly.
struct OverheadTable {  // ms; [0] after a read, [1] after a write (DiskSim "... over. after ...")
  double read_hit[2] = {0, 0}, read_miss[2] = {0, 0};
  double write_hit[2] = {0, 0}, write_miss[2] = {0, 0};
  double read_completion = 0, write_completion = 0;  // added to each completion
};
// controller.bus: DiskSim's bus between host and drive ("Read / Write block transfer time"). Set,
// every transfer crosses it block by block, a miss's blocks only once the media has read them.
struct BusSpec {
  double read_block_ms = 0, write_block_ms = 0;
};
// controller.read_reconnect: a read that must wait for the media disconnects and reconnects once
// its high-water mark of blocks is in the buffer (DiskSim's watermark and reselect overheads).
struct ReconnectSpec {
  double high_water = 0;           // "High (read) water mark", a fraction
  bool by_request_size = true;     // "Set watermark by reqsize": of the request, else of a segment
  double first_reselect_ms = 0;    // "First reselect overhead"
  double data_prep_ms = 0;         // "Data preparation overhead"
  double disconnect_ms[2] = {0, 0};  // "Read disconnect afterread / afterwrite"
};
// controller.write_reconnect: the bus phases of a write the drive does not cache (DiskSim's
// write disconnect, reselect and minimum seek delay, and its "extra write disconnect" path).
struct ExtraDisconnectSpec {       // "Extra write disconnect" = 1: a write after a write elsewhere
  double command_ms = 0;           // "Extradisc command overhead" (replaces the write overhead)
  double seek_delta_ms = 0;        // "Extradisc seek delta": the seek starts this much later
  double disconnect_ms = 0;        // "Extradisc disconnect overhead" (before the data phase)
  double inter_disconnect_ms = 0;  // "Extradisc inter-disconnect delay"
  double second_disconnect_ms = 0; // "Extradisc 2nd disconnect overhead" (after the data)
  double reselect_ms = 0;          // "Other reselect overhead" (to send the status)
};
struct WriteReconnectSpec {
  double disconnect_ms = 0;   // "Write disconnect overhead": after the data has crossed
  double reselect_ms = 0;     // "First reselect overhead": to send the status once written
  double data_prep_ms = 0;    // "Data preparation overhead": before the data phase
  double min_seek_ms = 0;     // "Minimum seek delay": the positioning of a write lasts at least this
  std::optional<ExtraDisconnectSpec> extra;
};
// controller.prefetch: DiskSim's read-ahead extent and trigger rules.
struct PrefetchSpec {
  int continuous_read = 3;    // "Buffer continuous read": 0 none, 1 track, 2 cylinder, 3 segment, 4 track ahead
  int over_requested = 1;     // "Read-ahead over requested" (-1, 0, 1): 0 keeps the request's data
  bool on_idle_hit = true;    // "Read-ahead on idle hit"
  std::uint32_t after_sequential_reads = 0;  // no read-ahead until this many reads in a row continued
};
struct ControllerSpec {
  std::optional<OverheadTable> overheads;  // replaces command_overhead_ms
  std::optional<int> write_behind_level;   // DiskSim "Fast write level" 0/1/2; sets write_back
  std::optional<double> bulk_sector_ms;    // bus time per sector; replaces interface_mb_s
  std::optional<double> write_settle_ms;   // signed; replaces write_settle_ms
  std::optional<BusSpec> bus;
  std::optional<ReconnectSpec> read_reconnect;  // needs bus
  std::optional<WriteReconnectSpec> write_reconnect;  // needs bus
  std::optional<PrefetchSpec> prefetch;
  bool any() const {
    return overheads || write_behind_level || bulk_sector_ms || write_settle_ms || bus || read_reconnect ||
           write_reconnect || prefetch;
  }
};

// Optional "actuators" key (any format): a multi-actuator drive (Seagate MACH.2). Each range of
// LBAs has its own positioner; commands in different ranges overlap in time. Empty: one
// positioner for the whole drive, exactly as before. See docs/simulator.md, "Dual actuator".
struct ActuatorRange {
  std::uint64_t first_lba = 0;
  std::uint64_t lba_count = 0;
};

// Optional "smr" key (any format): a drive-managed shingled drive. Writes that do not cover whole
// bands land in a persistent media cache (a log at the cylinders of cache_first_lba); when it is
// full each further write first forces the cleaning (read-modify-write) of the band with the
// oldest cached data; an idle drive cleans on its own. Unset (media_cache_bytes 0): a conventional
// drive, exactly as before. See docs/simulator.md, "Drive-managed SMR", and sim/smr.hpp.
struct SmrSpec {
  std::uint64_t media_cache_bytes = 0;  // 0: no SMR
  std::uint64_t cache_first_lba = 0;    // the head goes where these LBAs lie to use the cache
  std::uint64_t band_bytes = 0;         // bands: a static mapping, band i = [i·band, (i+1)·band)
  double idle_delay_ms = 1000;          // idle this long before the drive starts cleaning
  double idle_clean_mb_s = 0;           // band bytes cleaned per idle second (0: back to back)
  bool enabled() const { return media_cache_bytes > 0; }
};

// Optional "zoned" key (any format): a host-aware or host-managed zoned drive (ZBC / ZAC). The
// LBA space is cut into zones of zone_bytes from LBA 0 (the last one may be shorter); the first
// conventional_zones take writes anywhere, the others are sequential-write-preferred (host aware)
// or sequential-write-required (host managed) and keep a write pointer. Unset (model none): not
// zoned, exactly as before. See docs/simulator.md, "Zoned drives", and sim/zoned.hpp.
enum class ZonedModel : std::uint8_t { none, host_aware, host_managed };
std::string_view to_string(ZonedModel z);
struct ZonedSpec {
  ZonedModel model = ZonedModel::none;
  std::uint64_t zone_bytes = 0;
  std::uint64_t conventional_zones = 0;
  bool enabled() const { return model != ZonedModel::none; }
};

struct DiskModel {
  std::string name;
  Transport transport = Transport::ata;
  Identity identity;
  std::uint32_t logical_sector_bytes = 512;
  std::uint32_t physical_sector_bytes = 512;  // extension key; defaults to the logical size
  double rpm = 7200;
  std::uint32_t surfaces = 1;
  std::uint32_t platters = 1;
  std::vector<Zone> zones;  // outermost first
  std::optional<std::uint64_t> capacity_sectors;
  std::optional<std::uint32_t> track_skew_sectors;
  std::optional<std::uint32_t> cylinder_skew_sectors;
  SeekSpec seek;
  double head_switch_ms = 0;
  double write_settle_ms = 0;
  double command_overhead_ms = 0;
  double interface_mb_s = 150;  // MB = 10^6 bytes
  CacheSpec cache;
  QueueSpec queue;
  AamSpec aam;
  std::vector<DefectRegion> defects;
  NoiseSpec noise;
  // Format /2 (see docs/simulator.md); a /1 file leaves them at their defaults.
  int format_version = 1;
  std::optional<double> rpm_actual;  // the spindle's real speed; rpm stays the nominal one
  std::vector<RemappedLba> remapped;
  RecalibrationSpec recalibration;
  ControllerSpec controller;  // optional "controller" object (any format)
  FaultSpec faults;  // optional "faults" object: injected failures (sim/faults.hpp)
  std::vector<ActuatorRange> actuators;  // optional "actuators": ranges in LBA order, covering all
  SmrSpec smr;  // optional "smr": drive-managed shingled recording
  ZonedSpec zoned;  // optional "zoned": host-aware / host-managed zones (ZBC / ZAC)
  LayoutSpec layout_spec;  // /2 layout keys: serpentine, spares, slipped (sim/layout_spec.hpp)

  // User sectors: Σ cylinders × surfaces × sectors_per_track over the zones (/2: less spares and
  // slipped sectors, sim/layout_spec.hpp).
  std::uint64_t zone_sectors() const;
  // The user capacity: zone_sectors() cut to capacity_sectors when given.
  std::uint64_t capacity() const;
  std::uint32_t total_cylinders() const;
  // The speed the platters turn at: rpm_actual when given, else rpm.
  double spindle_rpm() const { return rpm_actual.value_or(rpm); }
};

// Parse and validate a model. Errors name the field, e.g.
// "zones[2].sectors_per_track: must be a positive integer".
Expected<DiskModel> parse_model(std::string_view json_text);
Expected<DiskModel> load_model_file(const std::string& path);
// The model back as JSON text (format drivescope-disk-model/1), e.g. to save a preset.
std::string model_to_json(const DiskModel& m);

}  // namespace ds::sim
