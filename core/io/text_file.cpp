#include "io/text_file.hpp"

#include "io/input_error.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace gpurec {

std::string readTextFile(const std::string& path) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) throw InputError(path, 0, 0, "is a directory, not a file");
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError(path, 0, 0, std::string("cannot open file: ") + std::strerror(errno));
    std::ostringstream buffer;
    buffer << in.rdbuf();
    return buffer.str();
}

} // namespace gpurec
