#include "report/charts.hpp"
#include "report/json_read.hpp"
#include "report/patterns_read.hpp"
#include "tests/result_keys.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/core.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <cstdio>

namespace ds::report {

using nlohmann::json;
namespace K = measure::key;

namespace {

// ---- small JSON accessors: a missing or non-numeric field is "absent", never an exception ----

// An array with at least one element, or nullptr: what a chart can draw from.
const json* filled_array(const json& j, const char* key) {
  const json* a = json_array(j, key);
  return a && !a->empty() ? a : nullptr;
}

const json* test(const json& doc, const char* name) {
  if (!doc.is_object() || !doc.contains(K::kDocumentKey) || !doc[K::kDocumentKey].is_object()) return nullptr;
  auto it = doc[K::kDocumentKey].find(name);
  return it != doc[K::kDocumentKey].end() && it->is_object() ? &*it : nullptr;
}

double sector_bytes(const json& doc) {
  if (doc.contains("identify") && doc["identify"].is_object())
    if (auto v = json_number(doc["identify"], "logical_sector_bytes"); v && *v >= 512) return *v;
  return 512;
}

// A string inside a double-quoted gnuplot string (titles carry model names: never trust them).
std::string q(std::string_view s) {
  std::string o = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') o += '\\';
    if (c == '\n' || c == '\r') { o += ' '; continue; }
    o += c;
  }
  return o + "\"";
}

// Common head of every script: the output format is chosen by the `fmt` variable so that one
// script makes both the SVG (default) and the PNG.
std::string preamble(const std::string& name, const std::string& title, const char* key = "top right",
                     int w = 960, int h = 560) {
  return fmt::format(
      "# drivescope chart: {title}\n"
      "# Data: {name}.dat (columns described in its header).\n"
      "# Render: gnuplot {name}.gp   (SVG)   or   gnuplot -e \"fmt='png'\" {name}.gp   (PNG)\n"
      "if (!exists(\"fmt\")) fmt = 'svg'\n"
      "if (fmt eq 'png') {{\n"
      "  set terminal pngcairo size {w},{h} enhanced font 'DejaVu Sans,11' background rgb 'white'\n"
      "  set output '{name}.png'\n"
      "}} else {{\n"
      "  set terminal svg size {w},{h} fixed enhanced font 'DejaVu Sans,11' background rgb 'white'\n"
      "  set output '{name}.svg'\n"
      "}}\n"
      "set title {qt} noenhanced font ',14'\n"
      "set border 3 lc rgb '#555555'\n"
      "set tics nomirror\n"
      "set grid xtics ytics lc rgb '#dddddd' lt 1\n"
      "set key inside {key} opaque box lc rgb '#bbbbbb' noenhanced spacing 1.1 width 1\n",
      fmt::arg("title", title), fmt::arg("name", name), fmt::arg("w", w), fmt::arg("h", h),
      fmt::arg("qt", q(title)), fmt::arg("key", key));
}

std::string with_label(const std::string& what, const std::string& label) {
  return label.empty() ? what : what + " — " + label;
}

// ---- the charts ----

ChartSource transfer_chart(const json& t, double sb, const std::string& name, const std::string& label) {
  ChartSource c{name, "transfer", with_label("Sequential transfer rate by position", label), "", ""};
  std::string pts = "# index 0: samples: position_gb mb_s\n", anom = "# index 2: anomalous samples\n";
  std::size_t n_anom = 0;
  for (const auto& p : *filled_array(t, K::transfer::points)) {
    auto lba = json_number(p, K::transfer_point::lba), mb = json_number(p, K::transfer_point::mb_s);
    if (!lba || !mb) continue;
    auto line = fmt::format("{:.4f} {:.3f}\n", *lba * sb / 1e9, *mb);
    pts += line;
    if (p.value(K::transfer_point::anomalous, false)) { anom += line; ++n_anom; }
  }
  std::string zones = "# index 1: detected zones as segments: position_gb mb_s\n";
  std::size_t n_zones = 0;
  if (const json* z = filled_array(t, K::transfer::zones))
    for (const auto& zj : *z) {
      auto f = json_number(zj, K::zone::first_lba), l = json_number(zj, K::zone::last_lba), mb = json_number(zj, K::zone::mb_s);
      if (!f || !l || !mb) continue;
      zones += fmt::format("{:.4f} {:.3f}\n{:.4f} {:.3f}\n\n", *f * sb / 1e9, *mb, (*l + 1) * sb / 1e9, *mb);
      ++n_zones;
    }
  c.data = "# drivescope: transfer rate by position (MB = 10^6 bytes)\n" + pts + "\n\n" + zones +
           (n_zones ? "" : "0 NaN\n") + "\n\n" + anom + (n_anom ? "" : "0 NaN\n");
  std::string s = preamble(name, c.title);
  s += "set xlabel 'Position (GB from the outer edge, LBA 0)'\nset ylabel 'Transfer rate (MB/s)'\n"
       "set yrange [0:*]\nset xrange [0:*]\n";
  std::string plot = "plot '" + name + ".dat'";
  if (n_zones)
    plot += fmt::format(" index 1 using 1:2 with lines lw 7 lc rgb '#f5c77e' title 'detected zones ({})', ''", n_zones);
  plot += " index 0 using 1:2 with linespoints lw 1.2 pt 7 ps 0.5 lc rgb '#1f5fa8' title 'measured rate'";
  if (n_anom) plot += ", '' index 2 using 1:2 with points pt 6 ps 1.4 lc rgb '#c0392b' title 'anomalous sample'";
  auto outer = json_number(t, K::transfer::outer_mb_s), inner = json_number(t, K::transfer::inner_mb_s),
       ratio = json_number(t, K::transfer::outer_inner_ratio);
  if (outer && inner)
    s += fmt::format("set label 1 {} at graph 0.98, graph 0.06 right font ',10' tc rgb '#444444'\n",
                     q(fmt::format("outer {:.1f} MB/s, inner {:.1f} MB/s{}", *outer, *inner,
                                   ratio ? fmt::format(", ratio {:.2f}", *ratio) : std::string())));
  c.script = s + plot + "\n";
  return c;
}

// The per-read samples of the access sweep (tests.access.reads: parallel `lba` and `ms` arrays),
// empty when the document is older and has none.
std::vector<std::pair<double, double>> access_reads(const json& a) {
  std::vector<std::pair<double, double>> out;
  if (!a.contains(K::access::reads) || !a[K::access::reads].is_object()) return out;
  const json& r = a[K::access::reads];
  const json* lba = filled_array(r, K::reads::lba);
  const json* ms = filled_array(r, K::reads::ms);
  if (!lba || !ms) return out;
  for (std::size_t i = 0; i < std::min(lba->size(), ms->size()); ++i)
    if ((*lba)[i].is_number() && (*ms)[i].is_number()) {
      double l = (*lba)[i].get<double>(), m = (*ms)[i].get<double>();
      if (std::isfinite(l) && std::isfinite(m)) out.emplace_back(l, m);
    }
  return out;
}

// Slow regions shaded across the whole height, so they stand out even when narrow.
std::string slow_region_objects(const json& a, double sb) {
  std::string s;
  int obj = 1;
  if (const json* sr = filled_array(a, K::access::slow_regions))
    for (const auto& r : *sr) {
      auto f = json_number(r, K::slow_region::first_lba), l = json_number(r, K::slow_region::last_lba);
      if (!f || !l) continue;
      s += fmt::format("set object {} rect from {:.4f}, graph 0 to {:.4f}, graph 1 behind fc rgb '#f6caca' fs solid 0.6 noborder\n",
                       obj++, *f * sb / 1e9, (*l + 1) * sb / 1e9);
    }
  return s;
}

bool in_slow_region(const json& a, double lba) {
  if (const json* sr = filled_array(a, K::access::slow_regions))
    for (const auto& r : *sr) {
      auto f = json_number(r, K::slow_region::first_lba), l = json_number(r, K::slow_region::last_lba);
      if (f && l && *f <= lba && lba <= *l) return true;
    }
  return false;
}

ChartSource access_map_chart(const json& a, double sb, const std::string& name, const std::string& label) {
  const auto reads = access_reads(a);
  ChartSource c{name, "access_map",
                with_label(reads.empty() ? "Random read access time by position (region means)"
                                         : "Random read access time by position",
                           label),
                "", ""};
  const std::optional<double> thr = json_number(a, K::access::slow_threshold_ms);
  // index 0: reads (or region means when there are no reads); index 1: slow ones; index 2: the
  // region means as a line over the reads.
  std::string normal, slow, regions = "# index 2: region means: position_gb(mid) mean_ms samples\n";
  std::size_t n_slow = 0, n_regions = 0;
  if (const json* map = filled_array(a, K::access::map))
    for (const auto& m : *map) {
      namespace M = K::map_region;
      auto f = json_number(m, M::first_lba), l = json_number(m, M::last_lba), ms = json_number(m, M::mean_ms);
      if (!f || !l || !ms || json_number(m, M::samples).value_or(1) <= 0) continue;
      auto line = fmt::format("{:.4f} {:.4f} {}\n", (*f + *l + 1) / 2 * sb / 1e9, *ms, json_number(m, M::samples).value_or(0));
      regions += line;
      ++n_regions;
      if (reads.empty()) {
        if (m.value(M::slow, false)) { slow += line; ++n_slow; }
        else normal += line;
      }
    }
  for (auto [lba, ms] : reads) {
    auto line = fmt::format("{:.4f} {:.4f}\n", lba * sb / 1e9, ms);
    // A read is slow when it is beyond the test's own threshold or lies in a located slow region.
    if ((thr && ms > *thr) || in_slow_region(a, lba)) { slow += line; ++n_slow; }
    else normal += line;
  }
  c.data = std::string("# drivescope: access time by position\n") +
           (reads.empty() ? "# index 0: regions: position_gb(mid) mean_ms samples\n" : "# index 0: reads: position_gb access_ms\n") +
           normal + (normal.empty() ? "0 NaN\n" : "") + "\n\n# index 1: slow " + (reads.empty() ? "regions\n" : "reads\n") + slow +
           (n_slow ? "" : "0 NaN\n") + "\n\n" + regions + (n_regions ? "" : "0 NaN\n");
  std::string s = preamble(name, c.title, "top right");
  // The reads fill the whole plot: the key goes above it rather than over them.
  s += "set key tmargin center horizontal maxrows 3 width -2 samplen 2 spacing 1\n";
  s += "set xlabel 'Position (GB from LBA 0)'\nset ylabel '" +
       std::string(reads.empty() ? "Mean access time of the region (ms)" : "Access time of the read (ms)") +
       "'\nset yrange [0:*]\nset xrange [0:*]\n" + slow_region_objects(a, sb);
  std::string plot;
  if (reads.empty()) {
    plot = "plot '" + name + ".dat' index 0 using 1:2 with points pt 7 ps 0.8 lc rgb '#1f5fa8' title 'region mean'";
    if (n_slow) plot += ", '' index 1 using 1:2 with points pt 9 ps 1.4 lc rgb '#c0392b' title 'slow region'";
  } else {
    // Slow reads can be ten times the normal ones; a log scale keeps the normal band readable.
    std::vector<double> v;
    for (auto [l, ms] : reads) v.push_back(ms);
    std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
    const double med = v[v.size() / 2], mx = *std::max_element(v.begin(), v.end());
    if (n_slow && med > 0 && mx > 4 * med) s += "set logscale y 10\nset yrange [*:*]\nset format y '%g'\n";
    plot = "plot '" + name + fmt::format(".dat' index 0 using 1:2 with points pt 7 ps 0.35 lc rgb '#1f5fa8' title 'read ({})'",
                                         reads.size() - n_slow);
    if (n_slow)
      plot += fmt::format(", '' index 1 using 1:2 with points pt 9 ps 0.9 lc rgb '#c0392b' title 'slow read ({}){}'", n_slow,
                          thr ? fmt::format(", over {:.0f} ms or in a slow region", *thr) : std::string());
    if (n_regions)
      plot += ", '' index 2 using 1:2 with lines lw 2 lc rgb '#e08a00' title 'mean of each region'";
  }
  if (filled_array(a, K::access::slow_regions))
    plot += ", NaN with boxes fs solid 0.6 fc rgb '#f6caca' title 'located slow region'";
  // The axis ends where the span ends, not at gnuplot's next round number.
  if (const json* map = filled_array(a, K::access::map))
    if (auto l = json_number(map->back(), K::map_region::last_lba)) s += fmt::format("set xrange [0:{:.4f}]\n", (*l + 1) * sb / 1e9);
  if (auto mean = json_number(a.value(K::access::read, json::object()), K::latency::mean_ms))
    plot += fmt::format(", {:.4f} with lines dt 2 lw 1.5 lc rgb '#2e8b57' title 'mean over the span ({:.2f} ms)'", *mean, *mean);
  c.script = s + plot + "\n";
  return c;
}

// The distribution of access times: from the per-read samples when the document has them (slow
// reads in red, the rest in blue), else from the per-region means weighted by their reads (the
// title says which).
ChartSource access_hist_chart(const json& a, const std::string& name, const std::string& label) {
  std::string d = "# drivescope: access time distribution: low_ms high_ms share_pct slow_share_pct\n";
  const auto reads = access_reads(a);
  const std::optional<double> thr = json_number(a, K::access::slow_threshold_ms);
  const bool individual = !reads.empty();
  std::vector<std::pair<double, double>> values;  // (ms, weight)
  std::vector<bool> slow_flag;
  if (individual) {
    for (auto [lba, ms] : reads) {
      values.emplace_back(ms, 1.0);
      slow_flag.push_back((thr && ms > *thr) || in_slow_region(a, lba));
    }
  } else if (const json* map = filled_array(a, K::access::map)) {
    for (const auto& m : *map) {
      auto ms = json_number(m, K::map_region::mean_ms);
      double w = json_number(m, K::map_region::samples).value_or(1);
      if (!ms || w <= 0) continue;
      values.emplace_back(*ms, w);
      slow_flag.push_back(m.value(K::map_region::slow, false));
    }
  }
  std::size_t n_slow_reads = 0;
  double top = 0, total = 0, ymax = 0;
  if (!values.empty()) {
    std::vector<double> sorted;
    for (auto [v, w] : values) sorted.push_back(v), total += w;
    std::sort(sorted.begin(), sorted.end());
    // Bins span 0 … the 99.5th percentile (a few very slow reads would squash the rest into one
    // bar); what lies beyond is counted in the last bin, which the chart labels as "and over".
    const double hi = sorted[std::min(sorted.size() - 1, static_cast<std::size_t>(0.995 * sorted.size()))];
    const int nb = 40;
    const double width = std::max(hi * 1.02 / nb, 0.01);
    std::vector<double> share(nb + 1, 0), slow_share(nb + 1, 0);
    for (std::size_t i = 0; i < values.size(); ++i) {
      auto [v, w] = values[i];
      int b = std::min<int>(nb, static_cast<int>(std::max(0.0, v) / width));
      (slow_flag[i] ? slow_share : share)[b] += w;
      n_slow_reads += slow_flag[i] ? static_cast<std::size_t>(w) : 0;
    }
    for (int i = 0; i <= nb; ++i)
      if (share[i] + slow_share[i] > 0)
        d += fmt::format("{:.4f} {:.4f} {:.4f} {:.4f}\n", i * width, (i + 1) * width, 100 * share[i] / total,
                         100 * slow_share[i] / total);
    top = (nb + 1) * width;
    for (int i = 0; i <= nb; ++i) ymax = std::max(ymax, 100 * (share[i] + slow_share[i]) / total);
    if (sorted.back() > nb * width) d += fmt::format("# the last bin holds every read from {:.3f} ms up to {:.3f} ms\n", nb * width, sorted.back());
  }
  ChartSource c{name, "access_histogram",
                with_label(individual ? fmt::format("Distribution of random read access time ({} reads)", reads.size())
                                      : "Distribution of access time over LBA regions (weighted by reads)",
                           label),
                d, ""};
  std::string s = preamble(name, c.title);
  s += "set key tmargin center horizontal maxrows 3 width -2 samplen 2 spacing 1\nset xlabel 'Access time (ms)'\nset ylabel 'Share of reads (%)'\n"
       "set style fill solid 0.75 noborder\n";
  // Headroom above the tallest bar for the median and percentile labels.
  s += ymax > 0 ? fmt::format("set yrange [0:{:.3f}]\n", ymax * 1.25) : std::string("set yrange [0:*]\n");
  std::string plot = "plot '" + name + ".dat' using (($1+$2)/2):($3+$4):($2-$1) with boxes lc rgb '#7fa7d6' title 'share of reads'";
  if (n_slow_reads)
    plot += fmt::format(", '' using (($1+$2)/2):4:($2-$1) with boxes lc rgb '#c0392b' title 'slow reads ({}{})'",
                        individual ? fmt::format("{}", n_slow_reads) : "regions",
                        thr ? fmt::format(", over {:.0f} ms or in a slow region", *thr) : std::string());
  const json read = a.value(K::access::read, json::object());
  // The percentile markers must be inside the plot even when they lie beyond the histogram.
  double xmax = top;
  if (auto p99 = json_number(read, K::latency::p99_ms)) xmax = std::max(xmax, *p99);
  if (xmax > 0) s += fmt::format("set xrange [0:{:.3f}]\n", xmax * 1.05);
  int arrow = 1;
  for (auto [key, colour, what] : {std::tuple{K::latency::p50_ms, "#2e8b57", "median"}, {K::latency::p99_ms, "#c0392b", "99th percentile"}})
    if (auto v = json_number(read, key)) {
      s += fmt::format("set arrow {} from {:.4f}, graph 0 to {:.4f}, graph 1 nohead front dt 2 lw 1.5 lc rgb '{}'\n", arrow, *v, *v, colour);
      s += fmt::format("set label {} {} at {:.4f}, graph {} right front offset -0.5,0 font ',10' tc rgb '{}'\n", arrow,
                       q(fmt::format("{} {:.2f} ms", what, *v)), *v, arrow == 1 ? "0.95" : "0.88", colour);
      ++arrow;
    }
  c.script = s + plot + "\n";
  return c;
}

ChartSource seek_chart(const json& a, double sb, const std::string& name, const std::string& label) {
  ChartSource c{name, "seek_curve", with_label("Seek time by distance", label), "", ""};
  c.data = "# drivescope: seek curve: distance_gb(max of the bin) seek_ms samples\n";
  double xmin = 0, xmax = 0, ymax = 0;
  for (const auto& b : *filled_array(a, K::access::seek_curve)) {
    auto d = json_number(b, K::seek_bin::max_distance_sectors), ms = json_number(b, K::seek_bin::seek_ms);
    if (!d || !ms) continue;
    const double gb = *d * sb / 1e9;
    c.data += fmt::format("{:.5f} {:.4f} {}\n", gb, *ms, json_number(b, K::seek_bin::samples).value_or(0));
    if (gb > 0) xmin = xmin > 0 ? std::min(xmin, gb) : gb, xmax = std::max(xmax, gb);
    ymax = std::max(ymax, *ms);
  }
  if (auto v = json_number(a, K::access::full_stroke_ms)) ymax = std::max(ymax, *v);
  // The curve can cross any corner (short seeks are noisy): the key goes above the plot.
  std::string s = preamble(name, c.title);
  s += "set key tmargin center horizontal maxrows 2 width -2 samplen 2 spacing 1\n";
  s += "set xlabel 'Seek distance (GB of LBA space, log scale; upper end of each distance bin)'\nset ylabel 'Seek time (ms)'\n"
       "set logscale x 10\nset format x '%g'\n";
  // Room above the full-stroke line, and the distance axis ending near the largest bin.
  s += ymax > 0 ? fmt::format("set yrange [0:{:.3f}]\n", ymax * 1.12) : std::string("set yrange [0:*]\n");
  if (xmax > xmin && xmin > 0) s += fmt::format("set xrange [{:.5f}:{:.5f}]\n", xmin / 1.5, xmax * 1.5);
  std::string plot = "plot '" + name + ".dat' using 1:2 with linespoints lw 2 pt 7 ps 0.6 lc rgb '#1f5fa8' title 'seek time (access minus rotation and overhead)'";
  if (auto v = json_number(a, K::access::avg_seek_ms))
    plot += fmt::format(", {:.4f} with lines dt 2 lc rgb '#2e8b57' title 'average seek {:.2f} ms'", *v, *v);
  if (auto v = json_number(a, K::access::full_stroke_ms))
    plot += fmt::format(", {:.4f} with lines dt 3 lc rgb '#c0392b' title 'full stroke {:.2f} ms'", *v, *v);
  if (auto v = json_number(a, K::access::track_to_track_ms))
    s += fmt::format("set label 1 {} at graph 0.02, graph 0.06 font ',10' tc rgb '#444444'\n",
                     q(fmt::format("track to track {:.2f} ms", *v)));
  c.script = s + plot + "\n";
  return c;
}

// Queue test: per-depth histograms (different bucket layouts per depth) are re-binned onto one
// log grid of 4 bins per octave so depths can be drawn side by side as a surface or a heat map.
struct QueueGrid {
  std::vector<unsigned> depths;
  std::vector<double> edges;                 // bin edges in ms
  std::vector<std::vector<double>> share;    // [depth][bin] percent
};

std::optional<QueueGrid> queue_grid(const json& qt) {
  QueueGrid g;
  double lo = 1e300, hi = 0;
  for (const auto& d : *filled_array(qt, K::queue::depths))
    if (const json* h = filled_array(d, K::queue_depth::histogram))
      for (const auto& b : *h)
        if (auto l = json_number(b, K::histogram_bucket::lower_ms), u = json_number(b, K::histogram_bucket::upper_ms); l && u && *u > 0)
          lo = std::min(lo, std::max(*l, 1e-3)), hi = std::max(hi, *u);
  if (!(hi > 0)) return std::nullopt;
  const double per_octave = 4;
  double k0 = std::floor(std::log2(lo) * per_octave), k1 = std::ceil(std::log2(hi) * per_octave);
  for (double k = k0; k <= k1; ++k) g.edges.push_back(std::exp2(k / per_octave));
  for (const auto& d : *filled_array(qt, K::queue::depths)) {
    auto depth = json_number(d, K::queue_depth::depth);
    const json* h = filled_array(d, K::queue_depth::histogram);
    if (!depth || !h) continue;
    std::vector<double> s(g.edges.size() - 1, 0);
    double total = 0;
    for (const auto& b : *h) {
      auto l = json_number(b, K::histogram_bucket::lower_ms), u = json_number(b, K::histogram_bucket::upper_ms),
           n = json_number(b, K::histogram_bucket::count);
      if (!l || !u || !n) continue;
      double mid = std::sqrt(std::max(*l, 1e-3) * *u);
      auto it = std::upper_bound(g.edges.begin(), g.edges.end(), mid);
      std::size_t i = std::clamp<std::ptrdiff_t>(it - g.edges.begin() - 1, 0, s.size() - 1);
      s[i] += *n, total += *n;
    }
    if (total <= 0) continue;
    for (auto& v : s) v = 100 * v / total;
    g.depths.push_back(static_cast<unsigned>(*depth));
    g.share.push_back(std::move(s));
  }
  if (g.depths.empty()) return std::nullopt;
  return g;
}

std::string depth_tics(const QueueGrid& g) {
  std::string t = "set xtics (";
  for (std::size_t i = 0; i < g.depths.size(); ++i) t += fmt::format("{}\"{}\" {}", i ? ", " : "", g.depths[i], i);
  return t + ")\n";
}

ChartSource queue_heatmap_chart(const QueueGrid& g, const std::string& name, const std::string& label) {
  ChartSource c{name, "queue_heatmap", with_label("Read latency distribution by outstanding requests", label), "", ""};
  c.data = "# drivescope: queue test: depth_index depth lat_low_ms lat_high_ms lat_mid_ms share_pct\n";
  for (std::size_t i = 0; i < g.depths.size(); ++i)
    for (std::size_t b = 0; b + 1 < g.edges.size(); ++b)
      c.data += fmt::format("{} {} {:.5f} {:.5f} {:.5f} {:.4f}\n", i, g.depths[i], g.edges[b], g.edges[b + 1],
                            std::sqrt(g.edges[b] * g.edges[b + 1]), g.share[i][b]);
  std::string s = preamble(name, c.title, "top right", 960, 600);
  s += "set xlabel 'Outstanding requests (queue depth)'\nset ylabel 'Access time (ms, log scale)'\n"
       "set logscale y\nset cblabel 'Share of requests (%)'\nset cbrange [0:*]\n"
       "set palette defined (0 'white', 1 '#c6dbef', 10 '#4292c6', 30 '#08519c', 60 '#08306b', 100 '#000000')\n"
       "set key off\nset grid noxtics\n";
  s += depth_tics(g);
  s += fmt::format("set xrange [-0.5:{}.5]\n", g.depths.size() - 1);
  c.script = s + "plot '" + name + ".dat' using 1:5:($1-0.5):($1+0.5):3:4:6 with boxxyerror fs solid 1.0 noborder lc palette notitle\n";
  return c;
}

ChartSource queue_surface_chart(const QueueGrid& g, const std::string& name, const std::string& label) {
  ChartSource c{name, "queue_surface", with_label("Access time against outstanding requests (3-D)", label), "", ""};
  c.data = "# drivescope: queue test surface: depth_index log10(lat_mid_ms) share_pct depth lat_mid_ms\n"
           "# one block per depth, blank line between blocks (gnuplot grid for pm3d)\n";
  for (std::size_t i = 0; i < g.depths.size(); ++i) {
    for (std::size_t b = 0; b + 1 < g.edges.size(); ++b) {
      double mid = std::sqrt(g.edges[b] * g.edges[b + 1]);
      c.data += fmt::format("{} {:.5f} {:.4f} {} {:.5f}\n", i, std::log10(mid), g.share[i][b], g.depths[i], mid);
    }
    c.data += "\n";
  }
  std::string s = preamble(name, c.title, "top right", 960, 640);
  // Latency ticks at decades, written in ms (the y axis holds log10 of the bucket's midpoint).
  double ylo = std::log10(g.edges.front()), yhi = std::log10(g.edges.back());
  std::string yt = "set ytics (";
  bool first = true;
  for (double e : {0.01, 0.1, 1.0, 10.0, 100.0, 1000.0, 10000.0})
    if (std::log10(e) >= ylo - 1e-9 && std::log10(e) <= yhi + 1e-9) {
      yt += fmt::format("{}\"{:g}\" {:.4f}", first ? "" : ", ", e, std::log10(e));
      first = false;
    }
  yt += ")\n";
  s += "set xlabel 'Queue depth' offset 0,-1\nset ylabel 'Access time (ms)' offset 2,0\nset zlabel 'Share (%)' rotate by 90\n"
       "set view 62, 38\nset ticslevel 0\nset pm3d depthorder border lc rgb '#3a3a3a' lw 0.3\n"
       "set palette defined (0 '#f7fbff', 10 '#6baed6', 30 '#2171b5', 60 '#08306b', 100 '#000000')\n"
       "set cblabel 'Share of requests (%)'\nset key off\nset grid xtics ytics ztics lc rgb '#dddddd'\nset border 4095 lc rgb '#888888'\n";
  s += depth_tics(g);
  if (!first) s += yt;
  c.script = s + "splot '" + name + ".dat' using 1:2:3 with pm3d notitle\n";
  return c;
}

ChartSource queue_iops_chart(const json& qt, const std::string& name, const std::string& label) {
  ChartSource c{name, "queue_iops", with_label("Random reads: IOPS and latency by queue depth", label), "", ""};
  c.data = "# drivescope: queue test: depth iops mean_ms p99_ms\n";
  for (const auto& d : *filled_array(qt, K::queue::depths))
    if (auto depth = json_number(d, K::queue_depth::depth), iops = json_number(d, K::queue_depth::iops); depth && iops)
      c.data += fmt::format("{} {:.3f} {:.4f} {:.4f}\n", *depth, *iops, json_number(d, K::queue_depth::mean_ms).value_or(NAN),
                            json_number(d, K::queue_depth::p99_ms).value_or(NAN));
  std::string s = preamble(name, c.title, "top left");
  s += "set xlabel 'Outstanding requests (queue depth, log scale)'\nset ylabel 'I/O per second' tc rgb '#1f5fa8'\n"
       "set y2label 'Latency (ms)' tc rgb '#c0392b'\nset logscale x 2\nset yrange [0:*]\nset y2range [0:*]\n"
       "set ytics nomirror\nset y2tics\nset border 11 lc rgb '#555555'\n";
  std::string verdict;
  if (qt.contains(K::queue::reorders) && qt[K::queue::reorders].is_boolean())
    verdict = qt[K::queue::reorders].get<bool>() ? "the drive reorders queued reads" : "no reordering: served in arrival order";
  else if (qt.contains(K::queue::reorders))
    verdict = "reordering inconclusive";
  if (!verdict.empty())
    s += fmt::format("set label 1 {} at graph 0.02, graph 0.94 font ',10' tc rgb '#444444'\n", q(verdict));
  c.script = s + "plot '" + name + ".dat' using 1:2 axes x1y1 with linespoints lw 2 pt 7 lc rgb '#1f5fa8' title 'IOPS',"
                 " '' using 1:3 axes x1y2 with linespoints lw 1.5 pt 5 lc rgb '#c0392b' title 'mean latency',"
                 " '' using 1:4 axes x1y2 with linespoints lw 1 dt 2 pt 4 lc rgb '#c0392b' title '99th percentile latency'\n";
  return c;
}

ChartSource blocksize_chart(const json& b, const std::string& name, const std::string& label) {
  auto qd = json_number(b, K::blocksize::queue_depth);
  ChartSource c{name, "blocksize",
                with_label(fmt::format("Sequential rate by block size{}", qd ? fmt::format(" (queue depth {:g})", *qd) : ""), label), "", ""};
  c.data = "# drivescope: block size test: block_bytes read_mb_s write_mb_s\n";
  bool any_write = false;
  double bmin = 0, bmax = 0;
  std::string tics = "set xtics (";
  bool first = true;
  for (const auto& r : *filled_array(b, K::blocksize::rows)) {
    auto bytes = json_number(r, K::blocksize_row::block_bytes), rd = json_number(r, K::blocksize_row::read_mb_s);
    if (!bytes || !rd) continue;
    auto wr = json_number(r, K::blocksize_row::write_mb_s);
    any_write |= wr.has_value();
    bmin = bmin > 0 ? std::min(bmin, *bytes) : *bytes, bmax = std::max(bmax, *bytes);
    c.data += fmt::format("{:g} {:.3f} {}\n", *bytes, *rd, wr ? fmt::format("{:.3f}", *wr) : "NaN");
    tics += fmt::format("{}\"{}\" {:g}", first ? "" : ", ", size_label(*bytes), *bytes);
    first = false;
  }
  std::string s = preamble(name, c.title, "bottom right");
  s += "set xlabel 'Block size (log scale)'\nset ylabel 'Transfer rate (MB/s)'\nset logscale x 2\nset yrange [0:*]\n" + tics + ")\n";
  if (bmax > 0) s += fmt::format("set xrange [{:g}:{:g}]\n", bmin / 1.3, bmax * 1.3);
  std::string plot = "plot '" + name + ".dat' using 1:2 with linespoints lw 2 pt 7 lc rgb '#1f5fa8' title 'sequential read'";
  if (any_write) plot += ", '' using 1:3 with linespoints lw 2 pt 5 lc rgb '#c0392b' title 'sequential write'";
  c.script = s + plot + "\n";
  return c;
}

// A/B: the difference of each figure (B relative to A) with its confidence interval.
ChartSource ab_chart(const json& results, const std::string& what, const std::string& name, const std::string& label) {
  ChartSource c{name, "ab", with_label("A/B: change of each figure, B against A" + what, label), "", ""};
  c.data = "# drivescope: A/B results: index diff_pct ci_low_pct ci_high_pct significant(0/1) \"test figure\"\n";
  int i = 0, n_sig = 0;
  std::string tics = "set xtics (", labels;
  for (const auto& r : results) {
    auto d = json_number(r, "diff_pct");
    if (!d) continue;
    std::string lbl = r.value("test", std::string()) + " " + r.value("figure", std::string());
    for (auto& ch : lbl) if (ch == '"' || ch == '\\') ch = '\'';
    const bool sig = r.value("significant", false);
    const double lo = json_number(r, "ci_low_pct").value_or(*d), hi = json_number(r, "ci_high_pct").value_or(*d);
    n_sig += sig;
    c.data += fmt::format("{} {:.4f} {:.4f} {:.4f} {} \"{}\"\n", i, *d, lo, hi, sig ? 1 : 0, lbl);
    tics += fmt::format("{}{} {}", i ? ", " : "", q(lbl), i);
    // The difference and its interval written beside the bar: the chart alone gives the verdict.
    labels += fmt::format("set label {} {} at {}, {:.4f} left offset 0.8,0 font ',9' tc rgb '{}'\n", i + 1,
                          q(fmt::format("{:+.1f} %", *d)), i, *d, sig ? "#c0392b" : "#555555");
    ++i;
  }
  std::string s = preamble(name, c.title, "top right", 960, 600);
  s += "set key tmargin center horizontal\n";
  s += "set ylabel 'Difference B - A (% of A), 95 % confidence interval'\nset xtics rotate by -35 left noenhanced\n" + tics +
       ")\n" + fmt::format("set xrange [-0.7:{}.7]\n", std::max(i - 1, 0)) +
       "set bmargin 9\nset grid noxtics\nset style fill solid 0.8\nset offsets 0, 0, graph 0.08, graph 0.08\n" + labels +
       fmt::format("set label {} {} at graph 0.01, graph 0.04 left font ',10' tc rgb '#444444'\n", i + 1,
                   q(fmt::format("{} of {} figure{} differ significantly (the 95 % interval excludes 0)", n_sig, i,
                                 i == 1 ? "" : "s")));
  c.script = s + "plot 0 with lines lc rgb '#555555' notitle, '" + name +
             ".dat' using 1:($5 == 1 ? $2 : 1/0):3:4 with yerrorbars pt 7 ps 1.2 lw 2 lc rgb '#c0392b' title 'significant',"
             " '' using 1:($5 == 1 ? 1/0 : $2):3:4 with yerrorbars pt 6 ps 1.2 lw 2 lc rgb '#7f7f7f' title 'not significant'\n";
  return c;
}

// Patterns (IOMeter-style): IOPS against depth, one line per pattern; the database pattern,
// measured at eleven write shares, is drawn at each share that has any measured cell among 0, 50
// and 100 % (all eleven would hide the other patterns). Skipped cells are left out.
std::vector<std::pair<std::string, std::vector<std::pair<double, double>>>> pattern_series(const json& p) {
  std::vector<std::pair<std::string, std::vector<std::pair<double, double>>>> out;
  const auto rows = pattern_rows(p);
  for (const auto& nm : pattern_names(rows)) {
    std::vector<double> shares{-1};
    if (nm == "database") shares = {0, 50, 100};
    for (double w : shares) {
      std::vector<std::pair<double, double>> pts;
      for (const auto& r : rows)
        if (r.pattern == nm && r.iops && (w < 0 || r.write_pct == w)) pts.emplace_back(r.depth, *r.iops);
      if (pts.empty()) continue;
      std::sort(pts.begin(), pts.end());
      out.emplace_back(w < 0 ? nm : fmt::format("{} ({:g} % writes)", nm, w), std::move(pts));
    }
  }
  return out;
}

ChartSource patterns_chart(const std::vector<std::pair<std::string, std::vector<std::pair<double, double>>>>& series,
                           const json& p, const std::string& name, const std::string& label) {
  ChartSource c{name, "patterns", with_label("IOMeter-style access patterns: I/O per second by queue depth", label), "", ""};
  c.data = "# drivescope: patterns: depth iops, one block per pattern (index order as in the legend)\n";
  std::string plot = "plot ";
  static const char* colours[] = {"#1f5fa8", "#c0392b", "#2e8b57", "#e08a00", "#6a3d9a", "#555555"};
  for (std::size_t i = 0; i < series.size(); ++i) {
    c.data += "# " + series[i].first + "\n";
    for (auto [d, io] : series[i].second) c.data += fmt::format("{:g} {:.3f}\n", d, io);
    c.data += "\n\n";
    plot += fmt::format("{}'{}' index {} using 1:2 with linespoints lw 2 pt 7 lc rgb '{}' title {}", i ? ", " : "",
                        i ? "" : name + ".dat", i, colours[i % 6], q(series[i].first));
  }
  std::string s = preamble(name, c.title, "top left", 1040, 560);
  s += "set key outside right top vertical\n"
       "set xlabel 'Outstanding I/Os (queue depth, log scale)'\nset ylabel 'Total I/O per second'\nset logscale x 2\n";
  // A cell far above the rest (writes into the drive's cache at depth 1) would flatten every other
  // line: a log scale then keeps them apart.
  std::vector<double> all;
  for (const auto& [nm, pts] : series)
    for (auto [d, io] : pts) all.push_back(io);
  std::sort(all.begin(), all.end());
  if (!all.empty() && all[all.size() / 2] > 0 && (all.back() > 5 * all[all.size() / 2] || all.front() < all[all.size() / 2] / 5))
    s += "set logscale y 10\nset format y '%g'\nset ylabel 'Total I/O per second (log scale)'\n";
  else
    s += "set yrange [0:*]\n";
  // The seed's summary figures under the title: the average over loads and the workstation rating.
  const auto rows = pattern_rows(p);
  std::vector<std::string> summary;
  for (const auto& nm : pattern_names(rows))
    if (nm != "database")
      if (auto v = pattern_average(p, rows, nm)) summary.push_back(fmt::format("{} average {:.1f} IOPS", nm, *v));
  if (auto v = workstation_rating_of(p, rows)) summary.push_back(fmt::format("workstation rating {:.1f}", *v));
  if (!summary.empty()) {
    std::string text;
    for (const auto& x : summary) text += (text.empty() ? "" : "; ") + x;
    s += fmt::format("set label 1 {} at screen 0.5, screen 0.03 center font ',10' tc rgb '#444444'\nset bmargin 5\n", q(text));
  }
  c.script = s + plot + "\n";
  return c;
}

}  // namespace

