#include "probe/scsi_probe.hpp"

#include <algorithm>
#include <array>
#include <cstdio>

#include "drivescope/commands.hpp"

namespace ds::probe {

namespace {

std::string vpd_step_name(std::uint8_t page) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "INQUIRY VPD 0x%02x", page);
  return buf;
}

// The bytes actually transferred: the buffer less the residual the transport reported.
std::size_t transferred(const CommandResult& r, std::size_t asked) {
  if (r.residual > 0 && static_cast<std::size_t>(r.residual) <= asked) return asked - r.residual;
  return asked;
}

class Prober {
 public:
  explicit Prober(Device& dev) : dev_(dev) {}
  ScsiProbe p;

  // Runs a command; records the step; gives the data when it worked.
  template <class Fn>
  std::optional<std::vector<std::uint8_t>> run(const std::string& name, std::size_t len, Fn&& fn) {
    std::vector<std::uint8_t> buf(len, 0);
    CommandResult r = fn(std::span<std::uint8_t>(buf));
    ScsiProbeStep s;
    s.command = name;
    s.outcome = r.outcome;
    if (!r.ok()) {
      s.message = r.message.empty() ? std::string(to_string(r.outcome)) : r.message;
      s.sense = r.sense;
      p.steps.push_back(std::move(s));
      return std::nullopt;
    }
    buf.resize(transferred(r, len));
    p.steps.push_back(std::move(s));
    p.raw[name] = buf;
    return buf;
  }

  void decode_failed(const Error& e) { p.steps.back().decode_error = e.message; }

  // A VPD page, asked again with the full length when the first answer says it is longer
  // (the ATA Information page is 572 bytes; most others fit in 252).
  std::optional<std::vector<std::uint8_t>> vpd(std::uint8_t page) {
    const std::string name = vpd_step_name(page);
    auto ask = [&](std::size_t len) {
      return run(name, len, [&](std::span<std::uint8_t> b) { return scsi::inquiry_vpd(dev_, page, b); });
    };
    auto d = ask(252);
    if (d && d->size() >= 4) {
      const std::size_t want = 4 + ((std::size_t{(*d)[2]} << 8) | (*d)[3]);
      if (want > d->size() && d->size() == 252) {
        p.steps.pop_back();  // keep only the full read in the record
        d = ask(std::min<std::size_t>(want, 0xFFFF));
      }
    }
    return d;
  }

  // A VPD page decoded into slot, asked for only when the device lists it: some USB bridges
  // hang on an unknown VPD page.
  template <class Slot, class Decode>
  void listed_vpd(std::uint8_t page, Slot& slot, Decode&& decode) {
    if (!p.page_supported(page)) return;
    if (auto d = vpd(page)) {
      if (auto s = decode(*d)) slot = std::move(*s);
      else decode_failed(s.error());
    }
  }

  Device& dev_;
};

// Standard INQUIRY, then the VPD pages the device lists.
void identity_pages(Prober& pr, Device& dev) {
  auto& p = pr.p;
  // 96 bytes covers the version descriptors (SPC-4 6.6.2) and is safe for old devices, which
  // must accept any allocation length.
  if (auto d = pr.run("INQUIRY", 96, [&](std::span<std::uint8_t> b) { return scsi::inquiry(dev, b); })) {
    if (auto q = scsi::decode_standard_inquiry(*d)) p.inquiry = std::move(*q);
    else pr.decode_failed(q.error());
  }

  if (auto d = pr.vpd(0x00)) {
    if (auto s = scsi::decode_supported_vpd_pages(*d)) p.supported_vpd_pages = std::move(*s);
    else pr.decode_failed(s.error());
  }
  pr.listed_vpd(0x80, p.serial, scsi::decode_unit_serial);
  pr.listed_vpd(0x83, p.device_id, scsi::decode_device_identification);
  pr.listed_vpd(0x89, p.ata_info, scsi::decode_ata_information);
  pr.listed_vpd(0xB0, p.block_limits, scsi::decode_block_limits);
  pr.listed_vpd(0xB1, p.block_characteristics, scsi::decode_block_characteristics);
  pr.listed_vpd(0xB9, p.positioning_ranges, decode_cpr_vpd);
}

