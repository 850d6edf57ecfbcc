// A word of an Awkward table ("None" for a missing value) against an optional value of ours:
// integers exactly, floats within `rel` of the value (tests/test_combinations.cpp, test_cartesian.cpp),
// or within `ulps` of the result's dtype with NaN equal to NaN (test_jagged_expr, test_nested).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "jetfuse/jetfuse.hpp"

namespace test_support {

template <class R>
::testing::AssertionResult same_value(const std::string& word, std::optional<R> got, double rel) {
  if (word == "None") {
    if (!got) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "expected None, got " << +*got;
  }
  if (!got) return ::testing::AssertionFailure() << "expected " << word << ", got None";
  if constexpr (std::is_floating_point_v<R>) {
    const double want = std::strtod(word.c_str(), nullptr), have = static_cast<double>(*got);
    if (std::abs(want - have) <= rel * std::max(1.0, std::abs(want))) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "expected " << want << ", got " << have;
  } else {
    const std::int64_t want = std::strtoll(word.c_str(), nullptr, 10);
    if (static_cast<std::int64_t>(*got) == want) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "expected " << word << ", got " << +*got;
  }
}

template <class R>
::testing::AssertionResult same_value_ulps(const std::string& word, std::optional<R> got, int ulps = 4) {
  if constexpr (std::is_floating_point_v<R>) {
    if (got && std::isnan(*got) && std::isnan(std::strtod(word.c_str(), nullptr))) return ::testing::AssertionSuccess();
    return same_value<R>(word, got, std::numeric_limits<R>::epsilon() * ulps);
  } else {
    return same_value<R>(word, got, 0.0);
  }
}

// A print case (a table case with op, values and result_dtype): jetfuse's str or repr and type
// against the text and type Awkward wrote (words joined by one space).
inline std::string joined(const std::vector<std::string>& words) {
  std::string s;
  for (const std::string& w : words) s += (s.empty() ? "" : " ") + w;
  return s;
}
template <class Case, class X> void expect_printed(const Case& c, const X& x) {
  const bool repr = c.op.rfind("repr_", 0) == 0;
  EXPECT_EQ(repr ? jf::awkward_repr(x) : jf::to_string(x), joined(c.values));
  EXPECT_EQ(jf::type_string(x), joined(c.result_dtype));
}

}  // namespace test_support