std::string size_label(double bytes) {
  if (bytes >= 1048576 && std::fmod(bytes, 1048576) == 0) return fmt::format("{:g} MiB", bytes / 1048576);
  if (bytes >= 1024 && std::fmod(bytes, 1024) == 0) return fmt::format("{:g} KiB", bytes / 1024);
  return fmt::format("{:g} B", bytes);
}

// Replay: the replayed and the trace's measured service-time CDFs (as `replay --json` gives them,
// at every whole percent), with DiskSim's demerit between them in the key.
ChartSource replay_chart(const json& r, const json* sim, const std::string& name, const std::string& label) {
  ChartSource c{name, "replay_cdf", with_label("Service time distribution: replayed and measured", label), "", ""};
  c.data = "# drivescope: replay CDFs: fraction replayed_ms measured_ms (NaN: the trace has none)\n";
  const json* real = r.contains("measured") ? filled_array(r["measured"], "cdf") : nullptr;
  for (std::size_t i = 0; i < sim->size(); ++i) {
    auto p = json_number((*sim)[i], "p"), ms = json_number((*sim)[i], "ms");
    auto m = real && i < real->size() ? json_number((*real)[i], "ms") : std::nullopt;
    if (p && ms) c.data += fmt::format("{:.2f} {:.4f} {}\n", *p, *ms, m ? fmt::format("{:.4f}", *m) : "NaN");
  }
  const auto dm = json_number(r, "demerit_ms");
  std::string plot = "plot '" + name + ".dat' using 2:1 with lines lw 2 lc rgb '#1f5fa8' title 'replayed'";
  if (real)
    plot += ", '' using 3:1 with lines lw 2 dt 2 lc rgb '#c0392b' title " +
            q(dm ? fmt::format("measured (demerit {:.3f} ms)", *dm) : std::string("measured"));
  c.script = preamble(name, c.title, "bottom right") +
             "set xlabel 'Service time (ms)'\nset ylabel 'Fraction of requests'\nset yrange [0:1]\n" + plot + "\n";
  return c;
}

