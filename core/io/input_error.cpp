#include "io/input_error.hpp"

#include <cstdio>

namespace gpurec {

namespace {
std::string formatLocation(const std::string& file, int line, int column, const std::string& problem) {
    std::string out = file.empty() ? std::string("<input>") : escapeControlBytes(file);
    if (line > 0) {
        out += ":" + std::to_string(line);
        if (column > 0) out += ":" + std::to_string(column);
    }
    return out + ": " + problem;
}
} // namespace

std::string escapeControlBytes(const std::string& text) {
    std::string out;
    out.reserve(text.size());
    for (char c : text) {
        const auto byte = static_cast<unsigned char>(c);
        if (byte >= 0x20 && byte != 0x7f) {
            out += c;
        } else if (c == '\0') {
            out += "\\0";
        } else if (c == '\t') {
            out += "\\t";
        } else if (c == '\n') {
            out += "\\n";
        } else if (c == '\r') {
            out += "\\r";
        } else {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\x%02x", byte);
            out += buf;
        }
    }
    return out;
}

InputError::InputError(std::string file, int line, int column, const std::string& problem)
    : std::runtime_error(formatLocation(file, line, column, escapeControlBytes(problem))),
      file_(std::move(file)), line_(line), column_(column), problem_(escapeControlBytes(problem)) {}

} // namespace gpurec