void read_capacity(Prober& pr, Device& dev) {
  auto& p = pr.p;
  // READ CAPACITY(16) first: (10) cannot express more than 2^32 blocks nor the physical block
  // exponent. Devices that predate SBC-2 reject it; then (10).
  if (auto d = pr.run("READ CAPACITY(16)", 32, [&](std::span<std::uint8_t> b) {
        return scsi::read_capacity16(dev, b.first<32>());
      })) {
    if (auto c = scsi::decode_read_capacity16(*d)) p.capacity = *c;
    else pr.decode_failed(c.error());
  }
  if (!p.capacity) {
    if (auto d = pr.run("READ CAPACITY(10)", 8, [&](std::span<std::uint8_t> b) {
          return scsi::read_capacity10(dev, b.first<8>());
        })) {
      if (auto c = scsi::decode_read_capacity10(*d)) p.capacity = *c;
      else pr.decode_failed(c.error());
    }
  }
}

// The caching mode page, by MODE SENSE(10) or, from a device that rejects it, (6).
void caching_page(Prober& pr, Device& dev) {
  auto& p = pr.p;
  if (auto d = pr.run("MODE SENSE(10) 0x08", 252, [&](std::span<std::uint8_t> b) {
        return scsi::mode_sense10(dev, 0x08, 0, b);
      })) {
    if (auto c = scsi::decode_mode_sense_caching(*d, true)) p.caching = *c;
    else pr.decode_failed(c.error());
  } else if (auto d6 = pr.run("MODE SENSE(6) 0x08", 252, [&](std::span<std::uint8_t> b) {
               return scsi::mode_sense6(dev, 0x08, 0, b);
             })) {
    if (auto c = scsi::decode_mode_sense_caching(*d6, false)) p.caching = *c;
    else pr.decode_failed(c.error());
  }
}

// The zones of a zoned device (host-managed by its device type, host-aware by VPD 0xB1).
void zone_report(Prober& pr, Device& dev) {
  auto& p = pr.p;
  const bool host_managed = p.inquiry && p.inquiry->device_type == 0x14;
  const bool host_aware = p.block_characteristics && p.block_characteristics->zoned == 1;
  if (!host_managed && !host_aware) return;
  // The first reply is the probe's step (and its raw page); the rest of the list follows in
  // replies of the same size from where the last one ended (read_zone_list).
  auto first = pr.run("REPORT ZONES", kZoneReplyBytes, [&](std::span<std::uint8_t> b) {
    return scsi::report_zones(dev, 0, b);
  });
  if (!first) return;
  auto fetch = [&](std::uint64_t lba) -> Expected<std::vector<std::uint8_t>> {
    if (lba == 0) return *first;
    std::vector<std::uint8_t> buf(kZoneReplyBytes, 0);
    const CommandResult r = scsi::report_zones(dev, lba, buf);
    if (!r.ok()) return make_error(r.message.empty() ? std::string(to_string(r.outcome)) : r.message);
    buf.resize(transferred(r, buf.size()));
    return buf;
  };
  if (auto z = read_zone_list(fetch, ZoneByteOrder::kZbcBigEndian, kMaxZoneReplies)) p.zones = std::move(*z);
  else pr.decode_failed(z.error());
}

}  // namespace

bool ScsiProbe::any_failed() const {
  return std::any_of(steps.begin(), steps.end(), [](const ScsiProbeStep& s) { return !s.ok(); });
}

bool ScsiProbe::page_supported(std::uint8_t page) const {
  return std::find(supported_vpd_pages.begin(), supported_vpd_pages.end(), page) !=
         supported_vpd_pages.end();
}

Expected<ScsiProbe> probe_scsi(Device& dev) {
  Prober pr(dev);
  auto& p = pr.p;
  identity_pages(pr, dev);
  read_capacity(pr, dev);
  caching_page(pr, dev);
  zone_report(pr, dev);

  const bool anything = std::any_of(p.steps.begin(), p.steps.end(),
                                    [](const ScsiProbeStep& s) { return s.outcome == Outcome::good; });
  if (!anything) {
    std::string why = p.steps.empty() ? std::string("no command sent") : p.steps.front().message;
    return make_error(dev.info().name + ": no SCSI command succeeded (" + why + ")");
  }
  return p;
}

}  // namespace ds::probe