const std::vector<std::string>& chart_kinds() {
  static const std::vector<std::string> k{"transfer",      "access_map",   "access_histogram", "seek_curve",
                                          "queue_heatmap", "queue_surface", "queue_iops",       "blocksize",
                                          "patterns",      "ab",         "replay_cdf"};
  return k;
}

std::vector<std::string> expected_chart_kinds(const nlohmann::json& doc) {
  std::vector<std::string> k;
  for (const auto& c : build_charts(doc, "", "")) k.push_back(c.kind);
  return k;
}

std::vector<ChartSource> build_charts(const nlohmann::json& doc, const std::string& prefix, const std::string& label) {
  std::vector<ChartSource> out;
  if (!doc.is_object()) return out;
  double sb = sector_bytes(doc);
  if (const json* t = test(doc, K::tests::transfer); t && filled_array(*t, K::transfer::points))
    out.push_back(transfer_chart(*t, sb, prefix + "transfer", label));
  if (const json* a = test(doc, K::tests::access)) {
    if (filled_array(*a, K::access::map) || !access_reads(*a).empty()) {
      out.push_back(access_map_chart(*a, sb, prefix + "access_map", label));
      out.push_back(access_hist_chart(*a, prefix + "access_histogram", label));
    }
    // Only bins whose reads resolve a seek have one (null otherwise): no such bin, no curve.
    if (const json* bins = filled_array(*a, K::access::seek_curve);
        bins && std::any_of(bins->begin(), bins->end(), [](const json& b) { return json_number(b, K::seek_bin::seek_ms).has_value(); }))
      out.push_back(seek_chart(*a, sb, prefix + "seek_curve", label));
  }
  if (const json* qt = test(doc, K::tests::queue); qt && filled_array(*qt, K::queue::depths)) {
    if (auto g = queue_grid(*qt)) {
      out.push_back(queue_heatmap_chart(*g, prefix + "queue_heatmap", label));
      out.push_back(queue_surface_chart(*g, prefix + "queue_surface", label));
    }
    out.push_back(queue_iops_chart(*qt, prefix + "queue_iops", label));
  }
  if (const json* b = test(doc, K::tests::blocksize); b && filled_array(*b, K::blocksize::rows))
    out.push_back(blocksize_chart(*b, prefix + "blocksize", label));
  if (const json* p = test(doc, K::tests::patterns)) {
    auto series = pattern_series(*p);
    if (!series.empty()) out.push_back(patterns_chart(series, *p, prefix + "patterns", label));
  }
  if (doc.contains("ab") && doc["ab"].is_object())
    if (const json* r = filled_array(doc["ab"], "results")) {
      std::string what;
      if (doc["ab"].contains("feature") && doc["ab"]["feature"].is_string())
        what = " (" + doc["ab"]["feature"].get<std::string>() + ")";
      out.push_back(ab_chart(*r, what, prefix + "ab", label));
    }
  if (doc.contains("replay") && doc["replay"].contains("summary"))
    if (const json* sim = filled_array(doc["replay"]["summary"], "cdf"))
      out.push_back(replay_chart(doc["replay"], sim, prefix + "replay_cdf", label));
  return out;
}

}  // namespace ds::report
