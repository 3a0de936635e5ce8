#pragma once
#include <string>

namespace gpurec {
// One CSV field as RFC 4180 requires: enclosed in double quotes (inner quotes doubled) when it
// holds a comma, a quote, a line break or leading/trailing blanks; unchanged otherwise.
std::string csvField(const std::string& text);
} // namespace gpurec
