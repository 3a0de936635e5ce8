#pragma once
#include <string>

namespace gpurec {
// Whole file as bytes; InputError naming the path when it cannot be read.
std::string readTextFile(const std::string& path);
} // namespace gpurec
