#pragma once
// The shortest text that reads back as the same double ("0.875", "1", "1e-07"): numbers in
// messages and small tables stay exact without 17-digit noise.
#include <charconv>
#include <string>

namespace gpurec {

inline std::string shortestNumberText(double value) {
    char buf[32];
    const auto res = std::to_chars(buf, buf + sizeof buf, value);
    return std::string(buf, res.ptr);
}

} // namespace gpurec
