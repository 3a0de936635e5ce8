#include "io/input_error.hpp"

namespace gpurec {

namespace {
std::string formatLocation(const std::string& file, int line, int column, const std::string& problem) {
    std::string out = file.empty() ? std::string("<input>") : file;
    if (line > 0) {
        out += ":" + std::to_string(line);
        if (column > 0) out += ":" + std::to_string(column);
    }
    return out + ": " + problem;
}
} // namespace

InputError::InputError(std::string file, int line, int column, std::string problem)
    : std::runtime_error(formatLocation(file, line, column, problem)), file_(std::move(file)), line_(line),
      column_(column), problem_(std::move(problem)) {}

} // namespace gpurec
