// The access test's QD1 reads (access_io.hpp).
#include "tests/access_io.hpp"

#include "tests/runner.hpp"

namespace ds::measure::access_detail {

std::vector<double> qd1(Ctx& c, const std::vector<std::uint64_t>& lbas, bool write,
                        std::vector<std::int64_t>* complete_ns, bool since_previous) {
  std::vector<PlanEntry> plan;
  plan.reserve(lbas.size());
  for (auto l : lbas) plan.push_back({l, 1, write});
  RunOptions ro;
  ro.queue_depth = 1;
  RunResult r = run_plan(c.io, plan, ro, c.budget);
  if (failed(r.stop) && !c.err) c.err = r.error;
  c.spent = c.spent || r.stop == StopReason::budget_spent;
  std::vector<double> out(lbas.size(), -1);
  if (complete_ns) complete_ns->assign(lbas.size(), 0);
  for (std::size_t i = 0; i < lbas.size(); ++i)
    if (r.done[i]) {
      const bool chained = since_previous && i > 0 && r.done[i - 1];
      out[i] = static_cast<double>(r.samples[i].complete_ns -
                                   (chained ? r.samples[i - 1].complete_ns : r.samples[i].submit_ns));
      if (complete_ns) (*complete_ns)[i] = r.samples[i].complete_ns;
      c.last_lba = lbas[i];
    }
  return out;
}

}  // namespace ds::measure::access_detail
