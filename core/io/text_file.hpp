#pragma once
#include <string>

namespace gpurec {
// Whole file as text; InputError naming the path when it cannot be read. A UTF-8 byte-order mark
// (as some editors write) is dropped; a UTF-16 file or a NUL byte is an error naming its place,
// since every input gpurec reads is ASCII/UTF-8 text.
std::string readTextFile(const std::string& path);
} // namespace gpurec
