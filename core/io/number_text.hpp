#pragma once
// Numbers as text, exact in both forms. The shortest text that reads back as the same double ("0.875", "1",
// "1e-07"): numbers in messages and small tables stay exact without 17-digit noise.
#include <charconv>
#include <string>

namespace gpurec {

inline std::string shortestNumberText(double value) {
    char buf[32];
    const auto res = std::to_chars(buf, buf + sizeof buf, value);
    return std::string(buf, res.ptr);
}

// 17 significant digits ("0.10000000000000001"): the project's fixed layout for numbers in files
// that other tools read, exact on reading back.
inline std::string exactNumberText(double value) {
    char buf[40];
    const auto res = std::to_chars(buf, buf + sizeof buf, value, std::chars_format::general, 17);
    return std::string(buf, res.ptr);
}

} // namespace gpurec
