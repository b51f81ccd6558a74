#include "tests/withheld.hpp"

#include <algorithm>

namespace ds::measure {

const char* withheld_reason_name(WithheldReason r) {
  switch (r) {
#define DS_WITHHELD_NAME(code) \
  case WithheldReason::code:   \
    return #code;
    DS_WITHHELD_REASONS(DS_WITHHELD_NAME)
#undef DS_WITHHELD_NAME
  }
  return "unknown";
}

const std::vector<WithheldReason>& all_withheld_reasons() {
  static const std::vector<WithheldReason> all{
#define DS_WITHHELD_ITEM(code) WithheldReason::code,
      DS_WITHHELD_REASONS(DS_WITHHELD_ITEM)
#undef DS_WITHHELD_ITEM
  };
  return all;
}

double Withheld::number(std::string_view name) const {
  for (const auto& [n, v] : numbers)
    if (name == n) return v;
  return 0;
}

bool has_reason(const std::vector<Withheld>& w, WithheldReason r) {
  return std::any_of(w.begin(), w.end(), [r](const Withheld& x) { return x.reason == r; });
}

bool withholds(const std::vector<Withheld>& w, std::string_view figure) {
  return std::any_of(w.begin(), w.end(), [figure](const Withheld& x) { return figure == x.figure; });
}

}  // namespace ds::measure
